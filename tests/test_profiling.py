"""ColumnProfiler: hand-computed profile values, and at most three Spark passes whatever the column count."""

from __future__ import annotations

import json
import math
import uuid
from typing import TYPE_CHECKING

import pytest

from lakeindex.profiling import ColumnProfiler, DatasetProfile

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

SCHEMA = ("id string, amount string, frac string, score int, ctrl int, flag string, cat string, outl string, "
          "partial string, empty string")


def fixture_rows() -> list[tuple]:
    """40 rows: a unique id, numeric strings, typed ints, booleans, categoricals, nulls, unicode, an all-null column."""
    rows = []
    for i in range(40):
        rows.append((
            f"u{i:02d}",                                    # id: unique strings
            ["12", "3.5", "0", "7"][i % 4],                 # amount: Integral and Fractional strings, min 0
            f"{i}.5",                                       # frac: only Fractional, unique, min 0.5
            i - 10,                                         # score: typed int, negatives, unique
            i % 2,                                          # ctrl: typed int, categorical 0/1
            "true" if i % 2 == 0 else "FALSE",              # flag: booleans in any case
            "red" if i < 20 else "green" if i < 32 else "blue",          # cat: 20/12/8
            "a" if i < 20 else "b" if i < 32 else "c" if i < 39 else "zz",  # outl: one rare outlier
            None if i % 10 == 0 else ["é", "日本", "😀"][i % 3],           # partial: 36 present, unicode
            None,                                           # empty: all null
        ))
    return rows


_SHARED: dict[str, object] = {}


def shared_data(spark) -> tuple[DataFrame, DatasetProfile]:
    """The fixture DataFrame and its default profile, computed once per test session (test_suggestions uses it)."""
    if "df" not in _SHARED:
        # cached: a DataFrame made from a Python list re-runs Python tasks on every pass otherwise
        _SHARED["df"] = spark.createDataFrame(fixture_rows(), SCHEMA).cache()
        _SHARED["df"].count()
        _SHARED["profile"] = ColumnProfiler().profile(_SHARED["df"])
    return _SHARED["df"], _SHARED["profile"]


@pytest.fixture(scope="module")
def df(spark) -> DataFrame:
    return shared_data(spark)[0]


@pytest.fixture(scope="module")
def profile(spark) -> DatasetProfile:
    return shared_data(spark)[1]


def spark_jobs(spark, fn) -> tuple[object, int]:
    """Run ``fn`` in a fresh job group and return its result and the number of Spark jobs it ran."""
    sc = spark.sparkContext
    group = f"profile-{uuid.uuid4().hex}"
    sc.setJobGroup(group, "count the profiler's jobs")
    try:
        result = fn()
    finally:
        sc.setLocalProperty("spark.jobGroup.id", None)
    return result, len(sc.statusTracker().getJobIdsForGroup(group))


def test_pass_one_sizes_completeness_distinct_and_types(profile):
    assert profile.num_records == 40 and profile.passes == 3
    assert list(profile.columns) == ["id", "amount", "frac", "score", "ctrl", "flag", "cat", "outl", "partial",
                                     "empty"]
    ident = profile["id"]
    assert (ident.data_type, ident.is_data_type_inferred, ident.completeness) == ("String", True, 1.0)
    assert ident.approx_distinct == 40 and 0 < ident.approx_distinct_error < 0.05
    assert (ident.min_length, ident.max_length) == (3, 3)
    amount = profile["amount"]
    assert amount.data_type == "Fractional" and amount.is_data_type_inferred
    assert amount.type_counts["Integral"] == 30 and amount.type_counts["Fractional"] == 10
    assert amount.type_counts["String"] == 0 and amount.type_counts["Unknown"] == 0
    assert profile["frac"].data_type == "Fractional" and profile["frac"].type_counts["Fractional"] == 40
    assert profile["flag"].data_type == "Boolean" and profile["flag"].type_counts["Boolean"] == 40
    assert profile["cat"].data_type == "String"
    score = profile["score"]
    assert (score.spark_type, score.data_type, score.is_data_type_inferred) == ("int", "Integral", False)
    assert score.min_length is None  # lengths only for string columns
    partial = profile["partial"]
    assert partial.completeness == pytest.approx(0.9) and partial.num_non_null == 36
    assert (partial.min_length, partial.max_length) == (1, 2)  # "é", "😀" are one character, "日本" two
    empty = profile["empty"]
    assert (empty.completeness, empty.num_non_null, empty.approx_distinct) == (0.0, 0, 0)
    assert empty.data_type == "Unknown" and empty.type_counts["Unknown"] == 40
    assert empty.numeric is None and empty.histogram == {} and empty.min_length is None


