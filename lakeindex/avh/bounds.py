"""FPR bounds of a constraint ``mu - beta <= M(C) <= mu + beta`` (AVH, KDD 2023, §4.2, Props. 1-3).

Given the mean ``mu`` and standard deviation ``sigma`` of a metric over the clean history, a
constraint of half-width ``beta`` wrongly flags a clean batch with probability at most:

========== ================================ ===================================================
kind       bound on E[FPR]                   source
========== ================================ ===================================================
chebyshev  ``(sigma / beta)**2`` (capped at 1) Prop. 1 (Chebyshev), two-sided, any metric
cantelli   ``sigma**2 / (sigma**2 + beta**2)`` Prop. 2 (Cantelli), one-sided ``M <= mu + beta``
clt        ``1 - erf(beta / (sqrt(2) sigma))`` Prop. 3 / Eq. 7 (normal tail), two-sided
========== ================================ ===================================================

The CLT expression is the paper's Eq. 7 verbatim. It equals ``erfc(beta / (sqrt(2) sigma))`` and
``2 * (1 - Phi(beta / sigma))``; we evaluate it with ``erfc`` so that tails of 1e-12 do not cancel
to 0. Unlike the other two it is an approximation (normality holds only asymptotically), not an
inequality; the paper states it as one, and so do we.

Which metric gets which bound (``METRIC_BOUND_KINDS``, see ``bound_kind_for``):

* **cantelli**: the distance-like two-distribution metrics of Prop. 2 (EMD, JS/KL divergence,
  KS distance, Cohen's d, L1, L-inf, cosine, chi-squared) and their ``pat_*`` counterparts of
  Table 4, and the share of values new to the history (``new_value_ratio``). A new batch that
  is *closer* to its predecessor than usual is not a DQ concern (Appendix F), so only the upper
  side is constrained. They must be distances (larger = more different): KS and chi-squared as
  the statistic, not the p-value (Tables 3-4 say "using p-value", for which one-sided-upper
  would guard the wrong side), and Cohen's d as ``|d|``.
  Names ending in ``_pvalue``/``_p_value`` therefore stay on Chebyshev, and
  ``constraints.fit_metric`` falls back to Chebyshev when a "distance" history has negative values.
* **clt**: averages of many per-cell values, where the CLT argument of Appendix G applies:
  ``mean``, ``str_len``, ``char_len``, ``digit_len``, ``punc_len`` and ``complete_ratio`` (the mean
  of 0/1 completeness indicators). Prop. 3 also lists "count"; we do **not** map ``row_count`` to
  CLT: a batch's row count is not an average of i.i.d. cells and its batch-to-batch variation comes
  from upstream volume, so we keep the distribution-free Chebyshev bound for it. Learning from a
  history (``from_history``) also moves an average to Chebyshev when the batch has too few rows for its
  values' skewness (``normality``: the Edgeworth term exceeds the normal tail at the budget).
* **chebyshev**: everything else (min, max, median, sum, range, row_count, unique_ratio,
  dist_val_count, ...), and any metric this table does not know.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from enum import StrEnum
from statistics import NormalDist

from lakeindex.history.batch_metrics import BatchMetric

__all__ = [
    "METRIC_BOUND_KINDS",
    "BoundKind",
    "beta_for_fpr",
    "bound_kind_for",
    "cantelli_beta",
    "cantelli_fpr",
    "chebyshev_beta",
    "chebyshev_fpr",
    "clt_beta",
    "clt_fpr",
    "fpr_bound",
    "UnknownMetric",
]


class BoundKind(StrEnum):
    """The inequality behind a constraint's FPR bound (Prop. 1, 2 or 3)."""

    CHEBYSHEV = "chebyshev"
    CANTELLI = "cantelli"
    CLT = "clt"

    @property
    def one_sided(self) -> bool:
        """True for Cantelli: only the upper bound ``mu + beta`` is enforced (Prop. 2)."""
        return self is BoundKind.CANTELLI


def _check_sigma_beta(sigma: float, beta: float) -> tuple[float, float]:
    sigma, beta = float(sigma), float(beta)
    if not (sigma >= 0.0 and math.isfinite(sigma)):
        raise ValueError(f"sigma must be a finite number >= 0, got {sigma!r}")
    if not beta > 0.0:  # also rejects NaN
        raise ValueError(f"beta must be > 0 (Props. 1-3 take beta in R+), got {beta!r}")
    return sigma, beta


def _check_sigma_fpr(sigma: float, fpr: float) -> tuple[float, float]:
    sigma, fpr = float(sigma), float(fpr)
    if not (sigma >= 0.0 and math.isfinite(sigma)):
        raise ValueError(f"sigma must be a finite number >= 0, got {sigma!r}")
    if not 0.0 < fpr <= 1.0:
        raise ValueError(f"target FPR must be in (0, 1], got {fpr!r}")
    return sigma, fpr


def chebyshev_fpr(sigma: float, beta: float) -> float:
    """Prop. 1 (Eq. 5): ``E[FPR] <= (sigma / beta)**2`` for ``mu +- beta``; capped at 1, a probability."""
    sigma, beta = _check_sigma_beta(sigma, beta)
    return min(1.0, (sigma / beta) ** 2)


