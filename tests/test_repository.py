"""Metrics repository: round trips, filters, last-write-wins, concurrent writers, temp files, compaction, Spark."""

from __future__ import annotations

import math
import multiprocessing as mp
import os
import re
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from lakeindex.metrics.metric import Metric
from lakeindex.repository import AnalysisResult, FileSystemMetricsRepository, RepositoryError, ResultKey, arrow_columns
from lakeindex.repository.rows import SCHEMA, metric_rows


def size(v: float) -> Metric:
    return Metric("Size(where=None)", "Size", "*", "Dataset", v)


def completeness(col: str, v: float) -> Metric:
    return Metric(f"Completeness(column={col!r}, where=None)", "Completeness", col, "Column", v)


class FakeAnalyzer:
    """Stands in for a lakeindex.metrics analyzer: only spec() matters to the repository."""

    def __init__(self, spec: str) -> None:
        self._spec = spec

    def spec(self) -> str:
        return self._spec


def same_value(a: object, b: object) -> bool:
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return a == b


def assert_metrics_equal(got: list[Metric], want: list[Metric]) -> None:
    assert len(got) == len(want)
    for g, w in zip(got, want, strict=True):
        assert (g.analyzer, g.name, g.instance, g.entity, g.error, g.extra) == \
               (w.analyzer, w.name, w.instance, w.entity, w.error, w.extra)
        if isinstance(w.value, dict):
            assert g.value.keys() == w.value.keys()
            assert all(same_value(g.value[k], w.value[k]) for k in w.value)
        else:
            assert same_value(g.value, w.value), (g, w)


# ---- ResultKey ---------------------------------------------------------------------------------------------
def test_result_key_is_hashable_canonical_and_round_trips():
    a, b = ResultKey(5, {"b": "2", "a": "1"}), ResultKey(5, {"a": "1", "b": "2"})
    assert a == b and hash(a) == hash(b) and len({a, b}) == 1
    assert a.tags == {"a": "1", "b": "2"}
    a.tags["c"] = "3"  # a copy: the key stays unchanged
    assert a.tags == {"a": "1", "b": "2"}
    assert ResultKey.from_dict(a.to_dict()) == a
    assert a.to_dict() == {"timestamp_ms": 5, "tags": {"a": "1", "b": "2"}}
    assert ResultKey(5) != ResultKey(5, {"a": "1"}) and ResultKey(4, {"z": "z"}) < ResultKey(5)
    now = ResultKey.now({"x": "y"})
    assert abs(now.timestamp_ms - time.time() * 1000) < 5000 and now.tags == {"x": "y"}


@pytest.mark.parametrize("ts, tags, message", [
    (-1, None, "non-negative"),
    (1.5, None, "must be an int"),
    (True, None, "must be an int"),
    ("10", None, "must be an int"),
    (1, {"k": 1}, "tag values must be strings"),
    (1, {2: "v"}, "tag keys must be strings"),
    (1, [("k", "v")], "must be a mapping"),
])
def test_result_key_rejects_bad_input(ts, tags, message):
    with pytest.raises(ValueError, match=message):
        ResultKey(ts, tags)


def test_result_key_from_dict_needs_timestamp():
    with pytest.raises(ValueError, match="timestamp_ms"):
        ResultKey.from_dict({"tags": {}})


