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

import hashlib
import json
import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING
from urllib.parse import unquote

from lakeindex.lake.formats import file_format
from lakeindex.lake.listing import (
    PARTITION_DIR,
    LakeFormats,
    directory_table,
    iceberg_metadata,
    is_delta_dir,
    lake_uri,
    list_files,
    relative_table,
    root_name,
)

if TYPE_CHECKING:
    import pyarrow as pa
    from pyspark.sql import DataFrame, SparkSession

    from lakeindex.lake.readers import TableRead

FILE, DIRECTORY, DELTA, ICEBERG = "file", "directory", "delta", "iceberg"
HIVE_NULL = "__HIVE_DEFAULT_PARTITION__"  # how Spark and Hive write a null partition value

_METADATA_JSON = re.compile(r"(?:v(\d+)|(\d+)-[^/]*)\.metadata\.json")


class TableError(ValueError):
    """A table that cannot be read as its format says; the message names the table and the cause."""


@dataclass(frozen=True, order=True)
class TableFile:
    """A live data file of a table: its URI as Spark names it, size, mtime (ms), and partition values."""

    path: str
    length: int
    mtime: int = 0
    partition: tuple[tuple[str, str | None], ...] = ()


@dataclass(frozen=True)
class LakeTable:
    """One table of the lake: its name (path relative to the lake root), format, live files, partition
    columns and version (Delta version or Iceberg snapshot id; None for plain files)."""

    name: str
    format: str
    files: tuple[TableFile, ...]
    partition_columns: tuple[str, ...] = ()
    version: str | None = None
    location: str = ""
    # Arrow types of partition columns, where the table format records them (Delta)
    partition_types: tuple = field(default=(), compare=False)

    @property
    def bytes(self) -> int:
        return sum(f.length for f in self.files)

    @property
    def fingerprint(self) -> str:
        """What changes when the table's data changes: the table format's version, else a digest of its
        files' names, sizes and times (an incremental build re-scans a table whose fingerprint changed)."""
        if self.version is not None:
            return f"{self.format}:{self.version}"
        h = hashlib.sha1()
        for f in sorted(self.files):
            h.update(f"{f.path}\0{f.length}\0{f.mtime}\n".encode())
        return f"{self.format}:{h.hexdigest()[:16]}"

    def record(self) -> dict:
        """The table as the index's ``tables.jsonl`` lists it; a file or directory table with its files,
        so that an incremental build can read its old state again (:func:`previous_state`)."""
        out = {"table": self.name, "format": self.format, "fingerprint": self.fingerprint,
               "version": self.version, "files": len(self.files), "bytes": self.bytes,
               "partition_columns": list(self.partition_columns), "location": self.location}
        if self.version is None:
            out["file_list"] = [[f.path, f.length, f.mtime] for f in self.files]
        return out


@dataclass
class TableListing:
    """What discovery found: the tables, and the files or tables skipped with their reasons."""

    tables: list[LakeTable] = field(default_factory=list)
    skipped: list[dict] = field(default_factory=list)


def partition_values(rel_in_table: str) -> tuple[tuple[str, str | None], ...]:
    """Hive-style partition values of a file from its path inside the table (``dt=2024-01-01/part-0``):
    keys and values unescaped as Spark escapes them; the default partition is null."""
    out = []
    for p in rel_in_table.split("/")[:-1]:
        if PARTITION_DIR.fullmatch(p):
            key, value = p.split("=", 1)
            value = unquote(value)
            out.append((unquote(key), None if value == HIVE_NULL else value))
    return tuple(out)


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


def _local(uri: str) -> str:
    """A path the table-format libraries open: local URIs become plain paths, others stay URIs."""
    if uri.startswith("file://"):
        return uri[len("file://"):]
    return uri[len("file:"):] if uri.startswith("file:") else uri


def _spark_uri(path: str) -> str:
    """A data file's URI in the form Spark's listing gives it (``file:/abs`` for local files)."""
    if path.startswith("file://"):
        return "file:" + path[len("file://"):]
    if path.startswith("/"):
        return "file:" + path
    return path


def _text(value: object) -> str | None:
    from lakeindex.lake.rendering import render_scalar

    return render_scalar(value)


