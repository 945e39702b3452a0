"""lakeindex: data-lake pattern indexing and auto-validation on Apache Spark."""

__version__ = "0.1.0"
