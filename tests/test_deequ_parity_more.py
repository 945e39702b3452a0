"""Deequ parity, part 2: Skewness, Kurtosis, ZerosCount, RatioOfSums, DuplicateRowCount, ColumnCount,
ColumnExists, ExactQuantile, ApproxQuantile's relative_error, and their constraints (also from JSON).

Expected values are computed by hand in the comments or by an independent oracle (scipy.stats with
bias=True, numpy.percentile's linear method, plain Python counting over the fixture rows), never copied
from the code under test. One module-scoped run answers the value tests.
"""

from __future__ import annotations

import json
import math

import datasketches as ds
import numpy as np
import pytest
import scipy.stats

from lakeindex.checks import Check, VerificationSuite, checks_from_dict
from lakeindex.metrics import (
    AnalysisRunner,
    ApproxQuantile,
    ApproxQuantiles,
    ColumnCount,
    ColumnExists,
    Completeness,
    CountDistinct,
    DuplicateRowCount,
    ExactQuantile,
    FileSystemStateStore,
    Kurtosis,
    Mean,
    RatioOfSums,
    Size,
    Skewness,
    StandardDeviation,
    Sum,
    Uniqueness,
    ZerosCount,
    run_analysis,
    run_on_aggregated_states,
)
from lakeindex.metrics.sketching import kll_k
from lakeindex.metrics.states import CentralMoments, ColumnNames, SumPair, state_from_dict
from tests.test_metrics import count_jobs, error, value

SCHEMA = "id int, x double, w double, z int, num double, den double, k string"
ROWS = [
    (1, 0.0, 1.5, 0, 1.0, 2.0, "a"),
    (2, 0.0, -2.0, 5, 2.0, None, "a"),
    (3, 0.0, 7.25, 0, None, 3.0, "b"),
    (4, 4.0, 3.0, None, 4.0, 5.0, "c"),
    (5, None, 0.5, 0, None, None, "c"),
    (6, None, 10.0, 2, 0.0, 0.0, "c"),
]
W = [r[2] for r in ROWS]  # every w is non-null: the oracle's input


@pytest.fixture(scope="module")
def df(spark):
    return spark.createDataFrame(ROWS, SCHEMA)


VALUES = {
    # x = 0, 0, 0, 4 (two nulls): mean 1, deviations -1, -1, -1, 3 -> m2 = 12, m3 = -1-1-1+27 = 24,
    # m4 = 1+1+1+81 = 84; skewness = sqrt(4) * 24 / 12^1.5 = 2/sqrt(3); kurtosis = 4 * 84 / 144 - 3 = -2/3
    Skewness("x"): 2 / math.sqrt(3),
    Kurtosis("x"): -2 / 3,
    Skewness("w"): scipy.stats.skew(W, bias=True),
    Kurtosis("w"): scipy.stats.kurtosis(W, fisher=True, bias=True),
    # w where id <= 3: 1.5, -2, 7.25
    Skewness("w", where="id <= 3"): scipy.stats.skew([1.5, -2.0, 7.25], bias=True),
    # z = 0, 5, 0, null, 0, 2: three zeros
    ZerosCount("z"): 3.0,
    ZerosCount("z", where="id > 2"): 2.0,  # 0, null, 0, 2
    ZerosCount("w"): 0.0,
    # num non-null 1 + 2 + 4 + 0 = 7, den non-null 2 + 3 + 5 + 0 = 10 (each sum skips its own nulls)
    RatioOfSums("num", "den"): 0.7,
    RatioOfSums("num", "den", where="id <= 2"): 3 / 2,  # num 1 + 2, den 2
    # k = a a b c c c: the a's (2) and c's (3) are duplicated rows
    DuplicateRowCount("k"): 5.0,
    # (k, x) = (a,0) (a,0) (b,0) (c,4) (c,null) (c,null): two pairs of duplicates
    DuplicateRowCount(("k", "x")): 4.0,
    DuplicateRowCount("id"): 0.0,
    ColumnCount(): 7.0,
    ColumnExists("w"): 1.0,
    ColumnExists("W"): 0.0,  # exact name, as Deequ's data.columns.contains
    ColumnExists("nope"): 0.0,
    **{ExactQuantile("w", q): float(np.percentile(W, q * 100, method="linear")) for q in (0.0, 0.25, 0.5, 0.9, 1.0)},
    # x = 0, 0, 0, 4: position 0.5 * 3 = 1.5 between 0 and 0 -> 0; 0.9 -> 2.7: 0 + 0.7 * (4 - 0) = 2.8
    ExactQuantile("x", 0.5): 0.0,
    ExactQuantile("x", 0.9): 2.8,
    ExactQuantile("w", 0.5, where="id <= 3"): 1.5,  # median of -2, 1.5, 7.25
}


