"""Iceberg schema evolution and delete files, as every reader of a lake must honour them.

Schema evolution: ``people`` was written, then ``name`` renamed to ``full_name``, ``gone`` dropped and a new
column ``name`` (another field id) added, more rows appended, and ``city`` renamed to ``town`` with no data
written since. Iceberg maps columns by field id, so the older file's ``name`` is ``full_name``, its ``gone``
is not read, and the new ``name`` is null in its rows. Position deletes: ``orders`` has two files and a
position delete file removing rows 0, 3 and 4 of the first (``tests/iceberg_deletes.py``). Name mapping:
``imported`` holds a Parquet file without field ids added with ``add_files`` (so the table has a name
mapping), then ``s`` renamed to ``label`` and a row appended. ``merged`` has an equality delete file, which
is not read yet: it is skipped with its reason. The expected rows below are written out by hand from those
operations (pyiceberg's own reader agrees, checked too).
"""

from __future__ import annotations

import csv

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from lakeindex.index import build as job
from lakeindex.index.store import IndexReader
from lakeindex.lake.tables import format_table
from tests.iceberg_deletes import add_equality_deletes, add_position_deletes

pytest.importorskip("pyiceberg")

OLD = [(1, "Ada Lovelace", "London", "G-1"), (2, "Alan Turing", "Wilmslow", "G-2"),
       (3, "Grace Hopper", "Arlington", "G-3")]
NEW = [(4, "Edsger Dijkstra", "Nuenen", "N04"), (5, "Barbara Liskov", "Boston", "N05")]
# (id, full_name, town, name): the old rows' gone values are not read, their new name is null
PEOPLE = [(i, n, c, None) for i, n, c, _ in OLD] + NEW
FIRST = [(i, f"A-{i:03d}") for i in range(6)]
SECOND = [(i, f"B-{i:03d}") for i in range(6, 9)]
ORDERS = [FIRST[1], FIRST[2], FIRST[5], *SECOND]  # rows 0, 3 and 4 of the first file deleted
IMPORTED = [(1, "L-a"), (2, "L-b"), (3, "L-c")]


def _write_lake(base):
    from pyiceberg.catalog.sql import SqlCatalog
    from pyiceberg.types import StringType

    lake, ref = base / "lake", base / "ref"
    lake.mkdir()
    ref.mkdir()
    catalog = SqlCatalog("t", uri=f"sqlite:///{base}/catalog.db", warehouse=f"file://{base}")
    catalog.create_namespace("db")
    people = catalog.create_table("db.people", location=f"file://{lake}/people", schema=pa.schema(
        [("id", pa.int64()), ("name", pa.string()), ("city", pa.string()), ("gone", pa.string())]))
    people.append(_arrow(people, OLD))
    with people.update_schema() as update:
        update.rename_column("name", "full_name")
        update.delete_column("gone")
    with people.update_schema() as update:
        update.add_column("name", StringType())
    people.append(_arrow(people, NEW))
    with people.update_schema() as update:
        update.rename_column("city", "town")
    _csv(ref / "people.csv", ["id", "full_name", "town", "name"], PEOPLE)

    schema = pa.schema([("id", pa.int64()), ("code", pa.string())])
    orders = catalog.create_table("db.orders", location=f"file://{lake}/orders", schema=schema)
    for rows in (FIRST, SECOND):
        orders.append(_arrow(orders, rows))
    first = next(t.file.file_path for t in orders.scan().plan_files() if t.file.record_count == len(FIRST))
    orders = add_position_deletes(orders, first, [0, 3, 4])
    _csv(ref / "orders.csv", ["id", "code"], ORDERS)

    plain = pa.schema([("id", pa.int64()), ("s", pa.string())])
    imported = catalog.create_table("db.imported", location=f"file://{lake}/imported", schema=plain)
    (lake / "imported" / "data").mkdir(parents=True)
    pq.write_table(pa.table({"id": [1, 2], "s": ["L-a", "L-b"]}, plain),
                   lake / "imported" / "data" / "imported.parquet")  # no field ids, as a file Hive wrote
    imported.add_files([f"file://{lake}/imported/data/imported.parquet"])
    with imported.update_schema() as update:
        update.rename_column("s", "label")
    imported.append(_arrow(imported, IMPORTED[2:]))
    _csv(ref / "imported.csv", ["id", "label"], IMPORTED)

    merged = catalog.create_table("db.merged", location=f"file://{lake}/merged", schema=schema)
    merged.append(_arrow(merged, FIRST))
    add_equality_deletes(merged, "id", [1])
    return lake, ref, {"people": people, "orders": orders, "imported": imported}


def _arrow(table, rows) -> pa.Table:  # noqa: ANN001
    """``rows`` (tuples in the order of the table's current columns) as Arrow under its current schema."""
    schema = table.schema().as_arrow()
    return pa.table({f.name: [r[i] for r in rows] for i, f in enumerate(schema)}, schema=schema)


def _csv(path, header, rows):
    with open(path, "w", newline="") as fh:
        out = csv.writer(fh, lineterminator="\n")
        out.writerow(header)
        out.writerows(["" if v is None else v for v in r] for r in rows)


def _items(path) -> dict[bytes, bytes]:
    with IndexReader(path) as ix:
        return dict(ix.items())


