"""Whether Prop. 3's normal tail fits a batch average of n rows (AVH, KDD 2023, Appendix G; Edgeworth expansion).

Prop. 3 treats an average of n per-row values (``mean``, ``str_len``, ..., ``complete_ratio``) as normal.
For n i.i.d. rows whose values have skewness ``gamma``, the one-term Edgeworth expansion of the
standardised mean (Hall, *The Bootstrap and Edgeworth Expansion*, 1992, §2.2; Feller II, XVI.4) is

    P(Z_n <= x) = Phi(x) - gamma (x**2 - 1) phi(x) / (6 sqrt(n)) + O(1/n),

so each normal tail beyond ``k`` sigma is off by about ``|gamma| (k**2 - 1) phi(k) / (6 sqrt(n))``. A CLT
clause that spends the whole budget ``delta`` sits at ``k_delta`` with ``2 (1 - Phi(k_delta)) = delta``;
when the skewness term there exceeds the normal tail it corrects (``delta / 2``), the normal tail does
not describe the batch's average, and the metric gets the distribution-free Chebyshev bound (Prop. 1).
At ``delta = 0.001`` that is ``n < 33.9 gamma**2``: 1,000 rows keep the CLT up to ``|gamma| = 5.4``, 20 rows
only up to ``|gamma| = 0.77``.

Why not Berry-Esseen: its error bound ``C rho / (sigma**3 sqrt(n))`` (``C <= 0.4748``, ``rho / sigma**3 >= 1``)
is at least 0.015 at n = 1,000 and 0.1 at n = 20, more than the budget ``delta`` for every batch below about
225,000 rows, so as a gate it would retire Prop. 3 altogether; the Edgeworth term is the size of the error
the CLT actually makes, not its worst case over all distributions.

The row count n is the newest clean batch's (learning's ``ColumnSummary``), the per-row skewness is
estimated from as many rows as the history keeps: ``complete_ratio`` averages Bernoulli(p) completeness
indicators over ``row_count`` rows (skewness ``(1 - 2p) / sqrt(p (1 - p))`` with p pooled over the history's
batches, infinite when p is 0 or 1: no row differs, nothing is normal); the text lengths average over the
non-null values, whose lengths come from the clean history's vocabulary (``history_values``, else the
batch's value frequencies; empty strings have length 0; values beyond the ``top_k`` kept are not seen);
``mean`` averages the complete values, which only the newest batch describes, by its quantile grid's atoms
(``summary.QUANTILE_GRID``: each value's mass within the grid's 1 % steps, exact when the count divides 100).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from statistics import NormalDist
from typing import Any

import numpy as np

from lakeindex.avh.bounds import METRIC_BOUND_KINDS, BoundKind
from lakeindex.history import chars
from lakeindex.history.kinds import NUMERIC
from lakeindex.history.summary import LENGTH_KEYS, QUANTILE_GRID, ColumnSummary

__all__ = ["clt_fallbacks", "min_rows_for_clt", "row_skewness", "skewness_error"]

_STANDARD_NORMAL = NormalDist()
_CLT_METRICS = tuple(m.value for m, kind in METRIC_BOUND_KINDS.items() if kind is BoundKind.CLT)
_MASSES = np.diff(np.asarray(QUANTILE_GRID, dtype=float), prepend=0.0)


def _k_for(delta: float) -> float:
    if not 0.0 < delta < 1.0:
        raise ValueError(f"delta must be in (0, 1), got {delta!r}")
    return -_STANDARD_NORMAL.inv_cdf(delta / 2.0)


def skewness_error(skewness: float, n: float, k: float) -> float:
    """``|gamma| (k**2 - 1) phi(k) / (6 sqrt(n))``: the Edgeworth skewness term of one normal tail beyond ``k``."""
    if not n > 0:
        raise ValueError(f"n must be > 0, got {n!r}")
    return abs(skewness) * abs(k * k - 1.0) * _STANDARD_NORMAL.pdf(k) / (6.0 * math.sqrt(n))


def min_rows_for_clt(skewness: float, delta: float) -> float:
    """The fewest rows whose average keeps Prop. 3 at budget ``delta``: the skewness term at ``k_delta`` is at
    most the normal tail ``delta / 2`` (infinite for an infinite skewness)."""
    k = _k_for(delta)
    if math.isinf(skewness):
        return math.inf
    return (skewness_error(skewness, 1.0, k) / (delta / 2.0)) ** 2


def _weighted_skewness(x: np.ndarray, w: np.ndarray) -> float | None:
    total = float(w.sum())
    present = x[w > 0]
    if total <= 0 or float(np.ptp(present)) == 0.0:
        return None  # one value: no spread, nothing to approximate
    d = x - float(np.dot(w, x)) / total
    m2 = float(np.dot(w, d * d)) / total
    return float(np.dot(w, d * d * d)) / total / m2 ** 1.5


def _pooled_completeness(history: Sequence[Mapping[str, Any]]) -> float | None:
    rows = complete = 0.0
    for features in history:
        n, ratio = features.get("row_count"), features.get("complete_ratio")
        if n is not None and ratio is not None and math.isfinite(n) and math.isfinite(ratio):
            rows += n
            complete += n * ratio
    return complete / rows if rows > 0 else None


def row_skewness(summary: ColumnSummary, metric: str,
                 history: Sequence[Mapping[str, Any]] = ()) -> tuple[float, float] | None:
    """``(n, skewness)`` of the per-row values ``metric`` averages, n from the batch ``summary`` describes and the
    skewness pooled over ``history`` (its feature dicts) where it can be; None when they cannot tell (no values,
    a single value, an untracked text column)."""
    s = summary
    if metric == "complete_ratio":
        if not s.row_count:
            return None
        p = _pooled_completeness(history)
        p = s.complete_count / s.row_count if p is None else p
        gamma = math.inf if p <= 0.0 or p >= 1.0 else (1.0 - 2.0 * p) / math.sqrt(p * (1.0 - p))
        return float(s.row_count), gamma
    if metric == "mean":
        if s.kind != NUMERIC or not s.complete_count or s.quantiles is None:
            return None
        gamma = _weighted_skewness(np.asarray(s.quantiles, dtype=float), _MASSES)
        return None if gamma is None else (float(s.complete_count), gamma)
    if metric in LENGTH_KEYS:
        counts = s.history_values or s.value_counts
        if s.kind == NUMERIC or not s.non_null_count or not s.values_tracked or not counts:
            return None
        empty_share = max(0.0, s.non_null_count - s.complete_count) / s.non_null_count
        if empty_share >= 1.0:
            return None
        values = list(counts)
        lengths = chars.class_counts(values)[metric].astype(float)
        weights = np.fromiter(counts.values(), dtype=float, count=len(values))
        empties = float(weights.sum()) * empty_share / (1.0 - empty_share)  # non-null "" (length 0), as in the batch
        gamma = _weighted_skewness(np.append(lengths, 0.0), np.append(weights, empties))
        return None if gamma is None else (float(s.non_null_count), gamma)
    return None


def clt_fallbacks(summary: ColumnSummary, delta: float,
                  history: Sequence[Mapping[str, Any]] = ()) -> dict[str, BoundKind]:
    """``{metric: chebyshev}`` for each CLT metric whose average over a batch like ``summary`` is too skewed for
    its row count, ``n < min_rows_for_clt(skewness, delta)``; ``history``: the column's clean feature dicts."""
    out: dict[str, BoundKind] = {}
    if delta >= 1.0:
        return out  # a budget of 1 spends no tail: nothing for the normal approximation to get wrong
    for metric in _CLT_METRICS:
        moments = row_skewness(summary, metric, history)
        if moments is not None and moments[0] < min_rows_for_clt(moments[1], delta):
            out[metric] = BoundKind.CHEBYSHEV
    return out
