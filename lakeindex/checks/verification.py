"""VerificationSuite: run checks on a DataFrame with all needed metrics computed in shared passes.

    result = (VerificationSuite().on_data(df).add_check(check)
              .use_repository(repo, "orders").save_or_append_result(ResultKey.now({"day": "2026-11-21"}))
              .run())
    result.status, result.to_dict(), result.as_dataframe(spark)

Status is ``Success``, ``Warning`` (only warning-level checks failed) or ``Error``. Metrics are saved to
the repository (when given) after the checks are evaluated, so anomaly checks compare the new value
with the history before it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from lakeindex.checks.check import Check, CheckResult
from lakeindex.checks.constraint import FAILURE, SUCCESS, EvaluationContext
from lakeindex.checks.row_level_results import RowLevelColumn, row_level_columns, row_level_results
from lakeindex.metrics.analyzer import Analyzer
from lakeindex.metrics.context import AnalyzerContext
from lakeindex.metrics.runner import run_analysis

if TYPE_CHECKING:
    import pandas as pd
    from pyspark.sql import DataFrame, SparkSession

    from lakeindex.metrics.state_store import FileSystemStateStore
    from lakeindex.repository import FileSystemMetricsRepository, ResultKey

STATUS_ORDER = {"Success": 0, "Warning": 1, "Error": 2}


@dataclass
class VerificationResult:
    """Overall status, per-check results and all metrics computed."""

    status: str
    check_results: list[CheckResult]
    metrics: AnalyzerContext
    saved_to: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        out = {"status": self.status, "checks": [c.to_dict() for c in self.check_results],
               "metrics": self.metrics.to_dicts()}
        if self.saved_to:
            out["saved_to"] = self.saved_to
        return out

    def as_dataframe(self, spark: SparkSession) -> DataFrame:
        """One row per constraint: check, level, check status, constraint, status, message, metric value."""
        import json

        rows = []
        for cr in self.check_results:
            for r in cr.constraint_results:
                value = r.metric.value if r.metric is not None else None
                rows.append((cr.check.description, cr.check.level, cr.status, r.constraint, r.status, r.message,
                             float(value) if isinstance(value, int | float) else None,
                             json.dumps(r.samples) if r.samples is not None else None))
        schema = ("check string, check_level string, check_status string, constraint string, "
                  "constraint_status string, message string, metric_value double, offending_samples string")
        return spark.createDataFrame(rows, schema)

    def row_level_results(self, data: DataFrame, filtered_row: str = "true", constraints: bool = True) -> DataFrame:
        """``data`` plus a boolean column per check with row-level constraints (Deequ's
        rowLevelResultsAsDataFrame) and one per row-level constraint; lazy, nothing is collected.

        TRUE passes, FALSE fails, NULL is not judged; rows outside a constraint's ``where`` are TRUE, or
        NULL with ``filtered_row="null"``. See :mod:`lakeindex.checks.row_level_results` for the names.
        """
        return row_level_results(data, self.check_results, filtered_row, constraints)

    def row_level_columns(self, data: DataFrame, constraints: bool = True) -> list[RowLevelColumn]:
        """The columns :meth:`row_level_results` adds to ``data``: names, checks and constraints, in order."""
        return row_level_columns(self.check_results, data.columns, constraints)


class VerificationSuite:
    """Builder for a verification run (Deequ's ``VerificationSuite().onData(df).addCheck(...).run()``)."""

    def __init__(self) -> None:
        self.data: DataFrame | None = None
        self.checks: list[Check] = []
        self.extra_analyzers: list[Analyzer] = []
        self.repository: FileSystemMetricsRepository | None = None
        self.dataset: str | None = None
        self.result_key: ResultKey | None = None
        self.sample_size = 5
        self.previous_states: FileSystemStateStore | None = None
        self.next_states: FileSystemStateStore | None = None

    def on_data(self, df: DataFrame | pd.DataFrame) -> VerificationSuite:
        """The data to verify: a Spark DataFrame, or a pandas one (converted through Arrow, see spark_frames)."""
        from lakeindex.spark_frames import as_spark_frame

        self.data = as_spark_frame(df)
        return self

    def add_check(self, check: Check) -> VerificationSuite:
        self.checks.append(check)
        return self

    def add_checks(self, checks: Iterable[Check]) -> VerificationSuite:
        self.checks.extend(checks)
        return self

    def add_required_analyzers(self, analyzers: Iterable[Analyzer]) -> VerificationSuite:
        """Compute (and store) these metrics too, though no check uses them."""
        self.extra_analyzers.extend(analyzers)
        return self

    def use_repository(self, repository: FileSystemMetricsRepository, dataset: str) -> VerificationSuite:
        self.repository, self.dataset = repository, dataset
        return self

    def save_or_append_result(self, key: ResultKey) -> VerificationSuite:
        self.result_key = key
        return self

    def with_offending_samples(self, n: int) -> VerificationSuite:
        """How many offending rows/values to show per failed row-level constraint (0 disables the queries)."""
        self.sample_size = max(0, int(n))
        return self

    def aggregate_with(self, store: FileSystemStateStore | None) -> VerificationSuite:
        """Check D ∪ ΔD: merge stored states of earlier data (metrics then cover all of it).

        Offending samples of failed row-level constraints come from ΔD only: D is not read again.
        """
        self.previous_states = store
        return self

    def save_states_with(self, store: FileSystemStateStore | None) -> VerificationSuite:
        self.next_states = store
        return self

    def run(self) -> VerificationResult:
        if self.data is None:
            raise ValueError("VerificationSuite: call on_data(df) before run()")
        if self.result_key is not None and self.repository is None:
            raise ValueError("VerificationSuite: save_or_append_result needs use_repository(repo, dataset)")
        analyzers = [a for c in self.checks for a in c.analyzers()] + self.extra_analyzers
        context = run_analysis(self.data, analyzers, self.previous_states, self.next_states)
        ctx = EvaluationContext(self.repository, self.dataset, self.result_key)
        check_results = []
        for check in self.checks:
            results = []
            for constraint in check.constraints:
                r = constraint.evaluate(context.metric_map, ctx)
                if r.status == FAILURE and self.sample_size and r.metric is not None and r.metric.ok:
                    r.samples = constraint.offending(self.data, self.sample_size)
                results.append(r)
            ok = all(r.status == SUCCESS for r in results)
            status = "Success" if ok else ("Error" if check.level == "error" else "Warning")
            check_results.append(CheckResult(check, status, results))
        status = max((c.status for c in check_results), key=STATUS_ORDER.__getitem__, default="Success")
        saved = None
        if self.repository is not None and self.result_key is not None:
            saved = self.repository.save(self.dataset, self.result_key, context.metrics())
        return VerificationResult(status, check_results, context, saved)
