"""Histogram parity with Deequ: the Sum aggregate (``sum_column``), ``frequencies_as_ratio`` and equal-width bins
(``bin_count``, Deequ's HistogramBinned), with nulls, empty data, incremental states and bad combinations.

Expected values come from hand computations in the comments, from Deequ's own tests (cited by file and test name:
src/test/scala/com/amazon/deequ/analyzers/HistogramTest.scala and HistogramBinnedTest.scala), or from numpy
(``numpy.histogram`` / ``histogram_bin_edges`` with the same bin count: its edges and its closed last bin are the
semantics chosen here). Each module-scoped fixture answers its analyzers with ONE run.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from lakeindex.checks import Check, VerificationSuite
from lakeindex.checks.checks_file import analyzer_from_dict
from lakeindex.metrics import AnalysisRunner, FileSystemStateStore, Histogram, run_analysis, run_on_aggregated_states
from lakeindex.metrics.frequencies import FrequencySpec
from lakeindex.metrics.runner import frequency_key
from tests.test_metrics import error, value


def bins_of(v: dict) -> dict:
    """{label: absolute} of a histogram value, in its order."""
    return {k: b["absolute"] for k, b in v["bins"].items()}


def labels_from(edges: list[float]) -> list[str]:
    """The equal-width labels for edges: ``[a, b)`` with repr'd floats, the last bin closed ``[a, b]``."""
    e = [float(x) for x in edges]  # numpy's floats print as np.float64(...)
    return [f"[{a!r}, {b!r})" for a, b in zip(e[:-2], e[1:-1], strict=True)] + [f"[{e[-2]!r}, {e[-1]!r}]"]


# ---------------------------------------------------------------------------------------------------------------
# The Sum aggregate on categorical histograms (Deequ's Histogram.Sum) and computeFrequenciesAsRatio
# ---------------------------------------------------------------------------------------------------------------

# HistogramTest "aggregate sum works as expected with nulls": sales of categories, two null categories, one
# null sale (id 4); id is ours, for the where-filter test below.
SALES = [(1, "Electronics", 100), (2, None, 999), (3, "Electronics", 200), (4, "Furniture", None),
         (5, "Electronics", 300), (6, "Furniture", 250), (7, "Cosmetics", 75), (8, None, 888)]
SALES_SUM = Histogram("category", sum_column="sales")
SALES_ABS = Histogram("category", sum_column="sales", frequencies_as_ratio=False)
SALES_TOP2 = Histogram("category", sum_column="sales", max_bins=2)
SALES_WHERE = Histogram("category", sum_column="sales", where="id <= 4")
COUNTS_ABS = Histogram("category", frequencies_as_ratio=False)


@pytest.fixture(scope="module")
def sales_ctx(spark):
    df = spark.createDataFrame(SALES, "id int, category string, sales int")
    return run_analysis(df, [SALES_SUM, SALES_ABS, SALES_TOP2, SALES_WHERE, COUNTS_ABS])


def test_sum_with_nulls_follows_deequ(sales_ctx):
    """HistogramTest "aggregate sum works as expected with nulls": Electronics 600, Furniture 250 (a null sale counts
    as 0), Cosmetics 75, NullValue 999 + 888 = 1887; 4 bins; NullValue first, Electronics second."""
    got = value(sales_ctx, SALES_SUM)
    assert bins_of(got) == {"NullValue": 1887, "Electronics": 600, "Furniture": 250, "Cosmetics": 75}
    assert list(got["bins"])[:2] == ["NullValue", "Electronics"] and got["number_of_bins"] == 4
    # ratios over the total sum: 100 + 999 + 200 + 300 + 250 + 75 + 888 = 2812 (the null sale adds nothing)
    assert {k: b["ratio"] for k, b in got["bins"].items()} == pytest.approx(
        {"NullValue": 1887 / 2812, "Electronics": 600 / 2812, "Furniture": 250 / 2812, "Cosmetics": 75 / 2812})
    assert all(isinstance(b["absolute"], int) for b in got["bins"].values())  # an int column sums exactly (Long)
    assert got["tail"] == {"bins": 0, "absolute": 0, "ratio": 0.0}


