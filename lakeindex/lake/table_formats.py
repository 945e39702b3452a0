"""Delta and Iceberg tables resolved by their own libraries: delta-rs replays a Delta log to its live
snapshot, pyiceberg plans an Iceberg snapshot's scan. Metadata only, on the driver; nothing here parses a
log or a manifest."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING
from urllib.parse import unquote

from lakeindex.lake.formats import file_format
from lakeindex.lake.read_errors import error_line
from lakeindex.lake.table_model import DELTA, ICEBERG, LakeTable, TableError, TableFile

if TYPE_CHECKING:
    import pyarrow as pa

_METADATA_JSON = re.compile(r"(?:v(\d+)|(\d+)-[^/]*)\.metadata\.json")


def library_path(uri: str) -> str:
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


def delta_table(location: str, name: str, version: int | None = None) -> LakeTable:
    """The live snapshot of the Delta table at ``location`` (a URI), resolved by delta-rs (at ``version``:
    that version's snapshot, while its files are kept)."""
    try:
        from deltalake import DeltaTable
    except ImportError as exc:  # pragma: no cover - a dependency of the package
        raise TableError(f"{name}: a Delta table, and the deltalake package is not installed") from exc
    from lakeindex.lake.rendering import render_scalar

    try:
        dt = DeltaTable(library_path(location), version=version)
        partition_columns = tuple(dt.metadata().partition_columns)
        schema = _arrow_schema(dt.schema().to_arrow())
        actions = dt.get_add_actions(flatten=True)
        rows = _rows(actions)
        version = str(dt.version())
        deleted = _deleted_rows(dt) if "deletionVectors" in (dt.protocol().reader_features or ()) else {}
        names = _physical_names(dt)
    except Exception as exc:  # noqa: BLE001 - delta-rs raises several types for a log it cannot replay
        raise TableError(f"{name}: Delta log cannot be read: {error_line(exc)}") from exc
    files = []
    for r in rows:
        path = r["path"]
        if "://" not in path and not path.startswith("/"):
            path = location.rstrip("/") + "/" + unquote(path)
        part = tuple((c, render_scalar(r.get(f"partition.{c}"))) for c in partition_columns)
        uri = _spark_uri(path)
        files.append(TableFile(uri, int(r["size_bytes"]), int(r.get("modification_time") or 0), part,
                               deleted.get(uri, ())))
    types = tuple((c, schema.field(c).type) for c in partition_columns)
    return LakeTable(name, DELTA, tuple(sorted(files)), partition_columns, version, location, types, names)


def _physical_names(dt: object) -> tuple[tuple[str, str], ...]:
    """(physical name, column name) of a Delta table's top-level columns under column mapping (``name`` or
    ``id`` mode: the data files hold the physical names), empty without it."""
    import json

    mode = dt.metadata().configuration.get("delta.columnMapping.mode", "none")  # type: ignore[attr-defined]
    if mode == "none":
        return ()
    fields = json.loads(dt.schema().to_json())["fields"]  # type: ignore[attr-defined]
    return tuple((f["metadata"]["delta.columnMapping.physicalName"], f["name"]) for f in fields
                 if f.get("metadata", {}).get("delta.columnMapping.physicalName", f["name"]) != f["name"])


def _deleted_rows(dt: object) -> dict[str, tuple[tuple[int, int], ...]]:
    """The rows each data file's deletion vector removes, as ``[start, stop)`` runs, by the file's Spark URI
    (delta-rs materialises the vectors as keep-masks; runs keep a file's entry small)."""
    import numpy as np
    import pyarrow as pa

    out: dict[str, tuple[tuple[int, int], ...]] = {}
    for batch in dt.deletion_vectors():  # type: ignore[attr-defined]
        batch = pa.record_batch(batch)
        paths = batch.column("filepath").to_pylist()
        masks = batch.column("selection_vector")
        for i, path in enumerate(paths):
            keep = np.asarray(masks[i].values.to_numpy(zero_copy_only=False), dtype=bool)
            runs = _runs(np.flatnonzero(~keep))
            if runs:
                out[_spark_uri(path)] = runs
    return out


def _runs(positions: object) -> tuple[tuple[int, int], ...]:
    """Sorted row positions (a numpy array, repeats allowed) as ``[start, stop)`` runs."""
    import numpy as np

    gone = np.unique(np.asarray(positions, dtype=np.int64))
    if not gone.size:
        return ()
    breaks = np.flatnonzero(np.diff(gone) != 1) + 1
    return tuple((int(run[0]), int(run[-1]) + 1) for run in np.split(gone, breaks))


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
    import numpy as np

    try:
        from pyiceberg.io.pyarrow import schema_to_pyarrow
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
        table = StaticTable.from_metadata(library_path(chosen))
        snapshot = table.current_snapshot() if snapshot_id is None else table.snapshot_by_id(snapshot_id)
        if snapshot is None:
            raise TableError(f"{name}: Iceberg table with no snapshot{f' {snapshot_id}' if snapshot_id else ''}")
        scan = table.scan(snapshot_id=snapshot.snapshot_id)
        tasks = list(scan.plan_files())
        # the table's schema for its current snapshot (renames since included), else the snapshot's own
        schema = table.schema() if snapshot_id is None else scan.projection()
        partition_columns = tuple(schema.find_column_name(f.source_id)
                                  for f in table.spec().fields if str(f.transform) == "identity")
        deletes = _position_deletes(name, snapshot.snapshot_id, table, tasks)
    except TableError:
        raise
    except Exception as exc:  # noqa: BLE001 - pyiceberg raises several types for unreadable metadata
        if "equality deletes" in str(exc):  # pyiceberg plans no scan over equality delete files
            raise TableError(f"{name}: Iceberg table with equality delete files: not read yet; compact the table "
                             "(rewrite_data_files) first") from exc
        raise TableError(f"{name}: Iceberg metadata cannot be read ({chosen.rsplit('/', 1)[-1]}): "
                         f"{error_line(exc)}") from exc
    files = []
    for t in tasks:
        if file_format(t.file.file_path) != "parquet":
            raise TableError(f"{name}: Iceberg data file {t.file.file_path} is not Parquet (only Parquet is read)")
        deleted = _runs(np.concatenate(deletes[t.file.file_path])) if t.file.file_path in deletes else ()
        files.append(TableFile(_spark_uri(t.file.file_path), int(t.file.file_size_in_bytes), deleted=deleted))
    # Iceberg data files hold every column, partition source columns included: no values to add. Columns
    # resolve by field id, so a renamed column is read under its current name and a dropped one not at all;
    # a file without field ids, by the table's name mapping
    current = {f.field_id: f.name for f in schema.fields}
    aliases = tuple((alias, current[f.field_id]) for f in (table.name_mapping() or ()) if f.field_id in current
                    for alias in f.names)
    return LakeTable(name, ICEBERG, tuple(sorted(files)), partition_columns, str(snapshot.snapshot_id), location,
                     column_names=(*current.items(), *aliases), schema=schema_to_pyarrow(schema))


def _position_deletes(name: str, snapshot_id: int, table: object, tasks: list) -> dict[str, list]:
    """The row positions (lists) each data file's position delete files remove, by data file path: the
    delete files pyiceberg's scan planning gives each data file of snapshot ``snapshot_id`` (``tasks``), read
    through the table's file IO (Parquet files of ``file_path`` and ``pos`` columns, as the Iceberg spec
    lays them out). Other delete files (deletion vectors) raise :class:`TableError`."""
    import pyarrow.parquet as pq
    from pyiceberg.manifest import DataFileContent

    by_delete_file: dict[str, dict[str, object]] = {}
    out: dict[str, list] = {}
    for t in tasks:
        for d in t.delete_files:
            if d.content != DataFileContent.POSITION_DELETES or file_format(d.file_path) != "parquet":
                raise TableError(f"{name}: Iceberg snapshot {snapshot_id} has delete file {d.file_path} "
                                 f"({d.content.name.lower()}, {d.file_format}): only Parquet position deletes "
                                 "are read; compact the table (rewrite_data_files) first")
            if d.file_path not in by_delete_file:
                with table.io.new_input(d.file_path).open() as fh:  # type: ignore[attr-defined]
                    rows = pq.read_table(fh, columns=["file_path", "pos"])
                grouped = rows.group_by("file_path").aggregate([("pos", "list")])
                by_delete_file[d.file_path] = dict(zip(grouped["file_path"].to_pylist(),
                                                       grouped["pos_list"].to_pylist(), strict=True))
            positions = by_delete_file[d.file_path].get(t.file.file_path)
            if positions is not None:
                out.setdefault(t.file.file_path, []).append(positions)
    return out


def is_delta_table(location: str) -> bool:
    from deltalake import DeltaTable

    try:
        return bool(DeltaTable.is_deltatable(library_path(location)))
    except Exception:  # noqa: BLE001 - a store delta-rs cannot reach: not taken for a Delta table
        return False
