"""Executor side of the index build: files in, partial (pattern, Σ impurity, coverage) sums out.

``scan_partition`` is the body of a Spark ``mapInArrow`` over ``binaryFile`` rows. Each file is
parsed in the executor, each column reduced to distinct values with counts by Arrow, P(D) counted
by :func:`lakeindex.patterns.column_patterns`, and Imp_D(p) added into a task-local dictionary that
is flushed whenever it reaches ``flush_entries`` patterns (bounded memory). Patterns shared by many
columns of the task leave the Python worker once, which is most of the build's data reduction.
One ``stats`` row per file carries what the build metadata reports.

The data files of a table of several files (Spark/Hive output, partition directories, a Delta or
Iceberg snapshot: :mod:`lakeindex.lake.tables`) reach ``scan_tables_partition`` together, with their
partition values, and their columns are merged before enumeration (:mod:`lakeindex.index.part_merge`):
one table, one stats row, each column counted once.
"""

from __future__ import annotations

import gc
import json
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from itertools import groupby

import pyarrow as pa
import pyarrow.compute as pc

from lakeindex.index.format import impurity_units
from lakeindex.index.part_merge import MERGE_DISTINCT, MergedColumn, heaviest
from lakeindex.lake.listing import relative_table
from lakeindex.lake.readers import (
    ColumnNames,
    Deleted,
    Partition,
    TableRead,
    read_table,
    with_names,
    with_partition,
    without_deleted,
)
from lakeindex.lake.table_files import file_facts
from lakeindex.patterns.enumerate import ColumnPatterns, EnumerationLimits, column_patterns
from lakeindex.patterns.windows import MAX_WINDOWED_VALUES

SCAN_SCHEMA = "kind string, pattern string, imp long, cov long, info string"
_ARROW_SCHEMA = pa.schema([("kind", pa.string()), ("pattern", pa.string()), ("imp", pa.int64()),
                           ("cov", pa.int64()), ("info", pa.string())])
PATTERN, STATS = "p", "s"


# words and symbol runs: a lower bound on a value's token count, computed by Arrow (RE2)
_COARSE_TOKEN_RE = "[A-Za-z0-9]+|[^A-Za-z0-9]+"


def column_values(arr: pa.ChunkedArray, tau: int | None = None,
                  keep_wide: int = 0) -> tuple[list[str], list[int], int, list[str], list[int]]:
    """Distinct non-null, non-empty values of a string column with their counts.

    With ``tau``, values that certainly have more than ``tau`` tokens are split off in Arrow: the
    ``keep_wide`` heaviest of them are returned apart (fourth and fifth items, for segment windows),
    the number of the others is the third item (the heaviest by count, ties broken by a hash of the
    value: the order windows use, and one that a multi-part table's merge reproduces). Neither goes
    through narrow enumeration.
    """
    arr = pc.drop_null(arr)
    if len(arr):
        arr = pc.filter(arr, pc.not_equal(arr, ""))
    if len(arr) == 0:
        return [], [], 0, [], []
    vc = pc.value_counts(arr)
    values, counts = vc.field("values"), vc.field("counts")
    wide = 0
    wide_values: list[str] = []
    wide_counts: list[int] = []
    if tau is not None:
        narrow = pc.less_equal(pc.count_substring_regex(values, _COARSE_TOKEN_RE), tau)
        wv, wc = pc.filter(values, pc.invert(narrow)), pc.filter(counts, pc.invert(narrow))
        wide = pc.sum(wc).as_py() or 0
        if keep_wide and len(wv):
            if len(wv) > keep_wide:  # values as heavy as the k-th, then ties broken by hash, as windows do
                top = pc.select_k_unstable(pa.table({"c": wc}), keep_wide, [("c", "descending")])
                heavy = pc.greater_equal(wc, pc.min(pc.take(wc, top)))
                wv, wc = pc.filter(wv, heavy), pc.filter(wc, heavy)
            kept = heaviest(zip(wv.to_pylist(), wc.to_pylist(), strict=True), keep_wide)
            wide_values, wide_counts = [v for v, _ in kept], [n for _, n in kept]
            wide -= sum(wide_counts)
        values, counts = pc.filter(values, narrow), pc.filter(counts, narrow)
    return values.to_pylist(), counts.to_pylist(), wide, wide_values, wide_counts


def _file_stats(table: str, nbytes: int, read: TableRead) -> dict:
    """A file's stats row before its columns are counted."""
    return {"table": table, "bytes": nbytes, "rows": read.rows, "columns": 0, "cells": 0, "values": 0,
            "wide_values": 0, "issues": read.issues, "skipped": read.skipped}


