"""A plain reference of the synthetic issues (AVH Appendix B, as ``lakeindex.history.issues`` documents them).

Written from the definitions, value by value, for the tests: it makes the documented random draws in the
documented order from the same generator (which subset: ``rng.choice`` without replacement, sorted; then the
per-item draws: ``rng.random``, then ``rng.integers``), so the library's corrupted column can be compared
with it exactly. A column comes back as a list: floats (NaN for null) for a numeric-dtype column of the
numeric kind, else text (``None`` for null) spelled like ``chars.to_text``, whose numbers are what the text
spells (a boolean column taken as numeric is the text "True"/"False": no numbers). Spelling and parsing of
a value (``to_text``, ``to_numbers``, ``infer_kind``) are the history package's, tested on their own.
"""

from __future__ import annotations

import math
import string

import numpy as np
import pandas as pd

from lakeindex.history.chars import to_text
from lakeindex.history.kinds import NUMERIC, has_numeric_dtype, infer_kind
from lakeindex.history.summary import to_numbers

POOL = string.ascii_letters + string.digits + string.punctuation  # what an inserted character is drawn from
DIGITS, LOWER, UPPER = "0123456789", string.ascii_lowercase, string.ascii_uppercase


def how_many(n: int, p: float) -> int:
    """round(p·n) (halves up), at least one of a non-empty set, at most all."""
    return 0 if n == 0 else min(n, max(1, math.floor(p * n + 0.5)))


def pick(rng: np.random.Generator, candidates: list[int], p: float) -> list[int]:
    """Exactly ``how_many`` of the candidates, drawn without replacement, in increasing order."""
    return sorted(int(i) for i in rng.choice(np.array(candidates, dtype=np.int64), how_many(len(candidates), p),
                                             replace=False))


def spell(x: float) -> str:
    """A number written out positionally: an integer without a decimal point."""
    if x.is_integer() and abs(x) < 1e15:
        return str(int(x))
    return np.format_float_positional(x, trim="-")


def is_float_column(series: pd.Series, kind: str) -> bool:
    return kind == NUMERIC and has_numeric_dtype(series)


def as_text(series: pd.Series, kind: str) -> list[str | None]:
    """The column's values as text: numbers of a numeric dtype (numeric kind) spelled positionally."""
    if is_float_column(series, kind):
        return [None if math.isnan(x) else spell(x) for x in to_numbers(series).tolist()]
    return [None if v is None else str(v) for v in to_text(series).tolist()]


def number(text: str | None) -> float:
    """What ``to_numbers`` makes of one text (NaN: null or not a finite number)."""
    return float(to_numbers(pd.Series([text], dtype=object))[0])


def finish(series: pd.Series, kind: str, text: list[str | None]) -> list:
    """Edited text back in the column's representation."""
    return [number(v) for v in text] if is_float_column(series, kind) else text


def values(series: pd.Series, kind: str) -> list:
    """The untouched column in its representation: floats (null NaN, ±inf kept) or text."""
    if is_float_column(series, kind):
        return series.to_numpy(dtype=float, na_value=np.nan).tolist()
    return as_text(series, kind)


def neighbour(df: pd.DataFrame, column: str, kind: str) -> int | None:
    """Position of the nearest other column of the same kind (right before left), else of the nearest one."""
    names = list(df.columns)
    i = names.index(column)
    order = []
    for d in range(1, len(names)):
        order += [j for j in (i + d, i - d) if 0 <= j < len(names)]
    same = [j for j in order if infer_kind(df.iloc[:, j]) == kind]
    return same[0] if same else (order[0] if order else None)


def schema_change(df, column, kind, rng, p):
    s = df[column].reset_index(drop=True)
    own = values(s, kind)
    j = neighbour(df, column, kind)
    if j is None:  # alone: the column's own values, shuffled
        donor = [own[i] for i in rng.permutation(len(s)).tolist()]
    else:
        d = df.iloc[:, j].reset_index(drop=True)
        donor = to_numbers(d).tolist() if is_float_column(s, kind) else as_text(d, kind)
    out = list(own)
    for i in pick(rng, list(range(len(s))), p):
        out[i] = donor[i]
    return out


def unit_change(df, column, kind, rng, factor):
    s = df[column].reset_index(drop=True)
    if is_float_column(s, kind):
        return [x * factor for x in to_numbers(s).tolist()]
    return [v if math.isnan(number(v)) else spell(number(v) * factor) for v in as_text(s, kind)]


def recase(value: str, upper: bool) -> str:
    whole = value.upper() if upper else value.lower()
    if len(whole) == len(value):
        return whole
    out = ""
    for c in value:  # character by character, keeping those whose case mapping changes the length
        changed = c.upper() if upper else c.lower()
        out += changed if len(changed) == 1 else c
    return out


def casing(df, column, kind, rng, p, upper):
    s = df[column].reset_index(drop=True)
    text = as_text(s, kind)
    for i in pick(rng, [i for i, v in enumerate(text) if v is not None], p):
        text[i] = recase(text[i], upper)
    return finish(s, kind, text)


def blank(df, column, kind, rng, p, null):
    s = df[column].reset_index(drop=True)
    out = values(s, kind)
    floats = is_float_column(s, kind)
    for i in pick(rng, list(range(len(s))), p):
        out[i] = (math.nan if null else 0.0) if floats else (None if null else ("0" if kind == NUMERIC else ""))
    return out


