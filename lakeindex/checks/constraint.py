"""Constraints: an assertion over a metric, and for row-level constraints the query for offending rows.

A constraint never computes its metric itself: the verification suite collects every constraint's
analyzers and runs them in the shared passes. Only a *failed* row-level constraint costs one more
small query (``LIMIT n``) to show offending rows or values — Deequ reports only the metric, and users
asked to see the bad data.
"""

from __future__ import annotations

import datetime as dt
import decimal
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from lakeindex.checks.assertion import Assertion
from lakeindex.metrics.analyzer import Analyzer
from lakeindex.metrics.metric import Metric

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

    from lakeindex.anomaly import AnomalyDetectionStrategy
    from lakeindex.checks.row_outcome import RowOutcome
    from lakeindex.repository import FileSystemMetricsRepository, ResultKey

SUCCESS, FAILURE = "Success", "Failure"


def json_value(v: Any) -> Any:
    """A JSON-safe rendering of a Spark row value."""
    if v is None or isinstance(v, bool | int | str):
        return v
    if isinstance(v, float):
        return v if math.isfinite(v) else str(v)
    if isinstance(v, decimal.Decimal):
        return float(v)
    if isinstance(v, dt.date | dt.datetime):
        return v.isoformat()
    if isinstance(v, bytes | bytearray):
        return v.hex()
    return str(v)


@dataclass
class ConstraintResult:
    """Outcome of one constraint: status, the metric it judged, a message, and offending samples if any."""

    constraint: str
    status: str
    message: str | None = None
    metric: Metric | None = None
    samples: list[dict[str, Any]] | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"constraint": self.constraint, "status": self.status}
        if self.message:
            out["message"] = self.message
        if self.metric is not None:
            out["metric"] = self.metric.to_dict()
        if self.samples is not None:
            out["offending_samples"] = self.samples
        return out


@dataclass
class EvaluationContext:
    """What a constraint may consult beyond this run's metrics: the repository history, for anomaly checks."""

    repository: FileSystemMetricsRepository | None = None
    dataset: str | None = None
    result_key: ResultKey | None = None


# the failures of a metric computed over no rows (analyzer.py, numeric.py, grouping.py say "no rows" or
# "no non-null values")
_EMPTY_STATE = ("no rows", "no non-null values")


def _empty_due_to_filter(analyzer: Analyzer, metric: Metric | None) -> bool:
    """Deequ's rule: a constraint whose analyzer has a ``where`` filter and whose metric has no rows to
    work on passes ("empty due to filter"): nothing the filter selects violates it."""
    if metric is None or metric.ok or not getattr(analyzer, "where", None):
        return False
    return any(marker in (metric.error or "") for marker in _EMPTY_STATE)


def _unavailable(description: str, metric: Metric | None) -> ConstraintResult | None:
    """The failure of a constraint whose metric is missing or failed, else None."""
    if metric is not None and metric.ok:
        return None
    reason = metric.error if metric is not None else "metric was not computed"
    return ConstraintResult(description, FAILURE, f"metric could not be computed: {reason}", metric)


class Constraint:
    """Base: the analyzers it needs and how to judge their metrics."""

    description: str
    row_level: RowOutcome | None = None  # how it judges each row, if it is row-level (row_outcome.py)

    def analyzers(self) -> list[Analyzer]:  # pragma: no cover - abstract
        raise NotImplementedError

    def evaluate(self, metrics: dict[Analyzer, Metric], ctx: EvaluationContext) -> ConstraintResult:
        raise NotImplementedError  # pragma: no cover

    def offending(self, df: DataFrame, n: int) -> list[dict[str, Any]] | None:
        """A few offending rows or values when the constraint is row-level, else None."""
        return None


