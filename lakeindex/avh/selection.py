"""Choose a conjunction of constraints: Algorithm 1 of AVH (KDD 2023, §4.3, Prop. 4, Appendix I).

Budgeted maximum coverage: each candidate constraint Q covers R(Q), the synthetic DQ issues it
catches (Eq. 8), and costs its FPR bound. Greedily add the constraint with the best
``|R(Q) minus covered| / FPR(Q)`` while ``sum FPR <= delta``; finally, if the best feasible single
constraint covers more than the greedy set, return it alone (lines 9-11). This is a
``(1/2 - 1/(2e))``-approximation (Prop. 4, Khuller et al. 1999), and by the union bound the
conjunction's FPR is at most the sum of its clauses' bounds, hence at most ``delta``.

A consequence worth knowing when reading programs: the ratio favours the *widest* constraint that
still catches a set of issues (a x100 unit change is caught at k = 1000 for an FPR bound of 1e-6),
so the budget is spent only where tighter bounds buy more recall.

Choices where the paper is open, and why:

* **Zero cost.** Constraints on constant metrics have FPR bound 0. The cost used in the ratio *and*
  charged to the budget is ``max(FPR(Q), cost_floor)`` with ``cost_floor = 1e-9``: no division by
  zero, such constraints still come first (ratio ~1e9 per issue), and the budget stays a true upper
  bound of what was charged.
* **Infeasible candidates.** The paper takes the argmax over all remaining Q and discards it if it
  does not fit (lines 5-8). Since the spent FPR only grows, a candidate that does not fit now never
  will; we drop such candidates before the argmax, which selects exactly the same set.
* **Zero gain.** When no remaining candidate adds a new issue, we stop. Algorithm 1 as printed would
  keep adding zero-gain constraints while they fit; they leave the objective ``|union R|``
  unchanged (so Prop. 4 still holds) and only add false positives.
* **Ties** in the ratio go to the larger gain, then the smaller cost, then the earlier candidate, so
  results are deterministic. The singleton of line 9 is the feasible (``cost <= delta``) candidate
  with the largest ``|R(Q)|``, ties as above; it replaces the greedy set only if strictly better
  (line 10's ``<``).
* **Same metric twice.** Candidates on one metric differ only in width, so a narrower one implies a
  wider one. Algorithm 1 may pick both (say a wide, nearly free bound first and a tighter one
  later). The pair is logically equal to the tighter clause alone, so after selection we keep only
  the tightest per ``(column, metric, transform)``; this changes neither the program's verdicts nor
  its recall. The budget charged during the greedy is the paper's (both costs).
* **max_clauses** (Appendix K, Figure 9) caps the number of distinct ``(column, metric)`` clauses:
  once reached, candidates on new metrics are no longer eligible, tighter ones on chosen metrics are.
"""

from __future__ import annotations

import math
from collections.abc import Sequence, Set
from dataclasses import dataclass

from lakeindex.avh.constraints import RangeConstraint

__all__ = ["DEFAULT_COST_FLOOR", "DEFAULT_DELTA", "Selection", "prune_implied", "select_constraints"]

DEFAULT_DELTA = 0.001
DEFAULT_COST_FLOOR = 1e-9


@dataclass(frozen=True)
class Selection:
    """The result of Algorithm 1: chosen candidate indices, what they cover and the FPR charged."""

    chosen: tuple[int, ...]
    covered: frozenset[str]
    budget_used: float
    method: str
    greedy_order: tuple[int, ...] = ()

    @property
    def recall(self) -> int:
        """``|union of R(Q)|`` over the chosen constraints (the objective, Eq. 9)."""
        return len(self.covered)


def _implies(a: RangeConstraint, b: RangeConstraint) -> bool:
    """True if ``a`` holding guarantees ``b`` holds: same metric and transform, ``a``'s interval inside ``b``'s."""
    return (a.key == b.key and a.transform == b.transform
            and a.lower >= b.lower and a.upper <= b.upper)


def prune_implied(constraints: Sequence[RangeConstraint], chosen: Sequence[int]) -> tuple[int, ...]:
    """Drop chosen constraints implied by another chosen one (keep the tightest per metric); order kept."""
    kept: list[int] = []
    for i in chosen:
        c = constraints[i]
        redundant = any(j != i and _implies(constraints[j], c)
                        and (not _implies(c, constraints[j]) or chosen.index(j) < chosen.index(i))
                        for j in chosen)
        if not redundant:
            kept.append(i)
    return tuple(kept)


def select_constraints(constraints: Sequence[RangeConstraint], recall: Sequence[Set[str]], *,
                       delta: float = DEFAULT_DELTA, max_clauses: int | None = None,
                       cost_floor: float = DEFAULT_COST_FLOOR) -> Selection:
    """Algorithm 1: greedy benefit/cost selection under ``sum FPR <= delta``, then the best-singleton check.

    ``recall[i]`` is R(Q_i), the ids of the synthetic issues constraint ``i`` catches.
    """
    if len(constraints) != len(recall):
        raise ValueError(f"{len(constraints)} constraints but {len(recall)} recall sets")
    if not (delta > 0 and math.isfinite(delta)):
        raise ValueError(f"delta must be a finite number > 0, got {delta!r}")
    if max_clauses is not None and max_clauses < 1:
        raise ValueError(f"max_clauses must be >= 1 or None, got {max_clauses!r}")
    if not cost_floor > 0:
        raise ValueError(f"cost_floor must be > 0, got {cost_floor!r}")
    costs = [max(c.fpr_bound, cost_floor) for c in constraints]
    sets = [frozenset(r) for r in recall]

    chosen: list[int] = []
    keys: set[tuple[str, str]] = set()
    covered: set[str] = set()
    used = 0.0
    remaining = [i for i, cost in enumerate(costs) if cost <= delta]
    while remaining and used <= delta:  # line 3
        remaining = [i for i in remaining if used + costs[i] <= delta
                     and (max_clauses is None or constraints[i].key in keys or len(keys) < max_clauses)]
        best, best_rank = -1, None
        for i in remaining:  # line 4: argmax of marginal gain / cost
            gain = len(sets[i] - covered)
            rank = (gain / costs[i], gain, -costs[i], -i)
            if best_rank is None or rank > best_rank:
                best, best_rank = i, rank
        if best_rank is None or best_rank[1] == 0:
            break
        chosen.append(best)  # lines 5-7 (feasibility was ensured above)
        keys.add(constraints[best].key)
        covered |= sets[best]
        used += costs[best]
        remaining.remove(best)  # line 8

    feasible = [i for i, cost in enumerate(costs) if cost <= delta]
    method = "greedy" if chosen else "empty"
    if feasible:  # lines 9-11
        m = max(feasible, key=lambda i: (len(sets[i]), -costs[i], -i))
        if len(covered) < len(sets[m]):
            return Selection((m,), sets[m], costs[m], "singleton", tuple(chosen))
    return Selection(prune_implied(constraints, chosen), frozenset(covered), used, method, tuple(chosen))