def test_without_ratios_the_ratio_is_the_absolute_value(sales_ctx):
    """Deequ divides by a total of 1 when computeFrequenciesAsRatio = false (HistogramTest "create categorical keys
    sorted by frequency for string data": ratio 6.0 for 6 rows), for counts and for sums alike."""
    sums = value(sales_ctx, SALES_ABS)["bins"]
    assert {k: (b["absolute"], b["ratio"]) for k, b in sums.items()} == {
        "NullValue": (1887, 1887.0), "Electronics": (600, 600.0), "Furniture": (250, 250.0), "Cosmetics": (75, 75.0)}
    assert all(isinstance(b["ratio"], float) for b in sums.values())
    counts = value(sales_ctx, COUNTS_ABS)["bins"]  # rows: Electronics 3, NullValue 2, Furniture 2, Cosmetics 1
    assert {k: b["ratio"] for k, b in counts.items()} == {"Electronics": 3.0, "NullValue": 2.0, "Furniture": 2.0,
                                                           "Cosmetics": 1.0}


def test_sum_tail_holds_the_rest_of_the_sum(sales_ctx):
    """max_bins = 2 keeps NullValue (1887) and Electronics (600); the tail is Furniture + Cosmetics = 325 over 2 bins
    (as HistogramTest "compute tailCount with Sum aggregation": the tail is the sum of the rest)."""
    got = value(sales_ctx, SALES_TOP2)
    assert bins_of(got) == {"NullValue": 1887, "Electronics": 600}
    assert got["tail"] == {"bins": 2, "absolute": 325, "ratio": pytest.approx(325 / 2812)}
    assert got["number_of_bins"] == 4


def test_sum_where_ratios_are_over_the_filtered_rows(sales_ctx):
    """Rows id <= 4: Electronics 100 + 200, NullValue 999, Furniture null -> 0; ratios over 1299 (Deequ divides by
    the sum over all rows, 2812: a deliberate difference, as for counts)."""
    got = value(sales_ctx, SALES_WHERE)
    assert bins_of(got) == {"NullValue": 999, "Electronics": 300, "Furniture": 0}
    assert got["bins"]["Electronics"]["ratio"] == pytest.approx(300 / 1299)


def test_deequ_sum_examples(spark):
    """HistogramTest "aggregate sum works as expected" (ratios off): Electronics 600, Furniture 400, Cosmetics 75,
    sorted by sum; "compute tailCount with Sum aggregation": top 2 A = 300, B = 125, tail 10 + 5 = 15."""
    a = Histogram("category", sum_column="sales", frequencies_as_ratio=False)
    df = spark.createDataFrame([("Electronics", 100), ("Electronics", 200), ("Furniture", 150), ("Electronics", 300),
                                ("Furniture", 250), ("Cosmetics", 75)], "category string, sales int")
    got = value(run_analysis(df, [a]), a)
    assert list(bins_of(got).items()) == [("Electronics", 600), ("Furniture", 400), ("Cosmetics", 75)]
    assert got["number_of_bins"] == 3
    tail = Histogram("category", sum_column="amount", max_bins=2)
    df = spark.createDataFrame([("A", 100), ("A", 200), ("B", 50), ("B", 75), ("C", 10), ("D", 5)],
                               "category string, amount long")
    got = value(run_analysis(df, [tail]), tail)
    assert bins_of(got) == {"A": 300, "B": 125} and got["tail"]["absolute"] == 15 and got["number_of_bins"] == 4


# Sums of fractional columns, all-null groups, zero totals, fixed bins and a bin expression with sums.
MIXED = [(1, "a", -1.0, 1.5, None, 5), (2, "a", 0.0, 2.25, None, -5), (3, "b", 5.0, 0.25, 4, None),
         (4, None, 10.0, 1.0, None, None), (5, "b", None, 0.0, None, None)]
FRACTIONAL = Histogram("k", sum_column="d")
ALL_NULL_GROUP = Histogram("k", sum_column="n")
ZERO_TOTAL = Histogram("k", sum_column="z")
ZERO_TOTAL_ABS = Histogram("k", sum_column="z", frequencies_as_ratio=False)
FIXED_BINS = Histogram("x", bins=(0, 10), sum_column="d")
EXPRESSION = Histogram("k", bin_expression="upper(k)", sum_column="d")
TEXT_SUM = Histogram("k", sum_column="k")
MISSING_SUM = Histogram("k", sum_column="nope")


