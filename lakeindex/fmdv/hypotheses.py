"""H(C[s,e]): the hypothesis patterns of one segment of a query column, built part by part.

The paper's hypothesis space is H(C) = ∩_{v in C} P(v). When the values of a segment share one
layout (the same symbols between the same number of words, the common case after alignment), a
template is one alternative per part, so the intersection is the product, part by part, of the
alternatives every value's part offers. That is computed once per distinct part instead of once
per value shape, and never lists a shape's thousands of templates.

Two additions to P(v), both in the open space the paper leaves:

* *Agreed constants.* A constant alternative is kept when every value has the same text in its slot
  (the paper's constant patterns, at most ``max_constants`` of them).
* *Hex compatibility.* P(v) offers ``<hex>`` only to words that mix digits with letters a-f (see
  :mod:`lakeindex.patterns.hierarchy`), so a UUID group of digits only (``1234``, 15% of 4-character
  groups) would remove ``<hex>{4}`` from the intersection although the regex accepts it. A part where
  some value has a hex word and every value's text is hex digits keeps ``<hex>{k}``/``<hex>+``. The
  index counts such positions the same way in segment windows (:mod:`lakeindex.patterns.windows`).

Values of several layouts in one segment (a gap of the alignment inside it) fall back to the
intersection of their shapes' constant-free template sets.
"""

from __future__ import annotations

from collections.abc import Callable, Container
from functools import lru_cache
from typing import cast

from lakeindex.caches import register
from lakeindex.fmdv.column import Group
from lakeindex.patterns.hierarchy import fixed, plus
from lakeindex.patterns.pattern import WORD_START, escape_literal
from lakeindex.patterns.templates import free_templates, is_decimal_at, part_alternatives, slot_starts
from lakeindex.patterns.tokens import is_hex_word

SegmentPart = tuple[Group, int, int]  # group, first part index, end part index (exclusive)
Alternative = tuple[str, int, int]  # (pattern text, constant slots, parts consumed)


def segment_key(parts: list[SegmentPart]) -> frozenset:
    """Everything the hypotheses of a segment depend on: per distinct group part-range, its
    sub-shape, agreed constants and hex flags."""
    out = set()
    for g, i, j in parts:
        a = g.slot_start[i]
        b = g.slot_start[j] if j < len(g.shape) else len(g.common)
        out.add((g.shape[i:j], g.common[a:b], g.hexable[a:b]))
    return frozenset(out)


@lru_cache(maxsize=1 << 14)
def label_outlines(labels: tuple) -> frozenset[tuple[str, ...]]:
    """The outlines a constant-free template of a shape with these alignment labels
    (``column.part_label``) can have: its symbol runs in order, each word as ``w``, a decimal's ``.``
    kept or taken into ``<num>`` (a word, ``.`` and a single-run digit word, which is what the label
    ``("w", "N")`` says). Templates spell symbol runs literally and turn a word into class tokens, so
    two shapes share a template only if they share an outline: a segment whose values' outlines differ
    (``-12`` and ``34``) is infeasible without listing templates. Labels suffice, so all the groups of
    a layout have its outlines, and a segment's layouts are told apart without visiting their groups."""
    out: set[tuple[str, ...]] = set()
    n = len(labels)

    def walk(i: int, acc: tuple[str, ...]) -> None:
        if i == n:
            out.add(acc)
            return
        kind, text = labels[i]
        walk(i + 1, acc + ((text,) if kind == "s" else ("w",)))
        if i + 2 < n and labels[i + 1] == ("s", ".") and labels[i + 2] == ("w", "N"):
            walk(i + 3, acc + ("w",))

    walk(0, ())
    return frozenset(out)


def share_outline(outline_sets: list[frozenset[tuple[str, ...]]]) -> bool:
    """Some outline is in every one of these sets (each a shape's :func:`label_outlines`): necessary for any
    shared template, constants included, as a constant is a word's text."""
    common: frozenset[tuple[str, ...]] | None = None
    for outlines in outline_sets:
        if common is None:
            common = outlines
        elif outlines is not common:
            common = common & outlines
            if not common:
                return False
    return True


