"""Deequ parity: distinct values as Histogram bins, NaN assertions, Range and InterquartileRange, binned
histograms with custom or fixed edges, NullBehavior, and Holt-Winters' input checks and periods.

Expected values are Deequ's own test expectations (awslabs/deequ CheckTest, DistinctnessTest,
VerificationSuiteTest, HoltWintersTest: named in each docstring, on the fixture rows of Deequ's
FixtureSupport) or hand computations written beside them; numpy is the oracle of the quantiles.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from lakeindex.anomaly import HoltWintersStrategy, strategy_from_dict
from lakeindex.checks import Check, VerificationSuite
from lakeindex.metrics import InterquartileRange, Range, run_analysis
from lakeindex.metrics.states import Span, state_from_dict

T, F = True, False
# FixtureSupport.getDfCompleteAndInCompleteColumns
INCOMPLETE = ("item string, att1 string, att2 string",
              [("1", "a", "f"), ("2", "b", "d"), ("3", "a", None), ("4", "a", "f"), ("5", "b", None), ("6", "a", "f")])
# FixtureSupport.getDfWithDistinctValues
DISTINCT = ("att1 string, att2 string",
            [("a", None), ("a", None), (None, "x"), ("b", "x"), ("b", "x"), ("c", "y")])
# FixtureSupport.getDfCompleteAndInCompleteColumnsAndVarLengthStrings
VAR = ("item string, att1 string, att2 string, val1 int, val2 int",
       [("1", "a", "f", 1, 1), ("22", "b", "d", 2, None), ("333", "a", None, 3, 3), ("4444", "a", "f", 4, 4),
        ("55555", "b", None, 5, None), ("666666", "a", "f", 6, 6)])


def _statuses(df, check):
    result = VerificationSuite().on_data(df).add_check(check).with_offending_samples(0).run()
    return [r.status for r in result.check_results[0].constraint_results]


def test_number_of_distinct_values_counts_the_null_bin_as_deequ(spark):
    """CheckTest "histogram constraints" (att2 == 3; == 2 where att1 = 'a') and DistinctnessTest's
    DistinctValueCount (att1 == 4, att2 == 3): Deequ asserts on the Histogram's bin count, NullValue included."""
    incomplete = spark.createDataFrame(INCOMPLETE[1], INCOMPLETE[0])
    check = (Check("error", "bins").has_number_of_distinct_values("att2", "== 3")
             .has_number_of_distinct_values("att2", "== 2", where="att1 = 'a'")
             .has_number_of_distinct_values("att1", "< 10"))
    assert _statuses(incomplete, check) == ["Success"] * 3
    distinct = spark.createDataFrame(DISTINCT[1], DISTINCT[0])
    check = Check("error", "d").has_number_of_distinct_values("att1", "== 4").has_number_of_distinct_values("att2",
                                                                                                            "== 3")
    assert _statuses(distinct, check) == ["Success", "Success"]
    # the count of distinct non-null values stays available under its own name
    assert _statuses(distinct, Check("error", "c").has_count_distinct("att1", "== 3")) == ["Success"]


def test_a_callable_assertion_judges_a_nan_metric(spark):
    """Deequ's hasCorrelation(..., _.isNaN) passes on a constant column (correlation 0/0); a textual bound
    is never met by NaN, not even ``!= 0``."""
    df = spark.createDataFrame([(1.0, 5.0), (2.0, 5.0), (3.0, 5.0)], "a double, b double")
    check = (Check("error", "nan").has_correlation("a", "b", math.isnan)
             .has_correlation("a", "b", "!= 0").has_correlation("a", "b", lambda v: v > 0))
    assert _statuses(df, check) == ["Success", "Failure", "Failure"]


def test_range_and_interquartile_range(spark):
    """Range = max - min; InterquartileRange = Q3 - Q1 with Spark's percentile (linear interpolation at
    q·(n-1), numpy's default method): values 1..8 give Q1 = 2.75 and Q3 = 6.25 by hand, IQR 3.5."""
    values = [4, 1, 8, 2, 7, 3, 6, 5]
    df = spark.createDataFrame([(float(v), "x" if v % 2 else "y") for v in values] + [(None, "x")],
                               "v double, g string")
    metrics = run_analysis(df, [Range("v"), InterquartileRange("v"), Range("v", "g = 'x'"),
                                InterquartileRange("v", "g = 'x'")])
    got = [metrics.metric(a).value for a in (Range("v"), InterquartileRange("v"), Range("v", "g = 'x'"),
                                              InterquartileRange("v", "g = 'x'"))]
    odd = [v for v in values if v % 2]
    q1, q3 = np.percentile(odd, [25, 75])
    assert got == pytest.approx([7.0, 3.5, 6.0, q3 - q1])
    check = Check("error", "spread").has_range("v", "== 7").has_interquartile_range("v", "between 3.4 and 3.6")
    assert _statuses(df, check) == ["Success", "Success"]
    # a Range state merges as min of the minima and max of the maxima, and survives JSON
    merged = Span(1.0, 4.0).merge(Span(-2.0, 3.0))
    assert merged == Span(-2.0, 4.0) and state_from_dict(json.loads(json.dumps(merged.to_dict()))) == merged
    assert Span(None, None).merge(Span(2.0, 2.0)) == Span(2.0, 2.0)


