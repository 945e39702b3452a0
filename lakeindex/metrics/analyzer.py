"""Analyzer base classes: an analyzer computes one metric from a DataFrame through a mergeable state.

Four physical kinds (the first two as in Deequ §4): *scan* analyzers contribute aggregate expressions to one shared
``df.agg(...)`` pass, and *grouping* analyzers need a frequency table of some columns, shared by every
analyzer grouping by the same columns; *schema* analyzers read only the schema; *query* analyzers (CustomSql)
run their own query and have no mergeable state. Analyzers are frozen dataclasses, so equal parameters mean
the same metric; ``spec()`` is the stable text identity used by the repository and the state store.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Any, ClassVar

from lakeindex.metrics.metric import Metric
from lakeindex.metrics.states import State

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame
    from pyspark.sql.types import StructType


class MetricError(Exception):
    """One metric cannot be computed (bad column, wrong type, no data); the run goes on."""


def require_column(schema: StructType, name: str, what: str) -> Any:
    """The field's type, or a MetricError naming the column and the columns that exist."""
    for f in schema.fields:
        if f.name == name:
            return f.dataType
    names = ", ".join(schema.fieldNames()[:20])
    raise MetricError(f"{what}: column '{name}' does not exist (columns: {names})")


def require_numeric(schema: StructType, name: str, what: str) -> None:
    """Numeric analyzers refuse strings rather than cast silently: a cast hides bad values."""
    from pyspark.sql.types import NumericType

    dtype = require_column(schema, name, what)
    if not isinstance(dtype, NumericType):
        raise MetricError(f"{what}: column '{name}' has type {dtype.simpleString()}, expected a numeric "
                          "column (read the data with a schema or inferSchema, or cast the column)")


@dataclass(frozen=True)
class Analyzer:
    """One metric over one entity (the dataset, a column or columns), optionally on rows matching ``where``."""

    entity: ClassVar[str] = "Column"

    @property
    def name(self) -> str:
        return type(self).__name__

    def instance(self) -> str:
        cols = [getattr(self, f.name) for f in fields(self) if f.name in ("column", "columns")]
        if not cols:
            return "*"
        c = cols[0]
        return ",".join(c) if isinstance(c, tuple) else str(c)

    def spec(self) -> str:
        # a parameter added later is left out at its default (metadata "omit_default"), so stored states and
        # repository histories keyed by the spec stay the same metric's
        args = ", ".join(f"{f.name}={getattr(self, f.name)!r}" for f in fields(self)
                         if not (f.metadata.get("omit_default") and getattr(self, f.name) == f.default))
        return f"{self.name}({args})"

    def preconditions(self, schema: StructType) -> None:
        """Raise MetricError if the metric cannot be computed on this schema (checked before any scan)."""

    def metric_from_state(self, state: State | None) -> Metric:  # pragma: no cover - abstract
        raise NotImplementedError

    def success(self, value: float | dict[str, Any], **extra: Any) -> Metric:
        return Metric(self.spec(), self.name, self.instance(), self.entity, value, None, extra)

    def failure(self, message: str) -> Metric:
        return Metric(self.spec(), self.name, self.instance(), self.entity, None, message)

    def where_condition(self) -> Column | None:
        from pyspark.sql import functions as F

        where = getattr(self, "where", None)
        return F.expr(where) if where else None


class ScanAnalyzer(Analyzer):
    """An analyzer whose state comes from aggregate expressions over all rows (no grouping)."""

    def aggregations(self) -> dict[str, Column]:  # pragma: no cover - abstract
        """Aggregate expressions keyed by a canonical text so the runner computes each once."""
        raise NotImplementedError

    def projections(self) -> dict[str, Column]:
        """Per-row expressions computed once before the aggregation (named; aggregations refer to them)."""
        return {}

    def state_from(self, row: dict[str, Any]) -> State | None:  # pragma: no cover - abstract
        """The state from the aggregated values (``row`` maps the keys of ``aggregations``)."""
        raise NotImplementedError

    def refinement(self, state: State) -> dict[str, Column]:
        """Aggregations of a second shared pass this state needs to be accurate (e.g. Skewness of values far
        from 0), else none: the runner runs one more ``df.agg`` for all analyzers that ask."""
        return {}

    def refined(self, state: State, row: dict[str, Any]) -> State:
        """The state corrected with the second pass's values (``row`` maps the keys of ``refinement``)."""
        return state

    def key(self, what: str) -> str:
        return f"{what}|where={getattr(self, 'where', None)!r}"

    def conditional(self, value: Column, extra: Column | None = None) -> Column:
        """``value`` on rows passing ``where`` (and ``extra``), null elsewhere: aggregates skip nulls."""
        from pyspark.sql import functions as F

        cond = self.where_condition()
        if extra is not None:
            cond = extra if cond is None else (cond & extra)
        return value if cond is None else F.when(cond, value)

    def row_count(self) -> tuple[str, Column]:
        """Key and expression counting the rows that pass ``where``."""
        from pyspark.sql import functions as F

        return self.key("count(*)"), F.count(self.conditional(F.lit(1)))


class SchemaAnalyzer(Analyzer):
    """An analyzer answered from the DataFrame's schema alone (ColumnCount, ColumnExists): no Spark job."""

    entity: ClassVar[str] = "Dataset"

    def state_from_schema(self, schema: StructType) -> State:  # pragma: no cover - abstract
        raise NotImplementedError


class QueryAnalyzer(Analyzer):
    """An analyzer that runs its own Spark query over the data (CustomSql): no shared scan and no mergeable
    state, so it cannot be combined with stored states of other data (aggregate_with) and fails there."""

    entity: ClassVar[str] = "Dataset"

    def metric_from_data(self, data: DataFrame) -> Metric:  # pragma: no cover - abstract
        raise NotImplementedError

    def metric_from_state(self, state: State | None) -> Metric:
        return self.failure(f"{self.spec()}: not mergeable (its query can only run on the whole data), so it "
                            "cannot be computed from stored states or merged with them (aggregate_with); run it "
                            "without stored states")


def ratio(num: int, total: int, what: str) -> float:
    if total == 0:
        raise MetricError(f"{what}: no rows to compute the ratio over (empty data or the where-filter matched none)")
    return num / total
