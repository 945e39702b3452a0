"""Lists: a column whose values are items joined by one separator gets a repetition rule.

A value such as ``12#-7#301#…`` (8 to 24 signed numbers) or ``a:1,b:2,c:3`` has as many vertical
segments as items, and Eq. 8 sums their FPRs, so a list of 24 numbers needs each item's FPR below
r/24: no index offers that, and the column gets no rule. Such a column is one domain repeated, so it
is solved as one: the items of all values form a query column, solved against the index like any
column, and the rule is ``ITEM<rep>SEP ITEM</rep>{k-1}`` (``{k-1,}`` when training lists vary in length,
k the shortest, or ``{1,}`` when fewer than ``MINIMUM_EVIDENCE`` lists show it), with the item pattern's FPR
and coverage, as the item domain is what the index measures.

Paths and URLs are lists with a *head* and a *tail* of their own: ``https://host:8443`` then path
segments, then ``file_12.csv?x=1``; ``C:`` then folders. Each of the four forms (no head or tail,
head, tail, both) is tried, with the head and tail items solved as columns of their own, and the rule
is ``HEAD<rep>SEP ITEM</rep>{k,}SEP TAIL``; its FPR sums the parts' (Eq. 8) and must stay within the
caller's budget: the parts are solved fewest distinct values first (a scheme and host, or a file name
shared by all values, before hundreds of folders; a URL's many query strings after its few folder
names), each within what the others left, as in :mod:`lakeindex.fmdv.records`, so a form that cannot
fit ends on its cheapest part. A common symbol wrapper (``[`` … ``]``) is kept literally, and a
separator that every value starts or ends with (``/data/raw``) too. So is a doubled separator every
value starts with: in ``\\\\srv01\\data\\x.csv`` the server is the first item, of the folders' domain,
rather than a head that would add its own FPR. Likewise a list of varying length may start at two
items (``shop.example.co.uk`` among ``mail.example.net`` and ``example.com``): a pair is a record only
where every value is one, and a first item solved as a head of its own would add its FPR.

*Joined words* (:func:`joined_rule`) are the shortest lists: one or more words joined by a symbol that
only some values hold, such as the folders ``finance-reports`` among ``config`` and ``raw``, or the
enum ``web_portal`` among ``crm``. Vertical cuts give them an optional block,
``<opt><alphanum>+-</opt><alphanum>+``, whose two segments each add an FPR (0.082 on both bench
lakes), which leaves a path or URL holding such folders no room within r, and an enum no room to
narrow. As a list, they cost what the word domain costs (``<alphanum>+<opt>-<alphanum>+</opt>``,
0.041), and the word may then narrow (``<lower>+<opt>_<lower>+</opt>``, 0.087). The joining symbols
are the ones words are joined by (``JOINERS``: ``- _ . +``, the space, and a query string's ``&``),
never a record's delimiters. A word may itself be joined words of another symbol: the MIME subtype
``vnd.openxmlformats-officedocument.spreadsheetml.sheet`` is words joined by ``.``, some of them by
``-``.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence

from lakeindex.fmdv.column import as_counts, nonempty_counts
from lakeindex.fmdv.search import Candidate
from lakeindex.fmdv.split import (
    MAX_CANDIDATES,
    item_tally,
    part_budget,
    separator_tallies,
    split_items,
    symbol_presence,
    tally,
)
from lakeindex.patterns.pattern import OPT_CLOSE, OPT_OPEN, REP_CLOSE, REP_OPEN, PatternError, compiled, escape_literal

MIN_ITEMS = 3  # a list without head or tail has two separators at least; a pair is a record of two fields
# the training lists' shortest length bounds the count only when learned from at least this many lists: the
# index prices the items, never the count, and a new list is shorter than all of n exchangeable training
# lists with probability up to 1/(n + 1), about the validation's default α (0.01) at 100 (from 5 lists, 1 in 6)
MINIMUM_EVIDENCE = 100
# a joining symbol is held by at least this share of the values: fewer holders are an optional block of
# vertical cuts, or ad-hoc values, not a domain of joined words
JOIN_SHARE = 0.05
# symbols that join words (``octet-stream``, ``web_portal``, ``svg+xml``, ``Navy Blue``), and a query string's
# ``&``: a list of ``key=value`` pairs cut at ``=`` has items ``x&utm`` (a value, then the next key)
JOINERS = "-_.+ &"
_JOINER_SET = frozenset(JOINERS)
# one C match instead of a Python test per character (the same strings: checked on 200,000 random ones)
_JOINABLE = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9" + re.escape(JOINERS) + r"]*[A-Za-z0-9])?")
_FORMS = ((0, 0), (1, 0), (0, 1), (1, 1))  # (head items, tail items)

Solve = Callable[[Counter[str], float], Candidate | None]  # a part column (counts per value), FPR budget


def _wrapper(values: list[str], sep: str) -> tuple[str, str]:
    """Symbol prefix and suffix every value shares (brackets around the list), never the separator."""
    pre = suf = ""
    first = values[0]
    if not first[0].isalnum() and first[0] not in sep and all(v[0] == first[0] for v in values):
        pre = first[0]
    if not first[-1].isalnum() and first[-1] not in sep and all(v[-1] == first[-1] and len(v) > 1 for v in values):
        suf = first[-1]
    return pre, suf


def list_separators(values: Iterable[str] | Mapping[str, int], tol: float = 0.0,
                    tallies: Mapping[str, Counter[int]] | None = None) -> list[str]:
    """Separators that cut all values but ``tol`` of them, at least twice for half of them (a list,
    not a pair), most cuts first. ``values``: a list, or counts per value; ``tallies``: their
    ``separator_tallies`` if computed already."""
    counts = as_counts(values)
    half = sum(counts.values()) // 2
    median = {}
    for sep, tally_ in (separator_tallies(counts, tol) if tallies is None else tallies).items():
        seen = 0
        for cuts, n in sorted(tally_.items()):  # the weighted median: value at position half
            seen += n
            if seen > half:
                median[sep] = cuts
                break
    ranked = [s for s in median if median[s] >= MIN_ITEMS - 1]
    return sorted(ranked, key=lambda s: -median[s])[:MAX_CANDIDATES]


def repetition_rule(values: Iterable[str] | Mapping[str, int], solve: Solve, tol: float = 0.0,
                    budget: float = float("inf"),
                    tallies: Mapping[str, Counter[int]] | None = None) -> Candidate | None:
    """The best repetition rule over ``values`` (a list, or counts per value) with FPR <= ``budget``,
    or None: all values but ``tol`` of them must be lists of the form learned (the others are ad-hoc
    values a horizontal cut removes).

    ``solve(column, budget)`` learns the pattern of a column of items (or heads, or tails), given as
    counts per value, from the index, with FPR at most ``budget`` (None if there is none). ``tallies``:
    the non-empty values' ``separator_tallies`` if computed already.
    """
    counts = nonempty_counts(values)
    if not counts:
        return None
    total = sum(counts.values())
    best: Candidate | None = None
    for sep in list_separators(counts, tol, tallies):
        lists = {v: n for v, n in counts.items() if len(split_items(v, sep)) > 1}
        pre, suf = _wrapper(list(lists), sep)
        split: list[tuple[Sequence[str], int]] = [(split_items(v[len(pre):len(v) - len(suf)], sep), n)
                                                  for v, n in lists.items()]
        lead = all(s[0] == "" for s, _ in split)
        trail = all(s[-1] == "" for s, _ in split)
        split = [(s[1 if lead else 0:len(s) - 1 if trail else len(s)], n) for s, n in split]
        double = sep * 2  # a UNC path's "\\\\": the server is the first item, not a head of its own
        opening = (escape_literal(sep) if lead else "")
        if not lead and all(s[0].startswith(double) and s[0][len(double):len(double) + 1].isalnum() for s, _ in split):
            split = [([s[0][len(double):], *s[1:]], n) for s, n in split]
            opening = escape_literal(double)
        if any(not it for s, _ in split for it in s):
            continue
        for heads, tails in _FORMS:
            cand = _form(split, sep, heads, tails, solve, budget, None if best is None else best.fpr)
            if cand is None:
                continue
            e = escape_literal(sep)
            pattern = escape_literal(pre) + opening + cand.pattern + (e if trail else "")
            pattern += escape_literal(suf)
            try:
                match = compiled(pattern).fullmatch
            except PatternError:
                continue  # an item pattern holds the separator: not a list of it
            if sum(n for v, n in counts.items() if match(v) is None) > tol * total:
                continue
            cand = Candidate(pattern, cand.fpr, cand.coverage)
            if cand.fpr <= budget and (best is None or cand.fpr < best.fpr):
                best = cand
    return best


def _form(split: list[tuple[Sequence[str], int]], sep: str, heads: int, tails: int, solve: Solve,
          budget: float = float("inf"), beat: float | None = None) -> Candidate | None:
    """The rule of one form (head and tail items or not) over distinct values already cut into items,
    each with its count, with FPR <= ``budget``: the parts (head, tail, items) fewest distinct values
    first, each within what the others left. None too once the parts add up to ``beat``, the FPR of a
    rule found already."""
    mids = [(s[heads:len(s) - tails], n) for s, n in split]
    counts = [len(m) for m, _ in mids]
    lo = min(counts)
    least = 1 if heads else MIN_ITEMS - tails
    if not heads and not tails and len(set(counts)) > 1:
        least = 2  # a pair is a record only where every value is one: else it is the shortest of the lists
    if lo < least:
        return None
    columns: dict[str, Counter[str]] = {}  # head and tail before the items on ties (few distinct values)
    if heads:
        columns["head"] = tally((s[0], n) for s, n in split)
    if tails:
        columns["tail"] = tally((s[-1], n) for s, n in split)
    columns["item"] = item_tally(mids)
    solved: dict[str, Candidate] = {}
    spent = 0.0
    for name in sorted(columns, key=lambda k: len(columns[k])):  # fewest distinct first, as records do
        cand = solve(columns[name], part_budget(budget, spent))
        if cand is None:
            return None
        solved[name] = cand
        spent += cand.fpr
        if beat is not None and spent >= beat and len(solved) < len(columns):
            return None  # cannot beat the rule found already: the other parts need not be solved
    head, item, tail = solved.get("head"), solved["item"], solved.get("tail")
    parts = [p for p in (head, item, tail) if p is not None]
    e = escape_literal(sep)
    # lists of one length keep it (an IPv4 address has four numbers); lists of varying length are open from
    # the training sample's shortest only when it is learned from enough lists (``MINIMUM_EVIDENCE``), else
    # from the shortest the form admits
    fixed = len(set(counts)) == 1
    shortest = lo if fixed or sum(n for _, n in mids) >= MINIMUM_EVIDENCE else least
    reps = shortest - (0 if heads else 1)
    quant = f"{{{reps}}}" if fixed else f"{{{reps},}}"
    if head is not None:
        pattern = head.pattern + REP_OPEN + e + item.pattern + REP_CLOSE + quant
    else:
        pattern = item.pattern + REP_OPEN + e + item.pattern + REP_CLOSE + quant
    if tail is not None:
        pattern += e + tail.pattern
    return Candidate(pattern, sum(p.fpr for p in parts), min(p.coverage for p in parts))


def _joinable(piece: str) -> bool:
    """A piece of joined words: ASCII letters, digits and joiners, a letter or digit at both ends
    (``octet-stream`` as a piece of ``vnd.octet-stream`` cut at ``.``): a sign or a bracket is never
    cut off as a word, and a time's ``10:30`` is no word."""
    return _JOINABLE.fullmatch(piece) is not None


