"""What every Spark session lakeindex starts gets, and whether Spark can start here: shared by the sessions
(:mod:`lakeindex.spark_session`) and the warm engine's server (:mod:`lakeindex.engine`)."""

from __future__ import annotations

import os
import shutil

JAVA_ADVICE = ("Spark needs Java 17: install it (Debian/Ubuntu: `apt-get install openjdk-17-jre-headless`, "
               "macOS: `brew install openjdk@17`) and put `java` on PATH or set JAVA_HOME")


class SparkUnavailable(RuntimeError):
    """Spark cannot start on this machine (usually: no Java)."""


# session-level SQL settings the library wants on every session, classic or Connect
SQL_CONF = {
    "spark.sql.execution.arrow.pyspark.enabled": "true",
    # timestamps render as text in UTC, as the index build renders them (lakeindex.lake.rendering)
    "spark.sql.session.timeZone": "UTC",
    "spark.sql.adaptive.enabled": "true",
    "spark.sql.adaptive.coalescePartitions.enabled": "true",
}
# static settings of the sessions (and the engine) the library starts itself. pyspark's DataFrame debugging
# walks the Python stack on every API call to name the calling line in errors, and tries to import IPython
# and ipykernel each time to skip their frames: on a Connect client that was a second of a small command.
# lakeindex reports errors itself. A Connect client reads the setting from its server.
STATIC_CONF = {"spark.python.sql.dataFrameDebugging.enabled": "false"}


DEFAULT_DRIVER_MEMORY = "4g"  # unless LAKEINDEX_DRIVER_MEMORY says


def require_java() -> None:
    """Raise :class:`SparkUnavailable` (with how to install it) when there is no ``java`` to start Spark with."""
    java_home = os.environ.get("JAVA_HOME")
    if not (java_home and os.path.exists(os.path.join(java_home, "bin", "java"))) and not shutil.which("java"):
        raise SparkUnavailable("java not found. " + JAVA_ADVICE)
