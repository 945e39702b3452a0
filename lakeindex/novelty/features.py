"""Per-batch descriptive statistics, the features of kNN novelty detection (Redyuk et al., EDBT 2021, §4).

``batch_features(df)`` turns one batch into one flat vector of named statistics, keyed
``"<column>.<statistic>"``:

* every column: ``completeness`` (non-null values / rows), ``approx_distinct`` (distinct non-null
  values) and ``mfv_ratio`` (occurrences of the most frequent value / rows, the paper's "normalised
  by the batch size");
* numeric columns: ``min``, ``max``, ``mean``, ``std`` (population, ddof = 0);
* other (text) columns: ``peculiarity``, the index of peculiarity (Morris & Cherry 1975, paper Eq. 1).

Choices where the paper is open:

* **Kind.** A column is numeric if its dtype is numeric (bool included) or if every non-null value
  parses with ``pandas.to_numeric``; everything else, datetimes included, is text (Algorithm 1
  switches on ``type(A)``). Per-batch inference can flip a column's kind when a batch is corrupted,
  which changes its keys, so pass ``schema_kinds`` (e.g. ``infer_schema_kinds(training_frames)``,
  a majority vote) to keep the key set stable.
* **Numeric columns are cast first**, as a typed ingest would read them (like Spark's non-ANSI cast):
  a value that does not parse, or is not finite, is null. So a text value in a numeric column
  lowers ``completeness``, and "1" and "1.0" are one distinct value.
* **Distinct count** is exact (``nunique``); the paper's HyperLogLog belongs to the Spark path.
* **Index of peculiarity.** The bigram and trigram tables are those of the column in the batch
  itself ("the number of occurrences ... in a textual attribute"). Values are split into words on
  whitespace, and every word is framed by a boundary mark, so n-grams never cross words and word
  starts and ends are n-grams of their own. A trigram T = xyz scores I(T) = ½(log n(xy) +
  log n(yz)) − log n(xyz) with raw counts and natural logs (Eq. 1 as printed;
  since the value's own n-grams are counted, every count is ≥ 1 and I(T) ≥ 0). A value scores the
  root mean square of its trigrams' indices (the paper's "sentence"), and the column scores the
  mean over its values that have a trigram. Counting is case-sensitive (nothing is folded away),
  though Eq. 1 compares counts within the batch, so upper-casing a share of the values hardly moves
  the index; the distinct count and the most-frequent-value ratio catch that. The work is bounded:
  at most ``max_text_values`` non-null values (a seeded sample without replacement) and their first
  ``max_text_chars`` characters. The index depends on the amount of text (rare n-grams have counts
  of 1 in a small batch), so a fixed sample size also keeps large batches comparable.
* **Empty statistics.** A statistic with no values to summarise (the min of an all-null column, the
  peculiarity of a column of blanks) is NaN; the detector treats NaN as "undefined" (see
  ``lakeindex.novelty.knn``).

Limitation inherited from the paper: every statistic above is invariant under a one-to-one rewrite
of the characters of all values of a column, so upper-casing or re-encoding a *whole* text column
leaves the vector unchanged. The paper names such deterministic errors as future work (§7). Partial changes do show:
upper-casing half of a categorical column doubles its distinct count.

``FeatureVector`` aligns vectors whose key sets differ (a column appears or disappears). A missing
key is imputed as if the column were present and entirely null: 0 for ``completeness``,
``approx_distinct`` and ``mfv_ratio`` (exactly what an all-null column yields) and NaN (undefined)
for every other statistic.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence

import numpy as np
import pandas as pd

__all__ = [
    "COUNT_STATS",
    "MAX_TEXT_CHARS",
    "MAX_TEXT_VALUES",
    "NUMERIC",
    "NUMERIC_STATS",
    "TEXT",
    "TEXT_STATS",
    "FeatureVector",
    "align_features",
    "batch_features",
    "impute_missing",
    "index_of_peculiarity",
    "infer_kind",
    "infer_schema_kinds",
    "peculiarity_per_value",
    "union_keys",
]

NUMERIC = "numeric"
TEXT = "text"
KINDS = (NUMERIC, TEXT)
COUNT_STATS = ("completeness", "approx_distinct", "mfv_ratio")
NUMERIC_STATS = ("min", "max", "mean", "std")
TEXT_STATS = ("peculiarity",)
MAX_TEXT_VALUES = 1000
MAX_TEXT_CHARS = 256

_BOUNDARY = "\x00"  # code point 0 frames words; real NULs in the data are replaced by U+FFFD
_BITS = 21  # a code point fits in 21 bits, so a trigram packs into 63 bits of an int64


# --------------------------------------------------------------------------- kinds


def _is_numeric_dtype(values: pd.Series) -> bool:
    """True for numeric and bool dtypes, the columns whose values need no parsing."""
    return bool(pd.api.types.is_numeric_dtype(values.dtype)) and not pd.api.types.is_complex_dtype(values.dtype)


def _is_datetime_like(values: pd.Series) -> bool:
    """True for datetime and timedelta dtypes, which are profiled as text, never cast to numbers."""
    return bool(pd.api.types.is_datetime64_any_dtype(values.dtype) or pd.api.types.is_timedelta64_dtype(values.dtype))


def infer_kind(values: pd.Series) -> str:
    """``"numeric"`` for a numeric dtype or strings that all parse as numbers, else ``"text"`` (Algorithm 1)."""
    if _is_numeric_dtype(values):
        return NUMERIC
    if _is_datetime_like(values):
        return TEXT
    present = values[values.notna()]
    if present.empty:
        return TEXT
    parsed = pd.to_numeric(present.astype(str), errors="coerce")
    return NUMERIC if bool(np.isfinite(parsed.to_numpy(dtype="float64", na_value=np.nan)).all()) else TEXT


def infer_schema_kinds(frames: Iterable[pd.DataFrame]) -> dict[str, str]:
    """Column kinds by majority vote over batches, so one corrupted batch cannot change a column's keys."""
    votes: dict[str, list[int]] = {}
    for df in frames:
        for i, name in enumerate(df.columns):
            series = df.iloc[:, i]
            tally = votes.setdefault(str(name), [0, 0])
            if series.notna().any():
                tally[0 if infer_kind(series) == NUMERIC else 1] += 1
    return {name: NUMERIC if numeric > text else TEXT for name, (numeric, text) in votes.items()}