# ---- round trips -------------------------------------------------------------------------------------------
def test_round_trip_scalar_dict_non_finite_and_error_metrics(tmp_path):
    repo = FileSystemMetricsRepository(tmp_path / "repo")
    metrics = [
        size(1234),  # an int value comes back as a float
        Metric("Histogram(column='c')", "Histogram", "c", "Column",
               {"bins": {"a": 3, "b": 1}, "ratio": 0.75, "odd": float("nan"), "top": float("inf")},
               extra={"distinct": 2, "note": "ü"}),
        Metric("Mean(column='x')", "Mean", "x", "Column", float("nan")),
        Metric("Max(column='x')", "Max", "x", "Column", float("inf")),
        Metric("Min(column='x')", "Min", "x", "Column", float("-inf")),
        Metric("Mean(column='missing')", "Mean", "missing", "Column", None, "column 'missing' does not exist"),
        Metric("Flag()", "Flag", "*", "Dataset", True),  # non-float JSON values survive via value_json
    ]
    key = ResultKey(1_700_000_000_000, {"region": "eu"})
    path = repo.save("sales", key, metrics)
    assert re.fullmatch(r".*/dataset=sales/1700000000000-[0-9a-f]{32}\.parquet", path), path
    result = repo.get("sales", key)
    assert isinstance(result, AnalysisResult) and result.dataset == "sales" and result.key == key
    assert_metrics_equal(result.metrics, [size(1234.0), *metrics[1:]])
    assert isinstance(result.metrics[0].value, float)
    assert result.metric("Mean(column='x')").value != result.metric("Mean(column='x')").value  # NaN
    assert result.metric(FakeAnalyzer("Min(column='x')")).value == float("-inf")
    assert result.to_dict()["metrics"][2]["value"] == "nan"
    rows = repo.load().get_rows()
    assert [r["value"] is None for r in rows] == [False, True, False, False, False, True, True]
    assert rows[1]["value_json"] is not None and rows[1]["tags"] == {"region": "eu"}
    assert repo.get("sales", ResultKey(key.timestamp_ms)) is None  # different tags: a different key
    assert repo.get("other", key) is None


def test_dataset_names_are_quoted_and_distinct(tmp_path):
    repo = FileSystemMetricsRepository(tmp_path)
    names = ["a/b ü", "a%2Fb", "..", "x:y*?", "2024"]
    for i, name in enumerate(names):
        repo.save(name, ResultKey(i), [size(float(i))])
    assert repo.datasets() == sorted(names)
    assert all(p.parent == tmp_path for p in tmp_path.iterdir())  # nothing escaped the root
    for i, name in enumerate(names):
        [res] = repo.load().for_dataset(name).get()
        assert res.dataset == name and res.metrics[0].value == float(i)
    for bad in ("", None):
        with pytest.raises(ValueError, match="non-empty"):
            repo.save(bad, ResultKey(1), [size(1.0)])
    with pytest.raises(TypeError, match="Metric"):
        repo.save("d", ResultKey(1), [{"analyzer": "x"}])
    with pytest.raises(TypeError, match="ResultKey"):
        repo.save("d", 1, [size(1.0)])


# ---- queries -----------------------------------------------------------------------------------------------
@pytest.fixture
def history(tmp_path) -> FileSystemMetricsRepository:
    repo = FileSystemMetricsRepository(tmp_path / "repo")
    for day in range(10):
        for region in ("eu", "us"):
            ts = 1000 * day
            repo.save("orders", ResultKey(ts, {"region": region, "env": "prod"}),
                      [size(100.0 + day), completeness("id", 1.0 - day / 100), completeness("name", 0.5)])
    repo.save("customers", ResultKey(3000, {"region": "eu"}), [size(7.0)])
    return repo


def test_filters_by_dataset_tags_time_and_analyzer(history):
    q = history.load().for_dataset("orders")
    assert len(q.get()) == 20
    eu = q.with_tag_values({"region": "eu"}).get()
    assert len(eu) == 10 and all(r.key.tags == {"region": "eu", "env": "prod"} for r in eu)
    assert [r.key.timestamp_ms for r in eu] == [1000 * d for d in range(10)]  # sorted by time
    assert q.with_tag_values({"region": "eu"}).with_tag_values({"env": "dev"}).get() == []
    window = q.with_tag_values({"region": "us"}).after(3000).before(5000).get()
    assert [r.key.timestamp_ms for r in window] == [3000, 4000, 5000]  # both bounds inclusive
    only_size = q.with_tag_values({"region": "us"}).for_analyzers([FakeAnalyzer("Size(where=None)")]).get()
    assert all([m.name for m in r.metrics] == ["Size"] for r in only_size) and len(only_size) == 10
    by_name = q.before(0).for_analyzers(["Completeness"]).get()
    assert sorted(m.instance for r in by_name for m in r.metrics) == ["id", "id", "name", "name"]
    assert q.for_analyzers(["Nope"]).get() == []
    everywhere = history.load().with_tag_values({"region": "eu"}).after(3000).before(3000).get()
    assert [r.dataset for r in everywhere] == ["customers", "orders"]
    rows = history.load().for_dataset("orders").after(9000).for_analyzers(["Completeness"]).get_rows()
    assert len(rows) == 4 and {r["instance"] for r in rows} == {"id", "name"}
    assert all(r["timestamp_ms"] == 9000 and r["tags"]["env"] == "prod" for r in rows)
    with pytest.raises(ValueError, match="epoch milliseconds"):
        q.after("yesterday")
    with pytest.raises(TypeError, match="list"):
        q.for_analyzers("Size")


