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

Separators are tried delimiters first, then rarest first (the top level of a record cuts least often),
at most three. Delimiters are the symbols that separate fields in delimited text and almost nowhere
else (``| ; , # ~``, as in the candidates of Python's ``csv.Sniffer``), and runs of one repeated symbol
(``::``). Without them first, the runs that join a field separator to its neighbour's first symbol
(``|/`` and ``|\\\\`` in ``ts|/a/b|\\\\srv\\x|ts``, each once per value) and a timestamp's ``.``
outranked ``|``, which cuts three times, and the record was never cut there.

*An optional last field* (``optional``): a URL whose query string only some values carry
(``https://h/a?k=v`` among ``https://h/b``), a file name with an optional fragment. A symbol that cuts
some values once and the others nowhere, each side at least ``OPTIONAL_SHARE`` of the values, gives the
rule ``F0<opt>SEP F1</opt>``: the first field over every value, the second over those that hold it, FPRs
summed as for any record (and as vertical cuts charge an optional block). The floor on the values
without the field keeps ad-hoc values out: a ``none`` among sentences that hold a comma is no record
without its last field. So does asking those values to share a structure (:func:`skeleton`) with the
first field of the others: ``okhttp/4.12`` is no ``Mozilla/5.0 (X11`` without its ``, like Gecko)``
(without the check, user-agent columns also cost more per fit: docs/design/performance-notes.md).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping

from lakeindex.fmdv.column import as_counts, nonempty_counts, skeleton
from lakeindex.fmdv.search import Candidate
from lakeindex.fmdv.split import (
    MAX_CANDIDATES,
    part_budget,
    separator_tallies,
    split_items,
    symbol_presence,
    tally,
)
from lakeindex.patterns.pattern import OPT_CLOSE, OPT_OPEN, PatternError, compiled, escape_literal

MAX_FIELDS = 16
DELIMITERS = frozenset("|;,#~")
# an optional last field is held, and lacked, by at least this share of the values each (fewer lacking
# it are ad-hoc values, the horizontal cut's theta: 0.1 by default)
OPTIONAL_SHARE = 0.1

Solve = Callable[[Counter[str], float], Candidate | None]  # a part column (counts per value), FPR budget


def record_separators(values: Iterable[str] | Mapping[str, int], tol: float = 0.0,
                      tallies: Mapping[str, Counter[int]] | None = None) -> list[tuple[str, int]]:
    """Separators that cut all values but ``tol`` of them the same number of times (1 to
    MAX_FIELDS - 1), rarest first, with that number. ``values``: a list, or counts per value;
    ``tallies``: their ``separator_tallies`` if computed already."""
    counts = as_counts(values)
    total = sum(counts.values())
    found = []
    for sep, cuts in (separator_tallies(counts, tol) if tallies is None else tallies).items():
        n, share = cuts.most_common(1)[0]
        if 1 <= n < MAX_FIELDS and share >= (1 - tol) * total:
            found.append((not is_delimiter(sep), n, -len(sep), sep))
    return [(s, n) for _, n, _, s in sorted(found)[:MAX_CANDIDATES]]


def is_delimiter(sep: str) -> bool:
    """A field delimiter of delimited text (module docstring): tried before other separators."""
    return set(sep) <= DELIMITERS or (len(sep) > 1 and len(set(sep)) == 1)


def optional_separators(values: Iterable[str] | Mapping[str, int], tol: float = 0.0) -> list[str]:
    """Symbols that cut every value once or nowhere, each side at least ``OPTIONAL_SHARE`` of the values
    and the side without a cut at least ``tol`` of them (fewer are values a horizontal cut removes), where
    a value without a cut has the skeleton of some first field: the separators of an optional last field
    (module docstring), most held first, at most ``MAX_CANDIDATES``."""
    counts = as_counts(values)
    total = sum(counts.values())
    least = OPTIONAL_SHARE * total
    found = []
    for sep, held in sorted(symbol_presence(counts).items(), key=lambda kv: (-kv[1], kv[0])):
        if held < least or held >= total:
            continue
        cut = {v: split_items(v, sep) for v in counts}
        if any(len(items) > 2 for items in cut.values()):
            continue
        once = sum(n for v, n in counts.items() if len(cut[v]) == 2)
        if once < least or total - once < max(OPTIONAL_SHARE, tol) * total:
            continue
        # the values without the field look like the first field of those with it (a URL without its
        # query string like one with it), else they are other things: a user agent without a comma
        short = {skeleton(v) for v, items in cut.items() if len(items) == 1}
        if short.isdisjoint(skeleton(items[0]) for items in cut.values() if len(items) == 2):
            continue
        found.append(sep)
    return found[:MAX_CANDIDATES]


def record_rule(values: Iterable[str] | Mapping[str, int], solve: Solve, tol: float = 0.0,
                budget: float = float("inf"), tallies: Mapping[str, Counter[int]] | None = None,
                optional: bool = False) -> Candidate | None:
    """The best record rule over ``values`` (a list, or counts per value) with FPR <= ``budget``, or
    None: all values but ``tol`` of them must be records of the form learned (the others are ad-hoc
    values a horizontal cut removes).

    ``solve(column, budget)`` learns the pattern of one field column, given as counts per value, from
    the index, with FPR at most ``budget`` (None if there is none). ``tallies``: the non-empty values'
    ``separator_tallies`` if computed already. ``optional``: try records whose last field only some
    values hold too (module docstring).
    """
    counts = nonempty_counts(values)
    if not counts:
        return None
    total = sum(counts.values())
    best: Candidate | None = None
    forms = [(sep, cuts, False) for sep, cuts in record_separators(counts, tol, tallies)]
    if optional:
        forms += [(sep, 1, True) for sep in optional_separators(counts, tol)]
    for sep, cuts, last_optional in forms:
        rows = [(r, n) for r, n in ((split_items(v, sep), n) for v, n in counts.items())
                if len(r) == cuts + 1 or (last_optional and len(r) == cuts)]
        columns = [tally((r[f], n) for r, n in rows if f < len(r)) for f in range(cuts + 1)]
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
            e = escape_literal(sep)
            pattern = e.join(c.pattern for c in fields[:-1])
            last = e + fields[-1].pattern
            pattern += OPT_OPEN + last + OPT_CLOSE if last_optional else last
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