# --------------------------------------------------------------------------- index of peculiarity


def peculiarity_per_value(values: Sequence[str]) -> np.ndarray:
    """Each value's index of peculiarity (RMS of Eq. 1 over its trigrams), tables built from ``values``.

    NaN for a value without a trigram (empty or blank). Vectorised: n-grams are packed into int64 keys.
    """
    n_values = len(values)
    result = np.full(n_values, np.nan)
    if n_values == 0:
        return result
    framed = [_BOUNDARY + (_BOUNDARY * 2).join(str(v).replace(_BOUNDARY, "\ufffd").split()) + _BOUNDARY for v in values]
    codes = np.frombuffer("".join(framed).encode("utf-32-le", "surrogatepass"), dtype="<u4").astype(np.int64)
    if codes.size < 3:
        return result
    owner = np.repeat(np.arange(n_values), [len(f) for f in framed])
    first, middle, last = codes[:-2], codes[1:-1], codes[2:]
    # A bigram is valid unless both characters are boundaries (the gap between two words).
    bigrams = (codes[:-1] << _BITS) | codes[1:]
    bigram_keys, bigram_counts = np.unique(bigrams[(codes[:-1] != 0) | (codes[1:] != 0)], return_counts=True)
    # A trigram is valid when its middle character is in a word; its two bigrams are then valid too.
    in_word = middle != 0
    xy = ((first << _BITS) | middle)[in_word]
    yz = ((middle << _BITS) | last)[in_word]
    trigrams = ((first << (2 * _BITS)) | (middle << _BITS) | last)[in_word]
    _, inverse, trigram_counts = np.unique(trigrams, return_inverse=True, return_counts=True)
    n_xy = bigram_counts[np.searchsorted(bigram_keys, xy)]
    n_yz = bigram_counts[np.searchsorted(bigram_keys, yz)]
    index = 0.5 * (np.log(n_xy) + np.log(n_yz)) - np.log(trigram_counts[inverse])
    trigram_owner = owner[1:-1][in_word]
    squares = np.bincount(trigram_owner, weights=index * index, minlength=n_values)
    counts = np.bincount(trigram_owner, minlength=n_values)
    has = counts > 0
    result[has] = np.sqrt(squares[has] / counts[has])
    return result


