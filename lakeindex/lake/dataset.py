"""Read one dataset (a file, a directory of part files, a Delta or Iceberg table) into a Spark DataFrame.

Unlike the lake scan, which parses thousands of small files in executors as text, a dataset is one
table read with Spark's own readers so columns get types: CSV/TSV with a header and schema inference
(numeric checks need numbers), Parquet and JSON lines as stored. The format comes from the file
extensions (the same ones the index job reads); a directory must hold one format. A Delta or Iceberg
table is read at its live snapshot (:mod:`lakeindex.lake.tables`).
"""

from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING, Any

from lakeindex.lake.formats import FORMATS, file_format
from lakeindex.lake.read_errors import error_line
from lakeindex.lake.text_encoding import SPARK_CHARSETS, check_file, spark_charset

if TYPE_CHECKING:
    from collections.abc import Sequence

    from pyspark.sql import DataFrame, SparkSession

    from lakeindex.lake.table_model import LakeTable, TableFile


CORRUPT_RECORD = "_corrupt_record"  # Spark's column of the JSON lines it could not parse
# RFC 4180, as the local reader (pyarrow) and the lake scan parse CSV: a quote is escaped by doubling it, not
# by a backslash (Spark's default), and a quoted value may hold line breaks. multiLine is what lets Spark read
# those; it also reads a file in one task (a single large CSV is not split; a directory of parts still is).
# Spark's multi-line reader lists its files again as glob patterns, so a name such as "[x].csv" would match
# nothing: files whose path has glob characters are read line by line (``has_glob_characters``).
CSV_DIALECT = {"quote": '"', "escape": '"', "multiLine": True}
_GLOB_CHARACTERS = re.compile(r"[{}\[\]*?\\]")


def has_glob_characters(path: str) -> bool:
    """A path Spark's multi-line CSV reader cannot read (it takes the resolved path as a glob pattern)."""
    return bool(_GLOB_CHARACTERS.search(path))


class DatasetError(ValueError):
    """The path holds no readable dataset; the message says what was found and what to do."""


def detect_format(path: str) -> str:
    """The single format of a file or of a directory's data files."""
    if "://" in path and not path.startswith("file://"):
        fmt = file_format(path.rstrip("/"))
        if fmt is None:
            raise DatasetError(f"{path}: pass --format for remote directories (csv, tsv, parquet, jsonl)")
        return fmt
    local = path[len("file://"):] if path.startswith("file://") else path
    if os.path.isfile(local):
        fmt = file_format(local)
        if fmt is None:
            raise DatasetError(f"{path}: unsupported file type (expected {', '.join(sorted(FORMATS))})")
        return fmt
    if not os.path.isdir(local):
        raise DatasetError(f"{path}: no such file or directory")
    found = {f for _, f in _data_files(local)}
    if not found:
        raise DatasetError(f"{path}: no data files (expected {', '.join(sorted(FORMATS))})")
    if len(found) > 1:
        raise DatasetError(f"{path}: mixed formats {sorted(found)}; point at one table's files or pass --format")
    return found.pop()


