"""Read a small local dataset without starting a JVM, exactly as Spark's reader would.

Why: a batch of a few thousand rows costs seconds of JVM start and a Spark pass, where pandas needs
milliseconds (the AVH paper reports 1.6 s end to end per batch). The history commands take this path
for local files up to ``LOCAL_LIMIT_BYTES`` and fall back to Spark whenever the two readers could
disagree, so both paths give the same frame:

* **CSV/TSV read as text** (the history commands' default), in the RFC 4180 dialect both readers are set
  to (``lakeindex.lake.dataset.CSV_DIALECT``): a header line, every value a string, a quote escaped by
  doubling it, line breaks inside quoted values, a backslash an ordinary character, an empty field
  (quoted or not) a null, blank lines skipped, a UTF-8 BOM dropped, CR LF or LF line ends. What still
  differs goes to Spark: a quoted value with text after its closing quote (``"ab"c``, or ``"x\\"y"``
  written with a backslash escape: Spark keeps the field verbatim), a quoted line break in a file with
  CR LF line ends (Spark turns a quoted CR LF into LF) or whose path has glob characters (Spark reads
  it line by line), a carriage return alone (Arrow ends a row there), rows with more or fewer fields
  than the header (Spark pads or truncates; Arrow refuses), duplicate or empty header names (Spark
  renames them), a field over Python's csv limit (128 KiB).
  Typed CSV reading (``--infer-schema``, ``--schema``) is Spark's.
* **Parquet** whose columns are strings, integers, floating-point numbers or booleans (other types are
  rendered as text differently by the two engines) and no NaN (pandas would count it missing).
* JSON lines always go to Spark (its type inference has no pandas twin).

A directory is read when it holds only data files of one format at its top level (Spark would also
derive partition columns from ``key=value`` sub-directories), or is a Delta or Iceberg table: its live
snapshot's files, as ``lakeindex.lake.dataset`` reads them. The result is an Arrow table: ``batch()`` gives
a ``TextFrame`` when every column is text (no pandas import, see ``lakeindex.lake.text_frame``), else pandas.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from lakeindex.lake.formats import file_format
from lakeindex.lake.text_encoding import codec_name, decode_text

if TYPE_CHECKING:
    import pandas as pd
    import pyarrow as pa

    from lakeindex.lake.table_model import LakeTable
    from lakeindex.lake.text_frame import TextFrame

LOCAL_LIMIT_BYTES = 50 * 1024 * 1024
_LONE_CR = re.compile(rb"\r(?!\n)")


@dataclass
class LocalRead:
    """The table read without Spark, or None and the reason Spark must read the data."""

    table: pa.Table | None
    reason: str = ""
    path: str = ""

    @property
    def frame(self) -> pd.DataFrame | None:
        """The table as pandas (string columns become object columns of str / None)."""
        return None if self.table is None else self.table.to_pandas()

    def batch(self) -> TextFrame | pd.DataFrame | None:
        """A ``TextFrame`` when every column is text (CSV/TSV, string Parquet), else the pandas frame."""
        from lakeindex.lake.text_frame import TextFrame

        if self.table is None:
            return None
        text = TextFrame.from_arrow(self.table)
        return text if text is not None else self.frame


def _local_files(path: str) -> list[str] | str:
    """The data files of a local file or flat directory, or the reason the path is not one."""
    local = path[len("file://"):] if path.startswith("file://") else path
    if "://" in local:
        return "not a local path"
    if os.path.isfile(local):
        return [local]
    if not os.path.isdir(local):
        return "no such file or directory"
    files = []
    for entry in sorted(os.scandir(local), key=lambda e: e.name):
        if entry.name.startswith((".", "_")):
            continue
        if entry.is_dir():
            return f"sub-directory {entry.name!r} (partition columns are read by Spark)"
        if file_format(entry.name) is None:
            continue
        files.append(entry.path)
    return files or "no data files"


def read_local(path: str, fmt: str | None = None, *, infer_schema: bool = False, schema: str | None = None,
               limit_bytes: int = LOCAL_LIMIT_BYTES, encoding: str | None = None) -> LocalRead:
    """The dataset at ``path`` as pandas (text columns for CSV/TSV, as Spark reads them with
    ``--no-infer-schema``), or ``LocalRead(None, reason)`` when only Spark can read it faithfully.
    CSV/TSV text is decoded with ``encoding`` (default UTF-8): text that does not decode raises the shared
    ``EncodingError``, as the Spark path does."""
    table = _format_table(path)
    if isinstance(table, str):
        return LocalRead(None, table, path)
    if table is not None:
        return _read_format_table(table, path, limit_bytes)
    files = _local_files(path)
    if isinstance(files, str):
        return LocalRead(None, files, path)
    formats = {file_format(f) for f in files}
    if len(formats) != 1:
        return LocalRead(None, f"mixed formats {sorted(f or '?' for f in formats)}", path)
    found = formats.pop()
    fmt = fmt or found
    if fmt != found:
        return LocalRead(None, f"--format {fmt} on {found} files", path)
    size = sum(os.path.getsize(f) for f in files)
    if size > limit_bytes:
        return LocalRead(None, f"{size} bytes, over the {limit_bytes}-byte local limit", path)
    if schema is not None:
        return LocalRead(None, "--schema (typed reading is Spark's)", path)
    if fmt in ("csv", "tsv"):
        if infer_schema:
            return LocalRead(None, "--infer-schema (Spark's type inference)", path)
        return _concat([_read_csv(f, "\t" if fmt == "tsv" else ",", encoding) for f in files], path)
    if fmt == "parquet":
        return _concat([_read_parquet(f) for f in files], path)
    return LocalRead(None, f"{fmt} is read by Spark", path)


def _format_table(path: str) -> LakeTable | str | None:
    """The local Delta or Iceberg table at ``path``, None for other data, or why Spark must read it."""
    from lakeindex.lake.table_model import TableError
    from lakeindex.lake.tables import format_table

    local = path[len("file://"):] if path.startswith("file://") else path
    if "://" in local or not os.path.isdir(local):
        return None
    try:
        return format_table(local)
    except TableError as exc:
        return str(exc)


def _read_format_table(table: LakeTable, path: str, limit_bytes: int) -> LocalRead:
    """A Delta or Iceberg table's live Parquet files, with a Delta table's partition columns, as Spark's
    reader gives them (``lakeindex.lake.dataset``); Spark reads partition columns other than text and
    whole numbers."""
    import pyarrow as pa

    from lakeindex.lake.readers import kept_rows

    if table.bytes > limit_bytes:
        return LocalRead(None, f"{table.bytes} bytes, over the {limit_bytes}-byte local limit", path)
    if not table.files:
        return LocalRead(None, "no data files", path)
    parts = []
    for f in table.files:
        read = _read_parquet(f.path.removeprefix("file:"))
        if read.table is None:
            return LocalRead(None, f"{read.path}: {read.reason}", path)
        t = read.table
        if f.deleted:  # the rows the file's deletion vector or position deletes removed
            t = t.filter(kept_rows(t.num_rows, f.deleted))
        if table.schema is not None:  # Iceberg: columns resolve by field id
            try:
                t = _under_schema(t, table)
            except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as exc:
                return LocalRead(None, f"{read.path}: a column does not convert to the table's type "
                                       f"({str(exc).splitlines()[0][:120]}; Spark reads it)", path)
        elif table.column_names:  # a Delta column mapping: the files hold physical names
            renamed = dict(table.column_names)
            t = t.rename_columns([renamed.get(n, n) for n in t.column_names])
        for c, typ in table.partition_types:
            if c in t.column_names:
                continue
            if not (pa.types.is_string(typ) or pa.types.is_integer(typ)):
                return LocalRead(None, f"partition column {c!r} of type {typ} (Spark reads it)", path)
            value = dict(f.partition)[c]
            t = t.append_column(c, pa.array([value] * t.num_rows, pa.string()).cast(typ))
        parts.append(LocalRead(t, "", read.path))
    return _concat(parts, path)


def _under_schema(t: pa.Table, table: LakeTable) -> pa.Table:
    """A file's columns under its Iceberg table's schema, as Spark reads them by field id: each column of the
    schema found by its field id (so under its current name), as the schema types it, null where the file
    predates the column; columns the schema dropped are left out."""
    import pyarrow as pa

    from lakeindex.lake.readers import column_namer, field_ids

    ids, name_of = field_ids(t.schema), column_namer(table.column_names)
    held = {name_of(n, ids.get(n)): n for n in t.column_names}
    fields = [pa.field(f.name, pa.string() if pa.types.is_large_string(f.type) else f.type)
              for f in table.schema]  # type: ignore[attr-defined]
    return pa.table([t[held[f.name]].cast(f.type) if f.name in held else pa.nulls(t.num_rows, f.type)
                     for f in fields], schema=pa.schema(fields))


def _concat(parts: list[LocalRead], path: str) -> LocalRead:
    import pyarrow as pa

    tables = []
    for p in parts:
        if p.table is None:
            return LocalRead(None, f"{p.path}: {p.reason}", path)
        tables.append(p.table)
    if any(t.column_names != tables[0].column_names for t in tables):
        return LocalRead(None, "files with different columns", path)
    if any(not t.schema.equals(tables[0].schema, check_metadata=False) for t in tables):
        return LocalRead(None, "files with different column types (Spark reads them with one file's schema)", path)
    return LocalRead(tables[0] if len(tables) == 1 else pa.concat_tables(tables), "", path)


def _csv_hazard(data: bytes, text: str, sep: str, path: str) -> str:
    """Why Spark and Arrow could parse this CSV text (``data`` its UTF-8 bytes) differently, or ''."""
    import csv
    import io

    from lakeindex.lake.dataset import has_glob_characters

    if b"\r" in data and _LONE_CR.search(data):
        return "a carriage return not followed by a line feed (Arrow ends a row there, Spark does not)"
    if b'"' not in data:
        return ""
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=sep, doublequote=True, strict=True)
    quoted_break, line = False, 0
    try:  # strict RFC 4180: a closing quote must end its field
        for _ in reader:
            quoted_break = quoted_break or reader.line_num > line + 1  # the row spanned lines
            line = reader.line_num
    except csv.Error as exc:
        return f"a quoted value with text after its closing quote, or unbalanced quotes ({exc}; Spark keeps such " \
               "fields verbatim)"
    if quoted_break and data.split(b"\n", 1)[0].endswith(b"\r"):
        return "a quoted line break in a file with CR LF line ends (Spark turns a quoted CR LF into LF)"
    if quoted_break and has_glob_characters(os.path.abspath(path)):
        return "a quoted line break in a file whose path has glob characters (Spark reads it line by line)"
    return ""


def _read_csv(path: str, sep: str, encoding: str | None = None) -> LocalRead:
    import csv
    import io

    import pyarrow as pa
    import pyarrow.csv as pcsv

    with open(path, "rb") as fh:
        data = fh.read()
    text = decode_text(data, path, encoding)  # undecodable text is bad input on either path
    if codec_name(encoding) != "utf-8":
        data = text.encode("utf-8")
    hazard = _csv_hazard(data, text, sep, path)
    if hazard:
        return LocalRead(None, hazard, path)
    text_start = data[3:] if data.startswith(b"\xef\xbb\xbf") else data
    first = text_start.split(b"\n", 1)[0].rstrip(b"\r")
    header = next(csv.reader(io.StringIO(first.decode("utf-8")), delimiter=sep), [])
    if not header or any(h == "" for h in header) or len({h.lower() for h in header}) != len(header):
        return LocalRead(None, "empty or duplicate header names", path)
    try:
        table = pcsv.read_csv(
            io.BytesIO(data),
            parse_options=pcsv.ParseOptions(delimiter=sep, double_quote=True, escape_char=False,
                                            newlines_in_values=True),
            convert_options=pcsv.ConvertOptions(column_types={h: pa.string() for h in header},
                                                strings_can_be_null=True, quoted_strings_can_be_null=True,
                                                null_values=[""]))
    except (pa.ArrowInvalid, pa.ArrowTypeError) as exc:
        return LocalRead(None, f"Arrow cannot parse it the way Spark does ({str(exc).splitlines()[0][:120]})", path)
    if table.column_names != header:
        return LocalRead(None, "header mismatch", path)
    return LocalRead(table, "", path)


def _read_parquet(path: str) -> LocalRead:
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    try:
        table = pq.read_table(path)
    except (pa.ArrowInvalid, OSError) as exc:
        return LocalRead(None, f"unreadable Parquet ({str(exc)[:120]})", path)
    for f in table.schema:
        t = f.type
        if not (pa.types.is_string(t) or pa.types.is_large_string(t) or pa.types.is_integer(t)
                or pa.types.is_floating(t) or pa.types.is_boolean(t)):
            return LocalRead(None, f"column {f.name!r} of type {t} (Spark renders it as text its own way)", path)
        if pa.types.is_floating(t) and pc.any(pc.is_nan(table[f.name])).as_py():
            return LocalRead(None, f"NaN in column {f.name!r} (a value for Spark, missing for pandas)", path)
    return LocalRead(table, "", path)