def volume(df, column, kind, rng, factor):
    s = df[column].reset_index(drop=True)
    own, n = values(s, kind), len(s)
    if factor >= 1:
        extra = rng.integers(0, n, size=int(round((factor - 1) * n))).tolist() if n else []
        return own + [own[i] for i in extra]
    return [own[i] for i in pick(rng, list(range(n)), factor)]


def distribution(df, column, kind, rng, p, head):
    s = df[column].reset_index(drop=True)
    own = values(s, kind)
    if kind == NUMERIC:  # numbers as the column holds them: its floats, or what its text spells
        keys = to_numbers(s).tolist() if is_float_column(s, kind) else [number(v) for v in own]
        complete = [i for i, x in enumerate(keys) if not math.isnan(x)]
    else:
        keys = as_text(s, kind)
        complete = [i for i, v in enumerate(keys) if v is not None and v != ""]
    if not complete:
        return own
    ordered = [own[i] for i in sorted(complete, key=lambda i: keys[i])]  # sorted() is stable
    k = how_many(len(ordered), p)
    biased = ordered[:k] if head else ordered[-k:]
    draws = rng.integers(0, k, size=len(complete)).tolist()
    out = list(own)
    for i, d in zip(complete, draws, strict=True):
        out[i] = biased[d]
    return out


def typo(df, column, kind, rng, p):
    s = df[column].reset_index(drop=True)
    text = as_text(s, kind)
    classes = [DIGITS] if kind == NUMERIC else [DIGITS, LOWER, UPPER]
    spots = [(i, k) for i, v in enumerate(text) if v is not None for k, c in enumerate(v)
             if any(c in cls for cls in classes)]
    if not spots:
        return finish(s, kind, text)
    chosen = pick(rng, list(range(len(spots))), p)
    u = rng.random(len(chosen)).tolist()
    chars = {i: list(text[i]) for i in {spots[c][0] for c in chosen}}
    for c, x in zip(chosen, u, strict=True):
        i, k = spots[c]
        cls = next(cls for cls in classes if chars[i][k] in cls)
        chars[i][k] = cls[(cls.index(chars[i][k]) + 1 + int(x * (len(cls) - 1))) % len(cls)]  # never itself
    for i, cs in chars.items():
        text[i] = "".join(cs)
    return finish(s, kind, text)


def edit_chars(df, column, kind, rng, p, insert):
    s = df[column].reset_index(drop=True)
    text = as_text(s, kind)
    numeric = kind == NUMERIC
    if numeric:  # numbers only
        cand = [i for i, v in enumerate(text) if not math.isnan(number(v))]
    else:  # insertion into any value, deletion from non-empty ones
        cand = [i for i, v in enumerate(text) if v is not None and (insert or v != "")]
    idx = pick(rng, cand, p)
    u = rng.random(len(idx)).tolist()
    chars = rng.integers(0, len(POOL), size=len(idx)).tolist()
    for i, x, c in zip(idx, u, chars, strict=True):
        v = text[i]
        if insert:
            start = 1 if numeric and v[:1] in ("+", "-") else 0
            at = start + int(x * (len(v) - start + 1))
            text[i] = v[:at] + (DIGITS[c % 10] if numeric else POOL[c]) + v[at:]
        else:
            places = [k for k, ch in enumerate(v) if ch in DIGITS] if numeric else list(range(len(v)))
            if places:
                at = places[int(x * len(places))]
                text[i] = v[:at] + v[at + 1:]
    return finish(s, kind, text)


def whitespace(df, column, kind, rng, p, leading):
    s = df[column].reset_index(drop=True)
    text = as_text(s, kind)
    for i in pick(rng, [i for i, v in enumerate(text) if v is not None], p):
        text[i] = " " + text[i] if leading else text[i] + " "
    return finish(s, kind, text)


def _fraction(tag: str) -> float:
    return int(tag[1:]) / 100


def corrupted(df: pd.DataFrame, column: str, variant_id: str, rng: np.random.Generator, kind: str) -> list:
    """The column with the variant (its id spells type and parameter) applied, as a list (module docstring)."""
    *name, tag = variant_id.split("_")
    issue = "_".join(name)
    if issue == "schema_change":
        return schema_change(df, column, kind, rng, _fraction(tag))
    if issue == "unit_change":
        factor = float(tag[1:]) if tag.startswith("x") else 1 / float(tag[3:])
        return unit_change(df, column, kind, rng, factor)
    if issue in ("casing_upper", "casing_lower"):
        return casing(df, column, kind, rng, _fraction(tag), issue == "casing_upper")
    if issue in ("increased_nulls", "missing_values"):
        return blank(df, column, kind, rng, _fraction(tag), issue == "missing_values")
    if issue == "volume":
        return volume(df, column, kind, rng, float(tag[1:]) if tag.startswith("x") else _fraction(tag))
    if issue in ("distribution_head", "distribution_tail"):
        return distribution(df, column, kind, rng, _fraction(tag), issue == "distribution_head")
    if issue == "typo":
        return typo(df, column, kind, rng, _fraction(tag))
    if issue in ("insert_chars", "delete_chars"):
        return edit_chars(df, column, kind, rng, _fraction(tag), issue == "insert_chars")
    if issue in ("whitespace_leading", "whitespace_trailing"):
        return whitespace(df, column, kind, rng, _fraction(tag), issue == "whitespace_leading")
    raise ValueError(f"unknown variant {variant_id!r}")
