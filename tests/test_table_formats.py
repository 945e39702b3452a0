"""Real lakes are tables, not files: an index of the same tables in five layouts (single Parquet file, Spark
output directory, Hive partitions, Delta with an overwritten version, Iceberg with an overwritten snapshot)
equals, key by key, the index of those tables stored one CSV per table."""

from __future__ import annotations

import datetime as dt
import json
import shutil
from decimal import Decimal

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from lakeindex.index import build as job
from lakeindex.index.store import IndexReader
from lakeindex.lake.listing import directory_table
from lakeindex.lake.rendering import NotRenderable, render, render_scalar
from lakeindex.lake.table_model import partition_values
from tests.real_layouts import LAYOUTS, write_lakes

pytest.importorskip("deltalake")
pytest.importorskip("pyiceberg")


def _items(path) -> dict[bytes, bytes]:
    with IndexReader(path) as ix:
        return dict(ix.items())


@pytest.fixture(scope="module")
def lakes(tmp_path_factory):
    return write_lakes(tmp_path_factory.mktemp("layouts"))


@pytest.fixture(scope="module")
def built(spark, lakes, tmp_path_factory):
    lake, ref = lakes
    out = tmp_path_factory.mktemp("ix")
    real = job.build_index(spark, str(lake), out / "real", min_coverage=1, progress=False)
    reference = job.build_index(spark, str(ref), out / "ref", min_coverage=1, progress=False)
    return real, reference, out


def test_real_layout_index_equals_one_file_per_table_index(built):
    real, reference, out = built
    assert reference["tables_scanned"] == 2 * len(LAYOUTS) and reference["columns_scanned"] == 9 * 2 * len(LAYOUTS)
    for key in ("tables_scanned", "columns_scanned", "cells_scanned", "values_scanned", "patterns"):
        assert real[key] == reference[key], key
    assert real["skipped_files"] == []
    got, expected = _items(out / "real"), _items(out / "ref")
    assert len(expected) > 1000
    differing = sorted(k for k in expected.keys() | got.keys() if got.get(k) != expected.get(k))
    assert differing == [], differing[:10]
    stale = [k for k in got if b"STALE" in k]
    assert stale == []  # the overwritten versions' files were not read


def test_tables_are_listed_with_format_version_and_partition_columns(built):
    _, _, out = built
    with IndexReader(out / "real") as ix:
        tables = {t["table"]: t for t in ix.tables()}
    assert sorted(tables) == sorted(f"{layout}_{i}" + (".parquet" if layout == "file" else "")
                                    for layout in LAYOUTS for i in range(2))
    assert tables["delta_0"]["format"] == "delta" and tables["delta_0"]["version"] == "1"
    assert tables["delta_0"]["partition_columns"] == ["dt"]
    assert tables["hive_1"]["format"] == "directory" and tables["hive_1"]["partition_columns"] == ["dt"]
    assert tables["iceberg_0"]["format"] == "iceberg" and tables["iceberg_0"]["version"].isdigit()
    assert tables["spark_0"]["files"] == 3 and tables["file_1.parquet"]["format"] == "file"


def test_incremental_build_skips_unchanged_tables_and_reports_changed_ones(spark, lakes, built, tmp_path):
    lake, _ = lakes
    _, _, out = built
    ix = tmp_path / "ix"
    shutil.copytree(out / "real", ix)
    meta = job.build_index(spark, str(lake), ix, min_coverage=1, incremental=True, progress=False)
    assert meta["incremental"]["new_tables"] == 0 and meta["incremental"]["skipped_files"] == []
    assert _items(ix) == _items(out / "real")