@pytest.fixture(scope="module")
def lakes(tmp_path_factory):
    return _write_lake(tmp_path_factory.mktemp("iceberg"))


def test_pyiceberg_itself_reads_the_hand_written_rows(lakes):
    _, _, tables = lakes
    people = tables["people"].scan().to_arrow()
    assert people.column_names == ["id", "full_name", "town", "name"]
    assert sorted(zip(*people.to_pydict().values(), strict=True)) == PEOPLE
    assert sorted(zip(*tables["orders"].scan().to_arrow().to_pydict().values(), strict=True)) == ORDERS
    imported = tables["imported"].scan().to_arrow()
    assert imported.column_names == ["id", "label"]
    assert sorted(zip(*imported.to_pydict().values(), strict=True)) == IMPORTED


def test_the_table_maps_columns_by_field_id_and_lists_deleted_rows(lakes):
    lake, _, _ = lakes
    people = format_table(str(lake / "people"))
    assert dict(people.column_names) == {1: "id", 2: "full_name", 3: "town", 5: "name"}
    orders = format_table(str(lake / "orders"))
    assert sorted(f.deleted for f in orders.files) == [(), ((0, 1), (3, 5))]
    imported = format_table(str(lake / "imported"))
    assert dict(imported.column_names) == {1: "id", 2: "label", "id": "id", "s": "label", "label": "label"}


def test_the_index_equals_the_live_rows_under_current_names_as_files(spark, lakes, tmp_path):
    lake, ref, _ = lakes
    real = job.build_index(spark, str(lake), tmp_path / "real", min_coverage=1, progress=False)
    reference = job.build_index(spark, str(ref), tmp_path / "ref", min_coverage=1, progress=False)
    for key in ("tables_scanned", "columns_scanned", "cells_scanned", "values_scanned", "patterns"):
        assert real[key] == reference[key], key
    assert real["columns_scanned"] == 8
    assert real["cells_scanned"] == 4 * len(PEOPLE) + 2 * len(ORDERS) + 2 * len(IMPORTED)
    assert _items(tmp_path / "real") == _items(tmp_path / "ref")
    reasons = {s["file"]: s["reason"] for s in real["skipped_files"]}
    assert list(reasons) == ["merged"] and "equality delete" in reasons["merged"]
    from lakeindex.tagging.tag_lake import tag_lake

    tagged = tag_lake(spark, str(lake), str(tmp_path / "real"))
    assert sorted((c["table"], c["column"]) for c in tagged["columns"]) == [
        ("imported", "id"), ("imported", "label"), ("orders", "code"), ("orders", "id"), ("people", "full_name"),
        ("people", "id"), ("people", "name"), ("people", "town")]


def test_both_data_readers_give_the_live_rows_under_current_names(spark, lakes):
    from lakeindex.lake.dataset import read_dataset
    from lakeindex.lake.local_dataset import read_local

    lake, _, _ = lakes
    for name, expected in (("people", PEOPLE), ("orders", ORDERS), ("imported", IMPORTED)):
        df = read_dataset(spark, str(lake / name))
        assert sorted(tuple(r) for r in df.collect()) == expected, name
        local = read_local(str(lake / name))
        assert local.table is not None, local.reason
        assert local.table.column_names == df.columns
        assert sorted(zip(*local.table.to_pydict().values(), strict=True)) == expected, name
    assert read_dataset(spark, str(lake / "people")).columns == ["id", "full_name", "town", "name"]


def _all_sums(path) -> tuple[dict, dict]:
    with IndexReader(path) as ix:
        return dict(ix.items()), dict(ix.tail_items())


def test_an_incremental_build_after_deletes_and_a_rename_equals_a_full_build(spark, tmp_path):
    from pyiceberg.catalog.sql import SqlCatalog

    lake = tmp_path / "lake"
    lake.mkdir()
    _csv(lake / "codes.csv", ["code"], [(f"A-{i:03d}",) for i in range(20, 26)])
    catalog = SqlCatalog("t", uri=f"sqlite:///{tmp_path}/catalog.db", warehouse=f"file://{tmp_path}")
    catalog.create_namespace("db")
    orders = catalog.create_table("db.orders", location=f"file://{lake}/orders",
                                  schema=pa.schema([("id", pa.int64()), ("code", pa.string())]))
    for rows in (FIRST, SECOND):
        orders.append(_arrow(orders, rows))
    ix = tmp_path / "ix"
    job.build_index(spark, str(lake), ix, min_coverage=2, progress=False)
    first = next(t.file.file_path for t in orders.scan().plan_files() if t.file.record_count == len(FIRST))
    orders = add_position_deletes(orders, first, [0, 3, 4])
    with orders.update_schema() as update:
        update.rename_column("code", "label")
    meta = job.build_index(spark, str(lake), ix, min_coverage=2, incremental=True, progress=False)
    assert "full_build" not in meta["incremental"], meta["incremental"]
    assert meta["incremental"]["changed_tables"] == 1
    full = job.build_index(spark, str(lake), tmp_path / "full", min_coverage=2, progress=False)
    assert full["cells_scanned"] == 6 + 2 * len(ORDERS)
    assert _all_sums(ix) == _all_sums(tmp_path / "full")
