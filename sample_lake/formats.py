"""Table writers, one per file format: CSV, TSV, Parquet (zstd, all-string columns) and JSON lines.

Nulls are empty cells in CSV/TSV and real nulls in Parquet and JSON lines; every other value is
written as a string.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Callable
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

FORMATS = ("csv", "tsv", "parquet", "jsonl")
DATA_SUFFIXES = tuple(f".{fmt}" for fmt in FORMATS)


def _write_delimited(path: Path, data: dict[str, list[str | None]], delimiter: str) -> None:
    with path.open("w", encoding="utf-8", newline="") as fh:
        writer = csv.writer(fh, delimiter=delimiter, lineterminator="\n")
        writer.writerow(list(data))
        writer.writerows(zip(*data.values(), strict=True))  # None is written as an empty cell


def _write_parquet(path: Path, data: dict[str, list[str | None]]) -> None:
    table = pa.table({name: pa.array(values, type=pa.string()) for name, values in data.items()})
    pq.write_table(table, path, compression="zstd")


def _write_jsonl(path: Path, data: dict[str, list[str | None]]) -> None:
    names = list(data)
    dumps = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode
    with path.open("w", encoding="utf-8", newline="\n") as fh:
        fh.writelines(dumps(dict(zip(names, row, strict=True))) + "\n"
                      for row in zip(*data.values(), strict=True))


WRITERS: dict[str, Callable[[Path, dict[str, list[str | None]]], None]] = {
    "csv": lambda p, d: _write_delimited(p, d, ","),
    "tsv": lambda p, d: _write_delimited(p, d, "\t"),
    "parquet": _write_parquet,
    "jsonl": _write_jsonl,
}
