"""Deequ's KLLSketch analyzer and kll_sketch_satisfies constraint (lakeindex/metrics/kll_distribution.py).

Expected values come from a brute-force numpy oracle of Deequ's bucket rule (on data with fewer values than
the sketch's k, where a KLL sketch keeps every value and its counts are exact), from Deequ's and PyDeequ's own
tests (cited at each use), or from hand computations in the comments; never from the code under test.
"""

from __future__ import annotations

import json
import math

import datasketches as ds
import numpy as np
import pytest

from lakeindex.checks import Check, ChecksFileError, VerificationSuite, checks_from_dict
from lakeindex.checks.checks_file import analyzer_from_dict
from lakeindex.metrics import (
    AnalysisRunner,
    ApproxQuantile,
    BucketDistribution,
    BucketValue,
    FileSystemStateStore,
    KLLParameters,
    KLLSketch,
    Maximum,
    Mean,
    Metric,
    Minimum,
    run_analysis,
)
from lakeindex.metrics.sketching import kll_k
from tests.test_metrics import count_jobs, error, value

SCHEMA = "id int, x double, i int, c double, n double, s string, g string"
NAN = float("nan")
ROWS = [
    # x: negatives, duplicates, a null and a NaN (skipped like nulls); i: integers; c: constant; n: all null
    (1, -3.5, 10, 5.0, None, "a", "p"),
    (2, 0.0, 20, 5.0, None, "b", "q"),
    (3, 2.25, 10, 5.0, None, "c", "p"),
    (4, 2.25, 40, None, None, "a", "q"),
    (5, None, 30, 5.0, None, "b", "p"),
    (6, 7.0, 10, 5.0, None, "c", "q"),
    (7, 10.0, None, 5.0, None, "a", "p"),
    (8, NAN, 0, 5.0, None, "b", "q"),
    (9, -1.0, 100, 5.0, None, "c", "p"),
    (10, 3.0, 55, 5.0, None, "a", "q"),
]


def oracle(values: list[float | None], number_of_buckets: int) -> list[tuple[float, float, int]]:
    """Deequ's KLLSketch.computeMetricFrom on exact data, by brute force: bucket i is [e_i, e_{i+1}) with
    e_i = min + (max - min) * i / b, the last bucket closed and ending at the maximum; nulls and NaN left out."""
    v = np.array([x for x in values if x is not None and not math.isnan(x)], dtype=float)
    lo, hi, b = float(v.min()), float(v.max()), number_of_buckets
    out = []
    for i in range(b):
        low = lo + (hi - lo) * i / b
        high = hi if i == b - 1 else lo + (hi - lo) * (i + 1) / b
        inside = (v >= low) & ((v <= high) if i == b - 1 else (v < high))
        out.append((low, high, int(inside.sum())))
    return out


def triples(metric_value: dict) -> list[tuple[float, float, int]]:
    return [(b["low_value"], b["high_value"], b["count"]) for b in metric_value["buckets"]]


def col_values(name: str, where=lambda r: True) -> list:
    idx = SCHEMA.replace(",", "").split()[::2].index(name)
    return [r[idx] for r in ROWS if where(r)]


ORACLE_CASES = [("x", 1), ("x", 2), ("x", 3), ("x", 7), ("x", 10), ("x", 100), ("i", 4), ("i", 11), ("id", 9)]
WHERE = "g = 'p'"


@pytest.fixture(scope="module")
def df(spark):
    return spark.createDataFrame(ROWS, SCHEMA)


@pytest.fixture(scope="module")
def ctx(df):
    """One shared scan for every value test on the fixture."""
    analyzers = [KLLSketch(c, KLLParameters(number_of_buckets=b)) for c, b in ORACLE_CASES]
    analyzers += [KLLSketch("x", where=WHERE), KLLSketch("c", KLLParameters(number_of_buckets=4)), KLLSketch("n"),
                  KLLSketch("s"), KLLSketch("nope"), KLLSketch("x", where="x > 1000"),
                  KLLSketch("x", KLLParameters(sketch_size=2, number_of_buckets=2))]
    return run_analysis(df, analyzers)


@pytest.mark.parametrize(("column", "buckets"), ORACLE_CASES)
def test_bucket_counts_match_the_brute_force_oracle(ctx, column, buckets):
    got = value(ctx, KLLSketch(column, KLLParameters(number_of_buckets=buckets)))
    assert triples(got) == oracle(col_values(column), buckets)
    assert len(got["buckets"]) == buckets


