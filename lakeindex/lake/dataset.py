"""Read one dataset (a file, or a directory of part files) into a Spark DataFrame for checks and profiling.

Unlike the lake scan, which parses thousands of small files in executors as text, a dataset is one
table read with Spark's own readers so columns get types: CSV/TSV with a header and schema inference
(numeric checks need numbers), Parquet and JSON lines as stored. The format comes from the file
extensions (the same ones the index job reads); a directory must hold one format.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from lakeindex.lake.readers import FORMATS, file_format

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession


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
    found = set()
    for _root, dirs, files in os.walk(local):
        dirs[:] = [d for d in dirs if not d.startswith((".", "_"))]
        found.update(f for f in (file_format(n) for n in files if not n.startswith((".", "_"))) if f)
    if not found:
        raise DatasetError(f"{path}: no data files (expected {', '.join(sorted(FORMATS))})")
    if len(found) > 1:
        raise DatasetError(f"{path}: mixed formats {sorted(found)}; point at one table's files or pass --format")
    return found.pop()


def read_dataset(spark: SparkSession, path: str, fmt: str | None = None, infer_schema: bool = True) -> DataFrame:
    """A typed DataFrame of the dataset at ``path`` (file or directory)."""
    fmt = fmt or detect_format(path)
    reader = spark.read
    if fmt in ("csv", "tsv"):
        df = reader.options(header=True, inferSchema=infer_schema, sep="\t" if fmt == "tsv" else ",",
                            multiLine=False, mode="PERMISSIVE").csv(path)
    elif fmt == "parquet":
        df = reader.parquet(path)
    elif fmt == "jsonl":
        df = reader.options(mode="PERMISSIVE").json(path)
    else:
        raise DatasetError(f"unknown format {fmt!r} (csv, tsv, parquet, jsonl)")
    if not df.columns:
        raise DatasetError(f"{path}: the {fmt} reader found no columns (empty file?)")
    return df