def profile_file(table: str, data: bytes, limits: EnumerationLimits,
                 acc: dict[str, list[int]], encoding: str | None = None) -> dict:
    """Add one file's columns to ``acc`` (text read in ``encoding``); return the file's stats for the build
    metadata."""
    read = read_table(table, data, encoding)
    stats = _file_stats(table, len(data), read)
    if read.skipped:
        return stats
    tally = [0, 0]
    for _, arr in read.columns:
        stats["columns"] += 1
        stats["cells"] += read.rows
        values, counts, wide, wvalues, wcounts = column_values(
            arr, limits.tau, MAX_WINDOWED_VALUES if limits.window_edge else 0)
        if not values and not wide and not wvalues:
            continue
        cp = add_column(acc, values, counts, limits, wide, wvalues, wcounts, tally)
        stats["values"] += cp.total
        stats["wide_values"] += cp.wide
    stats["digest"] = digest(tally)
    return stats


def profile_table(table: str, parts: Iterable[tuple[str, bytes, Partition, Deleted]], limits: EnumerationLimits,
                  acc: dict[str, list[int]], same_columns: bool = True,
                  column_names: ColumnNames = (), encoding: str | None = None) -> list[dict]:
    """Add one table's columns, merged over its data files ``(relative path, bytes, partition values, rows
    deleted)``,
    to ``acc``; return its stats row (with its ``files``) and one row per data file skipped. Partition
    values are columns of the table like the others. With ``same_columns`` (a directory of files), files
    of different columns make the table skipped; a table format's files may lack a column added later,
    whose cells there are nulls. ``column_names`` renames the files' columns (a Delta column mapping)."""
    stats: dict = {"table": table, "files": [], "bytes": 0, "rows": 0, "columns": 0, "cells": 0,
                   "values": 0, "wide_values": 0, "issues": [], "skipped": None}
    skipped: list[dict] = []
    merged: dict[str, MergedColumn] = {}
    keep_wide = MERGE_DISTINCT if limits.window_edge else 0
    first: tuple[str, list[str]] | None = None
    for rel, data, partition, deleted in parts:
        read = read_table(rel, data, encoding)
        read = with_partition(with_names(without_deleted(read, deleted), column_names), partition)
        if read.skipped:
            skipped.append(_file_stats(rel, len(data), read))
            continue
        names = sorted(name for name, _ in read.columns)
        if first is None:
            first = (rel, names)
        elif same_columns and names != first[1]:
            return [{**stats, "skipped": f"{rel} has columns {names} where {first[0]} has {first[1]}: "
                                         "not one table (move the odd files out)"}]
        stats["files"].append(rel)
        stats["bytes"] += len(data)
        stats["rows"] += read.rows
        stats["issues"].extend({"file": rel, **issue} for issue in read.issues)
        for name, arr in read.columns:
            merged.setdefault(name, MergedColumn()).add(*column_values(arr, limits.tau, keep_wide), read.rows)
    if not stats["files"]:
        return skipped
    tally = [0, 0]
    for col in merged.values():
        stats["columns"] += 1
        stats["cells"] += stats["rows"]  # a file without the column holds nulls there
        if not col.narrow and not col.wide_listed and not col.wide_unlisted:
            continue
        wide_values, wide_counts, unlisted = col.wide_given()
        cp = add_column(acc, list(col.narrow), list(col.narrow.values()), limits, unlisted, wide_values, wide_counts,
                        tally)
        stats["values"] += cp.total
        stats["wide_values"] += cp.wide
    stats["digest"] = digest(tally)
    return [stats, *skipped]


def add_column(acc: dict[str, list[int]], values: list[str], counts: list[int] | None,
               limits: EnumerationLimits, wide: int = 0, wide_values: list[str] | None = None,
               wide_counts: list[int] | None = None, tally: list[int] | None = None) -> ColumnPatterns:
    """Add one column's Imp_D(p) units and coverage to the accumulator ``acc``; ``tally`` (patterns,
    impurity units) adds up what the column contributed (a table's contribution check, :func:`digest`)."""
    cp = column_patterns(values, counts, limits, wide=wide, wide_values=wide_values, wide_weights=wide_counts)
    total = cp.total
    get = acc.get
    units = 0
    for p, c in cp.counts.items():
        imp = impurity_units(total, c)
        units += imp
        a = get(p)
        if a is None:
            acc[p] = [imp, 1]
        else:
            a[0] += imp
            a[1] += 1
    if tally is not None:
        tally[0] += len(cp.counts)
        tally[1] += units
    return cp


def digest(tally: list[int]) -> str:
    """A table's contribution to the index in brief (patterns added, impurity units added): an incremental
    build that takes a table's old state out of the index checks that re-reading it gives the same."""
    return f"{tally[0]}:{tally[1]}"


