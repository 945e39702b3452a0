"""Deequ-style metrics on Spark: analyzers, mergeable states, scan-shared runs and a state store."""

from lakeindex.metrics.analyzer import Analyzer, MetricError
from lakeindex.metrics.context import AnalyzerContext
from lakeindex.metrics.counting import Completeness, Compliance, PatternMatch, Size, ZerosCount
from lakeindex.metrics.custom_sql import CustomSql
from lakeindex.metrics.dataset_match import DatasetMatch
from lakeindex.metrics.datatype import DataType
from lakeindex.metrics.grouping import (
    CountDistinct,
    Distinctness,
    DuplicateRowCount,
    Entropy,
    ExactQuantile,
    Histogram,
    MutualInformation,
    Uniqueness,
    UniqueValueRatio,
)
from lakeindex.metrics.kll_distribution import BucketDistribution, BucketValue, KLLParameters, KLLSketch
from lakeindex.metrics.metric import Metric
from lakeindex.metrics.numeric import (
    Correlation,
    Maximum,
    MaxLength,
    Mean,
    Minimum,
    MinLength,
    RatioOfSums,
    StandardDeviation,
    Sum,
    Variance,
)
from lakeindex.metrics.runner import AnalysisRunner, run_analysis, run_on_aggregated_states
from lakeindex.metrics.schema import ColumnCount, ColumnExists
from lakeindex.metrics.shape import Kurtosis, Skewness
from lakeindex.metrics.sketching import ApproxCountDistinct, ApproxQuantile, ApproxQuantiles
from lakeindex.metrics.state_store import FileSystemStateStore

__all__ = [
    "AnalysisRunner", "Analyzer", "AnalyzerContext", "ApproxCountDistinct", "ApproxQuantile", "ApproxQuantiles",
    "ColumnCount", "ColumnExists", "Completeness", "Compliance", "Correlation", "CountDistinct", "CustomSql",
    "DataType", "Distinctness", "DuplicateRowCount", "Entropy", "ExactQuantile", "FileSystemStateStore", "Histogram",
    "Kurtosis", "MaxLength", "Maximum", "Mean", "Metric", "MetricError", "MinLength", "Minimum", "MutualInformation",
    "PatternMatch", "RatioOfSums", "Size", "Skewness", "StandardDeviation", "Sum", "UniqueValueRatio", "Variance",
    "Uniqueness", "ZerosCount", "run_analysis", "run_on_aggregated_states",
    "BucketDistribution", "BucketValue", "KLLParameters", "KLLSketch",
    "DatasetMatch",
]
