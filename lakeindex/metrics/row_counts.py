"""Counting analyzers: Size, ZerosCount, Completeness, Compliance and PatternMatch (ratios of matching rows).

Semantics follow Deequ: Size counts rows (0 on empty data, never a failure), ZerosCount the non-null values
equal to 0 (0 on empty data, where Deequ's SQL sum over no rows fails); Completeness is the
fraction of non-null values; Compliance the fraction of rows whose predicate is true (a null predicate
result is not compliant). Ratios over zero rows fail rather than report 0 or 1. NaN is a value, not
null, as in Spark. One deliberate difference: PatternMatch divides by the *non-null* values, because
completeness is its own metric and users of ``has_pattern`` expect nulls not to count as mismatches.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from lakeindex.metrics.analyzer import MetricError, ScanAnalyzer, ratio, require_column, require_numeric
from lakeindex.metrics.metric import Metric
from lakeindex.metrics.states import NumMatches
from lakeindex.sql_identifiers import col

if TYPE_CHECKING:
    from pyspark.sql import Column
    from pyspark.sql.types import StructType


@dataclass(frozen=True)
class Size(ScanAnalyzer):
    """Number of rows (matching ``where``)."""

    where: str | None = None
    entity = "Dataset"

    def aggregations(self) -> dict[str, Column]:
        k, e = self.row_count()
        return {k: e}

    def state_from(self, row: dict[str, Any]) -> NumMatches:
        n = int(row[self.row_count()[0]] or 0)
        return NumMatches(n, n)

    def metric_from_state(self, state: NumMatches | None) -> Metric:
        return self.success(float(state.num if state else 0))


@dataclass(frozen=True)
class ZerosCount(ScanAnalyzer):
    """Number of non-null values of a numeric column equal to 0 (-0.0 included, NaN not): Deequ's ZerosCount."""

    column: str
    where: str | None = None

    def preconditions(self, schema: StructType) -> None:
        require_numeric(schema, self.column, self.spec())

    def aggregations(self) -> dict[str, Column]:
        from pyspark.sql import functions as F

        c = col(self.column)
        return {self.key(f"zeros({self.column!r})"): F.count(self.conditional(F.lit(1), c.cast("double") == 0)),
                self.key(f"count({self.column!r})"): F.count(self.conditional(c))}

    def state_from(self, row: dict[str, Any]) -> NumMatches:
        return NumMatches(int(row[self.key(f"zeros({self.column!r})")] or 0),
                          int(row[self.key(f"count({self.column!r})")] or 0))

    def metric_from_state(self, state: NumMatches | None) -> Metric:
        return self.success(float(state.num if state else 0), values=state.total if state else 0)


@dataclass(frozen=True)
class _RowRatio(ScanAnalyzer):
    """Fraction of the considered rows that satisfy ``match_expression``."""

    def match_expression(self) -> Column:  # pragma: no cover - abstract
        raise NotImplementedError

    def match_key(self) -> str:  # pragma: no cover - abstract
        raise NotImplementedError

    def denominator(self) -> tuple[str, Column]:
        return self.row_count()

    def aggregations(self) -> dict[str, Column]:
        from pyspark.sql import functions as F

        k, e = self.denominator()
        return {k: e, self.key(self.match_key()): F.count(self.conditional(F.lit(1), self.match_expression()))}

    def state_from(self, row: dict[str, Any]) -> NumMatches:
        return NumMatches(int(row[self.key(self.match_key())] or 0), int(row[self.denominator()[0]] or 0))

    def metric_from_state(self, state: NumMatches | None) -> Metric:
        try:
            return self.success(ratio(state.num, state.total, self.spec()) if state else ratio(0, 0, self.spec()),
                                matches=state.num if state else 0, rows=state.total if state else 0)
        except MetricError as exc:
            return self.failure(str(exc))


@dataclass(frozen=True)
class Completeness(_RowRatio):
    """Fraction of rows where ``column`` is not null."""

    column: str
    where: str | None = None

    def preconditions(self, schema: StructType) -> None:
        require_column(schema, self.column, self.spec())

    def match_expression(self) -> Column:
        return col(self.column).isNotNull()

    def match_key(self) -> str:
        return f"count({self.column!r})"


@dataclass(frozen=True)
class Compliance(_RowRatio):
    """Fraction of rows satisfying the SQL ``predicate``; ``label`` names it in results."""

    label: str
    predicate: str
    where: str | None = None
    entity = "Dataset"

    def instance(self) -> str:
        return self.label

    def preconditions(self, schema: StructType) -> None:
        if not self.predicate.strip():
            raise MetricError(f"{self.spec()}: empty predicate")

    def match_expression(self) -> Column:
        from pyspark.sql import functions as F

        return F.coalesce(F.expr(self.predicate).cast("boolean"), F.lit(False))

    def match_key(self) -> str:
        return f"compliant({self.predicate!r})"


def java_regex_error(pattern: str) -> str | None:
    """Why Java (Spark's ``rlike``) refuses ``pattern``, or None if it compiles or no JVM is at hand
    (Spark Connect: the server will say). Its message's first line, without the Java stack."""
    from pyspark import SparkContext

    jvm = SparkContext._jvm
    if jvm is None:
        return None
    try:
        jvm.java.util.regex.Pattern.compile(pattern)
    except Exception as exc:  # noqa: BLE001 - py4j's error, or pyspark's IllegalArgumentException wrapping it
        return (str(exc).strip().splitlines() or [type(exc).__name__])[0]
    return None


@dataclass(frozen=True)
class PatternMatch(_RowRatio):
    """Fraction of non-null values of ``column`` in which the Java ``pattern`` is found (anchor it for full match)."""

    column: str
    pattern: str
    where: str | None = None

    def preconditions(self, schema: StructType) -> None:
        from pyspark.sql.types import StringType

        dtype = require_column(schema, self.column, self.spec())
        if not isinstance(dtype, StringType):  # as Deequ: a regex over a number's text is not what was meant
            raise MetricError(f"{self.spec()}: column '{self.column}' has type {dtype.simpleString()}, expected a "
                              "string column (a pattern matches text)")
        if not self.pattern:
            raise MetricError(f"{self.spec()}: empty pattern")
        problem = java_regex_error(self.pattern)
        if problem:  # caught on the driver: the metric fails with the reason, no executor stack trace
            raise MetricError(f"{self.spec()}: invalid regular expression: {problem}")

    def denominator(self) -> tuple[str, Column]:
        from pyspark.sql import functions as F

        return self.key(f"count({self.column!r})"), F.count(self.conditional(col(self.column)))

    def match_expression(self) -> Column:
        from pyspark.sql import functions as F

        return F.coalesce(col(self.column).cast("string").rlike(self.pattern), F.lit(False))

    def match_key(self) -> str:
        return f"rlike({self.column!r}, {self.pattern!r})"
