"""Row-level results (Deequ's ``VerificationResult.rowLevelResultsAsDataFrame``): one boolean column per check
and one per row-level constraint, TRUE pass / FALSE fail / NULL not judged.

Expected outcomes are Deequ's own test expectations (VerificationSuiteTest in awslabs/deequ, the test named
in each docstring, on the same fixture rows as Deequ's FixtureSupport) or hand computations in the comments.
Where ours deliberately differs from Deequ the test says so and asserts ours, computed by hand.
"""

from __future__ import annotations

import json
import math
import uuid

import pyarrow.parquet as pq
import pytest

from lakeindex.checks import Check, VerificationSuite
from lakeindex.checks.quarantine import failing_rows, write_quarantine
from lakeindex.cli import main
from tests.conftest import write_csv

T, F, N = True, False, None

# FixtureSupport.getDfCompleteAndInCompleteColumnsAndVarLengthStrings
VAR = ("item string, att1 string, att2 string, val1 int, val2 int",
       [("1", "a", "f", 1, 1), ("22", "b", "d", 2, None), ("333", "a", None, 3, 3), ("4444", "a", "f", 4, 4),
        ("55555", "b", None, 5, None), ("666666", "a", "f", 6, 6)])
# FixtureSupport.getDfCompleteAndInCompleteColumnsWithIntId
INT_ID = ("item int, att1 string, att2 string",
          [(1, "a", "f"), (2, "b", "d"), (3, "a", None), (4, "a", "f"), (5, "b", None), (6, "a", "f")])
# FixtureSupport.getDfWithNumericValues
NUMERIC = ("item string, att1 int, att2 int, att3 int, attNull int",
           [("1", 1, 0, 0, None), ("2", 2, 0, 0, None), ("3", 3, 0, 0, None), ("4", 4, 5, 4, 5), ("5", 5, 6, 6, 6),
            ("6", 6, 7, 7, 7)])
# FixtureSupport.getDfWithUniqueColumns
UNIQUE = ("unique string, nonUnique string, nonUniqueWithNulls string, uniqueWithNulls string, "
          "onlyUniqueWithOtherNonUnique string, halfUniqueCombinedWithNonUnique string",
          [("1", "0", "3", "1", "5", "0"), ("2", "0", "3", "2", "6", "0"), ("3", "0", "3", None, "7", "0"),
           ("4", "5", None, "3", "0", "4"), ("5", "6", None, "4", "0", "5"), ("6", "7", None, "5", "0", "6")])


def _df(spark, fixture):
    schema, rows = fixture
    return spark.createDataFrame(rows, schema)


def _run(df, *checks):
    return VerificationSuite().on_data(df).add_checks(checks).with_offending_samples(0).run()


def _columns(out, order):
    """{column name: [values in ``order``]} of a row-level result, from one collect."""
    rows = out.orderBy(order).collect()
    return {name: [r[i] for r in rows] for i, name in enumerate(out.columns)}


def test_deequ_row_level_results(spark):
    """VerificationSuiteTest "generate a result that contains row-level results" (one check per rule)."""
    df = _df(spark, VAR)
    checks = [Check("error", "rule1").is_complete("att1"),
              Check("error", "rule2").has_completeness("att2", "> 0.7"),
              Check("error", "rule3").is_primary_key("item"),
              Check("error", "rule4").has_min_length("item", ">= 1"),
              Check("error", "rule5").has_max_length("item", "<= 1"),
              Check("error", "rule6").has_pattern("att2", "[a-z]"),
              Check("error", "rule7").has_min("val1", "> 1"),
              Check("error", "rule8").has_max("val1", "<= 3"),
              Check("error", "rule9").satisfies("item < 1000", "rule9"),
              Check("error", "rule10").is_unique(["item", "att1"]),
              Check("error", "rule11").is_unique(["att1", "att2"])]
    result = _run(df, *checks)
    assert result.status == "Error"
    out = result.row_level_results(df, constraints=False)
    # Deequ: the data's columns plus one per check, named by the check's description
    assert out.columns == df.columns + [f"rule{i}" for i in range(1, 12)]
    got = _columns(out, "item")
    assert got["rule1"] == [T, T, T, T, T, T]
    assert got["rule2"] == [T, T, F, T, F, T]
    assert got["rule3"] == [T, T, T, T, T, T]
    assert got["rule4"] == [T, T, T, T, T, T]
    assert got["rule5"] == [T, F, F, F, F, F]
    # Deequ: [T, T, F, T, F, T] (its PatternMatch counts a null as a mismatch). Ours: a null passes, as our
    # PatternMatch judges the non-null values only ("f", "d", "f", "f" all hold a letter)
    assert got["rule6"] == [T, T, T, T, T, T]
    assert got["rule7"] == [F, T, T, T, T, T]
    assert got["rule8"] == [T, T, T, F, F, F]
    assert got["rule9"] == [T, T, T, F, F, F]
    assert got["rule10"] == [T, T, T, T, T, T]
    assert got["rule11"] == [F, T, T, F, T, F]  # (a, f) on rows 1, 4, 6