def test_oracle_is_not_vacuous():
    # hand check of the oracle itself: x without null/NaN is -3.5 0 2.25 2.25 7 10 -1 3 (8 values), range 13.5;
    # 3 buckets cut at -3.5 + 4.5 = 1.0 and -3.5 + 9 = 5.5: [-3.5, 1) holds -3.5 -1 0, [1, 5.5) holds 2.25 2.25 3,
    # [5.5, 10] holds 7 10
    assert oracle(col_values("x"), 3) == [(-3.5, 1.0, 3), (1.0, 5.5, 3), (5.5, 10.0, 2)]


def test_values_on_bucket_edges(spark):
    # 0..10 in 10 buckets: every edge 0 + 10 * i / 10 = i is a value; [i, i+1) holds i and the closed last
    # bucket [9, 10] holds 9 and 10 (hand count)
    df = spark.createDataFrame([(float(v),) for v in range(11)], "v double")
    a = KLLSketch("v", KLLParameters(number_of_buckets=10))
    got = value(run_analysis(df, [a]), a)
    assert triples(got) == [(float(i), float(i + 1), 2 if i == 9 else 1) for i in range(10)]


def test_last_bucket_ends_at_the_maximum(spark):
    # values -2.0 and -1.3 in 3 buckets: Deequ's last high edge, -2 + 0.7 * 3 / 3 in doubles, rounds below -1.3, so
    # its closed last bucket misses the maximum and its counts add up to 1; ours ends at -1.3 and holds it
    assert -2.0 + (-1.3 - -2.0) * 3 / 3 < -1.3
    df = spark.createDataFrame([(-2.0,), (-1.3,)], "v double")
    a = KLLSketch("v", KLLParameters(number_of_buckets=3))
    got = triples(value(run_analysis(df, [a]), a))
    assert [c for _, _, c in got] == [1, 0, 1] and got[-1][1] == -1.3


def test_where_filter(ctx):
    got = value(ctx, KLLSketch("x", where=WHERE))
    assert triples(got) == oracle(col_values("x", lambda r: r[6] == "p"), 100)
    # by hand: g = 'p' keeps x = -3.5, 2.25, null, 10, -1: four values, so the counts sum to 4
    assert sum(b["count"] for b in got["buckets"]) == 4


def test_deequ_column_profiler_expectation(spark):
    """Deequ's ColumnProfilerTest, "return correct NumericColumnProfiles for numeric String DataType columns when
    kllProfiling enabled" (awslabs/deequ src/test/scala/com/amazon/deequ/profiles/ColumnProfilerTest.scala):
    values 1..6 with the default KLLParameters give 100 buckets of width 0.05 from BucketValue(1.0, 1.05, 1) to
    BucketValue(5.95, 6.0, 1), a count of 1 in the buckets starting at 1.0, 2.0, 3.0, 4.0, 5.0 and in the last,
    parameters List(0.64, 2048.0) and data Array(Array(1.0, 2.0, 3.0, 4.0, 5.0, 6.0))."""
    df = spark.createDataFrame([(v,) for v in range(1, 7)], "item int")
    a = KLLSketch("item")
    got = value(run_analysis(df, [a]), a)
    # Deequ's literals: low = 1.0 + 0.05 i, high = 1.0 + 0.05 (i + 1), each the double nearest the decimal
    expected = [(round(1 + 0.05 * i, 2), round(1 + 0.05 * (i + 1), 2), 1 if i in (0, 20, 40, 60, 80, 99) else 0)
                for i in range(100)]
    assert triples(got) == expected
    assert got["parameters"][:2] == [0.64, 2048.0]
    assert got["data"] == [[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]]


def test_pydeequ_kll_sketch_satisfies_expectation(spark):
    """PyDeequ's test_kllSketchSatisfies (awslabs/python-deequ tests/test_checks.py): column b = 1, 2, 3 with
    KLLParameters(2, 0.64, 2) has bucket 0 = (1.0, 2.0, 1) and bucket 1 = (2.0, 3.0, 2): Success."""
    df = spark.createDataFrame([(1,), (2,), (3,)], "b long")

    def assertion(d: BucketDistribution) -> bool:
        v0 = (d[0].low_value, d[0].high_value, d[0].count)
        v1 = (d[1].low_value, d[1].high_value, d[1].count)
        return v0 == (1.0, 2.0, 1) and v1 == (2.0, 3.0, 2)

    check = Check("warning", "test kllSketchSatisfies").kll_sketch_satisfies("b", assertion, KLLParameters(2, 0.64, 2))
    result = VerificationSuite().on_data(df).add_check(check).run()
    assert [r.status for r in result.check_results[0].constraint_results] == ["Success"]


