"""Schema analyzers: ColumnCount and ColumnExists, answered from the DataFrame's schema without a Spark job.

As Deequ's: ColumnCount is the number of top-level columns, ColumnExists 1.0 if a top-level column of
exactly that name exists (case-sensitive, Deequ's ``data.columns.contains``) and 0.0 if not; neither takes a
``where`` filter (a filter selects rows, not columns). Their state is the list of column names, so the
metric of D ∪ ΔD counts the columns of either part.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from lakeindex.metrics.analyzer import SchemaAnalyzer
from lakeindex.metrics.metric import Metric
from lakeindex.metrics.states import ColumnNames

if TYPE_CHECKING:
    from pyspark.sql.types import StructType


@dataclass(frozen=True)
class ColumnCount(SchemaAnalyzer):
    """Number of columns of the data."""

    def state_from_schema(self, schema: StructType) -> ColumnNames:
        return ColumnNames(tuple(schema.fieldNames()))

    def metric_from_state(self, state: ColumnNames | None) -> Metric:
        return self.success(float(len(state.names) if state else 0))


@dataclass(frozen=True)
class ColumnExists(SchemaAnalyzer):
    """1.0 if the data has a column named ``column``, else 0.0 (a metric, so a missing column is not an error)."""

    column: str

    def state_from_schema(self, schema: StructType) -> ColumnNames:
        return ColumnNames(tuple(schema.fieldNames()))

    def metric_from_state(self, state: ColumnNames | None) -> Metric:
        return self.success(1.0 if state is not None and self.column in state.names else 0.0)
