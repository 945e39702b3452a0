"""The pattern index: RocksDB key-value store of FPR_T(p) and Cov_T(p) for every pattern p."""

from lakeindex.index.store import IndexError_, IndexReader, PatternStats, current_version

__all__ = ["IndexError_", "IndexReader", "PatternStats", "current_version"]