def test_tiny_sketch_size_is_served_exactly(ctx):
    # Deequ's KLLProfileTest ("return KLL Sketches for ShortType columns") sketches 1..6 with KLLParameters(2,
    # 0.64, 2) and gets BucketValue(1.0, 3.5, 4), BucketValue(3.5, 6.0, 2): its size-2 sketch has compacted. Ours
    # clamps k to 8, which keeps our 8 values, so the counts are exact (by hand: cut at -3.5 + 13.5 / 2 = 3.25,
    # [-3.5, 3.25) holds -3.5 0 2.25 2.25 -1 3, [3.25, 10] holds 7 10); the parameters report what was asked,
    # in Deequ's order [shrinking_factor, sketch_size] (its List(0.64, 2.0))
    m = ctx.metric(KLLSketch("x", KLLParameters(sketch_size=2, number_of_buckets=2)))
    assert m.ok, m.error
    assert triples(m.value) == [(-3.5, 3.25, 6), (3.25, 10.0, 2)]
    assert m.value["parameters"] == [0.64, 2.0, 2.0]
    assert m.extra["k"] == 8


def test_constant_column(ctx):
    # Deequ's rule with min = max = 5: every edge is 5, buckets 0..2 are [5, 5) and empty, the closed last bucket
    # [5, 5] holds the 9 non-null values of c
    got = value(ctx, KLLSketch("c", KLLParameters(number_of_buckets=4)))
    assert triples(got) == [(5.0, 5.0, 0)] * 3 + [(5.0, 5.0, 9)]


def test_no_values_fail_the_metric(ctx, spark):
    # Deequ reports buckets between Int.MaxValue and Int.MinValue holding 0 (its initial min/max); we fail
    assert "no non-null values" in error(ctx, KLLSketch("n"))
    assert "no non-null values" in error(ctx, KLLSketch("x", where="x > 1000"))
    empty = spark.createDataFrame([], "x double")
    assert "no non-null values" in error(run_analysis(empty, [KLLSketch("x")]), KLLSketch("x"))


def test_non_numeric_and_missing_columns_fail(ctx):
    msg = error(ctx, KLLSketch("s"))
    assert "'s'" in msg and "string" in msg and "numeric" in msg
    assert "'nope' does not exist" in error(ctx, KLLSketch("nope"))


def test_infinite_values_fail_with_a_hint(spark):
    df = spark.createDataFrame([(1.0,), (float("inf"),), (3.0,)], "x double")
    a = KLLSketch("x")
    msg = error(run_analysis(df, [a]), a)
    assert "infinite" in msg and "where=" in msg
    # the hinted filter works: it leaves 1 and 3 (hand count: 2 buckets, 1 each)
    hinted = KLLSketch("x", KLLParameters(number_of_buckets=2), where="abs(`x`) < double('Infinity')")
    assert triples(value(run_analysis(df, [hinted]), hinted)) == [(1.0, 2.0, 1), (2.0, 3.0, 1)]


def test_incremental_states_merge(spark, tmp_path):
    rows = [(float(v),) for v in [4.0, -2.0, 9.5, 4.0, 0.25, 7.0, 3.0, 3.0, -2.0, 11.0, 6.5, 1.0]]
    first, second = spark.createDataFrame(rows[:5], "x double"), spark.createDataFrame(rows[5:], "x double")
    a = KLLSketch("x", KLLParameters(number_of_buckets=6))
    store = FileSystemStateStore(tmp_path / "s1")
    part = AnalysisRunner.on_data(first).add_analyzer(a).save_states_with(store).run()
    merged = AnalysisRunner.on_data(second).add_analyzer(a).aggregate_with(store).run()
    assert triples(value(part, a)) == oracle([r[0] for r in rows[:5]], 6)
    assert triples(value(merged, a)) == oracle([r[0] for r in rows], 6)
    # the union's extremes (-2 and 11) are in different deltas: the merged range is the union's
    assert value(merged, a)["buckets"][0]["low_value"] == -2.0 and value(merged, a)["buckets"][-1]["high_value"] == 11


