"""The pattern index: RocksDB key-value store of FPR_T(p) and Cov_T(p) for every pattern p."""

from lakeindex.index.store import IndexReader, IndexUnusable, PatternStats, current_version

__all__ = ["IndexUnusable", "IndexReader", "PatternStats", "current_version"]
