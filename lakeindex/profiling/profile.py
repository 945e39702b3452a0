"""Profile records: what single-column profiling learned about a dataset (Deequ §3.3), as plain JSON-able data.

A ``ColumnProfile`` holds the pass-1 statistics of every column (completeness, approximate distinct
count, inferred type), the pass-2 statistics of numeric columns and the pass-3 value histogram of
low-cardinality columns. Histograms count the *non-null* values only (the null count is
``num_records - num_non_null``), keyed by the value's string form, with ratios over the non-null values:
no ``NullValue`` entry, so a real value spelled "NullValue" cannot collide with the null bucket.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

DATA_TYPES = ("Unknown", "Fractional", "Integral", "Boolean", "String")


def json_number(x: float | int | None) -> float | int | str | None:
    """A JSON-safe number: NaN and infinities become the strings "nan", "inf", "-inf" (as in Metric.to_dict)."""
    if isinstance(x, float) and not math.isfinite(x):
        return str(x)
    return x


@dataclass(frozen=True)
class NumericStats:
    """Pass-2 summary of a numeric column (typed, or a string column parsed with try_cast to double)."""

    minimum: float | None
    maximum: float | None
    mean: float | None
    sum: float | None
    std_dev: float | None
    quantiles: dict[str, float] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """JSON-able form (non-finite numbers as strings)."""
        return {"minimum": json_number(self.minimum), "maximum": json_number(self.maximum),
                "mean": json_number(self.mean), "sum": json_number(self.sum), "std_dev": json_number(self.std_dev),
                "approx_quantiles": {q: json_number(v) for q, v in self.quantiles.items()}}


@dataclass
class ColumnProfile:
    """Everything the profiler knows about one column; optional parts are None when their pass did not apply."""

    column: str
    spark_type: str
    data_type: str
    is_data_type_inferred: bool
    num_records: int
    num_non_null: int
    completeness: float | None
    approx_distinct: int
    approx_distinct_error: float
    type_counts: dict[str, int] = field(default_factory=dict)
    min_length: int | None = None
    max_length: int | None = None
    numeric: NumericStats | None = None
    histogram: dict[str, int] | None = None
    histogram_note: str | None = None
    errors: list[str] = field(default_factory=list)
    pattern: dict[str, Any] | None = None  # a text column's lake-calibrated pattern (with a pattern index)
    exact_distinct: int | None = None  # counted exactly for a key candidate without a histogram

    @property
    def is_numeric(self) -> bool:
        return self.numeric is not None

    @property
    def num_distinct(self) -> int | None:
        """Exact number of distinct non-null values (from a full histogram or an exact count), else None."""
        return len(self.histogram) if self.histogram is not None else self.exact_distinct

    def histogram_by_popularity(self) -> list[tuple[str, int]]:
        """Histogram entries, most frequent first (ties by value, so the order is deterministic)."""
        return sorted((self.histogram or {}).items(), key=lambda kv: (-kv[1], kv[0]))

    def to_dict(self) -> dict[str, Any]:
        """JSON-able form: type counts with ratios over all rows, histogram ratios over the non-null values."""
        total = self.num_records
        nn = self.num_non_null
        out: dict[str, Any] = {
            "column": self.column, "spark_type": self.spark_type, "data_type": self.data_type,
            "is_data_type_inferred": self.is_data_type_inferred, "completeness": self.completeness,
            "num_non_null": nn, "approx_distinct": self.approx_distinct,
            "approx_distinct_relative_error": self.approx_distinct_error,
            "type_counts": {t: {"absolute": self.type_counts.get(t, 0),
                                "ratio": self.type_counts.get(t, 0) / total if total else 0.0} for t in DATA_TYPES},
            "min_length": self.min_length, "max_length": self.max_length,
            "numeric": self.numeric.to_dict() if self.numeric is not None else None,
            "histogram": None if self.histogram is None else
            {v: {"absolute": c, "ratio": c / nn if nn else 0.0} for v, c in self.histogram_by_popularity()},
        }
        if self.histogram_note:
            out["histogram_note"] = self.histogram_note
        if self.exact_distinct is not None:
            out["exact_distinct"] = self.exact_distinct
        if self.pattern is not None:
            out["pattern"] = self.pattern
        if self.errors:
            out["errors"] = list(self.errors)
        return out


@dataclass
class DatasetProfile:
    """Profiles of the profiled columns, the row count, and how many Spark passes produced them."""

    num_records: int
    columns: dict[str, ColumnProfile]
    passes: int
    low_cardinality_threshold: int

    def __getitem__(self, column: str) -> ColumnProfile:
        """The profile of ``column``."""
        return self.columns[column]

    def __iter__(self) -> Iterator[ColumnProfile]:
        return iter(self.columns.values())

    def to_dict(self) -> dict[str, Any]:
        """JSON-able form; ``columns`` is a list in the DataFrame's column order."""
        return {"num_records": self.num_records, "passes": self.passes,
                "low_cardinality_threshold": self.low_cardinality_threshold,
                "columns": [c.to_dict() for c in self.columns.values()]}
