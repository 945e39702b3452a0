"""Vertical cuts (FMDV-V, paper §3): align the values' token sequences, then segment by DP.

Alignment works on parts (words and symbol runs) labelled coarsely, a word as N (digits),
L (letters) or A (mixed) and a symbol run by its text. This is the paper's <num>/<letter>/<symbol>
lexing. Distinct label sequences are aligned greedily, heaviest first, against a growing profile
with Needleman-Wunsch (progressive multiple-sequence alignment; optimal for the common case where
all values share one sequence). Words may align with words of another class; symbols only with
the same symbol.

Segmentation minimises the sum of segment FPRs (Eq. 8) subject to sum <= r (Eq. 9) and each
segment's coverage >= m (Eq. 10); delimiter-only segments are literal (see ``search``). Eq. 11's
recursion over two-way splits reaches the same optimum as this prefix DP:
best[e] = min over s of best[s] + minFPR(C[s,e]). Segments span at most tau tokens. Ties go to
fewer segments, then to more specific patterns.
"""

from __future__ import annotations

from bisect import bisect_left
from dataclasses import dataclass

from lakeindex.fmdv.column import Group
from lakeindex.fmdv.search import Candidate, SegmentSolver
from lakeindex.patterns.pattern import generality

_GAP = -1.0
_NEG = float("-inf")
# Machine-generated columns have a handful of token sequences (URLs of a few path depths); free
# text has hundreds. Aligning them all costs O(k * n^2) and finds no pattern, so V gives up.
MAX_SEQUENCES = 24


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


def align(groups: list[Group]) -> tuple[int, dict[int, list[int]]]:
    """Align groups' parts; return the number of aligned columns and, per group, each part's column."""
    seqs: dict[tuple, int] = {}
    for g in groups:
        seqs[g.labels] = seqs.get(g.labels, 0) + g.weight
    order = sorted(seqs, key=lambda s: (-seqs[s], s))
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
    per_group = {id(g): [position[c] for c in mapping[g.labels]] for g in groups}
    return len(ids), per_group


@dataclass
class Segmentation:
    """FMDV-V result: chosen segments (aligned column ranges) and their patterns."""

    segments: list[tuple[int, int, Candidate]]

    @property
    def fpr(self) -> float:
        return sum(c.fpr for _, _, c in self.segments)

    @property
    def pattern(self) -> str:
        return "".join(c.pattern for _, _, c in self.segments)


def segment(groups: list[Group], solver: SegmentSolver, r: float, m: int,
            max_span: int | None = None) -> Segmentation | None:
    """Solve FMDV-V over conforming groups (None when no segmentation is feasible)."""
    if len({g.labels for g in groups}) > MAX_SEQUENCES:
        return None
    ncols, cols = align(groups)
    max_span = max_span or solver.limits.tau

    positions = [(g, cols[id(g)]) for g in groups]

    def parts_in(s: int, e: int) -> list[tuple[Group, int, int]]:
        return [(g, bisect_left(pos, s), bisect_left(pos, e)) for g, pos in positions]

    inf = (float("inf"), 0, 0)
    best: list[tuple[float, int, int]] = [inf] * (ncols + 1)
    choice: list[tuple[int, Candidate] | None] = [None] * (ncols + 1)
    best[0] = (0.0, 0, 0)
    for e in range(1, ncols + 1):
        for s in range(max(0, e - max_span), e):
            if best[s] == inf:
                continue
            c = solver.solve(parts_in(s, e), r, m)
            if c is None:
                continue
            total = (best[s][0] + c.fpr, best[s][1] + 1, best[s][2] + generality(c.pattern))
            if total[0] <= r and total < best[e]:
                best[e], choice[e] = total, (s, c)
    if best[ncols] == inf:
        return None
    segs = []
    e = ncols
    while e > 0:
        s, c = choice[e]
        segs.append((s, e, c))
        e = s
    return Segmentation(segs[::-1])