@pytest.fixture(scope="module")
def mixed_ctx(spark):
    df = spark.createDataFrame(MIXED, "id int, k string, x double, d double, n int, z int")
    return run_analysis(df, [FRACTIONAL, ALL_NULL_GROUP, ZERO_TOTAL, ZERO_TOTAL_ABS, FIXED_BINS, EXPRESSION,
                             TEXT_SUM, MISSING_SUM])


def test_fractional_sums(mixed_ctx):
    """d by k: a 1.5 + 2.25 = 3.75, b 0.25 + 0.0 = 0.25, null 1.0; total 5.0 (all exact in binary)."""
    got = value(mixed_ctx, FRACTIONAL)
    assert bins_of(got) == {"a": 3.75, "NullValue": 1.0, "b": 0.25}
    assert {k: b["ratio"] for k, b in got["bins"].items()} == {"a": 0.75, "NullValue": 0.2, "b": 0.05}
    assert all(isinstance(b["absolute"], float) for b in got["bins"].values())


def test_a_group_without_values_sums_to_zero(mixed_ctx):
    """n is null in every row but b's first: a sums to 0 and NullValue to 0 (Deequ reads a null sum as 0 Long),
    b to 4; ratios over 4."""
    got = value(mixed_ctx, ALL_NULL_GROUP)
    assert bins_of(got) == {"b": 4, "NullValue": 0, "a": 0}
    assert got["bins"]["b"]["ratio"] == 1.0 and got["bins"]["a"]["ratio"] == 0.0


def test_ratios_over_a_zero_sum_fail_clearly(mixed_ctx):
    """z: a 5 + (-5) = 0, the rest null: the total is 0, so ratios are undefined (Deequ: NaN/Infinity); the
    sums alone are there with frequencies_as_ratio=False."""
    msg = error(mixed_ctx, ZERO_TOTAL)
    assert "sum of 'z'" in msg and "frequencies_as_ratio=False" in msg
    got = value(mixed_ctx, ZERO_TOTAL_ABS)
    assert bins_of(got) == {"a": 0, "NullValue": 0, "b": 0}


def test_sums_with_fixed_bins_and_a_bin_expression(mixed_ctx):
    """x bins (0, 10): -1 -> (-inf, 0.0) d 1.5; 0, 5 -> [0.0, 10.0) d 2.25 + 0.25; 10 -> [10.0, inf) d 1.0;
    null x -> NullValue d 0.0. upper(k): A 3.75, B 0.25, null 1.0."""
    assert bins_of(value(mixed_ctx, FIXED_BINS)) == {"[0.0, 10.0)": 2.5, "(-inf, 0.0)": 1.5, "[10.0, inf)": 1.0,
                                                     "NullValue": 0.0}
    assert bins_of(value(mixed_ctx, EXPRESSION)) == {"A": 3.75, "NullValue": 1.0, "B": 0.25}


def test_the_sum_column_must_be_numeric_and_exist(mixed_ctx):
    assert "'k'" in error(mixed_ctx, TEXT_SUM) and "numeric" in error(mixed_ctx, TEXT_SUM)
    assert "'nope' does not exist" in error(mixed_ctx, MISSING_SUM)


# ---------------------------------------------------------------------------------------------------------------
# Equal-width bins (bin_count): Deequ's HistogramBinnedTest cases
# ---------------------------------------------------------------------------------------------------------------