def _filtered_checks():
    return [Check("error", "rule1").has_completeness("att2", "> 0.7", where="att1 = 'a'"),
            Check("error", "rule2").has_uniqueness("att1", "> 0.5"),
            Check("error", "rule3").is_unique("att1", where="item < 3"),
            Check("error", "rule4").has_min("item", "> 3", where="item > 3"),
            Check("error", "rule5").has_max("item", "< 4", where="item < 4"),
            Check("error", "rule6").has_pattern("att2", "(^f)", where="item < 4"),
            Check("error", "rule7").is_primary_key("item", where="item < 4"),
            Check("error", "rule8").has_unique_value_ratio(["att1"], ">= 0.5", where="item < 4")]


def test_deequ_filtered_rows_true_and_null(spark):
    """VerificationSuiteTest "... row-level results with true for filtered rows" and "... with null for filtered
    rows" (Deequ's AnalyzerOptions(filteredRow = FilteredRowOutcome.NULL) is our filtered_row="null")."""
    df = _df(spark, INT_ID)
    result = _run(df, *_filtered_checks())
    assert result.status == "Error"
    true_out = _columns(result.row_level_results(df), "item")
    null_out = _columns(result.row_level_results(df, filtered_row="null"), "item")
    # rule1: rows 2 and 5 (att1 = b) filtered; row 3 is in scope and null
    assert true_out["rule1"] == [T, T, F, T, T, T] and null_out["rule1"] == [T, N, F, T, N, T]
    # rule2: a occurs 4 times and b twice: no row is unique, whatever the ratio's assertion
    assert true_out["rule2"] == [F] * 6 and null_out["rule2"] == [F] * 6
    assert true_out["rule3"] == [T] * 6 and null_out["rule3"] == [T, T, N, N, N, N]
    assert true_out["rule4"] == [T] * 6 and null_out["rule4"] == [N, N, N, T, T, T]
    assert true_out["rule5"] == [T] * 6 and null_out["rule5"] == [T, T, T, N, N, N]
    # rule6 Deequ: [T, F, F, T, T, T] and [T, F, F, N, N, N]. Ours: row 3's null passes (see rule6 above)
    assert true_out["rule6"] == [T, F, T, T, T, T] and null_out["rule6"] == [T, F, T, N, N, N]
    assert true_out["rule7"] == [T] * 6 and null_out["rule7"] == [T, T, T, N, N, N]
    # rule8: rows 1 and 3 share a in scope
    assert true_out["rule8"] == [F, T, F, T, T, T] and null_out["rule8"] == [F, T, F, N, N, N]


def test_deequ_compliance_row_level(spark):
    """VerificationSuiteTest "generate a result that contains compliance row-level results"."""
    df = _df(spark, NUMERIC)
    rng = {"lower_bound": 0, "upper_bound": 6, "include_lower_bound": False, "include_upper_bound": False}
    checks = [Check("error", "rule1").is_contained_in("attNull", **rng),
              Check("error", "rule2").is_contained_in("attNull", where="att1 < 4", **rng),
              Check("error", "rule4").is_contained_in("att2", ["5", "6", "7"]),
              Check("error", "rule5").is_contained_in("att2", ["5", "6", "7"], where="att1 > 3")]
    result = _run(df, *checks)
    assert result.status == "Error"
    true_out = _columns(result.row_level_results(df), "item")
    null_out = _columns(result.row_level_results(df, filtered_row="null"), "item")  # Deequ's rule3 and rule6
    assert true_out["rule1"] == [T, T, T, T, F, F]  # nulls pass; 6 and 7 are outside (0, 6)
    assert true_out["rule2"] == [T] * 6
    assert null_out["rule2"] == [T, T, T, N, N, N]  # in-scope nulls still pass, as in Deequ
    assert true_out["rule4"] == [F, F, F, T, T, T]
    assert true_out["rule5"] == [T] * 6
    assert null_out["rule5"] == [N, N, N, T, T, T]


