"""AVH metrics (Tables 1-4) from ColumnSummary objects: the per-batch feature dicts AVH learns from.

Names are stable lower_snake_case JSON keys. A metric that is undefined for a batch is *absent* from the
dict rather than NaN: min/max/mean/median/range/sum need a complete value, the text lengths a non-null
value, ratios a non-empty batch, two-distribution metrics complete values on both sides (and, for the
value-frequency family, frequencies kept on both sides: ``ColumnSummary.values_tracked``). A consumer
should treat a metric present in the history but absent from a new batch as a violation.

Single-distribution metrics (``single_distribution``):

* ``row_count``: rows in the batch, nulls included.
* ``complete_ratio``: complete values / rows (numeric: finite numbers; categorical: non-null, non-empty).
* ``unique_ratio``: distinct complete values / complete values (Deequ's *distinctness*; the paper's
  "fraction of unique values" read as distinct, not singleton, values).
* numeric: ``min``, ``max``, ``sum``, ``mean`` over complete values, ``range`` = max − min, ``median`` = the
  50th percentile of the inverted CDF (the lower middle value of an even count, as KLL/Spark report it).
* categorical: ``dist_val_count`` = distinct complete values; ``str_len`` = mean characters (Unicode code
  points) per non-null value, empty strings included; ``char_len`` = mean letters (Unicode ``L*``, the
  paper's "char"); ``digit_len`` = mean decimal digits (``Nd``); ``punc_len`` = mean punctuation and symbol
  characters (``P*``/``S*``: all of ASCII ``string.punctuation``). Whitespace counts only in ``str_len``.

Two-distribution metrics (``two_distribution(prev, cur)``), logarithms in base 2 (bits):

* numeric, from the quantile grids u_0 = 0 < u_1 < ... < u_m = 1 (``summary.QUANTILE_GRID``):
  ``emd`` = Wasserstein-1 distance ∫|Q_prev(u) − Q_cur(u)| du with the quantile functions linear between grid
  points (exact trapezoid integration, sign changes included), in data units; for ``ks_dist`` and the
  binning, a batch is the atoms Q(u_i) with masses u_i − u_(i−1), which is exact for discrete data and within
  the 1% grid step otherwise: ``ks_dist`` = two-sample Kolmogorov-Smirnov statistic (max CDF gap, a distance
  in [0, 1], not its p-value); ``js_div`` / ``kl_div`` on a common binning whose edges are both batches' 5%,
  10%, ..., 95% percentiles (bins (-inf, e1], (e1, e2], ..., (ek, inf)); ``kl_div`` uses as counts the bin
  masses times the complete counts;
  ``cohen_d`` = |mean_cur − mean_prev| / pooled sample standard deviation, capped at ``COHEN_D_CAP``
  (0 when the means are equal, the cap when they differ but both batches are constant).
* categorical, on the frequencies of complete values (top-K values plus one shared "rest" bucket) and,
  prefixed ``pat_``, on the frequencies of their Algorithm-2 patterns: ``l1`` = Σ|p − q| in [0, 2] (not
  halved); ``linf`` = max |p − q|; ``cosine`` = 1 − cos(p, q); ``chisquare`` = Pearson's chi-squared
  statistic of homogeneity on the 2 × k table of counts (0 when equal) and ``chisquare_pvalue`` its p-value
  (1 when equal, small = different; no continuity correction; 1 when both batches have a single category);
  ``js_div`` = Jensen-Shannon divergence in [0, 1]. Tables 3-4 use the p-value; it is emitted under an
  explicit name because every other two-distribution metric is a distance (larger = more different) and
  ``lakeindex.avh.bounds`` bounds those one-sided from above (Cantelli), which would guard the wrong side of a
  p-value; names ending in ``_pvalue`` get two-sided bounds there.
* ``new_value_ratio`` (categorical): the share of ``cur``'s complete values that ``prev`` does not know:
  neither its own values nor, once recorded in a history, its clean history's (``ColumnSummary.history_values``,
  the ``top_k`` most frequent). A label outside the clean weeks' vocabulary (``Article`` for ``article``,
  ``website``) is a new value however few rows the batch has. Only ``cur``'s ``top_k`` values are looked up (the
  rest bucket counts as known); a value beyond the vocabulary's ``top_k`` counts as new.
* ``kl_div`` = KL(cur ‖ prev) in bits, with a Jeffreys pseudo-count of 0.5 added to every bin/category of
  the union support on both sides so unseen values give a large but finite divergence.
"""

from __future__ import annotations

import itertools
import math
from enum import StrEnum

import numpy as np

from lakeindex.history.kinds import CATEGORICAL, NUMERIC
from lakeindex.history.summary import MEDIAN_INDEX, QUANTILE_GRID, ColumnSummary