def test_bad_tables_are_skipped_with_their_reason_and_the_build_goes_on(spark, lakes, tmp_path):
    lake, _ = lakes
    bad = tmp_path / "lake"
    shutil.copytree(lake, bad)
    # a Delta log whose checkpoint is missing, an Iceberg table whose metadata names a missing manifest list,
    # a partition directory of other columns
    from deltalake import DeltaTable

    DeltaTable(str(bad / "delta_1")).create_checkpoint()
    for f in (bad / "delta_1" / "_delta_log").glob("*.checkpoint.parquet"):
        f.unlink()
    meta_dir = bad / "iceberg_1" / "metadata"
    for f in meta_dir.glob("*.metadata.json"):
        doc = json.loads(f.read_text())
        for snap in doc.get("snapshots", []):
            snap["manifest-list"] = snap["manifest-list"].replace("snap-", "missing-snap-")
        f.write_text(json.dumps(doc))
    odd = bad / "hive_0" / "dt=2024-01-09"
    odd.mkdir()
    pq.write_table(pa.table({"other": ["x", "y"]}), odd / "part-00000-x.snappy.parquet")
    meta = job.build_index(spark, str(bad), tmp_path / "ix", min_coverage=1, progress=False)
    reasons = {s["file"]: s["reason"] for s in meta["skipped_files"]}
    assert set(reasons) == {"delta_1", "iceberg_1", "hive_0"}, reasons
    assert "Delta log" in reasons["delta_1"] and "checkpoint" in reasons["delta_1"].lower()
    assert "Iceberg" in reasons["iceberg_1"]
    assert "not one table" in reasons["hive_0"] and "other" in reasons["hive_0"]
    assert meta["tables_scanned"] == 2 * len(LAYOUTS) - 3


@pytest.mark.parametrize(("rel", "table"), [
    ("orders.csv", None),
    ("orders/part-00000-1b2c-c000.snappy.parquet", "orders"),
    ("events/dt=2024-01-01/hour=3/part-0.parquet", "events"),
    ("dt=2024-01-01/data.csv", ""),
    ("a/b/c.csv", None),
])
def test_directory_table_of_a_file(rel, table):
    assert directory_table(rel) == table


def test_partition_values_are_unescaped_and_the_default_partition_is_null():
    assert partition_values("dt=2024-01-01/ts=10%3A00/part-0.parquet") == (("dt", "2024-01-01"), ("ts", "10:00"))
    assert partition_values("dt=__HIVE_DEFAULT_PARTITION__/part-0.parquet") == (("dt", None),)


@pytest.mark.parametrize(("values", "typ", "text"), [
    ([1, -42], pa.int32(), ["1", "-42"]),
    ([Decimal("12.30"), Decimal("0.05")], pa.decimal128(6, 2), ["12.30", "0.05"]),
    ([dt.date(2024, 1, 31)], pa.date32(), ["2024-01-31"]),
    ([dt.datetime(2024, 1, 31, 10, 0, 0, 500000), dt.datetime(2024, 1, 31, 10, 0)], pa.timestamp("us"),
     ["2024-01-31 10:00:00.5", "2024-01-31 10:00:00"]),
    ([dt.datetime(2024, 1, 31, 10, 0, 0, 120000)], pa.timestamp("ms"), ["2024-01-31 10:00:00.12"]),
    ([dt.datetime(2024, 1, 31, 11, 0, tzinfo=dt.timezone(dt.timedelta(hours=1)))], pa.timestamp("us", tz="+01:00"),
     ["2024-01-31 10:00:00"]),
    ([dt.time(10, 1, 2)], pa.time64("us"), ["10:01:02"]),
    ([True, False, None], pa.bool_(), ["true", "false", None]),
    ([1.5, 0.1], pa.float64(), ["1.5", "0.1"]),
])
def test_canonical_text_of_typed_values(values, typ, text):
    assert render(pa.array(values, typ)).to_pylist() == text


def test_nested_columns_are_not_rendered_and_scalars_render_alike():
    with pytest.raises(NotRenderable, match="nested"):
        render(pa.array([[1, 2]]))
    assert render_scalar(dt.date(2024, 1, 31)) == "2024-01-31" and render_scalar(7) == "7"
    assert render_scalar(None) is None and render_scalar("x") == "x"


