"""The learned DQ program: a conjunction of constraints (AVH, KDD 2023, Definition 3), explainable as JSON.

``AVHProgram.check(history, new)`` validates a new batch: it passes only if every clause holds
(Definition 3's conjunction). Each clause records its metric, transform, bounds, FPR bound and
proposition, and which synthetic issues (Appendix B) it caught during learning, so that an
engineer can review the program (§1, "Explainable"). ``total_fpr_bound`` is the union bound of
Prop. 4: the sum of the clauses' bounds, at most ``delta``.

A lag-differenced clause compares the new value with the metric's value ``lag`` batches back, so
``check`` needs the history of feature dicts that precedes the new batch (oldest first). A clause
that cannot be evaluated (missing metric value or lag reference, log of a non-positive value)
counts as violated: the metric existed in the whole history the clause was learned from.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from lakeindex.avh.constraints import RangeConstraint, metric_values

__all__ = ["FORMAT", "AVHProgram", "Clause", "Verdict", "Violation"]

FORMAT = "lakeindex.avh.program/1"


def _num(value: Any) -> float | None:
    if value is None:
        return None
    value = float(value)
    return None if math.isnan(value) else value


def _json_float(x: float | None) -> float | None:
    return None if x is None or not math.isfinite(x) else x


@dataclass(frozen=True)
class Clause:
    """One selected constraint, the synthetic issues it catches (R(Q), Eq. 8) and how it was estimated."""

    constraint: RangeConstraint
    catches: tuple[str, ...] = ()
    evidence: Mapping[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """The constraint's JSON plus ``catches`` and ``evidence``."""
        return {**self.constraint.to_dict(), "catches": list(self.catches), "evidence": dict(self.evidence)}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Clause:
        """Inverse of ``to_dict``."""
        return cls(RangeConstraint.from_dict(data), tuple(data.get("catches", ())), dict(data.get("evidence", {})))


@dataclass(frozen=True)
class Violation:
    """A clause a batch violated: observed raw and transformed value, the bounds and why."""

    column: str
    metric: str
    rule: str
    raw_value: float | None
    transformed_value: float | None
    lower: float
    upper: float
    fpr_bound: float
    bound_kind: str
    reason: str

    def to_dict(self) -> dict[str, Any]:
        """JSON form (infinite bounds and NaN values are ``null``)."""
        return {
            "column": self.column,
            "metric": self.metric,
            "rule": self.rule,
            "raw_value": self.raw_value,
            "transformed_value": self.transformed_value,
            "lower": _json_float(self.lower),
            "upper": _json_float(self.upper),
            "fpr_bound": self.fpr_bound,
            "bound_kind": self.bound_kind,
            "reason": self.reason,
        }


@dataclass(frozen=True)
class Verdict:
    """Result of checking one batch: ``passed`` is False when any clause is violated."""

    passed: bool
    violations: tuple[Violation, ...]
    clauses_checked: int

    @property
    def flagged(self) -> bool:
        """True if the batch is flagged as a likely DQ issue."""
        return not self.passed

    def to_dict(self) -> dict[str, Any]:
        """JSON form."""
        return {"passed": self.passed, "clauses_checked": self.clauses_checked,
                "violations": [v.to_dict() for v in self.violations]}


@dataclass(frozen=True)
class AVHProgram:
    """A conjunctive DQ program P(S) for one column, with its FPR bound, budget and provenance."""

    column: str
    clauses: tuple[Clause, ...]
    delta: float
    history_length: int
    issues: tuple[str, ...] = ()  # all synthetic issue ids considered, sorted
    selected_by: str = "greedy"
    fpr_budget_used: float = 0.0
    window: int | None = None
    skipped_metrics: Mapping[str, str] = field(default_factory=dict)
    options: Mapping[str, Any] = field(default_factory=dict)

    @property
    def total_fpr_bound(self) -> float:
        """Union bound on the program's expected FPR: the sum of its clauses' bounds (Prop. 4)."""
        return sum(c.constraint.fpr_bound for c in self.clauses)

    @property
    def issues_caught(self) -> tuple[str, ...]:
        """Synthetic issues caught by at least one clause, sorted."""
        return tuple(sorted({i for c in self.clauses for i in c.catches}))

    @property
    def max_lag(self) -> int:
        """How many past batches ``check`` needs (the largest lag of any clause)."""
        return max((c.constraint.transform.lag for c in self.clauses), default=0)

    def check(self, history_features: Sequence[Mapping[str, Any]], new_features: Mapping[str, Any]) -> Verdict:
        """Validate a new batch's features against every clause, given the feature dicts of the batches before it."""
        if len(history_features) < self.max_lag:
            raise ValueError(f"this program compares with the value {self.max_lag} batches back: pass at least "
                             f"{self.max_lag} history feature dicts, got {len(history_features)}")
        violations: list[Violation] = []
        for clause in self.clauses:
            c = clause.constraint
            history = metric_values(history_features, c.metric)
            raw = _num(new_features.get(c.metric))
            value = c.transform.apply(raw, history)
            if not c.violates(value):
                continue
            reason = c.transform.undefined_reason(raw, history) or \
                ("below lower bound" if value < c.lower else "above upper bound")
            violations.append(Violation(c.column, c.metric, c.describe(), raw, _num(value), c.lower, c.upper,
                                        c.fpr_bound, str(c.bound_kind), reason))
        return Verdict(not violations, tuple(violations), len(self.clauses))

    def to_dict(self) -> dict[str, Any]:
        """Explainable JSON: clauses with bounds, FPR bounds and caught issues; totals and settings."""
        caught = self.issues_caught
        caught_set = set(caught)
        return {
            "format": FORMAT,
            "column": self.column,
            "delta": self.delta,
            "total_fpr_bound": self.total_fpr_bound,
            "fpr_budget_used": self.fpr_budget_used,
            "history_length": self.history_length,
            "window": self.window,
            "selected_by": self.selected_by,
            "clauses": [c.to_dict() for c in self.clauses],
            "issues_total": len(self.issues),
            "issues_caught": list(caught),
            "issues_missed": [i for i in self.issues if i not in caught_set],
            "skipped_metrics": dict(self.skipped_metrics),
            "options": dict(self.options),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> AVHProgram:
        """Inverse of ``to_dict``."""
        if data.get("format") != FORMAT:
            raise ValueError(f"not an AVH program: format {data.get('format')!r}, expected {FORMAT!r}")
        clauses = tuple(Clause.from_dict(c) for c in data["clauses"])
        issues = tuple(sorted({*data.get("issues_caught", ()), *data.get("issues_missed", ())}))
        window = data.get("window")
        return cls(
            column=data["column"],
            clauses=clauses,
            delta=float(data["delta"]),
            history_length=int(data["history_length"]),
            issues=issues,
            selected_by=data.get("selected_by", "greedy"),
            fpr_budget_used=float(data.get("fpr_budget_used", 0.0)),
            window=None if window is None else int(window),
            skipped_metrics=dict(data.get("skipped_metrics", {})),
            options=dict(data.get("options", {})),
        )

    def to_json(self, **kwargs: Any) -> str:
        """``to_dict`` as a JSON string (``kwargs`` go to ``json.dumps``)."""
        return json.dumps(self.to_dict(), **kwargs)

    @classmethod
    def from_json(cls, text: str) -> AVHProgram:
        """Inverse of ``to_json``."""
        return cls.from_dict(json.loads(text))
