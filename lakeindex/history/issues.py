"""Synthetic data-quality issues (AVH Appendix B): D(C), the "training data" of AVH's recall estimate.

The paper lists 10 issue types with 28 parameter settings and reports 60 variations without listing them.
We reach 56 stable variants from the paper's settings by three documented extensions: (1) every
fraction-parametrised type uses the union of the fractions the paper uses anywhere, p ∈ {1, 10, 50, 100}%
(distribution change keeps p ≤ 50%: a 100% "biased sample" is the column itself); (2) both directions where
the paper says "and vice versa" / "leading or tailing" / "first or last": casing upper and lower, whitespace
leading and trailing, distribution head and tail, and units divided as well as multiplied (hours → days);
(3) type 4 has two flavours: the paper's blanks (empty string, or 0 for numbers) and real nulls.

======================  ===================================================================  =====  =====
type (Appendix B)       variant ids                                                           num    cat
======================  ===================================================================  =====  =====
1 schema change         schema_change_p{1,10,50,100}                                          4      4
2 unit change           unit_change_x{10,100,1000}, unit_change_div{10,100,1000}              6      -
3 casing change         casing_upper_p{1,10,50,100}, casing_lower_p{1,10,50,100}              -      8
4 increased nulls       increased_nulls_p{1,10,50,100}, missing_values_p{1,10,50,100}         8      8
5 data volume           volume_x2, volume_x10, volume_p50, volume_p10                         4      4
6 distribution change   distribution_head_p{1,10,50}, distribution_tail_p{1,10,50}            6      6
7 typos                 typo_p{1,10,50,100}                                                   4      4
8 character insertion   insert_chars_p{1,10,50,100}                                           4      4
9 character deletion    delete_chars_p{1,10,50,100}                                           4      4
10 whitespace padding   whitespace_leading_p{1,10,50,100}, whitespace_trailing_p{1,10,50,100} -      8
======================  ===================================================================  =====  =====

56 variants: 40 apply to numeric columns, 50 to categorical ones. "p%" always selects exactly
round(p·n) items (at least one) without replacement, so magnitudes are exact. Behaviour per type:

1. ``schema_change_pX``: X% of the rows take the value of the same row of a neighbouring column of the same
   kind (nearest by position, right before left); with none, the nearest column of any kind; with no other
   column, the column's own values shuffled (a no-op for every order-insensitive metric). A numeric-dtype
   column parses what it receives (text that is not a number becomes NaN); a text column receives text.
2. ``unit_change_xF`` / ``_divF``: numbers multiplied / divided by F (text numbers re-spelled).
3. ``casing_upper_pX`` / ``casing_lower_pX``: X% of the non-null values upper- / lower-cased, character by
   character where case mapping would change the length (ß stays ß): only letters change.
4. ``increased_nulls_pX``: X% of the rows become "" (categorical) or 0 (numeric), as in the paper;
   ``missing_values_pX``: X% of the rows become null.
5. ``volume_xF``: the column plus (F − 1)·n values resampled from it (length F·n); ``volume_pX``: X% of the
   rows sampled without replacement, in order (length X%·n).
6. ``distribution_head_pX`` / ``_tail_pX``: the complete values sorted (numbers by value, text by code
   point), the first / last X% kept as a biased sample, and every complete value replaced by a draw from it.
   Unlike the paper, which replaces C by the sample, the length is kept, so the issue is not also a volume
   change.
7. ``typo_pX``: X% of the perturbable characters replaced by a different one of the same class: ASCII digits
   (numeric columns: only digits), lower-case and upper-case ASCII letters.
8. ``insert_chars_pX``: X% of the values get one random character at a random position: a digit (after any
   sign) in numeric columns, an ASCII letter, digit or punctuation character in categorical ones.
9. ``delete_chars_pX``: X% of the non-empty values lose one random character (numeric columns: a digit;
   a value left without digits is no longer a number).
10. ``whitespace_leading_pX`` / ``_trailing_pX``: X% of the non-null values get a space before / after.

Numeric-dtype columns of kind numeric come back as float64 (character-level issues spell numbers
positionally, edit the text and parse it back; unparseable results become NaN); every other column, including
a numeric-dtype column summarised as categorical, comes back as text (object dtype) spelled like
``chars.to_text``, so its untouched values match the history's categories, and its numbers are those its text
spells (a boolean or date column taken as numeric has none).

Each variant is one function of the column prepared once (``PreparedColumn``: its text as integer codes, or
its floats) returning the corrupted codes or floats: ``corrupt`` turns them into a Series, ``issue_features``
summarises them directly, as ``summarize_series`` would the Series. ``tests/issue_oracle.py`` is a plain
reference of these definitions, with the same random draws, that the tests hold ``corrupt`` to.
"""