def test_pass_two_numeric_statistics(profile):
    amount = profile["amount"].numeric  # 12, 3.5, 0, 7 ten times each, parsed with try_cast
    assert (amount.minimum, amount.maximum, amount.sum) == (0.0, 12.0, 225.0)
    assert amount.mean == pytest.approx(5.625)
    assert amount.std_dev == pytest.approx(math.sqrt((6.375**2 + 2.125**2 + 5.625**2 + 1.375**2) / 4))
    score = profile["score"].numeric  # -10 .. 29
    assert (score.minimum, score.maximum, score.sum, score.mean) == (-10.0, 29.0, 380.0, 9.5)
    assert score.std_dev == pytest.approx(math.sqrt((40**2 - 1) / 12))  # population sd of 40 consecutive ints
    qs = score.quantiles
    assert list(qs) == ["0.01", "0.05", "0.1", "0.25", "0.5", "0.75", "0.9", "0.95", "0.99"]
    assert list(qs.values()) == sorted(qs.values()) and 8 <= qs["0.5"] <= 11 and -1 <= qs["0.25"] <= 1
    assert profile["frac"].numeric.minimum == 0.5
    for name in ("id", "flag", "cat", "outl", "partial", "empty"):
        assert profile[name].numeric is None, name


def test_pass_three_histograms_of_low_cardinality_columns(profile):
    assert profile["cat"].histogram == {"red": 20, "green": 12, "blue": 8}
    assert profile["outl"].histogram == {"a": 20, "b": 12, "c": 7, "zz": 1}
    assert profile["amount"].histogram == {"12": 10, "3.5": 10, "0": 10, "7": 10}
    assert profile["ctrl"].histogram == {"0": 20, "1": 20}
    assert profile["flag"].histogram == {"true": 20, "FALSE": 20}
    assert profile["partial"].histogram == {"é": 12, "日本": 12, "😀": 12}  # nulls are not a histogram entry
    assert len(profile["id"].histogram) == 40 and set(profile["id"].histogram.values()) == {1}


def test_to_dict_is_json_with_ratios_and_histograms(profile):
    doc = json.loads(json.dumps(profile.to_dict(), ensure_ascii=False))
    assert doc["num_records"] == 40 and doc["passes"] == 3 and doc["low_cardinality_threshold"] == 120
    cols = {c["column"]: c for c in doc["columns"]}
    assert cols["partial"]["completeness"] == pytest.approx(0.9)
    assert cols["partial"]["type_counts"]["Unknown"] == {"absolute": 4, "ratio": 0.1}
    assert cols["partial"]["histogram"]["日本"] == {"absolute": 12, "ratio": pytest.approx(1 / 3)}
    assert list(cols["cat"]["histogram"]) == ["red", "green", "blue"]  # most frequent first
    assert cols["cat"]["histogram"]["blue"] == {"absolute": 8, "ratio": 0.2}
    assert cols["score"]["numeric"]["minimum"] == -10.0 and "0.5" in cols["score"]["numeric"]["approx_quantiles"]
    assert cols["empty"]["numeric"] is None and cols["empty"]["histogram"] == {}


def test_threshold_limits_histograms_and_safety_limit_drops_incomplete_ones(df):
    p = ColumnProfiler(low_cardinality_threshold=5, columns=["id", "cat", "outl"], histogram_limit=3).profile(df)
    assert p.passes == 2  # no numeric column among the selected ones
    assert p["id"].histogram is None and "above the low-cardinality threshold 5" in p["id"].histogram_note
    assert p["cat"].histogram == {"red": 20, "green": 12, "blue": 8}
    # outl's 4 distinct values pass the threshold but not the safety limit: no incomplete histogram
    assert p["outl"].histogram is None and "more than 3 distinct values" in p["outl"].histogram_note


def test_unknown_columns_are_rejected(df):
    with pytest.raises(ValueError, match="nope"):
        ColumnProfiler(columns=["id", "nope"]).profile(df)


def test_empty_data_needs_one_pass(df):
    p = ColumnProfiler().profile(df.limit(0))
    assert p.num_records == 0 and p.passes == 1
    assert all(c.completeness is None and c.numeric is None for c in p)


def _frame(spark, copies: int):
    kinds = ("string", "string", "int")  # numeric low-cardinality strings, high-cardinality strings, typed ints
    names = [f"k{k}_{c}" for c in range(copies) for k in range(3)]
    rows = [tuple(v for _ in range(copies) for v in (str(i % 5), f"v{i}", i)) for i in range(60)]
    schema = ", ".join(f"{n} {kinds[int(n[1])]}" for n in names)
    df = spark.createDataFrame(rows, schema).cache()
    df.count()
    return df


def test_number_of_spark_jobs_does_not_grow_with_the_columns(spark):
    narrow, wide = _frame(spark, 1), _frame(spark, 4)
    assert len(narrow.columns) == 3 and len(wide.columns) == 12
    p3, jobs3 = spark_jobs(spark, lambda: ColumnProfiler().profile(narrow))
    p12, jobs12 = spark_jobs(spark, lambda: ColumnProfiler().profile(wide))
    assert p3.passes == p12.passes == 3
    assert jobs3 == jobs12 > 0
    assert p12["k0_3"].data_type == "Integral" and p12["k0_3"].numeric.maximum == 4.0
    assert p12["k1_3"].histogram == {f"v{i}": 1 for i in range(60)} and p12["k2_3"].numeric.sum == sum(range(60))
