"""Metric values of every analyzer on small hand-computed fixtures, edge cases and scan sharing (Deequ §3.1, §4).

Every expected value is derived by hand in the comments (or with plain Python from the fixture rows), never
copied from an output of the code under test. The fixtures are tiny and each module-scoped fixture answers
many analyzers with ONE ``run_analysis`` call, so the whole file costs a handful of Spark queries.
"""

from __future__ import annotations

import json
import math
import uuid

import pytest

from lakeindex.metrics import (
    AnalysisRunner,
    ApproxCountDistinct,
    ApproxQuantile,
    ApproxQuantiles,
    Completeness,
    Compliance,
    Correlation,
    CountDistinct,
    DataType,
    Distinctness,
    Entropy,
    Histogram,
    Maximum,
    MaxLength,
    Mean,
    Metric,
    Minimum,
    MinLength,
    MutualInformation,
    PatternMatch,
    Size,
    StandardDeviation,
    Sum,
    Uniqueness,
    UniqueValueRatio,
    Variance,
    run_analysis,
)

# The main fixture. Columns: id int, x/y double, s/k/v string, flag boolean.
MAIN_SCHEMA = "id int, x double, y double, s string, k string, v string, flag boolean"
MAIN_ROWS = [
    (1, 1.0, 2.0, "a", "p", "1", True),
    (2, 2.0, 4.0, "é", "p", "2.5", False),
    (3, 3.0, 5.0, "日本", "q", "true", True),
    (4, 4.0, 4.0, "a", "p", "abc", None),
    (5, None, 1.0, None, "q", None, True),
    (6, 6.0, None, "bcd", None, "-3", False),
]


def value(ctx, analyzer):
    """The metric's value, failing the test with the metric's error if it did not succeed."""
    m = ctx.metric(analyzer)
    assert m is not None, f"no metric for {analyzer.spec()}"
    assert m.ok, f"{analyzer.spec()} failed: {m.error}"
    return m.value


def error(ctx, analyzer) -> str:
    """The error of a metric that must have failed."""
    m = ctx.metric(analyzer)
    assert m is not None, f"no metric for {analyzer.spec()}"
    assert not m.ok, f"{analyzer.spec()} should have failed but gave {m.value!r}"
    assert m.value is None
    assert isinstance(m.error, str) and m.error
    return m.error


# ---------------------------------------------------------------------------------------------------------------
# Hand-computed metrics on the main fixture: one run answers every analyzer below.
# ---------------------------------------------------------------------------------------------------------------