@pytest.fixture(scope="module")
def ctx(df):
    return run_analysis(df, list(VALUES))


@pytest.mark.parametrize("analyzer", list(VALUES), ids=lambda a: a.spec())
def test_values(ctx, analyzer):
    assert value(ctx, analyzer) == pytest.approx(VALUES[analyzer], rel=1e-12, abs=1e-12)


def test_identities_and_extras(ctx):
    m = ctx.metric(RatioOfSums("num", "den"))
    assert (m.entity, m.instance, m.extra) == ("Multicolumn", "num,den", {"numerator": 7.0, "denominator": 10.0})
    assert ctx.metric(ZerosCount("z")).extra == {"values": 5}  # five non-null z
    assert (ctx.metric(ColumnCount()).entity, ctx.metric(ColumnCount()).instance) == ("Dataset", "*")
    assert (ctx.metric(ColumnExists("w")).entity, ctx.metric(ColumnExists("w")).instance) == ("Dataset", "w")
    assert ctx.metric(DuplicateRowCount(("k", "x"))).entity == "Multicolumn"
    assert ctx.metric(ExactQuantile("w", 0.5)).entity == "Column"


def test_constant_columns_have_no_skew_and_no_excess_kurtosis(spark):
    """Deequ returns 0 when m2 = 0 (scipy gives NaN): a constant column is symmetric and has no tails."""
    d = spark.createDataFrame([(3.0,), (3.0,), (3.0,), (None,)], "c double")
    ctx = run_analysis(d, [Skewness("c"), Kurtosis("c"), Skewness("c", where="c IS NOT NULL AND false")])
    assert value(ctx, Skewness("c")) == 0.0
    assert value(ctx, Kurtosis("c")) == 0.0
    assert "no non-null values" in error(ctx, Skewness("c", where="c IS NOT NULL AND false"))


def test_empty_and_all_null(spark):
    """Over no values: moments, ratios and quantiles fail; counts are 0; the schema is still there."""
    empty = spark.createDataFrame([], "a double, b double, k string")
    nulls = spark.createDataFrame([(None, 1.0, None), (None, 2.0, None)], "a double, b double, k string")
    fail = [Skewness("a"), Kurtosis("a"), RatioOfSums("a", "b"), RatioOfSums("b", "a"), ExactQuantile("a", 0.5)]
    zero = [ZerosCount("a"), DuplicateRowCount("k"), DuplicateRowCount(("a", "k"))]
    for d in (empty, nulls):
        ctx = run_analysis(d, [*fail, *zero, ColumnCount(), ColumnExists("k")])
        for a in fail:
            assert "no " in error(ctx, a), a.spec()
        for a in zero:
            assert value(ctx, a) == 0.0, a.spec()
        assert value(ctx, ColumnCount()) == 3.0
        assert value(ctx, ColumnExists("k")) == 1.0


def test_zeros_and_zero_denominators_follow_ieee_as_deequ(spark):
    """-0.0 is 0, NaN is not; a zero denominator gives ±inf (NaN for 0/0) as in Deequ's Scala division."""
    d = spark.createDataFrame([(0.0, 5.0, 0.0), (-0.0, -5.0, 0.0), (float("nan"), 0.0, None)],
                              "v double, p double, zero double")
    ratios = [RatioOfSums("p", "zero"), RatioOfSums("p", "zero", where="p < 0"),
              RatioOfSums("p", "zero", where="p > 0")]
    ctx = run_analysis(d, [ZerosCount("v"), *ratios])
    assert value(ctx, ZerosCount("v")) == 2.0
    assert math.isnan(value(ctx, ratios[0]))  # (5 - 5 + 0) / (0 + 0): 0/0
    assert value(ctx, ratios[1]) == -math.inf  # -5 / 0
    assert value(ctx, ratios[2]) == math.inf  # 5 / 0


