"""A query column's values aligned part by part (paper §3), with what segments need per aligned column.

Alignment works on parts (words and symbol runs) labelled coarsely, a word as N (digits),
L (letters) or A (mixed) and a symbol run by its text. This is the paper's <num>/<letter>/<symbol>
lexing. Distinct label sequences (*layouts*) are aligned greedily, heaviest first, against a growing
profile with Needleman-Wunsch (progressive multiple-sequence alignment; optimal for the common case
where all values share one sequence). Words may align with words of another class; symbols only
with the same symbol.

Everything a segment [s, e) of aligned columns needs is computed once per column or per layout,
not per value shape: which layouts have parts there, their widest token count (vectorized over the
layout's shapes), and per column the alternatives every value offers (:mod:`lakeindex.fmdv.hypotheses`).
A column of UUIDs has a thousand distinct shapes (runs of hex words) but one layout and nine
columns, so a segment costs a few set operations instead of a thousand.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import cast

import numpy as np

from lakeindex.caches import ClearWhenFull, WeightedLRU
from lakeindex.fmdv.column import Group
from lakeindex.fmdv.hypotheses import Alternative, column_alternatives, label_outlines

Pairs = list[tuple[int | None, int | None]]  # an alignment: (profile position, sequence position), None a gap


def _align(profile: list[tuple[str, str]], seq: tuple) -> Pairs:
    """Needleman-Wunsch alignment: pairs (profile index or None, seq index or None).

    Scores: equal labels 2, two words of other classes 0.5, a gap -1; a word never pairs with a
    symbol, nor two different symbols. Ties prefer a pair, then a gap in ``seq``, then one in
    ``profile``. Row by row, with the word flags of ``seq`` computed once: this runs in every fit whose
    alignment is not cached.

    Two sequences of one length that pair position by position are aligned so without the table
    where that scores above 2n - 4 (at most two words of other classes: a GUID field's layouts differ
    by a word or two that is all digits or all letters, 2,352 of 7,713 alignments of 200 cold wide
    fits). That is the table's answer: any alignment with a gap has as many in each sequence, so at
    most n - 1 pairs and two gaps, at most 2(n - 1) - 2 = 2n - 4. The optimum being unique, the
    traceback can only follow it. Likewise where one sequence has one part more (``_one_gap``: 136
    of the 287 tables of the slowest cold fit).
    """
    if len(profile) == len(seq):
        total = 0.0
        for a, b in zip(profile, seq, strict=True):
            sc = _pair_score(a, b)
            if sc is None:
                break
            total += sc
        else:
            if total > 2 * len(seq) - 4:
                return [(i, i) for i in range(len(seq))]
    elif abs(len(profile) - len(seq)) == 1:
        pairs = _one_gap(profile, seq)
        if pairs is not None:
            return pairs
    return _table(profile, seq)


def _pair_score(a: tuple[str, str], b: tuple[str, str]) -> float | None:
    """What pairing two parts scores in :func:`_align` (None: they may not pair)."""
    if a == b:
        return 2.0
    return 0.5 if a[0] == "w" and b[0] == "w" else None


def _one_gap(profile: list[tuple[str, str]], seq: tuple) -> Pairs | None:
    """:func:`_align` of sequences of m + 1 and m parts where one alignment with m pairs (a gap at one
    place of the longer) is the unique optimum, told in O(m); None where that is not certain. Such an
    alignment scores its pairs less 1; any other has at most m - 1 pairs and three gaps, at most
    2(m - 1) - 3 = 2m - 5. So the best of the m + 1 places wins if it beats 2m - 5 and no other
    place ties with it."""
    longer = len(profile) > len(seq)
    a, b = (profile, seq) if longer else (seq, profile)
    m = len(b)
    pre = [0.0]  # pre[t]: a[:t] paired with b[:t], while that is possible
    for i in range(m):
        sc = _pair_score(a[i], b[i])
        if sc is None:
            break
        pre.append(pre[-1] + sc)
    suf = [0.0] * (m + 1)  # suf[t]: a[t + 1:] paired with b[t:], for t >= first
    first = m
    for i in range(m - 1, -1, -1):
        sc = _pair_score(a[i + 1], b[i])
        if sc is None:
            break
        suf[i] = suf[i + 1] + sc
        first = i
    best, at, ties = -float("inf"), -1, 0
    for t in range(first, len(pre)):
        total = pre[t] + suf[t] - 1.0
        if total > best:
            best, at, ties = total, t, 0
        elif total == best:
            ties += 1
    if at < 0 or ties or best <= 2 * m - 5:
        return None
    if longer:
        return cast(Pairs, [(i, i) for i in range(at)] + [(at, None)] + [(i + 1, i) for i in range(at, m)])
    return cast(Pairs, [(i, i) for i in range(at)] + [(None, at)] + [(i, i + 1) for i in range(at, m)])


def _table(profile: list[tuple[str, str]], seq: tuple) -> Pairs:
    """:func:`_align` by the full Needleman-Wunsch table."""
    n, k = len(profile), len(seq)
    words = [b[0] == "w" for b in seq]
    prev = [float(-j) for j in range(k + 1)]
    back = [[3] * (k + 1)]
    for i in range(1, n + 1):
        a = profile[i - 1]
        word = a[0] == "w"
        left = prev[0] - 1.0
        cur = [left]
        brow = [2]
        for j in range(1, k + 1):
            b = seq[j - 1]
            up = prev[j] - 1.0
            if a == b or (word and words[j - 1]):
                best, move = prev[j - 1] + (2.0 if a == b else 0.5), 1
                if up > best:
                    best, move = up, 2
            else:
                best, move = up, 2
            if left - 1.0 > best:
                best, move = left - 1.0, 3
            cur.append(best)
            brow.append(move)
            left = best
        back.append(brow)
        prev = cur
    pairs: Pairs = []
    i, j = n, k
    while i or j:
        move = back[i][j]
        if move == 1:
            pairs.append((i - 1, j - 1))
            i, j = i - 1, j - 1
        elif move == 2:
            pairs.append((i - 1, None))
            i -= 1
        else:
            pairs.append((None, j - 1))
            j -= 1
    return pairs[::-1]


# column signatures interned: the solver's segment keys are tuples of them, so a lookup that finds its
# key compares them by identity instead of element by element. Emptied once they hold 100,000 parts
# (about 30 MB), several times what a pass over the wide bench interns (docs/design/performance-notes.md)
_SIGNATURES = ClearWhenFull(100_000, "fmdv.alignment.signatures")  # signature -> itself; weighed in parts

# label sequences (in alignment order) -> their alignment: the coarse labels of a domain's values recur
# across queries, so a fit of a known structure skips Needleman-Wunsch; bounded by labels held
_ALIGNMENTS = WeightedLRU(1_000_000, "fmdv.alignment.alignments")


def align_layouts(weights: dict[tuple, int]) -> tuple[int, dict[tuple, list[int]]]:
    """Align label sequences (with their weights); return the number of aligned columns and, per
    sequence, each part's column. The result depends only on the sequences in weight order."""
    order = tuple(sorted(weights, key=lambda s: (-weights[s], s)))
    hit = _ALIGNMENTS.get(order)
    if hit is None:
        hit = _align_in_order(order)
        _ALIGNMENTS.put(order, hit, sum(len(s) for s in order))
    ncols, cols = hit
    return ncols, {seq: list(c) for seq, c in cols.items()}


