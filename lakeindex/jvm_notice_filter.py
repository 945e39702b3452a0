"""Start the driver JVM with its stderr passed through ``grep`` that drops exactly two fixed notices no log4j
setting reaches: the one Java prints, before any logging exists, for the incubator module Spark's launcher always
adds (``--add-modules=jdk.incubator.vector``), and the one Spark's bundled DataSketches memory library prints with
``System.err.println`` on any Java after 11 when a sketch is first used. Every other line (errors, logs, the Python
workers') passes unchanged and in order, also after this process ends (``grep`` lives as long as the JVM's stderr
is open). Used under ``--quiet``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pyspark import SparkContext

NOTICES = ("WARNING: Using incubator modules: jdk.incubator.vector",
           "Warning: Java versions > Java 11 can only operate in restricted mode where no off-heap operations are "
           "allowed!")


def notice_filter() -> subprocess.Popen[bytes] | None:
    """A ``grep`` writing to this process's stderr every line it reads but the notices; None where there is no
    grep (Windows), which leaves them on stderr."""
    grep = shutil.which("grep")
    if grep is None or os.name == "nt":
        return None
    # -x -F: whole lines, literally; --line-buffered: each line reaches stderr as the JVM writes it
    patterns = [arg for notice in NOTICES for arg in ("-e", notice)]
    return subprocess.Popen([grep, "--line-buffered", "-v", "-x", "-F", *patterns], stdin=subprocess.PIPE, stdout=2)


def start_context_without_notice(settings: dict[str, str]) -> SparkContext | None:
    """The SparkContext of ``settings`` (``spark.master``, ``spark.app.name`` and the rest) on a JVM whose stderr
    goes through :func:`notice_filter`; None (nothing started) where no filter can run."""
    from pyspark import SparkConf, SparkContext
    from pyspark.java_gateway import launch_gateway

    conf = SparkConf(loadDefaults=False).setAll(list(settings.items()))
    filtering = notice_filter()
    if filtering is None:
        return None
    assert filtering.stdin is not None
    try:
        gateway = launch_gateway(conf, popen_kwargs={"stderr": filtering.stdin})
    finally:
        filtering.stdin.close()  # the JVM holds its own end: grep ends when the JVM's stderr closes
    return SparkContext(conf=conf, gateway=gateway)