def test_numeric_analyzers_refuse_strings(df):
    ctx = run_analysis(df, [Skewness("k"), ZerosCount("k"), RatioOfSums("w", "k"), ExactQuantile("k", 0.5),
                            ExactQuantile("w", 1.5)])
    for a in (Skewness("k"), ZerosCount("k"), RatioOfSums("w", "k"), ExactQuantile("k", 0.5)):
        assert "column 'k' has type string" in error(ctx, a)
    assert "outside [0, 1]" in error(ctx, ExactQuantile("w", 1.5))


# ---------------------------------------------------------------------------------------------------------------
# Mergeable states
# ---------------------------------------------------------------------------------------------------------------

def _moments(values: list[float]) -> CentralMoments:
    a = np.asarray(values)
    d = a - a.mean()
    return CentralMoments(len(a), float(a.mean()), float((d ** 2).sum()), float((d ** 3).sum()), float((d ** 4).sum()))


def test_central_moments_of_two_halves_merge_to_the_whole():
    rng = np.random.default_rng(7)
    whole = list(rng.gamma(2.0, 3.0, 501) + 100.0)  # skewed, offset: the merge must not lose the shape
    for cut in (1, 200, 500):
        merged = _moments(whole[:cut]).merge(_moments(whole[cut:]))
        assert merged.n == 501
        assert Skewness("c").metric_from_state(merged).value == pytest.approx(scipy.stats.skew(whole, bias=True),
                                                                              rel=1e-9)
        assert Kurtosis("c").metric_from_state(merged).value == pytest.approx(
            scipy.stats.kurtosis(whole, fisher=True, bias=True), rel=1e-9)
    empty = CentralMoments(0, 0.0, 0.0, 0.0, 0.0)
    assert empty.merge(_moments([1.0, 2.0])) == _moments([1.0, 2.0]) == _moments([1.0, 2.0]).merge(empty)


@pytest.mark.parametrize("state", [CentralMoments(3, 1.0, 2.0, -0.5, 4.0), SumPair(7.0, 10.0, 4, 4),
                                   ColumnNames(("a", "b"))], ids=lambda s: s.kind)
def test_new_states_round_trip_json(state):
    assert state_from_dict(json.loads(json.dumps(state.to_dict()))) == state


def test_column_names_merge_is_the_union():
    merged = ColumnNames(("a", "b")).merge(ColumnNames(("b", "c")))
    assert merged.names == ("a", "b", "c")
    assert ColumnCount().metric_from_state(merged).value == 3.0
    assert ColumnExists("c").metric_from_state(merged).value == 1.0


def test_incremental_runs_equal_the_whole(spark, df, tmp_path):
    """States of ids 1-3 stored, then a run over ids 4-6 aggregated with them; and both stores combined."""
    analyzers = [Skewness("w"), Kurtosis("w"), ZerosCount("z"), RatioOfSums("num", "den"), DuplicateRowCount("k"),
                 ExactQuantile("w", 0.5), ExactQuantile("w", 0.25), ColumnCount(), ColumnExists("k")]
    first, second = FileSystemStateStore(tmp_path / "first"), FileSystemStateStore(tmp_path / "second")
    AnalysisRunner.on_data(df.where("id <= 3")).add_analyzers(analyzers).save_states_with(first).run()
    both = AnalysisRunner.on_data(df.where("id > 3")).add_analyzers(analyzers).aggregate_with(first).run()
    run_analysis(df.where("id > 3"), analyzers, save_to=second)
    combined = run_on_aggregated_states(spark, analyzers, [first, second])
    expected = {**{a: VALUES[a] for a in analyzers if a in VALUES},
                ExactQuantile("w", 0.25): float(np.percentile(W, 25, method="linear")), ColumnExists("k"): 1.0}
    for ctx in (both, combined):
        for a in analyzers:
            assert value(ctx, a) == pytest.approx(expected[a], rel=1e-9), a.spec()