def delta_table(location: str, name: str, version: int | None = None) -> LakeTable:
    """The live snapshot of the Delta table at ``location`` (a URI), resolved by delta-rs (at ``version``:
    that version's snapshot, while its files are kept)."""
    try:
        from deltalake import DeltaTable
    except ImportError as exc:  # pragma: no cover - a dependency of the package
        raise TableError(f"{name}: a Delta table, and the deltalake package is not installed") from exc
    try:
        dt = DeltaTable(_local(location), version=version)
        partition_columns = tuple(dt.metadata().partition_columns)
        schema = _arrow_schema(dt.schema().to_arrow())
        actions = dt.get_add_actions(flatten=True)
        rows = _rows(actions)
        version = str(dt.version())
    except Exception as exc:  # noqa: BLE001 - delta-rs raises several types for a log it cannot replay
        raise TableError(f"{name}: Delta log cannot be read: {_first_line(exc)}") from exc
    files = []
    for r in rows:
        if r.get("deletionVector.storageType") or r.get("deletionVector") not in (None, {}):
            raise TableError(f"{name}: Delta table with deletion vectors (version {version}): "
                             "not supported by the file scan yet; run OPTIMIZE/REORG ... APPLY (PURGE) first")
        path = r["path"]
        if "://" not in path and not path.startswith("/"):
            path = location.rstrip("/") + "/" + unquote(path)
        part = tuple((c, _text(r.get(f"partition.{c}"))) for c in partition_columns)
        files.append(TableFile(_spark_uri(path), int(r["size_bytes"]), int(r.get("modification_time") or 0), part))
    types = tuple((c, schema.field(c).type) for c in partition_columns)
    return LakeTable(name, DELTA, tuple(sorted(files)), partition_columns, version, location, types)


def _arrow_schema(schema: object) -> pa.Schema:
    """A pyarrow schema of an Arrow-compatible one (delta-rs gives arro3's)."""
    import pyarrow as pa

    return pa.schema(schema)


def _rows(actions: object) -> list[dict]:
    """Rows of delta-rs's add actions (an Arrow-compatible table) as dicts."""
    import pyarrow as pa

    return pa.table(actions).to_pylist()


def current_metadata(files: list[str]) -> str | None:
    """The current metadata file among an Iceberg table's ``metadata/*.metadata.json`` names, as a
    file-system catalog points at it: ``version-hint.text``'s version if given, else the highest version
    number (``v3.metadata.json``, ``00003-<uuid>.metadata.json``)."""
    best, best_n = None, -1
    for f in files:
        m = _METADATA_JSON.fullmatch(f.rsplit("/", 1)[-1])
        if m:
            n = int(m.group(1) or m.group(2))
            if n > best_n:
                best, best_n = f, n
    return best


def iceberg_table(location: str, name: str, metadata_files: list[str], hint: str | None = None,
                  snapshot_id: int | None = None) -> LakeTable:
    """The current snapshot of the Iceberg table at ``location`` (or the snapshot ``snapshot_id``, while it is
    kept), planned by pyiceberg from its current metadata file (``hint``: ``version-hint.text``, if any)."""
    try:
        from pyiceberg.table import StaticTable
    except ImportError as exc:  # pragma: no cover - a dependency of the package
        raise TableError(f"{name}: an Iceberg table, and the pyiceberg package is not installed") from exc
    chosen = None
    if hint and hint.strip().isdigit():
        chosen = next((f for f in metadata_files if f.endswith(f"/v{hint.strip()}.metadata.json")), None)
    chosen = chosen or current_metadata(metadata_files)
    if chosen is None:
        raise TableError(f"{name}: no metadata/*.metadata.json file")
    try:
        table = StaticTable.from_metadata(_local(chosen))
        snapshot = table.current_snapshot() if snapshot_id is None else table.snapshot_by_id(snapshot_id)
        if snapshot is None:
            raise TableError(f"{name}: Iceberg table with no snapshot{f' {snapshot_id}' if snapshot_id else ''}")
        tasks = list(table.scan(snapshot_id=snapshot.snapshot_id).plan_files())
        partition_columns = tuple(table.schema().find_column_name(f.source_id)
                                  for f in table.spec().fields if str(f.transform) == "identity")
    except TableError:
        raise
    except Exception as exc:  # noqa: BLE001 - pyiceberg raises several types for unreadable metadata
        raise TableError(f"{name}: Iceberg metadata cannot be read ({chosen.rsplit('/', 1)[-1]}): "
                         f"{_first_line(exc)}") from exc
    files = []
    for t in tasks:
        if t.delete_files:
            raise TableError(f"{name}: Iceberg snapshot {snapshot.snapshot_id} has delete files: not supported "
                             "by the file scan yet; compact the table (rewrite_data_files) first")
        if file_format(t.file.file_path) != "parquet":
            raise TableError(f"{name}: Iceberg data file {t.file.file_path} is not Parquet (only Parquet is read)")
        files.append(TableFile(_spark_uri(t.file.file_path), int(t.file.file_size_in_bytes)))
    # Iceberg data files hold every column, partition source columns included: no values to add
    return LakeTable(name, ICEBERG, tuple(sorted(files)), partition_columns, str(snapshot.snapshot_id), location)


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0][:300] if text else ''}"