def test_deequ_equal_width_cases(spark):
    """HistogramBinnedTest (equal-width edges), one run per case's data."""
    ints = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 15, 20, 25, 30]
    a = Histogram("v", bin_count=5)
    got = value(run_analysis(spark.createDataFrame([(v,) for v in ints], "v int"), [a]), a)
    # "create equal-sized bins for integer data with ratio": 6, 4, 1, 1, 2 of 14; edges 1, 6.8, ..., 30
    assert list(bins_of(got).values()) == [6, 4, 1, 1, 2] and got["number_of_bins"] == 5
    assert [b["ratio"] for b in got["bins"].values()] == pytest.approx([6 / 14, 4 / 14, 1 / 14, 1 / 14, 2 / 14])
    assert got["edges"] == pytest.approx([1.0, 6.8, 12.6, 18.4, 24.2, 30.0])
    assert list(got["bins"]) == labels_from(got["edges"]) and list(got["bins"])[-1].endswith(", 30.0]")

    doubles = [1.1, 2.5, 3.7, 4.2, 5.8, 6.3, 7.9, 8.1, 9.4, 10.6]
    a = Histogram("v", bin_count=3)
    got = value(run_analysis(spark.createDataFrame([(v,) for v in doubles], "v double"), [a]), a)
    # "create equal-sized bins for double data": 4, 2, 4 with edges 1.1, 4.27, 7.43, 10.6
    assert list(bins_of(got).values()) == [4, 2, 4]
    assert got["edges"] == pytest.approx([1.1, 4.2667, 7.4333, 10.6], abs=1e-3)

    # "handle null values by creating NullValue bin": 2, 1, 2 and 3 nulls, ratios over all 8 rows
    nulls = [1.0, None, 3.0, None, 5.0, 7.0, None, 9.0]
    got = value(run_analysis(spark.createDataFrame([(v,) for v in nulls], "v double"), [a]), a)
    assert list(bins_of(got).values()) == [2, 1, 2, 3] and list(got["bins"])[-1] == "NullValue"
    assert [b["ratio"] for b in got["bins"].values()] == pytest.approx([2 / 8, 1 / 8, 2 / 8, 3 / 8])
    assert got["number_of_bins"] == 4  # NullValue counts as a bin here (Deequ 2.x's first HistogramBinned too)

    # "numberOfBins should reflect total bins including empty ones": 1, 0, 0, 0, 1 and 2 nulls
    a = Histogram("v", bin_count=5)
    got = value(run_analysis(spark.createDataFrame([(1.0,), (None,), (9.0,), (None,)], "v double"), [a]), a)
    assert list(bins_of(got).values()) == [1, 0, 0, 0, 1, 2] and got["number_of_bins"] == 6


def test_deequ_equal_width_sums(spark):
    """HistogramBinnedTest "aggregate sum works as expected" and "... with nulls" (revenue summed per price bin)."""
    a = Histogram("price", bin_count=3, sum_column="revenue")
    rows = [(100.0, 50), (150.0, 75), (250.0, 100), (300.0, 125), (450.0, 200), (500.0, 250)]
    got = value(run_analysis(spark.createDataFrame(rows, "price double, revenue int"), [a]), a)
    assert list(bins_of(got).values()) == [125, 225, 450]
    assert got["edges"] == pytest.approx([100.0, 233.33, 366.67, 500.0], abs=0.01)
    rows = [(100.0, 50), (None, 999), (150.0, 75), (250.0, None), (300.0, 125), (450.0, 200), (None, 888)]
    got = value(run_analysis(spark.createDataFrame(rows, "price double, revenue int"), [a]), a)
    assert bins_of(got) == dict(zip(labels_from(got["edges"]) + ["NullValue"], [125, 125, 200, 1887], strict=True))
    assert got["edges"] == pytest.approx([100.0, 216.67, 333.33, 450.0], abs=0.01)
    # ratios over the whole sum 50 + 999 + 75 + 125 + 200 + 888 = 2337
    assert got["bins"]["NullValue"]["ratio"] == pytest.approx(1887 / 2337)


# ---------------------------------------------------------------------------------------------------------------
# Equal-width bins against numpy
# ---------------------------------------------------------------------------------------------------------------

def _oracle_rows() -> tuple[list[tuple], np.ndarray]:
    """Rounded normal values, plus values ON numpy's edges and one ULP below them (boundary cases), some nulls."""
    rng = np.random.default_rng(7)
    xs = np.round(rng.normal(50, 20, 300), 1)
    extra = []
    for n in (7, 10, 64):  # edges lie within [min, max], so adding them leaves the edges unchanged
        edges = np.histogram_bin_edges(xs, n)
        extra += list(edges) + list(np.nextafter(edges[1:], -np.inf))
    xs = np.concatenate([xs, np.array(extra)])
    ws = rng.integers(-50, 100, len(xs) + 20)
    values = [float(x) for x in xs] + [None] * 20  # null rows added, so the edges stay those of xs
    rows = [(x, None if i % 13 == 0 else int(w)) for i, (x, w) in enumerate(zip(values, ws, strict=True))]
    return rows, xs