# ---------------------------------------------------------------------------------------------------------------
# Scan sharing
# ---------------------------------------------------------------------------------------------------------------

def test_new_scan_analyzers_share_the_one_pass(spark, df):
    one, _ = count_jobs(spark, df, [Mean("w")])
    scan = [Mean("w"), Sum("num"), StandardDeviation("w"), Completeness("k"), Size(), Skewness("w"), Kurtosis("w"),
            Skewness("x"), ZerosCount("z"), RatioOfSums("num", "den"), ApproxQuantile("w", relative_error=0.05),
            ApproxQuantiles("w", (0.1, 0.9)), ColumnCount(), ColumnExists("w")]
    many, ctx = count_jobs(spark, df, scan)
    assert many == one, f"{len(scan)} scan and schema analyzers ran {many} jobs, 1 analyzer ran {one}"
    assert len(ctx) == len(scan)
    schema_only, _ = count_jobs(spark, df, [ColumnCount(), ColumnExists("nope")])
    assert schema_only == 0  # answered from the schema


def _raw_power_sum_skewness(values: np.ndarray) -> float:
    """Skewness from power sums about 0 (the one-pass form without a shift), for the test's sanity check."""
    n, s1, s2, s3 = len(values), values.sum(), (values ** 2).sum(), (values ** 3).sum()
    a = s1 / n
    m2, m3 = s2 - n * a * a, s3 - 3 * a * s2 + 2 * n * a ** 3
    return math.sqrt(n) * m3 / m2 ** 1.5


def test_shape_of_values_far_from_zero_takes_a_second_pass_and_stays_exact(spark):
    """Epoch-like values (1.7e9 + a skewed spread of ~4): power sums about 0 lose every digit (checked below
    with numpy), so the runner adds one shared pass about the mean; values near 0 keep to the one pass."""
    rng = np.random.default_rng(11)
    far = rng.gamma(2.0, 3.0, 2000) + 1.7e9
    near = rng.gamma(2.0, 3.0, 2000)
    expected_skew = scipy.stats.skew(far, bias=True)  # scipy: two-pass about the mean
    assert abs(_raw_power_sum_skewness(far) - expected_skew) > 1.0  # the naive form is useless here
    d = spark.createDataFrame([(float(f), float(g)) for f, g in zip(far, near, strict=True)], "far double, near double")
    near_only = [Mean("near"), Skewness("near"), Kurtosis("near")]
    one, ctx = count_jobs(spark, d, near_only)
    assert value(ctx, Skewness("near")) == pytest.approx(scipy.stats.skew(near, bias=True), rel=1e-9)
    assert value(ctx, Kurtosis("near")) == pytest.approx(scipy.stats.kurtosis(near, bias=True), rel=1e-9)
    both = [*near_only, Skewness("far"), Kurtosis("far"), Skewness("far", where="near > 2")]
    two, ctx = count_jobs(spark, d, both)
    assert two == 2 * one, f"values far from 0 should add exactly one shared pass ({one} jobs, then {two})"
    assert value(ctx, Skewness("far")) == pytest.approx(expected_skew, rel=1e-6)
    assert value(ctx, Kurtosis("far")) == pytest.approx(scipy.stats.kurtosis(far, bias=True), rel=1e-6)
    assert value(ctx, Skewness("far", where="near > 2")) == pytest.approx(
        scipy.stats.skew(far[near > 2], bias=True), rel=1e-6)
    assert value(ctx, Skewness("near")) == pytest.approx(scipy.stats.skew(near, bias=True), rel=1e-9)


def test_grouping_analyzers_share_the_frequency_table(spark, df):
    one, _ = count_jobs(spark, df, [Uniqueness("w")])
    same, ctx = count_jobs(spark, df, [Uniqueness("w"), CountDistinct("w"), DuplicateRowCount("w"),
                                       ExactQuantile("w", 0.5), ExactQuantile("w", 0.9)])
    assert same == one, f"five analyzers on one frequency table ran {same} jobs, one ran {one}"
    assert value(ctx, ExactQuantile("w", 0.9)) == pytest.approx(float(np.percentile(W, 90, method="linear")))