SCAN = {
    # Size: 6 rows; with where id > 4: rows 5 and 6.
    Size(): 6.0,
    Size(where="id > 4"): 2.0,
    # Completeness: x is null in row 5 only -> 5/6; s null in row 5 -> 5/6.
    Completeness("x"): 5 / 6,
    Completeness("s"): 5 / 6,
    # where id <= 4: x is non-null in all of rows 1-4 -> 4/4; where id >= 5: s is null in 5, "bcd" in 6 -> 1/2.
    Completeness("x", where="id <= 4"): 1.0,
    Completeness("s", where="id >= 5"): 1 / 2,
    # where x > 2 keeps rows 3, 4, 6 (row 5's null x does not pass); y is null in row 6 -> 2/3.
    Completeness("y", where="x > 2"): 2 / 3,
    # x <= y: 1<=2 T, 2<=4 T, 3<=5 T, 4<=4 T, row 5 null x -> null -> non-compliant, row 6 null y -> non-compliant: 4/6.
    Compliance("x_le_y", "x <= y"): 4 / 6,
    # x > 2: rows 3, 4, 6 true; row 5 null -> non-compliant: 3/6.
    Compliance("x_gt_2", "x > 2"): 3 / 6,
    # The same predicate restricted to rows 1-4: all four comply.
    Compliance("x_le_y_head", "x <= y", where="id <= 4"): 1.0,
    # PatternMatch divides by the NON-NULL values (documented choice): s non-null = a, é, 日本, a, bcd (5);
    # ^[a-z]+$ matches a, a, bcd (é and 日本 are not [a-z]) -> 3/5 (it would be 3/6 over all rows).
    PatternMatch("s", r"^[a-z]+$"): 3 / 5,
    # v non-null = "1", "2.5", "true", "abc", "-3"; ^-?\d+$ matches "1" and "-3" -> 2/5.
    PatternMatch("v", r"^-?\d+$"): 2 / 5,
    # x non-null = 1, 2, 3, 4, 6.
    Minimum("x"): 1.0,
    Maximum("x"): 6.0,
    Sum("x"): 16.0,  # 1+2+3+4+6
    Mean("x"): 3.2,  # 16/5
    Mean("x", where="id <= 2"): 1.5,  # (1+2)/2
    Mean("id"): 3.5,  # int column: 21/6
    # y non-null = 2, 4, 5, 4, 1.
    Minimum("y"): 1.0,
    Maximum("y"): 5.0,
    # Population standard deviation of x: mean 3.2, deviations -2.2 -1.2 -0.2 0.8 2.8,
    # squares 4.84 + 1.44 + 0.04 + 0.64 + 7.84 = 14.8, / 5 = 2.96.
    StandardDeviation("x"): math.sqrt(2.96),
    # y: mean 16/5 = 3.2, deviations -1.2 0.8 1.8 0.8 -2.2, squares 1.44+0.64+3.24+0.64+4.84 = 10.8, / 5 = 2.16.
    StandardDeviation("y"): math.sqrt(2.16),
    # Pearson over rows where both are non-null (1-4): x = 1 2 3 4 (mean 2.5), y = 2 4 5 4 (mean 3.75);
    # dx = -1.5 -.5 .5 1.5, dy = -1.75 .25 1.25 .25; Σdxdy = 2.625-.125+.625+.375 = 3.5,
    # Σdx² = 5, Σdy² = 3.0625+.0625+1.5625+.0625 = 4.75 -> r = 3.5 / sqrt(5 * 4.75).
    Correlation("x", "y"): 3.5 / math.sqrt(5 * 4.75),
    # Lengths in characters: a=1, é=1, 日本=2, a=1, bcd=3 (in UTF-8 bytes é is 2 and 日本 is 6).
    MinLength("s"): 1.0,
    MaxLength("s"): 3.0,
    MinLength("s", where="id in (2, 3)"): 1.0,  # "é": 1 character, 2 bytes
    MaxLength("s", where="id in (2, 3)"): 2.0,  # "日本": 2 characters, 6 bytes
    # Distinct non-null values (HLL is exact for a handful of values): s = {a, é, 日本, bcd}, x = 5 values, k = {p, q}.
    ApproxCountDistinct("s"): 4.0,
    ApproxCountDistinct("x"): 5.0,
    ApproxCountDistinct("k"): 2.0,
}

# Quantiles (exact below the KLL compaction threshold). Definition: the smallest value v with #{x <= v} >= q * n,
# i.e. Spark's percentile_approx and kll_sketch_get_quantile_double. x sorted = [1, 2, 3, 4, 6] (n = 5):
# q=.25 needs 1.25 values -> 2; q=.5 needs 2.5 -> 3; q=.75 needs 3.75 -> 4; q=0 -> min 1; q=1 -> max 6.
# With where id <= 4: [1, 2, 3, 4] (n = 4): q=.5 needs 2 values -> 2; q=.25 needs 1 -> 1.
QUANTILES = {
    ApproxQuantile("x", 0.5): 3.0,
    ApproxQuantile("x", 0.5, where="id <= 4"): 2.0,
    ApproxQuantile("x", 0.25, where="id <= 4"): 1.0,
    ApproxQuantiles("x", (0.0, 0.25, 0.5, 0.75, 1.0)): {"0.0": 1.0, "0.25": 2.0, "0.5": 3.0, "0.75": 4.0, "1.0": 6.0},
}


def types(unknown=0, fractional=0, integral=0, boolean=0, string=0):
    counts = {"Unknown": unknown, "Fractional": fractional, "Integral": integral, "Boolean": boolean,
              "String": string}
    total = sum(counts.values())
    return {t: {"absolute": c, "ratio": c / total} for t, c in counts.items()}


DATATYPES = {
    # v = "1" (Integral), "2.5" (Fractional), "true" (Boolean), "abc" (String), null (Unknown), "-3" (Integral).
    # Any String value makes the column String.
    DataType("v"): ("String", types(unknown=1, fractional=1, integral=2, boolean=1, string=1)),
    DataType("v", where="id in (1, 6)"): ("Integral", types(integral=2)),  # "1", "-3"
    DataType("v", where="id in (1, 2, 6)"): ("Fractional", types(integral=2, fractional=1)),  # Fractional wins
    DataType("v", where="id = 3"): ("Boolean", types(boolean=1)),
    DataType("v", where="id in (1, 3)"): ("String", types(integral=1, boolean=1)),  # booleans mixed with numbers
    DataType("v", where="id = 5"): ("Unknown", types(unknown=1)),  # only a null
    # Typed columns classify by their text: doubles print as 1.0 (Fractional), ints as 1, booleans as true/false.
    DataType("x"): ("Fractional", types(unknown=1, fractional=5)),
    DataType("id"): ("Integral", types(integral=6)),
    DataType("flag"): ("Boolean", types(unknown=1, boolean=5)),
}