def test_histogram_with_custom_edges_and_fixed_equal_bins_has_overflow_bins(spark):
    """By hand: edges 0, 10, 20, 30 over 1, 5, 12, 25, 40, -3 and a null."""
    df = spark.createDataFrame([(v,) for v in (1.0, 5.0, 12.0, 25.0, 40.0, -3.0, None)], "v double")
    expected = {"(-inf, 0.0)": 1, "[0.0, 10.0)": 2, "[10.0, 20.0)": 1, "[20.0, 30.0)": 1, "[30.0, inf)": 1,
                "NullValue": 1}
    seen: list[dict] = []

    def record(bins):
        seen.append({k: v["absolute"] for k, v in bins.items()})
        return True

    check = (Check("error", "bins").has_histogram_values("v", record, bins=[30, 0, 20, 10])
             .has_histogram_values("v", record, bin_count=3, bin_range=(0, 30)))
    assert _statuses(df, check) == ["Success", "Success"]
    assert seen == [expected, expected]
    with pytest.raises(ValueError, match="bin_range needs bin_count"):
        Check().has_histogram_values("v", record, bin_range=(0, 30))
    with pytest.raises(ValueError, match="finite lo < hi"):
        Check().has_histogram_values("v", record, bin_count=2, bin_range=(5, 5))
    with pytest.raises(ValueError, match="not both"):
        Check().has_histogram_values("v", record, bins=[0, 1], bin_count=2)


def test_null_behavior_of_length_constraints_as_deequ(spark):
    """VerificationSuiteTest "... length row-level results with nullBehavior empty": has_min_length(att2, >= 1)
    fails on the two null rows (length 0), has_max_length(att2, < 2) passes every row; with nullBehavior fail
    both constraints fail exactly the null rows."""
    df = spark.createDataFrame(VAR[1], VAR[0])
    empty = [Check("error", "rule1").has_min_length("att2", ">= 1", null_behavior="empty_string"),
             Check("error", "rule2").has_max_length("att2", "< 2", null_behavior="empty_string")]
    result = VerificationSuite().on_data(df).add_checks(empty).with_offending_samples(0).run()
    assert [c.status for c in result.check_results] == ["Error", "Success"]
    rows = result.row_level_results(df, constraints=False).orderBy("val1").collect()
    assert [r["rule1"] for r in rows] == [T, T, F, T, F, T] and [r["rule2"] for r in rows] == [T] * 6
    fail = [Check("error", "rule1").has_min_length("att2", ">= 1", null_behavior="fail"),
            Check("error", "rule2").has_max_length("att2", "<= 1", null_behavior="fail")]
    result = VerificationSuite().on_data(df).add_checks(fail).with_offending_samples(0).run()
    rows = result.row_level_results(df, constraints=False).orderBy("val1").collect()
    assert [r["rule1"] for r in rows] == [T, T, F, T, F, T] and [r["rule2"] for r in rows] == [T, T, F, T, F, T]
    # the metrics: a null counts as -inf for the minimum (fails >= 1) and +inf for the maximum (fails <= 1)
    assert [c.status for c in result.check_results] == ["Error", "Error"]
    ignore = Check("error", "rule3").has_max("val2", "<= 6").has_max("val2", "<= 6", null_behavior="fail")
    assert _statuses(df, ignore) == ["Success", "Failure"]
    with pytest.raises(ValueError, match="null_behavior must be one of"):
        Check().has_min("val2", ">= 0", null_behavior="empty_string")


SEASON = [1.0, 1.0, 1.2, 1.3, 1.5, 2.1, 1.9] * 3


def test_holt_winters_refuses_an_empty_series_and_an_empty_interval():
    """HoltWintersTest: "Provided data series is empty", "Start must be before end" (interval 1 -> 1); an
    interval beyond the series judges nothing."""
    with pytest.raises(ValueError, match="series is empty"):
        HoltWintersStrategy().detect([], (0, 10))
    with pytest.raises(ValueError, match="interval .* is empty"):
        HoltWintersStrategy().detect(SEASON, (1, 1))
    with pytest.raises(ValueError, match="interval .* is empty"):
        HoltWintersStrategy().detect(SEASON, (21, 21))
    assert HoltWintersStrategy().detect(SEASON, (100, 110)) == []


def test_holt_winters_hourly_and_custom_periods():
    """Deequ's (Hourly, Daily) pair is a season of 24 points and HoltWinters(seriesPeriodicity) any length; a
    noiseless periodic series is forecast as its pattern again (by hand)."""
    assert HoltWintersStrategy("Hourly", "Daily").period == 24
    quarterly = HoltWintersStrategy(series_periodicity=4)
    assert quarterly.period == 4
    pattern = [3.0, 9.0, 4.0, 1.0]
    forecasts, std = quarterly.forecast([10.0 + pattern[t % 4] for t in range(12)], 4)
    assert forecasts.tolist() == pytest.approx([13.0, 19.0, 14.0, 11.0], abs=1e-6) and std == pytest.approx(0, abs=1e-6)
    assert [a.index for a in quarterly.detect([10.0 + pattern[t % 4] for t in range(12)] + [25.0], (12, 13))] == [12]
    config = {"type": "HoltWinters", "series_periodicity": 4}
    assert strategy_from_dict(json.loads(json.dumps(config))) == quarterly and quarterly.to_dict() == config
    assert HoltWintersStrategy().to_dict() == {"type": "HoltWinters", "metrics_interval": "Daily",
                                               "seasonality": "Weekly"}
    for bad in (1, 0, 2.5, True):
        with pytest.raises(ValueError, match="series_periodicity must be an integer"):
            HoltWintersStrategy(series_periodicity=bad)
    with pytest.raises(ValueError, match="not both"):
        HoltWintersStrategy("Monthly", "Yearly", series_periodicity=12)
