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

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, ClassVar

from lakeindex.metrics import equal_width
from lakeindex.metrics.analyzer import Analyzer, MetricError, require_column, require_numeric
from lakeindex.metrics.frequencies import COUNT, NULL_LABEL, SUM, FrequencySpec, FrequencyState, bin_labels
from lakeindex.metrics.metric import Metric
from lakeindex.sql_identifiers import quote_identifier

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame
    from pyspark.sql.types import StructType

MAX_DETAIL_BINS = 1000  # Deequ's MaximumAllowedDetailBins
NO_ROWS = "no rows with a non-null value (empty data, all-null columns, or a where-filter matching none)"


class GroupingAnalyzer(Analyzer):
    """An analyzer answered from the frequency table of ``frequency_spec()``."""

    def frequency_spec(self) -> FrequencySpec:  # pragma: no cover - abstract
        raise NotImplementedError

    def on_columns(self, columns: Sequence[str]) -> GroupingAnalyzer:
        """This analyzer for data with these columns (the runner calls it before planning the tables): an
        equal analyzer with the same spec; DuplicateRowCount over all columns learns them here."""
        return self

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
    analyzers. No columns (``columns=()``, the default; Deequ's empty ``Seq``) means all columns of the data,
    learnt from its schema when the analysis runs (``on_columns``), so the spec stays ``columns=()``; the
    metric is then of the ``Dataset`` entity, instance ``*``, as in Deequ."""

    columns: tuple[str, ...] | str = ()
    where: str | None = None
    # all columns of the data when ``columns`` is empty, set by on_columns: no part of identity or spec
    data_columns: tuple[str, ...] = field(default=(), compare=False, repr=False, metadata={"omit_default": True})

    empty_value: ClassVar[float | None] = 0.0

    def __post_init__(self) -> None:
        object.__setattr__(self, "columns", _columns(self.columns))
        object.__setattr__(self, "data_columns", tuple(self.data_columns))

    @property
    def entity(self) -> str:  # type: ignore[override]
        return "Dataset" if not self.columns else super().entity

    def instance(self) -> str:
        return "*" if not self.columns else super().instance()

    def spec(self) -> str:
        return Analyzer.spec(replace(self, data_columns=()))

    def on_columns(self, columns: Sequence[str]) -> DuplicateRowCount:
        return self if self.columns else replace(self, data_columns=tuple(columns))

    def frequency_spec(self) -> FrequencySpec:
        return FrequencySpec(self.columns or self.data_columns, self.where)

    def metric_from_state(self, state: FrequencyState | None) -> Metric:
        if not self.columns and not self.data_columns:  # e.g. run_on_aggregated_states: no data, no schema
            return self.failure(f"{self.spec()}: over all columns it needs the data to learn the columns; name "
                                "the columns to compute it from stored states")
        return super().metric_from_state(state)

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
class InterquartileRange(GroupingAnalyzer):
    """Third minus first quartile of the non-null values, each an :class:`ExactQuantile` (Deequ's
    InterquartileRange). Its state is the frequency table, so unlike Deequ's it merges exactly."""

    column: str
    where: str | None = None

    def _quartiles(self) -> tuple[ExactQuantile, ExactQuantile]:
        return ExactQuantile(self.column, 0.25, self.where), ExactQuantile(self.column, 0.75, self.where)

    def frequency_spec(self) -> FrequencySpec:
        return self._quartiles()[0].frequency_spec()

    def preconditions(self, schema: StructType) -> None:
        require_numeric(schema, self.column, self.spec())

    def table_aggregations(self) -> dict[str, Column]:
        q1, q3 = self._quartiles()
        return {**q1.table_aggregations(), **q3.table_aggregations()}

    def metric_from_table(self, row: dict[str, Any], state: FrequencyState) -> Metric:
        q1, q3 = (q.metric_from_table(row, state) for q in self._quartiles())
        if not (q1.ok and q3.ok):
            return self.failure(f"{self.spec()}: {NO_ROWS}")
        return self.success(float(q3.value) - float(q1.value))  # type: ignore[arg-type]


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
    Spark SQL expression giving each row's bin label (Deequ's binning UDF, without shipping Python code);
    ``bin_count`` cuts a numeric column into that many equal-width bins from its min to its max (Deequ's
    HistogramBinned; see :mod:`lakeindex.metrics.equal_width`): all bins in order, empty ones too, plus
    ``edges``. ``sum_column`` makes a bucket's value the sum of that numeric column over its rows instead of
    their count (Deequ's ``Histogram.Sum``), and ratios are over the total sum. ``frequencies_as_ratio=False``
    puts the absolute value (as a float) in ``ratio``, as Deequ divides by a total of 1 then.
    """

    column: str
    bins: tuple[float, ...] | None = None
    bin_expression: str | None = None
    max_bins: int = 1000
    where: str | None = None
    # added later: left out of the spec at their defaults, so stored states and histories keep their keys
    bin_count: int | None = field(default=None, metadata={"omit_default": True})
    sum_column: str | None = field(default=None, metadata={"omit_default": True})
    frequencies_as_ratio: bool = field(default=True, metadata={"omit_default": True})

    def __post_init__(self) -> None:
        if self.bins is not None:  # Deequ sorts the edges; two equal edges would make an empty bin
            object.__setattr__(self, "bins", tuple(sorted(float(b) for b in self.bins)))
            if not self.bins or len(set(self.bins)) != len(self.bins):
                raise ValueError(f"Histogram bins must be distinct edges, got {self.bins!r}")
        if self.bins is not None and self.bin_expression:
            raise ValueError("Histogram: give bins or bin_expression, not both")
        if not 1 <= self.max_bins <= MAX_DETAIL_BINS:
            raise ValueError(f"Histogram: max_bins must be 1 to {MAX_DETAIL_BINS} (Deequ's limit), got {self.max_bins}")
        self._check_deequ_options()

    def _check_deequ_options(self) -> None:
        """bin_count, sum_column and frequencies_as_ratio: types, range, and what they cannot be combined with."""
        n = self.bin_count
        if n is not None:
            if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= MAX_DETAIL_BINS:
                raise ValueError(f"Histogram: bin_count must be an integer from 1 to {MAX_DETAIL_BINS} (Deequ's "
                                 f"limit), got {n!r}")
            if self.bins is not None or self.bin_expression:
                raise ValueError("Histogram: bin_count makes equal-width bins from the data's min and max; give "
                                 "one of bin_count, bins (fixed edges) or bin_expression")
            if self.max_bins != MAX_DETAIL_BINS:
                raise ValueError("Histogram: max_bins limits the values shown, but an equal-width histogram shows "
                                 "all its bin_count bins; leave max_bins out with bin_count")
        if self.sum_column is not None and (not isinstance(self.sum_column, str) or not self.sum_column):
            raise ValueError(f"Histogram: sum_column must name a numeric column to sum, got {self.sum_column!r}")
        if not isinstance(self.frequencies_as_ratio, bool):
            raise ValueError(f"Histogram: frequencies_as_ratio must be True or False, "
                             f"got {self.frequencies_as_ratio!r}")

    def frequency_spec(self) -> FrequencySpec:
        return FrequencySpec((self.column,), self.where, keep_nulls=True, bins=self.bins,
                             bin_expression=self.bin_expression, sum_column=self.sum_column)

    def preconditions(self, schema: StructType) -> None:
        if self.bins is not None or self.bin_count is not None:
            require_numeric(schema, self.column, self.spec())
        else:
            require_column(schema, self.column, self.spec())
        if self.sum_column is not None:  # Deequ casts it to a long; a text column would sum to nothing
            require_numeric(schema, self.sum_column, self.spec())

    def table_aggregations(self) -> dict[str, Column]:
        from pyspark.sql import functions as F

        aggs = super().table_aggregations()
        if self.sum_column is not None:
            aggs["sum(sum)"] = F.sum(SUM)
        if self.bin_count is not None:
            aggs.update(equal_width.range_aggregations())
        return aggs

    def metric_from_table(self, row: dict[str, Any], state: FrequencyState) -> Metric:
        rows = int(row["rows"] or 0)
        total = (row["sum(sum)"] or 0) if self.sum_column is not None else rows
        if self.bin_count is not None:
            return self.equal_width_histogram(row, state.table, rows, total)
        return self.histogram(state.table, rows, int(row["distinct"] or 0), total)

    def metric_from_state(self, state: FrequencyState | None) -> Metric:
        if state is None:
            if self.bins is not None:
                return self.histogram(None, 0, 0, 0)  # type: ignore[arg-type]
            return self.failure(f"{self.spec()}: no rows")
        return super().metric_from_state(state)

    def _weight(self) -> str:
        """The table column a bucket's value comes from: the row count, or the sum of ``sum_column``."""
        return COUNT if self.sum_column is None else SUM

    def _denominator(self, total: float) -> float | None:
        """What a bucket's value is divided by for its ratio: the total count or sum, or 1 without ratios
        (Deequ's totalCount = 1); None for ratios over a zero sum (Deequ would give NaN or ±Infinity)."""
        if not self.frequencies_as_ratio:
            return 1.0
        return float(total) if total else None

    def _zero_sum(self) -> Metric:
        return self.failure(f"{self.spec()}: the sum of '{self.sum_column}' over the rows is 0 (or all its values "
                            "are null), so the buckets' ratios of it are undefined; pass frequencies_as_ratio=False "
                            "for the sums alone")

    def histogram(self, table: DataFrame, rows: int, distinct: int, total: float) -> Metric:
        """The top ``max_bins`` buckets (one bounded collect) and the tail's totals; ``total`` is the sum of
        the buckets' values (the rows, or the sum of ``sum_column``)."""
        from pyspark.sql import functions as F

        if rows == 0:
            if self.bins is not None:  # declared bins over no data: each bin is there, empty (Deequ)
                labels = bin_labels(self.bins)
                return self.success({"bins": {b: {"absolute": 0, "ratio": 0.0} for b in labels},
                                     "number_of_bins": len(labels), "tail": {"bins": 0, "absolute": 0, "ratio": 0.0}})
            return self.failure(f"{self.spec()}: no rows")
        denominator = self._denominator(total)
        if denominator is None:
            return self._zero_sum()
        weight = self._weight()
        top = table.orderBy(F.col(weight).desc(), F.col("g0")).limit(self.max_bins).collect()
        bins = {str(r["g0"]): {"absolute": r[weight], "ratio": r[weight] / denominator} for r in top}
        shown = sum(b["absolute"] for b in bins.values())
        tail = {"bins": distinct - len(bins), "absolute": total - shown, "ratio": (total - shown) / denominator}
        return self.success({"bins": bins, "number_of_bins": distinct, "tail": tail})

    def equal_width_histogram(self, row: dict[str, Any], table: DataFrame, rows: int, total: float) -> Metric:
        """All ``bin_count`` bins in order (empty ones too), then NullValue if there are nulls, and the edges."""
        from pyspark.sql.types import DoubleType

        if rows == 0:
            return self.failure(f"{self.spec()}: no rows")
        if row[equal_width.NON_FINITE_KEY]:
            name = quote_identifier(self.column)
            return self.failure(f"{self.spec()}: column '{self.column}' has NaN or infinite values, which "
                                f"equal-width bins cannot place; leave them out, e.g. where=\"NOT isnan({name}) "
                                f"AND abs({name}) < double('inf')\"")
        denominator = self._denominator(total)
        if denominator is None:
            return self._zero_sum()
        lo, hi, weight = row[equal_width.MIN_KEY], row[equal_width.MAX_KEY], self._weight()
        if lo is None:  # only nulls: no value to place, so no bins but NullValue (Deequ: no bins, nulls apart)
            cuts, values = [], {equal_width.NULL_BIN: total}
        elif not equal_width.width_is_finite(lo, hi, self.bin_count):
            return self.failure(f"{self.spec()}: the range of '{self.column}', {lo!r} to {hi!r}, is too wide "
                                "for a float width; narrow it with where=")
        else:
            cuts = equal_width.edges(lo, hi, self.bin_count)
            values = equal_width.binned(table, cuts, weight)
        zero = 0.0 if weight == SUM and isinstance(table.schema[SUM].dataType, DoubleType) else 0
        bins = {label: values.get(i, zero) for i, label in enumerate(equal_width.labels(cuts) if cuts else [])}
        if equal_width.NULL_BIN in values:
            bins[NULL_LABEL] = values[equal_width.NULL_BIN]
        return self.success({"bins": {k: {"absolute": v, "ratio": v / denominator} for k, v in bins.items()},
                             "number_of_bins": len(bins), "tail": {"bins": 0, "absolute": zero, "ratio": 0.0},
                             "edges": cuts})