def test_deequ_null_column_values(spark):
    """VerificationSuiteTest "generate a result that contains row-level results for null column values"."""
    df = _df(spark, VAR)
    checks = [Check("error", "rule1").has_min("val2", "> 2"), Check("error", "rule2").has_max("val2", "<= 3"),
              Check("error", "rule3").has_pattern("att2", r"\w"),
              Check("error", "rule4").satisfies("val2 > 3", "rule4")]
    got = _columns(_run(df, *checks).row_level_results(df), "item")
    # val2 = 1, null, 3, 4, null, 6: a null value is not judged (Deequ's default NullBehavior.Ignore)
    assert got["rule1"] == [F, N, T, T, N, T]
    assert got["rule2"] == [T, N, T, F, N, F]
    # Deequ: [T, T, F, T, F, T]; ours: the null att2 values pass, as our PatternMatch skips nulls
    assert got["rule3"] == [T] * 6
    # Deequ: [F, N, F, T, N, T]; ours: a null predicate result is FALSE, as the Compliance metric (Deequ's too)
    # counts it against the constraint
    assert got["rule4"] == [F, F, F, T, F, T]


def test_deequ_uniqueness(spark):
    """VerificationSuiteTest "test uniqueness"."""
    df = _df(spark, UNIQUE)
    checks = [Check("error", "rule1").has_uniqueness(["nonUnique", "halfUniqueCombinedWithNonUnique"], "== 1"),
              Check("error", "rule2").has_uniqueness(["nonUnique", "onlyUniqueWithOtherNonUnique"], "== 1"),
              Check("error", "rule3").has_uniqueness(["unique", "nonUniqueWithNulls"], "== 1"),
              Check("error", "rule4").is_unique("unique"),
              Check("error", "rule5").is_unique("nonUnique"),
              Check("error", "rule6").is_primary_key("uniqueWithNulls"),
              Check("error", "rule7").has_unique_value_ratio(["nonUnique"], "== 0.75")]
    got = _columns(_run(df, *checks).row_level_results(df), "unique")
    assert got["rule1"] == [F, F, F, T, T, T]
    assert got["rule2"] == [T] * 6
    assert got["rule3"] == [T] * 6
    assert got["rule4"] == [T] * 6
    assert got["rule5"] == [F, F, F, T, T, T]
    # Deequ: all TRUE, with "TODO: fix how primaryKey works (nulls should be false)". Our is_primary_key adds
    # is_complete, so row 3 (null key) fails the check; its uniqueness part alone passes
    assert got["rule6"] == [T, T, F, T, T, T]
    assert got["rule6: is_complete(uniqueWithNulls)"] == [T, T, F, T, T, T]
    assert got["rule6: is_unique(uniqueWithNulls)"] == [T] * 6
    assert got["rule7"] == [F, F, F, T, T, T]


def test_deequ_check_is_and_of_its_constraints(spark):
    """VerificationSuiteTest "generate a result that aggregates all constraint results", plus our constraint columns."""
    df = spark.createDataFrame([("1", "a", "f"), ("2", "b", "d"), ("3", "a", None), ("4", "a", "f"), ("5", "b", None),
                                ("6", "a", "f")], "item string, att1 string, att2 string")
    result = _run(df, Check("error", "rule1").is_complete("att1").is_complete("att2"))
    assert result.row_level_results(df, constraints=False).columns == df.columns + ["rule1"]
    out = result.row_level_results(df)
    assert out.columns == df.columns + ["rule1", "rule1: is_complete(att1)", "rule1: is_complete(att2)"]
    got = _columns(out, "item")
    assert got["rule1"] == [T, T, F, T, F, T]
    assert got["rule1: is_complete(att1)"] == [T] * 6 and got["rule1: is_complete(att2)"] == [T, T, F, T, F, T]


