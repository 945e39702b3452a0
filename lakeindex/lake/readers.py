"""Parse lake files (CSV, TSV, Parquet, JSON lines) from bytes into string columns.

Runs inside Spark executors on file contents, so it never touches a filesystem. Every value is
read as a string exactly as written (CSV/TSV) or as the canonical text of the stored type
(Parquet: :mod:`lakeindex.lake.rendering`; JSON numbers and booleans as JSON writes them). Only
empty cells are nulls: tokens such as ``N/A`` or ``null`` are data (the ad-hoc special values
Auto-Validate's horizontal cuts are about). Bad input never raises: the file or column is skipped or
repaired and a reason is recorded.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable
from dataclasses import dataclass, field

import pyarrow as pa
import pyarrow.compute as pc

from lakeindex.lake.formats import file_format
from lakeindex.lake.read_errors import error_line
from lakeindex.lake.rendering import NotRenderable, render

MAX_CELL_BYTES = 64 * 1024
CSV_BLOCK_BYTES = 16 * 1024 * 1024



@dataclass
class TableRead:
    """Result of reading one file: string columns (name, array), row count, and issues found."""

    columns: list[tuple[str, pa.Array]] = field(default_factory=list)
    rows: int = 0
    issues: list[dict] = field(default_factory=list)
    skipped: str | None = None
    # Parquet field ids of the columns that carry one (by column name): what Iceberg maps columns by
    field_ids: dict[str, int] = field(default_factory=dict)

    def issue(self, column: str | None, message: str) -> None:
        self.issues.append({"column": column, "issue": message} if column else {"issue": message})


def read_table(path: str, data: bytes, encoding: str | None = None) -> TableRead:
    """Read one file's bytes into string columns (text in ``encoding``, UTF-8 by default); never raises on bad
    input."""
    out = TableRead()
    fmt = file_format(path)
    if fmt is None:
        out.skipped = "unsupported format (expected .csv, .tsv, .parquet, .jsonl)"
        return out
    if not data:
        out.skipped = "empty file"
        return out
    if fmt != "parquet" and b"\x00" in data[:8192]:
        out.skipped = f"binary data (NUL bytes), not {fmt} text"
        return out
    try:
        if fmt in ("csv", "tsv"):
            table = _read_delimited(_decoded(data, out, path, encoding), "," if fmt == "csv" else "\t", out)
        elif fmt == "parquet":
            table = _read_parquet(data, out)
            out.field_ids = field_ids(table.schema)
        else:
            table = _read_jsonl(_decoded(data, out, path, encoding), out)
    except Exception as exc:  # noqa: BLE001 - any parser failure means an unreadable file
        out.skipped = f"unreadable {fmt}: {error_line(exc)}"
        return out
    if table is None:
        return out
    out.rows = table.num_rows
    if out.rows == 0:
        out.skipped = "empty table (no rows)"
        return out
    for name, col in zip(table.column_names, table.columns, strict=True):
        arr = _as_string(name, col, out)
        if arr is not None:
            out.columns.append((name, _truncate(name, arr, out)))
    if not out.columns and out.skipped is None:
        out.skipped = "no readable columns"
    return out


Partition = tuple[tuple[str, str | None], ...]  # a data file's partition values: (column, canonical text)
# row runs [start, stop) removed from a file by a Delta deletion vector or Iceberg position deletes
Deleted = tuple[tuple[int, int], ...]
# (name in the data files, column name) of a Delta column mapping, or (Parquet field id, column name) of the
# columns of an Iceberg schema with (name, column name) of its name mapping (for files without field ids)
ColumnNames = tuple[tuple[str | int, str], ...]


def kept_rows(rows: int, deleted: Deleted) -> pa.Array:
    """The keep-mask of a file's ``rows`` rows less the deleted ``[start, stop)`` runs."""
    import numpy as np

    keep = np.ones(rows, dtype=bool)
    for start, stop in deleted:
        keep[start:stop] = False
    return pa.array(keep)


def without_deleted(read: TableRead, deleted: Deleted) -> TableRead:
    """``read`` less the rows a Delta deletion vector or Iceberg position deletes removed (``deleted``:
    ``[start, stop)`` runs of row positions in the file, which is read whole and in order)."""
    if read.skipped or not deleted:
        return read
    mask = kept_rows(read.rows, deleted)
    read.columns = [(name, arr.filter(mask)) for name, arr in read.columns]
    read.rows = mask.true_count
    return read


def field_ids(schema: pa.Schema) -> dict[str, int]:
    """The Parquet field ids of a schema's top-level columns that carry one, by column name."""
    ids = {}
    for f in schema:
        raw = (f.metadata or {}).get(b"PARQUET:field_id")
        if raw is not None:
            ids[f.name] = int(raw)
    return ids


def column_namer(names: ColumnNames) -> Callable[[str, int | None], str | None]:
    """The table's name of a file's column (its name and Parquet field id), or None when the table no longer
    has it. ``names`` pairs a Delta column mapping's physical names with column names (a column it does not
    name keeps its file name), or an Iceberg table's field ids with its current column names: a column is
    read under the name its field id has now (renames), and one whose id the schema lacks was dropped. A
    column without a field id (a file added with ``add_files``) is named by the table's name mapping (the
    (name, column name) pairs beside the ids), else read by its name if the schema has it."""
    mapping = dict(names)
    if not any(isinstance(k, int) for k in mapping):
        return lambda name, field_id: mapping.get(name, name)
    aliased = any(isinstance(k, str) for k in mapping)
    current = set(mapping.values())

    def name_of(name: str, field_id: int | None) -> str | None:
        if field_id is not None:
            return mapping.get(field_id)
        if aliased:
            return mapping.get(name)
        return name if name in current else None

    return name_of