def segment_hypotheses(key: frozenset, max_constants: int, budget: int,
                       viable: Container[str] | None = None) -> list[str]:
    """H of a segment given by :func:`segment_key`, at the finest reduction level within ``budget``
    (``viable``: see :func:`hypotheses`)."""
    entries = list(key)
    lengths = {len(sub) for sub, _, _ in entries}
    if len(lengths) == 1:
        n = lengths.pop()
        starts = [slot_starts(sub) for sub, _, _ in entries]

        def column(p: int, level: int) -> frozenset[Alternative] | None:
            parts = {(sub[p], common[st[p]:st[p] + _nslots(sub[p])], hexable[st[p]:st[p] + _nslots(sub[p])])
                     for (sub, common, hexable), st in zip(entries, starts, strict=True)}
            decimal = all(is_decimal_at(sub, p) for sub, _, _ in entries)
            return column_alternatives(list(parts), decimal, level)

        found = hypotheses(column, n, max_constants, budget, viable)
        if found is not None:
            return found
    # shortest shapes (fewest templates) first, stopping once nothing is shared: segments that mix
    # layouts are mostly infeasible (the solver drops those whose outlines disagree before asking, see
    # ``share_outline``), and listing every shape's templates would cost more than the query
    entries.sort(key=lambda e: (len(e[0]), repr(e[0])))
    free: set[str] | None = None
    for sub, _, _ in entries:
        templates = free_templates(sub, max_constants, budget)
        if free is None:
            free = set(templates)
        else:
            free.intersection_update(templates)
        if not free:
            break
    return sorted(free or ())


def hypotheses(column: Callable[[int, int], frozenset[Alternative] | None], n: int, max_constants: int,
               budget: int, viable: Container[str] | None = None) -> list[str] | None:
    """Every pattern of one alternative per column ``0..n-1`` (``column(p, level)``), at the finest
    level whose count fits ``budget``; None when the columns do not share one layout.

    ``viable``: if given, every index key and each of its :func:`~lakeindex.patterns.pattern.part_prefixes`
    (a solver that holds the whole index knows them): patterns are then built left to right and a
    prefix outside it is dropped with every pattern it would start, as no key starts with it. Only
    patterns that are not keys go, in the same order, so a caller keeping those in the index gets the
    same list; 85% of the 1.2 M hypotheses of a cold pass over the wide bench are in no key. The level
    is still chosen by the whole count, so the search space is the same."""
    for level in (0, 1, 2, 3, 4):
        per_pos = []
        for p in range(n):
            alts = column(p, level)
            if alts is None:
                return None
            per_pos.append(sorted(alts))
        nconst = max_constants if level <= 1 else 0
        if level == 4 or _count(per_pos, nconst) <= budget:
            return _expand(per_pos, nconst) if viable is None else _expand_viable(per_pos, nconst, viable)
    return None


def column_alternatives(parts: list[tuple[object, tuple, tuple]], decimal: bool,
                        level: int) -> frozenset[Alternative] | None:
    """The alternatives of one aligned position given its distinct parts (with the constants and hex
    flags all their values agree on): a shared symbol literally, or the words' common classes (None if
    symbols differ or mix with words)."""
    first = parts[0][0]
    if isinstance(first, str):
        if any(p != first for p, _, _ in parts):
            return None
        return frozenset({(escape_literal(first), 0, 1)})
    if any(isinstance(p, str) for p, _, _ in parts):
        return None
    inter: frozenset[Alternative] | None = None
    hex_word, hex_ok, lengths = False, True, set()
    for part, common, hexable in cast(list[tuple[tuple, tuple, tuple]], parts):  # words: symbols returned above
        alts = _alternatives(part, common, decimal, level)
        inter = alts if inter is None else inter & alts
        hex_word = hex_word or is_hex_word(part)
        hex_ok = hex_ok and all(hexable)
        lengths.add(sum(k for _, k in part))
    assert inter is not None
    if hex_word and hex_ok:
        extra = {(plus("hex"), 0, 1)}
        if len(lengths) == 1 and level <= 2:
            extra.add((fixed("hex", lengths.pop()), 0, 1))
        inter = inter | extra
    return inter


