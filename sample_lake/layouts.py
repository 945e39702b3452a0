"""Lay some Parquet tables of a generated lake out as real lakes hold tables: a Hive-partitioned Spark output
directory and a Delta table whose first version was overwritten.

The tables keep their data (the same rows and columns; the partition column moves from the files into the
directory names), so an index of the lake is the same, pattern for pattern, as of the lake of single files
(what ``tests/test_table_formats.py`` checks on layouts of its own). The Delta table's overwritten first
version stays on disk, as it does in a real lake, and must not be read. Delta logs hold commit times and
file ids, so these two tables are the only part of the lake that is not byte-identical on a re-run.
"""

from __future__ import annotations

import random
import shutil
import uuid
from pathlib import Path
from urllib.parse import quote

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

# table file -> (layout, partition column or None); columns of few, path-safe values without nulls
BUNDLED = {"service_logs_001.parquet": ("hive", "environment"), "audit_log_001.parquet": ("delta", None)}


def _part_name(rnd: random.Random, i: int) -> str:
    return f"part-{i:05d}-{uuid.UUID(int=rnd.getrandbits(128))}.c000.snappy.parquet"


def write_hive(table: pa.Table, target: Path, column: str, seed: int) -> None:
    """``table`` as a Spark output directory partitioned by ``column`` (its values only in the paths)."""
    rnd = random.Random(seed)
    for value in sorted(set(table[column].to_pylist())):
        part = table.filter(pc.equal(table[column], value)).drop_columns([column])
        directory = target / f"{column}={quote(value, safe='')}"
        directory.mkdir(parents=True)
        pq.write_table(part, directory / _part_name(rnd, 0), compression="snappy")
    (target / "_SUCCESS").write_bytes(b"")


def write_delta(table: pa.Table, target: Path) -> None:
    """``table`` as a Delta table at version 1; version 0 (its first half, every value marked stale) was
    overwritten and its file stays on disk."""
    from deltalake import write_deltalake

    stale = table.slice(0, table.num_rows // 2)
    stale = pa.table({n: pc.binary_join_element_wise("STALE-", c, "") if pa.types.is_string(c.type) else c
                      for n, c in zip(stale.column_names, stale.columns, strict=True)})
    write_deltalake(str(target), stale)
    write_deltalake(str(target), table, mode="overwrite")


def relayout(out_dir: Path, seed: int, layouts: dict[str, tuple[str, str | None]] = BUNDLED) -> list[str]:
    """Replace each named Parquet table of ``out_dir`` by its layout; return the tables laid out."""
    done = []
    for name, (layout, column) in layouts.items():
        src = out_dir / name
        if not src.exists():
            continue
        table = pq.read_table(src)
        target = out_dir / src.name.removesuffix(".parquet")
        if target.exists():
            shutil.rmtree(target)
        if layout == "hive":
            write_hive(table, target, column, seed)
        else:
            write_delta(table, target)
        src.unlink()
        done.append(target.name)
    return done


def relayout_share(out_dir: Path, share: float, seed: int) -> dict[str, int]:
    """Lay a ``share`` of the Parquet tables of a generated lake out as real lakes hold them, in turn a
    Spark output directory of 4 part files and a Delta table with an overwritten first version (the same
    data either way: the index is unchanged); return how many tables took each layout."""
    tables = sorted(p for p in out_dir.glob("*.parquet"))
    step = max(1, round(1 / share)) if share > 0 else 0
    picked = tables[::step] if step else []
    done = {"spark": 0, "delta": 0}
    rnd = random.Random(seed)
    for i, src in enumerate(picked):
        table = pq.read_table(src)
        target = out_dir / src.name.removesuffix(".parquet")
        if i % 2 == 0:
            target.mkdir()
            rows = table.num_rows
            for part in range(4):
                pq.write_table(table.slice(part * rows // 4, (part + 1) * rows // 4 - part * rows // 4),
                               target / _part_name(rnd, part), compression="snappy")
            (target / "_SUCCESS").write_bytes(b"")
            done["spark"] += 1
        else:
            write_delta(table, target)
            done["delta"] += 1
        src.unlink()
    return done
