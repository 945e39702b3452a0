"""Single-column profiling (Deequ §3.3): completeness, distinct counts, types, numeric summaries, histograms."""

from lakeindex.profiling.profile import ColumnProfile, DatasetProfile, NumericStats
from lakeindex.profiling.profiler import DEFAULT_QUANTILES, ColumnProfiler

__all__ = ["DEFAULT_QUANTILES", "ColumnProfile", "ColumnProfiler", "DatasetProfile", "NumericStats"]
