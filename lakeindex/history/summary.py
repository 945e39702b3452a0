"""ColumnSummary: a compact, JSON-serialisable summary of one column of one batch (AVH's raw material).

Every single- and two-distribution metric of ``lakeindex.history.batch_metrics`` is computed from summaries,
so a pipeline keeps one small JSON document per column and batch instead of the raw data. Two
constructors build the same summary: ``summarize_series`` (pandas, here) and ``summarize_dataframe``
(Spark, ``spark_summary``).

Definitions shared by both constructors:

* **kind**: ``numeric`` or ``categorical``, by the one rule of ``lakeindex.history.kinds`` (numeric dtypes but
  not booleans; text columns in which at least 90% of the non-empty values are numbers). Pass ``kind=`` to
  keep a column's kind fixed across batches.
* **null**: a missing value (None/NaN/NaT, Spark null). **complete**: for numeric columns a finite number
  (text that is not a number, NaN and ±inf are not complete); for categorical columns a non-null value that
  is not the empty string. Text lengths are averaged over all non-null values, empty strings included.
* **distinct / singletons**: distinct complete values (numbers compared as doubles, text exactly) and how
  many occur once. Exact while the column has at most ``exact_distinct_limit`` distinct values; above it
  Spark reports its HLL estimate, singletons are unknown and value frequencies are not kept
  (``values_tracked`` false) — pandas applies the same rule to its exact count.
* **quantiles**: at ``QUANTILE_GRID`` (109 points: q = 0, 0.01, ..., 1 plus 0.0001, 0.001, 0.002, 0.005 and
  their mirror images, because the extreme 1% decides EMD on heavy-tailed data), inverted-CDF (the smallest
  value v with F(v) ≥ q, as DataSketches KLL with inclusive ranks and Spark's percentile_approx return):
  exact in pandas, from a KLL sketch (k = 400, rank error ≈ 0.7%) in Spark, exact there too below 400 values.
* **value / pattern frequencies** (categorical only): counts of the ``top_k`` most frequent complete values
  and of their Algorithm-2 patterns (ties broken by the smaller string), plus the count of the rest.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, replace
from typing import Any

import numpy as np
import pandas as pd

from lakeindex.history import chars
from lakeindex.history.kinds import CATEGORICAL, KINDS, NUMERIC, has_numeric_dtype, infer_kind

# the 101 percentiles plus finer tails: the top and bottom 1% decide EMD on heavy-tailed data
TAIL_QUANTILES = (0.0001, 0.001, 0.002, 0.005, 0.995, 0.998, 0.999, 0.9999)
QUANTILE_GRID: tuple[float, ...] = tuple(sorted({i / 100 for i in range(101)} | set(TAIL_QUANTILES)))
MEDIAN_INDEX = QUANTILE_GRID.index(0.5)
DEFAULT_TOP_K = 1000
DEFAULT_EXACT_DISTINCT_LIMIT = 100_000
LENGTH_KEYS = ("str_len", "char_len", "digit_len", "punc_len")


@dataclass
class ColumnSummary:
    """Sufficient statistics of one column of one batch; counts are floats once ``scaled``."""

    kind: str
    row_count: float
    non_null_count: float
    complete_count: float
    distinct_count: float
    distinct_exact: bool = True
    singleton_count: float | None = None
    # numeric columns: over the complete values; None when there are none
    sum: float | None = None
    min: float | None = None
    max: float | None = None
    variance: float | None = None  # population variance
    quantiles: list[float] | None = None  # at QUANTILE_GRID
    # categorical columns: sums over non-null values of str_len/char_len/digit_len/punc_len
    length_sums: dict[str, float] = field(default_factory=dict)
    values_tracked: bool = True
    value_counts: dict[str, float] = field(default_factory=dict)
    value_other: float = 0.0
    pattern_counts: dict[str, float] = field(default_factory=dict)
    pattern_other: float = 0.0
    top_k: int = DEFAULT_TOP_K

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"kind must be one of {KINDS}, not {self.kind!r}")

    @property
    def mean(self) -> float | None:
        """Mean of the complete values (numeric columns), None without any."""
        return None if self.sum is None or not self.complete_count else self.sum / self.complete_count

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (``json.dumps`` works on it; ``from_dict`` inverts it)."""
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> ColumnSummary:
        """Rebuild a summary from ``to_dict`` output (e.g. after a JSON round trip)."""
        return cls(**d)

    def scaled(self, factor: float, exact_distinct_limit: int = DEFAULT_EXACT_DISTINCT_LIMIT) -> ColumnSummary:
        """The summary of a batch ``factor`` times larger with the same distribution (sample → full batch).

        Counts, sums and frequencies are multiplied. Distinct values are extrapolated by assuming each value
        seen once in the sample stands for ``factor`` distinct values of the full batch and every repeated
        value is already seen: d + f1·(factor − 1) (so a key column stays unique and a 50-state column keeps
        50); without a singleton count, d·factor. Extremes and quantiles are kept.
        """
        if factor == 1:
            return self
        if self.singleton_count is not None:
            distinct = self.distinct_count + self.singleton_count * (factor - 1)
            singletons: float | None = self.singleton_count * factor
        else:
            distinct, singletons = self.distinct_count * factor, None
        distinct = min(distinct, self.complete_count * factor)
        tracked = self.values_tracked and distinct <= exact_distinct_limit

        def mul(d: dict[str, float]) -> dict[str, float]:
            return {k: v * factor for k, v in d.items()}

        return replace(self, row_count=self.row_count * factor, non_null_count=self.non_null_count * factor,
                       complete_count=self.complete_count * factor, distinct_count=distinct, distinct_exact=False,
                       singleton_count=singletons, sum=None if self.sum is None else self.sum * factor,
                       length_sums=mul(self.length_sums), values_tracked=tracked,
                       value_counts=mul(self.value_counts) if tracked else {},
                       value_other=self.value_other * factor if tracked else 0.0,
                       pattern_counts=mul(self.pattern_counts), pattern_other=self.pattern_other * factor)