def index_of_peculiarity(
    values: Iterable[object],
    *,
    max_values: int = MAX_TEXT_VALUES,
    max_chars: int = MAX_TEXT_CHARS,
    seed: int = 0,
) -> float:
    """A text column's index of peculiarity: mean per-value index over a bounded, seeded sample; NaN if none."""
    if max_values < 1 or max_chars < 1:
        raise ValueError(f"max_values and max_chars must be >= 1, got {max_values} and {max_chars}")
    series = pd.Series(list(values) if not isinstance(values, pd.Series) else values, dtype=object)
    present = series[series.notna()].astype(str)
    if len(present) > max_values:
        picked = np.sort(np.random.default_rng(seed).choice(len(present), size=max_values, replace=False))
        present = present.iloc[picked]
    scores = peculiarity_per_value(present.str.slice(0, max_chars).tolist())
    scores = scores[~np.isnan(scores)]
    return float(scores.mean()) if scores.size else math.nan


# --------------------------------------------------------------------------- batch features


def _numeric_values(values: pd.Series) -> np.ndarray:
    """The column cast to float64: null, unparseable and non-finite values become NaN."""
    if _is_numeric_dtype(values):
        cast = values.to_numpy(dtype="float64", na_value=np.nan)
    else:
        cast = np.full(len(values), np.nan)
        present = values.notna().to_numpy()
        if present.any():
            parsed = pd.to_numeric(values[present].astype(str), errors="coerce")
            cast[present] = parsed.to_numpy(dtype="float64", na_value=np.nan)
    cast[~np.isfinite(cast)] = np.nan
    return cast


def _numeric_features(values: pd.Series) -> dict[str, float]:
    """Completeness, distinct count, most-frequent-value ratio and min/max/mean/std of a numeric column."""
    rows = len(values)
    cast = _numeric_values(values)
    valid = cast[~np.isnan(cast)]
    if valid.size == 0:
        return {"completeness": 0.0, "approx_distinct": 0.0, "mfv_ratio": 0.0} | dict.fromkeys(NUMERIC_STATS, math.nan)
    _, counts = np.unique(valid, return_counts=True)
    return {
        "completeness": valid.size / rows,
        "approx_distinct": float(counts.size),
        "mfv_ratio": float(counts.max()) / rows,
        "min": float(valid.min()),
        "max": float(valid.max()),
        "mean": float(valid.mean()),
        "std": float(valid.std()),
    }


def _text_features(values: pd.Series, max_values: int, max_chars: int, seed: int) -> dict[str, float]:
    """Completeness, distinct count, most-frequent-value ratio and index of peculiarity of a text column."""
    rows = len(values)
    present = values[values.notna()].astype(str)
    if present.empty:
        return {"completeness": 0.0, "approx_distinct": 0.0, "mfv_ratio": 0.0, "peculiarity": math.nan}
    counts = present.value_counts(sort=False)
    return {
        "completeness": len(present) / rows,
        "approx_distinct": float(len(counts)),
        "mfv_ratio": float(counts.max()) / rows,
        "peculiarity": index_of_peculiarity(present, max_values=max_values, max_chars=max_chars, seed=seed),
    }


