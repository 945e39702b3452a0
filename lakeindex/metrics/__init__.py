"""Deequ-style metrics on Spark: analyzers, mergeable states, scan-shared runs and a state store."""

from lakeindex.metrics.analyzer import Analyzer, MetricError
from lakeindex.metrics.context import AnalyzerContext
from lakeindex.metrics.counting import Completeness, Compliance, PatternMatch, Size
from lakeindex.metrics.datatype import DataType
from lakeindex.metrics.grouping import (
    CountDistinct,
    Distinctness,
    Entropy,
    Histogram,
    MutualInformation,
    Uniqueness,
    UniqueValueRatio,
)
from lakeindex.metrics.metric import Metric
from lakeindex.metrics.numeric import (
    Correlation,
    Maximum,
    MaxLength,
    Mean,
    Minimum,
    MinLength,
    StandardDeviation,
    Sum,
    Variance,
)
from lakeindex.metrics.runner import AnalysisRunner, run_analysis, run_on_aggregated_states
from lakeindex.metrics.sketching import ApproxCountDistinct, ApproxQuantile, ApproxQuantiles
from lakeindex.metrics.state_store import FileSystemStateStore

__all__ = [
    "AnalysisRunner", "Analyzer", "AnalyzerContext", "ApproxCountDistinct", "ApproxQuantile", "ApproxQuantiles",
    "Completeness", "Compliance", "Correlation", "CountDistinct", "DataType", "Distinctness", "Entropy",
    "FileSystemStateStore", "Histogram", "MaxLength", "Maximum", "Mean", "Metric", "MetricError", "MinLength",
    "Minimum", "MutualInformation", "PatternMatch", "Size", "StandardDeviation", "Sum", "UniqueValueRatio", "Variance",
    "Uniqueness", "run_analysis", "run_on_aggregated_states",
]
