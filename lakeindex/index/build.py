"""Offline index build (Auto-Validate §2.4): scan every column of a lake, write the pattern index.

Plan (all heavy work in executors; the driver sees file names, per-file stats and finished SST
bytes, never the corpus):

1. list the lake with Spark's ``binaryFile`` source (metadata only);
2. ``mapInArrow`` over file contents: parse, reduce columns to value counts, enumerate P(D), and
   emit task-local partial sums of (Imp_D(p) units, 1) per pattern (``lakeindex.index.scan``). The
   part files of a multi-part table (``orders/part-*``, ``events/date=…/``) are first partitioned and
   sorted by table, so one task merges each table's columns over its parts (one column, one count in
   Cov_T); single-file tables are read where they lie, without a shuffle;
3. ``groupBy(pattern)`` sums them into (Σ Imp, Cov_T) and drops patterns under the coverage floor;
4. range-partition and sort by key bytes, write each partition as an SST file in its executor,
   stream the files to the driver one partition at a time, ingest them into RocksDB, and publish
   the new version atomically (``lakeindex.index.store``).

The library's build: ``lakeindex index build LAKE --out INDEX`` runs it locally, and
``spark-submit indexer_jobs/build_index.py LAKE --out INDEX`` on a cluster (see README).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import time
import uuid
from collections import Counter
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path

from pyspark import StorageLevel, TaskContext
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

from lakeindex import __version__
from lakeindex.index.build_options import BuildError, limit_differences
from lakeindex.index.format import IMPURITY_SCALE
from lakeindex.index.merge import merge_indexes
from lakeindex.index.scan import PATTERN, SCAN_SCHEMA, STATS, scan_partition, scan_tables_partition
from lakeindex.index.store import IndexReader, VersionBuilder, current_version, read_meta, write_split_ssts
from lakeindex.lake.catalog import catalog_tables
from lakeindex.lake.listing import lake_uri
from lakeindex.lake.table_files import file_contents, lake_files
from lakeindex.lake.table_model import DELTA, FILE, ICEBERG, LakeTable, TableListing
from lakeindex.lake.tables import list_tables, previous_state
from lakeindex.patterns.enumerate import EnumerationLimits
from lakeindex.progress import Progress
from lakeindex.shuffle_sizing import sized_shuffles
from lakeindex.spark_session import is_connect, master_name, parallelism

SST_CHUNK_BYTES = 32 * 1024 * 1024
SST_SCHEMA = "part int, tail boolean, seq int, nkeys long, data binary"
MAX_ISSUES_KEPT = 1000


def _write_partition_sst(batches, tmp_dir: str, floor: int):  # noqa: ANN001, ANN202 - mapInArrow body
    """Executor: write this sorted partition as two SST files, the patterns at or above the coverage
    floor and the tail under it, and stream them back in chunks."""
    import pyarrow as pa

    part = TaskContext.get().partitionId()
    paths = [os.path.join(tmp_dir, f"lakeindex-{uuid.uuid4().hex}.sst") for _ in range(2)]
    schema = pa.schema([("part", pa.int32()), ("tail", pa.bool_()), ("seq", pa.int32()), ("nkeys", pa.int64()),
                        ("data", pa.binary())])

    def sums():
        for b in batches:
            yield from zip(b.column("key").to_pylist(), b.column("imp").to_pylist(), b.column("cov").to_pylist(),
                           strict=True)

    try:
        counts = write_split_ssts(paths[0], paths[1], sums(), floor)
        for tail, (path, n) in enumerate(zip(paths, counts, strict=True)):
            if not n:
                continue
            with open(path, "rb") as f:
                seq = 0
                while chunk := f.read(SST_CHUNK_BYTES):
                    yield pa.RecordBatch.from_pydict({"part": [part], "tail": [bool(tail)], "seq": [seq],
                                                      "nkeys": [n], "data": [chunk]}, schema=schema)
                    seq += 1
    finally:
        for path in paths:
            if os.path.exists(path):
                os.remove(path)


def _summarize(stats: list[dict], skipped_extra: list[dict]) -> dict:
    meta: dict = {"tables_scanned": 0, "columns_scanned": 0, "cells_scanned": 0, "values_scanned": 0,
                  "wide_values_skipped": 0, "rows_scanned": 0, "bytes_scanned": 0}
    skipped = list(skipped_extra)
    issues: list[dict] = []
    issues_total = 0
    for s in stats:
        meta["bytes_scanned"] += s["bytes"]
        for issue in s["issues"]:
            issues_total += 1
            if len(issues) < MAX_ISSUES_KEPT:
                issues.append({"file": s["table"], **issue})
        if s["skipped"]:
            skipped.append({"file": s["table"], "reason": s["skipped"]})
            continue
        meta["tables_scanned"] += 1
        meta["columns_scanned"] += s["columns"]
        meta["cells_scanned"] += s["cells"]
        meta["values_scanned"] += s["values"]
        meta["wide_values_skipped"] += s["wide_values"]
        meta["rows_scanned"] += s["rows"]
    meta["files_skipped"] = len(skipped)
    meta["skipped_files"] = sorted(skipped, key=lambda d: d["file"])[:MAX_ISSUES_KEPT]
    meta["issues_total"] = issues_total
    meta["issues"] = sorted(issues, key=lambda d: d["file"])
    return meta


def _scan(spark: SparkSession, root: str, tables: list[LakeTable], total_bytes: int,
          limits: EnumerationLimits, encoding: str | None = None) -> DataFrame:
    par = parallelism(spark)
    split = max(1 << 20, min(128 << 20, total_bytes // max(1, par * 4)))
    spark.conf.set("spark.sql.files.maxPartitionBytes", str(split))
    # a small open cost packs many small files per task: more patterns shared in a task's accumulator
    spark.conf.set("spark.sql.files.openCostInBytes", str(64 << 10))
    spark.conf.set("spark.sql.execution.arrow.maxRecordsPerBatch", "8")
    lim = limits.to_dict()
    single = [t.files[0].path for t in tables if t.format == FILE]
    multi = [t for t in tables if t.format != FILE]
    scans = []
    under = lake_files(spark, root) if root else None  # the lake listed once for both scans
    if single:  # read where they lie, without a shuffle
        scans.append(under.filter(F.col("path").isin(single)).select("path", "content").mapInArrow(
            partial(scan_partition, root=root, limits=lim, encoding=encoding), SCAN_SCHEMA))
    if multi:
        # every other table (part directories, partitions, Delta and Iceberg snapshots) is read by one task,
        # its live files only, with its partition values
        grouped = (file_contents(spark, root, multi, under).repartition(max(1, min(len(multi), par * 4)), "table")
                   .sortWithinPartitions("table", "path"))
        evolving = frozenset(t.name for t in multi if t.format in (DELTA, ICEBERG))
        names = {t.name: t.column_names for t in multi if t.column_names}
        scans.append(grouped.mapInArrow(partial(scan_tables_partition, root=root, limits=lim, evolving=evolving,
                                                names=names, encoding=encoding), SCAN_SCHEMA))
    return scans[0] if len(scans) == 1 else scans[0].unionByName(scans[1])


class FullBuildNeeded(Exception):
    """An incremental build that cannot stay exact; the message says why."""


def lake_tables(spark: SparkSession, lake: str | None, tables: Sequence[str], table_patterns: Sequence[str],
                say: Callable[[str], None]) -> tuple[str, TableListing]:
    """The lake's root URI ("" without a lake) and its tables with the catalog's named ones, and what was
    skipped; a catalog table whose location is a table of the lake is indexed once."""
    if lake is None and not tables and not table_patterns:
        raise BuildError("name a lake directory or catalog tables (--table db.name, --tables 'db.*')")
    root = lake_uri(lake, here=not is_connect(spark)) if lake is not None else ""
    found = list_tables(spark, root, say) if lake is not None else TableListing()
    if tables or table_patterns:
        say("resolving catalog tables")
        from_catalog = catalog_tables(spark, list(tables), list(table_patterns))
        in_lake = {t.location.rstrip("/"): t.name for t in found.tables}
        twice = [t for t in from_catalog.tables if t.location.rstrip("/") in in_lake]
        found = TableListing(found.tables + [t for t in from_catalog.tables if t not in twice],
                             found.skipped + from_catalog.skipped
                             + [{"file": t.name, "reason": f"the lake's table {in_lake[t.location.rstrip('/')]}: "
                                                          "indexed once"} for t in twice])
    return root, found


def build_version(spark: SparkSession, lake: str | None, out: str | Path, limits: EnumerationLimits,
                  min_coverage: int = 2, progress: bool = True, tables: Sequence[str] = (),
                  table_patterns: Sequence[str] = (), listing: TableListing | None = None,
                  encoding: str | None = None) -> dict:
    """Scan the lake and the catalog's ``tables`` and tables matching ``table_patterns`` (or exactly the
    tables of ``listing``, a part of the lake: an incremental build's) and publish a new version of ``out``;
    text files are read in ``encoding`` (UTF-8 by default)."""
    t0 = time.time()
    if min_coverage < 1:
        raise BuildError("--min-coverage must be >= 1")
    prog = Progress(spark, enabled=progress)
    with prog, contextlib.ExitStack() as sized:
        if listing is None:
            root, found = lake_tables(spark, lake, tables, table_patterns, prog.say)
        else:
            root, found = (lake_uri(lake, here=not is_connect(spark)) if lake is not None else ""), listing
        candidates, skipped = found.tables, list(found.skipped)
        if not candidates:
            raise BuildError(f"{'lake ' + lake if lake else 'the catalog'} has no readable table (.csv/.tsv/.parquet/"
                             ".jsonl files, Delta or Iceberg tables)" + _reasons(skipped))
        total_bytes = sum(t.bytes for t in candidates)
        nfiles = sum(len(t.files) for t in candidates)
        prog.say(f"scanning {len(candidates)} tables, {nfiles} files ({total_bytes / 1e6:.1f} MB)")
        sized.enter_context(sized_shuffles(spark, total_bytes))  # for the scan, aggregation and SST jobs
        # exactly the listed files: Spark's own recursive listing would follow symlinked directories
        scanned = _scan(spark, root, candidates, total_bytes, limits, encoding).persist(StorageLevel.MEMORY_AND_DISK)
        try:
            stats = [json.loads(r.info) for r in scanned.filter(F.col("kind") == STATS).select("info").collect()]
            seen = {s["table"] for s in stats}
            skipped += [{"file": t.name, "reason": "none of its data files could be read"}
                        for t in candidates if t.name not in seen and t.format != FILE]
            if listing is None and not any(not s["skipped"] for s in stats):  # nothing to publish but an empty index
                reasons = skipped + [{"file": s["table"], "reason": s["skipped"]} for s in stats if s["skipped"]]
                raise BuildError(f"{'lake ' + lake if lake else 'the catalog'} has no readable table"
                                 + _reasons(sorted(reasons, key=lambda d: d["file"])))
            prog.say("aggregating patterns and writing SST files")
            spark.conf.set("spark.sql.execution.arrow.maxRecordsPerBatch", "10000")
            # every pattern, the floor applied in the SST writer: those under it are the version's tail
            agg = (scanned.filter(F.col("kind") == PATTERN).groupBy("pattern")
                   .agg(F.sum("imp").alias("imp"), F.sum("cov").alias("cov"))
                   .select(F.col("pattern").cast("binary").alias("key"), "imp", "cov"))
            # one SST per ~64 MB of lake (the index is ~1% of it): small lakes need one Spark job
            nparts = max(1, min(int(spark.conf.get("spark.sql.shuffle.partitions")), -(-total_bytes // (64 << 20))))
            ordered = agg.repartitionByRange(nparts, "key").sortWithinPartitions("key")
            ssts = ordered.mapInArrow(partial(_write_partition_sst, tmp_dir=_executor_tmp(), floor=min_coverage),
                                      SST_SCHEMA)
            builder = VersionBuilder(out)
            try:
                _receive_ssts(ssts, builder)
                meta = {"lakeindex_version": __version__, "lake": root or None, "limits": limits.to_dict(),
                        "min_coverage": min_coverage, "impurity_scale": IMPURITY_SCALE,
                        "built_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                        "spark": {"master": master_name(spark), "connect": is_connect(spark), "version": spark.version},
                        **_summarize(stats, skipped)}
                scanned_ok = {s["table"] for s in stats if not s["skipped"]}
                done = [t for t in candidates if t.name in scanned_ok]
                meta["tables_by_format"] = dict(sorted(Counter(t.format for t in done).items()))
                meta["files_scanned"] = sum(len(t.files) for t in done)
                digests = {s["table"]: s.get("digest") for s in stats if not s["skipped"]}
                tables = [{**t.record(), "digest": digests[t.name]} for t in done]
                meta["build_seconds"] = round(time.time() - t0, 3)
                prog.say("publishing")
                builder.publish(meta, tables, keeps_tail=True)
            except BaseException:
                builder.abort()
                raise
        finally:
            scanned.unpersist()
    return read_meta(out)


def _reasons(skipped: list[dict], most: int = 10) -> str:
    """The first skipped files or tables with their reasons, for an error message."""
    if not skipped:
        return ""
    shown = "; ".join(f"{d['file']}: {d['reason']}" for d in skipped[:most])
    return f" ({len(skipped)} skipped: {shown}{'; ...' if len(skipped) > most else ''})"


def _executor_tmp() -> str:
    return os.environ.get("LAKEINDEX_EXECUTOR_TMP", "/tmp")


def _receive_ssts(ssts: DataFrame, builder: VersionBuilder) -> None:
    """Stream SST chunks, partition by partition, into the builder's index and tail files."""
    current: tuple[tuple[int, bool], object] | None = None
    for row in ssts.toLocalIterator(prefetchPartitions=True):
        if current is None or current[0] != (row.part, row.tail):
            if current is not None:
                current[1].close()
            current = ((row.part, row.tail), open(builder.new_sst_path(row.tail), "wb"))
        current[1].write(row.data)
    if current is not None:
        current[1].close()


