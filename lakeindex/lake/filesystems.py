"""Advice when Spark has no Hadoop file system for a URI's scheme (``s3://``, ``s3a://`` without its connector).

Spark reads lakes and datasets through Hadoop's file systems; object stores need a connector on the classpath,
which pyspark does not ship. Its error is a long JVM stack ("No FileSystem for scheme", or a missing
``S3AFileSystem`` class): this turns it into one line saying what to add, with the ``--conf`` every Spark
command takes. Hadoop's connectors must match the Hadoop that pyspark bundles: the advice reads its version
from pyspark's jars.
"""

from __future__ import annotations

import re
from pathlib import Path

CONNECTORS = {
    "s3a": "--conf spark.jars.packages=org.apache.hadoop:hadoop-aws:{hadoop} (and AWS credentials)",
    "gs": "--conf spark.jars.packages=com.google.cloud.bigdataoss:gcs-connector:<its hadoop3 release>",
    "abfs": "--conf spark.jars.packages=org.apache.hadoop:hadoop-azure:{hadoop}",
    "abfss": "--conf spark.jars.packages=org.apache.hadoop:hadoop-azure:{hadoop}",
    "wasbs": "--conf spark.jars.packages=org.apache.hadoop:hadoop-azure:{hadoop}",
}


def hadoop_version() -> str:
    """The Hadoop version of pyspark's bundled client jars (what connectors must match)."""
    import pyspark

    for jar in sorted((Path(pyspark.__file__).parent / "jars").glob("hadoop-client-api-*.jar")):
        return jar.name[len("hadoop-client-api-"):-len(".jar")]
    return "<Spark's Hadoop version>"
_MISSING = re.compile(r"No FileSystem for scheme|ClassNotFoundException: Class \S+FileSystem not found")


def missing_filesystem(exc: BaseException, uri: str) -> str | None:
    """One line of advice if ``exc`` says Spark has no file system for ``uri``'s scheme, else None."""
    if not _MISSING.search(str(exc)):
        return None
    scheme = uri.split("://", 1)[0].lower() if "://" in uri else "file"
    if scheme == "s3":
        how = "use s3a:// (Hadoop's S3 client) with " + CONNECTORS["s3a"]
    else:
        how = "add its connector: " + CONNECTORS.get(scheme, "put the file system's jar on Spark's classpath "
                                                              "(--conf spark.jars.packages=...)")
    how = how.replace("{hadoop}", hadoop_version())
    return f"{uri}: this Spark has no file system for {scheme}:// ({how})"
