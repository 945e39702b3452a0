"""Reading the data files of tables: in Spark executors (a ``binaryFile`` frame joined with each file's
table and partition values), or on this machine for a small local table."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from lakeindex.lake.table_model import LakeTable

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

    from lakeindex.lake.readers import Deleted, Partition, TableRead


def file_rows(tables: list[LakeTable]) -> list[tuple[str, str, str, str]]:
    """(path, table, partition values as JSON, deleted row runs as JSON) of every data file of ``tables``:
    what executors reading the files join on to know each file's table, partition columns and the rows a
    deletion vector removed."""
    return sorted((f.path, t.name, json.dumps(f.partition), json.dumps(f.deleted)) for t in tables for f in t.files)


def file_facts(partition: str | None, deleted: str | None) -> tuple[Partition, Deleted]:
    """A data file's partition values and deleted row runs from the JSON :func:`file_rows` wrote for it (empty
    when absent): what executors reading the file apply."""
    return (tuple((k, v) for k, v in json.loads(partition)) if partition else (),
            tuple((a, b) for a, b in json.loads(deleted)) if deleted else ())


def lake_files(spark: SparkSession, root: str) -> DataFrame:
    """The ``binaryFile`` frame (path, content, ...) of the data files under the lake root: listed once,
    content read only for the rows a filter on ``path`` keeps."""
    from pyspark.sql import functions as F

    from lakeindex.lake.listing import SUPPORTED_FILES_RE

    return (spark.read.format("binaryFile").option("recursiveFileLookup", "true").load(root)
            .filter(F.col("path").rlike(SUPPORTED_FILES_RE)))


def file_contents(spark: SparkSession, root: str, tables: list[LakeTable],
                  under: DataFrame | None = None) -> DataFrame:
    """A ``binaryFile`` frame (path, content, table, partition, deleted) of exactly the data files of ``tables``:
    read where they lie (under the lake root ``root``, from ``under`` when given (:func:`lake_files`), or
    elsewhere: a table format's files, a catalog table's; ``root`` is "" for a build of catalog tables
    alone), each row joined with its table's name and the file's partition values (:func:`file_rows`)."""
    from pyspark.sql import functions as F

    rows = file_rows(tables)
    paths = [r[0] for r in rows]
    outside = [p for p in paths if not root or not p.startswith(root.rstrip("/") + "/")]
    files = spark.read.format("binaryFile").load(outside) if outside else None
    if len(outside) < len(paths):
        under = under if under is not None else lake_files(spark, root)
        files = under if files is None else under.unionByName(files)
    names = spark.createDataFrame(rows, "path string, table string, partition string, deleted string")
    return (files.filter(F.col("path").isin(paths)).join(F.broadcast(names), "path")
            .select("path", "content", "table", "partition", "deleted"))


def read_local_table(table: LakeTable) -> TableRead:
    """A table of a local lake read on this machine as the build's executors read it: its live files
    parsed and their partition values added, columns concatenated in file order (for small tables)."""
    import pyarrow as pa

    from lakeindex.lake.readers import TableRead, read_table, with_names, with_partition, without_deleted

    out = TableRead()
    columns: dict[str, list[pa.ChunkedArray]] = {}
    for f in table.files:
        path = f.path.removeprefix("file:")
        with open(path, "rb") as fh:
            read = with_partition(with_names(without_deleted(read_table(path, fh.read()), f.deleted),
                                             table.column_names), f.partition)
        out.issues += [{"file": path, **i} for i in read.issues]
        if read.skipped:
            out.issue(None, f"{path}: {read.skipped}")
            continue
        for name, arr in read.columns:
            parts = columns.setdefault(name, [pa.chunked_array([pa.nulls(out.rows, pa.string())])] if out.rows else [])
            parts.append(arr)
        for name, parts in columns.items():  # a column this file lacks holds nulls in its rows
            if name not in {n for n, _ in read.columns}:
                parts.append(pa.chunked_array([pa.nulls(read.rows, pa.string())]))
        out.rows += read.rows
    out.columns = [(n, pa.chunked_array([c for p in parts for c in p.chunks], pa.string()))
                   for n, parts in columns.items()]
    if not out.columns:
        out.skipped = "no readable data file"
    return out
