"""Grouping analyzers, computed from a shared frequency table: Uniqueness, Distinctness,
UniqueValueRatio, CountDistinct, DuplicateRowCount, ExactQuantile, Entropy, MutualInformation and Histogram.

Definitions follow Deequ's implementation, with N the rows where at least one grouping column is
non-null and V the distinct values: Uniqueness = |{v: c_v = 1}| / N, Distinctness = |V| / N,
UniqueValueRatio = |{v: c_v = 1}| / |V| (what the paper's §3.1 text calls uniqueness), DuplicateRowCount =
Σ_{c_v > 1} c_v = N − |{v: c_v = 1}|, Entropy = −Σ c_v/N · ln(c_v/N), MutualInformation =
Σ c_ab/N · ln(c_ab·N / (c_a·c_b)). ExactQuantile is Spark's exact ``percentile`` weighted by the counts, so
it merges exactly across deltas (Deequ's own state cannot). Every analyzer on the same FrequencySpec is
answered by one aggregation over the table (scan sharing for grouping, §4).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from lakeindex.metrics.analyzer import Analyzer, MetricError, require_column, require_numeric
from lakeindex.metrics.frequencies import COUNT, FrequencySpec, FrequencyState, bin_labels
from lakeindex.metrics.metric import Metric

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame
    from pyspark.sql.types import StructType

MAX_DETAIL_BINS = 1000  # Deequ's MaximumAllowedDetailBins
NO_ROWS = "no rows with a non-null value (empty data, all-null columns, or a where-filter matching none)"


class GroupingAnalyzer(Analyzer):
    """An analyzer answered from the frequency table of ``frequency_spec()``."""

    def frequency_spec(self) -> FrequencySpec:  # pragma: no cover - abstract
        raise NotImplementedError

    def preconditions(self, schema: StructType) -> None:
        for c in self.frequency_spec().columns:
            require_column(schema, c, self.spec())

    def table_aggregations(self) -> dict[str, Column]:
        """Aggregates over the frequency table, keyed so analyzers sharing a table compute each once."""
        from pyspark.sql import functions as F

        return {"rows": F.sum(COUNT), "distinct": F.count(F.lit(1)),
                "singletons": F.count(F.when(F.col(COUNT) == 1, F.lit(1)))}

    def metric_from_table(self, row: dict[str, Any], state: FrequencyState) -> Metric:  # pragma: no cover
        raise NotImplementedError

    def metric_from_state(self, state: FrequencyState | None) -> Metric:
        """Metric from a (merged) table alone: one aggregation job; the runner batches this instead."""
        if state is None:
            return self.failure(f"{self.spec()}: {NO_ROWS}")
        aggs = self.table_aggregations()
        values = state.table.agg(*[e.alias(f"a{i}") for i, e in enumerate(aggs.values())]).collect()[0]
        return self.metric_from_table(dict(zip(aggs, values, strict=True)), state)


def _columns(value: str | tuple[str, ...]) -> tuple[str, ...]:
    return (value,) if isinstance(value, str) else tuple(value)


@dataclass(frozen=True)
class _RatioOfTable(GroupingAnalyzer):
    columns: tuple[str, ...] | str
    where: str | None = None

    # the value when no row has a value: None fails the metric (a ratio of nothing); a count is 0
    empty_value: ClassVar[float | None] = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "columns", _columns(self.columns))
        if not self.columns:
            raise ValueError(f"{type(self).__name__} needs at least one column")

    @property
    def entity(self) -> str:  # type: ignore[override]
        """Deequ's entity: ``Column`` for one column, ``Multicolumn`` for a combination."""
        return "Column" if len(self.columns) == 1 else "Multicolumn"

    def frequency_spec(self) -> FrequencySpec:
        return FrequencySpec(self.columns, self.where)

    def compute(self, rows: int, distinct: int, singletons: int) -> float:  # pragma: no cover - abstract
        raise NotImplementedError

    def metric_from_table(self, row: dict[str, Any], state: FrequencyState) -> Metric:
        rows, distinct, singletons = int(row["rows"] or 0), int(row["distinct"] or 0), int(row["singletons"] or 0)
        if rows == 0:
            if self.empty_value is not None:
                return self.success(self.empty_value, rows=0, distinct=0, singletons=0)
            return self.failure(f"{self.spec()}: {NO_ROWS}")
        return self.success(self.compute(rows, distinct, singletons), rows=rows, distinct=distinct,
                            singletons=singletons)


@dataclass(frozen=True)
class Uniqueness(_RatioOfTable):
    """Fraction of rows whose value (combination) occurs exactly once."""

    def compute(self, rows: int, distinct: int, singletons: int) -> float:
        return singletons / rows


