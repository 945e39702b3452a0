"""Numeric and length analyzers: Minimum, Maximum, Range, Mean, Sum, StandardDeviation, Variance, RatioOfSums,
Correlation, Min/MaxLength.

Nulls are skipped; a column with no non-null value (or no rows) yields a failed metric, as in Deequ,
rather than a made-up 0. StandardDeviation is the population deviation (Deequ's choice) and
Correlation is Pearson's over the rows where both columns are non-null. RatioOfSums divides two sums as
Deequ does: a zero denominator gives ±infinity (NaN for 0/0), assertable like any value. Values are aggregated as
doubles; NaN propagates (a NaN in the column makes Mean NaN and is Spark's largest value for Max).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

from lakeindex.metrics.analyzer import MetricError, ScanAnalyzer, require_column, require_numeric
from lakeindex.metrics.metric import Metric
from lakeindex.metrics.states import CoMoments, Extreme, Moments, Span, SumCount, SumPair
from lakeindex.sql_identifiers import col

if TYPE_CHECKING:
    from pyspark.sql import Column
    from pyspark.sql.types import StructType

NO_VALUES = "no non-null values (empty data, an all-null column, or a where-filter matching no rows)"


def _num(c: str) -> Column:
    return col(c).cast("double")


@dataclass(frozen=True)
class _NumericColumn(ScanAnalyzer):
    column: str
    where: str | None = None

    def preconditions(self, schema: StructType) -> None:
        require_numeric(schema, self.column, self.spec())


@dataclass(frozen=True)
class _Extreme(_NumericColumn):
    """Deequ's NullBehavior for the extremes: ``ignore`` skips nulls; ``fail`` counts a null as the most extreme
    value (``-inf`` for a minimum, ``+inf`` for a maximum, as Deequ's Double.MinValue/MaxValue), so a bound on
    that side fails; ``empty_string`` (lengths only) counts a null as ``""``, of length 0."""

    null_behavior: str = field(default="ignore", metadata={"omit_default": True})
    is_max = False
    label = "min"
    null_behaviors: ClassVar[tuple[str, ...]] = ("ignore", "fail")

    def __post_init__(self) -> None:
        if self.null_behavior not in self.null_behaviors:
            raise ValueError(f"{type(self).__name__}: null_behavior must be one of {self.null_behaviors}, "
                             f"got {self.null_behavior!r}")

    def value_expression(self) -> Column:
        return _num(self.column)

    def _counted(self) -> Column:
        """The value aggregated: the column's, with nulls replaced when ``null_behavior`` is ``fail``."""
        from pyspark.sql import functions as F

        value = self.value_expression()
        if self.null_behavior == "fail":
            value = F.coalesce(value, F.lit(math.inf if self.is_max else -math.inf))
        return value

    def _key(self) -> str:
        shown = "" if self.null_behavior == "ignore" else f", {self.null_behavior}"
        return self.key(f"{self.label}({self.column!r}{shown})")

    def aggregations(self) -> dict[str, Column]:
        from pyspark.sql import functions as F

        agg = F.max if self.is_max else F.min
        return {self._key(): agg(self.conditional(self._counted()))}

    def state_from(self, row: dict[str, Any]) -> Extreme:
        v = row[self._key()]
        return Extreme(None if v is None else float(v), self.is_max)

    def metric_from_state(self, state: Extreme | None) -> Metric:
        if state is None or state.value is None:
            return self.failure(f"{self.spec()}: {NO_VALUES}")
        return self.success(state.value)


@dataclass(frozen=True)
class Minimum(_Extreme):
    """Smallest non-null value of a numeric column."""


@dataclass(frozen=True)
class Maximum(_Extreme):
    """Largest non-null value of a numeric column."""

    is_max = True
    label = "max"


@dataclass(frozen=True)
class Range(_NumericColumn):
    """Largest minus smallest non-null value (Deequ's Range); shares the scan's min and max aggregations."""

    def _ends(self) -> tuple[Minimum, Maximum]:
        return Minimum(self.column, self.where), Maximum(self.column, self.where)

    def aggregations(self) -> dict[str, Column]:
        low, high = self._ends()
        return {**low.aggregations(), **high.aggregations()}

    def state_from(self, row: dict[str, Any]) -> Span:
        low, high = self._ends()
        return Span(low.state_from(row).value, high.state_from(row).value)

    def metric_from_state(self, state: Span | None) -> Metric:
        if state is None or state.low is None or state.high is None:
            return self.failure(f"{self.spec()}: {NO_VALUES}")
        return self.success(state.high - state.low)


@dataclass(frozen=True)
class _Length(_Extreme):
    null_behaviors: ClassVar[tuple[str, ...]] = ("ignore", "fail", "empty_string")

    def preconditions(self, schema: StructType) -> None:
        from pyspark.sql.types import StringType

        dtype = require_column(schema, self.column, self.spec())
        if not isinstance(dtype, StringType):
            raise MetricError(f"{self.spec()}: column '{self.column}' has type {dtype.simpleString()}, "
                              "expected a string column")

    def value_expression(self) -> Column:
        from pyspark.sql import functions as F

        value = col(self.column)
        if self.null_behavior == "empty_string":
            value = F.coalesce(value, F.lit(""))
        return F.length(value).cast("double")


@dataclass(frozen=True)
class MinLength(_Length):
    """Length in characters of the shortest non-null string."""

    label = "min_length"


@dataclass(frozen=True)
class MaxLength(_Length):
    """Length in characters of the longest non-null string."""

    is_max = True
    label = "max_length"


@dataclass(frozen=True)
class _SumCount(_NumericColumn):
    def aggregations(self) -> dict[str, Column]:
        from pyspark.sql import functions as F

        return {self.key(f"sum({self.column!r})"): F.sum(self.conditional(_num(self.column))),
                self.key(f"count({self.column!r})"): F.count(self.conditional(col(self.column)))}

    def state_from(self, row: dict[str, Any]) -> SumCount:
        total = row[self.key(f"sum({self.column!r})")]
        return SumCount(0.0 if total is None else float(total), int(row[self.key(f"count({self.column!r})")] or 0))


@dataclass(frozen=True)
class Mean(_SumCount):
    """Arithmetic mean of the non-null values."""

    def metric_from_state(self, state: SumCount | None) -> Metric:
        if state is None or state.count == 0:
            return self.failure(f"{self.spec()}: {NO_VALUES}")
        return self.success(state.total / state.count)


@dataclass(frozen=True)
class Sum(_SumCount):
    """Sum of the non-null values."""

    def metric_from_state(self, state: SumCount | None) -> Metric:
        if state is None or state.count == 0:
            return self.failure(f"{self.spec()}: {NO_VALUES}")
        return self.success(state.total)


def moment_aggregations(a: ScanAnalyzer, column: str) -> dict[str, Column]:
    """Count, mean and population variance of ``column`` (keys shared by every analyzer needing them)."""
    from pyspark.sql import functions as F

    v = a.conditional(_num(column))
    return {a.key(f"count({column!r})"): F.count(a.conditional(col(column))), a.key(f"avg({column!r})"): F.avg(v),
            a.key(f"var_pop({column!r})"): F.var_pop(v)}


def moments_from(a: ScanAnalyzer, column: str, row: dict[str, Any]) -> Moments:
    """The Moments state from the values of ``moment_aggregations``."""
    n = int(row[a.key(f"count({column!r})")] or 0)
    if n == 0:
        return Moments(0, 0.0, 0.0)
    return Moments(n, float(row[a.key(f"avg({column!r})")]), float(row[a.key(f"var_pop({column!r})")]) * n)


@dataclass(frozen=True)
class StandardDeviation(_NumericColumn):
    """Population standard deviation of the non-null values."""

    def aggregations(self) -> dict[str, Column]:
        return moment_aggregations(self, self.column)

    def state_from(self, row: dict[str, Any]) -> Moments:
        return moments_from(self, self.column, row)

    def metric_from_state(self, state: Moments | None) -> Metric:
        if state is None or state.n == 0:
            return self.failure(f"{self.spec()}: {NO_VALUES}")
        return self.success(math.sqrt(max(state.m2, 0.0) / state.n))


@dataclass(frozen=True)
class Variance(StandardDeviation):
    """Population variance of the non-null values (the square of StandardDeviation; same state, one pass)."""

    def metric_from_state(self, state: Moments | None) -> Metric:
        if state is None or state.n == 0:
            return self.failure(f"{self.spec()}: {NO_VALUES}")
        return self.success(max(state.m2, 0.0) / state.n)


@dataclass(frozen=True)
class RatioOfSums(ScanAnalyzer):
    """sum(numerator) / sum(denominator), each sum over its column's non-null values (Deequ's RatioOfSums)."""

    numerator: str
    denominator: str
    where: str | None = None
    entity = "Multicolumn"

    def instance(self) -> str:
        return f"{self.numerator},{self.denominator}"

    def preconditions(self, schema: StructType) -> None:
        require_numeric(schema, self.numerator, self.spec())
        require_numeric(schema, self.denominator, self.spec())

    def aggregations(self) -> dict[str, Column]:
        from pyspark.sql import functions as F

        out = {}
        for c in (self.numerator, self.denominator):  # the keys of Sum(c): shared when both are asked
            out[self.key(f"sum({c!r})")] = F.sum(self.conditional(_num(c)))
            out[self.key(f"count({c!r})")] = F.count(self.conditional(col(c)))
        return out

    def state_from(self, row: dict[str, Any]) -> SumPair:
        num, den = (row[self.key(f"sum({c!r})")] for c in (self.numerator, self.denominator))
        return SumPair(float(num or 0.0), float(den or 0.0), int(row[self.key(f"count({self.numerator!r})")] or 0),
                       int(row[self.key(f"count({self.denominator!r})")] or 0))

    def metric_from_state(self, state: SumPair | None) -> Metric:
        if state is None or state.numerator_count == 0 or state.denominator_count == 0:
            return self.failure(f"{self.spec()}: {NO_VALUES}")
        num, den = state.numerator, state.denominator
        if den == 0:  # IEEE division as in Deequ (Scala doubles): ±inf, or NaN for 0/0
            value = math.nan if num == 0 or math.isnan(num) else math.copysign(math.inf, num) * math.copysign(1, den)
        else:
            value = num / den
        return self.success(value, numerator=num, denominator=den)


@dataclass(frozen=True)
class Correlation(ScanAnalyzer):
    """Pearson correlation of two numeric columns over rows where both are non-null."""

    column: str
    other: str
    where: str | None = None
    entity = "Multicolumn"

    def instance(self) -> str:
        return f"{self.column},{self.other}"

    def preconditions(self, schema: StructType) -> None:
        require_numeric(schema, self.column, self.spec())
        require_numeric(schema, self.other, self.spec())

    def _k(self, what: str) -> str:
        return self.key(f"{what}({self.column!r}, {self.other!r})")

    def aggregations(self) -> dict[str, Column]:
        from pyspark.sql import functions as F

        both = col(self.column).isNotNull() & col(self.other).isNotNull()
        x, y = self.conditional(_num(self.column), both), self.conditional(_num(self.other), both)
        return {self._k("pair_count"): F.count(x), self._k("pair_avg_x"): F.avg(x), self._k("pair_avg_y"): F.avg(y),
                self._k("covar_pop"): F.covar_pop(x, y), self._k("pair_var_x"): F.var_pop(x),
                self._k("pair_var_y"): F.var_pop(y)}

    def state_from(self, row: dict[str, Any]) -> CoMoments:
        n = int(row[self._k("pair_count")] or 0)
        if n == 0:
            return CoMoments(0, 0.0, 0.0, 0.0, 0.0, 0.0)
        return CoMoments(n, float(row[self._k("pair_avg_x")]), float(row[self._k("pair_avg_y")]),
                         float(row[self._k("covar_pop")]) * n, float(row[self._k("pair_var_x")]) * n,
                         float(row[self._k("pair_var_y")]) * n)

    def metric_from_state(self, state: CoMoments | None) -> Metric:
        if state is None or state.n == 0:
            return self.failure(f"{self.spec()}: {NO_VALUES}")
        denom = math.sqrt(state.x_mk * state.y_mk)  # one root, as Deequ: identical columns give exactly 1
        if denom == 0:
            return self.success(math.nan)  # a constant column: undefined, NaN as in Deequ (assertable)
        return self.success(max(-1.0, min(1.0, state.ck / denom)))