def _align_in_order(order: tuple) -> tuple[int, dict[tuple, tuple[int, ...]]]:
    """Progressive alignment of the sequences, heaviest first, against a growing profile."""
    profile: list[tuple[str, str]] = list(order[0])
    ids: list[int] = list(range(len(profile)))  # stable column ids in profile order
    next_id = len(ids)
    mapping: dict[tuple, list[int]] = {order[0]: list(ids)}
    for seq in order[1:]:
        cols: list[int] = [0] * len(seq)
        new_profile, new_ids = [], []
        for pi, sj in _align(profile, seq):
            if pi is None:
                new_profile.append(seq[sj])
                new_ids.append(next_id)
                cols[cast(int, sj)] = next_id  # a profile gap pairs with a part of seq
                next_id += 1
            else:
                new_profile.append(profile[pi])
                new_ids.append(ids[pi])
                if sj is not None:
                    cols[sj] = ids[pi]
        profile, ids = new_profile, new_ids
        mapping[seq] = cols
    position = {cid: pos for pos, cid in enumerate(ids)}
    return len(ids), {seq: tuple(position[c] for c in cols) for seq, cols in mapping.items()}


_FEW_GROUPS = 16  # up to this many groups, a layout's widest range is a Python max (numpy's call costs more)


@dataclass
class Layout:
    """The groups (distinct shapes) of one label sequence, and where its parts sit."""

    labels: tuple
    groups: list[Group]
    cols: list[int] = field(default_factory=list)  # aligned column of each part
    weight: int = 0
    _tokens: np.ndarray | None = None  # per group, tokens before each part (groups x parts + 1)
    _widest: dict[tuple[int, int], int] = field(default_factory=dict)
    _bound: list[int] | None = None
    # per aligned column c, the index of the layout's first part in a column >= c (``bisect_left`` of
    # ``cols``; one more entry: the number of parts), filled with the alignment's spans
    at: list[int] = field(default_factory=list)
    _outlines: dict[tuple[int, int], frozenset] = field(default_factory=dict)

    def outlines(self, i: int, j: int) -> frozenset:
        """The outlines of parts i..j-1 (``hypotheses.label_outlines``), remembered per range."""
        hit = self._outlines.get((i, j))
        if hit is None:
            hit = self._outlines[(i, j)] = label_outlines(self.labels[i:j])
        return hit

    def bound(self) -> list[int]:
        """Per part, the sum of the widest token counts of the parts before it (one more entry: all
        of them): parts i..j-1 hold at most ``bound[j] - bound[i]`` tokens in every value."""
        if self._bound is None:
            groups = self.groups
            if len(groups) == 1:  # its own token counts (a third of the layouts of wide part columns)
                self._bound = list(groups[0].tok_prefix)
            else:  # per part, the widest group: column maxima of the prefix sums' differences
                rows = [g.tok_prefix for g in groups]
                acc, bound = 0, [0]
                for k in range(len(self.labels)):
                    acc += max([row[k + 1] - row[k] for row in rows])
                    bound.append(acc)
                self._bound = bound
        return self._bound

    def within(self, i: int, j: int, tau: int) -> bool:
        """Parts i..j-1 hold at most ``tau`` tokens in every value, told without :meth:`widest` when
        the sum of each part's widest is within tau (most segments of a DP)."""
        bound = self.bound()
        return bound[j] - bound[i] <= tau or self.widest(i, j) <= tau

    def widest(self, i: int, j: int) -> int:
        """The most tokens any value of the layout has in parts i..j-1: in Python over a few groups,
        vectorized over many (a UUID layout has hundreds); remembered, as segments share ranges."""
        hit = self._widest.get((i, j))
        if hit is None:
            if len(self.groups) <= _FEW_GROUPS:
                hit = max(g.tok_prefix[j] - g.tok_prefix[i] for g in self.groups)
            else:
                if self._tokens is None:
                    self._tokens = np.array([g.tok_prefix for g in self.groups], dtype=np.int64)
                hit = int((self._tokens[:, j] - self._tokens[:, i]).max())
            self._widest[(i, j)] = hit
        return hit


