"""Data layer of validation by history (AVH, KDD 2023): column summaries, metrics and synthetic issues.

``infer_kind`` (``kinds``) decides whether a column is numeric or categorical; ``summarize_series``
(pandas) and ``summarize_dataframe`` (Spark, in ``spark_summary``) reduce one batch of a column to a
``ColumnSummary``; ``features(prev, cur)`` turns consecutive summaries into the metric dicts of Tables
3-4; ``issue_features`` injects the Appendix-B issues into the latest batch and returns the feature
dict of every corrupted variant.
"""

from lakeindex.history.batch_metrics import features, metric_names, single_distribution, two_distribution
from lakeindex.history.issues import VARIANT_IDS, VARIANTS, IssueVariant, corrupt, issue_features, variants_for
from lakeindex.history.kinds import CATEGORICAL, NUMERIC, infer_kind, infer_schema_kinds
from lakeindex.history.summary import ColumnSummary, summarize_series

__all__ = ["CATEGORICAL", "NUMERIC", "VARIANTS", "VARIANT_IDS", "ColumnSummary", "IssueVariant", "corrupt",
           "features", "infer_kind", "infer_schema_kinds", "issue_features", "metric_names", "single_distribution",
           "summarize_dataframe", "summarize_series", "two_distribution", "variants_for"]


def __getattr__(name: str):  # summarize_dataframe imports pyspark lazily
    if name == "summarize_dataframe":
        from lakeindex.history.spark_summary import summarize_dataframe

        return summarize_dataframe
    raise AttributeError(name)