def test_catalog_tables_are_indexed_from_their_locations(spark, lakes, tmp_path):
    import pyarrow.csv as pcsv

    _, ref = lakes
    names = ["file_0", "spark_1"]
    spark.sql("CREATE DATABASE IF NOT EXISTS lk_cat")
    only = tmp_path / "only"
    only.mkdir()
    for name in names:
        shutil.copy(ref / f"{name}.csv", only / f"{name}.csv")
        table = pcsv.read_csv(ref / f"{name}.csv", convert_options=pcsv.ConvertOptions(
            column_types={n: pa.string() for n in ("order_id", "email", "country", "status", "qty", "price", "day",
                                                   "seen_at", "dt")}))
        (spark.createDataFrame(table.to_pandas()).write.mode("overwrite").partitionBy("country")
         .format("parquet").option("path", str(tmp_path / "warehouse" / name)).saveAsTable(f"lk_cat.{name}"))
    spark.sql("CREATE OR REPLACE VIEW lk_cat.v_orders AS SELECT * FROM lk_cat.file_0")
    got = job.build_index(spark, None, tmp_path / "cat", min_coverage=1, progress=False,
                          tables=["lk_cat.no_such_table"], table_patterns=["lk_cat.*"])
    expected = job.build_index(spark, str(only), tmp_path / "ref", min_coverage=1, progress=False)
    reasons = {s["file"]: s["reason"] for s in got["skipped_files"]}
    assert set(reasons) == {"lk_cat.no_such_table", "lk_cat.v_orders"}, reasons
    assert "view" in reasons["lk_cat.v_orders"]
    for key in ("tables_scanned", "columns_scanned", "cells_scanned", "values_scanned", "patterns"):
        assert got[key] == expected[key], key
    assert _items(tmp_path / "cat") == _items(tmp_path / "ref")
    with IndexReader(tmp_path / "cat") as ix:
        listed = {t["table"]: t for t in ix.tables()}
    assert sorted(listed) == ["lk_cat.file_0", "lk_cat.spark_1"]
    assert listed["lk_cat.file_0"]["partition_columns"] == ["country"]
    from lakeindex.tagging.tag_lake import tag_lake

    tagged = tag_lake(spark, None, str(tmp_path / "cat"), table_patterns=["lk_cat.*"])
    assert tagged["tables"] == 2
    columns = {(c["table"], c["column"]) for c in tagged["columns"]}
    assert len(columns) == 18 and ("lk_cat.spark_1", "country") in columns


def _simple_delta(path):
    from deltalake import write_deltalake

    stale = pa.table({"id": ["OLD-1", "OLD-2"], "n": pa.array([1, 2], pa.int64()), "year": pa.array([2023, 2023])})
    live = pa.table({"id": [f"ORD-{i:03d}" for i in range(6)], "n": pa.array(range(6), pa.int64()),
                     "year": pa.array([2024, 2024, 2025, 2025, 2025, 2026])})
    write_deltalake(str(path), stale, partition_by=["year"])
    write_deltalake(str(path), live, mode="overwrite", partition_by=["year"])
    return live


def test_data_commands_read_a_delta_table_at_its_live_snapshot(spark, tmp_path):
    from lakeindex.lake.dataset import read_dataset
    from lakeindex.lake.local_dataset import read_local

    live = _simple_delta(tmp_path / "orders")
    expected = sorted(zip(*live.to_pydict().values(), strict=True))
    df = read_dataset(spark, str(tmp_path / "orders"))
    assert dict(df.dtypes) == {"id": "string", "n": "bigint", "year": "bigint"}
    assert sorted(tuple(r[c] for c in ("id", "n", "year")) for r in df.collect()) == expected
    local = read_local(str(tmp_path / "orders"))
    assert local.table is not None, local.reason
    got = local.table.select(["id", "n", "year"]).to_pydict()
    assert sorted(zip(*got.values(), strict=True)) == expected
    assert local.table.schema.field("year").type == pa.int64()


def test_data_commands_read_an_iceberg_table_at_its_current_snapshot(spark, lakes):
    from lakeindex.lake.dataset import read_dataset

    lake, ref = lakes
    df = read_dataset(spark, str(lake / "iceberg_0"))
    rows = df.select("order_id", "status").collect()
    assert len(rows) == 40 and not any(r.status.startswith("STALE") for r in rows)
    expected = sorted(line.split(",")[0] for line in (ref / "iceberg_0.csv").read_text().splitlines()[1:])
    assert sorted(r.order_id for r in rows) == expected


def _all_sums(path) -> tuple[dict, dict]:
    with IndexReader(path) as ix:
        return dict(ix.items()), dict(ix.tail_items())


