"""Auto-tag every column of a lake (paper §2.3's dual problem) and group columns by domain.

Executors read files as the index build does, take up to ``sample`` values of each column, and
tag them against the index, which each Python worker opens read-only once. The driver receives
one small row per column. The index path must be readable by executors (local disk in local mode,
a shared path on a cluster). ``lakeindex tag`` runs it locally, ``indexer_jobs/tag_lake.py`` under
spark-submit.
"""

from __future__ import annotations

from functools import partial

import pyarrow as pa
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

from lakeindex.lake.listing import SUPPORTED_FILES_RE, lake_uri, relative_table
from lakeindex.lake.readers import read_table
from lakeindex.spark_session import is_connect

TAG_SCHEMA = "tbl string, col string, tag string, fpr double, coverage long, n long, reason string"
_SOLVERS: dict = {}


def _solver(index: str):  # noqa: ANN202 - cached per Python worker
    from lakeindex.fmdv.search import SegmentSolver
    from lakeindex.index.store import IndexReader, current_version

    key = (index, current_version(index))
    if key not in _SOLVERS:
        _SOLVERS.clear()
        _SOLVERS[key] = SegmentSolver(IndexReader(index))
    return _SOLVERS[key]


def _tag_partition(batches, root: str, index: str, sample: int, fnr: float, m: int | None):  # noqa: ANN001, ANN202
    from lakeindex.fmdv.tag import tag_column

    solver = _solver(index)
    rows: dict[str, list] = {k: [] for k in ("tbl", "col", "tag", "fpr", "coverage", "n", "reason")}
    for batch in batches:
        paths, contents = batch.column("path").to_pylist(), batch.column("content")
        for i, path in enumerate(paths):
            table = relative_table(path, root)
            read = read_table(table, contents[i].as_py() or b"")
            for name, arr in read.columns:
                values = [v for v in arr.slice(0, sample * 2).to_pylist() if v][:sample]
                t = tag_column(values, solver, fnr=fnr, m=m)
                for k, v in (("tbl", table), ("col", name), ("tag", t["tag"]), ("fpr", t.get("fpr")),
                             ("coverage", t.get("coverage")), ("n", t["values"]), ("reason", t.get("reason"))):
                    rows[k].append(v)
    yield pa.RecordBatch.from_pydict(rows, schema=pa.schema([
        ("tbl", pa.string()), ("col", pa.string()), ("tag", pa.string()), ("fpr", pa.float64()),
        ("coverage", pa.int64()), ("n", pa.int64()), ("reason", pa.string())]))


def tag_lake(spark: SparkSession, lake: str, index: str, sample: int = 1000, fnr: float = 0.05,
             m: int | None = None) -> dict:
    """Tag all columns; return per-column tags and the domains (tags shared by several columns)."""
    from pathlib import Path

    from lakeindex.index.store import read_meta

    meta = read_meta(index)
    root = lake_uri(lake, here=not is_connect(spark))
    spark.conf.set("spark.sql.execution.arrow.maxRecordsPerBatch", "8")
    files = (spark.read.format("binaryFile").option("recursiveFileLookup", "true").load(root)
             .filter(F.col("path").rlike(SUPPORTED_FILES_RE)).select("path", "content"))
    fn = partial(_tag_partition, root=root, index=str(Path(index).resolve()), sample=sample, fnr=fnr, m=m)
    rows = files.mapInArrow(fn, TAG_SCHEMA).collect()
    columns = sorted(({"table": r.tbl, "column": r.col, "tag": r.tag, "fpr": r.fpr, "coverage": r.coverage,
                       "values": r.n, **({"reason": r.reason} if r.reason else {})} for r in rows),
                     key=lambda d: (d["table"], d["column"]))
    domains: dict[str, list[str]] = {}
    for c in columns:
        if c["tag"]:
            domains.setdefault(c["tag"], []).append(f"{c['table']}:{c['column']}")
    return {"index_version": meta["version"], "lake": root, "columns_tagged": sum(1 for c in columns if c["tag"]),
            "columns": columns,
            "domains": [{"tag": t, "columns": cols} for t, cols in sorted(domains.items(), key=lambda kv: -len(kv[1]))
                        if len(cols) > 1]}