def read_dataset(spark: SparkSession, path: str | list[str], fmt: str | None = None, infer_schema: bool = True,
                 schema: str | None = None, encoding: str | None = None) -> DataFrame:
    """A typed DataFrame of the dataset at ``path`` (file or directory), or of several files of one format
    read together (a list: one scan over all of them, as a backfill's run of partition files).

    ``schema`` (a DDL string such as ``"id BIGINT, amount DOUBLE"``) types CSV/TSV/JSON lines without
    the inference pass, which reads all the data once more; the CSV header must name the same columns.
    A value that does not parse as its declared type becomes null (so it counts as missing).

    CSV/TSV/JSON lines text is decoded with ``encoding`` (default UTF-8); a local file that does not decode is
    an ``EncodingError`` naming the file and byte (:mod:`lakeindex.lake.text_encoding`), never U+FFFD values.
    """
    files_given = [] if isinstance(path, str) else list(path)
    if files_given:
        path = files_given[0]
    else:
        table = _format_table(path)
        if table is not None:
            return _read_format_table(spark, table, path)
    given = fmt is not None
    fmt = fmt or detect_format(path)
    if fmt not in ("csv", "tsv", "parquet", "jsonl"):
        raise DatasetError(f"unknown format {fmt!r} (csv, tsv, parquet, jsonl)")
    reader, sources = spark.read, [path]
    declared = None
    if schema is not None:
        if fmt == "parquet":
            raise DatasetError(f"{path}: --schema applies to CSV/TSV/JSONL; Parquet files carry their own types")
        declared = _parse_schema(spark, schema)
    local = path[len("file://"):] if path.startswith("file://") else path
    if len(files_given) > 1:
        sources = [_glob_escape(p if ":" in p.split("/")[0] else os.path.abspath(p)) for p in files_given]
    elif "://" not in local and os.path.isdir(local):
        # Spark would read every file of the directory (a README.md as CSV rows) and not the files of
        # plain sub-directories: read exactly the data files of this format, keeping partition columns
        files = [_glob_escape(os.path.abspath(p)) for p, f in _data_files(local) if f == fmt]
        if files:
            reader, sources = reader.option("basePath", os.path.abspath(local)), files
        elif not given:
            raise DatasetError(f"{path}: no {fmt} files")
    elif "://" not in local and os.path.isfile(local):
        # an existing file's name is literal ('[x].csv' is no character class); absolute, because a Spark
        # Connect server resolves a relative path against its own working directory
        sources = [_glob_escape(os.path.abspath(local))]
    header = None
    if fmt != "parquet":
        charset = spark_charset(encoding)
        if charset is None:
            raise DatasetError(f"--encoding {encoding}: Spark reads only {', '.join(sorted(SPARK_CHARSETS))}; "
                               "re-export the file as UTF-8 (the history commands' local engine reads it)")
        _check_encoding(files_given or [path], fmt, encoding)
        reader = reader.option("encoding", charset)
    try:
        if fmt in ("csv", "tsv"):
            reader = reader.options(header=True, sep="\t" if fmt == "tsv" else ",", mode="PERMISSIVE", **CSV_DIALECT)
            if any(has_glob_characters(p) for p in sources):
                reader = reader.option("multiLine", False)
            if declared is not None:
                header = reader.csv(sources).columns  # reads the first line only
                # enforceSchema off: Spark also checks every other file's header against the schema
                df = reader.schema(declared).option("enforceSchema", False).csv(sources)
            else:
                df = reader.option("inferSchema", infer_schema).csv(sources)
        elif fmt == "parquet":
            df = reader.parquet(*sources)
        else:
            if charset != "utf-8":  # Spark's JSON line reader needs the separator spelled out for other charsets
                reader = reader.option("lineSep", "\n")
            df = (reader if declared is None else reader.schema(declared)).options(mode="PERMISSIVE").json(sources)
        columns = df.columns  # a Spark Connect reader is lazy: its server finds a missing path only here
    except Exception as exc:  # noqa: BLE001 - corrupt files raise JVM errors: report them as bad input
        from lakeindex.lake.filesystems import missing_filesystem

        advice = missing_filesystem(exc, str(path))
        if advice:
            raise DatasetError(advice) from exc
        raise DatasetError(f"{path}: cannot read as {fmt}: {error_line(exc)}") from exc
    if header is not None:
        _require_header(path, header, declared)
    if not columns:
        raise DatasetError(f"{path}: the {fmt} reader found no columns (empty file?)")
    if fmt == "jsonl" and columns == [CORRUPT_RECORD]:
        raise DatasetError(f"{path}: no line is a JSON object: not JSON lines (one object per line), or pass --format")
    return df


def _check_encoding(paths: list[str], fmt: str, encoding: str | None) -> None:
    """Every local ``fmt`` file among ``paths`` (files or directories) decodes with ``encoding``; Spark would
    read undecodable bytes as U+FFFD characters. Remote files are not checked (reading them twice costs)."""
    for p in paths:
        local = p[len("file://"):] if p.startswith("file://") else p
        if "://" in local:
            continue
        files = [local] if os.path.isfile(local) else [f for f, g in _data_files(local) if g == fmt]
        for f in files:
            check_file(f, encoding)