def entropy(counts: list[int]) -> float:
    n = sum(counts)
    return -sum(c / n * math.log(c / n) for c in counts)


GROUPING = {
    # s non-null: a ×2, é, 日本, bcd -> N = 5, |V| = 4, values seen once = 3.
    Uniqueness("s"): 3 / 5,  # |{v: c_v = 1}| / N
    Distinctness("s"): 4 / 5,  # |V| / N
    UniqueValueRatio("s"): 3 / 4,  # |{v: c_v = 1}| / |V|
    CountDistinct("s"): 4.0,
    # -(2/5 ln 2/5 + 3 · 1/5 ln 1/5)
    Entropy("s"): -(0.4 * math.log(0.4) + 3 * 0.2 * math.log(0.2)),
    # (s, k) over the 6 rows with at least one non-null: (a,p) ×2, (é,p), (日本,q), (null,q), (bcd,null)
    # -> N = 6, |V| = 5, singletons = 4.
    Uniqueness(("s", "k")): 4 / 6,
    Distinctness(("s", "k")): 5 / 6,
    UniqueValueRatio(("s", "k")): 4 / 5,
    CountDistinct(("s", "k")): 5.0,
    # MI = Σ c_ab/N ln(c_ab N / (c_a c_b)), marginals s: a 2, others 1; k: p 3, q 2, null 1:
    # (a,p) 2/6 ln(12/6) + (é,p) 1/6 ln(6/3) + (日本,q) 1/6 ln(6/2) + (null,q) 1/6 ln(6/2) + (bcd,null) 1/6 ln(6/1)
    MutualInformation(("s", "k")): 0.5 * math.log(2) + math.log(3) / 3 + math.log(6) / 6,
}

HISTOGRAMS = {
    # Nulls form the "NullValue" bucket; ratios are over all 6 rows.
    Histogram("s"): ({"a": 2, "é": 1, "日本": 1, "bcd": 1, "NullValue": 1}, 5, (0, 0)),
    # max_bins=1: only the most frequent value ("a", the only count of 2); the other 4 buckets (4 rows) form the tail.
    Histogram("s", max_bins=1): ({"a": 2}, 5, (4, 4)),
    # Numeric bins with edges 2 and 4: x = 1 -> (-inf, 2.0); 2, 3 -> [2.0, 4.0); 4, 6 -> [4.0, inf); null.
    Histogram("x", bins=(2, 4)): ({"(-inf, 2.0)": 1, "[2.0, 4.0)": 2, "[4.0, inf)": 2, "NullValue": 1}, 4, (0, 0)),
    # A Spark SQL binning expression: k = p p q p q null -> P ×3, Q ×2, null.
    Histogram("k", bin_expression="upper(k)"): ({"P": 3, "Q": 2, "NullValue": 1}, 3, (0, 0)),
}


@pytest.fixture(scope="module")
def main_df(spark):
    return spark.createDataFrame(MAIN_ROWS, MAIN_SCHEMA)


@pytest.fixture(scope="module")
def main_ctx(main_df):
    analyzers = [*SCAN, *QUANTILES, *DATATYPES, *GROUPING, *HISTOGRAMS]
    return run_analysis(main_df, analyzers)


@pytest.mark.parametrize("analyzer", list(SCAN), ids=lambda a: a.spec())
def test_scan_metric_values(main_ctx, analyzer):
    assert value(main_ctx, analyzer) == pytest.approx(SCAN[analyzer], rel=1e-12)


def test_ratio_metrics_report_their_counts(main_ctx):
    # Completeness(x) = 5 non-null of 6 rows; PatternMatch(s) = 3 matches of 5 non-null values.
    m = main_ctx.metric(Completeness("x"))
    assert (m.extra["matches"], m.extra["rows"]) == (5, 6)
    m = main_ctx.metric(PatternMatch("s", r"^[a-z]+$"))
    assert (m.extra["matches"], m.extra["rows"]) == (3, 5)


