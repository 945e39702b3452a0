"""The lake's tables: what the index build, tagging and incremental builds count, one table at a time.

A lake is a tree of tables, not of files. A table is one of:

* ``file``: a single data file (``orders.csv``);
* ``directory``: the part files of one table (Spark or Hadoop output, ``orders/part-00000-….parquet``),
  possibly in Hive-style ``key=value`` partition directories, whose keys are columns of the table with
  the value written in the path (``events/dt=2024-01-01/part-0.parquet``);
* ``delta``: a directory holding ``_delta_log/``. Only the live snapshot's files are read, as the
  ``deltalake`` package (delta-rs) resolves it: files an overwrite, delete or compaction left on disk are
  not. Partition values come from the log;
* ``iceberg``: a directory holding ``metadata/*.metadata.json``. Only the current snapshot's data files,
  as ``pyiceberg`` plans the scan.

Nothing here parses a transaction log or a manifest: the table formats' own libraries do, on the driver,
reading metadata only. The data files are then read by the executors like any other (``scan``). A table
that cannot be resolved (a log that does not replay, metadata pointing to a missing file, partition
directories of different keys) is skipped with a reason naming it, and the build goes on.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TYPE_CHECKING

from lakeindex.lake.formats import file_format
from lakeindex.lake.listing import (
    LakeFormats,
    directory_table,
    iceberg_metadata,
    lake_uri,
    list_files,
    relative_table,
    root_name,
    table_format_root,
)
from lakeindex.lake.table_formats import delta_table, iceberg_table, is_delta_table, library_path
from lakeindex.lake.table_model import (
    DELTA,
    DIRECTORY,
    FILE,
    ICEBERG,
    LakeTable,
    TableError,
    TableFile,
    TableListing,
    partition_values,
)

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


def group_files(files: list, root: str) -> TableListing:
    """Plain data files (``LakeFile`` rows: path, length, mtime) grouped into ``file`` and ``directory``
    tables; a directory table whose files disagree on their partition keys is skipped."""
    out = TableListing()
    groups: dict[str, list] = {}
    for f in files:
        rel = relative_table(f.path, root)
        table = directory_table(rel)
        if table is None:
            out.tables.append(LakeTable(rel, FILE, (TableFile(f.path, f.length, f.mtime),), location=f.path))
        else:
            groups.setdefault(table, []).append(f)
    for table, members in sorted(groups.items()):
        name = table or root_name(root)
        prefix = root.rstrip("/") + ("/" + table if table else "")
        tfiles = [TableFile(f.path, f.length, f.mtime, partition_values(relative_table(f.path, prefix)))
                  for f in sorted(members)]
        keys = {tuple(k for k, _ in tf.partition) for tf in tfiles}
        if len(keys) > 1:
            shown = ", ".join("/".join(k) or "(none)" for k in sorted(keys))
            out.skipped.append({"file": name, "reason": f"partition directories of different keys ({shown}): "
                                                        "not one table; move the odd ones out"})
            continue
        out.tables.append(LakeTable(name, DIRECTORY, tuple(tfiles), keys.pop(), location=prefix))
    return out


def discover(files: list, root: str, formats: LakeFormats) -> TableListing:
    """Every table of a listed lake: plain files grouped (:func:`group_files`), then each Delta and Iceberg
    root resolved by its library; a table that cannot be resolved is skipped with its reason."""
    out = group_files(files, root)
    delta_roots = list(formats.delta_roots)
    if formats.remote:  # Spark's listing hides _delta_log: ask delta-rs which directory tables are Delta
        found = [t for t in out.tables if t.format == DIRECTORY and is_delta_table(t.location)]
        delta_roots += [t.location for t in found]
        out.tables = [t for t in out.tables if t not in found]
    for loc in sorted(delta_roots):
        name = relative_table(loc, root) or root_name(root)
        try:
            out.tables.append(delta_table(loc, name))
        except TableError as exc:
            out.skipped.append({"file": name, "reason": str(exc).removeprefix(f"{name}: ")})
    for loc, metadata in sorted(formats.iceberg_roots.items()):
        name = relative_table(loc, root) or root_name(root)
        try:
            out.tables.append(iceberg_table(loc, name, metadata, formats.hints.get(loc)))
        except TableError as exc:
            out.skipped.append({"file": name, "reason": str(exc).removeprefix(f"{name}: ")})
    out.tables.sort(key=lambda t: t.name)
    return out


def list_tables(spark: SparkSession | None, root: str, say: Callable[[str], None] = lambda _: None) -> TableListing:
    """Every table of the lake at ``root`` (a URI from :func:`lakeindex.lake.listing.lake_uri`), and the
    files and tables skipped with their reasons (unsupported or empty files, unreadable table metadata)."""
    from lakeindex.lake.formats import FORMATS

    say(f"listing {root}")
    formats = LakeFormats()
    listing, skipped = list_files(spark, root, formats)
    candidates = []
    for f in listing:
        rel = relative_table(f.path, root)
        if not any(rel.lower().endswith(e) for e in FORMATS):
            skipped.append({"file": rel, "reason": "unsupported format (expected .csv, .tsv, .parquet, .jsonl)"})
        elif f.length == 0:
            skipped.append({"file": rel, "reason": "empty file"})
        else:
            candidates.append(f)
    found = discover(candidates, root, formats)
    skipped += [{"file": t.name, "reason": f"{t.format} table with no data files"} for t in found.tables if not t.files]
    return TableListing([t for t in found.tables if t.files], skipped + found.skipped)


def format_table(path: str) -> LakeTable | None:
    """The Delta or Iceberg table at ``path`` (a directory or URI given as DATA), resolved to its live
    snapshot, or None when ``path`` is not the root of such a table. Raises :class:`TableError`."""
    local = library_path(path)
    if "://" not in local and not os.path.isdir(local):
        return None
    if "://" in local and file_format(local.rstrip("/")) is not None:
        return None  # a remote data file: not probed as a table
    uri = path if "://" in path or path.startswith("file:") else lake_uri(path)
    name = uri.rstrip("/").rsplit("/", 1)[-1]
    if "://" in local:
        return delta_table(uri, name) if is_delta_table(uri) else None
    formats = LakeFormats()  # detected as the lake's listing detects them
    if not table_format_root(local, formats):
        return None
    if formats.delta_roots:
        return delta_table(uri, name)
    root = "file:" + local
    return iceberg_table(uri, name, formats.iceberg_roots[root], formats.hints.get(root))


def previous_state(record: dict) -> LakeTable | None:
    """A table as an index recorded it (its ``tables.jsonl`` line), read again: a Delta version or an
    Iceberg snapshot through its library, a file or directory table from its recorded files. None when
    that state is no longer on disk (files changed or gone, a version vacuumed, a store other than the
    local disk, where it is not checked)."""
    fmt, location, name = record.get("format"), record.get("location") or "", record["table"]
    if not location.startswith("file:"):
        return None
    try:
        if fmt == DELTA:
            table = delta_table(location, name, int(record["version"]))
        elif fmt == ICEBERG:
            metadata = iceberg_metadata(library_path(location))
            table = iceberg_table(location, name, ["file:" + m for m in metadata], None, int(record["version"]))
        elif fmt in (FILE, DIRECTORY) and "file_list" in record:
            prefix = location if fmt == DIRECTORY else ""
            files = tuple(TableFile(p, n, t, partition_values(relative_table(p, prefix)) if prefix else ())
                          for p, n, t in record["file_list"])
            table = LakeTable(name, fmt, files, tuple(record.get("partition_columns") or ()), None, location)
        else:
            return None
    except (TableError, ValueError, KeyError):
        return None
    for f in table.files:
        try:
            st = os.stat(library_path(f.path))
        except OSError:
            return None
        if st.st_size != f.length or (table.version is None and int(st.st_mtime * 1000) != f.mtime):
            return None
    return table