from __future__ import annotations

import functools
import string
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from lakeindex.history.batch_metrics import features
from lakeindex.history.chars import to_text
from lakeindex.history.kinds import CATEGORICAL, KINDS, NUMERIC, has_numeric_dtype, infer_kind, infer_text_kind
from lakeindex.history.summary import (
    DEFAULT_EXACT_DISTINCT_LIMIT,
    DEFAULT_TOP_K,
    ColumnSummary,
    Vocab,
    summarize_codes,
    summarize_numbers,
    to_numbers,
)
from lakeindex.lake.text_frame import TextFrame

if TYPE_CHECKING:
    import pandas as pd

BOTH: tuple[str, ...] = (NUMERIC, CATEGORICAL)
INSERT_POOL = string.ascii_letters + string.digits + string.punctuation


# -------------------------------------------------------------------------------------------- helpers


def _count(n: int, p: float) -> int:
    """round(p·n), at least 1 (when n > 0), at most n."""
    return 0 if n == 0 else min(n, max(1, int(np.floor(p * n + 0.5))))


def _pick(rng: np.random.Generator, candidates: np.ndarray, p: float) -> np.ndarray:
    """A sorted random subset of exactly ``_count(len(candidates), p)`` candidates."""
    return np.sort(rng.choice(candidates, size=_count(len(candidates), p), replace=False))


def _format_number(x: float) -> str:
    if float(x).is_integer() and abs(x) < 1e15:
        return str(int(x))
    return np.format_float_positional(x, trim="-")


def _strings(s: pd.Series) -> np.ndarray:
    """Values as an object array of str (None for nulls); numbers of a numeric dtype spelled positionally."""
    if has_numeric_dtype(s):
        nums = to_numbers(s)
        out = np.full(len(s), None, dtype=object)
        ok = ~np.isnan(nums)
        out[ok] = [_format_number(x) for x in nums[ok]]
        return out
    return to_text(s).to_numpy(dtype=object)




def _kind_at(df: pd.DataFrame | TextFrame, j: int) -> str:
    """``infer_kind`` of the ``j``-th column."""
    return infer_text_kind(df.column_at(j)) if isinstance(df, TextFrame) else infer_kind(df.iloc[:, j])


def _donor_position(df: pd.DataFrame | TextFrame, column: str, kind: str) -> int | None:
    """Position of the nearest column of the same kind (right before left), else of the nearest column;
    None when the column is alone."""
    names = list(df.columns)
    i = names.index(column)
    order = [j for d in range(1, len(names)) for j in (i + d, i - d) if 0 <= j < len(names)]
    for j in order:
        if _kind_at(df, j) == kind:
            return j
    return order[0] if order else None




def _recase(value: str, upper: bool) -> str:
    changed = value.upper() if upper else value.lower()
    if len(changed) == len(value):
        return changed
    one = (lambda c: c.upper()) if upper else (lambda c: c.lower())
    return "".join(one(c) if len(one(c)) == 1 else c for c in value)



_CLASSES = ((48, 10), (97, 26), (65, 26))  # (first code point, size): digits, lower, upper ASCII letters