def test_approximate_counts_beyond_k(spark):
    # 20,000 values and k = 64: the sketch compacts. Its weights still add up to n exactly, and each bucket count
    # (a difference of two ranks) is within the PMF error of the exact count; the bound is DataSketches' own
    # normalised PMF error for k = 64 (99% confidence), tripled so the test is not flaky
    rng = np.random.default_rng(7)
    data = rng.normal(0.0, 1.0, 20_000)
    df = spark.createDataFrame([(float(v),) for v in data], "x double")
    a = KLLSketch("x", KLLParameters(sketch_size=64, number_of_buckets=10))
    got = value(run_analysis(df, [a]), a)
    exact = oracle(list(data), 10)
    eps = ds.kll_doubles_sketch.get_normalized_rank_error(64, True)
    assert sum(b["count"] for b in got["buckets"]) == len(data)
    assert [(lo, hi) for lo, hi, _ in triples(got)] == [(lo, hi) for lo, hi, _ in exact]  # min/max stay exact
    for (_, _, c), (_, _, e) in zip(triples(got), exact, strict=True):
        assert abs(c - e) <= 3 * eps * len(data), (c, e)
    # the data are the retained values by level, level i weighing 2^i: together they weigh n
    assert sum(len(level) << i for i, level in enumerate(got["data"])) == len(data)


def test_kll_runs_in_the_shared_scan(spark, df):
    others = [Mean("x"), Maximum("i"), Minimum("c"), ApproxQuantile("x", 0.5)]
    without, _ = count_jobs(spark, df, others)
    with_kll, _ = count_jobs(spark, df, [*others, KLLSketch("x"), KLLSketch("i", where=WHERE)])
    assert with_kll == without, f"KLLSketch added jobs: {with_kll} vs {without}"
    # with an equal k, KLLSketch and ApproxQuantile need the very same sketch: one aggregate serves both
    same_k = KLLSketch("x", KLLParameters(sketch_size=kll_k(0.01)))
    assert same_k.aggregations().keys() == ApproxQuantile("x", 0.5).aggregations().keys()


def test_kll_sketch_satisfies_pass_and_fail(df):
    # x (without null/NaN): -3.5 0 2.25 2.25 7 10 -1 3; 3 buckets (hand, see test_oracle_is_not_vacuous) hold 3 3 2:
    # argmax is the first bucket with the largest count, 0 (Deequ's argmax)
    three = KLLParameters(number_of_buckets=3)
    check = (Check("error", "kll")
             .kll_sketch_satisfies("x", lambda d: d.argmax() == 0 and len(d) == 3 and d[2].count == 2, three)
             .kll_sketch_satisfies("x", lambda d: d[0].count > 5, three, where="id > 0")
             # a ported Deequ assertion reads the sketch size at parameters[1] (KLLCheckExample: >= 16)
             .kll_sketch_satisfies("x", lambda d: d.parameters[1] >= 16)
             .kll_sketch_satisfies("x", lambda d: d.parameters[1] >= 16, KLLParameters(2, 0.64, 2))
             .kll_sketch_satisfies("x", lambda d: False, where="x > 1000"))  # nothing selected: passes (Deequ)
    result = VerificationSuite().on_data(df).add_check(check).run()
    statuses = [r.status for r in result.check_results[0].constraint_results]
    assert statuses == ["Success", "Failure", "Success", "Failure", "Success"]
    failed = result.check_results[0].constraint_results[1]
    # the failure message shows a summary, not the thousands of retained values
    assert "BucketDistribution(3 buckets" in failed.message and "counts=[3, 3, 2]" in failed.message
    assert result.status == "Error"


def test_bucket_distribution_helpers_by_hand():
    d = BucketDistribution((BucketValue(0, 1, 0), BucketValue(1, 2, 3), BucketValue(2, 3, 1), BucketValue(3, 4, 3)),
                           (0.64, 2048.0, 4.0))
    assert d.argmax() == 1  # the first of the two largest counts, as Deequ's (it keeps a strictly larger one)
    assert len(d) == 4 and d[3] == BucketValue(3, 4, 3) and d[-1].count == 3 and [b.count for b in d] == [0, 3, 1, 3]
    assert (d.shrinking_factor, d.sketch_size, d.total) == (0.64, 2048, 7)
    zeros = BucketDistribution((BucketValue(0, 1, 0), BucketValue(1, 2, 0)), (0.64, 2048.0))
    assert zeros.argmax() == 0