def _format_table(path: str) -> LakeTable | None:
    """The Delta or Iceberg table at ``path`` (its live snapshot), or None for other data."""
    from lakeindex.lake.table_model import TableError
    from lakeindex.lake.tables import format_table

    try:
        return format_table(path)
    except TableError as exc:
        raise DatasetError(f"{path}: {str(exc).split(': ', 1)[-1]}") from exc


def _read_format_table(spark: SparkSession, table: LakeTable, path: str) -> DataFrame:
    """The live snapshot of a Delta or Iceberg table: its live Parquet files only (never files an overwrite
    left behind), with a Delta table's partition columns, typed as its log records them."""
    from pyspark.sql import functions as F
    from pyspark.sql.pandas.types import from_arrow_type

    if not table.files:
        raise DatasetError(f"{path}: {table.format} table {table.name} (version {table.version}) has no data files")
    if table.schema is not None:  # Iceberg: columns resolve by Parquet field id, under the schema's names
        return _read_by_field_id(spark, table)
    df = _without_deleted(spark, spark.read.parquet(*[_glob_escape(f.path) for f in table.files]), table.files)
    if table.column_names:  # a Delta column mapping: the files hold physical names
        renamed = dict(table.column_names)
        df = df.toDF(*[renamed.get(c, c) for c in df.columns])
    held = set(df.columns)
    added = [(c, t) for c, t in table.partition_types if c not in held]
    if added:
        names = [c for c, _ in added]
        rows = [(_file_key(f.path), *[dict(f.partition)[c] for c in names]) for f in table.files]
        values = spark.createDataFrame(rows, ", ".join(["`__file` string", *[f"`{c}` string" for c in names]]))
        df = (df.withColumn("__file", F.regexp_replace(F.input_file_name(), "^file:/+", "/"))
              .join(F.broadcast(values), "__file").drop("__file"))
        for c, t in added:
            df = df.withColumn(c, F.col(c).cast(from_arrow_type(t)))
    return df


def _read_by_field_id(spark: SparkSession, table: LakeTable) -> DataFrame:
    """An Iceberg table's live rows under its current schema: its files read by Parquet field id, so that a
    renamed column is read under its new name and a column added later is null in older files; files without
    field ids (added with ``add_files``) by the table's name mapping, as the build reads them."""
    from functools import reduce

    from pyspark.sql import functions as F

    from lakeindex.lake.readers import column_namer

    schema, name_of = _field_id_schema(spark, table.schema), column_namer(table.column_names)
    named = _files_without_field_ids(table) if any(isinstance(k, str) for k, _ in table.column_names) else {}
    by_id = [f for f in table.files if f.path not in named]
    parts = []
    if by_id:
        parts.append(_without_deleted(spark, spark.read.schema(schema).parquet(*[_glob_escape(f.path) for f in by_id]),
                                      by_id))
    for columns in sorted(set(named.values())):
        files = [f for f in table.files if named.get(f.path) == columns]
        df = _without_deleted(spark, spark.read.parquet(*[_glob_escape(f.path) for f in files]), files)
        held = {name_of(c, None): c for c in columns}
        parts.append(df.select([(F.col(f"`{held[f.name]}`") if f.name in held else F.lit(None))
                                .cast(f.dataType).alias(f.name) for f in schema.fields]))
    return reduce(lambda a, b: a.unionByName(b), parts)


def _files_without_field_ids(table: LakeTable) -> dict[str, tuple[str, ...]]:
    """The column names of each of an Iceberg table's files whose Parquet schema has no field ids, read from
    the files' footers (pyiceberg's file IO; only for a table with a name mapping, which such files need)."""
    import pyarrow.parquet as pq
    from pyiceberg.io.pyarrow import PyArrowFileIO

    from lakeindex.lake.readers import field_ids

    io, out = PyArrowFileIO(), {}
    for f in table.files:
        with io.new_input(f.path).open() as fh:
            schema = pq.read_schema(fh)
        if not field_ids(schema):
            out[f.path] = tuple(schema.names)
    return out


