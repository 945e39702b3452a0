"""The bundled lake holds tables, not only files: a Hive-partitioned directory and a Delta table with an
overwritten version, whose live data are exactly the generator's tables."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from lakeindex.lake.listing import lake_uri
from lakeindex.lake.tables import list_tables, read_local_table
from sample_lake.cells import table_data
from sample_lake.layouts import BUNDLED
from sample_lake.plan import plan_lake

LAKE = Path(__file__).resolve().parents[1] / "sample_lake" / "tables"


def _listed():
    return {t.name: t for t in list_tables(None, lake_uri(str(LAKE))).tables}


def test_the_bundled_lake_is_120_tables_of_three_layouts():
    tables = _listed()
    assert len(tables) == 120
    assert Counter(t.format for t in tables.values()) == {"file": 118, "directory": 1, "delta": 1}
    assert tables["service_logs_001"].partition_columns == ("environment",)
    assert len(tables["service_logs_001"].files) == 4
    delta = tables["audit_log_001"]
    assert delta.version == "1" and len(delta.files) == 1
    on_disk = list((LAKE / "audit_log_001").glob("*.parquet"))
    assert len(on_disk) == 2  # the overwritten version's file is still there, and not listed


def test_laid_out_tables_read_back_as_the_generated_tables():
    tables = _listed()
    plans = {p.file_name: p for p in plan_lake(120, 7)}
    for file_name in BUNDLED:
        expected = table_data(plans[file_name], 150, 7)
        read = read_local_table(tables[file_name.removesuffix(".parquet")])
        got = {name: arr.to_pylist() for name, arr in read.columns}
        assert sorted(got) == sorted(expected)
        for name, values in expected.items():  # rows are regrouped by partition: compare as multisets
            assert Counter(got[name]) == Counter(values), name
