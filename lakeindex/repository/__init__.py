"""Metrics repository: durable metric results per dataset and ResultKey (Deequ's MetricsRepository).

Checks read metric history from it (anomaly detection) and validation by history stores per-batch
metrics in it. The embedded default stores immutable Parquet files under a directory (see ``filesystem``).
"""

from lakeindex.repository.filesystem import FileSystemMetricsRepository, RepositoryError
from lakeindex.repository.query import AnalysisResult, MetricsQuery
from lakeindex.repository.result_key import ResultKey

__all__ = ["AnalysisResult", "FileSystemMetricsRepository", "MetricsQuery", "RepositoryError", "ResultKey"]