# ---------------------------------------------------------------------------------------------------------------
# ApproxQuantile's relative_error
# ---------------------------------------------------------------------------------------------------------------

def test_relative_error_sizes_the_sketch():
    for eps in (0.01, 0.05, 0.001):
        k = kll_k(eps)
        assert ds.kll_doubles_sketch.get_normalized_rank_error(k, False) <= eps
        assert ds.kll_doubles_sketch.get_normalized_rank_error(k - 1, False) > eps  # the smallest such sketch
    # the default keeps the spec of before: stored states and metric histories stay the same metric's
    assert ApproxQuantile("x").spec() == "ApproxQuantile(column='x', quantile=0.5, where=None)"
    assert ApproxQuantile("x", relative_error=0.05).spec() == \
        "ApproxQuantile(column='x', quantile=0.5, where=None, relative_error=0.05)"


def test_relative_error_bounds_the_rank_error(spark):
    """10,000 distinct values 0..9999: the value returned for q has rank within relative_error of q (the KLL bound
    holds with 99% confidence; the sketch is far better in practice, so the margin is not loosened)."""
    d = spark.range(10_000).selectExpr("CAST(id AS DOUBLE) AS v").repartition(4)
    qs = (0.1, 0.5, 0.9)
    analyzers = [ApproxQuantiles("v", qs, relative_error=0.05), ApproxQuantile("v", 0.5, relative_error=0.0),
                 ApproxQuantile("v", 0.5, relative_error=1e-9), ApproxQuantile("v", 0.5, relative_error=1.5)]
    ctx = run_analysis(d, analyzers)
    got = value(ctx, analyzers[0])
    for q in qs:
        assert abs(got[str(q)] / 10_000 - q) <= 0.05, (q, got)
    for a in analyzers[1:]:
        assert "relative_error" in error(ctx, a) and "ExactQuantile" in error(ctx, a)


# ---------------------------------------------------------------------------------------------------------------
# Constraints
# ---------------------------------------------------------------------------------------------------------------

def _results(df, check):
    r = VerificationSuite().on_data(df).add_check(check).with_offending_samples(5).run()
    return {c.constraint: c for c in r.check_results[0].constraint_results}


def test_new_constraints(df):
    median_w = float(np.percentile(W, 50, method="linear"))  # (1.5 + 3) / 2 = 2.25
    check = (Check("error", "parity")
             .has_skewness("x", "between 1.154 and 1.155")  # 2/sqrt(3) = 1.1547
             .has_kurtosis("x", "> 0")  # -2/3: fails
             .has_zeros_count("z", "== 3")
             .has_ratio_of_sums("num", "den", "== 0.7")
             .has_duplicate_row_count("k", "== 0")  # 5: fails, showing the duplicated values
             .has_column_count("== 7")
             .has_column("w")
             .has_column("nope")  # fails
             .has_exact_quantile("w", 0.5, f"== {median_w}")
             .has_approx_quantile("w", 0.5, "between -2 and 10", relative_error=0.05)
             .has_skewness("x", "> 100", where="id > 100"))  # no row selected: passes ("empty due to filter")
    res = _results(df, check)
    status = {name: r.status for name, r in res.items()}
    assert status == {
        "has_skewness(x) between 1.154 and 1.155": "Success",
        "has_kurtosis(x) > 0": "Failure",
        "has_zeros_count(z) == 3": "Success",
        "has_ratio_of_sums(num, den) == 0.7": "Success",
        "has_duplicate_row_count(k) == 0": "Failure",
        "has_column_count == 7": "Success",
        "has_column(w)": "Success",
        "has_column(nope)": "Failure",
        "has_exact_quantile(w, 0.5) == 2.25": "Success",
        "has_approx_quantile(w, 0.5, relative_error=0.05) between -2 and 10": "Success",
        "has_skewness(x) where id > 100 > 100": "Success",
    }
    assert res["has_column(nope)"].metric.value == 0.0
    assert res["has_duplicate_row_count(k) == 0"].samples == [{"k": "c", "count": 3}, {"k": "a", "count": 2}]


