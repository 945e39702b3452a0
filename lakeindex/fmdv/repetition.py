"""Lists: a column whose values are k items joined by one separator gets a repetition rule.

A value such as ``12#-7#301#…`` (8 to 24 signed numbers) or ``a:1,b:2,c:3`` has as many vertical
segments as items, and Eq. 8 sums their FPRs, so a list of 24 numbers needs each item's FPR below
r/24: no index offers that, and the column gets no rule. Such a column is one domain repeated, so it
is solved as one: the items of all values form a query column, FMDV-V finds the item pattern from
the index, and the rule is ``ITEM<rep>SEP ITEM</rep>{k-1}`` (``{k-1,}`` when training lists vary in
length), with the item pattern's FPR and coverage, as the item domain is what the index measures.
An optional common wrapper (``[`` … ``]``) is kept literally.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

from lakeindex.fmdv.search import Candidate
from lakeindex.patterns.pattern import REP_CLOSE, REP_OPEN, PatternError, compiled, escape_literal

MIN_ITEMS = 3  # two separators at least: a pair is a record of two fields, left to vertical cuts
MAX_SEPARATORS = 3  # candidate separators tried, most frequent first
_SEPARATORS = "|#,;:_/~\\-."  # not spaces: words joined by spaces are natural language


def _wrapper(values: list[str], sep: str) -> tuple[str, str]:
    """Symbol prefix and suffix every value shares (brackets around the list), never the separator."""
    pre = suf = ""
    first = values[0]
    if not first[0].isalnum() and first[0] != sep and all(v[0] == first[0] for v in values):
        pre = first[0]
    if not first[-1].isalnum() and first[-1] != sep and all(v[-1] == first[-1] and len(v) > 1 for v in values):
        suf = first[-1]
    return pre, suf


def candidate_separators(values: list[str]) -> list[str]:
    """Symbols that occur at least ``MIN_ITEMS - 1`` times in every value, most frequent first."""
    mins: dict[str, int] = {}
    for ch in _SEPARATORS:
        counts = [v.count(ch) for v in values]
        if min(counts) >= MIN_ITEMS - 1:
            mins[ch] = min(counts)
    return sorted(mins, key=lambda c: (-mins[c], _SEPARATORS.index(c)))[:MAX_SEPARATORS]


def repetition_rule(values: list[str], solve_items: Callable[[list[str]], Candidate | None]) -> Candidate | None:
    """The best repetition rule over ``values`` (all of them lists), or None.

    ``solve_items`` learns the item pattern of a column of items (FMDV-V against the index).
    """
    values = [v for v in values if v]
    if not values:
        return None
    best: Candidate | None = None
    for sep in candidate_separators(values):
        pre, suf = _wrapper(values, sep)
        bodies = [v[len(pre):len(v) - len(suf)] for v in values]
        items_per_value = [b.split(sep) for b in bodies]
        lengths = Counter(len(items) for items in items_per_value)
        if min(lengths) < MIN_ITEMS or any(not it for items in items_per_value for it in items):
            continue
        item = solve_items([it for items in items_per_value for it in items])
        if item is None:
            continue
        quant = f"{{{min(lengths) - 1}}}" if len(lengths) == 1 else f"{{{min(lengths) - 1},}}"
        pattern = (escape_literal(pre) + item.pattern + REP_OPEN + escape_literal(sep) + item.pattern
                   + REP_CLOSE + quant + escape_literal(suf))
        try:
            match = compiled(pattern).fullmatch
        except PatternError:
            continue  # the item pattern holds the separator: not a list of it
        if any(match(v) is None for v in values):
            continue
        cand = Candidate(pattern, item.fpr, item.coverage)
        if best is None or cand.fpr < best.fpr:
            best = cand
    return best