def _typo_text(values: list[str], kind: str) -> tuple[np.ndarray, np.ndarray, str]:
    """The values joined by a separator none contains, as code points, with each one's class in the kind's
    ``_CLASSES`` (-1: not perturbable), and the separator."""
    sep = next(c for c in ("\x00", "\x01", "\ufffe", "\U0010fffe") if not any(c in v for v in values))
    # surrogatepass: a lone surrogate (text decoded with errors="surrogateescape") is a code point like any
    cps = np.frombuffer(sep.join(values).encode("utf-32-le", "surrogatepass"), dtype=np.uint32).copy()
    which = np.full(len(cps), -1)
    for c, (base, size) in enumerate(_CLASSES[:1] if kind == NUMERIC else _CLASSES):
        which[(cps >= base) & (cps < base + size)] = c
    return cps, which, sep


def _typos(cps: np.ndarray, which: np.ndarray, rng: np.random.Generator, p: float) -> np.ndarray:
    """Replace p of the perturbable code points, in place, by another of the same class; the positions."""
    chosen = _pick(rng, np.flatnonzero(which >= 0), p)
    u = rng.random(len(chosen))
    for c, (base, size) in enumerate(_CLASSES):  # a class absent from ``which`` changes nothing
        mine = which[chosen] == c
        shift = 1 + (u[mine] * (size - 1)).astype(np.uint32)  # 1..size-1: always a different character
        cps[chosen[mine]] = base + (cps[chosen[mine]] - base + shift) % size
    return chosen




# ------------------------------------------------------------------------------------------ the column