def test_is_contained_in_with_bounds(df):
    """w = 1.5, -2, 7.25, 3, 0.5, 10; x = 0, 0, 0, 4 and two nulls (left out, as in the set form)."""
    check = (Check("error", "ranges")
             .is_contained_in("w", lower_bound=-2, upper_bound=10)  # all 6
             .is_contained_in("w", lower_bound=-2, upper_bound=10, include_lower_bound=False,
                              assertion="== 0.8333333333333334")  # -2 out: 5/6
             .is_contained_in("w", lower_bound=-2, upper_bound=10, include_lower_bound=False,
                              include_upper_bound=False)  # -2 and 10 out: 4/6, fails
             .is_contained_in("x", lower_bound=0, upper_bound=4, include_lower_bound=False)  # only 4: 1/4
             .is_contained_in("k", lower_bound=0, upper_bound=1))  # text is no number: 0/6
    res = _results(df, check)
    got = {name: (r.status, r.metric.value) for name, r in res.items()}
    assert got == {
        "is_contained_in(w, [-2.0, 10.0])": ("Success", 1.0),
        "is_contained_in(w, (-2.0, 10.0]) == 0.8333333333333334": ("Success", 5 / 6),
        "is_contained_in(w, (-2.0, 10.0))": ("Failure", 4 / 6),
        "is_contained_in(x, (0.0, 4.0])": ("Failure", 1 / 4),
        "is_contained_in(k, [0.0, 1.0])": ("Failure", 0.0),
    }
    assert res["is_contained_in(x, (0.0, 4.0])"].samples == [{"value": 0.0, "count": 3}]
    assert sorted(s["value"] for s in res["is_contained_in(w, (-2.0, 10.0))"].samples) == [-2.0, 10.0]


@pytest.mark.parametrize("kwargs, fragment", [
    ({"lower_bound": 1}, "both lower_bound and upper_bound"),
    ({"lower_bound": 2, "upper_bound": 1}, "not an interval"),
    ({"lower_bound": float("nan"), "upper_bound": 1}, "not an interval"),
    ({"values": [1, 2], "lower_bound": 0, "upper_bound": 3}, "not both"),
])
def test_is_contained_in_refuses_bad_bounds(kwargs, fragment):
    with pytest.raises(ValueError, match=fragment):
        Check().is_contained_in("w", **kwargs)


def test_new_constraints_from_a_checks_file(df):
    doc = {"checks": [{"level": "warning", "description": "from json", "constraints": [
        {"type": "is_contained_in", "column": "w", "lower_bound": -2, "upper_bound": 10, "include_upper_bound": False},
        {"type": "has_column_count", "assertion": ">= 7"},
        {"type": "has_duplicate_row_count", "column": ["k", "x"], "assertion": "== 4"},
        {"type": "has_exact_quantile", "column": "x", "quantile": 0.9, "assertion": "between 2.79 and 2.81"},
        {"type": "has_column", "column": "k"},
        {"type": "has_no_anomalies", "analyzer": {"type": "Kurtosis", "column": "w"},
         "strategy": {"type": "SimpleThreshold", "upper_bound": 100}},
    ]}]}
    checks = checks_from_dict(json.loads(json.dumps(doc)))
    r = VerificationSuite().on_data(df).add_checks(checks).run()
    got = [(c.constraint, c.status, c.metric.value) for c in r.check_results[0].constraint_results]
    assert got[:5] == [
        ("is_contained_in(w, [-2.0, 10.0))", "Failure", 5 / 6),  # 10 is out
        ("has_column_count >= 7", "Success", 7.0),
        ("has_duplicate_row_count(k, x) == 4", "Success", 4.0),
        ("has_exact_quantile(x, 0.9) between 2.79 and 2.81", "Success", pytest.approx(2.8)),
        ("has_column(k)", "Success", 1.0),
    ]
    # the anomaly check found its analyzer by name; with no repository it says so, with the metric computed
    assert got[5][2] == pytest.approx(VALUES[Kurtosis("w")])