def _field_id_schema(spark: SparkSession, schema: Any) -> Any:
    """The Spark schema of an Arrow schema whose top-level fields carry Parquet field ids, with the ids, so
    that Spark's Parquet reader matches columns by id. Reading by id is a session setting that changes only
    reads whose schema carries ids, so it stays on (a DataFrame reads when an action runs)."""
    import pyarrow as pa
    from pyspark.sql.pandas.types import from_arrow_type
    from pyspark.sql.types import StructField, StructType

    from lakeindex.lake.readers import field_ids

    spark.conf.set("spark.sql.parquet.fieldId.read.enabled", "true")
    ids = field_ids(schema)
    # an extension type (Iceberg's uuid) is read as what Parquet stores, its storage type
    types = [f.type.storage_type if isinstance(f.type, pa.ExtensionType) else f.type for f in schema]
    return StructType([StructField(f.name, from_arrow_type(t), True,
                                   {"parquet.field.id": ids[f.name]} if f.name in ids else {})
                       for f, t in zip(schema, types, strict=True)])


def _without_deleted(spark: SparkSession, df: DataFrame, files: Sequence[TableFile]) -> DataFrame:
    """``df`` (``files`` read by Spark) less the rows the files' deletion vectors or position deletes
    removed: an anti-join of each row's file and position (Parquet's ``_metadata.row_index``) with the deleted
    runs."""
    from pyspark.sql import functions as F

    runs = [(_file_key(f.path), start, stop) for f in files for start, stop in f.deleted]
    if not runs:
        return df
    gone = spark.createDataFrame(runs, "`__dv_file` string, `__dv_start` long, `__dv_stop` long")
    located = (df.withColumn("__dv_path", F.regexp_replace(F.col("_metadata.file_path"), "^file:/+", "/"))
               .withColumn("__dv_row", F.col("_metadata.row_index")))
    hit = ((F.col("__dv_path") == F.col("__dv_file")) & (F.col("__dv_row") >= F.col("__dv_start"))
           & (F.col("__dv_row") < F.col("__dv_stop")))
    return located.join(F.broadcast(gone), hit, "left_anti").drop("__dv_path", "__dv_row")


def _file_key(path: str) -> str:
    """A data file's path as ``input_file_name()`` gives it, less its ``file:`` scheme."""
    return re.sub(r"^file:/+", "/", path)


def _require_header(path: str, header: list[str], declared: Any) -> None:
    """A declared schema must name the header's columns in order (case-insensitive, as Spark compares)."""
    names = [f.name for f in declared.fields]
    if [h.lower() for h in header] != [n.lower() for n in names]:
        raise DatasetError(f"{path}: the header has columns {header} but --schema declares {names}; "
                           "declare every column in header order")


def _parse_schema(spark: SparkSession, ddl: str) -> Any:
    """A StructType from a DDL string, or a DatasetError quoting Spark's reason."""
    from pyspark.sql.types import StructType

    try:
        parsed = spark.createDataFrame([], ddl).schema  # Spark's own DDL parser; nothing is read
    except Exception as exc:  # noqa: BLE001 - a parse error comes back as a JVM exception
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise DatasetError(f"--schema {ddl!r} is not a valid DDL schema such as 'id BIGINT, name STRING': "
                           f"{first[:300]}") from exc
    if not isinstance(parsed, StructType) or not parsed.fields:
        raise DatasetError(f"--schema {ddl!r}: expected column definitions such as 'id BIGINT, name STRING'")
    return parsed


def _data_files(local: str) -> list[tuple[str, str]]:
    """(path, format) of the data files under a local directory, skipping hidden and ``_`` names as Spark does."""
    out = []
    for root, dirs, files in os.walk(local):
        dirs[:] = sorted(d for d in dirs if not d.startswith((".", "_")))
        for n in sorted(files):
            fmt = file_format(n) if not n.startswith((".", "_")) else None
            if fmt:
                out.append((os.path.join(root, n), fmt))
    return out


def _glob_escape(path: str) -> str:
    """A path Spark reads literally: it expands glob characters in the paths it is given."""
    return re.sub(r"([\\{}\[\]*?])", r"\\\1", path)