@dataclass(frozen=True)
class Distinctness(_RatioOfTable):
    """Distinct values over rows."""

    def compute(self, rows: int, distinct: int, singletons: int) -> float:
        return distinct / rows


@dataclass(frozen=True)
class UniqueValueRatio(_RatioOfTable):
    """Values occurring once over distinct values."""

    def compute(self, rows: int, distinct: int, singletons: int) -> float:
        return singletons / distinct


@dataclass(frozen=True)
class CountDistinct(_RatioOfTable):
    """Exact number of distinct non-null values (combinations); 0 for a column without values (Deequ)."""

    empty_value: ClassVar[float | None] = 0.0

    def compute(self, rows: int, distinct: int, singletons: int) -> float:
        return float(distinct)


@dataclass(frozen=True)
class DuplicateRowCount(_RatioOfTable):
    """Rows whose value (combination) occurs more than once, all of them counted (Deequ's DuplicateRowCount:
    Σ of the counts above 1); 0 on no rows. Rows with every column null are left out, as in all grouping
    analyzers; Deequ's "no columns means all columns" is not offered (the columns are part of the spec)."""

    empty_value: ClassVar[float | None] = 0.0

    def compute(self, rows: int, distinct: int, singletons: int) -> float:
        return float(rows - singletons)


@dataclass(frozen=True)
class ExactQuantile(GroupingAnalyzer):
    """Exact quantile of the non-null values, as Spark's ``percentile`` (linear interpolation between ranks:
    position q·(n−1)); Deequ's ExactQuantile. Values are read back as doubles from the table's text, so a
    float (32-bit) column's 1.1 is 1.1, where a direct cast gives 1.100000023841858."""

    column: str
    quantile: float = 0.5
    where: str | None = None

    def frequency_spec(self) -> FrequencySpec:
        return FrequencySpec((self.column,), self.where)

    def preconditions(self, schema: StructType) -> None:
        require_numeric(schema, self.column, self.spec())
        if not 0.0 <= self.quantile <= 1.0:
            raise MetricError(f"{self.spec()}: quantile {self.quantile} is outside [0, 1]")

    def _key(self) -> str:
        return f"percentile({self.quantile!r})"

    def table_aggregations(self) -> dict[str, Column]:
        from pyspark.sql import functions as F

        aggs = super().table_aggregations()
        aggs[self._key()] = F.percentile(F.col("g0").cast("double"), F.lit(float(self.quantile)), F.col(COUNT))
        return aggs

    def metric_from_table(self, row: dict[str, Any], state: FrequencyState) -> Metric:
        if int(row["rows"] or 0) == 0 or row[self._key()] is None:
            return self.failure(f"{self.spec()}: {NO_ROWS}")
        return self.success(float(row[self._key()]))


@dataclass(frozen=True)
class Entropy(GroupingAnalyzer):
    """Shannon entropy (natural log) of the non-null value distribution."""

    column: str
    where: str | None = None

    def frequency_spec(self) -> FrequencySpec:
        return FrequencySpec((self.column,), self.where)

    def table_aggregations(self) -> dict[str, Column]:
        from pyspark.sql import functions as F

        aggs = super().table_aggregations()
        aggs["sum_c_ln_c"] = F.sum(F.col(COUNT) * F.log(F.col(COUNT)))
        return aggs

    def metric_from_table(self, row: dict[str, Any], state: FrequencyState) -> Metric:
        import math

        n = int(row["rows"] or 0)
        if n == 0:
            return self.failure(f"{self.spec()}: {NO_ROWS}")
        if int(row["distinct"] or 0) == 1:
            return self.success(0.0)  # one value: exactly 0, where ln n - n ln n / n leaves rounding noise
        return self.success(max(math.log(n) - float(row["sum_c_ln_c"]) / n, 0.0))