def _pattern_batch(acc: dict[str, list[int]]) -> pa.RecordBatch:
    n = len(acc)
    return pa.RecordBatch.from_arrays([
        pa.array([PATTERN] * n, pa.string()), pa.array(list(acc.keys()), pa.string()),
        pa.array([v[0] for v in acc.values()], pa.int64()), pa.array([v[1] for v in acc.values()], pa.int64()),
        pa.nulls(n, pa.string())], schema=_ARROW_SCHEMA)


def _stats_batch(stats: list[dict]) -> pa.RecordBatch:
    n = len(stats)
    return pa.RecordBatch.from_arrays([
        pa.array([STATS] * n, pa.string()), pa.array([s["table"] for s in stats], pa.string()),
        pa.array([0] * n, pa.int64()), pa.array([0] * n, pa.int64()),
        pa.array([json.dumps(s) for s in stats], pa.string())], schema=_ARROW_SCHEMA)


def _files(batches: Iterable[pa.RecordBatch],
           root: str) -> Iterator[tuple[str | None, str, bytes, Partition, Deleted]]:
    """(table, relative path, bytes, partition values, deleted row runs) of each ``binaryFile`` row; the table
    is None without a ``table`` column, the partition values and deleted rows (JSON) empty without their
    columns."""
    for batch in batches:
        paths = batch.column("path").to_pylist()
        names = batch.schema.names
        tables = batch.column("table").to_pylist() if "table" in names else [None] * len(paths)
        partitions = batch.column("partition").to_pylist() if "partition" in names else [None] * len(paths)
        deletions = batch.column("deleted").to_pylist() if "deleted" in names else [None] * len(paths)
        contents = batch.column("content")
        for i, path in enumerate(paths):
            part, deleted = file_facts(partitions[i], deletions[i])
            yield tables[i], relative_table(path, root), contents[i].as_py() or b"", part, deleted


def _accumulate(units: Iterable[Callable[[dict[str, list[int]]], list[dict]]],
                flush_entries: int) -> Iterator[pa.RecordBatch]:
    """Run each unit of work (a file, or a table's parts) into a task-local accumulator, flushed at
    ``flush_entries`` patterns; then the stats rows the units returned."""
    acc: dict[str, list[int]] = {}
    stats: list[dict] = []
    for unit in units:
        with _collector_paused():
            stats.extend(unit(acc))
        if len(acc) >= flush_entries:
            yield _pattern_batch(acc)
            acc = {}
    if acc:
        yield _pattern_batch(acc)
    if stats:
        yield _stats_batch(stats)


@contextmanager
def _collector_paused() -> Iterator[None]:
    """Python's cyclic collector off during one unit of work, on between units.

    Enumeration allocates millions of short-lived tuples while the template caches hold millions of
    live ones, so the collector's passes over the caches took an eighth of a scan task's CPU. Its
    allocations form no cycles; whatever garbage a unit leaves is collected after it (the first
    allocation with the collector on again starts a pass over everything young), so memory stays
    bounded by one unit's work.
    """
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def scan_partition(batches: Iterable[pa.RecordBatch], root: str, limits: dict,
                   flush_entries: int = 400_000, encoding: str | None = None) -> Iterator[pa.RecordBatch]:
    """mapInArrow body over ``binaryFile`` rows (path, content); text read in ``encoding``."""
    lim = EnumerationLimits(**limits)
    return _accumulate((lambda acc, rel=rel, data=data: [profile_file(rel, data, lim, acc, encoding)]
                        for _, rel, data, _, _ in _files(batches, root)), flush_entries)


def scan_tables_partition(batches: Iterable[pa.RecordBatch], root: str, limits: dict,
                          flush_entries: int = 400_000,
                          evolving: frozenset[str] = frozenset(),
                          names: dict[str, ColumnNames] | None = None,
                          encoding: str | None = None) -> Iterator[pa.RecordBatch]:
    """mapInArrow body over the data files of tables of several files, rows (path, content, table,
    partition) with each table's rows next to each other (the build partitions and sorts them by table).
    ``evolving``: the tables whose files may differ in columns (Delta and Iceberg snapshots); ``names``: the
    column names of tables whose files hold other names (Delta column mapping)."""
    names = names or {}
    lim = EnumerationLimits(**limits)
    # each table's unit runs before groupby moves on, so its group of rows is still readable
    return _accumulate((lambda acc, table=table, group=group: profile_table(
        table, ((rel, data, part, deleted) for _, rel, data, part, deleted in group), lim, acc,
        table not in evolving, names.get(table, ()), encoding)
        for table, group in groupby(_files(batches, root), key=lambda row: row[0])), flush_entries)
