"""Deequ-style metrics on Spark: analyzers, mergeable states, scan-shared runs and a state store.

Names are loaded on first use (PEP 562): the history commands need only ``Metric`` and should not pay for
every analyzer and the sketch libraries (0.1 s of a 2 s command).
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS: dict[str, tuple[str, ...]] = {  # module of this package -> the names it exports here
    "analyzer": ("Analyzer", "MetricError"),
    "column_set": ("ColumnCount", "ColumnExists"),
    "context": ("AnalyzerContext",),
    "custom_sql": ("CustomSql",),
    "dataset_match": ("DatasetMatch",),
    "datatype": ("DataType",),
    "grouping": ("CountDistinct", "Distinctness", "DuplicateRowCount", "Entropy", "ExactQuantile", "Histogram",
                 "InterquartileRange", "MutualInformation", "Uniqueness", "UniqueValueRatio"),
    "kll_distribution": ("BucketDistribution", "BucketValue", "KLLParameters", "KLLSketch"),
    "metric": ("Metric",),
    "numeric": ("Correlation", "Maximum", "MaxLength", "Mean", "Minimum", "MinLength", "Range", "RatioOfSums",
                "StandardDeviation", "Sum", "Variance"),
    "row_counts": ("Completeness", "Compliance", "PatternMatch", "Size", "ZerosCount"),
    "runner": ("AnalysisRunner", "run_analysis", "run_on_aggregated_states"),
    "shape": ("Kurtosis", "Skewness"),
    "sketching": ("ApproxCountDistinct", "ApproxQuantile", "ApproxQuantiles"),
    "state_store": ("FileSystemStateStore",),
}
_HOME = {name: module for module, names in _EXPORTS.items() for name in names}

__all__ = sorted(_HOME)


def __getattr__(name: str) -> Any:
    module = _HOME.get(name)
    if module is None:
        raise AttributeError(f"module 'lakeindex.metrics' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"lakeindex.metrics.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
