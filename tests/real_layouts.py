"""A small lake of the same tables in the layouts real lakes have, and the same tables one CSV per table.

Layouts: a single Parquet file; a Spark output directory (``part-0000N-<uuid>-c000.snappy.parquet`` and
``_SUCCESS``); a Hive-partitioned directory (``dt=…/part-….parquet``, ``dt`` only in the path); a Delta
table written by delta-rs whose first version was overwritten (its files stay on disk); an Iceberg table
written by pyiceberg (SQLite catalog outside the lake) whose first snapshot was overwritten. Columns are
typed in the typed layouts (int, decimal, date, timestamp), and the reference CSV holds the canonical
text of each value as written by hand here (``lakeindex.lake.rendering``'s documented forms).
"""

from __future__ import annotations

import datetime as dt
import random
import string
import uuid
from decimal import Decimal
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

LAYOUTS = ("file", "spark", "hive", "delta", "iceberg")


def _rows(rnd: random.Random, n: int) -> list[dict]:
    rows = []
    for _ in range(n):
        day = dt.date(2024, 1, 1) + dt.timedelta(days=rnd.randint(0, 3))
        ts = dt.datetime(2024, 1, 1, rnd.randint(0, 23), rnd.randint(0, 59), rnd.randint(0, 59),
                         rnd.choice([0, 500000, 123000]))
        rows.append({
            "order_id": f"ORD-{rnd.randint(0, 99999):05d}",
            "email": "".join(rnd.choices(string.ascii_lowercase, k=rnd.randint(3, 8))) + "@example."
                     + rnd.choice(["com", "org", "net"]),
            "country": rnd.choice(["US", "DE", "FR", "JP", "BR"]),
            "status": rnd.choice(["ACTIVE", "CLOSED", "N/A"]),
            "qty": rnd.randint(-5, 500),
            "price": Decimal(rnd.randint(0, 99999)) / 100,
            "day": day,
            "seen_at": ts,
            "dt": f"2024-01-0{rnd.randint(1, 3)}",
        })
    return rows


def _text(v: object) -> str:
    """The canonical text of a generated value, written out by hand (independent of the code under test)."""
    if isinstance(v, Decimal):
        return f"{v:.2f}"
    if isinstance(v, dt.datetime):
        base = v.strftime("%Y-%m-%d %H:%M:%S")
        return base + (f".{v.microsecond:06d}".rstrip("0") if v.microsecond else "")
    if isinstance(v, dt.date):
        return v.isoformat()
    return str(v)


_SCHEMA = pa.schema([("order_id", pa.string()), ("email", pa.string()), ("country", pa.string()),
                     ("status", pa.string()), ("qty", pa.int64()), ("price", pa.decimal128(9, 2)),
                     ("day", pa.date32()), ("seen_at", pa.timestamp("us")), ("dt", pa.string())])


def _arrow(rows: list[dict], drop: tuple[str, ...] = ()) -> pa.Table:
    schema = pa.schema([f for f in _SCHEMA if f.name not in drop])
    return pa.table({f.name: pa.array([r[f.name] for r in rows], f.type) for f in schema}, schema=schema)


def _csv(path: Path, rows: list[dict]) -> None:
    names = _SCHEMA.names
    lines = [",".join(names)] + [",".join(_text(r[n]) for n in names) for r in rows]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def _part_name(i: int) -> str:
    return f"part-{i:05d}-{uuid.UUID(int=random.getrandbits(128))}-c000.snappy.parquet"


def write_layout(lake: Path, name: str, layout: str, rows: list[dict], stale: list[dict], catalog_dir: Path) -> None:
    """Write ``rows`` as table ``name`` of ``lake`` in ``layout``; ``stale`` rows are a first version that
    the table formats overwrite (their files stay on disk)."""
    target = lake / name
    if layout == "file":
        lake.mkdir(parents=True, exist_ok=True)
        pq.write_table(_arrow(rows), lake / f"{name}.parquet")
    elif layout == "spark":
        target.mkdir(parents=True)
        for i in range(3):
            pq.write_table(_arrow(rows[i::3]), target / _part_name(i))
        (target / "_SUCCESS").write_bytes(b"")
    elif layout == "hive":
        for day in sorted({r["dt"] for r in rows}):
            d = target / f"dt={day}"
            d.mkdir(parents=True)
            part = [r for r in rows if r["dt"] == day]
            for i in range(2):
                if part[i::2]:
                    pq.write_table(_arrow(part[i::2], drop=("dt",)), d / _part_name(i))
        (target / "_SUCCESS").write_bytes(b"")
    elif layout == "delta":
        from deltalake import write_deltalake

        write_deltalake(str(target), _arrow(stale), partition_by=["dt"])
        write_deltalake(str(target), _arrow(rows), mode="overwrite", partition_by=["dt"])
    elif layout == "iceberg":
        from pyiceberg.catalog.sql import SqlCatalog

        catalog = SqlCatalog("lake", uri=f"sqlite:///{catalog_dir}/catalog.db", warehouse=f"file://{catalog_dir}")
        if ("db",) not in catalog.list_namespaces():
            catalog.create_namespace("db")
        table = catalog.create_table(f"db.{name}", schema=_arrow(rows).schema, location=f"file://{target}")
        table.append(_arrow(stale))
        table.overwrite(_arrow(rows))
    else:
        raise ValueError(layout)


def write_lakes(base: Path, tables_per_layout: int = 2, rows: int = 40, seed: int = 3) -> tuple[Path, Path]:
    """The real-layout lake and the one-CSV-per-table reference lake, under ``base``."""
    rnd = random.Random(seed)
    random.seed(seed)
    lake, ref, catalog = base / "lake", base / "reference", base / "catalog"
    for d in (lake, ref, catalog):
        d.mkdir(parents=True, exist_ok=True)
    for layout in LAYOUTS:
        for i in range(tables_per_layout):
            name = f"{layout}_{i}"
            data, stale = _rows(rnd, rows), _rows(rnd, rows // 2)
            for r in stale:
                r["status"] = "STALE-" + r["status"]  # patterns the live data never has
            write_layout(lake, name, layout, data, stale, catalog)
            _csv(ref / f"{name}.csv", data)
    return lake, ref
