"""Records: values made of a fixed number of fields joined by one separator, each field its own column.

Vertical cuts (§3) align the values' tokens and cut them into segments of at most tau tokens. When a
field varies in structure from value to value (a path of 3 to 8 folders, a signed number written
``|-12`` where others have ``|34``, a time zone ``Z`` or ``+05:30``), the alignment of the whole
value has gaps in several places, and no segmentation is feasible. A record cut applies the same
idea one level up: a separator that cuts every value the same number of times (``|`` in
``uuid|ORD-12|/a/b/c``) splits the column into field columns, each solved like a column of its own
(vertical and horizontal cuts, lists, nested records), and the rule is the fields' rules joined by
the separator. Its FPR is the sum of the fields' (the paper's pessimistic Eq. 8) and its coverage the
smallest of theirs.

The sum must stay within the caller's budget (r at the top), so fields are solved fewest distinct
values first (a constant scheme, a few hosts), each within what the others have left of the budget: a
field whose rule would not fit ends the separator before the wide fields are solved at all, and a
nested list or record inside a field searches only rules that fit its share. A separator also ends
once its fields add up to the best rule's FPR (it cannot win); the best rule does not shrink the
fields' budgets, so every separator's fields are narrowed alike and compete fairly.

Separators are tried rarest first (the top level of a record cuts least often), at most three.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping

from lakeindex.fmdv.column import nonempty_counts
from lakeindex.fmdv.search import Candidate
from lakeindex.fmdv.split import MAX_CANDIDATES, part_budget, separator_tallies, split_items, tally
from lakeindex.patterns.pattern import PatternError, compiled, escape_literal

MAX_FIELDS = 16

Solve = Callable[[Counter[str], float], Candidate | None]  # a part column (counts per value), FPR budget


def record_separators(values: Iterable[str] | Mapping[str, int], tol: float = 0.0,
                      tallies: Mapping[str, Counter[int]] | None = None) -> list[tuple[str, int]]:
    """Separators that cut all values but ``tol`` of them the same number of times (1 to
    MAX_FIELDS - 1), rarest first, with that number. ``values``: a list, or counts per value;
    ``tallies``: their ``separator_tallies`` if computed already."""
    counts = Counter(values)
    total = sum(counts.values())
    found = []
    for sep, cuts in (separator_tallies(counts, tol) if tallies is None else tallies).items():
        n, share = cuts.most_common(1)[0]
        if 1 <= n < MAX_FIELDS and share >= (1 - tol) * total:
            found.append((n, -len(sep), sep))
    return [(s, n) for n, _, s in sorted(found)[:MAX_CANDIDATES]]


def record_rule(values: Iterable[str] | Mapping[str, int], solve: Solve, tol: float = 0.0,
                budget: float = float("inf"), tallies: Mapping[str, Counter[int]] | None = None) -> Candidate | None:
    """The best record rule over ``values`` (a list, or counts per value) with FPR <= ``budget``, or
    None: all values but ``tol`` of them must be records of the form learned (the others are ad-hoc
    values a horizontal cut removes).

    ``solve(column, budget)`` learns the pattern of one field column, given as counts per value, from
    the index, with FPR at most ``budget`` (None if there is none). ``tallies``: the non-empty values'
    ``separator_tallies`` if computed already.
    """
    counts = nonempty_counts(values)
    if not counts:
        return None
    total = sum(counts.values())
    best: Candidate | None = None
    for sep, cuts in record_separators(counts, tol, tallies):
        rows = [(r, n) for r, n in ((split_items(v, sep), n) for v, n in counts.items()) if len(r) == cuts + 1]
        columns = [tally((r[f], n) for r, n in rows) for f in range(cuts + 1)]
        if not all(all(column) for column in columns):
            continue  # an empty field
        found: dict[int, Candidate] = {}
        spent = 0.0
        for f in sorted(range(cuts + 1), key=lambda f: (len(columns[f]), f)):
            cand = solve(columns[f], part_budget(budget, spent))
            if cand is None:
                break
            found[f] = cand
            spent += cand.fpr
            if best is not None and spent >= best.fpr:
                break  # cannot beat the rule found already: its other fields need not be solved
        else:
            fields = [found[f] for f in range(cuts + 1)]
            pattern = escape_literal(sep).join(c.pattern for c in fields)
            try:
                match = compiled(pattern).fullmatch
            except PatternError:
                continue  # two list fields with one separator, or too long
            if sum(n for v, n in counts.items() if match(v) is None) > tol * total:
                continue
            indexed = [c.coverage for c in fields if not c.literal]
            if not indexed:
                continue  # nothing the index backs
            cand = Candidate(pattern, sum(c.fpr for c in fields), min(indexed))
            if cand.fpr <= budget and (best is None or cand.fpr < best.fpr):
                best = cand
    return best
