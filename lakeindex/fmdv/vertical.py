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

Beyond the paper, gaps in the alignment are allowed: a segment that some values lack is solved over
the values that have it and becomes optional (``<opt>...</opt>``). This covers one domain written
with and without a part, which neither cut can: signed numbers (``-12`` among ``34``), enums of one
and two words (``web``, ``mobile_app``), e-mail local parts with and without a dot. Horizontal cuts
can remove at most theta of the values, and these minorities are often a third or a half. The
paper's pessimistic sum of segment FPRs (Eq. 8) still bounds the rule, and a rule keeps at least
one indexed segment that every value has and at most one optional block, so a mixture of
unrelated structures or free text of varying length stays infeasible.
"""

from __future__ import annotations

from bisect import bisect_left
from dataclasses import dataclass

from lakeindex.fmdv.column import Group
from lakeindex.fmdv.search import Candidate, SegmentSolver
from lakeindex.patterns.pattern import OPT_CLOSE, OPT_OPEN, generality

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
    """Solve FMDV-V over conforming groups (None when no segmentation is feasible).

    A segment that some values lack (their alignment has a gap there) is *optional*: its pattern is
    solved over the values that have it, and adjacent optional segments lacked by the same values
    form one ``<opt>...</opt>`` block, such as the sign of ``-12`` among ``34`` or the second word
    of ``mobile_app`` among ``web``. A rule has at most one block and at least one indexed segment
    that every value has: values that vary in several places (free text of varying length) or
    that share nothing are not one structure.
    """
    if len({g.labels for g in groups}) > MAX_SEQUENCES:
        return None
    ncols, cols = align(groups)
    max_span = max_span or solver.limits.tau

    positions = [(g, cols[id(g)]) for g in groups]

    def parts_in(s: int, e: int) -> list[tuple[Group, int, int]]:
        return [(g, bisect_left(pos, s), bisect_left(pos, e)) for g, pos in positions]

    # DP over aligned columns. State: (has a mandatory indexed segment, block phase, block's absent
    # set): phase 0 before any optional segment, 1 inside the block, 2 after it.
    Score = tuple[float, int, int]
    best: list[dict[tuple, tuple[Score, tuple | None]]] = [{} for _ in range(ncols + 1)]
    best[0][(False, 0, None)] = ((0.0, 0, 0), None)
    for e in range(1, ncols + 1):
        here = best[e]
        for s in range(max(0, e - max_span), e):
            if not best[s]:
                continue
            parts = parts_in(s, e)
            present = [p for p in parts if p[1] < p[2]]
            absent = None if len(present) == len(parts) else frozenset(id(g) for g, i, j in parts if i >= j)
            c = solver.solve(present, r, m)
            if c is None:
                continue
            for state, (score, _) in best[s].items():
                mand, phase, block = state
                if absent is None:
                    nxt = (mand or not c.literal, 2 if phase else 0, None)
                elif phase == 0 or (phase == 1 and block == absent):
                    nxt = (mand, 1, absent)
                else:
                    continue  # a second optional block
                total = (score[0] + c.fpr, score[1] + 1, score[2] + generality(c.pattern))
                if total[0] <= r and (nxt not in here or total < here[nxt][0]):
                    here[nxt] = (total, (s, state, c, absent))
    finals = [(v[0], st) for st, v in best[ncols].items() if st[0]]
    if not finals:
        return None
    state = min(finals, key=lambda f: f[0])[1]
    segs: list[tuple[int, int, Candidate, frozenset | None]] = []
    e = ncols
    while e > 0:
        s, prev, c, absent = best[e][state][1]
        segs.append((s, e, c, absent))
        e, state = s, prev
    return Segmentation(_blocks(segs[::-1]))


def _blocks(segs: list[tuple[int, int, Candidate, frozenset | None]]) -> list[tuple[int, int, Candidate]]:
    """Merge runs of optional segments lacked by the same values into ``<opt>`` blocks."""
    out: list[tuple[int, int, Candidate]] = []
    i = 0
    while i < len(segs):
        s, e, c, absent = segs[i]
        if not absent:
            out.append((s, e, c))
            i += 1
            continue
        j = i
        while j + 1 < len(segs) and segs[j + 1][3] == absent:
            j += 1
        run = [x[2] for x in segs[i:j + 1]]
        covs = [x.coverage for x in run if not x.literal]
        out.append((s, segs[j][1], Candidate(OPT_OPEN + "".join(x.pattern for x in run) + OPT_CLOSE,
                                             sum(x.fpr for x in run), min(covs) if covs else 0,
                                             literal=all(x.literal for x in run))))
        i = j + 1
    return out
