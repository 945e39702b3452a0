"""Per-batch descriptive statistics, the features of kNN novelty detection (Redyuk et al., EDBT 2021, §4).

``novelty_features(summaries, sample)`` is the one extractor. Production (``lakeindex.history.batches``)
calls it with the batch's ``ColumnSummary`` per column (from Spark or pandas) and its bounded sample;
``batch_features(df)`` calls it on a pandas batch, summarised column by column with ``summarize_series``.
The vector is flat, keyed ``"<column>.<statistic>"``:

* every column: ``completeness`` (complete values / rows), ``approx_distinct`` (distinct complete
  values) and ``mfv_ratio`` (occurrences of the most frequent value / rows, the paper's "normalised
  by the batch size");
* numeric columns: ``min``, ``max``, ``mean``, ``std`` (population, ddof = 0) of the complete values;
* categorical (text) columns: ``peculiarity``, the index of peculiarity (Morris & Cherry 1975, paper
  Eq. 1), on the sample.

Choices where the paper is open:

* **Kind.** ``lakeindex.history.kinds``, the rule AVH uses: numeric dtypes (booleans excluded) and text
  columns of which at least 90% of the non-empty values are numbers are numeric; everything else,
  booleans and datetimes included, is categorical. Per-batch inference can flip a column's kind when a
  batch is corrupted, which changes its keys, so production keeps the history's kinds, and
  ``batch_features`` takes ``schema_kinds`` (e.g. ``infer_schema_kinds(training_frames)``, a
  majority vote) to keep the key set stable.
* **Counts are the summary's** (``lakeindex.history.summary``): a complete value is a finite number in
  a numeric column (text that is not a number, NaN and ±inf are not) and a non-null, non-empty string
  in a categorical one; numbers are compared as doubles ("1" and "1.0" are one distinct value). The
  distinct count is exact up to the summary's ``exact_distinct_limit`` and Spark's HLL estimate above
  it. ``mfv_ratio`` comes from the summary's value frequencies, so it is NaN where the summary keeps
  none: always for numeric columns, and for categorical columns above the exact-distinct limit.
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
  peculiarity of a column of blanks, every ratio of an empty batch) is NaN; the detector treats NaN
  as "undefined" (see ``lakeindex.novelty.knn``).

Limitation inherited from the paper: every statistic above is invariant under a one-to-one rewrite
of the characters of all values of a column, so upper-casing or re-encoding a *whole* text column
leaves the vector unchanged. The paper names such deterministic errors as future work (§7). Partial changes do show:
upper-casing half of a categorical column doubles its distinct count.

``FeatureVector`` aligns vectors whose key sets differ (a column appears or disappears). A missing
key is imputed as if the column were present and entirely null: 0 for ``completeness``,
``approx_distinct`` and ``mfv_ratio`` and NaN (undefined) for every other statistic.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from lakeindex.history.kinds import KINDS, NUMERIC
from lakeindex.history.summary import ColumnSummary, summarize_series
from lakeindex.lake.text_frame import TextFrame, present_text

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "CATEGORICAL_STATS",
    "COUNT_STATS",
    "MAX_TEXT_CHARS",
    "MAX_TEXT_VALUES",
    "NUMERIC_STATS",
    "FeatureVector",
    "align_features",
    "batch_features",
    "impute_missing",
    "index_of_peculiarity",
    "novelty_features",
    "peculiarity_per_value",
    "union_keys",
]

COUNT_STATS = ("completeness", "approx_distinct", "mfv_ratio")
NUMERIC_STATS = ("min", "max", "mean", "std")
CATEGORICAL_STATS = ("peculiarity",)
MAX_TEXT_VALUES = 1000
MAX_TEXT_CHARS = 256

_BOUNDARY = "\x00"  # code point 0 frames words; real NULs in the data are replaced by U+FFFD
_BITS = 21  # a code point fits in 21 bits, so a trigram packs into 63 bits of an int64


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
    present = [str(v) for v in values if not _missing(v)]
    if len(present) > max_values:
        picked = np.sort(np.random.default_rng(seed).choice(len(present), size=max_values, replace=False))
        present = [present[i] for i in picked.tolist()]
    scores = peculiarity_per_value([v[:max_chars] for v in present])
    scores = scores[~np.isnan(scores)]
    return float(scores.mean()) if scores.size else math.nan


def _missing(v: Any) -> bool:
    """A null as pandas' ``notna`` sees one (None, NaN, NaT, pd.NA) for the scalars a column holds."""
    if v is None:
        return True
    try:
        return bool(v != v)  # NaN and NaT only differ from themselves; pd.NA makes bool() raise
    except (TypeError, ValueError):
        return True


# --------------------------------------------------------------------------- batch features


def _number(x: float | None) -> float:
    return math.nan if x is None else float(x)


def novelty_features(
    summaries: Mapping[str, ColumnSummary],
    sample: pd.DataFrame | TextFrame,
    *,
    max_text_values: int = MAX_TEXT_VALUES,
    max_text_chars: int = MAX_TEXT_CHARS,
    seed: int = 0,
) -> dict[str, float]:
    """The kNN feature vector of one batch (paper §4, Algorithm 1 lines 1-7): counts and numeric statistics
    from the column summaries, the index of peculiarity of categorical columns from ``sample``."""
    out: dict[str, float] = {}
    for c, s in summaries.items():
        rows = s.row_count or 0.0
        out[f"{c}.completeness"] = s.complete_count / rows if rows else 0.0
        out[f"{c}.approx_distinct"] = float(s.distinct_count)
        out[f"{c}.mfv_ratio"] = max(s.value_counts.values()) / rows if rows and s.value_counts else math.nan
        if s.kind == NUMERIC:
            out[f"{c}.min"] = _number(s.min)
            out[f"{c}.max"] = _number(s.max)
            out[f"{c}.mean"] = _number(s.mean)
            out[f"{c}.std"] = math.nan if s.variance is None else math.sqrt(max(s.variance, 0.0))
        else:
            present = present_text(sample, c) if c in sample.columns else []
            out[f"{c}.peculiarity"] = (index_of_peculiarity(present, max_values=max_text_values,
                                                            max_chars=max_text_chars, seed=seed)
                                       if len(present) else math.nan)
    return out


def batch_features(
    df: pd.DataFrame,
    schema_kinds: Mapping[str, str] | None = None,
    *,
    max_text_values: int = MAX_TEXT_VALUES,
    max_text_chars: int = MAX_TEXT_CHARS,
    seed: int = 0,
) -> dict[str, float]:
    """``novelty_features`` of a pandas batch, each column summarised by ``summarize_series``.

    ``schema_kinds`` fixes the kind of the columns it names; names absent from ``df`` yield no keys (the
    detector imputes them as all-null columns, ``impute_missing``).
    """
    kinds = dict(schema_kinds or {})
    for name, kind in kinds.items():
        if kind not in KINDS:
            raise ValueError(f"schema kind of {name!r} must be one of {KINDS}, got {kind!r}")
    names = [str(c) for c in df.columns]
    if len(set(names)) != len(names):
        raise ValueError(f"duplicate column names: {sorted({n for n in names if names.count(n) > 1})}")
    summaries = {name: summarize_series(df.iloc[:, i], kinds.get(name)) for i, name in enumerate(names)}
    return novelty_features(summaries, df.set_axis(names, axis=1), max_text_values=max_text_values,
                            max_text_chars=max_text_chars, seed=seed)


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