NUMERIC_SINGLE = ("min", "max", "mean", "median", "sum", "range", "row_count", "unique_ratio", "complete_ratio")
CATEGORICAL_SINGLE = ("str_len", "char_len", "digit_len", "punc_len", "row_count", "unique_ratio", "complete_ratio",
                      "dist_val_count")
NUMERIC_TWO = ("emd", "js_div", "kl_div", "ks_dist", "cohen_d")
_DIST = ("l1", "linf", "cosine", "chisquare", "chisquare_pvalue", "js_div", "kl_div")
CATEGORICAL_TWO = _DIST + ("new_value_ratio",) + tuple("pat_" + m for m in _DIST)
COHEN_D_CAP = 1e6
KL_PSEUDO_COUNT = 0.5
BIN_EDGE_PERCENTILES = tuple(range(5, 100, 5))


#: Every metric a batch's feature dict can hold, typed: consumers (AVH's bound table) key on these, so a
#: misspelt or unknown name is an error, not a silent default.
BatchMetric = StrEnum("BatchMetric", {n.upper(): n for n in dict.fromkeys(
    NUMERIC_SINGLE + CATEGORICAL_SINGLE + NUMERIC_TWO + CATEGORICAL_TWO)})


def metric_names(kind: str) -> tuple[str, ...]:
    """Every metric name ``features`` can return for a column kind (single, then two-distribution)."""
    return (NUMERIC_SINGLE + NUMERIC_TWO) if kind == NUMERIC else (CATEGORICAL_SINGLE + CATEGORICAL_TWO)


def single_distribution(summary: ColumnSummary) -> dict[str, float]:
    """Table 3 (numeric) or Table 4 (categorical) metrics of one batch; undefined ones are absent."""
    s = summary
    out: dict[str, float] = {"row_count": float(s.row_count)}
    if s.row_count:
        out["complete_ratio"] = s.complete_count / s.row_count
    if s.complete_count:
        out["unique_ratio"] = s.distinct_count / s.complete_count
    if s.kind == NUMERIC:
        if s.complete_count and s.quantiles is not None:
            assert s.min is not None and s.max is not None and s.sum is not None
            out.update({"min": float(s.min), "max": float(s.max), "mean": s.sum / s.complete_count,
                        "median": float(s.quantiles[MEDIAN_INDEX]), "sum": float(s.sum), "range": float(s.max - s.min)})
    else:
        out["dist_val_count"] = float(s.distinct_count)
        if s.non_null_count:
            for key in ("str_len", "char_len", "digit_len", "punc_len"):
                out[key] = s.length_sums.get(key, 0.0) / s.non_null_count
    return {k: out[k] for k in metric_names(s.kind) if k in out}


def two_distribution(prev: ColumnSummary, cur: ColumnSummary) -> dict[str, float]:
    """Table 3/4 distances between a baseline batch ``prev`` and a new batch ``cur`` of the same kind."""
    if prev.kind != cur.kind:
        return {}
    if cur.kind == NUMERIC:
        return _numeric_two(prev, cur)
    out: dict[str, float] = {}
    if prev.values_tracked and cur.values_tracked:
        out.update(_categorical_two(prev.value_counts, prev.value_other, cur.value_counts, cur.value_other))
        if cur.complete_count:
            out["new_value_ratio"] = sum(unseen_values(prev, cur).values()) / cur.complete_count
    pat = _categorical_two(prev.pattern_counts, prev.pattern_other, cur.pattern_counts, cur.pattern_other)
    out.update({"pat_" + k: v for k, v in pat.items()})
    return {k: out[k] for k in CATEGORICAL_TWO if k in out}


def unseen_values(prev: ColumnSummary, cur: ColumnSummary) -> dict[str, float]:
    """``cur``'s top values that ``prev``'s vocabulary (its clean history's and its own) lacks, with their counts."""
    known = prev.vocabulary()
    return {v: n for v, n in cur.value_counts.items() if v not in known}


def features(prev: ColumnSummary | None, cur: ColumnSummary) -> dict[str, float]:
    """The feature dict of batch ``cur``: single-distribution metrics, plus two-distribution ones vs ``prev``."""
    out = single_distribution(cur)
    if prev is not None:
        out.update(two_distribution(prev, cur))
    return out


# ------------------------------------------------------------------------------------------ numeric


_GRID = np.asarray(QUANTILE_GRID)
_MASSES = np.diff(_GRID)  # atom i (at Q(u_i), i ≥ 1) carries u_i − u_(i−1)
_EDGES = [QUANTILE_GRID.index(p / 100) for p in BIN_EDGE_PERCENTILES]


