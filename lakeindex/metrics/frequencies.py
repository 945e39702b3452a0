"""Frequency tables: the shared, distributed state of the grouping analyzers (Deequ §4.1, Figure 3).

A frequency table is a Spark DataFrame ``(g0, …, gk, count)``: one row per distinct value (combination)
of the grouping expressions, plus a ``sum`` column when the spec sums another column per group (Deequ's
``Histogram.Sum``). It stays distributed, so a high-cardinality column never reaches the driver. Tables of
D and ΔD merge by union and re-aggregation (the paper's outer join with summed counts and sums), which is
exact.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING

from lakeindex.metrics.states import State
from lakeindex.sql_identifiers import col

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame

COUNT = "count"
SUM = "sum"  # the per-group sum of a spec's sum_column
NULL_LABEL = "NullValue"  # Deequ's name for the null bucket of a histogram


@dataclass(frozen=True)
class FrequencySpec:
    """What to group by: columns, an optional bin expression for one column, the where-filter, null handling.

    ``keep_nulls=False`` (Uniqueness, Entropy, …) drops rows where every grouping column is null, as
    Deequ does; histograms keep nulls as their own bucket. ``sum_column`` adds the per-group sum of that
    numeric column (nulls skipped, 0 for a group without values): a long for integral columns, else a double.
    A table with sums is its own spec, never shared with count-only analyzers (its state key differs).
    """

    columns: tuple[str, ...]
    where: str | None = None
    keep_nulls: bool = False
    bins: tuple[float, ...] | None = None
    bin_expression: str | None = None
    sum_column: str | None = field(default=None, metadata={"omit_default": True})

    def __repr__(self) -> str:
        """The text identity (the state store's key, see runner.frequency_key): fields added later are left
        out at their default ("omit_default"), so tables stored before they existed keep their keys."""
        args = ", ".join(f"{f.name}={getattr(self, f.name)!r}" for f in fields(self)
                         if not (f.metadata.get("omit_default") and getattr(self, f.name) == f.default))
        return f"{type(self).__name__}({args})"

    def names(self) -> list[str]:
        return [f"g{i}" for i in range(len(self.columns))]

    def key_expressions(self) -> list[Column]:
        from pyspark.sql import functions as F

        if self.bin_expression:
            return [F.expr(self.bin_expression).cast("string").alias("g0")]
        if self.bins is not None:
            return [_bin_label(col(self.columns[0]).cast("double"), self.bins).alias("g0")]
        # as text: persisted tables keep one schema even if a column's type drifts between deltas
        return [col(c).cast("string").alias(f"g{i}") for i, c in enumerate(self.columns)]

    def table(self, df: DataFrame) -> DataFrame:
        """The frequency table of ``df`` under this spec (lazy; one shuffle when evaluated)."""
        from functools import reduce

        from pyspark.sql import functions as F

        if self.where:
            df = df.where(F.expr(self.where))
        summed = [self._summand(df).alias(SUM)] if self.sum_column else []
        keyed = df.select(*self.key_expressions(), *summed)
        if not self.keep_nulls:
            keyed = keyed.where(reduce(lambda a, b: a | b, [F.col(n).isNotNull() for n in self.names()]))
        elif len(self.names()) == 1:
            keyed = keyed.select(F.coalesce(F.col("g0"), F.lit(NULL_LABEL)).alias("g0"), *([SUM] if summed else []))
        aggs = [F.count(F.lit(1)).alias(COUNT)]
        if summed:  # a group whose values are all null sums to 0, as Deequ reads its null sum as a Long
            aggs.append(F.coalesce(F.sum(SUM), F.lit(0)).alias(SUM))
        return keyed.groupBy(*self.names()).agg(*aggs)

    def _summand(self, df: DataFrame) -> Column:
        """The summed column as a long (integral types: exact sums, as Deequ's Long) or else a double."""
        from pyspark.sql.types import IntegralType

        names = {f.name: f.dataType for f in df.schema.fields}
        if self.sum_column not in names:
            raise ValueError(f"sum column '{self.sum_column}' does not exist (columns: {', '.join(names)})")
        return col(self.sum_column).cast("long" if isinstance(names[self.sum_column], IntegralType) else "double")


def bin_labels(edges: tuple[float, ...]) -> list[str]:
    """The labels of the bins that ``edges`` make, in order: ``(-inf, e0)``, ``[e0, e1)``, ..., ``[ek, inf)``."""
    def fmt(v: float) -> str:
        return repr(float(v))

    return ([f"(-inf, {fmt(edges[0])})"] + [f"[{fmt(lo)}, {fmt(hi)})" for lo, hi in zip(edges, edges[1:], strict=False)]
            + [f"[{fmt(edges[-1])}, inf)"])


def _bin_label(x: Column, edges: tuple[float, ...]) -> Column:
    """Label ``[a, b)`` of the bin holding ``x``; outer bins are open-ended; null stays null."""
    from pyspark.sql import functions as F

    labels = bin_labels(edges)
    expr = F.when(x < edges[0], F.lit(labels[0]))
    for hi, label in zip(edges[1:], labels[1:-1], strict=True):
        expr = expr.when(x < hi, F.lit(label))
    return F.when(x.isNull(), F.lit(None)).otherwise(expr.otherwise(F.lit(labels[-1])))


@dataclass(frozen=True, eq=False)
class FrequencyState(State):
    """A frequency table (distributed) for one FrequencySpec; merges by union and summed counts (and sums)."""

    kind = "frequencies"
    table: DataFrame
    group_names: tuple[str, ...]

    def merge(self, other: FrequencyState) -> FrequencyState:
        from pyspark.sql import functions as F

        both = self.table.unionByName(other.table)  # a long and a double sum (type drift) widen to double
        values = [c for c in self.table.columns if c not in self.group_names]
        merged = both.groupBy(*self.group_names).agg(
            *[(F.sum(c).cast("long") if c == COUNT else F.sum(c)).alias(c) for c in values])
        return FrequencyState(merged, self.group_names)

    def to_dict(self) -> dict:
        raise TypeError("a frequency table is stored as Parquet by the state store, not as JSON")
