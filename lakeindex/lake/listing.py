"""Listing a lake on the driver: its root as Spark names it and its data files (metadata only).

Shared by the jobs that scan a lake (index build, lake tagging). Names starting with ``_`` or ``.``
(``_SUCCESS``, ``.crc``) are ignored, as Spark does.
"""

from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass, field
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
PARTITION_DIR = re.compile(r"[^=]+=[^=]*")  # Hive-style key=value directory


def directory_table(rel: str) -> str | None:
    """The directory table a file belongs to (its path relative to the lake root; "" for the root itself),
    or None for a file that is a table of its own: the path up to its first ``key=value`` partition
    directory (``orders/date=2024-01-01/part-0.csv`` -> ``orders``), else the parent of a ``part-NNNNN``
    file (``orders/part-00000-....snappy.parquet`` -> ``orders``)."""
    parts = rel.split("/")
    depth = next((i for i, p in enumerate(parts[:-1]) if PARTITION_DIR.fullmatch(p)), None)
    if depth is None and _PART_FILE.fullmatch(parts[-1]):
        depth = len(parts) - 1
    return None if depth is None else "/".join(parts[:depth])


def root_name(root: str) -> str:
    """The table name of a lake root that is itself one table: its last path component."""
    return root.rstrip("/").rsplit("/", 1)[-1].removeprefix("file:")


def is_delta_dir(path: str) -> bool:
    """A local directory holding a Delta log."""
    return os.path.isdir(os.path.join(path, "_delta_log"))


def iceberg_metadata(path: str) -> list[str]:
    """The ``*.metadata.json`` files of a local directory's ``metadata/`` (empty: not an Iceberg table)."""
    meta = os.path.join(path, "metadata")
    if not os.path.isdir(meta):
        return []
    return sorted(os.path.join(meta, f) for f in os.listdir(meta) if f.endswith(".metadata.json"))


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


@dataclass
class LakeFormats:
    """Roots of the Delta and Iceberg tables met while listing (their files are left to their libraries),
    with each Iceberg table's metadata files and ``version-hint.text``."""

    delta_roots: list[str] = field(default_factory=list)
    iceberg_roots: dict[str, list[str]] = field(default_factory=dict)
    hints: dict[str, str] = field(default_factory=dict)
    remote: bool = False  # listed by Spark, which hides ``_delta_log``: directory tables may be Delta tables


def list_files(spark: SparkSession | None, root: str,
               formats: LakeFormats | None = None) -> tuple[list[LakeFile], list[dict]]:
    """Every data file under ``root`` once, and the files skipped with their reason.

    Names starting with ``_`` or ``.`` (``_SUCCESS``, ``.crc``) are ignored, as Spark does. With ``formats``,
    the roots of Delta and Iceberg tables are recorded there and their files are not listed. Local lakes are
    listed with ``os.walk`` (py4j costs a few calls per file; this is ~100x faster), which does not enter
    symlinked directories (a loop would list the same files again and again); a symlinked file is indexed
    once, under its first name, and a dangling or looping link is skipped with its reason. Other schemes,
    and every lake of a Spark Connect session (whose files are the server's), are listed by Spark itself:
    the ``binaryFile`` source's metadata columns, without reading a byte of content (``spark`` None: a
    local lake only).
    """
    from lakeindex.spark_session import is_connect

    if root.startswith("file:") and (spark is None or not is_connect(spark)):
        return _list_local(root, formats)
    rows = _list_with_spark(spark, root)
    if formats is not None:
        formats.remote = True
        rows = _split_table_formats(rows, formats)
    return rows, []


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


def _list_local(root: str, formats: LakeFormats | None = None) -> tuple[list[LakeFile], list[dict]]:
    base = root[len("file:"):]
    if not os.path.isdir(base):
        raise LakeError(f"lake {root} does not exist")
    out, skipped = [], []
    seen: dict[str, str] = {}  # real path -> the name it was listed under
    for dirpath, dirnames, filenames in os.walk(base):
        if formats is not None and table_format_root(dirpath, formats):
            dirnames[:] = []  # the table format's library lists its live files
            continue
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


def table_format_root(dirpath: str, formats: LakeFormats) -> bool:
    """Record ``dirpath`` if it is the root of a Delta or Iceberg table (whose files are then not listed)."""
    uri = "file:" + dirpath
    if is_delta_dir(dirpath):
        formats.delta_roots.append(uri)
        return True
    metadata = iceberg_metadata(dirpath)
    if metadata:
        formats.iceberg_roots[uri] = ["file:" + m for m in metadata]
        hint = os.path.join(dirpath, "metadata", "version-hint.text")
        if os.path.isfile(hint):
            with open(hint) as f:
                formats.hints[uri] = f.read()
        return True
    return False


_ICEBERG_METADATA = re.compile(r"^(.*?)/metadata/([^/]+\.metadata\.json|version-hint\.text)$")


def _split_table_formats(rows: list[LakeFile], formats: LakeFormats) -> list[LakeFile]:
    """Files of a remote listing outside Iceberg tables, whose roots go to ``formats``. (Spark's listing
    leaves out ``_delta_log``: Delta tables among its directory tables are found by asking delta-rs.)"""
    iceberg: dict[str, list[str]] = {}
    for r in rows:
        m = _ICEBERG_METADATA.match(r.path)
        if m:
            iceberg.setdefault(m.group(1), []).append(r.path)
    formats.iceberg_roots.update({loc: sorted(f for f in files if f.endswith(".metadata.json"))
                                  for loc, files in iceberg.items()})
    tables = sorted(iceberg)
    return [r for r in rows if not any(r.path.startswith(t + "/") for t in tables)]