def build_index(spark: SparkSession, lake: str | None, out: str | Path, limits: EnumerationLimits | None = None,
                min_coverage: int = 2, incremental: bool = False, progress: bool = True,
                tables: Sequence[str] = (), table_patterns: Sequence[str] = (), encoding: str | None = None) -> dict:
    """Build (or, with ``incremental``, bring up to date) the index at ``out``; return its metadata. Text files
    are read in ``encoding`` (UTF-8 by default; a file that does not decode is read with U+FFFD in place of
    its bad bytes and reported, naming the byte and ``--encoding``).

    An incremental build scans only what changed: new tables, and the tables whose version (Delta,
    Iceberg) or files (directory tables) changed, into a delta that is added to the index and its tail
    (the patterns under the floor); the old state of a changed table (a Delta version or Iceberg snapshot
    still kept, a directory table whose indexed files are all still there) is read again and taken out.
    The result equals a full build. Where that cannot be done exactly (a table gone from the lake, an old
    state no longer on disk, a table whose re-read contribution differs from the recorded one, an index
    without its tail) it runs a full build and says why in ``incremental.full_build``. It requires the
    same limits.
    """
    limits = limits or EnumerationLimits()

    def full() -> dict:
        return build_version(spark, lake, out, limits, min_coverage, progress=progress, tables=tables,
                             table_patterns=table_patterns, encoding=encoding)

    if not incremental or current_version(out) is None:
        return full()
    with IndexReader(out) as old:
        old_limits = EnumerationLimits.from_dict(old.meta["limits"])
        exact = old.keeps_tail or old.meta["min_coverage"] <= 1
        known = {t["table"]: {**t, "lake": t.get("lake", old.meta.get("lake"))} for t in old.tables()}
    if old_limits != limits:
        raise BuildError(f"index {out} was built with other limits; an incremental build must use the same "
                         f"(or run a full build): {'; '.join(limit_differences(old_limits, limits))}")
    try:
        if not exact:
            raise FullBuildNeeded("the index keeps no patterns under its coverage floor (built by an older "
                                  "lakeindex)")
        say = Progress(spark, enabled=progress).say
        root, found = lake_tables(spark, lake, tables, table_patterns, say)
        plus, minus = _changes(found.tables, known, root or None)
        if not plus and not minus:
            say("no table changed since the index was built")
            return {**read_meta(out), "incremental": {"new_tables": 0, "changed_tables": 0,
                                                      "skipped_files": found.skipped}}
        say(f"{len(plus)} new or changed table(s), {len(minus)} old state(s) to take out")
        return _add_changes(spark, lake, out, limits, min_coverage, progress, known, plus, minus, found, encoding)
    except FullBuildNeeded as why:
        return {**full(), "incremental": {"full_build": str(why)}}


