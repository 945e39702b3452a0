"""Multi-part tables (Spark ``part-*`` files, Hive ``key=value`` directories) are one table in the index.

The expected index comes from the brute-force oracle of ``tests/test_index_build.py``, which knows
nothing of files: each generated table is one set of columns, however many part files hold its rows.
"""

from __future__ import annotations

import json
import random
from collections import Counter

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from lakeindex.index import build as job
from lakeindex.index import part_merge
from lakeindex.index.part_merge import MergedColumn
from lakeindex.index.store import IndexReader
from tests.conftest import write_csv
from tests.test_index_build import _table, index_items, lake_columns, oracle_index

ROWS = 40


def _write(path, cols: dict[str, list[str | None]], rows: range) -> None:
    """Rows ``rows`` of a generated table, in the format of the file's extension."""
    path.parent.mkdir(parents=True, exist_ok=True)
    part = {k: [v[i] for i in rows] for k, v in cols.items()}
    if path.suffix == ".parquet":
        pq.write_table(pa.table({k: pa.array(v, pa.string()) for k, v in part.items()}), path)
    elif path.suffix == ".jsonl":
        path.write_text("".join(json.dumps({k: part[k][i] for k in part}) + "\n" for i in range(len(rows))))
    else:
        write_csv(path, list(part), [[part[k][i] or "" for k in part] for i in range(len(rows))],
                  "," if path.suffix == ".csv" else "\t")


def make_part_lake(root) -> None:
    """Tables 0-4 of the generator: two as Spark part files, two as Hive partitions, one as a plain file."""
    cuts = [range(0, 13), range(13, 30), range(30, ROWS)]
    for t, fmt in ((0, "parquet"), (1, "csv")):
        cols = _table(random.Random(t), ROWS)
        for i, rows in enumerate(cuts):
            _write(root / f"orders_{t}" / f"part-{i:05d}-4f2a.c000.{fmt}", cols, rows)
        (root / f"orders_{t}" / "_SUCCESS").write_text("")
    for t, fmt in ((2, "jsonl"), (3, "tsv")):
        cols = _table(random.Random(t), ROWS)
        for i, rows in enumerate(cuts):
            _write(root / f"events_{t}" / f"day=2019-01-0{i + 1}" / f"part-0.{fmt}", cols, rows)
    _write(root / "table_004.csv", _table(random.Random(4), ROWS), range(ROWS))


def test_part_files_of_a_table_count_as_one_table(spark, tmp_path):
    make_part_lake(tmp_path / "lake")
    (tmp_path / "lake" / "orders_0" / "part-00009-4f2a.c000.parquet").write_bytes(b"PAR1 not really")
    meta = job.build_index(spark, str(tmp_path / "lake"), tmp_path / "ix", min_coverage=2, progress=False)
    assert meta["tables_scanned"] == 5 and meta["columns_scanned"] == 25
    assert meta["cells_scanned"] == 5 * 5 * ROWS
    assert [s["file"] for s in meta["skipped_files"]] == ["orders_0/part-00009-4f2a.c000.parquet"]
    got = index_items(tmp_path / "ix")
    expected, ambiguous = oracle_index(lake_columns(range(5)), 2)
    assert set(got) == set(expected)
    differing = sorted(p for p in expected if got[p] != expected[p] and p not in ambiguous)
    assert differing == [], [(p, got[p], expected[p]) for p in differing[:10]]
    assert got["ORD-<digit>{6}"] == (0, 5)  # one column per table, not one per part file
    # the index lists tables, not files; a table with a new part file has changed: an incremental build
    # takes its old state out and adds the new one, instead of counting its columns twice
    with IndexReader(tmp_path / "ix") as ix:
        listed = {t["table"]: t for t in ix.tables()}
    assert sorted(listed) == ["events_2", "events_3", "orders_0", "orders_1", "table_004.csv"]
    assert listed["orders_1"]["files"] == 3 and listed["events_2"]["partition_columns"] == ["day"]
    _write(tmp_path / "lake" / "orders_1" / "part-00003-4f2a.c000.csv", _table(random.Random(9), ROWS), range(ROWS))
    meta = job.build_index(spark, str(tmp_path / "lake"), tmp_path / "ix", min_coverage=2, incremental=True,
                           progress=False)
    assert meta["incremental"]["changed_tables"] == 1 and "full_build" not in meta["incremental"]
    assert meta["tables_scanned"] == 5 and meta["cells_scanned"] == 5 * 5 * ROWS + 5 * ROWS


def test_merged_column_is_exact_under_the_cap():
    rng = random.Random(3)
    parts = [[rng.choice("ABCDEFG") + str(rng.randint(0, 30)) for _ in range(200)] for _ in range(4)]
    col = MergedColumn()
    for values in parts:
        c = Counter(values)
        col.add(list(c), list(c.values()), 2, ["w" * 3], [5], len(values))
    assert col.narrow == Counter(v for values in parts for v in values)
    assert col.wide_listed == {"www": 20} and col.wide_unlisted == 8 and col.cells == 800


def test_merged_column_stays_bounded_with_exact_size_and_heavy_values(monkeypatch):
    monkeypatch.setattr(part_merge, "MERGE_DISTINCT", 50)
    col = MergedColumn()
    total = 0
    for part in range(6):
        c = Counter({f"id-{part}-{i}": 1 + i % 3 for i in range(90)})
        c["N/A"] = 40  # a sentinel in every part: heavier than any sampling threshold here
        total += sum(c.values())
        col.add(list(c), list(c.values()), 0, [], [], 0)
        assert len(col.narrow) <= 50
        assert sum(col.narrow.values()) == total  # |D| stays exact
        assert all(isinstance(n, int) and n >= 1 for n in col.narrow.values())
    assert col.narrow["N/A"] == 6 * 40


@pytest.mark.parametrize("extra", [0, 7])
def test_wide_values_for_windows_are_the_heaviest_over_all_parts(extra, monkeypatch):
    monkeypatch.setattr(part_merge, "MAX_WINDOWED_VALUES", 3)
    col = MergedColumn()
    col.add([], [], extra, ["a", "b", "c"], [10, 1, 5], 0)
    col.add([], [], 0, ["b", "d", "e"], [1, 7, 1], 0)
    # weights over both parts: a 10, d 7, c 5, b 2, e 1 -> a, d, c cut into windows; b and e counted
    values, weights, unlisted = col.wide_given()
    assert (values, weights, unlisted) == (["a", "d", "c"], [10, 7, 5], extra + 3)


def test_wide_values_beyond_the_merge_cap_are_counted(monkeypatch):
    monkeypatch.setattr(part_merge, "MERGE_DISTINCT", 2)
    col = MergedColumn()
    col.add([], [], 0, ["a", "b"], [4, 3], 0)
    col.add([], [], 0, ["c"], [9], 0)
    assert col.wide_listed == {"c": 9, "a": 4} and col.wide_unlisted == 3