def _nslots(part: str | tuple) -> int:
    return 0 if isinstance(part, str) else len(part)


@lru_cache(maxsize=65536)
def _alternatives(part: tuple, common: tuple, decimal: bool, level: int) -> frozenset[Alternative]:
    """A part's alternatives, constants filled in where every value agrees on them (others dropped)."""
    alts: set[Alternative] = set()
    for text, rel, step in part_alternatives(part, decimal, level):
        if rel:
            consts = tuple(common[r] for r in rel)
            if None in consts:
                continue
            alts.add((text % consts, len(rel), step))
        else:
            alts.add((text % (), 0, step))
    return frozenset(alts)


def _count(per_pos: list[list[Alternative]], nconst: int) -> int:
    n = len(per_pos)
    ways = [[0] * (nconst + 1) for _ in range(n + 1)]
    ways[n][0] = 1
    for i in range(n - 1, -1, -1):
        for _, c, step in per_pos[i]:
            if i + step > n:
                continue
            for b in range(nconst + 1 - c):
                ways[i][b + c] += ways[i + step][b]
    return sum(ways[0])


def _expand(per_pos: list[list[Alternative]], nconst: int) -> list[str]:
    """Every pattern of one alternative per part, with at most ``nconst`` constant slots."""
    n = len(per_pos)
    memo: dict[tuple[int, int], list[str]] = {}

    def suffix(i: int, budget: int) -> list[str]:
        if i == n:
            return [""]
        hit = memo.get((i, budget))
        if hit is None:
            hit = []
            for text, c, step in per_pos[i]:
                if c <= budget and i + step <= n:
                    hit.extend(text + rest for rest in suffix(i + step, budget - c))
            memo[(i, budget)] = hit
        return hit

    return list(dict.fromkeys(suffix(0, nconst)))


def _expand_viable(per_pos: list[list[Alternative]], nconst: int, viable: Container[str]) -> list[str]:
    """:func:`_expand` less the patterns that start with a prefix outside ``viable`` (see
    :func:`hypotheses`), in the same order: depth first, alternatives in their order. A prefix is
    tested where a word column meets a symbol column, as the part prefixes of keys end there; two
    adjacent symbol columns (a gap in the alignment) are passed through untested."""
    words = [bool(alts) and alts[0][0][:1] in WORD_START for alts in per_pos]
    tested = [False] + [words[j - 1] != words[j] for j in range(1, len(per_pos))] + [True]
    out: list[str] = []
    _walk(per_pos, tested, 0, nconst, "", viable, out)
    return list(dict.fromkeys(out))


def _walk(per_pos: list[list[Alternative]], tested: list[bool], i: int, budget: int, prefix: str,
          viable: Container[str], out: list[str]) -> None:
    """Extend ``prefix`` (the alternatives of parts before ``i``) by each alternative of part ``i`` that
    keeps it viable, depth first (``tested``: per part, whether a prefix ending before it is tested)."""
    n = len(per_pos)
    for text, c, step in per_pos[i]:
        if c <= budget and i + step <= n:
            p = prefix + text
            if tested[i + step] and p not in viable:
                continue
            if i + step == n:
                out.append(p)
            else:
                _walk(per_pos, tested, i + step, budget - c, p, viable, out)


register("fmdv.hypotheses.label_outlines", label_outlines.cache_clear)
register("fmdv.hypotheses.alternatives", _alternatives.cache_clear)