def _changes(current: list[LakeTable], known: dict[str, dict],
             lake: str | None) -> tuple[list[LakeTable], list[LakeTable]]:
    """The tables to add (new, or changed: their current state) and the old states to take out (of the
    changed tables); a table of the lake that is gone needs a full build."""
    if any("fingerprint" not in t or "digest" not in t for t in known.values()):
        raise FullBuildNeeded("the index lists files, or tables without their contribution (built by an older "
                              "lakeindex)")
    plus = [t for t in current if t.name not in known or known[t.name]["fingerprint"] != t.fingerprint]
    present = {t.name for t in current}
    leaving = [t.name for t in plus if t.name in known]
    leaving += sorted(n for n, t in known.items() if t.get("lake") == lake and n not in present)
    minus = []
    for name in leaving:
        old = previous_state(known[name])
        if old is None and name not in present:
            raise FullBuildNeeded(f"table {name} is gone from the lake, and the state it was indexed in with it")
        if old is None:
            raise FullBuildNeeded(f"the indexed state of table {name} ({known[name]['fingerprint']}) is no longer "
                                  "on disk")
        minus.append(old)
    return plus, minus


def _add_changes(spark: SparkSession, lake: str | None, out: str | Path, limits: EnumerationLimits,
                 min_coverage: int, progress: bool, known: dict[str, dict], plus: list[LakeTable],
                 minus: list[LakeTable], found: TableListing, encoding: str | None = None) -> dict:
    """Scan ``plus`` and ``minus`` into deltas (floor 1: every pattern kept) and add ``plus`` to the index
    and take ``minus`` out of it, once each old state's re-read contribution matches the recorded one."""
    base = Path(out) / f".delta-{uuid.uuid4().hex[:8]}"
    try:
        added = removed = None
        if plus:
            build_version(spark, lake, base / "plus", limits, 1, progress=progress,
                          listing=TableListing(plus, found.skipped), encoding=encoding)
            added = base / "plus"
        if minus:
            build_version(spark, lake, base / "minus", limits, 1, progress=progress, listing=TableListing(minus),
                          encoding=encoding)
            with IndexReader(base / "minus") as r:
                again = {t["table"]: t.get("digest") for t in r.tables()}
            differ = [t.name for t in minus if again.get(t.name) != known[t.name]["digest"]]
            if differ:
                raise FullBuildNeeded(f"table {differ[0]} read again does not give what the index recorded (the "
                                      "index was built by other code, or its files changed in place)")
            removed = base / "minus"
        merged = merge_indexes([out] + ([added] if added else []), out, min_coverage=min_coverage,
                               subtract=[removed] if removed else [])
        new = sum(1 for t in plus if t.name not in known)
        return {**merged, "incremental": {"new_tables": new, "changed_tables": len(plus) - new,
                                          "skipped_files": found.skipped}}
    finally:
        shutil.rmtree(base, ignore_errors=True)