# ---------------------------------------------------------------------------------------------- pandas


def _text_of(v: Any) -> str:
    if isinstance(v, str):
        return v
    if isinstance(v, bool | np.bool_):
        return "true" if v else "false"
    if isinstance(v, int | np.integer):
        return str(int(v))
    return str(v)


def to_text(series: pd.Series) -> pd.Series:
    """Values as strings (object dtype, None for nulls), spelled as Spark casts them for booleans and integers.

    Floats are spelled by Python (``1e+20``; Spark writes ``1.0E20``): cast float columns to text yourself when
    both engines must agree on them as categories.
    """
    null = series.isna().to_numpy()
    out = series.to_numpy(dtype=object).copy()
    out[null] = None
    if pd.api.types.infer_dtype(series, skipna=True) not in ("string", "empty"):
        out[~null] = [_text_of(v) for v in out[~null]]
    return pd.Series(out, dtype=object)


def to_numbers(series: pd.Series) -> np.ndarray:
    """Values as float64, NaN for nulls, text that is not a number (``chars.NUMBER_RE``) and ±inf."""
    s = series.reset_index(drop=True)
    if has_numeric_dtype(s) or pd.api.types.is_bool_dtype(s.dtype):
        out = s.astype("float64").to_numpy(copy=True)
    else:
        text = to_text(s)
        ok = text.str.fullmatch(chars.NUMBER_BODY).eq(True).to_numpy()
        out = np.full(len(text), np.nan)
        if ok.any():
            out[ok] = text[ok].str.strip().astype("float64").to_numpy()
    out[~np.isfinite(out)] = np.nan
    return out