class PreparedColumn:
    """``df[column]`` prepared once for all its variants: the text of its values as codes of a ``Vocab``
    (-1: null), or for a numeric kind of numeric dtype (``floats``) its values as float64 (``raw``: nulls
    NaN, ±inf kept; ``nums``: ``to_numbers``) with ``codes`` spelling them as ``_strings`` does, for the
    character-level issues. A variant maps it to its corrupted column: floats, or codes of text."""

    def __init__(self, df: pd.DataFrame | TextFrame, column: str, kind: str) -> None:
        self.df, self.column, self.kind = df, column, kind
        self.vocab = Vocab()
        self.raw = self.nums = np.zeros(0)
        self._donor: np.ndarray | None = None
        self._typo: tuple[np.ndarray, np.ndarray, np.ndarray, str] | None = None
        self._rank: np.ndarray | None = None
        if isinstance(df, TextFrame):  # text already: what ``to_text`` (and ``_strings``) of it would give
            self.floats, self.codes = False, self.vocab.codes(df[column])
            self.n = len(self.codes)
            return
        s = df[column].reset_index(drop=True)
        self.n = len(s)
        self.floats = kind == NUMERIC and has_numeric_dtype(s)
        if self.floats:
            self.raw, self.nums = s.to_numpy(dtype=float, na_value=np.nan), to_numbers(s)
            self.codes = self.vocab.codes(_strings(s))
        else:
            self.codes = self.vocab.codes(to_text(s).to_numpy(dtype=object))

    def base(self) -> np.ndarray:
        """The uncorrupted column: floats or codes."""
        return self.raw if self.floats else self.codes

    def finished(self, codes: np.ndarray) -> np.ndarray:
        """Edited text codes in the column's representation: parsed to floats (NaN: not a number) if ``floats``."""
        return self.text_numbers(codes) if self.floats else codes

    def numbers(self) -> np.ndarray:
        """``to_numbers`` of the column."""
        return self.nums if self.floats else self.text_numbers(self.codes)

    def text_numbers(self, codes: np.ndarray) -> np.ndarray:
        """``to_numbers`` of text codes (NaN for nulls and text that is not a finite number)."""
        nums = self.vocab.numbers()
        return np.where(codes >= 0, nums[codes] if len(nums) else np.nan, np.nan)

    def donor(self, rng: np.random.Generator) -> np.ndarray:
        """``_donor`` in the column's representation (``to_numbers``, or codes of ``_strings``/``to_text``)."""
        if self._donor is None:
            j = _donor_position(self.df, self.column, self.kind)
            if j is None:  # alone: own values shuffled, a fresh draw each time
                return (self.nums if self.floats else self.codes)[rng.permutation(self.n)]
            if isinstance(self.df, TextFrame):
                self._donor = self.vocab.codes(self.df.column_at(j))
                return self._donor
            d = self.df.iloc[:, j].reset_index(drop=True)
            if self.floats:
                self._donor = to_numbers(d)
            else:
                text = _strings(d) if self.kind == NUMERIC else to_text(d).to_numpy(dtype=object)
                self._donor = self.vocab.codes(text)
        return self._donor

    def mapped(self, idx: np.ndarray, fn: Callable[[str], str]) -> np.ndarray:
        """The codes with the values at ``idx`` replaced by ``fn`` of them (``fn`` called once per value)."""
        out = self.codes.copy()
        if len(idx):
            values, inverse = np.unique(out[idx], return_inverse=True)
            out[idx] = self.vocab.codes([fn(self.vocab.values[c]) for c in values.tolist()])[inverse]
        return out

    def text_rank(self) -> np.ndarray:
        """Per code of the column, its value's rank in code point order (``np.argsort`` of the text)."""
        if self._rank is None:
            present = np.unique(self.codes[self.codes >= 0]).tolist()
            rank = np.zeros(len(self.vocab.values), dtype=np.int64)
            rank[sorted(present, key=self.vocab.values.__getitem__)] = np.arange(len(present))
            self._rank = rank
        return self._rank

    def typo_text(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, str]:
        """``_typo``'s code points of the non-null values joined, the class of each (-1: not perturbable), the
        value each belongs to (its rank among the non-null values) and the separator."""
        if self._typo is None:
            values = [self.vocab.values[c] for c in self.codes[self.codes >= 0].tolist()]
            cps, which, sep = _typo_text(values, self.kind)
            lengths = np.fromiter((len(v) + 1 for v in values), dtype=np.int64, count=len(values))
            owner = np.repeat(np.arange(len(values)), lengths)[:len(cps)]
            self._typo = cps, which, owner, sep
        return self._typo

    def series(self, out: np.ndarray) -> pd.Series:
        """The corrupted column ``out`` (floats or codes) as a Series: float64, or text (None for null)."""
        import pandas as pd

        if self.floats:
            return pd.Series(out, dtype=float)
        text = np.full(len(out), None, dtype=object)
        known = out >= 0
        text[known] = self.vocab.array()[out[known]]
        return pd.Series(text, dtype=object)

    def summarize(self, out: np.ndarray, top_k: int, limit: int) -> ColumnSummary:
        """``summarize_series`` of the corrupted column ``out`` (floats or codes), from its codes or floats."""
        if not self.floats:
            return summarize_codes(out, self.vocab, self.kind, top_k=top_k, exact_distinct_limit=limit)
        nums = out.copy()
        nums[~np.isfinite(nums)] = np.nan
        return summarize_numbers(nums, int(np.count_nonzero(~np.isnan(out))), len(out), top_k=top_k,
                                 exact_distinct_limit=limit)


def _schema_change(col: PreparedColumn, rng: np.random.Generator, *, p: float) -> np.ndarray:
    donor = col.donor(rng)
    idx = _pick(rng, np.arange(col.n), p)
    out = col.base().copy()
    out[idx] = donor[idx]
    return out


def _unit_change(col: PreparedColumn, rng: np.random.Generator, *, factor: float) -> np.ndarray:
    if col.floats:
        return col.nums * factor
    codes = np.unique(col.codes[col.codes >= 0])
    nums = col.vocab.numbers()[codes] * factor if len(codes) else np.zeros(0)
    ok = ~np.isnan(nums)
    respelled = np.arange(len(col.vocab.values))
    respelled[codes[ok]] = col.vocab.codes([_format_number(x) for x in nums[ok]])
    out = col.codes.copy()
    out[out >= 0] = respelled[out[out >= 0]]
    return out