def test_compute_percentiles_by_hand():
    # Deequ's QuantileNonSample.quantiles(100) on 1..6, all of weight 1 (W = 6): percentile j is the item after
    # the walk's weight reaches floor(6j / 100): 0 for j <= 16 (-> 1), 1 for j = 17..33 (-> 2), 2 for 34..49
    # (-> 3), 3 for 50..66 (-> 4), 4 for 67..83 (-> 5), 5 for 84..99 (-> 6)
    d = BucketDistribution((), (0.64, 2048.0), ((1.0, 2.0, 3.0, 4.0, 5.0, 6.0),))
    assert d.compute_percentiles() == [1.0] * 16 + [2.0] * 17 + [3.0] * 16 + [4.0] * 17 + [5.0] * 17 + [6.0] * 16
    # levels weigh 2^i: 5 (weight 1), 1 and 3 (weight 2): sorted 1 3 5 with weights 2 2 1, W = 5; thresholds
    # floor(5j / 100): 0 for j < 20 (-> 1), 1..2 for j = 20..59 (-> 3), 3..4 for j = 60..99 (-> 5)
    weighted = BucketDistribution((), (0.64, 2.0), ((5.0,), (1.0, 3.0)))
    assert weighted.compute_percentiles() == [1.0] * 19 + [3.0] * 40 + [5.0] * 40
    # a heavy last value: 1 (weight 1) and 2 (weight 4, level 2). Deequ's loop stops at j = 40 and leaves
    # j = 41..99 at the smallest value 1.0 (non-monotone); ours continue with 2.0
    heavy = BucketDistribution((), (0.64, 2.0), ((1.0,), (), (2.0,)))
    assert heavy.compute_percentiles() == [1.0] * 19 + [2.0] * 80
    assert BucketDistribution((), (0.64, 2048.0)).compute_percentiles() == []  # Deequ: Array.empty


def test_metric_is_json_and_round_trips(ctx):
    m = ctx.metric(KLLSketch("x", KLLParameters(number_of_buckets=3)))
    back = Metric.from_dict(json.loads(json.dumps(m.to_dict())))
    d = BucketDistribution.from_value(back.value)
    assert [(b.low_value, b.high_value, b.count) for b in d] == oracle(col_values("x"), 3)
    assert d.parameters == (0.64, 2048.0, 3.0)
    assert d.data == ((-3.5, -1.0, 0.0, 2.25, 2.25, 3.0, 7.0, 10.0),)  # every value, sorted, at level 0


def test_spec_is_stable_and_canonical():
    assert KLLSketch("x").spec() == ("KLLSketch(column='x', kll_parameters=KLLParameters(sketch_size=2048, "
                                     "shrinking_factor=0.64, number_of_buckets=100), where=None)")
    assert KLLSketch("x") == KLLSketch("x", KLLParameters()) == KLLSketch("x", {"sketch_size": 2048})
    one = KLLSketch("x", KLLParameters(shrinking_factor=1))
    assert one.spec() == KLLSketch("x", KLLParameters(1 << 11, 1.0)).spec()
    assert KLLSketch("x", where="g = 'p'").spec().endswith("where=\"g = 'p'\")")
    assert KLLSketch("x", KLLParameters(number_of_buckets=5)) != KLLSketch("x")


@pytest.mark.parametrize("bad", [dict(number_of_buckets=101), dict(number_of_buckets=0), dict(sketch_size=0),
                                 dict(sketch_size=2048.0), dict(shrinking_factor=0.0), dict(shrinking_factor=1.5),
                                 dict(shrinking_factor="0.64"), dict(number_of_buckets=True)])
def test_bad_parameters_are_refused_at_construction(bad):
    name = next(iter(bad))
    with pytest.raises(ValueError, match=name):
        KLLParameters(**bad)
    with pytest.raises(ValueError):
        KLLSketch("x", bad)
    with pytest.raises(ValueError, match="kll_parameters"):
        KLLSketch("x", (2048, 0.64, 100))


def test_sketch_size_maps_to_a_spark_k():
    # DataSketches' and Spark's k range is 8..65535 (Spark rejects 7 and 70000 with KLL_SKETCH_K_OUT_OF_RANGE)
    assert [KLLParameters(s).kll_k for s in (1, 2, 8, 2048, 65535, 100_000)] == [8, 8, 8, 2048, 65535, 65535]


def test_checks_files_cannot_carry_the_assertion():
    doc = {"checks": [{"constraints": [{"type": "kll_sketch_satisfies", "column": "x", "assertion": ">= 1"}]}]}
    with pytest.raises(ChecksFileError, match="kll_sketch_satisfies.*callable"):
        checks_from_dict(doc)
    with pytest.raises(ValueError, match="callable"):
        Check().kll_sketch_satisfies("x", "== 1")  # type: ignore[arg-type]
    # the analyzer itself can be named in a checks file (e.g. for has_no_anomalies' analyzer)
    assert analyzer_from_dict({"type": "KLLSketch", "column": "x", "kll_parameters": {"number_of_buckets": 5}}) \
        == KLLSketch("x", KLLParameters(number_of_buckets=5))