class Alignment:
    """Groups aligned into columns, with per-column and per-layout facts for segments."""

    def __init__(self, groups: list[Group]) -> None:
        by: dict[tuple, list[Group]] = {}
        for g in groups:
            by.setdefault(g.labels, []).append(g)
        self.ncols, cols = align_layouts({k: sum(g.weight for g in gs) for k, gs in by.items()})
        self.layouts = []
        for labels, gs in sorted(by.items(), key=lambda kv: (-sum(g.weight for g in kv[1]), kv[0])):
            self.layouts.append(Layout(labels, gs, cols[labels], sum(g.weight for g in gs)))
        self._columns: dict[tuple[int, int], frozenset[Alternative] | None] = {}
        # per column, filled on first use (a DP slices them per segment)
        self._signatures: list[tuple[frozenset, bool] | None] = [None] * self.ncols
        self._symbols: list[bool] = [False] * self.ncols
        # per (s, e, r, m): the segment's candidates, the layouts that lack it, its uncapped choice and
        # the cap that choice holds from, as the solver found them (``SegmentSolver._solved``): a part
        # solved within several caps runs its DP again
        self.solved: dict[tuple, tuple] = {}
        self._masks: list[int] | None = None  # see ``span``
        self._sig_bytes: dict[int, int] = {}  # see ``segment_bytes``

    def _spans(self) -> list[int]:
        """Per column, the layouts with a part there (bit k for ``layouts[k]``) and the widest such part
        (``span``, ``narrow_enough``)."""
        masks, widest = [0] * self.ncols, [0] * self.ncols
        for k, lay in enumerate(self.layouts):
            bound = lay.bound()
            at, pi = [], 0
            for c in range(self.ncols + 1):  # lay.at: a bisect of its columns, as a table
                while pi < len(lay.cols) and lay.cols[pi] < c:
                    pi += 1
                at.append(pi)
            lay.at = at
            for pi, c in enumerate(lay.cols):
                masks[c] |= 1 << k
                widest[c] = max(widest[c], bound[pi + 1] - bound[pi])
        self._tokens = [0]
        for w in widest:
            self._tokens.append(self._tokens[-1] + w)
        self._all = (1 << len(self.layouts)) - 1
        self._lacking: dict[int, frozenset | None] = {self._all: None}
        self._masks = masks
        return masks

    def span(self, s: int, e: int) -> tuple[int, int, frozenset | None]:
        """Columns [s, e) as a DP meets them: the layouts with a part in them (bits, see ``_spans``), those
        with a part in every one of them, and the layouts without any (ids; None: there are none). Told
        from bits per column rather than by bisecting every layout's columns: a DP asks for every
        segment of up to tau columns, and a GUID field's alignment has a dozen layouts."""
        masks = self._spans() if self._masks is None else self._masks
        some = every = masks[s]
        for c in range(s + 1, e):
            some |= masks[c]
            every &= masks[c]
        lacking = self._lacking.get(some)
        if lacking is None and some != self._all:
            lacking = self._lacking[some] = frozenset(id(lay) for k, lay in enumerate(self.layouts)
                                                      if not some >> k & 1)
        return some, every, lacking

    def present(self, some: int, s: int, e: int) -> list[tuple[Layout, int, int]]:
        """Per layout in ``some`` (bits, from :meth:`span`), the range of its parts inside columns [s, e)."""
        if self._masks is None:
            self._spans()
        return [(lay, lay.at[s], lay.at[e]) for k, lay in enumerate(self.layouts) if some >> k & 1]

    def share_outline(self, present: list[tuple[Layout, int, int]]) -> bool:
        """The layouts' part ranges (from :meth:`present`) have an outline in common, as any template
        they share needs (``hypotheses.share_outline``), from each layout's remembered outlines. The same
        intersection, but lazy: most such segments fail at their second layout, so listing every
        layout's outlines first would be mostly wasted."""
        common: frozenset | None = None
        for lay, i, j in present:
            outlines = lay.outlines(i, j)
            if common is None:
                common = outlines
            elif outlines is not common:
                common = common & outlines
                if not common:
                    return False
        return True

    def narrow_enough(self, s: int, e: int, tau: int) -> bool:
        """Every value holds at most ``tau`` tokens in columns [s, e), told from the widest part of each
        column (a bound: a sufficient test)."""
        if self._masks is None:
            self._spans()
        return self._tokens[e] - self._tokens[s] <= tau

    def signature(self, c: int) -> tuple[frozenset, bool]:
        """What column ``c``'s alternatives depend on: its distinct parts, each with the constants and
        hex flags all its values agree on, and whether every value starts a decimal number there."""
        hit = self._signatures[c]
        if hit is not None:
            return hit
        slices: dict[object, list[tuple[tuple, tuple]]] = {}
        decimal = True
        mask = (self._spans() if self._masks is None else self._masks)[c]
        for k, lay in enumerate(self.layouts):
            if not mask >> k & 1:
                continue
            pi = lay.at[c]
            decimal = decimal and _decimal_at(lay, pi)
            for g in lay.groups:
                part = g.shape[pi]
                s0 = g.slot_start[pi]
                s1 = s0 + (0 if isinstance(part, str) else len(part))
                slices.setdefault(part, []).append((g.common[s0:s1], g.hexable[s0:s1]))
        parts = frozenset((part, *_agreed(sl)) for part, sl in slices.items())
        sig = (parts, decimal)
        held = _SIGNATURES.data.get(sig)
        if held is None:
            _SIGNATURES.put(sig, sig, len(parts))
            held = sig
        self._signatures[c] = sig = held
        self._symbols[c] = len(parts) == 1 and isinstance(next(iter(parts))[0], str)
        return sig

    def segment(self, s: int, e: int) -> tuple[tuple[tuple[frozenset, bool], ...], bool]:
        """The :meth:`signature` of columns s..e-1, and whether every one of them :meth:`is_symbol`: a DP
        asks for every segment of up to tau columns, and slices cost less than e - s calls."""
        sigs = self._signatures[s:e]
        if None in sigs:
            for c in range(s, e):
                self.signature(c)
            sigs = self._signatures[s:e]
        return tuple(cast(list[tuple[frozenset, bool]], sigs)), all(self._symbols[s:e])

    def segment_bytes(self, s: int, e: int) -> int:
        """About the bytes :meth:`segment`'s signatures hold, as ``repr`` would write them out, each
        column's counted once per alignment: a cold fit caches thousands of segment keys, too many to write
        each out whole."""
        sizes = self._sig_bytes
        total = 0
        for c in range(s, e):
            size = sizes.get(c)
            if size is None:
                size = sizes[c] = len(repr(self.signature(c))) + 2
            total += size
        return total

    def is_symbol(self, c: int) -> bool:
        """Column ``c`` holds one symbol run in every value that has it."""
        self.signature(c)
        return self._symbols[c]

    def column(self, c: int, level: int) -> frozenset[Alternative] | None:
        """The alternatives every value with a part in column ``c`` offers there (None: symbols that
        differ, which alignment never produces)."""
        key = (c, level)
        if key not in self._columns:
            parts, decimal = self.signature(c)
            self._columns[key] = column_alternatives(sorted(parts, key=repr), decimal, level)
        return self._columns[key]


def _agreed(slices: list[tuple[tuple, tuple]]) -> tuple[tuple, tuple]:
    """Over the groups holding one part: per slot, the constant all of them share (else None), and
    whether all of them are hex digits there."""
    if len(slices) == 1:
        return slices[0]
    # over the distinct slices only (a UUID layout has hundreds of groups and a few distinct flags)
    commons = {cm for cm, _ in slices}
    hexes = {hx for _, hx in slices}
    if len(commons) == 1:
        agreed = next(iter(commons))
    else:
        agreed = tuple(col[0] if col.count(col[0]) == len(col) else None for col in zip(*commons, strict=True))
    return agreed, next(iter(hexes)) if len(hexes) == 1 else tuple(all(col) for col in zip(*hexes, strict=True))


def _decimal_at(lay: Layout, pi: int) -> bool:
    """The layout has a digit word, ``.`` and a digit word from part ``pi``, in adjacent columns."""
    lab, cols = lay.labels, lay.cols
    return (pi + 2 < len(lab) and lab[pi] == ("w", "N") and lab[pi + 1] == ("s", ".") and lab[pi + 2] == ("w", "N")
            and cols[pi + 2] == cols[pi] + 2)
