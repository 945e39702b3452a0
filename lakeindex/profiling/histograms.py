"""Pass 3 of the profiler: exact value frequencies of all low-cardinality columns in ONE Spark job.

Every row is exploded into one ``(column, value-as-string)`` pair per selected column, and a single
``groupBy(column, value).count()`` counts them all; the data is read once however many columns there
are. A window over each column's counts ranks them and counts its distinct values, so at most
``limit`` rows per column reach the driver even if the HLL estimate that selected the column was far
too low: such a column is reported as truncated rather than with an incomplete histogram.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from lakeindex.sql_identifiers import col

if TYPE_CHECKING:
    from pyspark.sql import DataFrame


@dataclass(frozen=True)
class ValueCounts:
    """Counts of the non-null values of one column; ``complete`` is False when it had more than the limit."""

    counts: dict[str, int]
    num_distinct: int
    complete: bool


def value_counts(df: DataFrame, columns: list[str], limit: int) -> dict[str, ValueCounts]:
    """Frequencies of the non-null values (as strings) of ``columns``, at most ``limit`` values per column."""
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    if not columns:
        return {}
    pairs = [F.struct(F.lit(name).alias("c"), col(name).cast("string").alias("v")) for name in columns]
    cells = df.select(F.explode(F.array(*pairs)).alias("e")).select("e.c", "e.v").where(F.col("v").isNotNull())
    counts = cells.groupBy("c", "v").agg(F.count(F.lit(1)).alias("n"))
    per_column = Window.partitionBy("c")
    ranked = (counts.withColumn("num_distinct", F.count(F.lit(1)).over(per_column))
              .withColumn("rank", F.row_number().over(per_column.orderBy(F.col("n").desc(), F.col("v")))))
    rows = ranked.where(F.col("rank") <= limit).select("c", "v", "n", "num_distinct").collect()
    found: dict[str, dict[str, int]] = {name: {} for name in columns}
    distinct: dict[str, int] = dict.fromkeys(columns, 0)
    for c, v, n, d in rows:
        found[c][v] = int(n)
        distinct[c] = int(d)
    return {name: ValueCounts(found[name], distinct[name], distinct[name] <= limit) for name in columns}