def test_deequ_lengths_with_filtered_null_and_nullbehavior_fail(spark):
    """VerificationSuiteTest "confirm that minLength and maxLength properly filters with nullBehavior empty" (item
    has no nulls, so only FilteredRowOutcome.NULL matters), and "... length row-level results with nullBehavior
    fail", which we get by adding is_complete (NullBehavior is not ported: a null length is not judged)."""
    df = _df(spark, VAR)
    checks = [Check("error", "rule1").has_min_length("item", "> 3", where="val1 > 3"),
              Check("error", "rule2").has_max_length("item", "<= 3", where="val1 < 4"),
              Check("error", "fail").has_min_length("att2", ">= 1").is_complete("att2"),
              Check("error", "ignore").has_min_length("att2", ">= 1")]
    got = _columns(_run(df, *checks).row_level_results(df, filtered_row="null"), "item")
    assert got["rule1"] == [N, N, N, T, T, T]
    assert got["rule2"] == [T, T, T, N, N, N]
    assert got["fail"] == [T, T, F, T, F, T]  # Deequ's rule1 with NullBehavior.Fail
    assert got["ignore"] == [T, T, N, T, N, T]  # Deequ's default Ignore: the null lengths are not judged


def test_compliance_kinds_nulls_and_where(spark):
    """Hand-computed outcomes of the Compliance-based constraints."""
    df = spark.createDataFrame([(1, 5.0, 1.0, 2.0, "a", "new"), (2, 0.0, 3.0, None, "b", "paid"),
                                (3, -1.0, None, 1.0, None, None), (4, None, 2.0, 3.0, "zz", "paid"),
                                (5, 20.0, 4.0, 4.0, "a", "new")],
                               "id int, x double, lo double, hi double, s string, status string")
    check = (Check("error", "c")
             .is_non_negative("x")           # 5, 0 T; -1 F; null T (nulls pass); 20 T
             .is_positive("x")               # 5 T; 0 F; -1 F; null T; 20 T
             .is_in_range("x", 0, 10)        # 5 T; 0 T; -1 F; null T; 20 F
             .is_less_than("lo", "hi")       # 1<2 T; 3<null F; null<1 F; 2<3 T; 4<4 F
             .is_contained_in("s", ["a", "b"])                             # a T; b T; null T; zz F; a T
             .satisfies("x > 1", "big", where="status = 'new'")            # rows 1, 5 in scope: T, T; others out
             .satisfies_if("status = 'paid'", "x >= 1", "paid_big"))       # rows 2, 4 in scope: 0 F; null F
    got = _columns(_run(df, check).row_level_results(df, filtered_row="null"), "id")
    assert got["c: is_non_negative(x)"] == [T, T, F, T, T]
    assert got["c: is_positive(x)"] == [T, F, F, T, T]
    assert got["c: is_in_range(x, 0, 10)"] == [T, T, F, T, F]
    assert got["c: is_less_than(lo, hi)"] == [T, F, F, T, F]
    assert got["c: is_contained_in(s, ['a', 'b'])"] == [T, T, T, F, T]
    # row 3's status is null: its where is not true, so it is outside the filter, as for the metric
    assert got["c: satisfies(big) where status = 'new'"] == [T, N, N, N, T]
    assert got["c: satisfies_if(paid_big)"] == [N, F, N, F, N]
    # the check: AND of all seven (three-valued): row 1 all T or N -> N (satisfies_if not judged), etc.
    assert got["c"] == [N, F, F, F, F]


def test_value_assertions_nan_and_callables(spark):
    """has_min / has_max apply the assertion to each value: textual bounds as Spark comparisons, callables in a
    Python UDF; NaN fails and null is not judged, as Assertion judges a metric."""
    df = spark.createDataFrame([(1, 1.0), (2, float("nan")), (3, None), (4, 5.0)], "id int, v double")
    check = (Check("error", "c")
             .has_min("v", "between 1 and 4")                  # 1 T; NaN F; null N; 5 F
             .has_max("v", lambda m: m < 3)                    # same bound as a callable: 1 T; NaN F; null N; 5 F
             .has_max("v", lambda m: 1 / (m - 5.0) < 0))       # raises on 5 (division by zero) -> F; 1 T
    got = _columns(_run(df, check).row_level_results(df), "id")
    assert got["c: has_min(v) between 1 and 4"] == [T, F, N, F]
    callables = [name for name in got if name.startswith("c: has_max")]
    assert got[callables[0]] == [T, F, N, F]
    assert got[callables[1]] == [T, F, N, F]
    assert callables[1] == callables[0] + " (2)"  # same description: the second name gets a suffix


