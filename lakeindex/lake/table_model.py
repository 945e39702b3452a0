"""The table model of a lake: a table (its name, format, live files with their partition values,
partition columns, version) and what discovery found (:mod:`lakeindex.lake.tables`)."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from urllib.parse import unquote

from lakeindex.lake.listing import PARTITION_DIR

FILE, DIRECTORY, DELTA, ICEBERG = "file", "directory", "delta", "iceberg"
HIVE_NULL = "__HIVE_DEFAULT_PARTITION__"  # how Spark and Hive write a null partition value


class TableError(ValueError):
    """A table that cannot be read as its format says; the message names the table and the cause."""


@dataclass(frozen=True, order=True)
class TableFile:
    """A live data file of a table: its URI as Spark names it, size, mtime (ms), partition values, and the
    rows a Delta deletion vector or Iceberg position deletes removed from it (``[start, stop)`` runs of row
    positions in the file)."""

    path: str
    length: int
    mtime: int = 0
    partition: tuple[tuple[str, str | None], ...] = ()
    deleted: tuple[tuple[int, int], ...] = ()


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
    # how the files' columns map to the table's: (physical name, column name) of a Delta table's column
    # mapping, or (Parquet field id, column name) of every column of an Iceberg table's schema (so renamed
    # and dropped columns resolve by id); empty when the files use the columns' names
    column_names: tuple[tuple[str | int, str], ...] = ()
    # the Arrow schema of the table's columns, with their Parquet field ids, where the format records it
    # (Iceberg): what Spark reads the files under
    schema: object = field(default=None, compare=False)

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