def _casing(col: PreparedColumn, rng: np.random.Generator, *, upper: bool, p: float) -> np.ndarray:
    return col.mapped(_pick(rng, np.flatnonzero(col.codes >= 0), p), lambda v: _recase(v, upper))


def _blank(col: PreparedColumn, rng: np.random.Generator, *, p: float, null: bool) -> np.ndarray:
    idx = _pick(rng, np.arange(col.n), p)
    out = col.base().copy()
    if col.floats:
        out[idx] = np.nan if null else 0.0
    else:
        out[idx] = -1 if null else col.vocab.codes(["0" if col.kind == NUMERIC else ""])[0]
    return out


def _volume(col: PreparedColumn, rng: np.random.Generator, *, factor: float) -> np.ndarray:
    n, base = col.n, col.base()
    if factor >= 1:
        extra = rng.integers(0, n, size=int(round((factor - 1) * n))) if n else np.array([], dtype=int)
        return np.concatenate([base, base[extra]])
    return base[_pick(rng, np.arange(n), factor)]


def _distribution(col: PreparedColumn, rng: np.random.Generator, *, head: bool, p: float) -> np.ndarray:
    if col.kind == NUMERIC:
        nums = col.numbers()
        pos = np.flatnonzero(~np.isnan(nums))
        keys = nums[pos]
    else:
        empty = col.vocab.index.get("", -2)
        pos = np.flatnonzero((col.codes >= 0) & (col.codes != empty))
        keys = col.text_rank()[col.codes[pos]]
    out = col.base().copy()
    if len(pos) == 0:
        return out
    ordered = out[pos][np.argsort(keys, kind="stable")]
    k = _count(len(ordered), p)
    biased = ordered[:k] if head else ordered[-k:]
    out[pos] = biased[rng.integers(0, k, size=len(pos))]
    return out


def _typo(col: PreparedColumn, rng: np.random.Generator, *, p: float) -> np.ndarray:
    nn = np.flatnonzero(col.codes >= 0)
    if len(nn) == 0:
        return col.finished(col.codes.copy())
    cps, which, owner, sep = col.typo_text()
    cps = cps.copy()
    chosen = _typos(cps, which, rng, p)
    touched = np.unique(owner[chosen])
    edited = cps.astype(np.uint32).tobytes().decode("utf-32-le", "surrogatepass").split(sep)
    out = col.codes.copy()
    out[nn[touched]] = col.vocab.codes([edited[i] for i in touched.tolist()])
    return col.finished(out)