ORACLE_COUNTS = [1, 7, 10, 64]


@pytest.fixture(scope="module")
def oracle(spark):
    rows, _ = _oracle_rows()
    analyzers = [Histogram("x", bin_count=n) for n in ORACLE_COUNTS] + [Histogram("x", bin_count=10, sum_column="w")]
    return rows, run_analysis(spark.createDataFrame(rows, "x double, w int"), analyzers)


@pytest.mark.parametrize("n", ORACLE_COUNTS)
def test_equal_width_counts_match_numpy(oracle, n):
    rows, ctx = oracle
    xs = np.array([x for x, _ in rows if x is not None])
    counts, edges = np.histogram(xs, bins=n)  # the last bin is closed there too
    got = value(ctx, Histogram("x", bin_count=n))
    assert got["edges"] == list(edges)  # the same floats: lo + i * (hi - lo) / n, the last edge hi itself
    assert list(got["bins"]) == labels_from(list(edges)) + ["NullValue"]
    assert [got["bins"][label]["absolute"] for label in labels_from(list(edges))] == list(counts)
    nulls = sum(x is None for x, _ in rows)
    assert got["bins"]["NullValue"] == {"absolute": nulls, "ratio": nulls / len(rows)}
    assert got["number_of_bins"] == n + 1


def test_equal_width_sums_match_numpy_weights(oracle):
    """numpy.histogram(weights=w) sums w per bin; a null w adds nothing (Deequ: null treated as 0)."""
    rows, ctx = oracle
    pairs = [(x, 0 if w is None else w) for x, w in rows if x is not None]
    sums, edges = np.histogram([x for x, _ in pairs], bins=10, weights=[w for _, w in pairs])
    got = value(ctx, Histogram("x", bin_count=10, sum_column="w"))
    assert [got["bins"][label]["absolute"] for label in labels_from(list(edges))] == [int(s) for s in sums]
    total = sum(w for _, w in rows if w is not None)
    assert got["bins"]["NullValue"]["absolute"] == sum(w for x, w in rows if x is None and w is not None)
    assert got["bins"]["NullValue"]["ratio"] == pytest.approx(got["bins"]["NullValue"]["absolute"] / total)


def test_boundaries_by_hand(spark):
    """0..20 in 4 bins: edges 0, 5, 10, 15, 20; 5 starts bin 1 ([a, b) bins) and 20, the max, is in the last,
    closed bin: 5, 5, 5, 6. 0.0..1.0 by 0.1 in 10 bins: edge 3 is 3 * 0.1 = 0.30000000000000004 > 0.3, so 0.3
    falls in [0.2, 0.30000000000000004) - membership follows the printed edges (numpy agrees)."""
    a = Histogram("i", bin_count=4)
    got = value(run_analysis(spark.createDataFrame([(i,) for i in range(21)], "i long"), [a]), a)
    assert bins_of(got) == {"[0.0, 5.0)": 5, "[5.0, 10.0)": 5, "[10.0, 15.0)": 5, "[15.0, 20.0]": 6}
    tenths = [round(i / 10, 1) for i in range(11)]
    a = Histogram("x", bin_count=10)
    got = value(run_analysis(spark.createDataFrame([(v,) for v in tenths], "x double"), [a]), a)
    assert got["edges"][3] == 0.30000000000000004
    assert list(bins_of(got).values()) == list(np.histogram(tenths, bins=10)[0])


def test_a_float_column_is_binned_by_its_printed_values(spark):
    """A 32-bit float 1.1 is read back as the double 1.1 from the table's text (not 1.100000023841858)."""
    a = Histogram("f", bin_count=2)
    got = value(run_analysis(spark.createDataFrame([(1.1,), (2.2,), (3.3,)], "f float"), [a]), a)
    assert got["edges"][0] == 1.1 and got["edges"][-1] == 3.3
    assert list(bins_of(got).values()) == list(np.histogram([1.1, 2.2, 3.3], bins=2)[0])


# ---------------------------------------------------------------------------------------------------------------
# Equal-width edge cases: constant, all-null, empty, NaN/inf, too wide a range, where-filter
# ---------------------------------------------------------------------------------------------------------------

