"""H(C): the patterns consistent with every value of a query column (paper §2.1).

Computed per shape instead of per value: all values of one shape share their constant-free
patterns, and a constant slot survives only if every value of the shape agrees on it.
"""

from __future__ import annotations

from collections.abc import Iterable

from lakeindex.patterns.enumerate import EnumerationLimits, shape_templates
from lakeindex.patterns.tokens import analyze


def hypothesis_space(values: Iterable[str], limits: EnumerationLimits | None = None) -> set[str]:
    """∩_v P(v) over the distinct non-empty values (empty if any value is wider than tau)."""
    limits = limits or EnumerationLimits()
    shapes: dict[tuple, list[tuple[str, ...]]] = {}
    for v in set(values):
        if not v:
            continue
        a = analyze(v, limits.max_subruns)
        if a.ntokens > limits.tau or not a.shape:
            return set()
        shapes.setdefault(a.shape, []).append(a.slots)
    result: set[str] | None = None
    for shape, members in shapes.items():
        free, by_slots = shape_templates(shape, limits.max_constants)
        pats = set(free)
        for slot_set, fmts in by_slots.items():
            first = tuple(members[0][j] for j in slot_set)
            if all(tuple(m[j] for j in slot_set) == first for m in members):
                pats.update(f % first for f in fmts)
        result = pats if result is None else result & pats
        if not result:
            return set()
    return result or set()
