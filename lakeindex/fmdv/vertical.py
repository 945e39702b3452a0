"""Vertical cuts (FMDV-V, paper §3): align the values' token sequences, then segment by DP.

Values are aligned part by part first (:mod:`lakeindex.fmdv.alignment`).

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

from dataclasses import dataclass
from typing import cast

from lakeindex.fmdv.alignment import Alignment
from lakeindex.fmdv.column import Group
from lakeindex.fmdv.search import Candidate, SegmentSolver, narrowed
from lakeindex.patterns.pattern import OPT_CLOSE, OPT_OPEN, generality

# Machine-generated columns have a handful of token sequences (URLs of a few path depths); free
# text has hundreds. Aligning them all costs O(k * n^2) and finds no pattern, so V gives up.
MAX_SEQUENCES = 24


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


def segmentations(groups: list[Group], solver: SegmentSolver, r: float, m: int, max_span: int | None = None,
                  cap: float | None = None,
                  al: Alignment | None = None) -> tuple[Segmentation | None, Segmentation | None]:
    """Solve FMDV-V over conforming groups: the segmentation with its segments narrowed (``_narrow``),
    and the same before narrowing (None, None when none is feasible). A part of a list or record may
    want the second: narrowing spends FPR that the other parts may need (``rule_search.RuleSearch.column``).

    A segment that some values lack (their alignment has a gap there) is *optional*: its pattern is
    solved over the values that have it, and adjacent optional segments lacked by the same values
    form one ``<opt>...</opt>`` block, such as the sign of ``-12`` among ``34`` or the second word
    of ``mobile_app`` among ``web``. A rule has at most one block and at least one indexed segment
    that every value has: values that vary in several places (free text of varying length) or
    that share nothing are not one structure.

    ``cap`` (at most r) bounds the rule's FPR where it is a part of a list or record and the other
    parts used some of r; the index is still asked at r, so the candidates cached per segment serve
    every cap. ``al``: the groups' alignment, if kept from a solve within another cap.
    """
    cap = r if cap is None else min(cap, r)
    if len({g.labels for g in groups}) > MAX_SEQUENCES:
        return None, None
    al = Alignment(groups) if al is None else al
    ncols = al.ncols
    max_span = max_span or solver.limits.tau

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
            c, absent = solver.solve_columns(al, s, e, r, m, cap)
            if c is None:
                continue
            for state, (score, _) in best[s].items():
                mand, phase, block = state
                nxt: tuple[bool, int, frozenset | None]
                if absent is None:
                    nxt = (mand or not c.literal, 2 if phase else 0, None)
                elif phase == 0 or (phase == 1 and block == absent):
                    nxt = (mand, 1, absent)
                else:
                    continue  # a second optional block
                total = (score[0] + c.fpr, score[1] + 1, score[2] + generality(c.pattern))
                if total[0] <= cap and (nxt not in here or total < here[nxt][0]):
                    here[nxt] = (total, (s, state, c, absent))
    finals = [(v[0], st) for st, v in best[ncols].items() if st[0]]
    if not finals:
        return None, None
    state = min(finals, key=lambda f: f[0])[1]
    segs: list[tuple[int, int, Candidate, frozenset | None]] = []
    e = ncols
    while e > 0:
        s, prev, c, absent = cast(tuple, best[e][state][1])  # only the start state has no back pointer
        segs.append((s, e, c, absent))
        e, state = s, prev
    segs.reverse()
    return Segmentation(_blocks(_narrow(segs, al, solver, r, m, cap))), Segmentation(_blocks(segs))


def _narrow(segs: list[tuple[int, int, Candidate, frozenset | None]], al: Alignment, solver: SegmentSolver,
            r: float, m: int, cap: float | None = None) -> list[tuple[int, int, Candidate, frozenset | None]]:
    """The narrowing band (``search`` module docstring) applied after the segmentation is chosen, left
    to right, each segment within its band and within what r leaves: narrowing inside the DP would
    make each segment riskier and their sum pass r, losing rules."""
    left = (r if cap is None else cap) - sum(c.fpr for _, _, c, _ in segs)
    out = []
    for s, e, c, absent in segs:
        if not c.literal and solver.narrow_slack > 0:
            cands, _ = solver.column_candidates(al, s, e, r, m)
            n = narrowed(c, cands, c.fpr + min(solver.narrow_slack, left))
            left -= n.fpr - c.fpr
            c = n
        out.append((s, e, c, absent))
    return out


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