EDGE_ROWS = [(1, 3.0, None, 1.0, 0.0), (2, 3.0, None, math.nan, 1.0), (3, 3.0, None, 3.0, 2.0),
             (4, None, None, math.inf, 3.0), (5, 3.0, None, 2.0, 100.0)]
CONSTANT = Histogram("c", bin_count=5)
ALL_NULL = Histogram("nulls", bin_count=3)
NON_FINITE = Histogram("f", bin_count=2)
FILTERED = Histogram("g", bin_count=3, where="g < 50")
CONSTANT_SUM_RAW = Histogram("c", bin_count=2, sum_column="g", frequencies_as_ratio=False)


@pytest.fixture(scope="module")
def edge_ctx(spark):
    df = spark.createDataFrame(EDGE_ROWS, "id int, c double, nulls double, f double, g double")
    return run_analysis(df, [CONSTANT, ALL_NULL, NON_FINITE, FILTERED, CONSTANT_SUM_RAW])


def test_a_constant_column_has_one_bin(edge_ctx):
    """c = 3 four times and one null: one bin [3.0, 3.0] (Deequ: bin_count degenerate bins, or a division
    by zero under ANSI); numpy would widen the range to 2.5..3.5 instead."""
    got = value(edge_ctx, CONSTANT)
    assert bins_of(got) == {"[3.0, 3.0]": 4, "NullValue": 1} and got["edges"] == [3.0, 3.0]
    assert got["number_of_bins"] == 2 and got["bins"]["[3.0, 3.0]"]["ratio"] == 4 / 5
    # sums of g by c, ratios off: 0 + 1 + 2 + 100 = 103 in the bin, 3 in NullValue
    assert {k: (b["absolute"], b["ratio"]) for k, b in value(edge_ctx, CONSTANT_SUM_RAW)["bins"].items()} == {
        "[3.0, 3.0]": (103.0, 103.0), "NullValue": (3.0, 3.0)}


def test_an_all_null_column_has_only_the_null_bucket(edge_ctx):
    """HistogramBinnedTest "handle all null data gracefully": success, no data bins, the nulls apart (4 there;
    5 here), so no edges."""
    got = value(edge_ctx, ALL_NULL)
    assert got["bins"] == {"NullValue": {"absolute": 5, "ratio": 1.0}} and got["edges"] == []
    assert got["number_of_bins"] == 1


def test_nan_and_infinity_fail_with_advice_that_works(spark, edge_ctx):
    msg = error(edge_ctx, NON_FINITE)
    assert "'f'" in msg and "NaN or infinite" in msg
    advice = msg.split('where="')[1].rstrip('"')
    fixed = Histogram("f", bin_count=2, where=advice)
    df = spark.createDataFrame(EDGE_ROWS, "id int, c double, nulls double, f double, g double")
    # finite f: 1, 3, 2 (the null-free rows) -> edges 1, 2, 3: [1.0, 2.0) 1, [2.0, 3.0] 2
    assert bins_of(value(run_analysis(df, [fixed]), fixed)) == {"[1.0, 2.0)": 1, "[2.0, 3.0]": 2}


def test_edges_come_from_the_filtered_rows(edge_ctx):
    """g < 50: 0, 1, 2, 3 -> edges 0, 1, 2, 3; 100 is filtered out, not the max."""
    got = value(edge_ctx, FILTERED)
    assert got["edges"] == [0.0, 1.0, 2.0, 3.0]
    assert bins_of(got) == {"[0.0, 1.0)": 1, "[1.0, 2.0)": 1, "[2.0, 3.0]": 2}


def test_empty_data_and_too_wide_a_range_fail(spark):
    a = Histogram("x", bin_count=3)
    assert "no rows" in error(run_analysis(spark.createDataFrame([], "x double"), [a]), a)
    wide = spark.createDataFrame([(-1e308,), (1e308,)], "x double")  # max - min overflows to inf
    assert "too wide" in error(run_analysis(wide, [a]), a)
    text = Histogram("s", bin_count=3)
    assert "numeric" in error(run_analysis(spark.createDataFrame([("a",)], "s string"), [text]), text)


# ---------------------------------------------------------------------------------------------------------------
# Incremental states: the value table merges exactly, so edges are those of the union
# ---------------------------------------------------------------------------------------------------------------