def test_sketch_relative_error_is_a_positive_bound(main_ctx):
    # lg k = 12: HLL's relative standard error is ~1.04/sqrt(4096) = 1.6%, two standard deviations ~3.3%.
    rel = main_ctx.metric(ApproxCountDistinct("s")).extra["relative_error"]
    assert 0.02 < rel < 0.05


@pytest.mark.parametrize("analyzer", list(QUANTILES), ids=lambda a: a.spec())
def test_quantiles(main_ctx, analyzer):
    assert value(main_ctx, analyzer) == QUANTILES[analyzer]


def test_quantiles_agree_with_spark_percentile_approx(main_ctx, main_df):
    """The sketch's quantile definition is Spark's own (percentile_approx / kll_sketch_get_quantile_double)."""
    from pyspark.sql import functions as F

    row = main_df.where("id <= 4").agg(F.percentile_approx("x", [0.25, 0.5, 0.75]).alias("p")).collect()[0]
    got = value(main_ctx, ApproxQuantile("x", 0.5, where="id <= 4"))
    assert got == row["p"][1]
    assert value(main_ctx, ApproxQuantile("x", 0.25, where="id <= 4")) == row["p"][0]


@pytest.mark.parametrize("analyzer", list(DATATYPES), ids=lambda a: a.spec())
def test_datatype(main_ctx, analyzer):
    dominant, expected = DATATYPES[analyzer]
    got = value(main_ctx, analyzer)
    assert got["dominant"] == dominant
    assert got["types"] == expected


def test_datatype_classifies_string_formats(spark):
    # Integral: "  7 " (surrounding blanks), "+4", "0"; Fractional: "1e5", ".5", "1.", "-2.5E-3", "NaN";
    # Boolean: "TRUE", "False" (any case); String: "x1", "" (empty is a value, not null), "1.2.3", "0x10".
    values = ["  7 ", "+4", "0", "1e5", ".5", "1.", "-2.5E-3", "NaN", "TRUE", "False", "x1", "", "1.2.3", "0x10", None]
    df = spark.createDataFrame([(v,) for v in values], "v string")
    ctx = run_analysis(df, [DataType("v"), DataType("v", where="v rlike '^[0-9. +eE-]*$' and v != ''")])
    got = value(ctx, DataType("v"))
    assert got["dominant"] == "String"
    assert got["types"] == types(unknown=1, integral=3, fractional=5, boolean=2, string=4)
    # The filter keeps "  7 ", "+4", "0", "1e5", ".5", "1.", "-2.5E-3", "1.2.3": 3 Integral, 4 Fractional, 1 String
    got = value(ctx, DataType("v", where="v rlike '^[0-9. +eE-]*$' and v != ''"))
    assert got["types"] == types(integral=3, fractional=4, string=1)
    assert got["dominant"] == "String"


def test_datatype_prefilter_agrees_with_the_regexes(spark):
    # The first-character shortcut must never change a class: compare it value by value with the
    # plain regex CASE on values that start with every kind of character, blank or not.
    from pyspark.sql import functions as F

    from lakeindex.metrics.datatype import BOOLEAN_RE, FRACTIONAL_RE, INTEGRAL_RE

    values = ["7", " 7", "\t7", "\n-7 ", "\x0b+7", "\f.5", "\r1e5", "  NaN", "Infinity", "-Infinity", "+Infinity",
              " true", "TRUE", "\tfalse", "fAlSe", "x1", "", "   ", "\u00a01", "\u0661\u0662", "é", "nan", "inf",
              "T", "f1", "-", "+", ".", "0x10", "1.2.3", "\u2028", "N", "I"]
    df = spark.createDataFrame([(v,) for v in values], "v string")
    s = F.col("v")
    plain = (F.when(s.isNull(), 0).when(s.rlike(INTEGRAL_RE), 2).when(s.rlike(FRACTIONAL_RE), 1)
             .when(s.rlike(BOOLEAN_RE), 3).otherwise(4))
    (name, code), = DataType("v").projections().items()
    rows = df.select("v", plain.alias("plain"), code.alias("fast")).collect()
    assert [(r.v, r.fast) for r in rows] == [(r.v, r.plain) for r in rows]
    assert {r.plain for r in rows} == {1, 2, 3, 4}  # the fixture exercises every non-null class


