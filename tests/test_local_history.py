"""The history commands without a JVM: the local reader against Spark's, pandas summaries against Spark's,
the scipy-free chi-squared, backfill, and issue features computed only for batches recorded as accepted.

Oracles: Spark's own CSV/Parquet reader (``read_dataset``) and ``summarize_dataframe`` for the pandas path,
numpy's ``inverted_cdf`` quantiles, ``scipy.stats.chi2_contingency``, the dates' UTC midnights, and the
``history add`` path (``BatchHistory.add``) for backfilled batches.
"""

from __future__ import annotations

import json
import math
import os
import shutil
import subprocess
import sys
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from scipy import stats

from bench.recurring_dataset import generate
from lakeindex.avh.from_history import MIN_HISTORY, learn_dataset_programs
from lakeindex.cli import main
from lakeindex.history.backfill import backfill, list_partitions
from lakeindex.history.batch_metrics import chi2_sf, chisquare
from lakeindex.history.batches import BatchHistory, EmptyBatch, profile
from lakeindex.history.kinds import CATEGORICAL, NUMERIC
from lakeindex.history.spark_summary import quantile_ranks, summarize_dataframe
from lakeindex.history.summary import QUANTILE_GRID, summarize_series
from lakeindex.lake.dataset import read_dataset
from lakeindex.lake.local_dataset import read_local
from lakeindex.validation.avh import AVHSignal
from lakeindex.validation.policy import SignalPolicy
from lakeindex.validation.schema import SchemaSignal
from lakeindex.validation.validator import BatchValidator

ROOT = Path(__file__).resolve().parents[1]
DAY0 = date(2024, 1, 1)


def rows_of(frame: pd.DataFrame) -> list[tuple]:
    return [tuple(r) for r in frame.itertuples(index=False, name=None)]


def spark_rows(df) -> list[tuple]:
    return [tuple(r) for r in df.collect()]


def none_last(row: tuple) -> tuple:
    return tuple((v is None, v or "") for v in row)