def test_uniqueness_nulls_composite_keys_and_scope(spark):
    """Hand-computed grouped outcomes: counts over the rows in scope, all-null keys pass."""
    df = spark.createDataFrame([(1, "a", "x", 1), (2, "a", "x", 1), (3, "a", None, 1), (4, None, None, 1),
                                (5, None, None, 1), (6, "b", "y", 0), (7, "b", "y", 1)],
                               "id int, k1 string, k2 string, g int")
    check = (Check("error", "u")
             .is_unique(["k1", "k2"])                 # (a,x) twice F F; (a,null) once T; (null,null) x2 pass T T;
                                                      # (b,y) twice F F
             .is_unique("k1", where="g = 1")          # in scope rows 1-5, 7: a x3 F; nulls T; b once in scope T;
                                                      # row 6 out of scope T
             .has_unique_value_ratio("k2", "> 0"))    # x twice F F; null rows T; y twice F F
    result = _run(df, check)
    got = _columns(result.row_level_results(df), "id")
    assert got["u: is_unique(k1, k2)"] == [F, F, T, T, T, F, F]
    assert got["u: is_unique(k1) where g = 1"] == [F, F, F, T, T, T, T]
    assert got["u: has_unique_value_ratio(k2) > 0"] == [F, F, T, T, T, F, F]
    # Deequ counts the all-null keys too (rows 4, 5 would be FALSE for is_unique(k1, k2)); our metric leaves them
    # out and so does the row outcome. Their metric: 1 singleton (a,null) of 5 keyed rows
    assert result.check_results[0].constraint_results[0].metric.value == pytest.approx(1 / 5)


def test_non_row_level_constraints_add_no_column(spark):
    df = _df(spark, VAR)
    stats = Check("error", "stats").has_size("== 6").has_mean("val1", "> 0").has_distinctness(["att1"], "> 0")
    mixed = Check("warning", "mixed").has_mean("val1", "> 100").is_complete("att1")  # mean fails; ignored per row
    result = _run(df, stats, mixed)
    out = result.row_level_results(df)
    assert out.columns == df.columns + ["mixed", "mixed: is_complete(att1)"]
    assert _columns(out, "item")["mixed"] == [T] * 6  # only is_complete(att1) counts, and att1 is complete
    only_stats = _run(df, stats)
    assert only_stats.row_level_results(df).columns == df.columns and only_stats.row_level_columns(df) == []


def test_names_are_deduplicated_case_insensitively(spark):
    df = spark.createDataFrame([(1, "a")], "ID int, name string")
    checks = [Check("error", "id").is_complete("name"), Check("warning", "id").is_complete("name"),
              Check("error").is_complete("ID")]
    result = _run(df, *checks)
    names = [c.name for c in result.row_level_columns(df)]
    # "id" clashes with the data column ID (Spark resolves names case-insensitively); the nameless check is
    # named by its position (third)
    assert names == ["id (2)", "id (2): is_complete(name)", "id (3)", "id (3): is_complete(name)",
                     "check 3", "check 3: is_complete(ID)"]
    assert result.row_level_results(df).columns == ["ID", "name", *names]


def test_failed_metric_judges_no_row(spark):
    df = _df(spark, VAR)
    result = _run(df, Check("error", "c").is_complete("missing").is_complete("att2"))
    got = _columns(result.row_level_results(df), "item")
    assert got["c: is_complete(missing)"] == [N] * 6
    # NULL AND att2's completeness: NULL where att2 is there, FALSE where it is null (rows 3, 5)
    assert got["c"] == [N, N, F, N, F, N]


def test_row_level_results_stay_lazy(spark):
    df = _df(spark, INT_ID)
    result = _run(df, *_filtered_checks())
    sc = spark.sparkContext
    group = f"row-level-{uuid.uuid4().hex}"
    sc.setJobGroup(group, "row-level results build a plan only")
    try:
        out = result.row_level_results(df)
        failing = failing_rows(result, df)
    finally:
        sc.setLocalProperty("spark.jobGroup.id", None)
    assert sc.statusTracker().getJobIdsForGroup(group) == []
    plan = out._jdf.queryExecution().optimizedPlan().toString()
    assert "Window" in plan and failing.columns == out.columns


