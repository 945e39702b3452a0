"""Learn an AVH program for one column from its feature history and synthetic issues (AVH, KDD 2023, Algorithm 1).

Inputs are plain feature dicts, independent of how they are computed:

* ``history``: K clean past batches, oldest first, each ``{metric: float | None}`` (metrics of
  Tables 3-4; two-distribution metrics compare a batch with the one before it).
* ``issue_features``: ``{variant_id: {metric: float | None}}``, the features of a batch with one
  synthetic DQ issue of Appendix B injected (``"unit_change_x100"``, ``"increased_nulls_50"``, ...).

Wiring: ``fit_metrics`` (Algorithm 3 lines 3-5, with Algorithm 5) -> candidate constraints over
the beta grid -> R(Q) per candidate by transforming each variant's value like a new batch ->
``select_constraints`` (Algorithm 1) -> ``AVHProgram``.

**Where the injected batch sits** (``issue_base``, the paper is silent). ``"last"`` (default): the
variants are the latest history batch C_K with an issue injected (as Appendix B injects into the
column C), so a lag transform compares them with the values before C_K: ``history[:-1]``. Their
two-distribution metrics then compare against C_{K-1}, exactly like C_K's own. ``"next"``: the
variants describe a hypothetical batch C_{K+1}, compared with the whole history. mu and sigma are
always estimated from the full (windowed) clean history.

With no issue variants, or none that any feasible constraint catches, the program is empty and
passes everything: Algorithm 1 only adds constraints that buy recall.
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Literal

import numpy as np

from lakeindex.avh.bounds import BoundKind
from lakeindex.avh.constraints import DEFAULT_K_GRID, MetricFit, RangeConstraint, fit_metrics
from lakeindex.avh.program import AVHProgram, Clause, Verdict
from lakeindex.avh.selection import DEFAULT_COST_FLOOR, DEFAULT_DELTA, select_constraints
from lakeindex.avh.stationarity import DEFAULT_ALPHA, DEFAULT_MIN_POINTS, DEFAULT_SWITCH_RATIO

__all__ = ["AVH", "AVHLearner", "candidate_recall", "learn_program"]

IssueBase = Literal["last", "next"]
Features = Mapping[str, Any]


def _num(value: Any) -> float | None:
    return None if value is None else float(value)


def candidate_recall(fit: MetricFit, constraints: Sequence[RangeConstraint], issue_features: Mapping[str, Features],
                     *, issue_base: IssueBase = "last") -> list[frozenset[str]]:
    """R(Q) (Eq. 8) for each constraint of one metric: the variant ids whose transformed value violates it."""
    context: Sequence[float | None] = fit.values[:-1] if issue_base == "last" else fit.values
    ids = list(issue_features)
    values = np.array([fit.transform_value(_num(issue_features[v].get(fit.metric)), context) for v in ids], dtype=float)
    lower = np.array([c.lower for c in constraints], dtype=float)[:, None]
    upper = np.array([c.upper for c in constraints], dtype=float)[:, None]
    # the same test as RangeConstraint.violates, for every (constraint, variant) pair at once
    violated = np.isnan(values)[None, :] | (values[None, :] < lower) | (values[None, :] > upper)
    return [frozenset(ids[j] for j in np.flatnonzero(row)) for row in violated]


def learn_program(column: str, history: Sequence[Features], issue_features: Mapping[str, Features],
                  delta: float = DEFAULT_DELTA, window: int | None = None, max_clauses: int | None = None, *,
                  alpha: float = DEFAULT_ALPHA, min_points: int = DEFAULT_MIN_POINTS,
                  switch_ratio: float | None = DEFAULT_SWITCH_RATIO, k_grid: Iterable[float] = DEFAULT_K_GRID,
                  bound_kinds: Mapping[str, BoundKind | str] | None = None, metrics: Iterable[str] | None = None,
                  issue_base: IssueBase = "last", sigma_zero_fpr: float = 0.0,
                  cost_floor: float = DEFAULT_COST_FLOOR, predictive: bool = True) -> AVHProgram:
    """Algorithm 1 end to end for one column: the program with the most synthetic issues caught at ``FPR <= delta``.

    ``window`` keeps only the last ``window`` history batches; ``max_clauses`` caps the clause count.
    The keyword options are documented in ``constraints``, ``stationarity`` and ``selection``.
    """
    if window is not None:
        if window < 1:
            raise ValueError(f"window must be >= 1 or None, got {window!r}")
        history = list(history)[-window:]
    if issue_base not in ("last", "next"):
        raise ValueError(f"issue_base must be 'last' or 'next', got {issue_base!r}")
    if not 0.0 <= sigma_zero_fpr <= 1.0:
        raise ValueError(f"sigma_zero_fpr must be a probability, got {sigma_zero_fpr!r}")
    k_grid = tuple(k_grid)
    fits, skipped = fit_metrics(column, history, metrics=metrics, alpha=alpha, min_points=min_points,
                                switch_ratio=switch_ratio, bound_kinds=bound_kinds, predictive=predictive)
    candidates: list[RangeConstraint] = []
    recall: list[frozenset[str]] = []
    fit_of: list[MetricFit] = []
    for fit in fits:
        cs = fit.constraints(k_grid, sigma_zero_fpr=sigma_zero_fpr)
        candidates.extend(cs)
        recall.extend(candidate_recall(fit, cs, issue_features, issue_base=issue_base))
        fit_of.extend([fit] * len(cs))
    selection = select_constraints(candidates, recall, delta=delta, max_clauses=max_clauses, cost_floor=cost_floor)
    clauses = tuple(Clause(candidates[i], tuple(sorted(recall[i])), fit_of[i].evidence()) for i in selection.chosen)
    options = {"alpha": alpha, "min_points": min_points, "switch_ratio": switch_ratio, "issue_base": issue_base,
               "max_clauses": max_clauses, "sigma_zero_fpr": sigma_zero_fpr, "cost_floor": cost_floor,
               "predictive": predictive, "candidates": len(candidates),
               "bound_kinds": {m: str(BoundKind(k)) for m, k in (bound_kinds or {}).items()}}
    return AVHProgram(column=column, clauses=clauses, delta=delta, history_length=len(history),
                      issues=tuple(sorted(issue_features)), selected_by=selection.method,
                      fpr_budget_used=selection.budget_used, window=window, skipped_metrics=skipped,
                      options=options)


_OPTIONS = frozenset(name for name, p in inspect.signature(learn_program).parameters.items()
                     if p.kind is inspect.Parameter.KEYWORD_ONLY)


class AVH:
    """Estimator-style wrapper: ``AVH(delta=0.001).fit(history, issue_features).program_``, then ``check``.

    scikit-learn's conventions: ``__init__`` stores the parameters unchanged, ``fit`` checks them and sets
    ``program_``. The verdict is ``check`` (with its evidence) or ``is_flagged`` (a bool); there is no
    ``predict``, whose +1/-1 labels would say less than the verdict.
    """

    def __init__(self, delta: float = DEFAULT_DELTA, *, window: int | None = None, max_clauses: int | None = None,
                 **options: Any) -> None:
        self.delta = delta
        self.window = window
        self.max_clauses = max_clauses
        self.options = options

    def fit(self, history: Sequence[Features], issue_features: Mapping[str, Features], column: str = "") -> AVH:
        """Learn ``program_`` from the clean history and the synthetic issue features."""
        if not (self.delta > 0 and math.isfinite(self.delta)):
            raise ValueError(f"delta must be a finite number > 0, got {self.delta!r}")
        unknown = set(self.options) - _OPTIONS
        if unknown:
            raise TypeError(f"unknown AVH option(s) {sorted(unknown)}; known: {sorted(_OPTIONS)}")
        self.program_ = learn_program(column, history, issue_features, self.delta, self.window, self.max_clauses,
                                      **self.options)
        return self

    def _program(self) -> AVHProgram:
        if getattr(self, "program_", None) is None:
            raise RuntimeError("call fit() first")
        return self.program_

    def check(self, history: Sequence[Features], new_features: Features) -> Verdict:
        """The learned program's verdict on a new batch (see ``AVHProgram.check``)."""
        return self._program().check(history, new_features)

    def is_flagged(self, history: Sequence[Features], new_features: Features) -> bool:
        """True if the new batch is flagged as a likely DQ issue."""
        return self.check(history, new_features).flagged


AVHLearner = AVH
