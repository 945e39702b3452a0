"""ColumnSummary: a compact, JSON-serialisable summary of one column of one batch (AVH's raw material).

Every single- and two-distribution metric of ``lakeindex.history.batch_metrics`` is computed from summaries,
so a pipeline keeps one small JSON document per column and batch instead of the raw data. Two
constructors build the same summary: ``summarize_series`` (pandas, here) and ``summarize_dataframe``
(Spark, ``spark_summary``). ``summarize_codes`` and ``summarize_numbers`` are ``summarize_series`` of a column
given as integer codes of a ``Vocab`` or as numbers, for the synthetic issues' fifty summaries of one column.

Definitions shared by both constructors:

* **kind**: ``numeric`` or ``categorical``, by the one rule of ``lakeindex.history.kinds`` (numeric dtypes but
  not booleans; text columns in which at least 90% of the non-empty values are numbers). Pass ``kind=`` to
  keep a column's kind fixed across batches.
* **null**: a missing value (None/NaN/NaT, Spark null). **complete**: for numeric columns a finite number
  (text that is not a number, NaN and ±inf are not complete); for categorical columns a non-null value that
  is not the empty string. Text lengths are averaged over all non-null values, empty strings included.
* **distinct / singletons**: distinct complete values (numbers compared as doubles, text exactly) and how
  many occur once. Singletons and value frequencies are kept while the column has at most
  ``exact_distinct_limit`` distinct values (``values_tracked``). The distinct count is exact in pandas, and
  in Spark whenever its HLL estimate is within 110% of the limit (the values are then grouped and counted,
  so the limit is applied to the exact count); far above it Spark reports the HLL estimate
  (``distinct_exact`` false), the one place where the two constructors differ.
* **quantiles**: at ``QUANTILE_GRID`` (109 points: q = 0, 0.01, ..., 1 plus 0.0001, 0.001, 0.002, 0.005 and
  their mirror images, because the extreme 1% decides EMD on heavy-tailed data), inverted-CDF (the smallest
  value v with F(v) ≥ q, numpy's ``inverted_cdf``): exact in pandas, and in Spark whenever the column's
  values are grouped (see distinct); above that, from a KLL sketch (k = 400, rank error ≈ 0.7%) with
  inclusive ranks, the same definition approximated.
* **value / pattern frequencies** (categorical only): counts of the ``top_k`` most frequent complete values
  and of their Algorithm-2 patterns (ties broken by the smaller string), plus the count of the rest.
* **history values** (categorical only, set when a batch is recorded, ``with_history``): the counts of the
  ``top_k`` most frequent values over the clean batches up to this one, the vocabulary a next batch's new
  values are told by (``batch_metrics``' ``new_value_ratio``).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, replace
from typing import TYPE_CHECKING, Any

import numpy as np

from lakeindex.caches import ClearWhenFull
from lakeindex.history import chars
from lakeindex.history.chars import to_text
from lakeindex.history.kinds import CATEGORICAL, KINDS, NUMERIC, has_numeric_dtype, infer_kind, infer_text_kind

if TYPE_CHECKING:
    import pandas as pd

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
    # categorical columns: the clean history's vocabulary up to this batch (``with_history``); empty when unknown
    history_values: dict[str, float] = field(default_factory=dict)

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

    def vocabulary(self) -> set[str]:
        """The values known at this batch: its clean history's (``history_values``) and its own."""
        return set(self.history_values) | set(self.value_counts)

    def with_history(self, previous: ColumnSummary | None) -> ColumnSummary:
        """This summary with ``history_values``: the previous clean batch's plus this batch's value counts,
        the ``top_k`` most frequent kept (ties: the smaller value); unchanged where values are not tracked."""
        if self.kind != CATEGORICAL or not self.values_tracked:
            return self
        merged = dict(previous.history_values or previous.value_counts) if previous is not None else {}
        for value, n in self.value_counts.items():
            merged[value] = merged.get(value, 0.0) + n
        keys = np.array(list(merged), dtype=object)
        top, _ = top_counts_of(keys, np.fromiter(merged.values(), dtype=float, count=len(merged)), self.top_k)
        return replace(self, history_values=top)

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