def top_counts(counts: pd.Series, top_k: int) -> tuple[dict[str, float], float]:
    """The ``top_k`` largest counts (ties: smaller key first) and the total of the rest."""
    if counts.empty:
        return {}, 0.0
    keys = np.asarray(counts.index, dtype=object)
    n = counts.to_numpy(dtype=float)
    if len(n) > top_k:  # only counts tied with or above the k-th largest can be in the top k
        keep = n >= np.partition(n, len(n) - top_k)[len(n) - top_k]
        keys, n = keys[keep], n[keep]
    by_key = np.argsort(keys, kind="stable")
    order = by_key[np.argsort(-n[by_key], kind="stable")][:top_k]
    top = {keys[i]: plain_number(n[i]) for i in order}
    return top, plain_number(counts.sum() - sum(top.values()))


def plain_number(x: Any) -> float:
    """A plain Python number (int when integral, for compact JSON)."""
    f = float(x)
    return int(f) if f.is_integer() and abs(f) < 2**53 else f


class TextCache:
    """Per-value text features (lengths and pattern), shared across the many summaries of one column."""

    def __init__(self) -> None:
        self.features: dict[str, tuple[int, int, int, int, str]] = {}

    def lookup(self, values: list[str]) -> list[tuple[int, int, int, int, str]]:
        missing = [v for v in values if v not in self.features]
        if missing:
            counts = chars.class_counts(missing)
            columns = [counts[k].tolist() for k in LENGTH_KEYS] + [chars.patterns(missing)]
            self.features.update(zip(missing, zip(*columns, strict=True), strict=True))
        return [self.features[v] for v in values]


def summarize_series(series: pd.Series, kind: str | None = None, *, top_k: int = DEFAULT_TOP_K,
                     exact_distinct_limit: int = DEFAULT_EXACT_DISTINCT_LIMIT,
                     cache: TextCache | None = None) -> ColumnSummary:
    """Summarise one column of one batch with pandas/numpy (``kind`` None: ``infer_kind``)."""
    kind = kind or infer_kind(series)
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}, not {kind!r}")
    rows = len(series)
    if kind == NUMERIC:
        return _summarize_numeric(series, rows, exact_distinct_limit, top_k)
    return _summarize_categorical(series, rows, top_k, exact_distinct_limit, cache or TextCache())


def _summarize_numeric(series: pd.Series, rows: int, limit: int, top_k: int) -> ColumnSummary:
    nums = to_numbers(series)
    non_null = int(series.notna().sum())
    x = np.sort(nums[~np.isnan(nums)])
    counts = pd.Series(x).value_counts(sort=False)
    distinct = len(counts)
    summary = ColumnSummary(NUMERIC, rows, non_null, len(x), distinct, True, int((counts == 1).sum()),
                            top_k=top_k, values_tracked=False)
    if distinct > limit:
        summary.singleton_count = None
    if len(x):
        summary.sum, summary.min, summary.max = plain_number(x.sum()), plain_number(x[0]), plain_number(x[-1])
        summary.variance = float(x.var())
        summary.quantiles = [plain_number(q) for q in np.quantile(x, QUANTILE_GRID, method="inverted_cdf")]
    return summary


def _summarize_categorical(series: pd.Series, rows: int, top_k: int, limit: int,
                           cache: TextCache) -> ColumnSummary:
    text = to_text(series)
    counts = text.value_counts(dropna=True, sort=False)
    non_null = int(counts.sum())
    feats = cache.lookup(list(counts.index))
    weights = counts.to_numpy(dtype=float)
    length_sums = {k: plain_number(np.dot(weights, [f[i] for f in feats])) if feats else 0
                   for i, k in enumerate(LENGTH_KEYS)}
    complete_mask = counts.index != ""
    complete = counts[complete_mask]
    distinct = len(complete)
    tracked = distinct <= limit
    summary = ColumnSummary(CATEGORICAL, rows, non_null, int(complete.sum()), distinct, True,
                            int((complete == 1).sum()) if tracked else None, length_sums=length_sums,
                            values_tracked=tracked, top_k=top_k)
    if tracked:
        summary.value_counts, summary.value_other = top_counts(complete, top_k)
    pats = pd.Series(complete.to_numpy(), index=[f[4] for f, c in zip(feats, complete_mask, strict=True) if c])
    summary.pattern_counts, summary.pattern_other = top_counts(pats.groupby(level=0).sum(), top_k)
    return summary

