"""Delta table features written by Spark/Databricks that delta-rs resolves and every reader must honour.

Deletion vectors: a table Databricks Runtime wrote (tests/fixtures/README.md), values 0 to 9 in one file,
then ``DELETE WHERE value IN (0, 9)`` as a deletion vector. The live rows are therefore 1 to 8 (by hand from
the commit's predicate), which is what the index build, the Spark reader and the local reader must see.

Column mapping (``name`` mode): a table Spark 3.4 wrote whose files hold physical column names
(``col-<uuid>``); its columns are ``Company Very Short`` (the partition column) and ``Super Name``, with the
rows written out by hand below from its files.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from lakeindex.index import build as job
from lakeindex.index.store import IndexReader
from lakeindex.lake.table_formats import delta_table

pytest.importorskip("deltalake")

FIXTURE = Path(__file__).parent / "fixtures" / "delta_dv_small"
MAPPED = Path(__file__).parent / "fixtures" / "delta_column_mapping"
MAPPED_ROWS = [("BMS", "Mr. Daniel Ferguson MD"), ("BMS", "Stephanie Mcgrath"), ("BMS", "Anthony Johnson"),
               ("BMS", "Nathan Bennett"), ("BME", "Timothy Lamb")]
LIVE = list(range(1, 9))


def _items(path) -> dict[bytes, bytes]:
    with IndexReader(path) as ix:
        return dict(ix.items())


def test_the_table_lists_the_rows_its_deletion_vector_removes():
    table = delta_table(str(FIXTURE), "dv")
    assert table.version == "1"
    (only,) = table.files
    assert only.deleted == ((0, 1), (9, 10))  # positions of the values 0 and 9 in the file


def test_the_index_of_a_table_with_a_deletion_vector_equals_its_live_rows_as_a_file(spark, tmp_path):
    lake, ref = tmp_path / "lake", tmp_path / "ref"
    shutil.copytree(FIXTURE, lake / "events")
    ref.mkdir()
    (ref / "events.csv").write_text("value\n" + "".join(f"{v}\n" for v in LIVE))
    real = job.build_index(spark, str(lake), tmp_path / "real", min_coverage=1, progress=False)
    reference = job.build_index(spark, str(ref), tmp_path / "refix", min_coverage=1, progress=False)
    for key in ("tables_scanned", "columns_scanned", "cells_scanned", "values_scanned", "patterns"):
        assert real[key] == reference[key], key
    assert real["cells_scanned"] == len(LIVE)
    assert _items(tmp_path / "real") == _items(tmp_path / "refix")


def test_data_readers_skip_the_deleted_rows(spark):
    from lakeindex.lake.dataset import read_dataset
    from lakeindex.lake.local_dataset import read_local

    df = read_dataset(spark, str(FIXTURE))
    assert sorted(r["value"] for r in df.collect()) == LIVE and df.columns == ["value"]
    local = read_local(str(FIXTURE))
    assert local.table is not None, local.reason
    assert sorted(local.table.column("value").to_pylist()) == LIVE


def test_a_column_mapped_table_is_indexed_and_read_under_its_column_names(spark, tmp_path):
    from lakeindex.lake.dataset import read_dataset
    from lakeindex.lake.local_dataset import read_local

    lake, ref = tmp_path / "lake", tmp_path / "ref"
    shutil.copytree(MAPPED, lake / "people")
    ref.mkdir()
    (ref / "people.csv").write_text("Company Very Short,Super Name\n" + "".join(f"{a},{b}\n" for a, b in MAPPED_ROWS))
    real = job.build_index(spark, str(lake), tmp_path / "real", min_coverage=1, progress=False)
    reference = job.build_index(spark, str(ref), tmp_path / "refix", min_coverage=1, progress=False)
    assert real["columns_scanned"] == reference["columns_scanned"] == 2 and real["cells_scanned"] == 10
    assert _items(tmp_path / "real") == _items(tmp_path / "refix")
    df = read_dataset(spark, str(MAPPED))
    assert sorted(df.columns) == ["Company Very Short", "Super Name"]
    assert sorted((r["Company Very Short"], r["Super Name"]) for r in df.collect()) == sorted(MAPPED_ROWS)
    local = read_local(str(MAPPED))
    assert local.table is not None, local.reason
    got = local.table.select(["Company Very Short", "Super Name"]).to_pydict()
    assert sorted(zip(*got.values(), strict=True)) == sorted(MAPPED_ROWS)