def batch_features(
    df: pd.DataFrame,
    schema_kinds: Mapping[str, str] | None = None,
    *,
    max_text_values: int = MAX_TEXT_VALUES,
    max_text_chars: int = MAX_TEXT_CHARS,
    seed: int = 0,
) -> dict[str, float]:
    """One batch's flat feature vector ``{"<column>.<statistic>": value}`` (paper §4, Algorithm 1 lines 1-7).

    Columns named in ``schema_kinds`` but absent from ``df`` are reported as all-null columns.
    """
    kinds = dict(schema_kinds or {})
    for name, kind in kinds.items():
        if kind not in KINDS:
            raise ValueError(f"schema kind of {name!r} must be one of {KINDS}, got {kind!r}")
    names = [str(c) for c in df.columns]
    if len(set(names)) != len(names):
        raise ValueError(f"duplicate column names: {sorted({n for n in names if names.count(n) > 1})}")
    features: dict[str, float] = {}
    columns: list[tuple[str, pd.Series]] = [(name, df.iloc[:, i]) for i, name in enumerate(names)]
    columns += [(name, pd.Series([], dtype=object)) for name in kinds if name not in set(names)]
    for name, values in columns:
        kind = kinds.get(name) or infer_kind(values)
        if len(values) == 0:
            stats = {"completeness": 0.0, "approx_distinct": 0.0, "mfv_ratio": 0.0}
            stats |= dict.fromkeys(NUMERIC_STATS if kind == NUMERIC else TEXT_STATS, math.nan)
        elif kind == NUMERIC:
            stats = _numeric_features(values)
        else:
            stats = _text_features(values, max_text_values, max_text_chars, seed)
        features.update({f"{name}.{stat}": value for stat, value in stats.items()})
    return features


# --------------------------------------------------------------------------- alignment


def impute_missing(key: str) -> float:
    """The value of a key a batch lacks: an all-null column's (0 for the count statistics), NaN otherwise."""
    return 0.0 if key.rsplit(".", 1)[-1] in COUNT_STATS else math.nan


def union_keys(vectors: Iterable[Mapping[str, float]]) -> list[str]:
    """Every key of ``vectors`` in order of first appearance, so aligned columns keep a stable order."""
    return list(dict.fromkeys(key for vector in vectors for key in vector))


def align_features(
    vectors: Sequence[Mapping[str, float]], keys: Sequence[str] | None = None
) -> tuple[list[str], np.ndarray]:
    """Stack vectors into an (n, len(keys)) float matrix over ``keys`` (default: their union), imputing gaps.

    Keys outside ``keys`` are dropped; a present NaN (an undefined statistic) stays NaN.
    """
    names = union_keys(vectors) if keys is None else list(keys)
    matrix = np.array(
        [[float(vector[key]) if key in vector else impute_missing(key) for key in names] for vector in vectors],
        dtype=float,
    ).reshape(len(vectors), len(names))
    return names, matrix


class FeatureVector(dict[str, float]):
    """A batch's named statistics (a plain dict underneath) with helpers to align it to another key set."""

    @classmethod
    def from_frame(
        cls, df: pd.DataFrame, schema_kinds: Mapping[str, str] | None = None, **options: int
    ) -> FeatureVector:
        """The feature vector of one batch; ``options`` go to ``batch_features``."""
        return cls(batch_features(df, schema_kinds, **options))

    def to_array(self, keys: Sequence[str]) -> np.ndarray:
        """This vector over ``keys``, imputing the keys it lacks (see ``impute_missing``)."""
        return align_features([self], keys)[1][0]

    def missing_keys(self, keys: Iterable[str]) -> list[str]:
        """Keys of ``keys`` this vector lacks, e.g. the statistics of a column that disappeared."""
        return [key for key in keys if key not in self]

    @staticmethod
    def stack(
        vectors: Sequence[Mapping[str, float]], keys: Sequence[str] | None = None
    ) -> tuple[list[str], np.ndarray]:
        """Align several vectors into one matrix (``align_features``)."""
        return align_features(vectors, keys)