def test_series_is_time_ordered_and_skips_failed_and_non_scalar(tmp_path):
    repo = FileSystemMetricsRepository(tmp_path)
    spec = "Mean(column='x')"
    values = {3: 3.0, 1: 1.0, 2: None, 4: {"q50": 1.0}, 5: 5.0}
    for ts, v in values.items():
        m = Metric(spec, "Mean", "x", "Column", v, None if v is not None else "no rows")
        repo.save("d", ResultKey(ts, {"t": "a"}), [m, size(1.0)])
    repo.save("d", ResultKey(5, {"t": "a"}), [Metric(spec, "Mean", "x", "Column", 50.0)])  # supersedes ts=5
    repo.save("d", ResultKey(6, {"t": "b"}), [Metric(spec, "Mean", "x", "Column", 6.0)])
    series = repo.series("d", spec, tags={"t": "a"})
    assert [(k.timestamp_ms, m.value) for k, m in series] == [(1, 1.0), (3, 3.0), (5, 50.0)]
    assert [k.timestamp_ms for k, _ in repo.series("d", FakeAnalyzer(spec), tags={"t": "a"}, include_failed=True,
                                                      include_non_scalar=True)] == [1, 2, 3, 4, 5]
    assert [k.timestamp_ms for k, _ in repo.series("d", spec, include_failed=True)] == [1, 2, 3, 5, 6]
    assert [k.timestamp_ms for k, _ in repo.series("d", spec, after=2, before=5)] == [3, 5]
    assert repo.series("d", "Completeness(column='x')") == [] and repo.series("nope", spec) == []


# ---- last write wins ---------------------------------------------------------------------------------------
def test_resave_of_a_key_wins_whole_and_keeps_both_files(tmp_path):
    repo = FileSystemMetricsRepository(tmp_path)
    key = ResultKey(10, {"b": "1"})
    first = repo.save("d", key, [size(1.0), completeness("id", 0.5)])
    second = repo.save("d", key, [size(2.0)])
    assert Path(first).exists() and Path(second).exists()
    [res] = repo.load().get()
    assert_metrics_equal(res.metrics, [size(2.0)])
    # the older save's other analyzer must not show through a narrower query
    assert repo.load().for_analyzers(["Completeness"]).get() == []
    assert len(repo.load().get_rows()) == 1
    repo.save("d", key, [])  # an empty save is a result too, and supersedes
    assert repo.get("d", key) == AnalysisResult("d", key, [])
    assert repo.load().get_rows() == [] and repo.series("d", "Size(where=None)") == []
    assert repo.datasets() == ["d"]
    repo.save("d", ResultKey(10, {"b": "2"}), [size(3.0)])  # other tags: another key, not superseded
    assert [len(r.metrics) for r in repo.load().get()] == [0, 1]


def test_equal_write_times_are_broken_by_write_id(tmp_path):
    repo = FileSystemMetricsRepository(tmp_path)
    key = ResultKey(7)
    directory = tmp_path / "dataset=d"
    directory.mkdir()
    for write_id, value in (("7-" + "b" * 32, 2.0), ("7-" + "a" * 32, 1.0)):
        pq.write_table(metric_rows("d", key, [size(value)], 42, write_id), directory / f"{write_id}.parquet")
    assert repo.get("d", key).metrics[0].value == 2.0