DELTA_1 = [(0.0, "a", 1), (2.5, "b", 2), (10.0, "a", None), (None, "b", 4)]
DELTA_2 = [(-5.0, "c", 10), (30.0, "a", 20), (7.5, None, 30), (12.0, "c", -3)]
INCREMENTAL = [Histogram("x", bin_count=4), Histogram("x", bin_count=4, sum_column="w"),
               Histogram("k", sum_column="w"), Histogram("x", bins=(0, 10), sum_column="w", frequencies_as_ratio=False)]


def test_incremental_runs_equal_a_batch_run_and_numpy(spark, tmp_path):
    """Delta 1's range is 0..10, delta 2's -5..30: each delta's own edges differ, but the stored state is the value
    table, so the merged histogram is the histogram of the union (Deequ refuses to merge binned states)."""
    schema = "x double, k string, w int"
    first, second = FileSystemStateStore(tmp_path / "one"), FileSystemStateStore(tmp_path / "two")
    AnalysisRunner.on_data(spark.createDataFrame(DELTA_1, schema)).add_analyzers(INCREMENTAL) \
        .save_states_with(first).run()
    merged = AnalysisRunner.on_data(spark.createDataFrame(DELTA_2, schema)).add_analyzers(INCREMENTAL) \
        .aggregate_with(first).run()
    batch = run_analysis(spark.createDataFrame(DELTA_1 + DELTA_2, schema), INCREMENTAL)
    AnalysisRunner.on_data(spark.createDataFrame(DELTA_2, schema)).add_analyzers(INCREMENTAL) \
        .save_states_with(second).run()
    combined = run_on_aggregated_states(spark, INCREMENTAL, [first, second])
    for a in INCREMENTAL:
        assert value(merged, a) == value(batch, a) == value(combined, a), a.spec()
    xs = [x for x, _, _ in DELTA_1 + DELTA_2 if x is not None]
    counts, edges = np.histogram(xs, bins=4)  # -5, 3.75, 12.5, 21.25, 30
    got = value(merged, INCREMENTAL[0])
    assert got["edges"] == list(edges) and list(bins_of(got).values()) == list(counts) + [1]
    # w by k over both deltas: a 1 + 20 (+ null) = 21, b 2 + 4 = 6, c 10 - 3 = 7, null 30
    assert bins_of(value(merged, INCREMENTAL[2])) == {"NullValue": 30, "a": 21, "c": 7, "b": 6}


def test_merging_a_long_sum_with_a_double_sum(spark, tmp_path):
    """w is int in delta 1 and double in delta 2 (type drift): the stored long sums and the new double sums
    widen to double when merged: a 1 + 0.5, b 2 + 0.25."""
    a = Histogram("k", sum_column="w")
    store = FileSystemStateStore(tmp_path / "s")
    AnalysisRunner.on_data(spark.createDataFrame([("a", 1), ("b", 2)], "k string, w int")).add_analyzer(a) \
        .save_states_with(store).run()
    ctx = AnalysisRunner.on_data(spark.createDataFrame([("a", 0.5), ("b", 0.25)], "k string, w double")) \
        .add_analyzer(a).aggregate_with(store).run()
    assert bins_of(value(ctx, a)) == {"a": 1.5, "b": 2.25}


# ---------------------------------------------------------------------------------------------------------------
# Identity: specs and state keys of existing histograms do not change; tables are shared only when harmless
# ---------------------------------------------------------------------------------------------------------------

def test_existing_specs_and_state_keys_are_unchanged():
    old = "Histogram(column='x', bins=None, bin_expression=None, max_bins=1000, where=None)"
    assert Histogram("x").spec() == old
    assert Histogram("x", bin_count=None, sum_column=None, frequencies_as_ratio=True).spec() == old
    assert Histogram("x", bin_count=4).spec() == old[:-1] + ", bin_count=4)"
    assert Histogram("x", sum_column="w", frequencies_as_ratio=False).spec() == \
        old[:-1] + ", sum_column='w', frequencies_as_ratio=False)"
    # the dataclass repr the state store keyed frequency tables by before sum_column existed
    spec = FrequencySpec(("x",), None, keep_nulls=True)
    assert frequency_key(spec) == \
        "frequencies:FrequencySpec(columns=('x',), where=None, keep_nulls=True, bins=None, bin_expression=None)"
    summed = FrequencySpec(("x",), None, keep_nulls=True, sum_column="w")
    assert summed != spec and frequency_key(summed) == frequency_key(spec)[:-1] + ", sum_column='w')"