@pytest.mark.parametrize("analyzer", list(GROUPING), ids=lambda a: a.spec())
def test_grouping_metric_values(main_ctx, analyzer):
    assert value(main_ctx, analyzer) == pytest.approx(GROUPING[analyzer], rel=1e-12)


def test_grouping_identities(main_ctx):
    """Cross-checks independent of the hand arithmetic: MI(s, k) = H(s) + H(k) - H(s, k) on the same rows."""
    # The MI rows are the 6 rows with s or k non-null, nulls as values: s = a a é 日本 null bcd, k = p p p q q null.
    h_s = entropy([2, 1, 1, 1, 1])
    h_k = entropy([3, 2, 1])
    h_sk = entropy([2, 1, 1, 1, 1])  # (a,p) ×2 and four singletons
    assert value(main_ctx, MutualInformation(("s", "k"))) == pytest.approx(h_s + h_k - h_sk, rel=1e-12)
    # Uniqueness = UniqueValueRatio × Distinctness (singletons/N = singletons/|V| · |V|/N)
    for c in ("s", ("s", "k")):
        assert value(main_ctx, Uniqueness(c)) == pytest.approx(
            value(main_ctx, UniqueValueRatio(c)) * value(main_ctx, Distinctness(c)))


@pytest.mark.parametrize("analyzer", list(HISTOGRAMS), ids=lambda a: a.spec())
def test_histograms(main_ctx, analyzer):
    counts, number_of_bins, (tail_bins, tail_rows) = HISTOGRAMS[analyzer]
    got = value(main_ctx, analyzer)
    rows = 6
    assert got["bins"] == {label: {"absolute": c, "ratio": c / rows} for label, c in counts.items()}
    assert got["number_of_bins"] == number_of_bins
    assert got["tail"] == {"bins": tail_bins, "absolute": tail_rows, "ratio": tail_rows / rows}
    # every row lands in exactly one bucket, shown or in the tail
    assert sum(b["absolute"] for b in got["bins"].values()) + got["tail"]["absolute"] == rows


def test_histogram_rejects_bad_parameters():
    with pytest.raises(ValueError):
        Histogram("x", bins=())  # no edges (unsorted ones are sorted, as in Deequ: see below)
    with pytest.raises(ValueError):
        Histogram("x", bins=(1, 2), bin_expression="x")
    with pytest.raises(ValueError):
        Histogram("x", max_bins=0)
    with pytest.raises(ValueError):
        MutualInformation(("a", "b", "c"))


def test_metric_identity_and_entities(main_ctx):
    assert main_ctx.metric(Compliance("x_le_y", "x <= y")).instance == "x_le_y"
    assert main_ctx.metric(Compliance("x_le_y", "x <= y")).entity == "Dataset"
    assert main_ctx.metric(Size()).instance == "*"
    assert main_ctx.metric(Correlation("x", "y")).instance == "x,y"
    assert main_ctx.metric(Correlation("x", "y")).entity == "Multicolumn"
    assert main_ctx.metric(Uniqueness(("s", "k"))).instance == "s,k"
    # a column given as a string or a 1-tuple is the same analyzer
    assert Uniqueness("s") == Uniqueness(("s",))
    assert main_ctx.metric(Uniqueness(("s",))) is main_ctx.metric(Uniqueness("s"))


# ---------------------------------------------------------------------------------------------------------------
# Edge cases
# ---------------------------------------------------------------------------------------------------------------

def test_empty_dataframe(spark):
    df = spark.createDataFrame([], "x double, s string")
    ratios = [Completeness("x"), Compliance("pos", "x > 0"), PatternMatch("s", "a"), Uniqueness("s"),
              Distinctness("s"), UniqueValueRatio("s"), Entropy("s"),
              MutualInformation(("x", "s")), Histogram("s"), DataType("s")]
    means = [Mean("x"), Sum("x"), Minimum("x"), Maximum("x"), StandardDeviation("x"), Correlation("x", "x"),
             MinLength("s"), MaxLength("s"), ApproxQuantile("x"), ApproxQuantiles("x")]
    ctx = run_analysis(df, [Size(), ApproxCountDistinct("s"), CountDistinct("s"), *ratios, *means])
    assert len(ctx) == 3 + len(ratios) + len(means)
    assert value(ctx, Size()) == 0.0  # Size 0 is a valid measurement
    assert value(ctx, ApproxCountDistinct("s")) == 0.0  # so is "no distinct values"
    assert value(ctx, CountDistinct("s")) == 0.0  # a count, not a ratio: Deequ gives 0
    for a in ratios + means:
        msg = error(ctx, a)
        assert a.spec() in msg and "no " in msg, msg


