"""Horizontal cuts (FMDV-H, paper §4): tolerate up to a fraction theta of non-conforming values.

Deciding FMDV-H is NP-hard (Theorem 2); as in the paper, we solve it greedily. Values are
clustered by their coarse token sequence. Clusters whose sequence cannot align with the heaviest
cluster (different symbols, e.g. ``-`` or ``N/A`` among dates) are cut first, lightest first,
within the budget theta*|C|. If the rest has no feasible pattern, the lightest remaining clusters
are cut while the budget lasts, re-solving at most ``MAX_RETRIES`` times (the cuts grow each time),
so free text with hundreds of tiny clusters costs a few solves, not hundreds.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from lakeindex.fmdv.column import Group, QueryColumn

T = TypeVar("T")
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