def to_numbers(series: pd.Series) -> np.ndarray:
    """Values as float64, NaN for nulls, text that is not a number (``chars.NUMBER_RE``) and ±inf."""
    import pandas as pd

    s = series.reset_index(drop=True)
    if has_numeric_dtype(s) or pd.api.types.is_bool_dtype(s.dtype):
        out = s.astype("float64").to_numpy(copy=True)
    else:
        out = parse_numbers(to_text(s).to_numpy(dtype=object))
    out[~np.isfinite(out)] = np.nan
    return out


_PARSED = ClearWhenFull(1_000_000, "history.summary.parsed")  # text → number (NaN: not a number), across calls


def parse_numbers(text: np.ndarray) -> np.ndarray:
    """Text values (object array, None for nulls) as float64: NaN for nulls and text that is not a number.

    Each distinct text is parsed once per process and remembered (up to a million entries): the synthetic
    issues of a batch re-parse the same column's values some hundred times."""
    parsed = _PARSED.data
    get = parsed.get
    out = np.fromiter((get(v, np.nan) if v is not None else np.nan for v in text), dtype=float, count=len(text))
    unknown = {v for v, x in zip(text, out, strict=True) if v is not None and x != x and v not in parsed}
    if unknown:
        _PARSED.put_all({v: float(v.strip()) if chars.NUMBER.fullmatch(v) else np.nan for v in unknown})
        out = np.fromiter((get(v, np.nan) if v is not None else np.nan for v in text), dtype=float,
                          count=len(text))
    return out


def top_counts(counts: pd.Series, top_k: int) -> tuple[dict[str, float], float]:
    """The ``top_k`` largest counts (ties: smaller key first) and the total of the rest."""
    if counts.empty:
        return {}, 0.0
    return top_counts_of(np.asarray(counts.index, dtype=object), counts.to_numpy(dtype=float), top_k)


def top_counts_of(keys: np.ndarray, n: np.ndarray, top_k: int) -> tuple[dict[str, float], float]:
    """``top_counts`` of distinct ``keys`` (object array) and their counts ``n`` (float64, integral)."""
    if not len(n):
        return {}, 0.0
    total = n.sum()
    if len(n) > top_k:  # only counts tied with or above the k-th largest can be in the top k
        keep = n >= np.partition(n, len(n) - top_k)[len(n) - top_k]
        keys, n = keys[keep], n[keep]
    by_key = np.argsort(keys, kind="stable")
    order = by_key[np.argsort(-n[by_key], kind="stable")][:top_k]
    top = dict(zip(keys[order].tolist(), plain_numbers(n[order]), strict=True))
    return top, plain_number(total - n[order].sum())


def plain_numbers(x: np.ndarray) -> list[float]:
    """``plain_number`` of each element (vectorised for the common all-integral case)."""
    if len(x) and np.all(np.isfinite(x)) and np.all(x == np.floor(x)) and np.all(np.abs(x) < 2**53):
        return x.astype(np.int64).tolist()
    return [plain_number(v) for v in x]


def plain_number(x: Any) -> float:
    """A plain Python number (int when integral, for compact JSON)."""
    f = float(x)
    return int(f) if f.is_integer() and abs(f) < 2**53 else f


class TextCache:
    """Per-value text features (the four lengths and the pattern), shared across the many summaries of one
    column: a row of ``lengths`` and an entry of ``patterns`` per value, found through ``index``."""

    def __init__(self) -> None:
        self.index: dict[str, int] = {}
        self.lengths = np.zeros((0, len(LENGTH_KEYS)), dtype=np.int64)
        self.patterns: list[str] = []

    def lookup(self, values: list[str]) -> np.ndarray:
        """Row numbers of ``values`` in ``lengths`` / ``patterns``, computing the values not seen yet."""
        get = self.index.get
        missing = list(dict.fromkeys(v for v in values if get(v) is None))
        if missing:
            counts = chars.class_counts(missing)
            start = len(self.patterns)
            self.lengths = np.vstack([self.lengths, np.column_stack([counts[k] for k in LENGTH_KEYS])])
            self.patterns.extend(chars.patterns(missing))
            self.index.update(zip(missing, range(start, start + len(missing)), strict=True))
        return np.fromiter((self.index[v] for v in values), dtype=np.int64, count=len(values))


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
    return summarize_numbers(to_numbers(series), int(series.notna().sum()), rows, top_k=top_k,
                             exact_distinct_limit=limit)


