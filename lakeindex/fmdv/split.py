"""Splitting values at a separator, and the separators worth trying: shared by lists and records.

A separator is cut where it stands as a symbol run of its own (``a|b``), or once inside a longer run
whose other symbols are not separator characters (``12#-7`` -> ``12``, ``-7``; ``{A}|{B}`` ->
``{A}``, ``{B}``; ``C:\\data`` at ``\\`` -> ``C:``, ``data``). A run holding the separator twice or
with more of its characters is part of an item: ``://`` does not split a URL at ``/``, nor ``\\\\`` a
UNC path at ``\\``.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence

from lakeindex.caches import ClearWhenFull
from lakeindex.fmdv.column import as_counts

_RUNS = re.compile(r"[A-Za-z0-9]+|[^A-Za-z0-9]+")
_SYMBOL_RUN = re.compile(r"[^A-Za-z0-9]+")  # what _RUNS finds between words: non-ASCII letters too
# single-character separators tried (not spaces: natural language); "?" cuts a URL's query string from its address
_SYMBOLS = "|#,;:_/~\\-.=&@+?"
MAX_CANDIDATES = 3
# a fit splits the same values at many separators and in many forms, and columns repeat values: splits
# are cached in a clear-when-full dict (a lookup is far cheaper than an LRU's lock and reordering), emptied
# once it holds 8 M characters (about 26 MB), more than a pass over the wide bench's columns splits, so
# such a pass is not emptied midway (docs/design/performance-notes.md)
_SPLITS = ClearWhenFull(8_000_000, "fmdv.split.splits")  # (value, sep) -> items; weighed in characters


def split_items(value: str, sep: str) -> tuple[str, ...]:
    """Items of ``value`` between the cuts at ``sep`` (module docstring); no cut gives ``(value,)``."""
    if sep not in value:
        return (value,)
    key = (value, sep)
    hit = _SPLITS.data.get(key)
    if hit is None:
        hit = tuple(_split(value, sep))
        _SPLITS.put(key, hit, 2 * len(value) + len(sep))
    return hit


_HAS_WORD = re.compile("[A-Za-z0-9]")


def _split(value: str, sep: str) -> list[str]:
    """The cuts, found among the value's symbol runs only (the regex visits its words in C). A
    one-symbol separator whose pieces between two cuts all hold a letter or digit stands alone in
    each of its runs, so ``str.split`` finds the cuts (most lists and records): only a piece of
    symbols alone (``a|-|b``, ``a||b``) joins two of them into one run."""
    if len(sep) == 1:
        pieces = value.split(sep)
        if all(_HAS_WORD.search(p) for p in pieces[1:-1]):
            return pieces
    items: list[str] = []
    chars = set(sep)
    start = 0
    for m in _SYMBOL_RUN.finditer(value):
        run = m.group()
        at = run.find(sep)
        if at < 0 or run.count(sep) != 1:
            continue
        if chars.intersection(run[:at]) or chars.intersection(run[at + len(sep):]):
            continue
        cut = m.start() + at
        items.append(value[start:cut])
        start = cut + len(sep)
    items.append(value[start:])
    return items


def tally(pairs: Iterable[tuple[str, int]]) -> Counter[str]:
    """Counts of values given as (value, count) pairs: the column of a list's items or a record's field,
    built from the distinct values of the whole column with their counts (each cut once)."""
    out: Counter[str] = Counter()
    for v, n in pairs:  # dict.get, not +=: a new key's += calls Counter.__missing__, Python code
        out[v] = out.get(v, 0) + n
    return out


def item_tally(rows: Iterable[tuple[Sequence[str], int]]) -> Counter[str]:
    """Counts of the items of lists given as (items, count) pairs: ``tally`` of every item with its list's
    count, with a list of count 1 (most lists of a wide column are distinct) counted by ``Counter``'s C
    loop rather than one Python step per item."""
    out: Counter[str] = Counter()
    for items, n in rows:
        if n == 1:
            out.update(items)
        else:
            for it in items:
                out[it] = out.get(it, 0) + n
    return out


def cut_tally(counts: Mapping[str, int], sep: str) -> Counter[int]:
    """How many values (by count) are cut at ``sep`` how many times."""
    out: Counter[int] = Counter()
    for v, n in counts.items():
        k = len(split_items(v, sep)) - 1
        out[k] = out.get(k, 0) + n
    return out


def symbol_presence(counts: Mapping[str, int]) -> Counter[str]:
    """How many values (by count) hold each single-symbol separator, in one pass over the values."""
    # a substring test per symbol (a C scan each) rather than hashing every character into a set; callers
    # only read the counts, so their order does not matter
    present = dict.fromkeys(_SYMBOLS, 0)
    for v, w in counts.items():
        for c in _SYMBOLS:
            if c in v:
                present[c] += w
    return Counter({c: w for c, w in present.items() if w})


def separator_tallies(values: Iterable[str] | Mapping[str, int], tol: float = 0.0) -> dict[str, Counter[int]]:
    """The separators worth trying, each with how many values (by count) it cuts how many times: symbol
    strings that cut all values but ``tol`` of them at least once (single symbols, and the symbol runs
    of the longest value such as ``::``). Lists and records rank the same separators by these tallies,
    so a column's are computed once for both. ``values``: a list, or counts per value (only read)."""
    counts = as_counts(values)
    if not counts:
        return {}
    total = sum(counts.values())
    need = (1 - tol) * total
    present = symbol_presence(counts)
    cands = [c for c in _SYMBOLS if present.get(c, 0) >= need]  # get: no Counter.__missing__ call
    for run in _RUNS.findall(max(counts, key=len)):
        if (not run[0].isalnum() and len(run) > 1 and run not in cands
                and sum(w for v, w in counts.items() if run in v) >= need):
            cands.append(run)
    out = {}
    for c in cands:
        cuts = cut_tally(counts, c)
        if total - cuts[0] >= need:
            out[c] = cuts
    return out


def part_budget(budget: float, spent: float) -> float:
    """What one part of a list or record may cost: the rule's budget less what its other parts spent,
    with room for rounding (``0.03 - 0.02 < 0.01`` in floating point); the rule's own FPR, their sum,
    is then checked against the budget exactly."""
    return budget - spent + 1e-12
