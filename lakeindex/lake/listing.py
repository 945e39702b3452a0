"""Listing a lake on the driver: its root as Spark names it and its data files (metadata only).

Shared by the jobs that scan a lake (index build, lake tagging). Names starting with ``_`` or ``.``
(``_SUCCESS``, ``.crc``) are ignored, as Spark does.
"""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from lakeindex.lake.formats import FORMATS

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

SUPPORTED_FILES_RE = "(?i)(" + "|".join(e.replace(".", "\\.") for e in FORMATS) + ")$"


def relative_table(path: str, root: str) -> str:
    """Table name: the file path relative to the lake root."""
    return path[len(root):].lstrip("/") if path.startswith(root) else path


_PART_FILE = re.compile(r"(?i)part-(?:[mr]-)?[0-9]+([-_.].*)?")  # Spark and Hadoop MapReduce output names
_PARTITION_DIR = re.compile(r"[^=]+=[^=]*")  # Hive-style key=value directory


def table_of(path: str, root: str) -> str:
    """Table of a data file for tagging: :func:`relative_table`, except that the part files of a multi-part
    table are one table, the directory that holds them: the path up to its first ``key=value`` partition
    directory (``orders/date=2024-01-01/part-0.csv`` -> ``orders``), else the parent of a ``part-NNNNN`` file
    (``orders/part-00000-....snappy.parquet`` -> ``orders``). A lake root that is itself partitioned or
    holds part files is the table named after the root's last path component."""
    rel = relative_table(path, root)
    parts = rel.split("/")
    depth = next((i for i, p in enumerate(parts[:-1]) if _PARTITION_DIR.fullmatch(p)), None)
    if depth is None and _PART_FILE.fullmatch(parts[-1]):
        depth = len(parts) - 1
    if depth is None:
        return rel
    return "/".join(parts[:depth]) or root.rstrip("/").rsplit("/", 1)[-1].removeprefix("file:")


class LakeError(RuntimeError):
    """A lake that does not exist or is not a directory."""


def lake_uri(lake: str, here: bool = True) -> str:
    """URI of the lake root as Spark reports file paths (``file:/abs/path`` for local dirs).

    ``here=False`` (a Spark Connect session) does not check a plain path on this machine: it names a
    directory the server reads, made absolute against this working directory, and the server's listing
    reports a missing lake.
    """
    if "://" in lake or lake.startswith("file:"):
        return lake.rstrip("/")
    if not here:
        return "file:" + os.path.abspath(lake)
    p = Path(lake).resolve()
    if not p.exists():
        raise LakeError(f"lake directory {lake} does not exist")
    if not p.is_dir():
        raise LakeError(f"lake {lake} is not a directory")
    return "file:" + str(p)


class LakeFile(NamedTuple):
    """A file of the lake as listed on the driver (metadata only)."""

    path: str
    length: int
    mtime: int


def list_files(spark: SparkSession, root: str) -> tuple[list[LakeFile], list[dict]]:
    """Every data file under ``root`` once, and the files skipped with their reason.

    Names starting with ``_`` or ``.`` (``_SUCCESS``, ``.crc``) are ignored, as Spark does. Local lakes are
    listed with ``os.walk`` (py4j costs a few calls per file; this is ~100x faster), which does not enter
    symlinked directories (a loop would list the same files again and again); a symlinked file is indexed
    once, under its first name, and a dangling or looping link is skipped with its reason. Other schemes,
    and every lake of a Spark Connect session (whose files are the server's), are listed by Spark itself:
    the ``binaryFile`` source's metadata columns, without reading a byte of content.
    """
    from lakeindex.spark_session import is_connect

    if root.startswith("file:") and not is_connect(spark):
        return _list_local(root)
    return _list_with_spark(spark, root), []


def _list_with_spark(spark: SparkSession, root: str) -> list[LakeFile]:
    from pyspark.errors import AnalysisException
    from pyspark.sql import functions as F

    from lakeindex.lake.filesystems import missing_filesystem

    try:  # a classic reader fails in load(), a Connect one in collect()
        rows = (spark.read.format("binaryFile").option("recursiveFileLookup", "true").load(root)
                .select("path", "length", F.unix_millis("modificationTime").alias("mtime"))
                .collect())  # file names and sizes only
    except Exception as exc:  # noqa: BLE001 - JVM errors come as several types
        if isinstance(exc, AnalysisException) and ("PATH_NOT_FOUND" in str(exc) or "does not exist" in str(exc)):
            raise LakeError(f"lake {root} does not exist (as the Spark session sees it)") from exc
        advice = missing_filesystem(exc, root)
        if advice:
            raise LakeError(advice) from exc
        raise
    out = []
    for r in rows:
        rel = relative_table(r.path, root)
        if not any(part.startswith(("_", ".")) for part in rel.split("/")):
            out.append(LakeFile(r.path, r.length, r.mtime))
    return sorted(out)


def _list_local(root: str) -> tuple[list[LakeFile], list[dict]]:
    base = root[len("file:"):]
    if not os.path.isdir(base):
        raise LakeError(f"lake {root} does not exist")
    out, skipped = [], []
    seen: dict[str, str] = {}  # real path -> the name it was listed under
    for dirpath, dirnames, filenames in os.walk(base):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith(("_", ".")))
        for name in sorted(filenames):
            if name.startswith(("_", ".")):
                continue
            path = os.path.join(dirpath, name)
            rel = os.path.relpath(path, base)
            try:
                st = os.stat(path)  # follows a symlink to its file
            except OSError as exc:  # dangling link, link loop, unreadable entry
                skipped.append({"file": rel, "reason": f"cannot be read: {exc.strerror or exc}"})
                continue
            if not stat.S_ISREG(st.st_mode):
                skipped.append({"file": rel, "reason": "not a regular file"})
                continue
            real = os.path.realpath(path)
            if real in seen:
                skipped.append({"file": rel, "reason": f"same file as {seen[real]} (a link): indexed once"})
                continue
            seen[real] = rel
            out.append(LakeFile("file:" + path, st.st_size, int(st.st_mtime * 1000)))
    return sorted(out), skipped