def write_bytes(path: Path, data: bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


def local_frame(path: Path | str) -> pd.DataFrame:
    got = read_local(str(path))
    assert got.frame is not None, got.reason
    return got.frame


def day(k: int) -> str:
    return (DAY0 + timedelta(days=k)).isoformat()


def utc_midnight_ms(iso: str) -> int:
    return int(datetime.fromisoformat(iso).replace(tzinfo=UTC).timestamp()) * 1000


def assert_same_summary(local, spark_summary, column: str) -> None:
    """Every field equal, except float sum/variance up to summation order."""
    a, b = local.to_dict(), spark_summary.to_dict()
    assert a.keys() == b.keys()
    for key in a:
        if key in ("sum", "variance") and a[key] is not None and b[key] is not None:
            assert b[key] == pytest.approx(a[key], rel=1e-9), (column, key)
        else:
            assert a[key] == b[key], (column, key, a[key], b[key])


# ------------------------------------------------------------------------ the local reader vs Spark's reader

HOSTILE_CSV = ('\ufeffid,text,path,note\n'
               '1,"She said ""hi"", twice","C:\\Users\\x",\n'
               '2,"first line\nsecond line",/a\\b,""\n'
               '3,"ends with a backslash\\",x,"2"" pipe"\n'
               '4,"",,12" vinyl\n'
               '5,"""","a\\""b",\\N\n').encode()

READER_CASES = {
    # quoted delimiters, empty unquoted and quoted-empty fields, spaces kept, unicode, a UTF-8 BOM
    "mixed.csv": ('\ufeffid,name,city,note\n'
                  '1,"Smith, John", Paris ,x\n'
                  '2,,"",\n'
                  '3,"  padded  ",Zürich,"a,b,c"\n'
                  '4,日本語,Kraków ,N/A\n'
                  '5,"",null,""\n').encode(),
    # CRLF line endings with blank lines in between and at the end, no final newline
    "crlf.csv": 'a,b,c\r\n1,,x\r\n\r\n"q,1", lead,trail \r\n\r\n3,"",€uro\r\n\r\n4,"z",5'.encode(),
    # tab-separated: quoted tab, empty and quoted-empty fields, a blank line, BOM and CRLF
    "tabs.tsv": ('\ufeffk\tv\tw\r\n1\t"x\ty"\t\r\n\r\n2\t\t z \r\n3\t""\tñ\r\n4\t"a,b"\t""\r\n').encode(),
    # a one-column file with blank lines
    "one.csv": b'only\n\nfirst\n\n"second, quoted"\n\n',
    # real text in the RFC 4180 dialect: backslashes (not an escape), doubled quotes, quoted line breaks,
    # a BOM, quoted and unquoted empty fields, a quote inside an unquoted value
    "hostile.csv": HOSTILE_CSV,
    # the same with CR LF line ends (no line break inside quotes: Spark turns a quoted CR LF into LF)
    "hostile_crlf.csv": ('\ufeffid,text,path\r\n1,"she said ""hi"", then left",C:\\temp\\x\r\n'
                         '2,,"a\\b"\r\n3,"",5" tall\r\n').encode(),
    # a CR LF inside a quoted value of a file with LF line ends is kept by both
    "crlf_in_lf_file.csv": b'a,b\n"x\r\ny",2\n3,4\n',
    "hostile.tsv": (b'id\ttext\n1\t"line one\nline two\twith a tab"\n2\t"""quoted"" \\n literal"\n'
                    b'3\t""\n4\t\n'),
}


@pytest.mark.parametrize("name", sorted(READER_CASES))
def test_local_reader_gives_sparks_rows(spark, tmp_path, name):
    path = write_bytes(tmp_path / name, READER_CASES[name])
    got = read_local(str(path))
    assert got.frame is not None, got.reason
    df = read_dataset(spark, str(path), infer_schema=False)
    assert list(got.frame.columns) == df.columns
    local = rows_of(got.frame)
    assert local == spark_rows(df)
    # nulls are None (not NaN), values are str: the same Python objects Spark's rows hold
    assert all(v is None or isinstance(v, str) for row in local for v in row)


def test_local_reader_fixed_expectations(tmp_path):
    """A hand-written expectation for one file, so the reader is not only checked relative to Spark."""
    path = write_bytes(tmp_path / "mixed.csv", READER_CASES["mixed.csv"])
    frame = local_frame(path)
    assert list(frame.columns) == ["id", "name", "city", "note"]
    assert rows_of(frame) == [("1", "Smith, John", " Paris ", "x"), ("2", None, None, None),
                              ("3", "  padded  ", "Zürich", "a,b,c"), ("4", "日本語", "Kraków ", "N/A"),
                              ("5", None, "null", None)]


def test_local_reader_hostile_text_by_hand(tmp_path):
    """Hand-read RFC 4180 values of the hostile file (each quote pair one quote, line breaks kept inside
    quotes, backslashes ordinary characters, empty fields null), read locally rather than handed to Spark."""
    frame = local_frame(write_bytes(tmp_path / "hostile.csv", HOSTILE_CSV))
    assert list(frame.columns) == ["id", "text", "path", "note"]
    assert rows_of(frame) == [("1", 'She said "hi", twice', "C:\\Users\\x", None),
                              ("2", "first line\nsecond line", "/a\\b", None),
                              ("3", "ends with a backslash\\", "x", '2" pipe'),
                              ("4", None, None, '12" vinyl'),
                              ("5", '"', 'a\\"b', "\\N")]


def _parquet_bytes(table: pa.Table) -> bytes:
    sink = pa.BufferOutputStream()
    pq.write_table(table, sink)
    return sink.getvalue().to_pybytes()


HAZARDS = {
    "backslash_escaped_quote": ("x.csv", b'a,b\n"x\\"y",2\n', {}),
    "text_after_closing_quote": ("x.csv", b'a,b\n"ab"c,2\n', {}),
    "quoted_crlf_break": ("x.csv", b'a,b\r\n"x\r\ny",2\r\n3,4\r\n', {}),
    "quoted_break_glob_name": ("x[1].csv", b'a,b\n"x\ny",2\n', {}),
    "lone_cr_in_value": ("x.csv", b'a,b\n1,x\ry\n3,4\n', {}),
    "unbalanced_quote": ("x.csv", b'a,b\n"abc,2\n3,4\n', {}),
    "whitespace_line": ("x.csv", b'a,b\n1,2\n   \n3,4\n', {}),
    "too_many_fields": ("x.csv", b'a,b\n1,2,3\n4,5\n', {}),
    "too_few_fields": ("x.csv", b'a,b,c\n1,2\n3,4,5\n', {}),
    "too_few_fields_tsv": ("x.tsv", b'a\tb\tc\n1\t2\n', {}),
    "empty_header_name": ("x.csv", b'a,\n1,2\n', {}),
    "duplicate_header": ("x.csv", b'a,a\n1,2\n', {}),
    "duplicate_header_case": ("x.csv", b'a,A\n1,2\n', {}),
    "over_size_limit": ("x.csv", b'a,b\n1,2\n3,4\n', {"limit_bytes": 10}),
    "infer_schema": ("x.csv", b'a,b\n1,2\n', {"infer_schema": True}),
    "schema": ("x.csv", b'a,b\n1,2\n', {"schema": "a STRING, b STRING"}),
    "json_lines": ("x.jsonl", b'{"a": 1}\n{"a": 2}\n', {}),
    "parquet_date": ("x.parquet", _parquet_bytes(pa.table({"d": pa.array([date(2024, 1, 1), None])})), {}),
    "parquet_timestamp": ("x.parquet", _parquet_bytes(pa.table(
        {"t": pa.array([datetime(2024, 1, 1, 12), None], pa.timestamp("us"))})), {}),
    "parquet_decimal": ("x.parquet", _parquet_bytes(pa.table(
        {"x": pa.array([1, 2], pa.int64()), "m": pa.array([None, None], pa.decimal128(10, 2))})), {}),
}


@pytest.mark.parametrize("case", sorted(HAZARDS))
def test_local_reader_falls_back_on_hazards(tmp_path, case):
    name, data, kwargs = HAZARDS[case]
    path = write_bytes(tmp_path / name, data)
    got = read_local(str(path), **kwargs)
    assert got.frame is None
    assert isinstance(got.reason, str) and got.reason.strip()


def test_local_reader_falls_back_on_mixed_formats_and_missing_paths(tmp_path):
    write_bytes(tmp_path / "mix" / "a.csv", b"a\n1\n")
    write_bytes(tmp_path / "mix" / "b.tsv", b"a\n1\n")
    got = read_local(str(tmp_path / "mix"))
    assert got.frame is None and got.reason
    got = read_local(str(tmp_path / "nowhere.csv"))
    assert got.frame is None and got.reason
    write_bytes(tmp_path / "diff" / "a.csv", b"a,b\n1,2\n")
    write_bytes(tmp_path / "diff" / "b.csv", b"a,c\n1,2\n")
    got = read_local(str(tmp_path / "diff"))
    assert got.frame is None and got.reason


def test_directory_of_parts_is_their_concatenation(spark, tmp_path):
    d = tmp_path / "table"
    write_bytes(d / "part-0000.csv", b'id,v\n1,"a,b"\n2,\n')
    write_bytes(d / "part-0001.csv", '\ufeffid,v\r\n3,é\r\n\r\n4,""\r\n'.encode())
    write_bytes(d / "_SUCCESS", b"")
    write_bytes(d / ".part-0000.csv.crc", b"\x00\x01junk")
    frame = local_frame(d)
    assert list(frame.columns) == ["id", "v"]
    # the parts in name order, each as written
    assert rows_of(frame) == [("1", "a,b"), ("2", None), ("3", "é"), ("4", None)]
    df = read_dataset(spark, str(d), infer_schema=False)
    assert df.columns == ["id", "v"]
    assert sorted(rows_of(frame), key=none_last) == sorted(spark_rows(df), key=none_last)


def test_directory_with_a_sub_directory_falls_back(tmp_path):
    d = tmp_path / "table"
    write_bytes(d / "part-0000.csv", b"id,v\n1,a\n")
    write_bytes(d / "region=eu" / "part-0001.csv", b"id,v\n2,b\n")
    got = read_local(str(d))
    assert got.frame is None
    assert "region=eu" in got.reason


# Found while writing these tests: files the local reader once accepted although Spark reads them
# differently (or on which it raised instead of falling back).
READER_BUGS = {
    # Spark drops lines that are blank after trimming whitespace (tabs included): an all-empty TSV row
    "tsv_all_empty_row.tsv": b'a\tb\n1\t2\n\t\n3\t4\n',
    "whitespace_only_line.csv": b'a\n1\n   \n2\n',
    # text after a closing quote: Spark keeps the field verbatim, Arrow drops the quotes
    "text_after_closing_quote.csv": b'a,b\n"x"y,2\n',
    # spaces after a closing quote: Spark drops them, Arrow keeps them
    "space_after_closing_quote.csv": b'a,b\n"x" ,2\n',
    # a carriage return inside quotes ends the line for Spark's line reader
    "quoted_carriage_return.csv": b'a,b\n"x\ry",2\n3,4\n',
    # old Mac line endings: read_local raises csv.Error instead of returning a frame or a reason
    "cr_line_endings.csv": b'a,b\r1,2\r3,4\r',
}


@pytest.mark.parametrize("name", sorted(READER_BUGS))
def test_local_reader_never_disagrees_with_spark(spark, tmp_path, name):
    path = write_bytes(tmp_path / name, READER_BUGS[name])
    got = read_local(str(path))
    if got.frame is not None:
        df = read_dataset(spark, str(path), infer_schema=False)
        assert (list(got.frame.columns), rows_of(got.frame)) == (df.columns, spark_rows(df))
    else:
        assert got.reason


# ----------------------------------------------------------------------------- summaries: pandas vs Spark

N_ROWS = 3000


@pytest.fixture(scope="module")
def summary_data(tmp_path_factory):
    """A CSV of 3,000 rows: an id, a category, numbers with N/A and empties, a heavy-tailed float with
    every value distinct, integers, and an entirely empty column; plus the numbers it holds."""
    rng = np.random.default_rng(11)
    n = N_ROWS
    ids = [f"ID-{i:05d}" for i in rng.permutation(n)]
    city = rng.choice(["paris", "rome", "oslo", "lima", "kyiv", "são paulo"], n, p=[.4, .2, .15, .1, .1, .05])
    qty = rng.integers(0, 400, n).astype(str).astype(object)
    token = rng.random(n)
    qty[token < 0.03] = "N/A"
    qty[(token >= 0.03) & (token < 0.06)] = ""
    heavy = np.round(rng.pareto(1.2, n) * 10, 3) + np.arange(n) * 1e-7  # every value distinct
    heavy_text = [repr(float(x)) for x in heavy]
    assert len(set(heavy_text)) == n
    ints = rng.integers(-50, 50, n)
    frame = pd.DataFrame({"id": ids, "city": city, "qty": qty, "heavy": heavy_text, "count": ints,
                          "empty": [""] * n})
    path = tmp_path_factory.mktemp("summary") / "batch.csv"
    frame.to_csv(path, index=False)
    qty_numbers = np.array([float(v) for v in qty if v not in ("", "N/A")])
    return {"path": str(path), "heavy": np.array([float(t) for t in heavy_text]), "count": ints.astype(float),
            "qty": qty_numbers}


def _both_summaries(spark, path: str, limit: int):
    frame = local_frame(path)
    df = read_dataset(spark, path, infer_schema=False)
    assert list(frame.columns) == df.columns
    local = {c: summarize_series(frame[c], exact_distinct_limit=limit) for c in frame.columns}
    return local, summarize_dataframe(df, exact_distinct_limit=limit)


def test_csv_summaries_equal_sparks_with_the_default_limit(spark, summary_data):
    import datasketches as ds

    # a KLL sketch with Spark's k would not be exact on this many values: equal quantiles need the
    # grouped (exact) path on the Spark side
    sketch = ds.kll_doubles_sketch(400)
    for x in summary_data["heavy"]:
        sketch.update(float(x))
    assert sketch.is_estimation_mode()

    local, remote = _both_summaries(spark, summary_data["path"], 100_000)
    assert set(local) == set(remote) == {"id", "city", "qty", "heavy", "count", "empty"}
    for c in local:
        assert_same_summary(local[c], remote[c], c)
    kinds = {c: s.kind for c, s in remote.items()}
    assert kinds == {"id": CATEGORICAL, "city": CATEGORICAL, "qty": NUMERIC, "heavy": NUMERIC, "count": NUMERIC,
                     "empty": CATEGORICAL}
    # independent checks of the shared values
    for c in ("heavy", "count", "qty"):
        x = summary_data[c]
        assert remote[c].quantiles == list(np.quantile(x, QUANTILE_GRID, method="inverted_cdf")), c
        assert remote[c].complete_count == len(x)
        assert remote[c].distinct_count == len(np.unique(x))
    assert remote["qty"].non_null_count == N_ROWS - int(np.sum(local_frame(summary_data["path"])["qty"].isna()))
    assert remote["id"].distinct_count == N_ROWS and remote["id"].singleton_count == N_ROWS
    assert remote["empty"].non_null_count == 0 and remote["empty"].complete_count == 0
    assert remote["city"].distinct_count == 6 and remote["city"].values_tracked


def test_csv_summaries_equal_sparks_just_above_a_small_limit(spark, summary_data):
    from pyspark.sql import functions as F

    limit = N_ROWS - N_ROWS // 20  # 5% below the distinct count of id and heavy
    df = read_dataset(spark, summary_data["path"], infer_schema=False)
    # precondition: Spark's HLL estimate is within 110% of the limit, so Spark counts exactly
    est = df.agg(F.hll_sketch_estimate(F.hll_sketch_agg(F.col("id"), 12)).alias("e")).collect()[0]["e"]
    assert limit < est <= 1.1 * limit

    local, remote = _both_summaries(spark, summary_data["path"], limit)
    for c in local:
        assert_same_summary(local[c], remote[c], c)
    for c in ("id", "heavy"):
        for s in (local[c], remote[c]):
            assert s.distinct_count == N_ROWS and s.distinct_exact is True
            assert s.values_tracked is False and s.singleton_count is None
    assert remote["id"].value_counts == {} and remote["id"].value_other == 0.0
    expected = list(np.quantile(summary_data["heavy"], QUANTILE_GRID, method="inverted_cdf"))
    assert local["heavy"].quantiles == remote["heavy"].quantiles == expected
    # columns under the limit still track their values
    assert remote["city"].values_tracked and remote["city"].singleton_count == 0


def _with_nulls(values: list, rng: np.random.Generator, rate: float = 0.15) -> list:
    return [None if rng.random() < rate else v for v in values]


def test_parquet_summaries_equal_sparks(spark, tmp_path):
    rng = np.random.default_rng(5)
    n = 1500
    table = pa.table({
        "s": pa.array(_with_nulls([str(x) for x in rng.choice(["a", "bb", "c c", "", "ü-1"], n)], rng), pa.string()),
        "i": pa.array(_with_nulls([int(x) for x in rng.integers(-10**12, 10**12, n)], rng), pa.int64()),
        "f": pa.array(_with_nulls([float(x) for x in rng.lognormal(0, 2, n)], rng), pa.float64()),
        "b": pa.array(_with_nulls([bool(x) for x in rng.random(n) < 0.3], rng), pa.bool_()),
    })
    path = tmp_path / "batch.parquet"
    pq.write_table(table, path)
    frame = local_frame(path)
    remote = summarize_dataframe(read_dataset(spark, str(path)))
    assert set(remote) == {"s", "i", "f", "b"}
    for c in frame.columns:
        assert_same_summary(summarize_series(frame[c]), remote[c], c)
    assert remote["b"].kind == CATEGORICAL and set(remote["b"].value_counts) == {"true", "false"}
    nulls = {c: table.column(c).null_count for c in table.column_names}
    assert {c: remote[c].non_null_count for c in remote} == {c: n - k for c, k in nulls.items()}
    ints = np.array([v for v in table.column("i").to_pylist() if v is not None], dtype=float)
    assert remote["i"].quantiles == list(np.quantile(ints, QUANTILE_GRID, method="inverted_cdf"))


def test_parquet_nan_summaries_equal_sparks(spark, tmp_path):
    path = tmp_path / "nan.parquet"
    pq.write_table(pa.table({"f": pa.array([1.0, float("nan"), None, 2.0])}), path)
    got = read_local(str(path))
    if got.frame is not None:
        remote = summarize_dataframe(read_dataset(spark, str(path)))
        assert_same_summary(summarize_series(got.frame["f"]), remote["f"], "f")


@pytest.mark.parametrize("n", [1, 2, 7, 100, 1234])
def test_quantile_ranks_match_numpy_inverted_cdf(n):
    rng = np.random.default_rng(n)
    x = np.sort(rng.standard_normal(n))
    ranks = quantile_ranks(n)
    assert len(ranks) == len(QUANTILE_GRID)
    assert all(1 <= r <= n for r in ranks)
    assert [x[r - 1] for r in ranks] == list(np.quantile(x, QUANTILE_GRID, method="inverted_cdf"))


# ---------------------------------------------------------------------------------------- chi-squared


@pytest.mark.parametrize("k", [2, 3, 5, 12, 60])
def test_chisquare_matches_scipy(k):
    rng = np.random.default_rng(100 + k)
    for _ in range(20):
        scale = rng.integers(1, 500)
        table = rng.integers(1, scale + 1, size=(2, k)).astype(float)
        if rng.random() < 0.5:  # a shifted distribution too, for small p-values
            table[1] *= np.linspace(0.5, 1.5, k)
            table = np.round(table) + 1
        stat, pvalue = chisquare(table[0], table[1])
        ref = stats.chi2_contingency(table, correction=False)
        assert stat == pytest.approx(ref.statistic, rel=1e-9)
        assert pvalue == pytest.approx(ref.pvalue, rel=1e-9, abs=1e-300)


def test_chi2_survival_matches_scipy():
    """The closed-form chi-squared survival function gives scipy's chdtrc (the oracle) for odd and even df
    up to 2,001, statistics from 1e-8 to 1e6 (tails beyond 1e-300 included), and the edge values."""
    from scipy.special import chdtrc

    dfs = [*range(1, 31), 99, 100, 101, 500, 999, 1000, 1001, 2000, 2001]
    for df in dfs:
        xs = np.concatenate([np.logspace(-8, 6, 120), df + np.sqrt(2 * df) * np.linspace(-3, 8, 23)])
        for x in xs[xs > 0]:
            assert chi2_sf(df, float(x)) == pytest.approx(float(chdtrc(df, x)), rel=1e-10, abs=1e-300), (df, x)
    assert chi2_sf(3, 0.0) == 1.0 and chi2_sf(4, math.inf) == 0.0 and math.isnan(chi2_sf(2, math.nan))
    with pytest.raises(ValueError, match="df must be an integer"):
        chi2_sf(0, 1.0)


def test_chisquare_ignores_empty_categories_and_degenerate_tables():
    p, q = np.array([10.0, 0, 7, 3]), np.array([4.0, 0, 9, 8])
    ref = stats.chi2_contingency(np.array([[10.0, 7, 3], [4, 9, 8]]), correction=False)
    stat, pvalue = chisquare(p, q)
    assert stat == pytest.approx(ref.statistic, rel=1e-9) and pvalue == pytest.approx(ref.pvalue, rel=1e-9)
    # fewer than two non-empty categories: no evidence of a difference
    assert chisquare(np.array([5.0, 0, 0]), np.array([3.0, 0, 0])) == (0.0, 1.0)
    assert chisquare(np.array([0.0, 4]), np.array([0.0, 0])) == (0.0, 1.0)
    assert chisquare(np.array([0.0, 0]), np.array([0.0, 0])) == (0.0, 1.0)
    assert chisquare(np.array([7.0]), np.array([2.0])) == (0.0, 1.0)


# ------------------------------------------------------------------------------------------ batch data


@pytest.fixture(scope="module")
def batches():
    """Clean daily batches of the benchmark's order feed, small."""
    return generate(14, rows=600, seed=5)


def write_partitions(directory: Path, frames: list[pd.DataFrame], first: int = 0) -> list[str]:
    directory.mkdir(parents=True, exist_ok=True)
    ids = []
    for k, frame in enumerate(frames, start=first):
        frame.to_csv(directory / f"{day(k)}.tsv", sep="\t", index=False)
        ids.append(day(k))
    return ids


def read_frame(path: str) -> pd.DataFrame:
    return local_frame(path)


# ------------------------------------------------------------------------------ the CLI, without a JVM


def no_java_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("JAVA_HOME", "PATH", "PYTHONPATH")}
    env.update(JAVA_HOME="/nonexistent", PATH=os.path.dirname(sys.executable), PYTHONPATH=str(ROOT),
               LOKY_MAX_CPU_COUNT="2")
    # precondition: Spark could not start here (no java on PATH, none under JAVA_HOME)
    assert shutil.which("java", path=env["PATH"]) is None
    assert not os.path.exists(os.path.join(env["JAVA_HOME"], "bin", "java"))
    return env