def with_names(read: TableRead, names: ColumnNames) -> TableRead:
    """``read`` with its columns under the table's names (``names``: :func:`column_namer`'s mapping); columns
    the table no longer has are left out."""
    if read.skipped or not names:
        return read
    name_of = column_namer(names)
    columns = []
    for name, arr in read.columns:
        renamed = name_of(name, read.field_ids.get(name))
        if renamed is not None:
            columns.append((renamed, arr))
    read.columns = columns
    return read


def with_partition(read: TableRead, partition: Partition) -> TableRead:
    """``read`` with its file's partition values as columns (the value in every row); a column the file
    holds itself is kept as the file has it."""
    if read.skipped or not partition:
        return read
    held = {name for name, _ in read.columns}
    for key, value in partition:
        if key not in held:
            read.columns.append((key, pa.chunked_array([pa.nulls(read.rows, pa.string()) if value is None
                                                        else pa.array([value] * read.rows, pa.string())])))
    return read


def _decoded(data: bytes, out: TableRead, path: str, encoding: str | None) -> bytes:
    """UTF-8 bytes of a text file read in ``encoding``; undecodable bytes become U+FFFD and are reported with the
    shared message (the file, the byte offset, ``--encoding``): one bad file does not stop a lake's build."""
    from lakeindex.lake.text_encoding import EncodingError, codec_name, decode_text

    name = codec_name(encoding)
    if name == "utf-8":
        if data.startswith(b"\xef\xbb\xbf"):
            data = data[3:]
        try:
            data.decode("utf-8")
            return data
        except UnicodeDecodeError:
            pass
    try:
        return decode_text(data, path, encoding).encode("utf-8")
    except EncodingError as exc:
        text = data.decode(name, errors="replace")
        bad = text.count("\ufffd") - data.decode(name, errors="ignore").count("\ufffd")
        out.issue(None, f"{exc}; {bad} undecodable byte sequence(s) replaced with U+FFFD")
        return text.encode("utf-8")


def _unique_names(names: list[str], out: TableRead) -> list[str]:
    seen: dict[str, int] = {}
    result = []
    for i, raw in enumerate(names):
        name = raw.strip() or f"column_{i + 1}"
        if name != raw.strip():
            out.issue(name, f"column {i + 1} has an empty header; named {name}")
        if name in seen:
            seen[name] += 1
            new = f"{name}~{seen[name]}"
            out.issue(new, f"duplicate column name {name!r} (column {i + 1}); indexed as {new!r}")
            name = new
        else:
            seen[name] = 1
        result.append(name)
    return result


def _read_delimited(data: bytes, delimiter: str, out: TableRead) -> pa.Table | None:
    import pyarrow.csv as pcsv

    first = data.split(b"\n", 1)[0].decode("utf-8").rstrip("\r")
    header = next(csv.reader([first], delimiter=delimiter), [])
    if not header:
        out.skipped = "no header row"
        return None
    names = _unique_names(header, out)
    bad_rows = 0

    def on_invalid(row: object) -> str:
        nonlocal bad_rows
        bad_rows += 1
        return "skip"

    table = pcsv.read_csv(
        io.BytesIO(data),
        read_options=pcsv.ReadOptions(column_names=names, skip_rows=1, block_size=CSV_BLOCK_BYTES),
        parse_options=pcsv.ParseOptions(delimiter=delimiter, newlines_in_values=True,
                                        invalid_row_handler=on_invalid),
        convert_options=pcsv.ConvertOptions(column_types={n: pa.string() for n in names},
                                            null_values=[""], strings_can_be_null=True,
                                            quoted_strings_can_be_null=False),
    )
    if bad_rows:
        out.issue(None, f"{bad_rows} malformed row(s) skipped (wrong number of fields)")
    return table


def _read_parquet(data: bytes, out: TableRead) -> pa.Table:
    import pyarrow.parquet as pq

    table = pq.read_table(pa.BufferReader(data))
    names = _unique_names(table.column_names, out)
    return table.rename_columns(names)


def _read_jsonl(data: bytes, out: TableRead) -> pa.Table:
    """JSON lines, parsed with the json module: Arrow's reader would turn date strings into
    timestamps, and values must stay as written."""
    rows: list[dict] = []
    bad = 0
    for line in data.decode("utf-8").splitlines():
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except ValueError:
            bad += 1
            continue
        if isinstance(obj, dict):
            rows.append(obj)
        else:
            bad += 1
    if bad:
        out.issue(None, f"{bad} malformed JSON line(s) skipped")
    names = list(dict.fromkeys(k for r in rows for k in r))
    cols = {n: [_json_text(r.get(n)) for r in rows] for n in names}
    return pa.table({n: pa.array(v, type=pa.string()) for n, v in cols.items()}) if names else pa.table({})


def _json_text(v: object) -> str | None:
    if v is None:
        return None
    if isinstance(v, str):
        return v
    if isinstance(v, bool):
        return "true" if v else "false"
    return json.dumps(v, ensure_ascii=False)


def _as_string(name: str, col: pa.ChunkedArray, out: TableRead) -> pa.ChunkedArray | None:
    try:
        return render(col)
    except NotRenderable as exc:
        out.issue(name, f"{exc}; column skipped")
        return None


def _truncate(name: str, col: pa.ChunkedArray, out: TableRead) -> pa.ChunkedArray:
    lengths = pc.binary_length(col)
    longest = pc.max(lengths).as_py()
    if longest is None or longest <= MAX_CELL_BYTES:
        return col
    n = pc.sum(pc.greater(lengths, MAX_CELL_BYTES)).as_py()
    out.issue(name, f"{n} cell(s) over 64 KB truncated to 64 KB (longest {longest} bytes)")
    return pc.utf8_slice_codeunits(col, 0, MAX_CELL_BYTES)