def test_incremental_builds_equal_full_builds_under_a_floor(spark, lakes, tmp_path):
    lake, _ = lakes
    grow = tmp_path / "lake"
    grow.mkdir()
    for name in ("file_0.parquet", "file_1.parquet"):
        shutil.copy(lake / name, grow / name)
    for name in ("spark_0", "spark_1", "hive_0"):
        shutil.copytree(lake / name, grow / name)

    def full(tag: str) -> tuple[dict, dict]:
        job.build_index(spark, str(grow), tmp_path / tag, min_coverage=2, progress=False)
        return _all_sums(tmp_path / tag)

    ix = tmp_path / "ix"
    first = job.build_index(spark, str(grow), ix, min_coverage=2, progress=False)
    assert first["tail_patterns"] > 0  # what is under the floor is kept for later additions
    # two new tables: only they are scanned, and the sums equal a full build's, tail included
    shutil.copytree(lake / "delta_0", grow / "delta_0")
    shutil.copytree(lake / "hive_1", grow / "hive_1")
    meta = job.build_index(spark, str(grow), ix, min_coverage=2, incremental=True, progress=False)
    assert meta["incremental"]["new_tables"] == 2
    expected = full("full1")
    assert _all_sums(ix) == expected
    index, tail = expected
    assert any(b"STALE" not in k for k in tail) and set(index).isdisjoint(tail)
    # a table with a new file and a new Delta version: their old states are read again and taken out
    odd = grow / "hive_0" / "dt=2024-01-02" / "part-00009-x.snappy.parquet"
    pq.write_table(pq.read_table(next((grow / "spark_0").glob("part-*"))).drop_columns(["dt"]), odd)
    from deltalake import write_deltalake

    write_deltalake(str(grow / "delta_0"), pq.read_table(next((grow / "spark_1").glob("part-*"))), mode="append")
    meta = job.build_index(spark, str(grow), ix, min_coverage=2, incremental=True, progress=False)
    assert "full_build" not in meta["incremental"], meta["incremental"]
    assert meta["incremental"]["changed_tables"] == 2 and meta["incremental"]["new_tables"] == 0
    assert _all_sums(ix) == full("full2")
    # a table gone from the lake took the state it was indexed in with it: a full build, said so
    shutil.rmtree(grow / "spark_1")
    meta = job.build_index(spark, str(grow), ix, min_coverage=2, incremental=True, progress=False)
    assert "spark_1 is gone" in meta["incremental"]["full_build"]
    expected = full("full3")
    assert _all_sums(ix) == expected
    with IndexReader(ix) as got, IndexReader(tmp_path / "full3") as want:
        assert got.meta["tables_scanned"] == want.meta["tables_scanned"] == 6
        assert got.meta["cells_scanned"] == want.meta["cells_scanned"]
        assert sorted(t["table"] for t in got.tables()) == sorted(t["table"] for t in want.tables())
    # a file rewritten in place: its indexed state is gone, so the build is a full one, and says why
    pq.write_table(pq.read_table(grow / "file_1.parquet").slice(0, 10), grow / "file_1.parquet")
    meta = job.build_index(spark, str(grow), ix, min_coverage=2, incremental=True, progress=False)
    assert "file_1.parquet" in meta["incremental"]["full_build"]
    assert _all_sums(ix) == full("full4")


def test_typed_columns_read_as_data_give_the_index_builds_text(spark, lakes):
    """What inference on DATA (Spark) and history batches (pandas) read from a typed Parquet file is the
    text the index holds: the hand-written canonical text of the reference CSV."""
    import pyarrow.csv as pcsv

    from lakeindex.lake.dataset import read_dataset
    from lakeindex.lake.text_frame import present_text
    from lakeindex.suggestions.pattern_rules import sample_columns

    lake, ref = lakes
    typed = ["qty", "price", "day", "seen_at"]
    expected = pcsv.read_csv(ref / "file_0.csv", convert_options=pcsv.ConvertOptions(
        column_types={c: pa.string() for c in typed})).select(typed).to_pydict()
    got = sample_columns(read_dataset(spark, str(lake / "file_0.parquet")), typed, rows=40, n=1000)
    assert {c: sorted(v) for c, v in got.items()} == {c: sorted(v) for c, v in expected.items()}
    frame = pq.read_table(lake / "file_0.parquet").to_pandas()
    assert {c: present_text(frame, c) for c in typed} == expected


def test_a_lake_of_unreadable_files_is_bad_input_and_publishes_nothing(spark, tmp_path):
    from lakeindex.index.build_options import BuildError
    from lakeindex.index.store import current_version

    lake = tmp_path / "lake"
    lake.mkdir()
    (lake / "a.csv").write_bytes(b"\x00\x01\x02PK\x03\x04" * 100)
    (lake / "b.parquet").write_bytes(b"PAR1 not really")
    with pytest.raises(BuildError, match="no readable table") as err:
        job.build_index(spark, str(lake), tmp_path / "ix", progress=False)
    assert "a.csv: binary data (NUL bytes), not csv text" in str(err.value)
    assert "b.parquet: unreadable parquet" in str(err.value)
    assert current_version(tmp_path / "ix") is None