# ---- robustness --------------------------------------------------------------------------------------------
def test_missing_repository_reads_empty(tmp_path):
    repo = FileSystemMetricsRepository(tmp_path / "does-not-exist")
    assert repo.load().get() == [] and repo.load().get_rows() == [] and repo.datasets() == []
    assert repo.get("d", ResultKey(1)) is None and repo.series("d", "Size()") == []
    assert repo.gc_temp() == [] and repo.compact("d") is None


def test_corrupt_file_error_names_the_file(tmp_path):
    repo = FileSystemMetricsRepository(tmp_path)
    repo.save("d", ResultKey(1), [size(1.0)])
    bad = tmp_path / "dataset=d" / f"2-{'0' * 32}.parquet"
    bad.write_bytes(b"PAR1 this is not parquet at all PAR1")
    with pytest.raises(RepositoryError, match=re.escape(str(bad))):
        repo.load().for_dataset("d").get()
    assert len(repo.load().for_dataset("d").before(1).get()) == 1  # the file name's timestamp prunes it


def test_reader_lists_again_when_a_listed_file_vanishes(tmp_path, monkeypatch):
    repo = FileSystemMetricsRepository(tmp_path)
    repo.save("d", ResultKey(1), [size(1.0)])
    real = FileSystemMetricsRepository._files
    calls = []

    def listing_with_a_compacted_away_file(directory, after=None, before=None):
        calls.append(directory)
        files = real(directory, after, before)
        return files + [directory / f"0-{'f' * 32}.parquet"] if len(calls) == 1 else files

    monkeypatch.setattr(FileSystemMetricsRepository, "_files", staticmethod(listing_with_a_compacted_away_file))
    assert [r.metrics[0].value for r in repo.load().for_dataset("d").get()] == [1.0] and len(calls) == 2
    monkeypatch.setattr(FileSystemMetricsRepository, "_files",
                        staticmethod(lambda d, a=None, b=None: real(d, a, b) + [d / "gone.parquet"]))
    with pytest.raises(RepositoryError, match="kept disappearing"):
        repo.load().for_dataset("d").get()


def test_temp_files_are_ignored_and_garbage_collected(tmp_path):
    repo = FileSystemMetricsRepository(tmp_path)
    key = ResultKey(1)
    path = repo.save("d", key, [size(1.0)])
    half = Path(path).parent / ".tmp-deadbeef.parquet"
    half.write_bytes(Path(path).read_bytes()[:40])  # a crashed writer's half-written file
    fresh = Path(path).parent / ".tmp-fresh.parquet"
    fresh.write_bytes(b"still being written")
    old = time.time() - 7200
    os.utime(half, (old, old))
    assert_metrics_equal(repo.get("d", key).metrics, [size(1.0)])
    assert len(repo.load().get_rows()) == 1
    assert repo.gc_temp(older_than_s=3600) == [str(half)]
    assert not half.exists() and fresh.exists() and Path(path).exists()
    assert repo.gc_temp(older_than_s=0) == [str(fresh)]
    assert sorted(p.name for p in Path(path).parent.iterdir()) == [Path(path).name]
    only_temp = tmp_path / "dataset=ghost"
    only_temp.mkdir()
    (only_temp / ".tmp-x.parquet").write_bytes(b"")
    assert repo.datasets() == ["d"]  # a dataset whose only file is a temp file has no results


def _save_many(root: str, worker: int, n: int, start) -> None:
    repo = FileSystemMetricsRepository(root)
    start.wait(30)
    for i in range(n):
        key = ResultKey(worker * 1000 + i, {"worker": str(worker)})
        repo.save("conc", key, [size(float(worker * 1000 + i)), completeness("w", float(worker))])
        repo.save("shared", ResultKey(1), [size(float(worker)), completeness("w", float(worker))])