def test_all_null_and_nan_columns(spark):
    # n = 1.0, NaN, 3.0, null: NaN is a value (not null), as in Spark. z: all-null string. m: all-null double.
    rows = [(1.0, None, None), (float("nan"), None, None), (3.0, None, None), (None, None, None)]
    df = spark.createDataFrame(rows, "n double, z string, m double")
    nan_col = {
        Completeness("n"): 3 / 4,  # NaN counts as present
        Minimum("n"): 1.0,  # NaN is Spark's largest double, so min ignores it...
        CountDistinct("n"): 3.0,  # {1.0, NaN, 3.0}
        Uniqueness("n"): 1.0,  # each of the 3 non-null values once
        ApproxCountDistinct("n"): 3.0,
    }
    nan_results = [Mean("n"), Sum("n"), Maximum("n"), StandardDeviation("n")]  # ...and max/mean/sum/stddev are NaN
    all_null = {Completeness("z"): 0.0, Completeness("m"): 0.0, ApproxCountDistinct("z"): 0.0, Size(): 4.0,
                CountDistinct("z"): 0.0}  # Deequ: a count of no values is 0
    fail = [MinLength("z"), MaxLength("z"), PatternMatch("z", "x"), Uniqueness("z"),
            Distinctness("z"), UniqueValueRatio("z"), Entropy("z"), Mean("m"), Sum("m"), Minimum("m"), Maximum("m"),
            StandardDeviation("m"), Correlation("n", "m"), ApproxQuantile("m"), ApproxQuantiles("m")]
    extra = [DataType("n"), DataType("z"), Histogram("z"), Histogram("n")]
    ctx = run_analysis(df, [*nan_col, *nan_results, *all_null, *fail, *extra])
    for a, expected in {**nan_col, **all_null}.items():
        assert value(ctx, a) == pytest.approx(expected), a.spec()
    for a in nan_results:
        assert math.isnan(value(ctx, a)), a.spec()
    for a in fail:
        error(ctx, a)
    # NaN prints as "NaN": a Fractional value; the all-null column is Unknown
    assert value(ctx, DataType("n"))["types"] == types(unknown=1, fractional=3)
    assert value(ctx, DataType("n"))["dominant"] == "Fractional"
    assert value(ctx, DataType("z"))["dominant"] == "Unknown"
    assert value(ctx, DataType("z"))["types"]["Unknown"] == {"absolute": 4, "ratio": 1.0}
    # the all-null histogram is one NullValue bucket; NaN has its own bucket
    assert value(ctx, Histogram("z"))["bins"] == {"NullValue": {"absolute": 4, "ratio": 1.0}}
    assert set(value(ctx, Histogram("n"))["bins"]) == {"1.0", "NaN", "3.0", "NullValue"}
    # NaN survives JSON as text and back
    d = ctx.metric(Mean("n")).to_dict()
    assert d["value"] == "nan"
    assert math.isnan(Metric.from_dict(json.loads(json.dumps(d))).value)


def test_bad_analyzers_fail_alone(spark):
    """A missing column, a string column for a numeric metric and bad SQL fail their own metric only."""
    df = spark.createDataFrame([(1.0, "a"), (2.0, "b"), (4.0, "b")], "x double, s string")
    good = {
        Size(): 3.0,
        Mean("x"): 7 / 3,  # (1+2+4)/3
        Maximum("x"): 4.0,
        Compliance("x_pos", "x > 1"): 2 / 3,  # 2 and 4
        Uniqueness("s"): 1 / 3,  # a once, b twice: 1 singleton row of 3
        CountDistinct("s"): 2.0,
        Histogram("s", max_bins=1): None,
    }
    missing = [Mean("nope"), Completeness("nope"), Uniqueness("nope"), Histogram("nope"), DataType("nope"),
               ApproxCountDistinct("nope"), Correlation("x", "nope"), MutualInformation(("s", "nope"))]
    # analyzer -> the column of the wrong type its error must name
    wrong_type = {Mean("s"): "s", Sum("s"): "s", StandardDeviation("s"): "s", Minimum("s"): "s",
                  ApproxQuantile("s"): "s", Correlation("x", "s"): "s", Histogram("s", bins=(1.0,)): "s",
                  MinLength("x"): "x"}
    bad_sql = [Compliance("syntax", "x >>> ("), Compliance("unknown", "nope > 1"), Mean("x", where="x >>> ("),
               Uniqueness("s", where="x >>> ("), Entropy("s", where="nope > 1"),
               Histogram("s", bin_expression="no_such_function(s)")]
    ctx = run_analysis(df, [*good, *missing, *wrong_type, *bad_sql])
    for a, expected in good.items():
        if expected is not None:
            assert value(ctx, a) == pytest.approx(expected), a.spec()
    assert value(ctx, Histogram("s", max_bins=1))["bins"] == {"b": {"absolute": 2, "ratio": 2 / 3}}
    for a in missing:
        msg = error(ctx, a)
        assert "'nope'" in msg and "does not exist" in msg, msg
    for a, column in wrong_type.items():
        msg = error(ctx, a)
        assert f"column '{column}' has type" in msg, msg
    for a in bad_sql:
        msg = error(ctx, a)
        assert a.spec() in msg, msg


