"""Candidate DQ constraints from a column's history (AVH, KDD 2023, §4.2, Algorithm 3, Appendix D).

For each metric M: take M(H), make it stationary (Algorithm 4/5, ``stationarity.py``), estimate
mu and sigma of the processed series, and emit one constraint ``mu - beta <= M' <= mu + beta`` per
beta of a grid, each with the FPR bound of its metric's proposition (``bounds.py``).

Choices where the paper is open, and why:

* **Which values.** The history is a list of per-batch feature dicts; a metric may be missing
  (``None``/NaN/absent) where it does not apply, e.g. a two-distribution metric on the first batch,
  which has no predecessor. We use the *trailing run of finite values* (the most recent values up to
  the last gap): leading gaps are trimmed, and an interior gap cuts the series there, because lag
  differencing needs equally spaced points. Fewer than ``MIN_SERIES = 3`` values: the metric is
  skipped (no meaningful spread).
* **Variance.** ``sigma`` is the *predictive* standard deviation ``s * sqrt(1 + 1/n)``, with ``s``
  the sample standard deviation (ddof = 1) of the n processed values. The bounds are about a new
  value's distance from the *estimated* mean, and ``Var(X_new - mean_n) = sigma^2 (1 + 1/n)``; the
  paper plugs in the estimates as if they were the true parameters, which is optimistic for short
  histories (7 % at K = 7). ``predictive=False`` restores the plug-in.
* **Beta grid.** ``beta = k * sigma`` for ``k`` in ``DEFAULT_K_GRID`` (1 ... 1000). Algorithm 3 steps
  ``beta`` over ``[sigma, n sigma]``; the range must be wide because at the default budget
  ``delta = 0.001`` one Chebyshev or Cantelli clause needs ``k >= 31.6`` (``1/k^2 <= delta``), a CLT
  clause ``k >= 3.29``, and several clauses share the budget. The grid is dense around 3-6 (CLT)
  and 30-100 (Chebyshev/Cantelli at that budget).
* **sigma = 0** (a constant metric, e.g. exactly 50 rows every day, Example 7): every k gives the same
  constraint, so one is emitted, with half-width ``1e-9 * max(1, max |values entering the
  transform|)``: tight, but not zero-width, so that float rounding in recomputing the same metric
  does not trip it. All three bounds give FPR 0 at sigma = 0, which is what the paper's Example 7
  relies on to select ``dist_val_cnt = 50``; ``sigma_zero_fpr`` can instead charge such constraints
  a pessimistic FPR: ``1 / (K + 1)`` is what exchangeability alone proves (of K + 1 exchangeable
  batches at most one can be the only one off a value the others share, each equally likely the
  last), ``1 / (K + 2)`` Laplace's rule of succession; either exceeds the default budget 0.001 for
  K < 999, so no constant clause would be selected (``docs/history.md``, Tiny batches). The same
  floor applies when ``k * sigma`` falls below it.
* **One-sided metrics** (Cantelli) get ``lower = -inf`` rather than the paper's ``0``: after lag
  differencing the processed value can be negative. If a "distance" metric's history has negative
  values it is not a distance (e.g. a signed Cohen's d), and it falls back to two-sided Chebyshev.
* **CLT after log.** A log-differenced average is not a normal sum, so a CLT metric with a
  ``log_lag`` transform falls back to Chebyshev. A lag difference of two normal values is normal,
  so CLT is kept there.
* **Missing values at check time.** ``RangeConstraint.violates`` treats a missing (None/NaN) value as a
  violation: the metric existed throughout the history used, so its absence is itself a deviation
  (e.g. the mean of an all-null batch), and a check that cannot be evaluated should not pass.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from lakeindex.avh.bounds import BoundKind, bound_kind_for, fpr_bound
from lakeindex.avh.stationarity import (
    DEFAULT_ALPHA,
    DEFAULT_MIN_POINTS,
    DEFAULT_SWITCH_RATIO,
    StationarityResult,
    Transform,
    make_stationary,
)
from lakeindex.history.metric_glossary import metric_range

__all__ = [
    "DEFAULT_K_GRID",
    "MIN_SERIES",
    "ZERO_WIDTH_RTOL",
    "RangeConstraint",
    "MetricFit",
    "SkipMetric",
    "fit_metric",
    "fit_metrics",
    "metric_values",
    "trailing_finite",
]

#: Multiples of sigma used as half-widths beta (Algorithm 3's grid over [sigma, n sigma]).
DEFAULT_K_GRID: tuple[float, ...] = (
    1, 1.5, 2, 2.5, 3, 3.25, 3.5, 3.75, 4, 4.5, 5, 5.5, 6, 7, 8, 9, 10, 12, 15, 20, 25, 30, 35, 40, 45, 50,
    60, 70, 80, 90, 100, 125, 150, 200, 250, 300, 400, 500, 750, 1000,
)
#: Shortest usable metric series.
MIN_SERIES = 3
#: Half-width of a constraint on a constant metric, relative to the magnitude of its values.
ZERO_WIDTH_RTOL = 1e-9


def _num(value: Any) -> float | None:
    """``None`` stays None; numbers become floats (NaN stays NaN)."""
    return None if value is None else float(value)


def _json_float(x: float | None) -> float | None:
    return None if x is None or not math.isfinite(x) else x


@dataclass(frozen=True)
class RangeConstraint:
    """One DQ constraint ``lower <= M'(C) <= upper`` on a transformed metric (Definitions 1-2), with its FPR bound.

    Named apart from the checks' constraints (:mod:`lakeindex.checks.constraint`: Deequ assertions)."""

    column: str
    metric: str
    transform: Transform
    lower: float
    upper: float
    fpr_bound: float
    bound_kind: BoundKind
    mu: float | None = None
    sigma: float | None = None
    beta: float | None = None

    def __post_init__(self) -> None:
        if not self.lower <= self.upper:
            raise ValueError(f"lower bound {self.lower!r} exceeds upper bound {self.upper!r}")
        if not 0.0 <= self.fpr_bound <= 1.0:
            raise ValueError(f"fpr_bound must be a probability, got {self.fpr_bound!r}")

    @property
    def key(self) -> tuple[str, str]:
        """``(column, metric)``: constraints sharing a key are the same clause at different widths."""
        return self.column, self.metric

    @property
    def k(self) -> float | None:
        """beta in units of sigma (None when sigma is 0 or unknown)."""
        if self.beta is None or not self.sigma:
            return None
        return self.beta / self.sigma

    def violates(self, value: float | None) -> bool:
        """True if an already-transformed value lies outside ``[lower, upper]``; missing (None/NaN) violates."""
        if value is None:
            return True
        value = float(value)
        return math.isnan(value) or value < self.lower or value > self.upper

    def describe(self) -> str:
        """The clause as text, e.g. ``0.85 <= complete_ratio <= 0.95`` or ``js_div <= 0.12``. A bound of a raw
        metric at or beyond the values the metric can take (``complete_ratio <= 1.07``) admits every value and
        is left out; the bounds themselves, and so what is checked, stay as learned."""
        expr = self.transform.describe(self.metric)
        lowest, highest = metric_range(self.metric) if self.transform.kind == "identity" else (-math.inf, math.inf)
        lower = -math.inf if self.lower <= lowest else self.lower
        upper = math.inf if self.upper >= highest else self.upper
        if math.isinf(lower) and math.isinf(upper):
            return f"{expr} is defined"
        if math.isinf(lower):
            return f"{expr} <= {upper:.6g}"
        if math.isinf(upper):
            return f"{expr} >= {lower:.6g}"
        return f"{lower:.6g} <= {expr} <= {upper:.6g}"

    def to_dict(self) -> dict[str, Any]:
        """JSON form; infinite bounds are ``null``."""
        return {
            "column": self.column,
            "metric": self.metric,
            "transform": self.transform.to_dict(),
            "lower": _json_float(self.lower),
            "upper": _json_float(self.upper),
            "fpr_bound": self.fpr_bound,
            "bound_kind": str(self.bound_kind),
            "mu": self.mu,
            "sigma": self.sigma,
            "beta": self.beta,
            "k": self.k,
            "rule": self.describe(),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> RangeConstraint:
        """Inverse of ``to_dict``."""
        return cls(
            column=data["column"],
            metric=data["metric"],
            transform=Transform.from_dict(data["transform"]),
            lower=-math.inf if data.get("lower") is None else float(data["lower"]),
            upper=math.inf if data.get("upper") is None else float(data["upper"]),
            fpr_bound=float(data["fpr_bound"]),
            bound_kind=BoundKind(data["bound_kind"]),
            mu=_num(data.get("mu")),
            sigma=_num(data.get("sigma")),
            beta=_num(data.get("beta")),
        )


class SkipMetric(ValueError):
    """A metric cannot be bounded (too few values, or non-stationary); ``str(exc)`` is the reason."""


def metric_values(history: Sequence[Mapping[str, Any]], metric: str) -> list[float | None]:
    """One metric's values across the history, oldest first; absent keys are None."""
    return [_num(features.get(metric)) for features in history]


def trailing_finite(values: Sequence[float | None]) -> list[float]:
    """The most recent run of finite values (stops at the last None/NaN/inf)."""
    run: list[float] = []
    for value in reversed(values):
        if value is None or not math.isfinite(value):
            break
        run.append(float(value))
    run.reverse()
    return run


@dataclass(frozen=True)
class MetricFit:
    """A metric's processed history: transform (Algorithm 5), mu, sigma and bound kind; yields constraints."""

    column: str
    metric: str
    values: tuple[float, ...]
    stationarity: StationarityResult
    mu: float
    sigma: float
    sample_std: float
    n: int
    bound_kind: BoundKind
    notes: tuple[str, ...] = field(default=())

    @property
    def transform(self) -> Transform:
        """The chosen transform (a fit exists only for stationary metrics)."""
        assert self.stationarity.transform is not None
        return self.stationarity.transform

    @functools.cached_property
    def zero_width(self) -> float:
        """The minimum half-width: ``ZERO_WIDTH_RTOL`` times the magnitude of the transform's input values."""
        x = np.asarray(self.values, dtype=float)
        if self.transform.kind == "log_lag":
            x = np.log(x)
        return ZERO_WIDTH_RTOL * max(1.0, float(np.max(np.abs(x))))

    def constraint(self, beta: float, *, sigma_zero_fpr: float = 0.0) -> RangeConstraint:
        """The constraint of half-width (or upper margin) ``beta``, floored at ``zero_width``."""
        beta = max(float(beta), self.zero_width)
        if self.sigma == 0.0:
            fpr = float(sigma_zero_fpr)
        else:
            fpr = fpr_bound(self.bound_kind, self.sigma, beta)
        lower = -math.inf if self.bound_kind.one_sided else self.mu - beta
        return RangeConstraint(self.column, self.metric, self.transform, lower, self.mu + beta, fpr, self.bound_kind,
                          mu=self.mu, sigma=self.sigma, beta=beta)

    def constraints(self, k_grid: Iterable[float] = DEFAULT_K_GRID, *,
                    sigma_zero_fpr: float = 0.0) -> list[RangeConstraint]:
        """Algorithm 3, lines 6-9: one constraint per distinct beta = k * sigma (just one when sigma = 0)."""
        out: list[RangeConstraint] = []
        seen: set[float] = set()
        for k in k_grid:
            if not k > 0:
                raise ValueError(f"k values must be > 0, got {k!r}")
            c = self.constraint(k * self.sigma, sigma_zero_fpr=sigma_zero_fpr)
            if c.beta not in seen:
                seen.add(c.beta)  # type: ignore[arg-type]
                out.append(c)
        return out

    def transform_value(self, value: float | None, history: Sequence[float | None]) -> float:
        """A new raw value in the processed space, given this metric's raw history (oldest first)."""
        return self.transform.apply(value, history)

    def evidence(self) -> dict[str, Any]:
        """JSON summary of how mu and sigma were obtained, for explanations."""
        return {
            "series_length": self.n,
            "sample_std": self.sample_std,
            "stationarity": self.stationarity.to_dict(),
            "notes": list(self.notes),
        }


def fit_metric(column: str, metric: str, values: Sequence[float | None], *, alpha: float = DEFAULT_ALPHA,
               min_points: int = DEFAULT_MIN_POINTS, switch_ratio: float | None = DEFAULT_SWITCH_RATIO,
               bound_kinds: Mapping[str, BoundKind | str] | None = None, predictive: bool = True) -> MetricFit:
    """Algorithm 3, lines 3-5, for one metric; raises ``SkipMetric`` when it cannot be bounded."""
    run = trailing_finite(values)
    if len(run) < MIN_SERIES:
        raise SkipMetric(f"{len(run)} consecutive recent values < {MIN_SERIES}")
    result = make_stationary(run, alpha=alpha, min_points=min_points, switch_ratio=switch_ratio)
    if result.transform is None or result.series is None:
        raise SkipMetric(result.reason)
    series = np.asarray(result.series, dtype=float)
    n = int(series.size)
    if n < 2:  # cannot happen with min_points >= 4, but sigma needs two values
        raise SkipMetric(f"processed series has {n} value")
    mu = float(np.mean(series))
    constant = result.constant or float(np.ptp(series)) == 0.0
    sample_std = 0.0 if constant else float(np.std(series, ddof=1))
    sigma = sample_std * math.sqrt(1.0 + 1.0 / n) if predictive else sample_std
    kind = bound_kind_for(metric, bound_kinds)
    notes: list[str] = []
    if kind is BoundKind.CANTELLI and min(run) < 0:
        kind = BoundKind.CHEBYSHEV
        notes.append("negative values: not a distance, two-sided Chebyshev instead of Cantelli")
    if kind is BoundKind.CLT and result.transform.kind == "log_lag":
        kind = BoundKind.CHEBYSHEV
        notes.append("log transform: CLT normality does not carry over, Chebyshev instead")
    return MetricFit(column, metric, tuple(run), result, mu, sigma, sample_std, n, kind, tuple(notes))


def fit_metrics(column: str, history: Sequence[Mapping[str, Any]], *, metrics: Iterable[str] | None = None,
                **options: Any) -> tuple[list[MetricFit], dict[str, str]]:
    """Fit every metric of the history (or ``metrics``); returns the fits and ``{metric: reason}`` for skipped ones."""
    names = sorted({m for features in history for m in features}) if metrics is None else list(metrics)
    fits: list[MetricFit] = []
    skipped: dict[str, str] = {}
    for metric in names:
        try:
            fits.append(fit_metric(column, metric, metric_values(history, metric), **options))
        except SkipMetric as exc:
            skipped[metric] = str(exc)
    return fits, skipped