def test_concurrent_writers_from_four_processes(tmp_path):
    ctx = mp.get_context("spawn")  # no fork of a process that may host a JVM
    start = ctx.Event()
    procs = [ctx.Process(target=_save_many, args=(str(tmp_path), w, 25, start)) for w in range(4)]
    for p in procs:
        p.start()
    start.set()
    for p in procs:
        p.join(60)
        assert p.exitcode == 0
    repo = FileSystemMetricsRepository(tmp_path)
    results = repo.load().for_dataset("conc").get()
    assert len(results) == 100
    assert {r.key for r in results} == {ResultKey(w * 1000 + i, {"worker": str(w)}) for w in range(4)
                                        for i in range(25)}
    for r in results:
        w = int(r.key.tags["worker"])
        assert_metrics_equal(r.metrics, [size(float(r.key.timestamp_ms)), completeness("w", float(w))])
    [shared] = repo.load().for_dataset("shared").get()  # 100 saves of one key: one whole save wins
    assert shared.metrics[0].value == shared.metrics[1].value and len(shared.metrics) == 2
    assert not [p for p in (tmp_path / "dataset=conc").iterdir() if p.name.startswith(".")]


# ---- compaction --------------------------------------------------------------------------------------------
def test_compaction_preserves_query_results(tmp_path):
    repo = FileSystemMetricsRepository(tmp_path)
    for ts in range(6):
        repo.save("d", ResultKey(ts, {"p": str(ts % 2)}), [size(float(ts)), completeness("c", ts / 10)])
    repo.save("d", ResultKey(2, {"p": "0"}), [completeness("c", 0.99), size(99.0)])  # a resave, order flipped
    repo.save("d", ResultKey(4, {"p": "0"}), [])
    repo.save("other", ResultKey(1), [size(1.0)])
    directory = tmp_path / "dataset=d"
    before_rows = repo.load().get_rows()
    before_results = repo.load().get()
    old_file = sorted(directory.iterdir())[0]
    old_bytes = old_file.read_bytes()
    new = repo.compact("d")
    assert [p.name for p in directory.iterdir()] == [Path(new).name]
    assert re.fullmatch(r"compact-0-5-[0-9a-f]{32}\.parquet", Path(new).name)
    assert pq.read_metadata(new).num_rows == 11  # 6 keys x 2 rows, but the empty resave is 1 marker row
    assert repo.load().get_rows() == before_rows  # written_at_ns and write_id included
    assert repo.load().get() == before_results
    assert repo.load().with_tag_values({"p": "1"}).after(3).for_analyzers(["Size"]).get_rows() == \
        [r for r in before_rows if r["tags"] == {"p": "1"} and r["timestamp_ms"] >= 3 and r["name"] == "Size"]
    # a reader that sees old and compacted files at once (compaction mid-way) sees no duplicates
    old_file.write_bytes(old_bytes)
    assert repo.load().get_rows() == before_rows
    # a save after compaction still wins over the compacted copy of its key
    repo.save("d", ResultKey(0, {"p": "0"}), [size(-1.0)])
    assert repo.get("d", ResultKey(0, {"p": "0"})).metrics == [size(-1.0)]
    assert repo.compact("d") is not None and len(list(directory.iterdir())) == 1
    assert repo.get("d", ResultKey(0, {"p": "0"})).metrics == [size(-1.0)]
    assert repo.compact("d") is None and repo.compact("other") is None


# ---- Spark -------------------------------------------------------------------------------------------------
def _comparable(rows: list[dict]) -> list[tuple]:
    def norm(v):
        if isinstance(v, float) and math.isnan(v):
            return "NaN"
        if isinstance(v, dict):
            return tuple(sorted(v.items()))
        return v
    return sorted(tuple((k, norm(r[k])) for k in sorted(r)) for r in rows)