def cantelli_fpr(sigma: float, beta: float) -> float:
    """Prop. 2 (Eq. 6): ``E[FPR] <= sigma**2 / (sigma**2 + beta**2)`` for the one-sided ``M <= mu + beta``."""
    sigma, beta = _check_sigma_beta(sigma, beta)
    return sigma * sigma / (sigma * sigma + beta * beta)


def clt_fpr(sigma: float, beta: float) -> float:
    """Prop. 3 (Eq. 7): ``E[FPR] = 1 - erf(beta / (sqrt(2) sigma))``, the two-sided normal tail beyond ``beta``."""
    sigma, beta = _check_sigma_beta(sigma, beta)
    if sigma == 0.0:
        return 0.0
    return math.erfc(beta / (math.sqrt(2.0) * sigma))


def chebyshev_beta(sigma: float, fpr: float) -> float:
    """Inverse of Prop. 1: the half-width ``sigma / sqrt(fpr)`` whose Chebyshev bound is ``fpr``."""
    sigma, fpr = _check_sigma_fpr(sigma, fpr)
    return sigma / math.sqrt(fpr)


def cantelli_beta(sigma: float, fpr: float) -> float:
    """Inverse of Prop. 2: ``sigma * sqrt(1/fpr - 1)``, the upper margin whose Cantelli bound is ``fpr``."""
    sigma, fpr = _check_sigma_fpr(sigma, fpr)
    return sigma * math.sqrt(1.0 / fpr - 1.0)


def clt_beta(sigma: float, fpr: float) -> float:
    """Inverse of Prop. 3: ``sqrt(2) sigma erfcinv(fpr)`` = ``-sigma Phi^-1(fpr / 2)`` (the standard library's
    normal quantile, full double precision for tiny FPRs; scipy.special would cost 0.3 s of imports)."""
    sigma, fpr = _check_sigma_fpr(sigma, fpr)
    return sigma * -_STANDARD_NORMAL.inv_cdf(fpr / 2.0)


_STANDARD_NORMAL = NormalDist()
_FPR = {BoundKind.CHEBYSHEV: chebyshev_fpr, BoundKind.CANTELLI: cantelli_fpr, BoundKind.CLT: clt_fpr}
_BETA = {BoundKind.CHEBYSHEV: chebyshev_beta, BoundKind.CANTELLI: cantelli_beta, BoundKind.CLT: clt_beta}


def fpr_bound(kind: BoundKind | str, sigma: float, beta: float) -> float:
    """The FPR bound of a constraint with half-width (or upper margin) ``beta`` under ``kind``."""
    return _FPR[BoundKind(kind)](sigma, beta)


def beta_for_fpr(kind: BoundKind | str, sigma: float, fpr: float) -> float:
    """The half-width (or upper margin) whose ``kind`` bound equals the target ``fpr``; inverse of ``fpr_bound``."""
    return _BETA[BoundKind(kind)](sigma, fpr)


class UnknownMetric(ValueError):
    """A metric name AVH has no bound kind for (see ``bound_kind_for``)."""


_DISTANCES = ("emd", "js_div", "kl_div", "ks_dist", "cohen_d", "l1", "linf", "cosine", "chisquare", "new_value_ratio")
_AVERAGES = ("mean", "str_len", "char_len", "digit_len", "punc_len", "complete_ratio")


def _kind_of(metric: BatchMetric) -> BoundKind:
    name = metric.value.removeprefix("pat_")
    if name in _DISTANCES:
        return BoundKind.CANTELLI  # a distance: only large values are deviations (Prop. 2)
    if name in _AVERAGES:
        return BoundKind.CLT  # an average of many values: normal (Prop. 3)
    return BoundKind.CHEBYSHEV  # counts, extremes, sums, ratios, p-values: no distributional form (Prop. 1)


#: Every batch metric (:data:`lakeindex.history.batch_metrics.BatchMetric`) -> its bound kind.
METRIC_BOUND_KINDS: Mapping[BatchMetric, BoundKind] = {m: _kind_of(m) for m in BatchMetric}


def bound_kind_for(metric: str, overrides: Mapping[str, BoundKind | str] | None = None) -> BoundKind:
    """The bound used for ``metric``: ``overrides`` first (other metrics need one), then ``METRIC_BOUND_KINDS``.

    Raises :class:`UnknownMetric` for a name that is neither: guessing a bound for it would state an FPR
    guarantee nobody checked.
    """
    if overrides and metric in overrides:
        return BoundKind(overrides[metric])
    try:
        return METRIC_BOUND_KINDS[BatchMetric(metric)]
    except ValueError:
        raise UnknownMetric(f"no bound kind for metric {metric!r}: AVH knows the batch metrics "
                            f"({', '.join(m.value for m in BatchMetric)}); give any other metric one with "
                            "bound_kinds={name: 'chebyshev' | 'cantelli' | 'clt'}") from None
