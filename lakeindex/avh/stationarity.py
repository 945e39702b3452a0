"""Make a metric's history stationary before bounding it (AVH, KDD 2023, §4.2, Appendix E, Algorithms 4-5).

The FPR bounds of Props. 1-3 treat the K historical values of a metric as draws from one static
distribution. Growing row counts (Example 5) or weekly traffic cycles are not, so Algorithm 5 tests
the series with the Augmented Dickey-Fuller (ADF) test and, if it fails, tries lag differencing
``x[t] - x[t-l]`` for ``l = 1 .. K-1``, then the same on ``log x``, returning the first stationary
result or nothing (the metric is then dropped).

**The ADF null hypothesis.** §4.2 says "if we reject the null-hypothesis in ADF that M(H) is
already stationary": that is backwards. ADF's null is a unit root (non-stationary); a series is
called stationary when the null is rejected, i.e. when ``p < alpha`` (``alpha = 0.05`` default).
Example 6 ("will fail to reject the null hypothesis that M(H) is non-stationary") has it right.

Choices where the paper is open, and why:

* **Test configuration.** ``adfuller(x, maxlag=0, autolag=None, regression="c")``: the plain
  Dickey-Fuller regression with a constant and no augmentation lags. Histories are short (7-60
  points) and the lag-order selection that statsmodels does by default (Schwert's ``maxlag`` with
  AIC) is unreliable at that size (the paper's own reference [23], Cheung & Lai 1995, is about
  exactly this). On simulated K = 30 series it found only 83 % of white-noise series stationary and
  14 % of random walks (nominal 5 %); the zero-lag test found 100 % and 6 %, and it does not
  "explain away" a weekly cycle with autoregressive terms, so the cycle is removed by lag 7.
  ``regression="c"`` and not ``"ct"``: a trend-stationary series has a moving mean, which the
  constant bounds ``mu +- beta`` cannot follow; it must be differenced. Both settings are parameters.
* **Minimum length.** ADF runs on series of at least ``min_points = 8`` values. A raw history
  shorter than that is *assumed* stationary and used as is (``tested = False`` in the result):
  nothing can be tested, and the Chebyshev bound needs no distributional form. A lag ``l`` is
  tried only while the differenced series keeps ``min_points`` values, so ``l <= K - min_points``
  (not ``K - 1``: a 1-point series cannot be tested). A weekly lag needs K >= 15.
* **Constant series** (``max - min <= 1e-12 * max(1, max |x|)``, which absorbs float noise such as
  ``0.1 * t`` differences): stationary with sigma = 0. ADF is undefined on them (statsmodels raises).
  A differenced series that is constant (a noise-free trend or cycle) also passes.
* **Which passing transform.** Algorithm 5 returns the *first* passing candidate in the order
  identity, lag 1, 2, ...; then log + lag 1, 2, ... We do the same, with one refinement
  (``switch_ratio = 2.0``): if a later candidate of the same family with ``lag <= len // 2``
  also passes and its standard deviation is less than half of the first one's, we take the first
  such candidate instead. Reason: AVH maximizes recall at a given FPR, and the FPR bound scales
  with ``(sigma / beta)**2``, so a 2x smaller sigma gives 4x tighter constraints. Without it, a
  long history (K = 60) of a strong weekly cycle passes the zero-lag test as is (a sinusoid
  reverts to its mean) and gets bounds as wide as the cycle; with it, lag 7. The factor 2 and the
  ``lag <= len // 2`` limit (a period must repeat twice; short differenced series have noisy sigma)
  keep sampling flukes from replacing lag 1 on a linear trend (0 of 100 simulated K = 30 and K = 60
  trends). ``switch_ratio=None`` gives Algorithm 5 exactly.
* **Log family.** Only for series that are positive throughout, and only when no raw candidate
  passes (Algorithm 5's order); sigma is not compared across the raw and log scales.
* **Random walk.** Its raw series fails ADF (a unit root is ADF's null), lag 1 turns it into i.i.d.
  steps, and the constraint bounds the step ``x_new - x_K``. In about ``alpha`` of cases ADF
  rejects wrongly and the raw level is used (wide bounds, never a tighter-than-justified one).
* Second-order differencing is omitted, as in the paper: a quadratic trend is dropped.

Measured on 100 simulated series per cell (noise sd 1; trend +3/batch; weekly sinusoid of
amplitude 10; exponential growth 10 %/batch; Gaussian random walk), share of the chosen transform:

====== ================= ================ ================= ===================== ===============
K      noise             linear trend     weekly cycle      exponential           random walk
====== ================= ================ ================= ===================== ===============
14     identity 73 %     lag 1 97 %       dropped 100 %     log+lag 1 97 %        lag 1 61 %
21     identity 96 %     lag 1 97 %       lag 7 68 %        log+lag 1 97 %        lag 1 91 %
30     identity 100 %    lag 1 100 %      lag 7 98 %        log+lag 1 100 %       lag 1 95 %
60     identity 100 %    lag 1 100 %      lag 7 100 %       log+lag 1 100 %       lag 1 97 %
====== ================= ================ ================= ===================== ===============

(At K = 14 a weekly lag leaves 7 < ``min_points`` values, so a strong weekly cycle is dropped;
noise that fails the low-power test at K = 14 is mostly lag-1 differenced instead, which is valid
but sqrt(2) wider.)

The paper's formula for the lag transform, ``{M(C_{l+1}) - M(C_1), ..., M(C_{l+K}) - M(C_l)}``,
overruns the history; the series has K - l elements, the last being ``M(C_K) - M(C_{K-l})``.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

__all__ = [
    "DEFAULT_ALPHA",
    "DEFAULT_MIN_POINTS",
    "DEFAULT_SWITCH_RATIO",
    "StationarityResult",
    "Transform",
    "adf_pvalue",
    "dickey_fuller_pvalue",
    "is_constant",
    "mackinnon_pvalue",
    "make_stationary",
]

DEFAULT_ALPHA = 0.05
DEFAULT_MIN_POINTS = 8
DEFAULT_SWITCH_RATIO = 2.0
CONSTANT_RTOL = 1e-12

TransformKind = Literal["identity", "lag", "log_lag"]
_KINDS: tuple[str, ...] = ("identity", "lag", "log_lag")

# MacKinnon (1994, J. Bus. Econ. Stat. 12(2), Table 3, N = 1): the approximate p-value of a Dickey-Fuller
# t statistic is Phi(c0 + c1 t + c2 t^2 [+ c3 t^3]), with the small-p coefficients at or left of tau_star
# and the large-p ones right of it; p = 0 left of tau_min and 1 right of tau_max. The same published
# numbers statsmodels' ``mackinnonp`` uses (our tests compare the two on thousands of series).
# regression: (tau_min, tau_star, tau_max, small-p coefficients, large-p coefficients)
_MACKINNON_N1: dict[str, tuple[float, float, float, tuple[float, ...], tuple[float, ...]]] = {
    "n": (-19.04, -1.04, math.inf, (0.6344, 1.2378, 0.032496), (0.4797, 0.93557, -0.06999, 0.033066)),
    "c": (-18.83, -1.61, 2.74, (2.1659, 1.4412, 0.038269), (1.7339, 0.93202, -0.12745, -0.010368)),
    "ct": (-16.18, -2.89, 0.7, (3.2512, 1.6047, 0.049588), (2.5261, 0.61654, -0.37956, -0.060285)),
    "ctt": (-17.17, -3.21, 0.54, (4.0003, 1.658, 0.048288), (3.0778, 0.49529, -0.41477, -0.059359)),
}


def _as_float(value: Any) -> float:
    """A metric value as a float; ``None`` (not applicable) becomes NaN."""
    return math.nan if value is None else float(value)


@dataclass(frozen=True)
class Transform:
    """How a metric's raw values become the stationary series that is bounded (Appendix E).

    ``identity``: ``x[t]``; ``lag``: ``x[t] - x[t-lag]``; ``log_lag``: ``log x[t] - log x[t-lag]``.
    """

    kind: TransformKind = "identity"
    lag: int = 0

    def __post_init__(self) -> None:
        if self.kind not in _KINDS:
            raise ValueError(f"transform kind must be one of {_KINDS}, got {self.kind!r}")
        if self.kind == "identity" and self.lag != 0:
            raise ValueError("the identity transform has lag 0")
        if self.kind != "identity" and (not isinstance(self.lag, int) or self.lag < 1):
            raise ValueError(f"a {self.kind} transform needs an integer lag >= 1, got {self.lag!r}")

    def series(self, values: Sequence[float]) -> np.ndarray:
        """The processed series of a history (``len(values) - lag`` values), as Algorithm 5 builds it."""
        x = np.asarray(values, dtype=float)
        if self.kind == "identity":
            return x.copy()
        if len(x) <= self.lag:
            raise ValueError(f"a lag-{self.lag} transform needs more than {self.lag} values, got {len(x)}")
        if self.kind == "log_lag":
            if not np.all(x > 0):
                raise ValueError("the log transform needs positive values")
            x = np.log(x)
        return x[self.lag:] - x[: -self.lag]

    def reference(self, history: Sequence[float | None]) -> float | None:
        """The past value a new value is compared with: ``history[-lag]`` (``None`` for identity)."""
        if self.kind == "identity":
            return None
        if len(history) < self.lag:
            raise ValueError(f"a lag-{self.lag} transform needs the last {self.lag} values of history, "
                             f"got {len(history)}")
        return _as_float(history[-self.lag])

    def undefined_reason(self, value: float | None, history: Sequence[float | None]) -> str | None:
        """Why ``apply`` would return NaN for this value (missing value or reference, log of <= 0), else None."""
        x = _as_float(value)
        if math.isnan(x):
            return "value missing"
        if self.kind == "identity":
            return None
        ref = self.reference(history)
        if ref is None or math.isnan(ref):
            return f"lag reference (value {self.lag} batches back) missing"
        if self.kind == "log_lag" and not (x > 0 and ref > 0):
            return "log undefined: non-positive value"
        return None

    def apply(self, value: float | None, history: Sequence[float | None]) -> float:
        """Transform a new batch's raw value given the metric's history (oldest first); NaN when undefined."""
        if self.undefined_reason(value, history) is not None:
            return math.nan
        x = _as_float(value)
        if self.kind == "identity":
            return x
        ref = _as_float(self.reference(history))
        if self.kind == "log_lag":
            return math.log(x) - math.log(ref)
        return x - ref

    def describe(self, metric: str = "x") -> str:
        """Human-readable form, e.g. ``row_count - row_count[t-7]`` or ``log(mean) - log(mean[t-1])``."""
        if self.kind == "identity":
            return metric
        if self.kind == "lag":
            return f"{metric} - {metric}[t-{self.lag}]"
        return f"log({metric}) - log({metric}[t-{self.lag}])"

    def to_dict(self) -> dict[str, Any]:
        """JSON form: ``{"kind": ..., "lag": ...}``."""
        return {"kind": self.kind, "lag": self.lag}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Transform:
        """Inverse of ``to_dict``."""
        return cls(kind=data["kind"], lag=int(data.get("lag", 0)))


def is_constant(series: Sequence[float] | np.ndarray) -> bool:
    """True if a series' range is within float noise of 0 (relative 1e-12); ADF is undefined there."""
    x = np.asarray(series, dtype=float)
    if x.size == 0:
        return True
    lo, hi = float(x.min()), float(x.max())  # max |x| is |lo| or |hi|: two reductions, not four
    return hi - lo <= CONSTANT_RTOL * max(1.0, abs(lo), abs(hi))