def _summarize_categorical(series: pd.Series, rows: int, top_k: int, limit: int,
                           cache: TextCache) -> ColumnSummary:
    import pandas as pd

    text = to_text(series)
    counts = text.value_counts(dropna=True, sort=False)
    non_null = int(counts.sum())
    rows_of = cache.lookup(list(counts.index))
    weights = counts.to_numpy(dtype=float)
    sums = weights @ cache.lengths[rows_of] if len(rows_of) else np.zeros(len(LENGTH_KEYS))
    length_sums = dict(zip(LENGTH_KEYS, plain_numbers(np.asarray(sums, dtype=float)), strict=True))
    complete_mask = (counts.index != "") if len(counts) else np.zeros(0, dtype=bool)
    complete = counts[complete_mask]
    distinct = len(complete)
    tracked = distinct <= limit
    summary = ColumnSummary(CATEGORICAL, rows, non_null, int(complete.sum()), distinct, True,
                            int((complete == 1).sum()) if tracked else None, length_sums=length_sums,
                            values_tracked=tracked, top_k=top_k)
    if tracked:
        summary.value_counts, summary.value_other = top_counts(complete, top_k)
    pattern_of = [cache.patterns[r] for r in rows_of[np.asarray(complete_mask, dtype=bool)]]
    pats = pd.Series(complete.to_numpy(), index=pattern_of)
    summary.pattern_counts, summary.pattern_other = top_counts(pats.groupby(level=0).sum(), top_k)
    return summary


def summarize_text(values: np.ndarray, kind: str | None = None, *, top_k: int = DEFAULT_TOP_K,
                   exact_distinct_limit: int = DEFAULT_EXACT_DISTINCT_LIMIT) -> ColumnSummary:
    """``summarize_series`` of a text column given as an object array of str (None: null), without pandas:
    the same summary (``tests/test_text_frame.py``), from ``Vocab`` codes as the synthetic issues count."""
    kind = kind or infer_text_kind(values)
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}, not {kind!r}")
    vocab = Vocab()
    return summarize_codes(vocab.codes(values), vocab, kind, top_k=top_k, exact_distinct_limit=exact_distinct_limit)


# ------------------------------------------------------------------------------- arrays (synthetic issues)


class Vocab:
    """Distinct text values numbered as they come (code -1: null), with each value's number and text
    features worked out once: the synthetic issues of one column re-count mostly the same values some fifty
    times, which ``summarize_codes`` does from integer codes instead of pandas Series of text."""

    def __init__(self) -> None:
        self.index: dict[str | None, int] = {None: -1}
        self.values: list[str] = []
        self._array = np.zeros(0, dtype=object)
        self._numbers = np.zeros(0)
        self._lengths = np.zeros((0, len(LENGTH_KEYS)), dtype=np.int64)
        self._pattern_ids = np.zeros(0, dtype=np.int64)
        self._pattern_index: dict[str, int] = {}
        self.pattern_names: list[str] = []

    def codes(self, values: Any) -> np.ndarray:
        """The codes of a sequence of str/None values, numbering the values not seen yet."""
        index = self.index
        # new values numbered in sorted order: summaries list codes in code order, and ``top_counts``'s sort by
        # value is then a merge of a few sorted runs (a random order of 5,000 values costs 17x more)
        fresh = sorted(v for v in dict.fromkeys(values) if v not in index)
        if fresh:
            index.update(zip(fresh, range(len(self.values), len(self.values) + len(fresh)), strict=True))
            self.values.extend(fresh)
        return np.fromiter(map(index.__getitem__, values), dtype=np.int64, count=len(values))

    def array(self) -> np.ndarray:
        """The values as an object array, by code."""
        if len(self._array) < len(self.values):
            self._array = np.concatenate([self._array, np.array(self.values[len(self._array):], dtype=object)])
        return self._array

    def numbers(self) -> np.ndarray:
        """``to_numbers`` of every value, by code (NaN: not a finite number)."""
        done = len(self._numbers)
        if done < len(self.values):
            new = parse_numbers(np.array(self.values[done:], dtype=object))
            new[~np.isfinite(new)] = np.nan
            self._numbers = np.concatenate([self._numbers, new])
        return self._numbers

    def text_features(self) -> tuple[np.ndarray, np.ndarray]:
        """The four ``LENGTH_KEYS`` counts and the pattern (an index into ``pattern_names``) of every value."""
        done = len(self._pattern_ids)
        if done < len(self.values):
            new = self.values[done:]
            counts = chars.class_counts(new)
            index = self._pattern_index
            ids = [index.setdefault(p, len(index)) for p in chars.patterns(new)]
            self.pattern_names = list(index)
            self._lengths = np.vstack([self._lengths, np.column_stack([counts[k] for k in LENGTH_KEYS])])
            self._pattern_ids = np.concatenate([self._pattern_ids, np.asarray(ids, dtype=np.int64)])
        return self._lengths, self._pattern_ids


