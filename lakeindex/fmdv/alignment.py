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

from bisect import bisect_left
from dataclasses import dataclass, field

import numpy as np

from lakeindex.fmdv.column import Group
from lakeindex.fmdv.hypotheses import Alternative, column_alternatives

_GAP = -1.0
_NEG = float("-inf")


def _score(a: tuple[str, str], b: tuple[str, str]) -> float:
    if a == b:
        return 2.0
    if a[0] == "w" and b[0] == "w":
        return 0.5
    return _NEG


def _align(profile: list[tuple[str, str]], seq: tuple) -> list[tuple[int | None, int | None]]:
    """Needleman-Wunsch alignment: pairs (profile index or None, seq index or None)."""
    n, k = len(profile), len(seq)
    dp = [[_NEG] * (k + 1) for _ in range(n + 1)]
    back = [[0] * (k + 1) for _ in range(n + 1)]
    dp[0][0] = 0.0
    for i in range(n + 1):
        for j in range(k + 1):
            if i == 0 and j == 0:
                continue
            best, move = _NEG, 0
            if i and j:
                s = _score(profile[i - 1], seq[j - 1])
                if s != _NEG and dp[i - 1][j - 1] + s > best:
                    best, move = dp[i - 1][j - 1] + s, 1
            if i and dp[i - 1][j] + _GAP > best:
                best, move = dp[i - 1][j] + _GAP, 2
            if j and dp[i][j - 1] + _GAP > best:
                best, move = dp[i][j - 1] + _GAP, 3
            dp[i][j], back[i][j] = best, move
    pairs = []
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


def align_layouts(weights: dict[tuple, int]) -> tuple[int, dict[tuple, list[int]]]:
    """Align label sequences (with their weights); return the number of aligned columns and, per
    sequence, each part's column."""
    order = sorted(weights, key=lambda s: (-weights[s], s))
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
                cols[sj] = next_id
                next_id += 1
            else:
                new_profile.append(profile[pi])
                new_ids.append(ids[pi])
                if sj is not None:
                    cols[sj] = ids[pi]
        profile, ids = new_profile, new_ids
        mapping[seq] = cols
    position = {cid: pos for pos, cid in enumerate(ids)}
    return len(ids), {seq: [position[c] for c in cols] for seq, cols in mapping.items()}


@dataclass
class Layout:
    """The groups (distinct shapes) of one label sequence, and where its parts sit."""

    labels: tuple
    groups: list[Group]
    cols: list[int] = field(default_factory=list)  # aligned column of each part
    weight: int = 0
    tokens: np.ndarray | None = None  # per group, tokens before each part (groups x parts + 1)

    def widest(self, i: int, j: int) -> int:
        """The most tokens any value of the layout has in parts i..j-1."""
        assert self.tokens is not None
        return int((self.tokens[:, j] - self.tokens[:, i]).max())


class Alignment:
    """Groups aligned into columns, with per-column and per-layout facts for segments."""

    def __init__(self, groups: list[Group]) -> None:
        by: dict[tuple, list[Group]] = {}
        for g in groups:
            by.setdefault(g.labels, []).append(g)
        self.ncols, cols = align_layouts({k: sum(g.weight for g in gs) for k, gs in by.items()})
        self.layouts = []
        for labels, gs in sorted(by.items(), key=lambda kv: (-sum(g.weight for g in kv[1]), kv[0])):
            lay = Layout(labels, gs, cols[labels], sum(g.weight for g in gs),
                         np.array([g.tok_prefix for g in gs], dtype=np.int64))
            self.layouts.append(lay)
        self._columns: dict[tuple[int, int], frozenset[Alternative] | None] = {}
        self._signatures: dict[int, tuple[frozenset, bool]] = {}

    def ranges(self, s: int, e: int) -> list[tuple[Layout, int, int]]:
        """Per layout, the range of its parts inside aligned columns [s, e) (empty when it has none)."""
        return [(lay, bisect_left(lay.cols, s), bisect_left(lay.cols, e)) for lay in self.layouts]

    def signature(self, c: int) -> tuple[frozenset, bool]:
        """What column ``c``'s alternatives depend on: its distinct parts, each with the constants and
        hex flags all its values agree on, and whether every value starts a decimal number there."""
        hit = self._signatures.get(c)
        if hit is not None:
            return hit
        parts: dict[object, tuple[list, list]] = {}
        decimal = True
        for lay in self.layouts:
            pi = bisect_left(lay.cols, c)
            if pi == len(lay.cols) or lay.cols[pi] != c:
                continue
            decimal = decimal and _decimal_at(lay, pi)
            for g in lay.groups:
                part = g.shape[pi]
                s0 = g.slot_start[pi]
                n = 0 if isinstance(part, str) else len(part)
                common, hexable = g.common[s0:s0 + n], g.hexable[s0:s0 + n]
                seen = parts.get(part)
                if seen is None:
                    parts[part] = (list(common), list(hexable))
                else:
                    seen[0][:] = [a if a == b else None for a, b in zip(seen[0], common, strict=True)]
                    seen[1][:] = [a and b for a, b in zip(seen[1], hexable, strict=True)]
        sig = (frozenset((part, tuple(cm), tuple(hx)) for part, (cm, hx) in parts.items()), decimal)
        self._signatures[c] = sig
        return sig

    def is_symbol(self, c: int) -> bool:
        """Column ``c`` holds one symbol run in every value that has it."""
        parts = self.signature(c)[0]
        return len(parts) == 1 and isinstance(next(iter(parts))[0], str)

    def column(self, c: int, level: int) -> frozenset[Alternative] | None:
        """The alternatives every value with a part in column ``c`` offers there (None: symbols that
        differ, which alignment never produces)."""
        key = (c, level)
        if key not in self._columns:
            parts, decimal = self.signature(c)
            self._columns[key] = column_alternatives(sorted(parts, key=repr), decimal, level)
        return self._columns[key]


def _decimal_at(lay: Layout, pi: int) -> bool:
    """The layout has a digit word, ``.`` and a digit word from part ``pi``, in adjacent columns."""
    lab, cols = lay.labels, lay.cols
    return (pi + 2 < len(lab) and lab[pi] == ("w", "N") and lab[pi + 1] == ("s", ".") and lab[pi + 2] == ("w", "N")
            and cols[pi + 2] == cols[pi] + 2)