def test_offending_samples_are_the_false_rows(spark):
    """The offending-rows queries derive from the row outcomes: the sampled rows are the rows marked FALSE."""
    df = _df(spark, NUMERIC)
    check = (Check("error", "c").is_complete("attNull", where="att1 > 1")   # rows 2, 3 (null, in scope)
             .satisfies("att2 > 4", "big")                                  # rows 1, 2, 3 (0 > 4 fails)
             .is_contained_in("att3", [0, 6]))                              # values 4 and 7 (rows 4, 6)
    result = VerificationSuite().on_data(df).add_check(check).with_offending_samples(10).run()
    complete, big, contained = result.check_results[0].constraint_results
    got = _columns(result.row_level_results(df), "item")
    false_items = {name: [i for i, v in zip(got["item"], got[name], strict=True) if v is F] for name in got}
    assert sorted(s["item"] for s in complete.samples) == false_items["c: is_complete(attNull) where att1 > 1"] \
        == ["2", "3"]
    assert sorted(s["item"] for s in big.samples) == false_items["c: satisfies(big)"] == ["1", "2", "3"]
    assert sorted((s["value"], s["count"]) for s in contained.samples) == [(4, 1), (7, 1)]
    assert false_items["c: is_contained_in(att3, [0, 6])"] == ["4", "6"]


def test_filtered_row_must_be_true_or_null(spark):
    df = _df(spark, VAR)
    result = _run(df, Check("error", "c").is_complete("att1"))
    with pytest.raises(ValueError, match="filtered_row must be one of"):
        result.row_level_results(df, filtered_row="false")


def test_quarantine_writes_failing_rows_atomically(spark, tmp_path):
    df = _df(spark, VAR)
    result = _run(df, Check("error", "hard").is_complete("att2"), Check("warning", "soft").has_max("val1", "<= 4"),
                  Check("error", "stats").has_mean("val1", "> 0"))
    out = tmp_path / "bad"
    # att2 null on rows 3, 5; val1 > 4 on rows 5, 6: failing rows 333, 55555, 666666
    assert write_quarantine(failing_rows(result, df), out) == 3
    table = pq.read_table(out).to_pylist()
    assert sorted(r["item"] for r in table) == ["333", "55555", "666666"]
    by_item = {r["item"]: r for r in table}
    assert (by_item["55555"]["hard"], by_item["55555"]["soft"], by_item["666666"]["hard"]) == (F, F, T)
    assert "stats" not in table[0]  # no row-level constraint: no column
    assert [p.name for p in tmp_path.iterdir()] == ["bad"]  # the temporary directory is gone
    with pytest.raises(ValueError, match="already exists"):
        write_quarantine(failing_rows(result, df), out)


def test_cli_check_quarantine(spark, tmp_path, capsys):
    data = write_csv(tmp_path / "orders.csv", ["id", "amount"], [["1", "10.5"], ["2", "-4"], ["3", ""]])
    checks = tmp_path / "checks.json"
    checks.write_text(json.dumps({"checks": [{"level": "error", "description": "amounts", "constraints": [
        {"type": "is_non_negative", "column": "amount"}, {"type": "is_complete", "column": "amount"}]}]}))
    out = tmp_path / "quarantine"
    assert main(["check", str(data), "--checks", str(checks), "--quarantine", str(out), "--quiet"]) == 1
    doc = json.loads(capsys.readouterr().out)
    # -4 fails is_non_negative; the empty amount (null) passes it but fails is_complete
    assert doc["quarantine"] == {"path": str(out), "rows": 2}
    rows = sorted(pq.read_table(out).to_pylist(), key=lambda r: r["id"])
    assert [(r["id"], r["amounts: is_non_negative(amount)"], r["amounts: is_complete(amount)"]) for r in rows] \
        == [(2, F, T), (3, T, F)]
    assert math.isclose(rows[0]["amount"], -4.0)
    assert main(["check", str(data), "--checks", str(checks), "--quarantine", str(out), "--quiet"]) == 2
    assert "already exists" in capsys.readouterr().err
