"""Shuffle partitions chosen from the data's size, by the library itself, on any session.

The project's local session builder sets few shuffle partitions, but a cluster's or a Spark Connect
server's session keeps Spark's default of 200: a 3 MB check then runs 200 reduce tasks per aggregation.
So each library entry point that shuffles (the index build, metric runs, history summaries) sizes its
shuffles from its input for the length of its work, and switches on AQE's coalescing, which merges
reduce partitions smaller than the advisory size (64 MB) once the map side has measured them:

    partitions = max(1, min(ceil(bytes / 32 MB), 2 × parallelism), ceil(bytes / 128 MB))

Small inputs get one partition per 32 MB (a 3 MB table: 1), medium ones at most two waves of the
session's slots, and large ones at least one partition per 128 MB so no reduce task holds more than
that. An input whose size is unknown (not local files) keeps ``2 × parallelism``. The previous values
are restored afterwards, so a caller's own settings survive.
"""

from __future__ import annotations

import contextlib
import math
import os
from collections.abc import Iterator
from typing import Any
from urllib.parse import unquote, urlparse

SMALL_PARTITION_BYTES = 32 << 20
LARGE_PARTITION_BYTES = 128 << 20
ADVISORY_BYTES = 64 << 20


def shuffle_partitions(input_bytes: int | None, parallelism: int) -> int:
    """The number of shuffle partitions for an input of ``input_bytes`` (None: unknown) on ``parallelism`` slots."""
    waves = 2 * max(1, parallelism)
    if input_bytes is None:
        return waves
    small = math.ceil(input_bytes / SMALL_PARTITION_BYTES)
    large = math.ceil(input_bytes / LARGE_PARTITION_BYTES)
    return max(1, min(small, waves), large)


def local_input_bytes(df: Any) -> int | None:
    """Total size of the files ``df`` reads when they are all on this machine, else None (unknown)."""
    try:
        files = df.inputFiles()
    except Exception:  # noqa: BLE001 - a DataFrame not read from files (createDataFrame, range)
        return None
    if not files:
        return None
    total = 0
    for uri in files:
        parsed = urlparse(uri)
        if parsed.scheme not in ("", "file"):
            return None
        try:
            total += os.path.getsize(unquote(parsed.path))
        except OSError:
            return None
    return total


@contextlib.contextmanager
def sized_shuffles(spark: Any, input_bytes: int | None) -> Iterator[int]:
    """Within the block, shuffles of ``spark`` use :func:`shuffle_partitions` partitions and AQE coalescing;
    yields that number. The previous settings come back afterwards."""
    from lakeindex.spark_session import parallelism

    n = shuffle_partitions(input_bytes, parallelism(spark))
    wanted = {"spark.sql.shuffle.partitions": str(n),
              "spark.sql.adaptive.enabled": "true",
              "spark.sql.adaptive.coalescePartitions.enabled": "true",
              "spark.sql.adaptive.advisoryPartitionSizeInBytes": str(ADVISORY_BYTES)}
    before = {k: spark.conf.get(k, None) for k in wanted}
    for k, v in wanted.items():
        spark.conf.set(k, v)
    try:
        yield n
    finally:
        for k, v in before.items():
            if v is None:
                spark.conf.unset(k)
            else:
                spark.conf.set(k, v)