def _numeric_two(prev: ColumnSummary, cur: ColumnSummary) -> dict[str, float]:
    if not (prev.complete_count and cur.complete_count and prev.quantiles and cur.quantiles):
        return {}
    qa, qb = np.asarray(prev.quantiles, dtype=float), np.asarray(cur.quantiles, dtype=float)
    out = {"emd": quantile_emd(qa, qb), "ks_dist": ks_distance(qa[1:], qb[1:], _MASSES)}
    edges = np.unique(np.concatenate([qa[_EDGES], qb[_EDGES]]))
    p = np.bincount(np.searchsorted(edges, qa[1:], side="left"), weights=_MASSES, minlength=len(edges) + 1)
    q = np.bincount(np.searchsorted(edges, qb[1:], side="left"), weights=_MASSES, minlength=len(edges) + 1)
    out["js_div"] = js_divergence(p, q)
    out["kl_div"] = kl_divergence(q * cur.complete_count, p * prev.complete_count)
    out["cohen_d"] = cohen_d(prev, cur)
    return {k: out[k] for k in NUMERIC_TWO}


def quantile_emd(qa: np.ndarray, qb: np.ndarray, grid: np.ndarray = _GRID) -> float:
    """∫|Qa(u) − Qb(u)| du for quantile functions linear between the grid points (exact for that model)."""
    d = qa - qb
    d0, d1, h = d[:-1], d[1:], np.diff(grid)
    a0, a1 = np.abs(d0), np.abs(d1)
    crossing = (d0 * d1) < 0  # the difference changes sign inside the segment: two triangles
    with np.errstate(invalid="ignore", divide="ignore"):
        seg = np.where(crossing, (d0 * d0 + d1 * d1) / (2 * (a0 + a1)), (a0 + a1) / 2)
    return float(np.sum(seg * h))


def ks_distance(a: np.ndarray, b: np.ndarray, weights: np.ndarray | None = None) -> float:
    """Kolmogorov-Smirnov statistic of two (weighted) samples sharing a weight vector: max |F_a − F_b|."""
    w = np.full(len(a), 1 / len(a)) if weights is None else weights / weights.sum()
    oa, ob = np.argsort(a, kind="stable"), np.argsort(b, kind="stable")
    a, b = a[oa], b[ob]
    ca = np.concatenate([[0.0], np.cumsum(w[oa])])
    cb = np.concatenate([[0.0], np.cumsum(w[ob])])
    x = np.concatenate([a, b])
    return float(np.max(np.abs(ca[np.searchsorted(a, x, side="right")] - cb[np.searchsorted(b, x, side="right")])))


def cohen_d(prev: ColumnSummary, cur: ColumnSummary) -> float:
    """|Δ mean| over the pooled sample standard deviation (from population variances and counts), capped."""
    n1, n2 = prev.complete_count, cur.complete_count
    m1, m2 = prev.mean, cur.mean
    assert m1 is not None and m2 is not None
    diff = abs(m2 - m1)
    if diff == 0:
        return 0.0
    ss = (prev.variance or 0.0) * n1 + (cur.variance or 0.0) * n2
    dof = n1 + n2 - 2
    sd = math.sqrt(ss / dof) if dof > 0 and ss > 0 else 0.0
    return COHEN_D_CAP if sd == 0 else min(diff / sd, COHEN_D_CAP)


# -------------------------------------------------------------------------------------- categorical


def _aligned(pc: dict[str, float], prest: float, cc: dict[str, float], crest: float) -> tuple[np.ndarray, np.ndarray]:
    # the sorted union; chaining the dicts (mostly in key order already, as ``top_counts`` lists ties) instead
    # of sorting a set lets the sort merge runs: 5x faster on a thousand keys, the same list
    keys = sorted(itertools.chain(pc, (k for k in cc if k not in pc)))
    rest = prest > 0 or crest > 0  # the shared "rest" bucket goes last, when either side has one

    def counts(d: dict[str, float], other: float) -> np.ndarray:  # map/fromiter: no Python loop per key
        values = itertools.chain(map(d.get, keys, itertools.repeat(0.0)), (other,) if rest else ())
        return np.fromiter(values, dtype=float, count=len(keys) + rest)

    return counts(pc, prest), counts(cc, crest)


def _categorical_two(pc: dict[str, float], prest: float, cc: dict[str, float], crest: float) -> dict[str, float]:
    pn, qn = _aligned(pc, prest, cc, crest)
    if pn.sum() <= 0 or qn.sum() <= 0:
        return {}
    p, q = pn / pn.sum(), qn / qn.sum()
    stat, pvalue = chisquare(pn, qn)
    return {"l1": float(np.abs(p - q).sum()), "linf": float(np.abs(p - q).max()), "cosine": cosine_distance(p, q),
            "chisquare": stat, "chisquare_pvalue": pvalue, "js_div": js_divergence(p, q),
            "kl_div": kl_divergence(qn, pn)}


