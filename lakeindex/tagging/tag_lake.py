"""Auto-tag every column of a lake (paper §2.3's dual problem), name its domain, and group columns by domain.

Tables are the lake's tables as the index build sees them (:mod:`lakeindex.lake.tables`: files, part
directories, Hive partitions whose keys are columns, Delta and Iceberg snapshots). Two Spark steps keep
every task's memory bounded and nothing of the lake reaches the driver but file names and one small row
per column:

1. ``mapInArrow`` over file contents: executors read files as the index build does and emit each column's
   first non-empty values, at most ``ceil(sample / files of the table)`` per file (one row per value, with
   its position in the file);
2. a window keeps, per (table, column), the ``sample`` values of lowest (position, file): round-robin over
   the table's files, so the sample holds values of every part (when there are at most ``sample`` parts);
   ``groupBy`` gathers them and a second ``mapInArrow`` tags each column against the index
   (:func:`lakeindex.tagging.domains.catalog_tag`: pattern, domain name, confidence), which each Python
   worker opens read-only once.

The index path must be readable by executors (local disk in local mode, a shared path on a cluster).
``lakeindex tag`` runs it locally, ``indexer_jobs/tag_lake.py`` under spark-submit.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator, Sequence
from functools import partial
from pathlib import Path

import pyarrow as pa
from pyspark.sql import SparkSession, Window
from pyspark.sql import functions as F

from lakeindex.lake.catalog import catalog_tables
from lakeindex.lake.listing import lake_uri, relative_table
from lakeindex.lake.readers import read_table, with_names, with_partition, without_deleted
from lakeindex.lake.table_files import file_contents, file_facts
from lakeindex.lake.tables import list_tables
from lakeindex.spark_session import is_connect

SAMPLE_SCHEMA = "tbl string, col string, file string, pos int, v string"
TAG_FIELDS = (("tbl", pa.string()), ("col", pa.string()), ("files", pa.int64()), ("tag", pa.string()),
              ("method", pa.string()), ("fpr", pa.float64()), ("coverage", pa.int64()), ("n", pa.int64()),
              ("domain", pa.string()), ("share", pa.float64()), ("confidence", pa.float64()),
              ("reason", pa.string()))
TAG_SCHEMA = ("tbl string, col string, files long, tag string, method string, fpr double, coverage long, n long, "
              "domain string, share double, confidence double, reason string")
JSONL_FIELDS = ("table", "column", "domain", "pattern", "confidence", "fpr", "coverage", "values")
_SOLVERS: dict = {}


def _solver(index: str):  # noqa: ANN202 - cached per Python worker
    from lakeindex.fmdv.search import SegmentSolver
    from lakeindex.index.store import IndexReader, current_version

    key = (index, current_version(index))
    if key not in _SOLVERS:
        _SOLVERS.clear()
        _SOLVERS[key] = SegmentSolver(IndexReader(index))
    return _SOLVERS[key]


def _sample_partition(batches, root: str, quotas: dict[str, int], sample: int,  # noqa: ANN001, ANN202
                      names: dict[str, tuple[tuple[str, str], ...]] | None = None, encoding: str | None = None):
    """Executor, step 1: per file, each column's first ``quota`` non-empty values with their positions; a
    column without any value gets one null so that it is still tagged (``no non-empty values``)."""
    schema = pa.schema([("tbl", pa.string()), ("col", pa.string()), ("file", pa.string()), ("pos", pa.int32()),
                        ("v", pa.string())])
    for batch in batches:
        paths, contents = batch.column("path").to_pylist(), batch.column("content")
        tables, partitions = batch.column("table").to_pylist(), batch.column("partition").to_pylist()
        deletions = batch.column("deleted").to_pylist()
        for i, path in enumerate(paths):
            table, rel = tables[i], relative_table(path, root)
            quota = quotas.get(table, sample)
            partition, deleted = file_facts(partitions[i], deletions[i])
            read = with_names(without_deleted(read_table(rel, contents[i].as_py() or b"", encoding), deleted),
                              (names or {}).get(table, ()))
            read = with_partition(read, partition)
            rows: dict[str, list] = {k: [] for k in schema.names}
            for name, arr in read.columns:
                values = [v for v in arr.slice(0, quota * 2).to_pylist() if v][:quota] or [None]
                rows["tbl"] += [table] * len(values)
                rows["col"] += [name] * len(values)
                rows["file"] += [rel] * len(values)
                rows["pos"] += list(range(len(values)))
                rows["v"] += values
            if rows["tbl"]:
                yield pa.RecordBatch.from_pydict(rows, schema=schema)


def _tag_groups(batches, index: str, fnr: float, m: int | None):  # noqa: ANN001, ANN202
    """Executor, step 2: tag each (table, column) sample and name its domain."""
    from lakeindex.tagging.domains import catalog_tag

    solver = _solver(index)
    schema = pa.schema(TAG_FIELDS)
    for batch in batches:
        rows: dict[str, list] = {k: [] for k in schema.names}
        for tbl, col, files, vals in zip(batch.column("tbl").to_pylist(), batch.column("col").to_pylist(),
                                         batch.column("files").to_pylist(), batch.column("vals").to_pylist(),
                                         strict=True):
            t = catalog_tag([v for v in vals if v], solver, fnr=fnr, m=m)
            for k, v in (("tbl", tbl), ("col", col), ("files", files), ("tag", t["tag"]), ("method", t["method"]),
                         ("fpr", t.get("fpr")), ("coverage", t.get("coverage")), ("n", t["values"]),
                         ("domain", t["domain"]), ("share", t["share"]), ("confidence", t["confidence"]),
                         ("reason", t.get("reason"))):
                rows[k].append(v)
        yield pa.RecordBatch.from_pydict(rows, schema=schema)


def tag_lake(spark: SparkSession, lake: str | None, index: str, sample: int = 1000, fnr: float = 0.05,
             m: int | None = None, tables: Sequence[str] = (), table_patterns: Sequence[str] = (),
             encoding: str | None = None) -> dict:
    """Tag all columns (text files read in ``encoding``, UTF-8 by default); return per-column tags and domains,
    the pattern groups (``domains``: tags shared by several columns) and the named-domain groups
    (``by_domain``)."""
    from lakeindex.index.store import read_meta
    from lakeindex.tagging.domains import DOMAIN_NAMES

    if sample < 1:
        raise ValueError("--sample must be >= 1")
    meta = read_meta(index)
    root = lake_uri(lake, here=not is_connect(spark)) if lake is not None else ""
    listed = list_tables(spark, root).tables if lake is not None else []
    if tables or table_patterns:
        listed += catalog_tables(spark, list(tables), list(table_patterns)).tables
    quotas = {t.name: max(1, math.ceil(sample / len(t.files))) for t in listed}
    rows = []
    if listed:
        spark.conf.set("spark.sql.execution.arrow.maxRecordsPerBatch", "8")
        files = file_contents(spark, root, listed)
        names = {t.name: t.column_names for t in listed if t.column_names}
        samples = files.mapInArrow(partial(_sample_partition, root=root, quotas=quotas, sample=sample, names=names,
                                           encoding=encoding),
                                   SAMPLE_SCHEMA)
        first = Window.partitionBy("tbl", "col").orderBy("pos", "file")
        grouped = (samples.withColumn("rank", F.row_number().over(first)).filter(F.col("rank") <= sample)
                   .groupBy("tbl", "col")
                   .agg(F.array_sort(F.collect_list(F.struct("pos", "file", "v"))).alias("s"),
                        F.countDistinct("file").alias("files"))
                   .select("tbl", "col", "files", F.transform("s", lambda s: s["v"]).alias("vals")))
        fn = partial(_tag_groups, index=str(Path(index).resolve()), fnr=fnr, m=m)
        rows = grouped.mapInArrow(fn, TAG_SCHEMA).collect()
    columns = sorted(({"table": r.tbl, "column": r.col, "files": r.files, "tag": r.tag, "method": r.method,
                       "fpr": r.fpr, "coverage": r.coverage, "values": r.n, "domain": r.domain, "share": r.share,
                       "confidence": r.confidence, **({"reason": r.reason} if r.reason else {})} for r in rows),
                     key=lambda d: (d["table"], d["column"]))
    domains: dict[str, list[str]] = {}
    named: dict[str, list[dict]] = {}
    for c in columns:
        if c["tag"]:
            domains.setdefault(c["tag"], []).append(f"{c['table']}:{c['column']}")
        if c["domain"]:
            named.setdefault(c["domain"], []).append(c)
    return {"index_version": meta["version"], "lake": root or None, "tables": len(listed),
            "columns_tagged": sum(1 for c in columns if c["tag"]),
            "columns_named": sum(1 for c in columns if c["domain"]),
            "columns": columns,
            "domains": [{"tag": t, "columns": cols} for t, cols in sorted(domains.items(), key=lambda kv: -len(kv[1]))
                        if len(cols) > 1],
            "by_domain": [{"domain": d, "description": DOMAIN_NAMES[d].description,
                           "columns": [f"{c['table']}:{c['column']}" for c in cols],
                           "patterns": sorted({c["tag"] for c in cols})}
                          for d, cols in sorted(named.items(), key=lambda kv: (-len(kv[1]), kv[0]))]}


def catalog_lines(result: dict) -> Iterator[dict]:
    """One catalog record per column of a :func:`tag_lake` result, with the fields of ``JSONL_FIELDS``."""
    for c in result["columns"]:
        yield {"table": c["table"], "column": c["column"], "domain": c["domain"], "pattern": c["tag"],
               "confidence": c["confidence"], "fpr": c["fpr"], "coverage": c["coverage"], "values": c["values"]}


def write_catalog_jsonl(result: dict, path: str | Path) -> int:
    """Write :func:`catalog_lines` as JSON lines to ``path`` atomically (all lines or the old file); return
    the number of lines."""
    from lakeindex.atomic_publish import write_atomically

    lines = [json.dumps(d, ensure_ascii=False, sort_keys=False) + "\n" for d in catalog_lines(result)]
    write_atomically(path, "".join(lines))
    return len(lines)
