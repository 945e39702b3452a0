"""ColumnProfiler: single-column profiling in at most three Spark passes, however many columns (Deequ §3.3, §4.2).

- Pass 1, one shared aggregation (``run_analysis``): Size, and per column Completeness,
  ApproxCountDistinct (HLL), DataType, plus Min/MaxLength of string columns. String columns get the
  dominant inferred type; typed columns keep their Spark type (mapped as Deequ does: integers are
  Integral, floats and decimals Fractional, dates and timestamps String, nested types Unknown).
- Pass 2, one shared aggregation over a projection: Minimum, Maximum, Mean, Sum, population
  StandardDeviation and KLL ApproxQuantiles of the numeric columns — typed numeric columns, and string
  columns whose dominant type is Integral or Fractional, parsed with ``try_cast(... AS DOUBLE)``
  (Spark 4 is ANSI: a plain cast would raise on the first bad string).
- Pass 3, one grouped job: exact value frequencies of the columns whose approximate distinct count is
  at most ``low_cardinality_threshold`` (see ``histograms.py``).

Passes 2 and 3 are skipped when no column needs them. Only aggregates and bounded histograms reach the
driver. §4.2 of the paper merges passes 2 and 3; here that would mean grouping every distinct value of
every numeric column (a shuffle of the data) to share one scan, so we keep the three passes of §3.3.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from lakeindex.metrics import (
    ApproxCountDistinct,
    ApproxQuantiles,
    Completeness,
    DataType,
    Maximum,
    MaxLength,
    Mean,
    Minimum,
    MinLength,
    Size,
    StandardDeviation,
    Sum,
    run_analysis,
)
from lakeindex.metrics.context import AnalyzerContext
from lakeindex.profiling.histograms import value_counts
from lakeindex.profiling.profile import ColumnProfile, DatasetProfile, NumericStats
from lakeindex.sql_identifiers import col

if TYPE_CHECKING:
    from pyspark.sql import DataFrame
    from pyspark.sql.types import DataType as SparkDataType

DEFAULT_QUANTILES = (0.01, 0.05, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95, 0.99)
NUMERIC_TYPES = ("Integral", "Fractional")


def declared_type(dtype: SparkDataType) -> str | None:
    """Deequ's type for a typed column, or None for a string column (whose type is inferred from its values)."""
    from pyspark.sql import types as T

    if isinstance(dtype, T.StringType | T.CharType | T.VarcharType):
        return None
    if isinstance(dtype, T.ByteType | T.ShortType | T.IntegerType | T.LongType):
        return "Integral"
    if isinstance(dtype, T.FloatType | T.DoubleType | T.DecimalType):
        return "Fractional"
    if isinstance(dtype, T.BooleanType):
        return "Boolean"
    if isinstance(dtype, T.DateType | T.TimestampType | T.TimestampNTZType):
        return "String"  # Deequ has no date type: such columns are profiled as text
    return "Unknown"


