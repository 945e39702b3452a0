"""Horizontal cuts (FMDV-H, paper §4): tolerate up to a fraction theta of non-conforming values.

Deciding FMDV-H is NP-hard (Theorem 2); as in the paper, we solve it greedily. Values are
clustered by their coarse token sequence. Clusters whose sequence cannot align with the heaviest
cluster (different symbols, e.g. ``-`` or ``N/A`` among dates) are cut first, lightest first,
within the budget theta*|C|. If the rest has no feasible pattern, the lightest remaining clusters
are cut while the budget lasts, re-solving at most ``MAX_RETRIES`` times (the cuts grow each time),
so free text with hundreds of tiny clusters costs a few solves, not hundreds.

The greedy never cuts values that share the majority's structure but not its shape (a ``0`` among
10-digit epochs). :func:`covering_candidates` adds the paper's own hypotheses for one segment
(Eq. 12-16: any pattern of the union of P(v) that (1 - theta) of the values have), so such a cut
is found too; the inference keeps whichever is better.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from lakeindex.fmdv.column import Group, QueryColumn
from lakeindex.fmdv.search import Candidate, SegmentSolver
from lakeindex.patterns.pattern import compiled
from lakeindex.patterns.templates import shape_template_set

T = TypeVar("T")
HEX = "<hex>"  # the class whose match depends on a word's letters, not only its shape
MAX_RETRIES = 4


def _compatible(a: tuple, b: tuple) -> bool:
    """Same structure: equal length, words against words, identical symbols."""
    return len(a) == len(b) and all(x == y or (x[0] == "w" and y[0] == "w") for x, y in zip(a, b, strict=True))


def horizontal(col: QueryColumn, theta: float,
               solve: Callable[[list[Group]], T | None]) -> tuple[T | None, list[Group]]:
    """Greedy FMDV-H around ``solve`` (FMDV or FMDV-V); returns the result and the kept groups."""
    budget = theta * col.total
    clusters: dict[tuple, list[Group]] = {}
    for g in col.groups:
        clusters.setdefault(g.labels, []).append(g)
    weight = {k: sum(g.weight for g in gs) for k, gs in clusters.items()}
    order = sorted(clusters, key=lambda k: (-weight[k], k))
    majority = order[0]
    kept = list(order)
    removed = 0
    for k in sorted((k for k in order[1:] if not _compatible(k, majority)), key=lambda k: (weight[k], k)):
        if removed + weight[k] <= budget:
            kept.remove(k)
            removed += weight[k]

    def groups() -> list[Group]:
        return [g for k in kept for g in clusters[k]]

    result = solve(groups())
    if result is not None:
        return result, groups()
    light = sorted(kept[1:], key=lambda k: (weight[k], k))
    cut = 0
    for attempt in range(1, MAX_RETRIES + 1):
        # cut the lightest clusters, a larger share of the budget on each attempt
        target = budget * attempt / MAX_RETRIES
        progressed = False
        while cut < len(light) and removed + weight[light[cut]] <= target:
            kept.remove(light[cut])
            removed += weight[light[cut]]
            cut += 1
            progressed = True
        if progressed:
            result = solve(groups())
            if result is not None:
                return result, groups()
    return None, groups()


def covering_candidates(col: QueryColumn, theta: float, solver: SegmentSolver, r: float, m: int) -> list[Candidate]:
    """FMDV-H as the paper states it (Eq. 12-16), for one segment: the feasible constant-free patterns
    of the union of P(v) that at least (1 - theta) of the column's values conform to.

    The greedy cut above only removes clusters whose structure differs from the majority's. A
    value of the majority's structure but another shape (an epoch ``0`` among 10-digit epochs) is
    never cut, so ``<digit>+`` would win over ``<digit>{10}``. Here any values may be cut within
    the budget. A pattern that misses groups weighing more than theta*|C| is not a candidate, so
    the hypotheses come from the heaviest groups only.

    A value conforms when it matches the pattern, the test the rule will apply: a constant-free
    pattern matches every value of a shape or none (one value is tried), except through ``<hex>``,
    whose match depends on the letters (every value is tried), which costs far less than listing every
    shape's P(v) on a column of many shapes.
    """
    limits = solver.limits
    need = (1 - theta) * col.total
    groups = [g for g in col.groups if g.tok_prefix[-1] <= limits.tau]
    if sum(g.weight for g in groups) < need:
        return []
    pool: set[str] = set()
    seen = 0
    for g in groups:  # heaviest first
        pool |= shape_template_set(g.shape, limits.max_constants, limits.budget(g.tok_prefix[-1]))
        seen += g.weight
        if seen > col.total - need:
            break
    slack = col.total - need  # weight a candidate may miss
    too_wide = col.total - sum(g.weight for g in groups)  # missed by every candidate
    out = []
    for c in solver.feasible(sorted(pool), r, m):
        match = compiled(c.pattern).fullmatch
        every = HEX in c.pattern
        missed = too_wide
        for g in groups:
            if any(match(v) is None for v in (g.values if every else g.values[:1])):
                missed += g.weight
                if missed > slack:
                    break
        else:
            out.append(c)
    return out