# ---------------------------------------------------------------------------------------------------------------
# Scan sharing (Deequ §4): count the Spark jobs of a run
# ---------------------------------------------------------------------------------------------------------------

WIDE_COLUMNS = [f"c{i}" for i in range(10)]


@pytest.fixture(scope="module")
def wide_df(spark):
    rows = [tuple(float((i + 1) * j % 7) for i in range(10)) for j in range(8)]
    return spark.createDataFrame(rows, ", ".join(f"{c} double" for c in WIDE_COLUMNS))


def count_jobs(spark, df, analyzers):
    """(number of Spark jobs, context) of one run_analysis, counted through a fresh job group."""
    sc = spark.sparkContext
    group = f"metrics-test-{uuid.uuid4().hex}"
    sc.setJobGroup(group, "x")
    try:
        ctx = run_analysis(df, analyzers)
    finally:
        sc.setLocalProperty("spark.jobGroup.id", None)
    failed = [m for m in ctx if not m.ok]
    assert not failed, failed
    return len(sc.statusTracker().getJobIdsForGroup(group)), ctx


def test_scan_analyzers_share_one_pass(spark, wide_df):
    one, _ = count_jobs(spark, wide_df, [Mean("c0")])
    kinds = [Completeness, Mean, Minimum, Maximum, StandardDeviation, ApproxCountDistinct, Sum, DataType,
             ApproxQuantile, lambda c: Compliance(f"{c}_pos", f"{c} >= 0")]
    # column i gets kinds i and i + 5: 20 different analyzers over the 10 columns
    twenty = [kinds[(i + shift) % len(kinds)](c) for i, c in enumerate(WIDE_COLUMNS) for shift in (0, 5)]
    assert len(set(twenty)) == 20
    many, ctx = count_jobs(spark, wide_df, twenty)
    assert one >= 1
    assert many == one, f"20 scan analyzers ran {many} jobs, 1 analyzer ran {one}"
    assert len(ctx) == 20


def test_grouping_analyzers_share_a_frequency_table(spark, wide_df):
    one, _ = count_jobs(spark, wide_df, [Uniqueness("c1")])
    same = [Uniqueness("c1"), Distinctness("c1"), UniqueValueRatio("c1"), CountDistinct("c1"), Entropy("c1")]
    n_same, ctx = count_jobs(spark, wide_df, same)
    assert n_same == one, f"5 analyzers on one column ran {n_same} jobs, 1 ran {one}"
    # two columns are two frequency tables: each needs its own group-by
    n_diff, _ = count_jobs(spark, wide_df, [Uniqueness("c1"), Distinctness("c2")])
    assert n_diff > n_same
    # values are still right when shared: c1 = (2j mod 7) for j = 0..7 -> 0 2 4 6 1 3 5 0
    assert value(ctx, CountDistinct("c1")) == 7.0
    assert value(ctx, Uniqueness("c1")) == pytest.approx(6 / 8)


def test_context_as_dataframe_and_dicts(spark, main_ctx):
    n = len(main_ctx)
    dicts = main_ctx.to_dicts()
    assert len(dicts) == n
    assert [d["analyzer"] for d in dicts] == [a.spec() for a in main_ctx.metric_map]
    json.dumps(dicts)  # JSON-able
    sdf = main_ctx.as_dataframe(spark)
    rows = sdf.collect()
    assert len(rows) == n
    assert sdf.columns == ["entity", "instance", "name", "analyzer", "value", "value_json", "error"]
    by_spec = {r["analyzer"]: r for r in rows}
    assert by_spec[Size().spec()]["value"] == 6.0 and by_spec[Size().spec()]["value_json"] is None
    hist = by_spec[Histogram("s").spec()]
    assert hist["value"] is None and json.loads(hist["value_json"])["bins"]["a"]["absolute"] == 2