def cosine_distance(p: np.ndarray, q: np.ndarray) -> float:
    """1 − cosine similarity of two non-negative vectors (0 identical direction, 1 disjoint support)."""
    return float(max(0.0, 1.0 - float(np.dot(p, q)) / (np.linalg.norm(p) * np.linalg.norm(q))))


def chisquare(p_counts: np.ndarray, q_counts: np.ndarray) -> tuple[float, float]:
    """Statistic and p-value of Pearson's chi-squared homogeneity test on the 2 × k table (no correction).

    The statistic Σ (O − E)² / E with E = row total × column total / n and k − 1 degrees of freedom, as
    ``scipy.stats.chi2_contingency(table, correction=False)`` computes it (tested against it): written out
    because a batch's synthetic-issue features call it hundreds of times, where scipy.stats costs 0.3 s to
    import and ~1 ms of argument checking per call."""
    table = np.vstack([p_counts, q_counts]).astype(float)
    table = table[:, table.sum(axis=0) > 0]
    if table.shape[1] < 2:
        return 0.0, 1.0
    rows, cols = table.sum(axis=1), table.sum(axis=0)
    if not rows.all():
        return 0.0, 1.0
    expected = np.outer(rows, cols) / table.sum()
    statistic = float(np.sum((table - expected) ** 2 / expected))
    return statistic, chi2_sf(table.shape[1] - 1, statistic)


def chi2_sf(df: int, x: float) -> float:
    """P(X >= x) for X chi-squared with an integer ``df`` >= 1 (scipy's ``chdtrc``, tested against it).

    The regularised upper gamma Q(df/2, x/2) has closed forms for integer df: with h = x/2,
    e^-h * sum_{i < df/2} h^i / i! for even df, erfc(sqrt h) + e^-h * sum_{i=1}^{(df-1)/2} h^(i-1/2) / Gamma(i+1/2)
    for odd df. Every term is positive (no cancellation) and computed in logs (no overflow for any x).
    Written out because ``scipy.special`` costs 0.3 s to import (it clones numpy's namespace, loading
    numpy.f2py), a sixth of a whole ``avh check``'s 2 s budget, and this is its only use there.
    """
    if df < 1 or df != int(df):
        raise ValueError(f"df must be an integer >= 1, got {df!r}")
    if not x > 0:
        return 1.0 if x == x else math.nan
    if x == math.inf:
        return 0.0
    h = x / 2.0
    if df % 2 == 0:
        i = np.arange(df // 2, dtype=float)  # log i! by cumulative sums of log j
        log_terms = i * math.log(h) - np.concatenate([[0.0], np.cumsum(np.log(i[1:]))])
        head = 0.0
    else:
        i = np.arange(1, (df - 1) // 2 + 1, dtype=float)  # log Gamma(i + 1/2) = log sqrt(pi) + sum log(j - 1/2)
        log_terms = (i - 0.5) * math.log(h) - (0.5 * math.log(math.pi) + np.cumsum(np.log(i - 0.5)))
        head = math.erfc(math.sqrt(h))
    return min(1.0, head + float(np.exp(log_terms - h).sum()))


def js_divergence(p: np.ndarray, q: np.ndarray) -> float:
    """Jensen-Shannon divergence of two probability vectors, base 2 (in [0, 1])."""
    m = (p + q) / 2
    return float(max(0.0, (_kl_bits(p, m) + _kl_bits(q, m)) / 2))


def kl_divergence(cur_counts: np.ndarray, prev_counts: np.ndarray) -> float:
    """KL(cur ‖ prev) in bits after adding ``KL_PSEUDO_COUNT`` to every category on both sides."""
    c = cur_counts + KL_PSEUDO_COUNT
    p = prev_counts + KL_PSEUDO_COUNT
    return float(max(0.0, _kl_bits(c / c.sum(), p / p.sum())))


def _kl_bits(p: np.ndarray, q: np.ndarray) -> float:
    mask = p > 0
    return float(np.sum(p[mask] * np.log2(p[mask] / q[mask])))


__all__ = ["CATEGORICAL", "CATEGORICAL_SINGLE", "CATEGORICAL_TWO", "NUMERIC", "NUMERIC_SINGLE", "NUMERIC_TWO",
           "chisquare", "cohen_d", "cosine_distance", "features", "js_divergence", "kl_divergence", "quantile_emd",
           "ks_distance", "metric_names", "single_distribution", "two_distribution"]
