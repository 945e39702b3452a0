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

from lakeindex.fmdv.column import Group
from lakeindex.patterns.hierarchy import fixed, plus
from lakeindex.patterns.pattern import escape_literal
from lakeindex.patterns.templates import is_decimal_at, part_alternatives, shape_templates
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
        out.add((g.shape[i:j], tuple(g.common[a:b]), tuple(g.hexable[a:b])))
    return frozenset(out)


def segment_hypotheses(key: frozenset, max_constants: int, budget: int) -> list[str]:
    """H of a segment given by :func:`segment_key`, at the finest reduction level within ``budget``."""
    entries = list(key)
    lengths = {len(sub) for sub, _, _ in entries}
    if len(lengths) == 1:
        n = lengths.pop()
        for level in (0, 1, 2, 3, 4):
            per_pos = _per_position(entries, n, level)
            if per_pos is None:
                break
            nconst = max_constants if level <= 1 else 0
            if level == 4 or _count(per_pos, nconst) <= budget:
                return _expand(per_pos, nconst)
    free: set[str] | None = None
    for sub, _, _ in entries:
        f = set(shape_templates(sub, max_constants, budget)[0])
        free = f if free is None else free & f
    return sorted(free or ())


def _per_position(entries: list[tuple], n: int, level: int) -> list[list[Alternative]] | None:
    """Per part: the alternatives every entry offers (None if the entries' layouts differ)."""
    out: list[list[Alternative]] = []
    starts = [_slot_starts(sub) for sub, _, _ in entries]
    for p in range(n):
        first = entries[0][0][p]
        if isinstance(first, str):
            if any(sub[p] != first for sub, _, _ in entries):
                return None
            out.append([(escape_literal(first), 0, 1)])
            continue
        if any(isinstance(sub[p], str) for sub, _, _ in entries):
            return None
        decimal = all(is_decimal_at(sub, p) for sub, _, _ in entries)
        inter: set[Alternative] | None = None
        hex_word, hex_ok, lengths = False, True, set()
        for (sub, common, hexable), st in zip(entries, starts, strict=True):
            part = sub[p]
            s0 = st[p]
            alts: set[Alternative] = set()
            for text, rel, step in part_alternatives(part, decimal, level):
                if rel:
                    consts = tuple(common[s0 + r] for r in rel)
                    if None in consts:
                        continue
                    alts.add((text % consts, len(rel), step))
                else:
                    alts.add((text % (), 0, step))
            inter = alts if inter is None else inter & alts
            hex_word = hex_word or is_hex_word(part)
            hex_ok = hex_ok and all(hexable[s0:s0 + len(part)])
            lengths.add(sum(k for _, k in part))
        assert inter is not None
        if hex_word and hex_ok:
            if len(lengths) == 1 and level <= 2:
                inter.add((fixed("hex", lengths.pop()), 0, 1))
            inter.add((plus("hex"), 0, 1))
        out.append(sorted(inter))
    return out


def _slot_starts(sub: tuple) -> list[int]:
    starts, slot = [], 0
    for part in sub:
        starts.append(slot)
        slot += 0 if isinstance(part, str) else len(part)
    return starts


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