def summarize_codes(codes: np.ndarray, vocab: Vocab, kind: str, *, top_k: int = DEFAULT_TOP_K,
                    exact_distinct_limit: int = DEFAULT_EXACT_DISTINCT_LIMIT) -> ColumnSummary:
    """``summarize_series`` of the text column ``vocab.values[codes]`` (-1: null), without building it."""
    valid = codes[codes >= 0]
    if kind == NUMERIC:
        return summarize_numbers(vocab.numbers()[valid], len(valid), len(codes), top_k=top_k,
                                 exact_distinct_limit=exact_distinct_limit)
    counts = np.bincount(valid, minlength=len(vocab.values))
    present = np.flatnonzero(counts)
    n = counts[present]
    lengths, pattern_ids = vocab.text_features()
    weights = n.astype(float)
    sums = weights @ lengths[present] if len(present) else np.zeros(len(LENGTH_KEYS))
    length_sums = dict(zip(LENGTH_KEYS, plain_numbers(np.asarray(sums, dtype=float)), strict=True))
    empty = vocab.index.get("")
    if empty is not None:
        keep = present != empty
        present, weights = present[keep], weights[keep]
    distinct = len(present)
    tracked = distinct <= exact_distinct_limit
    summary = ColumnSummary(CATEGORICAL, len(codes), int(n.sum()), int(weights.sum()), distinct, True,
                            int((weights == 1).sum()) if tracked else None, length_sums=length_sums,
                            values_tracked=tracked, top_k=top_k)
    if tracked:
        summary.value_counts, summary.value_other = top_counts_of(vocab.array()[present], weights, top_k)
    by_pattern = np.bincount(pattern_ids[present], weights=weights, minlength=len(vocab.pattern_names))
    seen = np.flatnonzero(by_pattern)
    names = np.array([vocab.pattern_names[i] for i in seen.tolist()], dtype=object)
    summary.pattern_counts, summary.pattern_other = top_counts_of(names, by_pattern[seen], top_k)
    return summary


def summarize_numbers(values: np.ndarray, non_null: int, rows: int, *, top_k: int = DEFAULT_TOP_K,
                      exact_distinct_limit: int = DEFAULT_EXACT_DISTINCT_LIMIT) -> ColumnSummary:
    """The numeric ``summarize_series`` of a column whose ``to_numbers`` are ``values`` (NaN: not complete)
    and which has ``non_null`` non-null values of ``rows``; distinct values counted on the sorted array."""
    x = np.sort(values[~np.isnan(values)])
    starts = np.flatnonzero(np.concatenate([[True], x[1:] != x[:-1]])) if len(x) else np.zeros(0, dtype=np.int64)
    runs = np.diff(np.append(starts, len(x)))
    distinct = len(runs)
    summary = ColumnSummary(NUMERIC, rows, non_null, len(x), distinct, True, int((runs == 1).sum()), top_k=top_k,
                            values_tracked=False)
    if distinct > exact_distinct_limit:
        summary.singleton_count = None
    if len(x):
        summary.sum, summary.min, summary.max = plain_number(x.sum()), plain_number(x[0]), plain_number(x[-1])
        summary.variance = float(x.var())
        summary.quantiles = plain_numbers(np.quantile(x, QUANTILE_GRID, method="inverted_cdf"))
    return summary