def test_spark_reads_the_same_rows_as_pyarrow(spark, tmp_path):
    repo = FileSystemMetricsRepository(tmp_path / "repo")
    for ts in range(4):
        repo.save("a/b ü", ResultKey(ts, {"r": "eu" if ts % 2 else "us"}),
                  [size(float(ts)), Metric("Mean(column='x')", "Mean", "x", "Column", float("nan")),
                   Metric("H(column='x')", "H", "x", "Column", {"k": 1}),
                   Metric("Bad()", "Bad", "*", "Dataset", None, "boom")])
    repo.save("a/b ü", ResultKey(1, {"r": "eu"}), [size(10.0)])  # supersedes: only one row for this key
    repo.save("a/b ü", ResultKey(2, {"r": "us"}), [])
    repo.save("2024", ResultKey(2), [size(5.0)])
    base = repo.load()
    narrow = base.for_dataset("a/b ü").with_tag_values({"r": "eu"}).after(1).before(3)
    queries = [base, narrow.for_analyzers(["Size", "H(column='x')"]), base.for_dataset("nope")]
    for q in queries:
        df = q.as_dataframe(spark)
        assert _comparable([r.asDict() for r in df.collect()]) == _comparable(q.get_rows()), q.filter
    rows = base.get_rows()
    assert len(rows) == 10 and len(queries[1].get_rows()) == 3
    # mid-compaction (old and compacted files side by side) Spark sees each save once, like pyarrow
    old_file = sorted((tmp_path / "repo" / "dataset=a%2Fb%20%C3%BC").iterdir())[0]
    old_bytes = old_file.read_bytes()
    repo.compact("a/b ü")
    old_file.write_bytes(old_bytes)
    assert _comparable([r.asDict() for r in base.as_dataframe(spark).collect()]) == _comparable(rows)
    empty = FileSystemMetricsRepository(tmp_path / "missing").load().as_dataframe(spark)
    assert empty.count() == 0 and "written_at_ns" in empty.columns


def test_metrics_rows_are_the_arrow_tables_pyarrow_builds():
    """Saves build their Arrow columns from buffers (pyarrow's converter from Python values imports pandas):
    the table must be the one ``pa.Table.from_pydict`` builds, nulls, NaN, ±inf, unicode and maps included."""
    rng = np.random.default_rng(0)
    n = 64
    cols: dict[str, list] = {}
    for f in SCHEMA:
        if f.type == pa.string():
            cols[f.name] = [None if (f.nullable and rng.random() < 0.3) else "é" * int(rng.integers(0, 4)) + str(i)
                            for i in range(n)]
        elif f.type == pa.int64():
            cols[f.name] = [None if (f.nullable and rng.random() < 0.3) else int(rng.integers(-2**62, 2**62))
                            for _ in range(n)]
        elif f.type == pa.float64():
            cols[f.name] = [None if rng.random() < 0.3 else float(rng.choice([0.5, -1e300, math.inf, math.nan]))
                            for _ in range(n)]
        else:
            cols[f.name] = [None if rng.random() < 0.2 else [(f"k{j}", f"v{j}") for j in range(int(rng.integers(0, 3)))]
                            for _ in range(n)]
    got = arrow_columns.table(cols, SCHEMA)
    expected = pa.Table.from_pydict(cols, schema=SCHEMA)
    got.validate(full=True)
    assert got.schema.equals(expected.schema)
    for name in SCHEMA.names:  # Table.equals would count NaN != NaN
        assert repr(got[name].to_pylist()) == repr(expected[name].to_pylist()), name
        assert got[name].null_count == expected[name].null_count
    assert got.drop_columns(["value"]).equals(expected.drop_columns(["value"]))
    with pytest.raises(TypeError, match="'dataset'"):
        arrow_columns.table({**cols, "dataset": [1] * n}, SCHEMA)
    with pytest.raises(ValueError, match="'write_id' may not hold nulls"):
        arrow_columns.table({**cols, "write_id": [None] * n}, SCHEMA)


def test_a_file_without_a_newer_column_reads_it_as_null(tmp_path):
    """Files are read one by one (not by a dataset scan, whose import pulls in pandas): a file written before a
    column existed still reads, the column null, as a scan with the schema gave."""
    repo = FileSystemMetricsRepository(str(tmp_path))
    repo.save("d", ResultKey(5, {"b": "1"}), [Metric("Size", "Size", "*", "Dataset", 3.0, extra={"k": 1})])
    (path,) = (tmp_path / "dataset=d").glob("*.parquet")
    old = pq.read_table(path).drop_columns(["extra_json"])
    path.unlink()
    pq.write_table(old, path)
    (result,) = repo.load().for_dataset("d").get()
    assert [m.value for m in result.metrics] == [3.0] and result.metrics[0].extra == {}