def test_which_histograms_share_a_frequency_table():
    """bin_count bins the value table of Histogram(column): one group-by for both. A sum table is its own (its
    merge sums a column the count-only analyzers do not have, and its state key differs)."""
    assert Histogram("x", bin_count=3).frequency_spec() == Histogram("x").frequency_spec()
    assert Histogram("x", frequencies_as_ratio=False).frequency_spec() == Histogram("x").frequency_spec()
    assert Histogram("x", sum_column="w").frequency_spec() != Histogram("x").frequency_spec()


# ---------------------------------------------------------------------------------------------------------------
# Bad combinations, checks and the checks-file loader
# ---------------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize(("kwargs", "match"), [
    ({"bin_count": 3, "bins": (1, 2)}, "one of bin_count"),
    ({"bin_count": 3, "bin_expression": "x"}, "one of bin_count"),
    ({"bin_count": 0}, "bin_count must be an integer from 1 to 1000"),
    ({"bin_count": 1001}, "bin_count must be an integer from 1 to 1000"),  # Deequ: more than 1000 bins fails
    ({"bin_count": True}, "bin_count"),
    ({"bin_count": 2.5}, "bin_count"),
    ({"bin_count": 3, "max_bins": 10}, "leave max_bins out"),
    ({"sum_column": ""}, "sum_column must name"),
    ({"sum_column": 3}, "sum_column must name"),
    ({"frequencies_as_ratio": "no"}, "frequencies_as_ratio must be True or False"),
])
def test_bad_combinations_fail_at_construction(kwargs, match):
    with pytest.raises(ValueError, match=match):
        Histogram("x", **kwargs)
    if set(kwargs) <= {"bin_count", "max_bins", "sum_column", "frequencies_as_ratio"}:  # the check's options
        with pytest.raises(ValueError, match=match):
            Check("error", "c").has_histogram_values("x", lambda b: True, **kwargs)


def test_has_histogram_values_passes_the_options_through(spark):
    """x = 0, 1, 2, 3 in 2 bins: edges 0, 1.5, 3 -> [0.0, 1.5) holds 0, 1 (w 10 + 20), [1.5, 3.0] holds 2, 3."""
    df = spark.createDataFrame([(0.0, 10), (1.0, 20), (2.0, 30), (3.0, 40)], "x double, w int")
    check = (Check("error", "hist")
             .has_histogram_values("x", lambda b: b["[0.0, 1.5)"] == {"absolute": 2, "ratio": 0.5}, bin_count=2)
             .has_histogram_values("x", lambda b: b["[1.5, 3.0]"] == {"absolute": 70, "ratio": 70.0}, bin_count=2,
                                   sum_column="w", frequencies_as_ratio=False)
             .has_histogram_values("x", lambda b: b["[1.5, 3.0]"]["ratio"] == 0.5, bin_count=2, sum_column="w"))
    results = VerificationSuite().on_data(df).add_check(check).run().check_results[0].constraint_results
    assert [(r.constraint.split(" ")[0], r.status) for r in results] == [
        ("has_histogram_values(x,", "Success"), ("has_histogram_values(x,", "Success"),
        ("has_histogram_values(x,", "Failure")]  # 70 of 100 is 0.7, not 0.5
    assert [r.constraint.split(")")[0] + ")" for r in results] == [
        "has_histogram_values(x, bin_count=2)",
        "has_histogram_values(x, bin_count=2, sum_column=w, frequencies_as_ratio=False)",
        "has_histogram_values(x, bin_count=2, sum_column=w)"]


def test_checks_files_build_histograms_with_the_options():
    built = analyzer_from_dict({"type": "Histogram", "column": "x", "bin_count": 4, "sum_column": "w",
                                "frequencies_as_ratio": False})
    assert built == Histogram("x", bin_count=4, sum_column="w", frequencies_as_ratio=False)
    with pytest.raises(ValueError, match="one of bin_count"):
        analyzer_from_dict({"type": "Histogram", "column": "x", "bin_count": 4, "bins": [1, 2]})