def _edit_chars(col: PreparedColumn, rng: np.random.Generator, *, p: float, insert: bool) -> np.ndarray:
    codes, numeric = col.codes, col.kind == NUMERIC
    if numeric:
        cand = np.flatnonzero(~np.isnan(col.text_numbers(codes)))
    else:
        cand = np.flatnonzero((codes >= 0) & (insert or (codes != col.vocab.index.get("", -2))))
    idx = _pick(rng, cand, p)
    u, pick = rng.random(len(idx)), rng.integers(0, len(INSERT_POOL), size=len(idx))
    values: list[str] = col.vocab.array()[codes[idx]].tolist()
    lengths = np.fromiter(map(len, values), dtype=np.int64, count=len(values))
    if insert:  # the position: int(u · slots) over the slots after any sign (numbers) or all of them
        start = np.fromiter((v[:1] in ("+", "-") for v in values), dtype=np.int64, count=len(values)) \
            if numeric else np.zeros(len(values), dtype=np.int64)
        at = start + (u * (lengths - start + 1)).astype(np.int64)
        pool = string.digits if numeric else INSERT_POOL
        chars = [pool[k % len(pool)] for k in pick.tolist()]
        edited = [v[:a] + c + v[a:] for v, a, c in zip(values, at.tolist(), chars, strict=True)]
    else:  # the deleted character: spots[int(u · len(spots))], spots the digits (numbers) or every character
        at = (u * lengths).astype(np.int64)
        keep = lengths > 0
        if numeric:
            cps = np.frombuffer("".join(values).encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
            digit = (cps >= ord("0")) & (cps <= ord("9"))
            local = np.arange(len(cps)) - np.repeat(np.cumsum(lengths) - lengths, lengths)
            spots = np.bincount(np.repeat(np.arange(len(values)), lengths)[digit], minlength=len(values))
            keep = spots > 0
            first = np.cumsum(spots) - spots
            at = np.zeros(len(values), dtype=np.int64)
            at[keep] = local[digit][first[keep] + (u[keep] * spots[keep]).astype(np.int64)]
        edited = [v[:a] + v[a + 1:] if k else v for v, a, k in zip(values, at.tolist(), keep.tolist(), strict=True)]
    out = codes.copy()
    out[idx] = col.vocab.codes(edited)
    return col.finished(out)


def _whitespace(col: PreparedColumn, rng: np.random.Generator, *, leading: bool, p: float) -> np.ndarray:
    idx = _pick(rng, np.flatnonzero(col.codes >= 0), p)
    return col.mapped(idx, (lambda v: " " + v) if leading else (lambda v: v + " "))


# ----------------------------------------------------------------------------------------- variants


def _pct(p: float) -> str:
    return f"p{round(p * 100)}"


Corrupt = Callable[[PreparedColumn, np.random.Generator], np.ndarray]


@dataclass(frozen=True)
class IssueVariant:
    """One parametrised synthetic DQ issue: ``fn`` maps a prepared column to its corrupted values."""

    id: str
    issue_type: int  # Appendix B type number, 1..10
    param: float  # the fraction p (0 < p ≤ 1) or the factor
    kinds: tuple[str, ...]
    fn: Corrupt = field(repr=False, compare=False)

    def applicable(self, kind: str) -> bool:
        """Whether the issue makes sense for a column kind (no unit change on text, no casing on numbers)."""
        return kind in self.kinds

    def apply(self, df: pd.DataFrame, column: str, rng: np.random.Generator, kind: str | None = None) -> pd.Series:
        """The corrupted ``df[column]`` (a new Series with a RangeIndex; volume issues change its length)."""
        kind = kind or infer_kind(df[column])
        if kind not in KINDS:
            raise ValueError(f"kind must be one of {KINDS}, not {kind!r}")
        col = PreparedColumn(df, column, kind)
        return col.series(self.fn(col, rng))


def _build() -> tuple[IssueVariant, ...]:
    v: list[IssueVariant] = []
    grid = (0.01, 0.1, 0.5, 1.0)

    def add(vid: str, number: int, param: float, kinds: tuple[str, ...], fn: Callable[..., np.ndarray],
            **kw: object) -> None:
        v.append(IssueVariant(vid, number, param, kinds, functools.partial(fn, **kw)))

    for p in grid:
        add(f"schema_change_{_pct(p)}", 1, p, BOTH, _schema_change, p=p)
    for f in (10, 100, 1000):
        add(f"unit_change_x{f}", 2, f, (NUMERIC,), _unit_change, factor=float(f))
    for f in (10, 100, 1000):
        add(f"unit_change_div{f}", 2, 1 / f, (NUMERIC,), _unit_change, factor=1 / f)
    for name, upper in (("upper", True), ("lower", False)):
        for p in grid:
            add(f"casing_{name}_{_pct(p)}", 3, p, (CATEGORICAL,), _casing, upper=upper, p=p)
    for p in grid:
        add(f"increased_nulls_{_pct(p)}", 4, p, BOTH, _blank, p=p, null=False)
    for p in grid:
        add(f"missing_values_{_pct(p)}", 4, p, BOTH, _blank, p=p, null=True)
    for f in (2, 10):
        add(f"volume_x{f}", 5, f, BOTH, _volume, factor=float(f))
    for p in (0.5, 0.1):
        add(f"volume_{_pct(p)}", 5, p, BOTH, _volume, factor=p)
    for name, head in (("head", True), ("tail", False)):
        for p in (0.01, 0.1, 0.5):
            add(f"distribution_{name}_{_pct(p)}", 6, p, BOTH, _distribution, head=head, p=p)
    for p in grid:
        add(f"typo_{_pct(p)}", 7, p, BOTH, _typo, p=p)
    for p in grid:
        add(f"insert_chars_{_pct(p)}", 8, p, BOTH, _edit_chars, p=p, insert=True)
    for p in grid:
        add(f"delete_chars_{_pct(p)}", 9, p, BOTH, _edit_chars, p=p, insert=False)
    for name, leading in (("leading", True), ("trailing", False)):
        for p in grid:
            add(f"whitespace_{name}_{_pct(p)}", 10, p, (CATEGORICAL,), _whitespace, leading=leading, p=p)
    return tuple(v)


VARIANTS: tuple[IssueVariant, ...] = _build()
VARIANT_IDS: tuple[str, ...] = tuple(x.id for x in VARIANTS)
BY_ID: dict[str, IssueVariant] = {x.id: x for x in VARIANTS}
assert len(BY_ID) == len(VARIANTS), "variant ids must be unique"


def variants_for(kind: str) -> tuple[IssueVariant, ...]:
    """The variants applicable to a column kind, in the stable order of ``VARIANTS``."""
    return tuple(x for x in VARIANTS if x.applicable(kind))


def variant_rng(seed: int, variant_id: str) -> np.random.Generator:
    """The generator of one variant: depends only on the seed and the id, not on which others run."""
    return np.random.default_rng([seed, zlib.crc32(variant_id.encode("utf-8"))])


def corrupt(latest_df: pd.DataFrame, column: str, variant_id: str, seed: int = 0,
            kind: str | None = None) -> pd.Series:
    """``df[column]`` with one issue injected, reproducibly (the column ``issue_features`` summarises)."""
    return BY_ID[variant_id].apply(latest_df, column, variant_rng(seed, variant_id), kind)


def issue_features(prev_summary: ColumnSummary | None, latest_df: pd.DataFrame | TextFrame, column: str,
                   seed: int = 0, *, scale: float = 1.0, kind: str | None = None, top_k: int = DEFAULT_TOP_K,
                   exact_distinct_limit: int = DEFAULT_EXACT_DISTINCT_LIMIT) -> dict[str, dict[str, float]]:
    """Per applicable variant id: ``features(prev_summary, summary of the corrupted latest column)``.

    ``latest_df`` is the latest batch, or a uniform sample of it with ``scale`` = full rows / sample rows:
    each corrupted summary is then ``ColumnSummary.scaled(scale)`` so row_count, sum and dist_val_count (and
    the counts behind chisquare) describe a full-size batch, comparable with the history's features. The
    kind is ``kind``, else ``prev_summary.kind``, else inferred from the latest column.

    The column is prepared once, and each variant's corrupted codes or floats are summarised as
    ``summarize_series`` would summarise the Series ``corrupt`` returns, without building it. A ``TextFrame``
    batch (``lakeindex.lake.text_frame``) gives the features of its pandas frame, without pandas.
    """
    if scale <= 0:
        raise ValueError("scale must be positive")
    text = isinstance(latest_df, TextFrame)
    if not kind and prev_summary is not None:
        kind = prev_summary.kind
    kind = kind or (infer_text_kind(latest_df[column]) if text else infer_kind(latest_df[column]))
    variants = variants_for(kind)
    out: dict[str, dict[str, float]] = {}
    if not variants:
        return out
    col = PreparedColumn(latest_df, column, kind)
    for variant in variants:
        corrupted = variant.fn(col, variant_rng(seed, variant.id))
        summary = col.summarize(corrupted, top_k, exact_distinct_limit).scaled(scale, exact_distinct_limit)
        out[variant.id] = features(prev_summary, summary)
    return out