def test_runner_builder_deduplicates(main_df):
    runner = AnalysisRunner.on_data(main_df).add_analyzers([Size(), Size(), Mean("x")]).add_analyzer(Mean("x"))
    assert runner.analyzers == [Size(), Mean("x")]
    with pytest.raises(TypeError):
        runner.add_analyzer("Size")


def test_deequ_parity_on_degenerate_columns(spark):
    """Deequ's documented results on degenerate data (issue 12), by hand: entropy and mutual information
    of a constant column are exactly 0 (not 2.2e-16); identical columns correlate at exactly 1.0; a
    constant column's correlation is NaN (an assertable value, not a failed metric); mutual information
    with an all-null column fails; a multi-column uniqueness is a Multicolumn metric."""
    df = spark.createDataFrame([(7.0, 1.0, "a", None), (7.0, 2.0, "a", None), (7.0, 3.5, "a", None),
                                (7.0, -4.0, "a", None)], "c double, x double, s string, z string")
    ctx = run_analysis(df, [Entropy("s"), MutualInformation(("s", "x")), Correlation("x", "x"),
                            Correlation("c", "x"), MutualInformation(("z", "x")), Uniqueness(("s", "x")),
                            Uniqueness("x")])
    assert value(ctx, Entropy("s")) == 0.0
    assert value(ctx, MutualInformation(("s", "x"))) == 0.0
    assert value(ctx, Correlation("x", "x")) == 1.0
    assert math.isnan(value(ctx, Correlation("c", "x")))
    error(ctx, MutualInformation(("z", "x")))
    assert ctx.metric(Uniqueness(("s", "x"))).entity == "Multicolumn"
    assert ctx.metric(Uniqueness("x")).entity == "Column"
    with pytest.raises(ValueError, match="at least one column"):
        Distinctness(())


def test_histogram_edges_follow_deequ(spark):
    """Deequ sorts custom bin edges, gives all-zero bins on empty data, and refuses more than 1,000 bins."""
    h = Histogram("x", bins=(10, 0, 5))
    assert h.bins == (0.0, 5.0, 10.0)
    empty = spark.createDataFrame([], "x double")
    got = value(run_analysis(empty, [h]), h)
    assert list(got["bins"]) == ["(-inf, 0.0)", "[0.0, 5.0)", "[5.0, 10.0)", "[10.0, inf)"]
    assert all(b == {"absolute": 0, "ratio": 0.0} for b in got["bins"].values())
    filled = value(run_analysis(spark.createDataFrame([(1.0,), (7.0,), (7.5,)], "x double"), [h]), h)
    assert filled["bins"]["[5.0, 10.0)"]["absolute"] == 2 and filled["bins"]["[0.0, 5.0)"]["absolute"] == 1
    with pytest.raises(ValueError, match="1000"):
        Histogram("x", max_bins=1001)
    with pytest.raises(ValueError, match="distinct"):
        Histogram("x", bins=(1, 1, 2))


def test_pattern_match_refuses_a_numeric_column_as_deequ(spark):
    df = spark.createDataFrame([(1, "a1"), (22, "b2")], "n int, s string")
    ctx = run_analysis(df, [PatternMatch("n", r"\d+"), PatternMatch("s", r"^[a-z]\d$")])
    assert "expected a string column" in error(ctx, PatternMatch("n", r"\d+"))
    assert value(ctx, PatternMatch("s", r"^[a-z]\d$")) == 1.0


def test_variance_is_the_population_variance(spark):
    """x = 1, 2, 3, 4 (and a null): mean 2.5, squared deviations 2.25 + 0.25 + 0.25 + 2.25 = 5, over n = 4."""
    df = spark.createDataFrame([(1.0,), (2.0,), (3.0,), (4.0,), (None,)], "x double")
    ctx = run_analysis(df, [Variance("x"), StandardDeviation("x"), Variance("x", where="x > 2")])
    assert value(ctx, Variance("x")) == pytest.approx(1.25)
    assert value(ctx, StandardDeviation("x")) == pytest.approx(1.25 ** 0.5)
    assert value(ctx, Variance("x", where="x > 2")) == pytest.approx(0.25)  # 3, 4: mean 3.5