@dataclass(frozen=True)
class MutualInformation(GroupingAnalyzer):
    """Mutual information (natural log) of two columns over rows where at least one is non-null."""

    columns: tuple[str, str]
    where: str | None = None
    entity = "Multicolumn"

    def __post_init__(self) -> None:
        object.__setattr__(self, "columns", tuple(self.columns))
        if len(self.columns) != 2:
            raise ValueError(f"MutualInformation needs exactly two columns, got {self.columns!r}")

    def frequency_spec(self) -> FrequencySpec:
        return FrequencySpec(self.columns, self.where)

    def metric_from_table(self, row: dict[str, Any], state: FrequencyState) -> Metric:
        return self.metric_from_state(state)

    def metric_from_state(self, state: FrequencyState | None) -> Metric:
        """Needs the marginals: one job over the joint table with window sums per column."""
        import math

        from pyspark.sql import Window
        from pyspark.sql import functions as F

        if state is None:
            return self.failure(f"{self.spec()}: {NO_ROWS}")
        t = state.table
        t = t.withColumn("ca", F.sum(COUNT).over(Window.partitionBy("g0"))) \
             .withColumn("cb", F.sum(COUNT).over(Window.partitionBy("g1")))
        r = t.agg(F.sum(COUNT).alias("n"), F.sum(F.col(COUNT) * (F.log(COUNT) - F.log("ca") - F.log("cb")))
                  .alias("s"), F.countDistinct("g0").alias("d0"), F.countDistinct("g1").alias("d1")).collect()[0]
        n = int(r["n"] or 0)
        if n == 0:
            return self.failure(f"{self.spec()}: {NO_ROWS}")
        if not r["d0"] or not r["d1"]:  # a column without values (Deequ fails here too)
            return self.failure(f"{self.spec()}: a column has no non-null values")
        if r["d0"] == 1 or r["d1"] == 1:
            return self.success(0.0)  # a constant column shares no information: exactly 0
        return self.success(max(float(r["s"]) / n + math.log(n), 0.0))


@dataclass(frozen=True)
class Histogram(GroupingAnalyzer):
    """Value (or bin) counts with nulls as ``NullValue``; beyond ``max_bins`` the rest forms a tail bucket.

    ``bins`` are numeric bin edges (labels ``[a, b)``, open-ended outer bins); ``bin_expression`` is a
    Spark SQL expression giving each row's bin label (Deequ's binning UDF, without shipping Python code).
    """

    column: str
    bins: tuple[float, ...] | None = None
    bin_expression: str | None = None
    max_bins: int = 1000
    where: str | None = None

    def __post_init__(self) -> None:
        if self.bins is not None:  # Deequ sorts the edges; two equal edges would make an empty bin
            object.__setattr__(self, "bins", tuple(sorted(float(b) for b in self.bins)))
            if not self.bins or len(set(self.bins)) != len(self.bins):
                raise ValueError(f"Histogram bins must be distinct edges, got {self.bins!r}")
        if self.bins is not None and self.bin_expression:
            raise ValueError("Histogram: give bins or bin_expression, not both")
        if not 1 <= self.max_bins <= MAX_DETAIL_BINS:
            raise ValueError(f"Histogram: max_bins must be 1 to {MAX_DETAIL_BINS} (Deequ's limit), got {self.max_bins}")

    def frequency_spec(self) -> FrequencySpec:
        return FrequencySpec((self.column,), self.where, keep_nulls=True, bins=self.bins,
                             bin_expression=self.bin_expression)

    def preconditions(self, schema: StructType) -> None:
        if self.bins is not None:
            require_numeric(schema, self.column, self.spec())
        else:
            require_column(schema, self.column, self.spec())

    def metric_from_table(self, row: dict[str, Any], state: FrequencyState) -> Metric:
        return self.histogram(state.table, int(row["rows"] or 0), int(row["distinct"] or 0))

    def metric_from_state(self, state: FrequencyState | None) -> Metric:
        if state is None:
            if self.bins is not None:
                return self.histogram(None, 0, 0)  # type: ignore[arg-type]
            return self.failure(f"{self.spec()}: no rows")
        return super().metric_from_state(state)

    def histogram(self, table: DataFrame, rows: int, distinct: int) -> Metric:
        """The top ``max_bins`` buckets (one bounded collect) and the tail's totals."""
        from pyspark.sql import functions as F

        if rows == 0:
            if self.bins is not None:  # declared bins over no data: each bin is there, empty (Deequ)
                labels = bin_labels(self.bins)
                return self.success({"bins": {b: {"absolute": 0, "ratio": 0.0} for b in labels},
                                     "number_of_bins": len(labels), "tail": {"bins": 0, "absolute": 0, "ratio": 0.0}})
            return self.failure(f"{self.spec()}: no rows")
        top = table.orderBy(F.col(COUNT).desc(), F.col("g0")).limit(self.max_bins).collect()
        bins = {str(r["g0"]): {"absolute": int(r[COUNT]), "ratio": int(r[COUNT]) / rows} for r in top}
        shown = sum(b["absolute"] for b in bins.values())
        tail = {"bins": distinct - len(bins), "absolute": rows - shown, "ratio": (rows - shown) / rows}
        return self.success({"bins": bins, "number_of_bins": distinct, "tail": tail})

