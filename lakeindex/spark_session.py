"""SparkSession construction shared by the CLI, jobs and tests.

Under ``spark-submit`` the session takes the master and resources from the submit command; when a
command runs on a laptop it defaults to ``local[*]``. The UI is off unless asked for, and Arrow
batches are small because the index build's input rows are whole files.
"""

from __future__ import annotations

import os

from pyspark.sql import SparkSession


def get_spark(master: str | None = None, app_name: str = "lakeindex", ui: bool = False,
              extra: dict[str, str] | None = None) -> SparkSession:
    """Return the active session or start one (local[*] unless ``master`` or spark-submit says)."""
    active = SparkSession.getActiveSession()
    if active is not None:
        return active
    builder = SparkSession.builder.appName(app_name)
    submitted = "spark.master" in os.environ.get("PYSPARK_SUBMIT_ARGS", "") or os.environ.get("SPARK_SUBMIT")
    if master:
        builder = builder.master(master)
    elif not submitted:
        builder = builder.master("local[*]")
    conf = {
        "spark.ui.enabled": "true" if ui else "false",
        "spark.ui.showConsoleProgress": "false",
        "spark.sql.execution.arrow.pyspark.enabled": "true",
        "spark.sql.adaptive.enabled": "true",
        "spark.driver.memory": os.environ.get("LAKEINDEX_DRIVER_MEMORY", "4g"),
        "spark.sql.shuffle.partitions": str(2 * (os.cpu_count() or 2)),
    }
    conf.update(extra or {})
    for k, v in conf.items():
        builder = builder.config(k, v)
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel(os.environ.get("LAKEINDEX_SPARK_LOG_LEVEL", "ERROR"))
    return spark