@dataclass
class MetricConstraint(Constraint):
    """``assertion(pick(metric value))`` must hold; ``violations`` builds the offending-rows query;
    ``row_level`` is the per-row outcome of a row-level constraint (Deequ's RowLevelConstraint)."""

    analyzer: Analyzer
    assertion: Assertion
    description: str
    pick: Callable[[Any], Any] | None = None
    violations: Callable[[DataFrame], DataFrame] | None = field(default=None, repr=False)
    row_level: RowOutcome | None = field(default=None, repr=False)

    def analyzers(self) -> list[Analyzer]:
        return [self.analyzer]

    def evaluate(self, metrics: dict[Analyzer, Metric], ctx: EvaluationContext) -> ConstraintResult:
        metric = metrics.get(self.analyzer)
        if _empty_due_to_filter(self.analyzer, metric):
            return ConstraintResult(self.description, SUCCESS, None, metric)
        unavailable = _unavailable(self.description, metric)
        if unavailable is not None:
            return unavailable
        try:
            value = self.pick(metric.value) if self.pick else metric.value
            held = self.assertion(value)
        except Exception as exc:  # noqa: BLE001 - a user assertion may raise anything
            return ConstraintResult(self.description, FAILURE, f"assertion raised {type(exc).__name__}: {exc}",
                                    metric)
        if held:
            return ConstraintResult(self.description, SUCCESS, None, metric)
        shown = value if not isinstance(value, float) else round(value, 6)
        return ConstraintResult(self.description, FAILURE,
                                f"value {shown} does not meet the constraint requirement ({self.assertion})", metric)

    def offending(self, df: DataFrame, n: int) -> list[dict[str, Any]] | None:
        if self.violations is None:
            return None
        rows = self.violations(df).limit(n).collect()
        return [{k: json_value(v) for k, v in r.asDict().items()} for r in rows]


@dataclass
class AnomalyConstraint(Constraint):
    """The metric of this run must not be an anomaly against its history in the metrics repository."""

    analyzer: Analyzer
    strategy: AnomalyDetectionStrategy
    description: str
    tags: Mapping[str, str] | None = None  # only earlier results carrying these tags (one series)
    after: int | None = None  # only earlier results at or after this timestamp (ms)
    before: int | None = None  # only earlier results strictly before this timestamp (ms)

    def analyzers(self) -> list[Analyzer]:
        return [self.analyzer]

    def evaluate(self, metrics: dict[Analyzer, Metric], ctx: EvaluationContext) -> ConstraintResult:
        from lakeindex.anomaly import AnomalyDetector, DataPoint

        metric = metrics.get(self.analyzer)
        unavailable = _unavailable(self.description, metric)
        if unavailable is not None:
            return unavailable
        if not isinstance(metric.value, int | float):
            return ConstraintResult(self.description, FAILURE, f"has_no_anomalies needs a scalar metric; "
                                    f"{metric.name} is a distribution", metric)
        if ctx.repository is None or ctx.dataset is None or ctx.result_key is None:
            return ConstraintResult(self.description, FAILURE,
                                    "has_no_anomalies needs a metrics repository, a dataset name and a result key "
                                    "(VerificationSuite.use_repository(repo, dataset).save_or_append_result(key))",
                                    metric)
        now = ctx.result_key.timestamp_ms
        before = None if self.before is None else self.before - 1  # the repository's bound is inclusive
        series = [(k, m) for k, m in ctx.repository.series(ctx.dataset, self.analyzer.spec(), tags=self.tags,
                                                          after=self.after, before=before)
                  if k.timestamp_ms < now and isinstance(m.value, int | float)]
        seen: dict[int, dict[str, str]] = {}
        for k, _ in series:
            if k.timestamp_ms in seen:  # parallel series (e.g. one per region) interleaved: not one history
                return ConstraintResult(
                    self.description, FAILURE,
                    f"the history of {ctx.dataset!r} has several results at time {k.timestamp_ms} (tags "
                    f"{seen[k.timestamp_ms]} and {dict(k.tags)}): pass tags= to has_no_anomalies to compare "
                    "with one series", metric)
            seen[k.timestamp_ms] = dict(k.tags)
        history = [DataPoint(k.timestamp_ms, float(m.value)) for k, m in series]
        if not history:
            return ConstraintResult(self.description, SUCCESS, "no history yet: nothing to compare with", metric)
        try:
            result = AnomalyDetector(self.strategy).is_new_point_anomalous(history, DataPoint(now, float(metric.value)))
        except ValueError as exc:
            return ConstraintResult(self.description, FAILURE, f"anomaly detection failed: {exc}", metric)
        if not result.is_anomalous:
            return ConstraintResult(self.description, SUCCESS, None, metric)
        details = "; ".join(a.detail for a in result.anomalies)
        return ConstraintResult(self.description, FAILURE,
                                f"anomaly against {len(history)} earlier results: {details}", metric)
