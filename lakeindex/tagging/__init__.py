"""Catalog tagging: a column's most restrictive pattern (Auto-tag, paper §2.3), its domain, and the lake-wide job."""
