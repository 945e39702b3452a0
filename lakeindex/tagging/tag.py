"""Auto-tag, the dual of FMDV (paper §2.3): name a column's domain by its most restrictive pattern.

Among the patterns consistent with the column (after horizontal cuts of up to theta of its
values), keep those whose false-negative rate on the domain, estimated by FPR_T, is at most
``fnr`` and whose coverage is at least m. The tag is the one with the smallest coverage, i.e. the
most restrictive, which groups columns of one domain without absorbing its neighbours.
"""

from __future__ import annotations

from collections.abc import Iterable

from lakeindex.fmdv.column import Group, QueryColumn
from lakeindex.fmdv.horizontal import horizontal
from lakeindex.fmdv.infer import default_coverage
from lakeindex.fmdv.search import Candidate, SegmentSolver
from lakeindex.index.format import fpr as to_fpr
from lakeindex.index.format import unpack
from lakeindex.patterns.pattern import example, generality, matches

DEFAULT_FNR = 0.05


def tag_column(values: list[str], solver: SegmentSolver, fnr: float = DEFAULT_FNR, m: int | None = None,
               theta: float = 0.1) -> dict:
    """Tag one column: ``{"tag", "fpr", "coverage", ...}``, or ``tag: None`` with a reason."""
    m = default_coverage(solver.index.meta) if m is None else m
    col = QueryColumn.from_values(values, solver.limits)
    out: dict = {"values": col.total, "fnr": fnr, "m": m}
    if not col.groups:
        return {**out, "tag": None, "reason": "no non-empty values"}

    def candidates(groups: list[Group]) -> list[Candidate] | None:
        c = [x for x in solver.candidates([(g, 0, len(g.shape)) for g in groups], fnr, m) if not x.literal]
        return c or None

    cands = horizontal(col, theta, candidates)[0]
    if not cands:
        return {**out, "tag": None, "reason": f"no pattern with FPR <= {fnr} and coverage >= {m} describes the column"}
    best = min(cands, key=lambda c: c.rank)
    return {**out, "tag": best.pattern, "fpr": best.fpr, "coverage": best.coverage}


def head(index_items: Iterable[tuple[bytes, bytes]], min_coverage: int, max_fpr: float, limit: int) -> list[dict]:
    """Common domains of the lake (§5.3 'pattern analysis'): high coverage, low FPR.

    A pattern with the same statistics as a more specific pattern it generalizes (it matches an
    example string of that pattern) describes the same columns; only the specific one is listed.
    """
    buckets: dict[tuple[int, int], list[str]] = {}
    for key, value in index_items:
        imp, cov = unpack(value)
        if cov >= min_coverage and to_fpr(imp, cov) <= max_fpr:
            buckets.setdefault((imp, cov), []).append(key.decode())
    rows = []
    for (imp, cov), pats in buckets.items():
        kept: list[str] = []
        for p in sorted(pats, key=lambda p: (generality(p), p)):
            if not any(matches(p, example(k)) for k in kept):
                kept.append(p)
        rows.extend({"pattern": p, "fpr": to_fpr(imp, cov), "coverage": cov} for p in kept)
    rows.sort(key=lambda d: (-d["coverage"], d["fpr"], d["pattern"]))
    return rows[:limit]