def joined_rule(values: Iterable[str] | Mapping[str, int], solve: Solve, budget: float = float("inf"),
                tol: float = 0.0, refine: Callable[[Counter[str]], Candidate | None] | None = None) -> Candidate | None:
    """The best rule of words joined by a symbol, one or more of them, over ``values`` (a list, or counts
    per value) with FPR <= ``budget``, or None (module docstring). All values but ``tol`` of them must
    be joined words (the others are ad-hoc values a horizontal cut removes, ``-`` among enums).

    No symbol may be held by every value but ``tol`` of them: that makes a list or a record, whose parts
    may be joined words. A joining symbol (``JOINERS``) qualifies where at least ``JOIN_SHARE`` of the
    values hold it and some do not, and it cuts every value into pieces with a letter or digit at both
    ends made of letters, digits and joiners only (``a-b``, ``a-b.c`` at ``.``; never ``-a`` or
    ``a:b``), at least half of them (by count) starting with a letter: digits joined by a symbol are
    number syntax (decimals, times), which vertical cuts place. The pieces of all values, each with its
    value's count, are solved as one column, and the rule is ``W<opt>SEP W</opt>`` where no value joins
    more than two words, else ``W<rep>SEP W</rep>{0,}``, with the word pattern's FPR and coverage, as
    for any list: the word domain is what the index measures. A word pattern that is itself an
    optional block cannot sit inside one (blocks do not nest), but can inside a repetition. Symbols are
    tried most held first, at most ``MAX_CANDIDATES``. ``refine(words)``, if given, solves the winning
    symbol's words once more (narrowed, within the caller's own budget); its pattern replaces the
    word's where it has one.
    """
    counts = nonempty_counts(values)
    total = sum(counts.values())
    present = symbol_presence(counts)
    present[" "] = sum(n for v, n in counts.items() if " " in v)
    if any(w >= (1 - tol) * total for w in present.values()):
        return None  # a symbol (nearly) every value holds makes a list or record, whose parts may be words
    seps = sorted((c for c, w in present.items() if c in _JOINER_SET and JOIN_SHARE * total <= w < total),
                  key=lambda c: (-present[c], c))
    best: Candidate | None = None
    chosen: tuple[Counter[str], str, int] = (Counter(), "", 0)  # the best rule's words, symbol, longest
    for sep in seps[:MAX_CANDIDATES]:
        split = [(split_items(v, sep), n) for v, n in counts.items()]
        words = [(items, n) for items, n in split if all(_joinable(it) for it in items)]
        if sum(n for _, n in split) - sum(n for _, n in words) > tol * total:
            continue
        split = words
        lettered = sum(n * sum(it[0].isalpha() for it in items) for items, n in split)
        if 2 * lettered < sum(n * len(items) for items, n in split):
            continue  # mostly numbers joined by a symbol: number syntax (decimals, times), not words
        longest = max(len(items) for items, _ in split)
        if longest < 2 or all(len(items) > 1 for items, _ in split):
            continue  # the symbol never cuts as a separator, or cuts every value
        tallied = item_tally(split)
        word = solve(tallied, budget if best is None else min(budget, best.fpr))
        cand = None if word is None else _joined(word, sep, longest)
        if cand is not None and word is not None and word.fpr <= budget and (best is None or word.fpr < best.fpr):
            best, chosen = cand, (tallied, sep, longest)
    if best is not None and refine is not None:
        word = refine(chosen[0])
        best = (None if word is None else _joined(word, *chosen[1:])) or best
    return best


def _joined(word: Candidate, sep: str, longest: int) -> Candidate | None:
    """The rule of words of pattern ``word`` joined by ``sep``, at most ``longest`` of them, or None where
    the word pattern holds an optional block (inside another: blocks do not nest) or the symbol."""
    e = escape_literal(sep)
    if longest == 2:
        pattern = word.pattern + OPT_OPEN + e + word.pattern + OPT_CLOSE
    else:
        pattern = word.pattern + REP_OPEN + e + word.pattern + REP_CLOSE + "{0,}"
    try:
        compiled(pattern)
    except PatternError:
        return None
    return Candidate(pattern, word.fpr, word.coverage)
