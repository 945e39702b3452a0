"""Stderr of a job launched by spark-submit: spark-submit's own, not a second copy of its stdout.

spark-submit runs a Python application as a child process whose stderr it merges into its stdout, so
progress lines written to ``sys.stderr`` would land on stdout ahead of the job's JSON. There the Python
process can still reach spark-submit's stderr: through the JVM's ``System.err`` (over the py4j gateway
spark-submit opened for it, announced by ``PYSPARK_GATEWAY_PORT``).
"""

from __future__ import annotations

import contextlib
import io
import os
import sys
from collections.abc import Iterator
from typing import Any


class JvmStderr(io.TextIOBase):
    """A text stream writing to a JVM ``PrintStream`` (``System.err``) over py4j."""

    def __init__(self, stream: Any) -> None:
        self._stream = stream

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        self._stream.print(text)
        return len(text)

    def flush(self) -> None:
        self._stream.flush()


def launched_by_spark_submit() -> bool:
    """Whether spark-submit started this Python process (it passes its py4j gateway's port)."""
    return "PYSPARK_GATEWAY_PORT" in os.environ


@contextlib.contextmanager
def stderr_of_spark_submit() -> Iterator[None]:
    """``sys.stderr`` written to spark-submit's stderr within the block when spark-submit launched this
    process (else unchanged, and unchanged too if the gateway cannot be reached)."""
    if not launched_by_spark_submit():
        yield
        return
    try:
        from pyspark.java_gateway import launch_gateway

        stream = JvmStderr(launch_gateway().jvm.System.err)  # connects to spark-submit's gateway
    except Exception as exc:  # noqa: BLE001 - progress must never stop the job
        print(f"[lakeindex] stderr stays merged into stdout: {type(exc).__name__}: {exc}", file=sys.stderr)
        yield
        return
    with contextlib.redirect_stderr(stream):
        yield
