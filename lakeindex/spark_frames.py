"""The Spark DataFrame behind what users hand to the metrics and checks builders: theirs, or a pandas one.

PyDeequ users (and notebooks) often hold pandas frames; ``VerificationSuite().on_data(pdf)`` and
``AnalysisRunner.on_data(pdf)`` take them as they are, converted once through Arrow in the active session (a
local one is started when there is none). Pandas' missing values (None, NaN, NaT) become Spark nulls, as
pandas counts them missing, so completeness means the same on both sides.
"""

from __future__ import annotations

from typing import Any


def as_spark_frame(data: Any) -> Any:
    """``data`` itself when it is a Spark DataFrame, a Spark DataFrame of it when it is a pandas one."""
    import sys

    pandas = sys.modules.get("pandas")  # a caller holding a pandas frame has imported pandas already
    if pandas is None or not isinstance(data, pandas.DataFrame):
        return data
    from pyspark.sql import SparkSession

    from lakeindex.spark_session import get_spark

    spark = SparkSession.getActiveSession() or get_spark(app_name="lakeindex")
    if data.empty and len(data.columns) == 0:
        raise ValueError("the pandas DataFrame has no columns: nothing to check")
    return spark.createDataFrame(data)
