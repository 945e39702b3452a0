"""Spark reader for the filesystem metrics repository: the same rows, filters and "last write wins" as pyarrow.

Spark reads only the selected datasets' directories (pruning by path) with an explicit schema, and
never discovers ``dataset=`` as a partition column: Spark would decode non-ASCII names wrongly and infer
a type for names like ``2024``. The ``dataset`` column stored in every row is the name.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from lakeindex.repository.query import QueryFilter
from lakeindex.repository.rows import COLUMNS, SPARK_DDL, tags_json

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession


def read_latest(spark: SparkSession, dirs: list[Path], names: list[str], f: QueryFilter) -> DataFrame:
    """Rows of the latest save per key in ``dirs`` matching ``f`` (no marker rows), as a DataFrame."""
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    if not dirs:
        return spark.createDataFrame([], SPARK_DDL)
    # a plain absolute path would resolve against fs.defaultFS (HDFS on a cluster); the repository is local.
    # Hadoop keeps '%' literal in such a path, so the quoted directory names need no further escaping.
    paths = ["file://" + str(d.resolve()) for d in dirs]
    df = spark.read.schema(SPARK_DDL).parquet(*paths).select("*", F.col("_metadata.file_path").alias("_file"))
    df = df.where(F.col("dataset").isin(names))
    if f.after is not None:
        df = df.where(F.col("timestamp_ms") >= F.lit(f.after))
    if f.before is not None:
        df = df.where(F.col("timestamp_ms") <= F.lit(f.before))
    if f.exact_tags:
        df = df.where(F.col("tags_json") == F.lit(tags_json(f.tags)))
    else:
        for k, v in f.tags:
            df = df.where(F.col("tags").getItem(k) == F.lit(v))
    for k in sorted(f.absent_tags):
        df = df.where(F.col("tags").getItem(k).isNull())
    save = F.struct("written_at_ns", "write_id", "_file")  # each key's latest save, taken from one file
    df = (df.withColumn("_latest", F.max(save).over(Window.partitionBy("dataset", "timestamp_ms", "tags_json")))
          .where(F.col("_latest") == save)
          .where(F.col("analyzer").isNotNull()))
    if f.analyzers is not None:
        wanted = sorted(f.analyzers)
        df = df.where(F.col("analyzer").isin(wanted) | F.col("name").isin(wanted))
    return df.select(*COLUMNS)