def adf_pvalue(series: Sequence[float] | np.ndarray, *, maxlag: int | None = 0, autolag: str | None = None,
               regression: str = "c") -> float:
    """ADF p-value (null: unit root); small means stationary. NaN when the test cannot be computed.

    Defaults to the zero-lag Dickey-Fuller regression with a constant (see the module docstring);
    ``maxlag`` is clamped to what the series length allows. That default runs on numpy alone
    (``dickey_fuller_pvalue``): statsmodels' import chain costs 1.2-2.5 s per process on a 2-core
    machine, more than a whole ``avh check`` may take (2 s). Augmented regressions (``maxlag`` > 0
    or ``autolag``) go to statsmodels' ``adfuller``, imported on first use.
    """
    x = np.asarray(series, dtype=float)
    if regression not in _MACKINNON_N1:
        raise ValueError(f"regression must be one of {tuple(_MACKINNON_N1)}, got {regression!r}")
    ntrend = 0 if regression == "n" else len(regression)
    if maxlag is not None:
        maxlag = max(0, min(int(maxlag), x.size // 2 - ntrend - 1))
    if maxlag == 0 and autolag is None:
        return dickey_fuller_pvalue(x, regression)
    import inspect

    from statsmodels.tsa.stattools import adfuller

    # statsmodels 0.15 warns unless told which result type to return; 0.14 does not know the argument
    tuple_result = {"result_object": False} if "result_object" in inspect.signature(adfuller).parameters else {}
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # small-sample and convergence chatter from statsmodels
            result = adfuller(x, maxlag=maxlag, autolag=autolag, regression=regression, **tuple_result)
    except (ValueError, np.linalg.LinAlgError):
        return math.nan
    return float(result[1])


def dickey_fuller_pvalue(x: np.ndarray, regression: str = "c") -> float:
    """The zero-lag Dickey-Fuller test, as ``adfuller(x, maxlag=0, autolag=None)`` computes it.

    OLS (pseudo-inverse, residual degrees of freedom ``nobs - rank``) of ``diff(x)`` on the lagged level
    and the deterministic terms of ``regression`` (a constant is left out, as statsmodels' ``add_trend``
    does, when the lagged level is itself a non-zero constant); the statistic is the lagged level's t value
    and the p-value MacKinnon's (1994) approximation. NaN where ``adfuller`` raises (constant or too short
    series).
    """
    x = np.asarray(x, dtype=float)
    ntrend = 0 if regression == "n" else len(regression)
    if x.ndim != 1 or x.size == 0 or x.max() == x.min() or x.size // 2 - ntrend - 1 < 0:
        return math.nan
    level, dy = x[:-1], np.diff(x)
    columns = [level]
    if regression != "n":
        t = np.arange(1, level.size + 1, dtype=float)
        trend = [np.ones_like(t), t, t * t][: {"c": 1, "ct": 2, "ctt": 3}[regression]]
        if np.ptp(level) == 0 and level[0] != 0:  # statsmodels' has_constant="skip"
            trend = trend[1:]
        columns.extend(trend)
    design = np.column_stack(columns)
    with np.errstate(divide="ignore", invalid="ignore"):
        pinv = np.linalg.pinv(design)
        beta = pinv @ dy
        resid = dy - design @ beta
        dof = level.size - np.linalg.matrix_rank(design)
        scale = float(resid @ resid) / dof if dof > 0 else math.nan
        stat = float(beta[0] / math.sqrt(scale * float(pinv[0] @ pinv[0]))) if scale == scale else math.nan
    return mackinnon_pvalue(stat, regression)


def mackinnon_pvalue(stat: float, regression: str = "c") -> float:
    """MacKinnon's (1994) approximate p-value of a Dickey-Fuller t statistic (one I(1) series)."""
    tau_min, tau_star, tau_max, small, large = _MACKINNON_N1[regression]
    if stat > tau_max:
        return 1.0
    if stat < tau_min:
        return 0.0
    coef = small if stat <= tau_star else large
    z = sum(c * stat**k for k, c in enumerate(coef))
    return 0.5 * math.erfc(-z / math.sqrt(2.0))


@dataclass(frozen=True)
class StationarityResult:
    """Outcome of Algorithm 5 for one metric: the chosen transform (None: dropped) and the evidence."""

    transform: Transform | None
    series: np.ndarray | None = field(default=None, repr=False, compare=False)
    tested: bool = False
    pvalue: float | None = None
    constant: bool = False
    reason: str = ""

    @property
    def stationary(self) -> bool:
        """True if a transform was found (the metric can be bounded)."""
        return self.transform is not None

    def to_dict(self) -> dict[str, Any]:
        """JSON evidence for explanations (without the series)."""
        return {
            "transform": None if self.transform is None else self.transform.to_dict(),
            "tested": self.tested,
            "adf_pvalue": self.pvalue,
            "constant": self.constant,
            "reason": self.reason,
        }


def _std(x: np.ndarray) -> float:
    return 0.0 if x.size < 2 or is_constant(x) else float(np.std(x, ddof=1))


def make_stationary(values: Sequence[float], *, alpha: float = DEFAULT_ALPHA, min_points: int = DEFAULT_MIN_POINTS,
                    max_lag: int | None = None, switch_ratio: float | None = DEFAULT_SWITCH_RATIO,
                    adf_maxlag: int | None = 0, adf_autolag: str | None = None) -> StationarityResult:
    """Algorithm 5: find a transform that makes ``values`` (oldest first, all finite) stationary, or None.

    Order: identity, lag 1..L, then (positive series only) log + lag 1..L, with
    ``L = len(values) - min_points`` (capped by ``max_lag``); see the module docstring for the rules.
    """
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha must be in (0, 1), got {alpha!r}")
    if min_points < 4:
        raise ValueError(f"min_points must be >= 4 (the smallest series a Dickey-Fuller regression fits), "
                         f"got {min_points!r}")
    if switch_ratio is not None and not switch_ratio > 1.0:
        raise ValueError(f"switch_ratio must be > 1 or None, got {switch_ratio!r}")
    x = np.asarray(values, dtype=float)
    if x.ndim != 1 or x.size == 0 or not np.all(np.isfinite(x)):
        raise ValueError("values must be a non-empty 1-D sequence of finite numbers")
    identity = Transform()
    if is_constant(x):
        return StationarityResult(identity, x.copy(), tested=False, constant=True,
                                  reason="constant series: stationary with sigma = 0 (ADF undefined)")
    if x.size < min_points:
        return StationarityResult(identity, x.copy(), tested=False,
                                  reason=f"{x.size} values < min_points = {min_points}: ADF not run, "
                                         f"stationarity assumed")

    n = int(x.size)
    top = n - min_points if max_lag is None else min(int(max_lag), n - min_points)
    families: list[list[Transform]] = [[identity] + [Transform("lag", lag) for lag in range(1, top + 1)]]
    if np.all(x > 0):
        families.append([Transform("log_lag", lag) for lag in range(1, top + 1)])

    pvalues: dict[Transform, float | None] = {}

    def passes(t: Transform, s: np.ndarray) -> bool:
        if t not in pvalues:
            pvalues[t] = None if is_constant(s) else adf_pvalue(s, maxlag=adf_maxlag, autolag=adf_autolag)
        p = pvalues[t]
        return p is None or p < alpha  # a constant processed series is stationary

    for family in families:
        serieses = [t.series(x) for t in family]
        first = next((i for i, (t, s) in enumerate(zip(family, serieses, strict=True)) if passes(t, s)), None)
        if first is None:
            continue
        chosen = first
        if switch_ratio is not None:
            cutoff = _std(serieses[first]) / switch_ratio
            first_constant = is_constant(serieses[first])
            for i, (t, s) in enumerate(zip(family, serieses, strict=True)):
                if i == first or t.lag > n // 2:
                    continue
                # a lag that differences a single level shift away is constant only by accident: it would
                # give a zero-width rule that fires as soon as the new level simply persists
                if is_constant(s) and not first_constant:
                    continue
                if _std(s) < cutoff and passes(t, s):
                    chosen = i
                    break
        t, s = family[chosen], serieses[chosen]
        how = "first passing" if chosen == first else \
            f"sigma < 1/{switch_ratio:g} of the first passing ({family[first].describe()})"
        p = pvalues[t]
        detail = "constant after transform" if p is None else f"ADF p = {p:.3g} < {alpha:g}"
        return StationarityResult(t, s, tested=True, pvalue=p, constant=p is None,
                                  reason=f"{t.describe()}: {detail} ({how})")
    tried = sum(len(f) for f in families)
    return StationarityResult(None, None, tested=True,
                              reason=f"non-stationary: none of {tried} transforms (identity, lag 1..{top}"
                                     f"{', log + lag' if len(families) > 1 else ''}) passes ADF at {alpha:g}")
