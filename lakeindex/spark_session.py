"""SparkSession construction shared by the CLI, jobs and tests.

Under ``spark-submit`` the session takes the master and resources from the submit command; when a
command runs on a laptop it defaults to ``local[*]``. The UI is off unless asked for, and Arrow
batches are small because the index build's input rows are whole files.
"""

from __future__ import annotations

import logging
import os
import shutil
import sys
from collections.abc import MutableMapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

JAVA_ADVICE = ("Spark needs Java 17: install it (Debian/Ubuntu: `apt-get install openjdk-17-jre-headless`, "
               "macOS: `brew install openjdk@17`) and put `java` on PATH or set JAVA_HOME")


class SparkUnavailable(RuntimeError):
    """Spark cannot start on this machine (usually: no Java)."""


def local_python(env: MutableMapping[str, str]) -> None:
    """Default ``PYSPARK_PYTHON`` (and the driver's) to the running interpreter; an explicit setting wins."""
    env.setdefault("PYSPARK_PYTHON", sys.executable)
    env.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)


def get_spark(master: str | None = None, app_name: str = "lakeindex", ui: bool = False,
              extra: dict[str, str] | None = None) -> SparkSession:
    """Return the active session or start one (local[*] unless ``master`` or spark-submit says)."""
    from pyspark.sql import SparkSession

    for name in ("SQLQueryContextLogger", "DataFrameQueryContextLogger"):
        # PySpark logs every analysis error with its JVM stack; we report errors ourselves, briefly
        logging.getLogger(name).setLevel(logging.CRITICAL)
    active = SparkSession.getActiveSession()
    if active is not None:
        return active
    java_home = os.environ.get("JAVA_HOME")
    if not (java_home and os.path.exists(os.path.join(java_home, "bin", "java"))) and not shutil.which("java"):
        raise SparkUnavailable("java not found. " + JAVA_ADVICE)
    builder = SparkSession.builder.appName(app_name)
    # under spark-submit the JVM starts Python and hands it a gateway port: keep its master
    submitted = "PYSPARK_GATEWAY_PORT" in os.environ
    if (master or "local").startswith("local") and not submitted:
        os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")  # local runs stay on loopback
        # local Python workers run this interpreter, the one lakeindex is installed in (a venv's
        # `bin/lakeindex` started by cron or Airflow without the venv on PATH would otherwise give the
        # workers whatever `python3` PATH finds). On a cluster, set PYSPARK_PYTHON to the executors' Python.
        local_python(os.environ)
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
    try:
        spark = builder.getOrCreate()
    except Exception as exc:
        if "JAVA_GATEWAY_EXITED" in str(exc) or "Java gateway" in str(exc):
            raise SparkUnavailable(f"Spark could not start its JVM ({exc}). " + JAVA_ADVICE) from exc
        raise
    spark.sparkContext.setLogLevel(os.environ.get("LAKEINDEX_SPARK_LOG_LEVEL", "ERROR"))
    return spark
