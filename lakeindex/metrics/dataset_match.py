"""DatasetMatch (Deequ's ``DatasetMatchAnalyzer`` / ``doesDatasetMatch``): the share of the data's rows that have
an equal row in a reference dataset, rows paired by key columns.

Semantics of Deequ's ``DataSynchronization.columnMatch`` (``comparison/DataSynchronization.scala``):
``key_column_mappings`` maps key columns of the data to key columns of the reference; the key must be unique
in both (as Deequ tests it: grouping, where one null key is a value of its own); both must have the same
number of rows; a row matches when the reference has its key (a null key never matches, as in a join) and
every compared column is equal. The compared columns are ``match_column_mappings`` (data column to reference
column) or, when None, every non-key column of the data under the same name in the reference (extra
reference columns are ignored). Names resolve as Spark resolves them (case-insensitive unless
``spark.sql.caseSensitive``). The metric is matched rows / the data's rows, Deequ's ``DataSynchronization``
metric of the ``Dataset`` entity.

Deliberate differences: a compared column that is null on both sides is equal here (``<=>``; Deequ's join
with ``===`` counts the row as unmatched, so a dataset with nulls would not fully match itself, while
Deequ's own row-level variant treats them as equal); where Deequ reports NaN (duplicate keys, different row
counts, a missing column, no rows), the metric fails with the reason; an empty ``match_column_mappings``
is refused (as Deequ's row-level variant does) instead of comparing the keys alone.

The reference cannot be part of the spec (the repository key): a DataFrame has no stable text, and a
path's content changes. ``reference`` names it instead (default: the path, or ``"reference"`` for a
DataFrame), so the metric's history compares the same named reference over time; give each reference of a
run its own name. The reference is a DataFrame or a path read with the CLI's dataset reader
(:func:`lakeindex.lake.dataset.read_dataset`) in the data's session when the metric runs. Everything runs in
one Spark query (two group-bys, a full outer join and one aggregate row); neither dataset is collected.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from lakeindex.metrics.analyzer import MetricError, QueryAnalyzer
from lakeindex.metrics.metric import Metric
from lakeindex.sql_identifiers import col

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame, SparkSession

DEFAULT_REFERENCE = "reference"  # the name of a reference DataFrame when none is given
Pairs = tuple[tuple[str, str], ...]


def column_pairs(value: Mapping[str, str] | Iterable[Iterable[str]], what: str) -> Pairs:
    """A mapping (or pairs) of data column to reference column, sorted so that its order is no part of the spec."""
    items = list(value.items()) if isinstance(value, Mapping) else [tuple(p) for p in value]
    for pair in items:
        if len(pair) != 2 or not all(isinstance(c, str) and c for c in pair):
            raise ValueError(f"DatasetMatch: {what} must map data column names to reference column names "
                             f"(non-empty strings), got {pair!r}")
    if not items:
        raise ValueError(f"DatasetMatch: {what} is empty; name at least one pair of columns"
                         + (" (or leave it None to compare every non-key column)" if "match" in what else ""))
    return tuple(sorted(items))


def _resolve(columns: list[str], name: str, case_sensitive: bool) -> str | None:
    """The column ``name`` refers to, as Spark resolves it (exact, else one case-insensitive match)."""
    if name in columns:
        return name
    if not case_sensitive:
        found = [c for c in columns if c.lower() == name.lower()]
        if len(found) == 1:
            return found[0]
    return None


@dataclass(frozen=True)
class DatasetMatch(QueryAnalyzer):
    """Rows of the data with an equal row (by key) in the reference ``other`` over the data's rows."""

    other: Any  # a DataFrame (compared by identity) or a path to a dataset; no part of the spec
    key_column_mappings: Pairs
    match_column_mappings: Pairs | None = None
    reference: str | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.other, str) and not hasattr(self.other, "sparkSession"):
            raise ValueError(f"DatasetMatch: the reference must be a DataFrame or a dataset path, got "
                             f"{type(self.other).__name__}")
        if isinstance(self.other, str) and not self.other.strip():
            raise ValueError("DatasetMatch: the reference path is empty")
        object.__setattr__(self, "key_column_mappings", column_pairs(self.key_column_mappings, "key_column_mappings"))
        if self.match_column_mappings is not None:
            object.__setattr__(self, "match_column_mappings",
                               column_pairs(self.match_column_mappings, "match_column_mappings"))
        name = self.reference if self.reference is not None else (
            self.other if isinstance(self.other, str) else DEFAULT_REFERENCE)
        if not isinstance(name, str) or not name.strip():
            raise ValueError(f"DatasetMatch: the reference name must be a non-empty string, got {name!r}")
        object.__setattr__(self, "reference", name)

    @property
    def name(self) -> str:
        return "DataSynchronization"  # Deequ's metric name for DatasetMatchAnalyzer

    def instance(self) -> str:
        return str(self.reference)

    def spec(self) -> str:
        match = None if self.match_column_mappings is None else dict(self.match_column_mappings)
        return (f"DatasetMatch(reference={self.reference!r}, key_column_mappings="
                f"{dict(self.key_column_mappings)!r}, match_column_mappings={match!r})")

    def reference_frame(self, spark: SparkSession) -> DataFrame:
        """The reference as a DataFrame: the one given, or the dataset at the path read in ``spark``."""
        if not isinstance(self.other, str):
            return self.other
        from lakeindex.lake.dataset import read_dataset

        try:
            return read_dataset(spark, self.other)
        except ValueError as exc:  # DatasetError: the message names the path and the problem
            raise MetricError(f"cannot read the reference: {exc}") from exc

    def compared_columns(self, data: DataFrame, other: DataFrame) -> tuple[Pairs, Pairs]:
        """The (data, reference) key pairs and compared pairs, resolved to the columns' real names."""
        case_sensitive = data.sparkSession.conf.get("spark.sql.caseSensitive", "false").lower() == "true"
        left, right = list(data.columns), list(other.columns)

        def resolve(pairs: Pairs, what: str) -> Pairs:
            out = []
            for a, b in pairs:
                ra, rb = _resolve(left, a, case_sensitive), _resolve(right, b, case_sensitive)
                if ra is None:
                    raise MetricError(f"{what} column '{a}' does not exist in the data (columns: "
                                      f"{', '.join(left[:20])})")
                if rb is None:
                    raise MetricError(f"{what} column '{b}' does not exist in the reference '{self.reference}' "
                                      f"(columns: {', '.join(right[:20])})")
                out.append((ra, rb))
            return tuple(out)

        keys = resolve(self.key_column_mappings, "key")
        if self.match_column_mappings is not None:
            return keys, resolve(self.match_column_mappings, "compared")
        key_names = {a for a, _ in keys}
        rest = [c for c in left if c not in key_names]
        missing = [c for c in rest if _resolve(right, c, case_sensitive) is None]
        if missing:
            raise MetricError(f"non-key column(s) {', '.join(repr(c) for c in missing)} of the data do not exist in "
                              f"the reference '{self.reference}' (columns: {', '.join(right[:20])}); pass "
                              "match_column_mappings to name the columns to compare")
        return keys, resolve(tuple((c, c) for c in rest), "compared")

    def counts(self, data: DataFrame, other: DataFrame, keys: Pairs, compared: Pairs) -> dict[str, int]:
        """Rows, distinct keys and matched rows of both sides, from one query (one result row)."""
        from pyspark.sql import functions as F

        def side(df: DataFrame, prefix: str, pick: int) -> DataFrame:
            # one row per key (nulls grouped, as Deequ's uniqueness test groups them) with its row count
            # and, for unique keys, the row's compared values; grouping first keeps duplicate keys from
            # multiplying rows in the join
            names = [f"{prefix}k{i}" for i in range(len(keys))]
            values = [F.first(f"{prefix}c{i}").alias(f"{prefix}v{i}") for i in range(len(compared))]
            return (df.select(*[col(pair[pick]).alias(n) for pair, n in zip(keys, names, strict=True)],
                              *[col(pair[pick]).alias(f"{prefix}c{i}") for i, pair in enumerate(compared)])
                    .groupBy(*names).agg(F.count(F.lit(1)).alias(f"{prefix}n"), *values))

        left, right = side(data, "p", 0), side(other, "r", 1)
        on: Column = F.lit(True)
        for i in range(len(keys)):  # '=': a null key pairs with nothing, as in Deequ's join
            on = on & (F.col(f"pk{i}") == F.col(f"rk{i}"))
        joined = left.join(right, on, "full_outer")
        equal: Column = (F.col("pn") == 1) & (F.col("rn") == 1)
        for i in range(len(compared)):
            equal = equal & F.col(f"pv{i}").eqNullSafe(F.col(f"rv{i}"))
        row = joined.agg(F.sum("pn").alias("rows"), F.sum("rn").alias("reference_rows"),
                         F.count("pn").alias("keys"), F.count("rn").alias("reference_keys"),
                         F.count(F.when(equal, F.lit(1))).alias("matched")).collect()[0]
        return {k: int(row[k] or 0) for k in ("rows", "reference_rows", "keys", "reference_keys", "matched")}

    def metric_from_data(self, data: DataFrame) -> Metric:
        """Compare ``data`` with the reference: the matched share, or a failure naming what prevents it."""
        from lakeindex.metrics.runner import failed_metric_reason

        try:
            other = self.reference_frame(data.sparkSession)
            keys, compared = self.compared_columns(data, other)
            c = self.counts(data, other, keys, compared)
        except MetricError as exc:
            return self.failure(f"{self.spec()}: {exc}")
        except Exception as exc:  # noqa: BLE001 - Spark raises many types (type mismatch, ANSI cast, ...)
            return self.failure(f"{self.spec()}: {failed_metric_reason(exc)}")
        key_text = ", ".join(a for a, _ in keys)
        if c["keys"] != c["rows"] or c["reference_keys"] != c["reference_rows"]:
            return self.failure(
                f"{self.spec()}: the key ({key_text}) must be unique in both datasets: the data has {c['keys']} "
                f"distinct keys in {c['rows']} rows, the reference '{self.reference}' {c['reference_keys']} in "
                f"{c['reference_rows']} rows; choose key columns that identify a row (see is_unique)")
        if c["rows"] != c["reference_rows"]:
            return self.failure(f"{self.spec()}: the data has {c['rows']} rows and the reference "
                                f"'{self.reference}' {c['reference_rows']}: datasets of different sizes do not "
                                "match (Deequ compares only datasets with the same row count)")
        if c["rows"] == 0:
            return self.failure(f"{self.spec()}: no rows to compute the ratio over (both datasets are empty)")
        return self.success(c["matched"] / c["rows"], rows=c["rows"], reference_rows=c["reference_rows"],
                            matched=c["matched"])