class ColumnProfiler:
    """Profiles the columns of a DataFrame in at most three passes; the basis of constraint suggestion."""

    def __init__(self, low_cardinality_threshold: int = 120, columns: Sequence[str] | None = None,
                 quantiles: Sequence[float] = DEFAULT_QUANTILES, histogram_limit: int | None = None) -> None:
        if low_cardinality_threshold < 0:
            raise ValueError("low_cardinality_threshold must be >= 0")
        self.low_cardinality_threshold = low_cardinality_threshold
        if isinstance(columns, str):
            columns = [columns]
        self.columns = list(dict.fromkeys(columns)) if columns is not None else None
        self.quantiles = tuple(quantiles)
        # HLL may underestimate: collect up to this many values of a selected column before calling it truncated
        self.histogram_limit = histogram_limit if histogram_limit is not None else 2 * low_cardinality_threshold + 10

    def profile(self, df: DataFrame) -> DatasetProfile:
        """Profile ``df`` (the selected columns): pass 1 always, passes 2 and 3 when some column needs them."""
        fields = self._fields(df)
        num_records, profiles = self._generic_pass(df, fields)
        passes = 1
        numeric = [f.name for f in fields if profiles[f.name].num_non_null > 0
                   and profiles[f.name].data_type in NUMERIC_TYPES]
        if numeric:
            self._numeric_pass(df, {f.name: f.dataType for f in fields}, numeric, profiles)
            passes += 1
        low = [name for name, p in profiles.items() if p.num_non_null > 0
               and p.approx_distinct <= self.low_cardinality_threshold]
        for name, p in profiles.items():
            if p.num_non_null == 0:
                p.histogram = {}  # exact without a scan: there are no values
            elif name not in low:
                p.histogram_note = (f"approx distinct count {p.approx_distinct} is above the low-cardinality "
                                    f"threshold {self.low_cardinality_threshold}")
        if low:
            self._histogram_pass(df, low, profiles)
            passes += 1
        return DatasetProfile(num_records, profiles, passes, self.low_cardinality_threshold)

    run = profile

    def _fields(self, df: DataFrame) -> list[Any]:
        if self.columns is None:
            return list(df.schema.fields)
        by_name = {f.name: f for f in df.schema.fields}
        missing = [c for c in self.columns if c not in by_name]
        if missing:
            raise ValueError(f"columns not in the data: {', '.join(missing)} (columns: {', '.join(by_name)})")
        return [by_name[c] for c in self.columns]

    def _generic_pass(self, df: DataFrame, fields: list[Any]) -> tuple[int, dict[str, ColumnProfile]]:
        from pyspark.sql.types import StringType

        size = Size()
        analyzers: list[Any] = [size]
        for f in fields:
            analyzers += [Completeness(f.name), ApproxCountDistinct(f.name), DataType(f.name)]
            if isinstance(f.dataType, StringType):
                analyzers += [MinLength(f.name), MaxLength(f.name)]
        ctx = run_analysis(df, analyzers)
        num_records = int(ctx.metric(size).value or 0)
        profiles: dict[str, ColumnProfile] = {}
        for f in fields:
            errors: list[str] = []
            completeness = ctx.metric(Completeness(f.name))
            distinct = ctx.metric(ApproxCountDistinct(f.name))
            types = ctx.metric(DataType(f.name))
            num_non_null = int(completeness.extra.get("matches", 0)) if completeness.ok else 0
            type_info = types.value if types.ok and isinstance(types.value, dict) else {"dominant": "Unknown",
                                                                                        "types": {}}
            declared = declared_type(f.dataType)
            p = ColumnProfile(
                column=f.name, spark_type=f.dataType.simpleString(),
                data_type=declared if declared is not None else type_info["dominant"],
                is_data_type_inferred=declared is None, num_records=num_records, num_non_null=num_non_null,
                completeness=completeness.value if completeness.ok else None,
                approx_distinct=int(distinct.value) if distinct.ok else 0,
                approx_distinct_error=abs(float(distinct.extra.get("relative_error", 0.0))) if distinct.ok else 0.0,
                type_counts={t: int(v["absolute"]) for t, v in type_info["types"].items()},
                errors=errors)
            if isinstance(f.dataType, StringType) and num_non_null > 0:
                p.min_length = _int_metric(ctx, MinLength(f.name), errors)
                p.max_length = _int_metric(ctx, MaxLength(f.name), errors)
            if num_records > 0:
                errors += [m.error for m in (completeness, distinct, types) if not m.ok and m.error]
            profiles[f.name] = p
        return num_records, profiles

    def _numeric_pass(self, df: DataFrame, dtypes: dict[str, SparkDataType], names: list[str],
                      profiles: dict[str, ColumnProfile]) -> None:
        projected = df.select(*[col(n) if declared_type(dtypes[n]) is not None else col(n).try_cast("double").alias(n)
                                for n in names])
        analyzers: list[Any] = []
        for n in names:
            analyzers += [Minimum(n), Maximum(n), Mean(n), Sum(n), StandardDeviation(n)]
            if self.quantiles:
                analyzers.append(ApproxQuantiles(n, self.quantiles))
        ctx = run_analysis(projected, analyzers)
        for n in names:
            errors = profiles[n].errors
            quantiles = _metric(ctx, ApproxQuantiles(n, self.quantiles), errors) if self.quantiles else None
            profiles[n].numeric = NumericStats(
                minimum=_metric(ctx, Minimum(n), errors), maximum=_metric(ctx, Maximum(n), errors),
                mean=_metric(ctx, Mean(n), errors), sum=_metric(ctx, Sum(n), errors),
                std_dev=_metric(ctx, StandardDeviation(n), errors),
                quantiles={str(q): float(v) for q, v in (quantiles or {}).items()})

    def _histogram_pass(self, df: DataFrame, names: list[str], profiles: dict[str, ColumnProfile]) -> None:
        for name, vc in value_counts(df, names, self.histogram_limit).items():
            if vc.complete:
                profiles[name].histogram = vc.counts
            else:
                profiles[name].histogram_note = (f"more than {self.histogram_limit} distinct values although the "
                                                 f"HLL estimate was {profiles[name].approx_distinct}; no histogram")


def _metric(ctx: AnalyzerContext, analyzer: Any, errors: list[str]) -> Any:
    m = ctx.metric(analyzer)
    if m is None or not m.ok:
        if m is not None and m.error:
            errors.append(m.error)
        return None
    return m.value


def _int_metric(ctx: AnalyzerContext, analyzer: Any, errors: list[str]) -> int | None:
    v = _metric(ctx, analyzer, errors)
    return None if v is None else int(v)