def cli(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    assert (ROOT / "lakeindex" / "cli" / "__main__.py").exists()
    return subprocess.run([sys.executable, "-m", "lakeindex.cli", *args], cwd=cwd, env=no_java_env(),
                          capture_output=True, text=True, timeout=120)


@pytest.fixture(scope="module")
def cli_history(tmp_path_factory, batches):
    """A backfilled history of 8 daily TSV partitions (plus _SUCCESS and a README), made by the CLI without
    Java, and the `history list` right after it."""
    base = tmp_path_factory.mktemp("cli")
    parts = base / "parts"
    ids = write_partitions(parts, batches[:8])
    (parts / "_SUCCESS").write_text("")
    (parts / "README.md").write_text("# daily orders\n")
    batches[8].to_csv(base / "next.csv", index=False)
    batches[9].to_csv(base / "candidate.csv", index=False)
    bad = batches[10].head(50).to_csv(index=False).splitlines()
    bad[3] = '"quoted"text,' + bad[3].split(",", 1)[1]  # text after a closing quote: Spark keeps it verbatim
    (base / "needs_spark.csv").write_text("\n".join(bad) + "\n")
    fill = cli(["history", "backfill", "--repo", "repo", "--dataset", "orders", "parts", "--quiet"], base)
    listing = cli(["history", "list", "--repo", "repo", "--dataset", "orders"], base)
    return {"base": base, "ids": ids, "backfill": fill, "list": listing}


def test_cli_backfill_records_dated_partitions_in_order(cli_history):
    fill, listing, ids = cli_history["backfill"], cli_history["list"], cli_history["ids"]
    assert fill.returncode == 0, fill.stderr
    out = json.loads(fill.stdout)
    assert out["recorded"] == ids and out["already_recorded"] == []
    assert out["engines"] == {"local": 8, "spark": 0}
    assert out["issue_features_for"] == ids[-1]
    assert out["entries_left_out"] == [{"entry": "README.md", "reason": out["entries_left_out"][0]["reason"]}]
    assert out["entries_left_out"][0]["reason"]
    assert out["clean_batches"] == 8
    assert listing.returncode == 0, listing.stderr
    rows = [json.loads(line) for line in listing.stdout.splitlines() if line.strip()]
    assert [r["batch"] for r in rows] == ids
    assert [r["timestamp_ms"] for r in rows] == [utc_midnight_ms(i) for i in ids]
    assert rows[0]["timestamp_ms"] == 1704067200000  # 2024-01-01T00:00:00Z
    assert all(r["status"] == "accepted" for r in rows)
    with open(cli_history["base"] / "parts" / f"{ids[2]}.tsv") as fh:
        assert rows[2]["rows"] == sum(1 for _ in fh) - 1


def test_cli_history_commands_run_without_a_jvm(cli_history, batches):
    base = cli_history["base"]
    assert cli_history["backfill"].returncode == 0, cli_history["backfill"].stderr
    repo = ["--repo", "repo", "--dataset", "orders"]
    add = cli(["history", "add", *repo, "next.csv", "--batch", "b9", "--quiet"], base)
    assert add.returncode == 0, add.stderr
    out = json.loads(add.stdout)
    assert out["batch"] == "b9" and out["status"] == "accepted" and out["rows"] == len(batches[8])

    avh = cli(["avh", "check", *repo, "candidate.csv", "--engine", "local", "--quiet"], base)
    assert avh.returncode == 0, avh.stderr
    out = json.loads(avh.stdout)
    assert out["verdict"] == "passed" and out["learned_from"] == [*cli_history["ids"], "b9"]

    novelty = cli(["novelty", "check", *repo, "candidate.csv", "--quiet"], base)
    assert novelty.returncode == 0, novelty.stderr
    assert json.loads(novelty.stdout)["status"] == "passed"

    validate = cli(["validate-batch", *repo, "candidate.csv", "--batch", "b10", "--quiet"], base)
    assert validate.returncode == 0, validate.stderr
    out = json.loads(validate.stdout)
    assert out["verdict"] == "passed" and out["recorded_as"] == "accepted" and out["rows"] == len(batches[9])
    recs = BatchHistory(str(base / "repo"), "orders").records(None)
    assert [r.batch_id for r in recs][-2:] == ["b9", "b10"]
    assert recs[-1].issue_features  # recorded as accepted: computed


def test_cli_history_commands_report_progress_unless_quiet(cli_history):
    """avh check, novelty check and validate-batch said nothing on stderr while they worked (issue 13 §6)."""
    base = cli_history["base"]
    repo = ["--repo", "repo", "--dataset", "orders"]
    ncols = len((base / "candidate.csv").read_text().splitlines()[0].split(","))  # the CSV header's names
    for command in (["avh", "check"], ["novelty", "check"], ["validate-batch", "--dry-run"]):
        loud = cli([*command, *repo, "candidate.csv"], base)
        assert loud.returncode == 0, loud.stderr
        json.loads(loud.stdout)  # stdout stays the JSON result alone
        phases = [line.split("] ", 1)[1] for line in loud.stderr.splitlines() if line.startswith("[lakeindex")]
        assert phases[:2] == ["reading candidate.csv", f"profiling candidate.csv ({ncols} columns)"], loud.stderr
        assert len(phases) == 3, loud.stderr  # then checking (avh, novelty) or validating (validate-batch)
        quiet = cli([*command, *repo, "candidate.csv", "--quiet"], base)
        # no progress lines (joblib may still warn that this PATH-less environment has no `cat`)
        assert quiet.returncode == 0 and "[lakeindex" not in quiet.stderr, quiet.stderr


def test_cli_engine_local_refuses_a_file_only_spark_reads(cli_history):
    base = cli_history["base"]
    proc = cli(["history", "add", "--repo", "repo", "--dataset", "orders", "needs_spark.csv", "--batch", "bad",
                "--engine", "local", "--quiet"], base)
    assert proc.returncode == 2
    assert proc.stdout.strip() == ""
    err = json.loads(proc.stderr.strip().splitlines()[-1])["error"]
    assert "needs_spark.csv" in err and "closing quote" in err
    assert BatchHistory(str(base / "repo"), "orders").find("bad") is None


# ------------------------------------------------------------------------------------------- backfill


@pytest.fixture(scope="module")
def resumed(tmp_path_factory, batches):
    """Backfill 8 partitions, add 2 more files, backfill again (in process, pandas)."""
    base = tmp_path_factory.mktemp("backfill")
    root = base / "parts"
    ids = write_partitions(root, batches[:8])
    (root / "_SUCCESS").write_text("")
    (root / "README.md").write_text("notes\n")
    history = BatchHistory(str(base / "repo"), "orders")
    parts, left_out = list_partitions(str(root))
    first = backfill(history, parts, read_frame)
    after_first = {r.batch_id: bool(r.issue_features) for r in history.records(None)}
    ids += write_partitions(root, batches[8:10], first=8)
    parts, _ = list_partitions(str(root))
    second = backfill(history, parts, read_frame)
    return {"base": base, "root": root, "ids": ids, "history": history, "first": first, "second": second,
            "left_out": left_out, "after_first": after_first}


def test_backfill_lists_partitions_and_resumes(resumed):
    ids = resumed["ids"]
    assert [e["entry"] for e in resumed["left_out"]] == ["README.md"]
    assert resumed["first"]["recorded"] == ids[:8] and resumed["first"]["already_recorded"] == []
    second = resumed["second"]
    assert second["recorded"] == ids[8:]
    assert second["already_recorded"] == ids[:8]
    assert second["partitions"] == 10
    recs = resumed["history"].records(None)
    assert [r.batch_id for r in recs] == ids
    assert [r.timestamp_ms for r in recs] == [utc_midnight_ms(i) for i in ids]
    assert all(r.status == "accepted" for r in recs)


def test_backfill_computes_issue_features_for_the_last_batch_only(resumed):
    ids = resumed["ids"]
    assert resumed["after_first"] == {i: i == ids[7] for i in ids[:8]}
    recs = resumed["history"].records(None)
    with_issues = [r.batch_id for r in recs if r.issue_features]
    assert with_issues == [ids[7], ids[9]]  # the last of each run
    last = recs[-1]
    assert set(last.issue_features) == set(last.summaries)
    assert all(v for v in last.issue_features.values())


SUMMATION_ORDER = {"rel_tol": 1e-9, "abs_tol": 1e-12}


def _floats_match(a: dict, b: dict, rel_tol: float = 0.0, abs_tol: float = 0.0) -> bool:
    """Nested dicts of floats with the same keys and values equal (NaN matches NaN), or within the
    tolerances given (results that differ only in floating-point summation order)."""
    if a.keys() != b.keys():
        return False
    for k in a:
        if isinstance(a[k], dict):
            if not _floats_match(a[k], b[k], rel_tol, abs_tol):
                return False
        elif not (math.isclose(a[k], b[k], rel_tol=rel_tol, abs_tol=abs_tol)
                  or (math.isnan(a[k]) and math.isnan(b[k]))):
            return False
    return True


def test_backfilled_features_equal_history_add_one_by_one(resumed, tmp_path):
    ids, root = resumed["ids"], resumed["root"]
    reference = BatchHistory(str(tmp_path / "repo"), "orders")
    for k, batch_id in enumerate(ids):
        last = k == len(ids) - 1
        reference.add(read_frame(str(root / f"{batch_id}.tsv")), batch_id, timestamp_ms=utc_midnight_ms(batch_id),
                      issues=last)
    ref = {r.batch_id: r for r in reference.records(None)}
    got = {r.batch_id: r for r in resumed["history"].records(None)}
    assert list(ref) == list(got) == ids
    for batch_id in ids:
        assert got[batch_id].features == ref[batch_id].features, batch_id
        assert {c: s.to_dict() for c, s in got[batch_id].summaries.items()} == \
               {c: s.to_dict() for c, s in ref[batch_id].summaries.items()}, batch_id
    # two-distribution metrics exist from the second batch on, across the resume too
    assert "emd" not in got[ids[0]].features["amount"]
    assert "emd" in got[ids[8]].features["amount"] and "chisquare" in got[ids[8]].features["country"]
    # the last batch's synthetic-issue features: the same as `history add` computes them
    assert _floats_match(got[ids[-1]].issue_features, ref[ids[-1]].issue_features)


def test_backfill_batch_ids_from_a_regex_on_sub_directories(tmp_path, batches):
    root = tmp_path / "weekly"
    weeks = [(DAY0 + timedelta(weeks=w)).isoformat() for w in range(3)]
    for w, week in enumerate(reversed(weeks)):  # created out of order
        d = root / f"week={week}"
        d.mkdir(parents=True)
        batches[w].head(200).to_csv(d / "part-0000.csv", index=False)
    (root / "scratch").mkdir()
    parts, left_out = list_partitions(str(root), r"week=(\d{4}-\d\d-\d\d)")
    assert [p.batch_id for p in parts] == weeks
    assert [e["entry"] for e in left_out] == ["scratch"]
    history = BatchHistory(str(tmp_path / "repo"), "weekly")
    out = backfill(history, parts, read_frame)
    assert out["recorded"] == weeks and out["engines"] == {"local": 3, "spark": 0}
    recs = history.records(None)
    assert [r.batch_id for r in recs] == weeks
    assert [r.timestamp_ms for r in recs] == [utc_midnight_ms(w) for w in weeks]
    assert [r.notes["rows"] for r in recs] == [200, 200, 200]


def test_backfill_refuses_two_entries_with_one_batch_id(tmp_path, capsys):
    root = tmp_path / "parts"
    write_bytes(root / "2024-01-01.csv", b"a\n1\n")
    write_bytes(root / "2024-01-01.tsv", b"a\n2\n")
    write_bytes(root / "2024-01-02.csv", b"a\n3\n")
    code = main(["history", "backfill", "--repo", str(tmp_path / "repo"), "--dataset", "d", str(root), "--quiet"])
    assert code == 2
    captured = capsys.readouterr()
    err = json.loads(captured.err.strip().splitlines()[-1])["error"]
    assert "2024-01-01.csv" in err and "2024-01-01.tsv" in err
    assert captured.out == ""
    assert BatchHistory(str(tmp_path / "repo"), "d").records(None) == []


# ------------------------------------------------------------------ issue features only when recorded


def test_issue_features_only_for_batches_recorded_as_accepted(tmp_path, batches):
    root = tmp_path / "parts"
    ids = write_partitions(root, batches[:6])
    history = BatchHistory(str(tmp_path / "repo"), "orders")
    parts, _ = list_partitions(str(root))
    backfill(history, parts, read_frame)
    clean = history.records(light=True)
    assert len(clean) == 6 >= MIN_HISTORY and clean[-1].issue_features

    batches[6].to_csv(tmp_path / "d6.csv", index=False)
    frame = read_frame(str(tmp_path / "d6.csv"))
    assert profile(frame, "p", clean[-1], issues=False).issue_features == {}
    assert set(profile(frame, "p", clean[-1], issues=True).issue_features) == set(frame.columns)

    # schema and AVH only: kNN novelty on six batches flags a clean one about once in seven (the new score
    # must beat the largest of six leave-one-out scores), which is not what this test is about
    # AVH armed at this history's 6 batches (the default waits for 10: lakeindex.validation.policy)
    validator = BatchValidator([SchemaSignal(), AVHSignal()], {"avh": SignalPolicy("error", 3)})
    # checked only: neither the record nor the history gets issue features
    new = profile(frame, "d6", clean[-1], issues=False)
    report = validator.validate(history, new, clean, record=False)
    assert report["verdict"] == "passed" and "recorded_as" not in report
    assert new.issue_features == {}
    report = validator.validate_frame(frame, history, "d6", record=False)
    assert report["verdict"] == "passed" and "recorded_as" not in report
    assert history.find("d6") is None
    # recorded and passing: stored with them
    report = validator.validate_frame(frame, history, "d6", record=True)
    assert report["verdict"] == "passed" and report["recorded_as"] == "accepted"
    stored = history.find("d6")
    assert stored.status == "accepted" and set(stored.issue_features) == set(frame.columns)

    # a heavily corrupted batch is flagged and stored without them
    bad = batches[7].copy()
    bad["amount"] = bad["amount"] * 1000
    bad.to_csv(tmp_path / "d7.csv", index=False)
    report = validator.validate_frame(read_frame(str(tmp_path / "d7.csv")), history, "d7", record=True)
    assert report["verdict"] == "flagged" and report["recorded_as"] == "flagged"
    assert "avh" in report["failing_signals"]
    stored = history.find("d7")
    assert stored.status == "flagged" and stored.issue_features == {}
    assert [r.batch_id for r in history.records(light=True)] == [*ids, "d6"]

    # accepted later: AVH learns with the previous batch's issue features, no column skipped for lack of them
    history.set_status("d7", "accepted")
    recs = history.records(light=True)
    assert [r.batch_id for r in recs] == [*ids, "d6", "d7"]
    assert recs[-1].issue_features == {}
    programs = learn_dataset_programs(recs)
    assert not any("synthetic-issue" in reason for reason in programs.skipped.values()), programs.skipped
    assert "amount" in programs.programs
    assert set(programs.programs) | set(programs.skipped) == set(frame.columns)


# ------------------------------------------------------------------- backfill through Spark, in runs


def test_spark_runs_record_what_one_by_one_records(spark, tmp_path, batches):
    """Seven partition files read by Spark, in runs of three scanned together, with a column added from the
    fifth on (a new run starts at a schema change): the same records as pandas `history add` one by one."""
    root = tmp_path / "parts"
    frames = [b.head(300).copy() for b in batches[:7]]
    for f in frames[4:]:
        f["channel"] = np.where(np.arange(len(f)) % 3 == 0, "web", "store")
    ids = write_partitions(root, frames)
    parts, _ = list_partitions(str(root))
    history = BatchHistory(str(tmp_path / "repo"), "orders")
    together: list[int] = []

    def read_together(paths: list[str]):
        together.append(len(paths))
        return read_dataset(spark, paths, infer_schema=False)

    out = backfill(history, parts, lambda p: read_dataset(spark, p, infer_schema=False), read_together=read_together,
                   run_size=3)
    assert together == [3, 3]  # partitions 1-3 and 5-7; the 4th alone (the 5th has another schema)
    assert out["recorded"] == ids and out["engines"] == {"local": 0, "spark": 7}
    reference = BatchHistory(str(tmp_path / "ref"), "orders")
    for k, batch_id in enumerate(ids):
        reference.add(read_frame(str(root / f"{batch_id}.tsv")), batch_id, timestamp_ms=utc_midnight_ms(batch_id),
                      issues=k == len(ids) - 1)
    ref = {r.batch_id: r for r in reference.records(None)}
    got = {r.batch_id: r for r in history.records(None)}
    assert list(got) == ids
    for batch_id in ids:  # float sums (and what derives from them) equal up to summation order
        g, r = got[batch_id], ref[batch_id]
        assert g.summaries.keys() == r.summaries.keys()
        for c in r.summaries:
            assert_same_summary(r.summaries[c], g.summaries[c], c)
        assert _floats_match(g.features, r.features, **SUMMATION_ORDER), batch_id
        assert _floats_match(g.novelty, r.novelty, **SUMMATION_ORDER), batch_id
        assert g.value_samples == r.value_samples, batch_id
    assert "channel" in got[ids[4]].summaries and "channel" not in got[ids[3]].summaries
    assert _floats_match(got[ids[-1]].issue_features, ref[ids[-1]].issue_features, **SUMMATION_ORDER)
    assert [r.batch_id for r in history.records(None) if r.issue_features] == [ids[-1]]


def test_spark_run_stops_at_an_empty_partition(spark, tmp_path, batches):
    root = tmp_path / "parts"
    ids = write_partitions(root, [batches[0].head(100), batches[1].head(100), batches[2].head(0),
                                  batches[3].head(100)])
    parts, _ = list_partitions(str(root))
    history = BatchHistory(str(tmp_path / "repo"), "orders")
    with pytest.raises(EmptyBatch, match=ids[2]):
        backfill(history, parts, lambda p: read_dataset(spark, p, infer_schema=False),
                 read_together=lambda paths: read_dataset(spark, paths, infer_schema=False))
    assert [r.batch_id for r in history.records(None)] == ids[:2]
    history.claim(ids[2])  # not left claimed: it can be claimed again
    history.unclaim(ids[2])


def test_spark_run_tells_batches_apart_by_awkward_file_names(spark, tmp_path, batches):
    """Spaces, '=', '+', '%', brackets and non-ASCII in partition file names: each row still goes to its
    own batch (row counts as pandas reads each file), and a bracketed name is read literally, not as a glob."""
    root = tmp_path / "odd parts"
    names = ["2024-01-01 a=b+c%20", "2024-01-02 [x]", "2024-01-03 é"]
    root.mkdir()
    for name, frame in zip(names, batches[:3], strict=True):
        frame.head(120 + len(name)).to_csv(root / f"{name}.csv", index=False)
    parts, _ = list_partitions(str(root))
    calls: list[int] = []

    def read_together(paths: list[str]):
        calls.append(len(paths))
        return read_dataset(spark, paths, infer_schema=False)

    history = BatchHistory(str(tmp_path / "repo"), "odd")
    out = backfill(history, parts, lambda p: read_dataset(spark, p, infer_schema=False), read_together=read_together)
    assert out["recorded"] == names and calls == [3]
    expected = [len(pd.read_csv(root / f"{n}.csv")) for n in names]
    assert expected == [120 + len(n) for n in names]
    assert [r.notes["rows"] for r in history.records(None)] == expected