def discover(files: list, root: str, formats: LakeFormats) -> TableListing:
    """Every table of a listed lake: plain files grouped (:func:`group_files`), then each Delta and Iceberg
    root resolved by its library; a table that cannot be resolved is skipped with its reason."""
    out = group_files(files, root)
    delta_roots = list(formats.delta_roots)
    if formats.remote:  # Spark's listing hides _delta_log: ask delta-rs which directory tables are Delta
        found = [t for t in out.tables if t.format == DIRECTORY and _is_delta(t.location)]
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


def _is_delta(location: str) -> bool:
    from deltalake import DeltaTable

    try:
        return bool(DeltaTable.is_deltatable(_local(location)))
    except Exception:  # noqa: BLE001 - a store delta-rs cannot reach: not taken for a Delta table
        return False


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


def file_rows(tables: list[LakeTable]) -> list[tuple[str, str, str]]:
    """(path, table, partition values as JSON) of every data file of ``tables``: what executors reading
    the files join on to know each file's table and partition columns."""
    return sorted((f.path, t.name, json.dumps(f.partition)) for t in tables for f in t.files)


def file_contents(spark: SparkSession, root: str, tables: list[LakeTable]) -> DataFrame:
    """A ``binaryFile`` frame (path, content, table, partition) of exactly the data files of ``tables``:
    read where they lie (under the lake root ``root``, or elsewhere: a table format's files, a catalog
    table's; ``root`` is "" for a build of catalog tables alone), each row joined
    with its table's name and the file's partition values (:func:`file_rows`)."""
    from pyspark.sql import functions as F

    from lakeindex.lake.listing import SUPPORTED_FILES_RE

    rows = file_rows(tables)
    paths = [p for p, _, _ in rows]
    outside = [p for p in paths if not root or not p.startswith(root.rstrip("/") + "/")]
    files = spark.read.format("binaryFile").load(outside) if outside else None
    if len(outside) < len(paths):
        under = (spark.read.format("binaryFile").option("recursiveFileLookup", "true").load(root)
                 .filter(F.col("path").rlike(SUPPORTED_FILES_RE)))
        files = under if files is None else under.unionByName(files)
    names = spark.createDataFrame(rows, "path string, table string, partition string")
    return (files.filter(F.col("path").isin(paths)).join(F.broadcast(names), "path")
            .select("path", "content", "table", "partition"))


def read_local_table(table: LakeTable) -> TableRead:
    """A table of a local lake read on this machine as the build's executors read it: its live files
    parsed and their partition values added, columns concatenated in file order (for small tables)."""
    import pyarrow as pa

    from lakeindex.lake.readers import TableRead, read_table, with_partition

    out = TableRead()
    columns: dict[str, list[pa.ChunkedArray]] = {}
    for f in table.files:
        path = f.path.removeprefix("file:")
        with open(path, "rb") as fh:
            read = with_partition(read_table(path, fh.read()), f.partition)
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


def format_table(path: str) -> LakeTable | None:
    """The Delta or Iceberg table at ``path`` (a directory or URI given as DATA), resolved to its live
    snapshot, or None when ``path`` is not the root of such a table. Raises :class:`TableError`."""
    local = _local(path)
    if "://" not in local and not os.path.isdir(local):
        return None
    if "://" in local and file_format(local.rstrip("/")) is not None:
        return None  # a remote data file: not probed as a table
    uri = path if "://" in path or path.startswith("file:") else lake_uri(path)
    name = uri.rstrip("/").rsplit("/", 1)[-1]
    if "://" not in local:
        if is_delta_dir(local):
            return delta_table(uri, name)
        metadata = iceberg_metadata(local)
        if metadata:
            hint = os.path.join(local, "metadata", "version-hint.text")
            text = open(hint).read() if os.path.isfile(hint) else None  # noqa: SIM115
            return iceberg_table(uri, name, ["file:" + m for m in metadata], text)
        return None
    return delta_table(uri, name) if _is_delta(uri) else None


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
            metadata = iceberg_metadata(_local(location))
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
            st = os.stat(_local(f.path))
        except OSError:
            return None
        if st.st_size != f.length or (table.version is None and int(st.st_mtime * 1000) != f.mtime):
            return None
    return table
