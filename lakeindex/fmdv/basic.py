"""FMDV (Eq. 5-7): the hypothesis with the lowest FPR_T subject to FPR_T <= r and Cov_T >= m.

Ties on FPR go to the smaller coverage, then to the lower place in the hierarchy, i.e. the more
specific pattern (``<lower>{2}-<lower>{2}`` rather than ``<letter>{2}-<letter>{2}`` when both never
made a column impure), so that drift such as ``en-us`` -> ``en-US`` is caught.
"""

from __future__ import annotations

import math

from lakeindex.fmdv.hypotheses import hypothesis_space
from lakeindex.index.store import IndexReader
from lakeindex.patterns.enumerate import EnumerationLimits
from lakeindex.patterns.pattern import generality, to_regex


def default_coverage(meta: dict) -> int:
    """Default m: 0.5% of the lake's columns, between the build floor and the paper's 100."""
    cols = meta.get("columns_scanned", 0)
    return max(int(meta.get("min_coverage", 2)), min(100, math.ceil(0.005 * cols)))


def infer_fmdv(values: list[str], index: IndexReader, r: float = 0.1, m: int | None = None,
               alternatives: int = 5) -> dict:
    """Solve FMDV for a column of values against an index; return the rule as a dict."""
    limits = EnumerationLimits(**index.meta["limits"])
    m = default_coverage(index.meta) if m is None else m
    hyps = sorted(hypothesis_space(values, limits))
    stats = [s for s in index.lookup(hyps) if s is not None]
    feasible = sorted((s for s in stats if s.fpr <= r and s.coverage >= m),
                      key=lambda s: (s.fpr, s.coverage, generality(s.pattern), s.pattern))
    out: dict = {"method": "fmdv", "r": r, "m": m, "values": len(values), "hypotheses": len(hyps),
                 "indexed_hypotheses": len(stats), "index_version": index.version}
    if not feasible:
        out.update(feasible=False, pattern=None, regex=None,
                   reason="no pattern consistent with all values meets FPR <= r and coverage >= m")
        return out
    best = feasible[0]
    out.update(feasible=True, pattern=best.pattern, regex=to_regex(best.pattern), fpr=best.fpr,
               coverage=best.coverage,
               alternatives=[s.to_dict() for s in feasible[1: 1 + alternatives]])
    return out
