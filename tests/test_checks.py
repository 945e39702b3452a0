"""Checks and the VerificationSuite (Deequ §3.1, Table 1, Listings 1-2; anomaly checks §3.4).

One module-scoped verification run over a hand-built orders table answers most tests: each
constraint's status, its metric value and its offending samples are derived by hand below.
"""

from __future__ import annotations

import json
import math

import pytest

from lakeindex.anomaly import OnlineNormalStrategy
from lakeindex.checks import Check, ChecksFileError, VerificationSuite, checks_from_dict, load_checks, parse_assertion
from lakeindex.checks.assertion import Assertion
from lakeindex.checks.check import sql_literal
from lakeindex.checks.checks_file import constraint_types
from lakeindex.metrics import ApproxQuantiles, FileSystemStateStore, Size
from lakeindex.repository import FileSystemMetricsRepository, ResultKey

# ----------------------------------------------------------------------------------------------------------------
# assertions (no Spark)


@pytest.mark.parametrize("spec, true_for, false_for, text", [
    (">= 0.9", [0.9, 1.0], [0.89], ">= 0.9"),
    ("> 0", [1e-9, 5], [0, -1], "> 0"),
    ("<= 5", [5, -3], [5.0001], "<= 5"),
    ("< 3", [2.999], [3, 4], "< 3"),
    ("== 1", [1, 1.0], [0.999999], "== 1"),
    ("!= 0", [1, -0.5], [0, 0.0], "!= 0"),
    ("between 0.1 and 0.3", [0.1, 0.2, 0.3], [0.09, 0.31], "between 0.1 and 0.3"),
    ("  BETWEEN -2 AND 1e1 ", [-2, 10], [10.5, -2.1], "between -2 and 10"),
    (">=-1.5e-3", [-0.0015, 0], [-0.002], ">= -0.0015"),
    ("< inf", [1e308], [math.inf], "< inf"),
])
def test_textual_assertions(spec, true_for, false_for, text):
    a = parse_assertion(spec)
    assert all(a(v) for v in true_for), [(v, a(v)) for v in true_for]
    assert not any(a(v) for v in false_for), [(v, a(v)) for v in false_for]
    assert str(a) == text


@pytest.mark.parametrize("spec", [">= 0", "<= 1", "!= 5", "between -inf and inf", "> -inf"])
def test_nan_satisfies_no_textual_assertion_but_a_callable_judges_it(spec):
    assert parse_assertion(spec)(float("nan")) is False
    # Deequ hands NaN to the user's function (hasCorrelation(..., _.isNaN)); so does ours
    assert parse_assertion(math.isnan)(float("nan")) is True
    assert parse_assertion(lambda v: v > 0)(float("nan")) is False


@pytest.mark.parametrize("spec", ["", "1", ">= ", "=> 1", "=== 1", ">= x", "between 1", "between 3 and 1",
                                  "between 1 and 2 and 3", ">= 1; import os", "== nan"])
def test_bad_assertion_strings_raise_with_the_accepted_forms(spec):
    with pytest.raises(ValueError) as e:
        parse_assertion(spec)
    msg = str(e.value)
    assert repr(spec) in msg
    assert "between" in msg  # names the forms it accepts (or, for reversed bounds, the bad bound)


def test_non_string_non_callable_assertions_raise():
    for bad in (5, 1.0, ["== 1"]):
        with pytest.raises(ValueError, match="string like"):
            parse_assertion(bad)


def test_callables_pass_through_and_default():
    def at_least_half(v):
        return v >= 0.5

    a = parse_assertion(at_least_half)
    assert a(0.5) and not a(0.4) and str(a) == "at_least_half"
    lam = parse_assertion(lambda v: v == "x")
    assert lam("x") and str(lam) == "custom assertion"
    assert parse_assertion(a) is a  # an Assertion is kept as is
    default = parse_assertion(None)
    assert default(1.0) and not default(0.99) and str(default) == "== 1"
    assert str(parse_assertion(None, default=">= 0")) == ">= 0"
    assert isinstance(default, Assertion)


def test_sql_literal_escapes_strings_and_non_finite_floats():
    assert sql_literal("O'Brien\\") == "'O\\'Brien\\\\'"  # ' -> \' and \ -> \\ inside '...'
    assert sql_literal(None) == "NULL" and sql_literal(True) == "TRUE" and sql_literal(3) == "3"
    assert sql_literal(float("inf")) == "CAST('inf' AS DOUBLE)"  # a bare inf would be a column name


# ----------------------------------------------------------------------------------------------------------------
# the orders table (Listing 1 style)

SCHEMA = ("order_id string, customer string, status string, amount double, qty string, sku string, "
          "start int, `end` int, name string, email string, coupon string")
ROWS = [
    # order_id customer status  amount qty   sku         start end   name            email      coupon
    ("o1", "c1", "new", 10.0, "1", "ABC-1234", 1, 2, "O'Brien\\", "a@x.com", None),
    ("o2", "c1", "paid", 20.0, "2", "ABC-5678", 2, 5, "Smith", None, None),
    ("o3", "c2", "paid", 0.0, "x", "abc-1234", 4, 4, "O'Brien", "b@x.com", "X"),
    ("o4", None, "lost", -5.0, None, None, 3, None, "O'Brien\\\\", "c@x.com", "X"),
    ("o4", "c3", None, None, "3", "XYZ-0001", 1, 3, None, "d@x.com", None),
    ("o6", "c3", "new", 35.0, "-1", "XY-1", 0, 9, "O\\'Brien", "e@x.com", "Y"),
]
SAMPLES = 3  # with_offending_samples(3)
INJECTION = "x') OR TRUE OR ('"


@pytest.fixture(scope="module")
def orders(spark):
    return spark.createDataFrame(ROWS, SCHEMA)


def _checks() -> list[Check]:
    keys = (Check("error", "keys")
            .is_complete("order_id").is_complete("customer")
            .is_unique("order_id").is_unique(["order_id", "customer"]).is_unique("coupon")
            .has_completeness("email", ">= 0.8").has_completeness("email", ">= 0.9"))
    pk = Check("error", "primary keys").is_primary_key("order_id").is_primary_key(["order_id", "customer"])
    values = (Check("error", "values")
              .is_contained_in("status", ["new", "paid"])
              .is_contained_in("name", ["O'Brien\\", INJECTION])
              .is_contained_in("name", ["O\\'Brien"], assertion="== 0.2")
              .is_non_negative("amount").is_positive("amount").is_non_negative("qty")
              .is_in_range("amount", 0, 20).is_in_range("amount", -10, float("inf"))
              .is_less_than("start", "end").is_less_than_or_equal_to("start", "end")
              .is_greater_than("end", "start").is_greater_than_or_equal_to("end", "start")
              .satisfies("amount < 30 OR status = 'lost'", "small or lost")
              .has_pattern("sku", r"^[A-Z]{3}-\d{4}$")
              .has_pattern("sku", r"\d{4}", "== 0.8", name="sku has four digits")
              .has_data_type("qty", "Integral", ">= 0.8"))
    stats = (Check("warning", "statistics")
             .has_size("== 6").has_min("amount", "== -5").has_max("amount", "== 35").has_mean("amount", "== 12")
             .has_sum("amount", "== 60").has_standard_deviation("amount", "between 14.35 and 14.36")
             .has_approx_quantile("amount", 0.5, "== 10").has_entropy("coupon", "between 0.63 and 0.64")
             .has_correlation("start", "end", "< 0")
             .has_histogram_values("status", lambda bins: bins["paid"]["ratio"] <= 0.5)
             .has_histogram_values("status", lambda bins: "lost" not in bins)
             .has_min_length("sku", "== 4").has_max_length("name", "== 9")
             .has_mean("status", ">= 0").has_min("no_such_column", ">= 0"))
    filtered = (Check("error", "filtered")
                .is_complete("customer", where="status = 'paid'")
                .is_non_negative("amount", where="status <> 'lost'")
                .has_size("== 2", where="status = 'paid'")
                .is_positive("amount", where="status = 'paid'"))
    return [keys, pk, values, stats, filtered]


@pytest.fixture(scope="module")
def result(orders):
    return VerificationSuite().on_data(orders).add_checks(_checks()).with_offending_samples(SAMPLES).run()


def _by_check(result):
    return {cr.check.description: cr for cr in result.check_results}


def _find(check_result, prefix):
    """The one constraint result whose description starts with ``prefix``."""
    found = [r for r in check_result.constraint_results if r.constraint.startswith(prefix)]
    assert len(found) == 1, (prefix, [r.constraint for r in check_result.constraint_results])
    return found[0]


def _ids(samples):
    return sorted(s["order_id"] for s in samples)


def test_overall_and_check_statuses(result):
    checks = _by_check(result)
    assert result.status == "Error"  # failing error-level checks dominate the failing warning-level one
    assert {d: c.status for d, c in checks.items()} == {
        "keys": "Error", "primary keys": "Error", "values": "Error", "statistics": "Warning", "filtered": "Error"}


def test_completeness_and_uniqueness(result):
    keys = _by_check(result)["keys"]
    r = _find(keys, "is_complete(order_id)")
    assert r.status == "Success" and r.metric.value == 1.0 and r.samples is None  # no samples when passing
    r = _find(keys, "is_complete(customer)")
    assert r.status == "Failure" and r.metric.value == pytest.approx(5 / 6)  # one null of 6
    assert "does not meet the constraint requirement (== 1)" in r.message
    assert len(r.samples) == 1 and r.samples[0]["order_id"] == "o4" and r.samples[0]["customer"] is None
    r = _find(keys, "is_unique(order_id)")
    # o1 o2 o3 o6 occur once, o4 twice: 4 singleton rows of 6
    assert r.status == "Failure" and r.metric.value == pytest.approx(4 / 6)
    assert r.samples == [{"order_id": "o4", "count": 2}]
    r = _find(keys, "is_unique(order_id, customer)")  # (o4, null) and (o4, c3) differ
    assert r.status == "Success" and r.metric.value == 1.0 and r.samples is None
    r = _find(keys, "is_unique(coupon)")
    # non-null coupons X, X, Y: 1 singleton row of 3; the 3 null rows are neither values nor duplicates
    assert r.status == "Failure" and r.metric.value == pytest.approx(1 / 3)
    assert r.samples == [{"coupon": "X", "count": 2}]
    r = _find(keys, "has_completeness(email) >= 0.8")
    assert r.status == "Success" and r.metric.value == pytest.approx(5 / 6)
    r = _find(keys, "has_completeness(email) >= 0.9")  # 0.833 < 0.9; not row-level: no samples
    assert r.status == "Failure" and r.samples is None and "0.833333" in r.message


def test_primary_key_is_complete_plus_unique(result):
    pk = _by_check(result)["primary keys"]
    got = [(r.constraint, r.status) for r in pk.constraint_results]
    assert got == [("is_complete(order_id)", "Success"), ("is_unique(order_id)", "Failure"),
                   ("is_complete(order_id)", "Success"), ("is_complete(customer)", "Failure"),
                   ("is_unique(order_id, customer)", "Success")]


def test_is_contained_in_escapes_literals(result):
    values = _by_check(result)["values"]
    r = _find(values, "is_contained_in(status")
    # non-null statuses new, paid, paid, lost, new: 4 of 5 allowed (the null row is skipped)
    assert r.status == "Failure" and r.metric.value == pytest.approx(4 / 5)
    assert r.metric.extra == {"matches": 4, "rows": 5}
    assert r.samples == [{"value": "lost", "count": 1}]
    # O'Brien\ matches itself only: not O'Brien, O'Brien\\ or O\'Brien (5 non-null names, 1 match), and the
    # injection attempt x') OR TRUE OR (' stays one literal that matches nothing
    r = _find(values, "is_contained_in(name, [\"O'Brien\\\\\", ")
    assert r.metric.value == pytest.approx(1 / 5) and r.status == "Failure"
    others = {"Smith", "O'Brien", "O'Brien\\\\", "O\\'Brien"}
    assert len(r.samples) == SAMPLES  # 4 offending values, capped at 3
    assert {s["value"] for s in r.samples} <= others and all(s["count"] == 1 for s in r.samples)
    r = _find(values, "is_contained_in(name, [\"O\\\\'Brien\"]) == 0.2")  # O\'Brien matches row o6 only
    assert r.status == "Success" and r.metric.value == pytest.approx(1 / 5) and r.samples is None


def test_is_contained_in_numbers_on_a_string_column(spark):
    # numbers compare by value on text ("2.0" is 2); text that is no number is a violation, not an error
    df = spark.createDataFrame([("1",), ("2.0",), ("x",), (None,), (" 3",)], "code string")
    r = VerificationSuite().on_data(df).add_check(Check().is_contained_in("code", [1, 2, 3])).run()
    c = r.check_results[0].constraint_results[0]
    assert c.metric.ok and c.metric.value == pytest.approx(3 / 4), c.message
    assert c.samples == [{"value": "x", "count": 1}]


def test_numeric_constraints_skip_nulls_and_flag_non_numbers(result):
    values = _by_check(result)["values"]
    # amounts 10, 20, 0, -5, null, 35
    r = _find(values, "is_non_negative(amount)")
    assert r.metric.value == pytest.approx(5 / 6) and _ids(r.samples) == ["o4"]  # only -5; null passes
    r = _find(values, "is_positive(amount)")
    assert r.metric.value == pytest.approx(4 / 6) and _ids(r.samples) == ["o3", "o4"]  # 0 and -5
    # qty strings "1", "2", "x", null, "3", "-1": "x" is not a number, "-1" is negative
    r = _find(values, "is_non_negative(qty)")
    assert r.metric.value == pytest.approx(4 / 6) and sorted(s["qty"] for s in r.samples) == ["-1", "x"]
    r = _find(values, "is_in_range(amount, 0, 20)")
    assert r.metric.value == pytest.approx(4 / 6) and _ids(r.samples) == ["o4", "o6"]  # -5 and 35
    r = _find(values, "is_in_range(amount, -10, inf)")
    assert r.status == "Success" and r.metric.value == 1.0, r.message


def test_column_comparisons_count_a_null_side_as_violation(result):
    values = _by_check(result)["values"]
    # (start, end): (1,2) (2,5) (4,4) (3,null) (1,3) (0,9)
    for prefix, ratio, bad in [("is_less_than(start, end)", 4 / 6, ["o3", "o4"]),
                               ("is_less_than_or_equal_to(start, end)", 5 / 6, ["o4"]),
                               ("is_greater_than(end, start)", 4 / 6, ["o3", "o4"]),
                               ("is_greater_than_or_equal_to(end, start)", 5 / 6, ["o4"])]:
        r = _find(values, prefix)
        assert r.status == "Failure" and r.metric.value == pytest.approx(ratio), prefix
        assert _ids(r.samples) == bad, prefix
    r = _find(values, "is_less_than(start, end)")
    assert any(s["end"] is None for s in r.samples)


def test_satisfies_pattern_and_data_type(result):
    values = _by_check(result)["values"]
    r = _find(values, "satisfies(small or lost)")
    # 10, 20, 0 < 30; -5 is lost; null amount with null status is null (not compliant); 35 'new' is false
    assert r.metric.instance == "small or lost" and r.metric.value == pytest.approx(4 / 6)
    assert _ids(r.samples) == ["o4", "o6"] and {s["customer"] for s in r.samples} == {"c3"}
    r = _find(values, "has_pattern(sku, ^[A-Z]{3}-\\d{4}$)")
    # non-null skus: ABC-1234, ABC-5678, abc-1234 (lower case), XYZ-0001, XY-1 -> 3 of 5; the null is not counted
    assert r.metric.value == pytest.approx(3 / 5) and r.metric.extra == {"matches": 3, "rows": 5}
    assert sorted(s["value"] for s in r.samples) == ["XY-1", "abc-1234"]
    r = _find(values, "sku has four digits")  # unanchored: found in 4 of 5 values
    assert r.status == "Success" and r.metric.value == pytest.approx(4 / 5) and r.samples is None
    r = _find(values, "has_data_type(qty, Integral) >= 0.8")
    types = r.metric.value["types"]
    # 1, 2, 3, -1 are integral, "x" a string, one null: 4 of the 5 non-null values
    assert (types["Integral"]["absolute"], types["String"]["absolute"], types["Unknown"]["absolute"]) == (4, 1, 1)
    assert r.metric.value["dominant"] == "String" and r.status == "Success"


def test_satisfies_if_and_consistent_type(spark):
    rows = [("paid", 10.0, "1"), ("paid", None, "2"), ("paid", 5.0, "x"), ("new", None, "3"), (None, 7.0, None)]
    df = spark.createDataFrame(rows, "status string, amount double, qty string")
    check = (Check()
             # of the 3 paid rows, 2 have an amount (the null amount counts as not satisfied)
             .satisfies_if("status = 'paid'", "amount IS NOT NULL AND amount > 0", "paid has amount")
             .satisfies_if("status = 'paid'", "amount IS NOT NULL", "paid has amount", "between 0.66 and 0.67")
             # qty: 3 integral and 1 string among 4 non-null values
             .has_consistent_type("qty").has_consistent_type("qty", ">= 0.75")
             .has_consistent_type("qty", where="status = 'new'").has_consistent_type("qty", where="status IS NULL"))
    r = VerificationSuite().on_data(df).add_check(check).with_offending_samples(5).run()
    got = {c.constraint: c for c in r.check_results[0].constraint_results}
    assert len(got) == 6  # the user's filters are part of the names
    c = got["satisfies_if(paid has amount)"]
    assert c.status == "Failure" and c.metric.value == pytest.approx(2 / 3)
    assert [(s["status"], s["amount"]) for s in c.samples] == [("paid", None)]  # only the paid row without amount
    assert got["satisfies_if(paid has amount) between 0.66 and 0.67"].status == "Success"
    c = got["has_consistent_type(qty)"]
    assert c.status == "Failure" and "0.75" in c.message
    assert got["has_consistent_type(qty) >= 0.75"].status == "Success"
    assert got["has_consistent_type(qty) where status = 'new'"].status == "Success"
    c = got["has_consistent_type(qty) where status IS NULL"]
    assert c.status == "Failure" and "no non-null values" in c.message


def test_statistics(result):
    stats = _by_check(result)["statistics"]
    value = {r.constraint: r.metric.value for r in stats.constraint_results if r.metric is not None and r.metric.ok}
    # non-null amounts -5, 0, 10, 20, 35: sum 60, mean 12; squared deviations 289+144+4+64+529 = 1030
    assert value["has_size == 6"] == 6
    assert value["has_min(amount) == -5"] == -5 and value["has_max(amount) == 35"] == 35
    assert value["has_mean(amount) == 12"] == 12 and value["has_sum(amount) == 60"] == 60
    assert value["has_standard_deviation(amount) between 14.35 and 14.36"] == pytest.approx(math.sqrt(1030 / 5))
    assert value["has_approx_quantile(amount, 0.5) == 10"] == 10  # the sketch is exact on 5 values
    # non-null coupons X, X, Y: -(2/3 ln 2/3 + 1/3 ln 1/3)
    assert value["has_entropy(coupon) between 0.63 and 0.64"] == pytest.approx(-(2 / 3 * math.log(2 / 3)
                                                                                 + 1 / 3 * math.log(1 / 3)))
    # pairs with both sides: x = 1,2,4,1,0 (mean 1.6), y = 2,5,4,3,9 (mean 4.6):
    # sum dx*dy = -5.8, sum dx^2 = 9.2, sum dy^2 = 29.2
    assert value["has_correlation(start, end) < 0"] == pytest.approx(-5.8 / math.sqrt(9.2 * 29.2))
    assert value["has_min_length(sku) == 4"] == 4  # XY-1
    assert value["has_max_length(name) == 9"] == 9  # O'Brien\\ has two backslashes
    paid_ok, no_lost = [r for r in stats.constraint_results if r.constraint.startswith("has_histogram_values(status)")]
    # nulls are a bucket: new 2, paid 2, lost 1, NullValue 1 of 6 rows
    assert paid_ok.status == "Success" and paid_ok.metric.value["bins"] == {
        "new": {"absolute": 2, "ratio": 2 / 6}, "paid": {"absolute": 2, "ratio": 2 / 6},
        "lost": {"absolute": 1, "ratio": 1 / 6}, "NullValue": {"absolute": 1, "ratio": 1 / 6}}
    assert paid_ok.metric.value["number_of_bins"] == 4 and paid_ok.metric.value["tail"]["absolute"] == 0
    assert no_lost.status == "Failure" and no_lost.samples is None  # "lost" is there; not row-level: no samples
    failing = [r.constraint for r in stats.constraint_results if r.status != "Success"]
    # all but the second histogram check and the two failed metrics
    assert failing == ["has_histogram_values(status) custom assertion", "has_mean(status) >= 0",
                       "has_min(no_such_column) >= 0"]


def test_failed_metric_fails_only_its_constraint_and_names_the_column(result):
    stats = _by_check(result)["statistics"]
    r = _find(stats, "has_mean(status)")
    assert r.status == "Failure" and not r.metric.ok and r.samples is None
    assert "column 'status' has type string" in r.message
    r = _find(stats, "has_min(no_such_column)")
    assert r.status == "Failure" and "column 'no_such_column' does not exist" in r.message
    assert "order_id" in r.message  # lists the columns that exist
    assert _find(stats, "has_size").status == "Success"  # computed in the same scan as the failed ones


def test_where_filters_restrict_metrics_and_samples(result):
    filtered = _by_check(result)["filtered"]
    got = [(r.constraint, r.status, r.metric.value) for r in filtered.constraint_results]
    assert got == [
        ("is_complete(customer) where status = 'paid'", "Success", 1.0),  # paid rows o2, o3 both have a customer
        # 10, 20, 0, 35: the lost row and the null status are out
        ("is_non_negative(amount) where status <> 'lost'", "Success", 1.0),
        ("has_size where status = 'paid' == 2", "Success", 2.0),
        ("is_positive(amount) where status = 'paid'", "Failure", 0.5),  # paid: 20 and 0
    ]
    assert _ids(filtered.constraint_results[-1].samples) == ["o3"]  # o4's -5 is outside the filter
    assert filtered.constraint_results[-1].metric.analyzer.endswith("where=\"status = 'paid'\")")


def test_result_serialises_to_json_and_a_dataframe(result, spark):
    doc = json.loads(json.dumps(result.to_dict()))
    assert doc["status"] == "Error" and [c["description"] for c in doc["checks"]] == [
        "keys", "primary keys", "values", "statistics", "filtered"]
    failed = doc["checks"][0]["constraints"][1]
    assert failed["status"] == "Failure" and failed["offending_samples"][0]["order_id"] == "o4"
    assert "offending_samples" not in doc["checks"][0]["constraints"][0]
    n = sum(len(c.constraint_results) for c in result.check_results)
    # every distinct analyzer once: duplicates (is_primary_key repeats is_complete) are computed once
    assert len(doc["metrics"]) == len({a for c in _checks() for a in c.analyzers()}) < n
    rows = result.as_dataframe(spark).collect()
    assert len(rows) == n
    row = next(r for r in rows if r.constraint == "is_unique(order_id)" and r.check == "keys")
    assert (row.check_level, row.check_status, row.constraint_status) == ("error", "Error", "Failure")
    assert row.metric_value == pytest.approx(4 / 6)
    assert json.loads(row.offending_samples) == [{"order_id": "o4", "count": 2}]


# ----------------------------------------------------------------------------------------------------------------
# levels, sample switch, scan sharing


def test_levels_and_disabled_samples(spark):
    df = spark.createDataFrame([(1, None), (2, "b")], "i int, s string")
    warn = Check("Warning", "soft").is_complete("s")
    ok = Check("error", "hard").has_size("== 2").is_complete("i")
    r = VerificationSuite().on_data(df).add_check(warn).add_check(ok).with_offending_samples(0).run()
    assert r.status == "Warning" and [c.status for c in r.check_results] == ["Warning", "Success"]
    failed = r.check_results[0].constraint_results[0]
    assert failed.status == "Failure" and failed.samples is None  # with_offending_samples(0): no query
    r = VerificationSuite().on_data(df).add_check(ok).run()
    assert r.status == "Success" and r.check_results[0].status == "Success"
    assert VerificationSuite().on_data(df).run().status == "Success"  # no checks: nothing failed
    with pytest.raises(ValueError, match="level"):
        Check("fatal")
    with pytest.raises(ValueError, match="on_data"):
        VerificationSuite().add_check(ok).run()
    with pytest.raises(ValueError, match="use_repository"):
        VerificationSuite().on_data(df).add_check(ok).save_or_append_result(ResultKey(1)).run()


def _jobs(spark, group, suite):
    sc = spark.sparkContext
    sc.setJobGroup(group, "scan sharing test")
    try:
        result = suite.run()
    finally:
        sc.setLocalProperty("spark.jobGroup.id", None)
    return result, len(sc.statusTracker().getJobIdsForGroup(group))


def test_constraints_share_one_scan(spark):
    df = spark.createDataFrame([(1, 2.0, "a-1"), (2, 3.0, "b-2"), (3, None, "c-3")], "i int, x double, s string")
    one = Check().is_complete("i")
    many = (Check().is_complete("i").has_completeness("x", ">= 0.5").is_non_negative("i")
            .satisfies("i < 10", "small").has_min("i", "== 1").has_max("i", "== 3").has_mean("i", "== 2")
            .has_size("== 3").has_sum("i", "== 6").has_pattern("s", r"^[a-z]-\d$")
            .has_standard_deviation("x", "== 0.5").has_min_length("s", "== 3").has_data_type("i", "Integral"))
    assert len(many.constraints) >= 10
    _jobs(spark, "lakeindex-test-warmup", VerificationSuite().on_data(df).add_check(one))
    r1, jobs_one = _jobs(spark, "lakeindex-test-one", VerificationSuite().on_data(df).add_check(one))
    r2, jobs_many = _jobs(spark, "lakeindex-test-many", VerificationSuite().on_data(df).add_check(many))
    assert r1.status == "Success" and r2.status == "Success", r2.to_dict()
    assert jobs_one >= 1 and jobs_many == jobs_one


# ----------------------------------------------------------------------------------------------------------------
# anomaly checks against the metrics repository (§3.4)

TAGS = {"env": "test"}
STRATEGY = OnlineNormalStrategy(lower_deviation_factor=3.0, upper_deviation_factor=3.0)


def test_has_no_anomalies_against_repository_history(spark, tmp_path):
    repo = FileSystemMetricsRepository(tmp_path / "repo", fsync=False)
    # sizes 99, 101, 99, ... at t = 1000..1009: mean 100, population std 1, so the bounds are 100 -/+ 3
    for i in range(10):
        repo.save("orders", ResultKey(1000 + i, TAGS), [Size().success(99.0 if i % 2 == 0 else 101.0)])
    check = Check("error", "volume").has_no_anomalies(Size(), STRATEGY)

    def run(n, ts, dataset="orders", repository=repo):
        suite = VerificationSuite().on_data(spark.range(n)).add_check(check)
        if repository is not None:
            suite.use_repository(repository, dataset).save_or_append_result(ResultKey(ts, TAGS))
        return suite.run()

    r = run(100, 2000)
    c = r.check_results[0].constraint_results[0]
    assert r.status == "Success" and c.status == "Success" and c.metric.value == 100
    assert r.saved_to and repo.get("orders", ResultKey(2000, TAGS)).metric(Size()).value == 100
    # at t = 1500 only the 10 results before it count (the one at 2000 comes later)
    r = run(1000, 1500)
    c = r.check_results[0].constraint_results[0]
    assert r.status == "Error" and c.status == "Failure"
    assert "anomaly against 10 earlier results" in c.message and "upper bound 103" in c.message, c.message
    assert repo.get("orders", ResultKey(1500, TAGS)).metric(Size()).value == 1000  # saved after judging
    # the history before t = 1005 is 99, 101, 99, 101, 99: mean 99.8, so 1000 is an anomaly there too
    c = run(1000, 1005).check_results[0].constraint_results[0]
    assert "anomaly against 5 earlier results" in c.message
    r = run(1000, 3000, dataset="fresh")  # no history: nothing to compare with
    c = r.check_results[0].constraint_results[0]
    assert r.status == "Success" and c.status == "Success" and "no history" in c.message
    r = run(100, 0, repository=None)
    c = r.check_results[0].constraint_results[0]
    assert r.status == "Error" and "use_repository" in c.message and "result key" in c.message


def test_has_no_anomalies_reads_one_tagged_series(spark, tmp_path):
    # Two pipelines write one dataset at the same times: "eu" sizes near 100, "us" near 10,000. Mixed,
    # they are no single history (the check says so and how to pick one); the eu series flags 5,000.
    repo = FileSystemMetricsRepository(tmp_path / "repo", fsync=False)
    for i in range(10):
        repo.save("orders", ResultKey(1000 + i, {"region": "eu"}), [Size().success(99.0 + i % 2 * 2)])
        repo.save("orders", ResultKey(1000 + i, {"region": "us"}), [Size().success(9_900.0 + i % 3 * 100)])
    repo.save("orders", ResultKey(500, {"region": "eu"}), [Size().success(5_000.0)])  # before the migration

    def status(check, tags, n=5_000):
        suite = VerificationSuite().on_data(spark.range(n)).add_check(check)
        suite.use_repository(repo, "orders").save_or_append_result(ResultKey(2000, tags))
        return suite.run().check_results[0].constraint_results[0]

    both = status(Check().has_no_anomalies(Size(), STRATEGY), {"region": "eu"})
    assert both.status == "Failure" and "several results at time 1000" in both.message, both.message
    assert "pass tags=" in both.message
    eu = status(Check().has_no_anomalies(Size(), STRATEGY, tags={"region": "eu"}), {"region": "eu"})
    assert eu.status == "Failure" and "against 11 earlier results" in eu.message, eu.message
    assert "tags={'region': 'eu'}" in eu.constraint
    after = status(Check().has_no_anomalies(Size(), STRATEGY, tags={"region": "eu"}, after=1000), {"region": "eu"})
    assert "against 10 earlier results" in after.message, after.message
    with pytest.raises(TypeError, match="tags must map"):
        Check().has_no_anomalies(Size(), STRATEGY, tags={"region": 1})
    with pytest.raises(TypeError, match="epoch milliseconds"):
        Check().has_no_anomalies(Size(), STRATEGY, after="yesterday")
    (check,) = checks_from_dict({"checks": [{"constraints": [
        {"type": "has_no_anomalies", "analyzer": "Size", "strategy": {"type": "OnlineNormal"},
         "tags": {"region": "eu"}, "after": 1000}]}]})
    assert check.constraints[0].tags == {"region": "eu"} and check.constraints[0].after == 1000


def test_has_no_anomalies_needs_a_scalar_metric(spark, tmp_path):
    repo = FileSystemMetricsRepository(tmp_path / "repo", fsync=False)
    check = Check().has_no_anomalies(ApproxQuantiles("id"), STRATEGY)
    r = VerificationSuite().on_data(spark.range(5)).add_check(check).use_repository(repo, "d") \
        .save_or_append_result(ResultKey(1)).run()
    c = r.check_results[0].constraint_results[0]
    assert c.status == "Failure" and "scalar" in c.message and "ApproxQuantiles" in c.message


# ----------------------------------------------------------------------------------------------------------------
# incremental verification (§3.2): states of D merged with ΔD give the outcome of a run on D ∪ ΔD


def test_incremental_verification_matches_a_run_on_the_union(spark, tmp_path):
    schema = "id int, x double, s string"
    part1 = spark.createDataFrame([(1, 1.0, "a"), (2, 2.0, "b"), (3, None, "a")], schema)
    part2 = spark.createDataFrame([(3, 6.0, "c"), (4, 11.0, "a")], schema)

    def check():
        # union: ids 1, 2, 3, 3, 4 -> 3 singletons of 5; x 1, 2, 6, 11 (one null) -> mean 5, max 11
        return (Check("error", "inc").is_unique("id").has_size("== 5").has_mean("x", "== 5").has_max("x", "== 11")
                .has_completeness("x", "== 0.8").is_contained_in("s", ["a", "b", "c"]))

    s1, s2 = FileSystemStateStore(tmp_path / "s1"), FileSystemStateStore(tmp_path / "s2")
    VerificationSuite().on_data(part1).add_check(check()).save_states_with(s1).run()
    inc = VerificationSuite().on_data(part2).add_check(check()).aggregate_with(s1).save_states_with(s2).run()
    union = VerificationSuite().on_data(part1.unionByName(part2)).add_check(check()).run()

    def outcome(r):
        return [(c.constraint, c.status, round(c.metric.value, 9)) for c in r.check_results[0].constraint_results]

    assert outcome(inc) == outcome(union)
    assert outcome(union)[0] == ("is_unique(id)", "Failure", 0.6)  # part2 alone (ids 3, 4) would pass
    assert [s for _, s, _ in outcome(union)[1:]] == ["Success"] * 5


# ----------------------------------------------------------------------------------------------------------------
# check files

ALL_TYPES_DOC = {"checks": [
    {"level": "error", "description": "every constraint type", "constraints": [
        {"type": "has_size", "assertion": "== 6"},
        {"type": "is_complete", "column": "order_id"},
        {"type": "has_completeness", "column": "email", "assertion": ">= 0.8"},
        {"type": "is_unique", "column": ["order_id", "customer"]},
        {"type": "is_primary_key", "column": "sku", "where": "sku IS NOT NULL"},
        {"type": "has_uniqueness", "column": "order_id", "assertion": "between 0.6 and 0.7"},
        {"type": "has_distinctness", "column": ["order_id"], "assertion": "== 0.8333333333333334"},
        {"type": "has_unique_value_ratio", "column": "order_id", "assertion": "== 0.8"},
        {"type": "has_count_distinct", "column": "status", "assertion": "== 3"},
        {"type": "has_approx_count_distinct", "column": "status", "assertion": "== 3"},
        {"type": "has_data_type", "column": "qty", "type_name": "Integral", "assertion": "== 0.8"},
        {"type": "is_non_negative", "column": "amount", "assertion": "== 0.8333333333333334"},
        {"type": "is_positive", "column": "amount", "where": "status = 'new'"},
        {"type": "is_in_range", "column": "amount", "lower": -5, "upper": 35},
        {"type": "is_contained_in", "column": "status", "values": ["new", "paid", "lost"]},
        {"type": "is_less_than", "a": "start", "b": "end", "where": "`end` IS NOT NULL AND start <> 4"},
        {"type": "is_less_than_or_equal_to", "a": "start", "b": "end", "where": "`end` IS NOT NULL"},
        {"type": "is_greater_than", "a": "end", "b": "start", "assertion": "> 0.5"},
        {"type": "is_greater_than_or_equal_to", "a": "end", "b": "start", "assertion": ">= 0.8"},
        {"type": "satisfies", "predicate": "length(order_id) = 2", "name": "short ids"},
        {"type": "satisfies_if", "condition": "status = 'paid'", "predicate": "amount >= 0", "name": "paid amounts"},
        {"type": "has_consistent_type", "column": "qty", "assertion": ">= 0.8"},
        {"type": "has_pattern", "column": "order_id", "pattern": "^o[0-9]$"},
        {"type": "has_min", "column": "amount", "assertion": "== -5"},
        {"type": "has_max", "column": "amount", "assertion": "== 35"},
        {"type": "has_mean", "column": "amount", "assertion": "== 12"},
        {"type": "has_sum", "column": "amount", "assertion": "== 60"},
        {"type": "has_range", "column": "amount", "assertion": "== 40"},
        {"type": "has_interquartile_range", "column": "amount", "assertion": ">= 0"},
        {"type": "has_standard_deviation", "column": "amount", "assertion": "> 14"},
        {"type": "has_min_length", "column": "sku", "assertion": "== 4"},
        {"type": "has_max_length", "column": "sku", "assertion": "== 8"},
        {"type": "has_approx_quantile", "column": "amount", "quantile": 0.5, "assertion": "== 10"},
        {"type": "has_entropy", "column": "status", "assertion": "> 1"},
        {"type": "has_mutual_information", "a": "status", "b": "customer", "assertion": ">= 0"},
        {"type": "has_correlation", "a": "start", "b": "end", "assertion": "< 0"},
        {"type": "are_complete", "columns": ["order_id", "email"]},
        {"type": "have_completeness", "columns": ["order_id", "email"], "assertion": ">= 0.5"},
        {"type": "are_any_complete", "columns": ["email", "status"]},
        {"type": "have_any_completeness", "columns": ["email", "status"], "assertion": ">= 0.5"},
        {"type": "has_number_of_distinct_values", "column": "status", "assertion": "== 3"},
        {"type": "has_variance", "column": "amount", "assertion": ">= 0"},
        {"type": "has_skewness", "column": "amount", "assertion": "> -10"},
        {"type": "has_kurtosis", "column": "amount", "assertion": "> -10"},
        {"type": "has_zeros_count", "column": "amount", "assertion": ">= 0"},
        {"type": "has_ratio_of_sums", "numerator": "amount", "denominator": "amount", "assertion": "== 1"},
        {"type": "has_duplicate_row_count", "column": "status", "assertion": ">= 0"},
        {"type": "has_column_count", "assertion": "> 0"},
        {"type": "has_column", "column": "amount"},
        {"type": "has_exact_quantile", "column": "amount", "quantile": 0.5, "assertion": ">= -5"},
        {"type": "contains_email", "column": "email", "assertion": ">= 0"},
        {"type": "contains_url", "column": "email", "assertion": ">= 0"},
        {"type": "contains_credit_card_number", "column": "sku", "assertion": ">= 0"},
        {"type": "contains_social_security_number", "column": "sku", "assertion": ">= 0"},
        {"type": "custom_sql", "statement": "SELECT count(*) FROM {table}", "assertion": "== 6"},
        # only loaded here, never run: the reference path must exist, not be a dataset
        {"type": "does_dataset_match", "reference": __file__, "key_column_mappings": {"order_id": "order_id"}},
        {"type": "has_no_anomalies", "analyzer": {"type": "Mean", "column": "amount"},
         "strategy": {"type": "OnlineNormal", "upper_deviation_factor": 3}},
    ]},
    {"level": "warning", "constraints": [{"type": "has_size", "assertion": "< 6"}]},
]}


def test_checks_from_dict_accepts_every_constraint_type():
    used = {c["type"] for ch in ALL_TYPES_DOC["checks"] for c in ch["constraints"]}
    # every Check method is usable from JSON except the histogram and KLL ones, which need a callable (tested below
    # and in test_deequ_kll.py)
    assert used == set(constraint_types()) - {"has_histogram_values", "kll_sketch_satisfies"}
    checks = checks_from_dict(json.loads(json.dumps(ALL_TYPES_DOC)))
    assert [(c.level, c.description) for c in checks] == [("error", "every constraint type"),
                                                           ("warning", "check 1")]
    first = checks[0].constraints
    # is_primary_key expands to is_complete + is_unique: one constraint more than listed
    assert len(first) == len(ALL_TYPES_DOC["checks"][0]["constraints"]) + 1
    described = [c.description for c in first]
    assert described[:3] == ["has_size == 6", "is_complete(order_id)", "has_completeness(email) >= 0.8"]
    assert "is_unique(order_id, customer)" in described and "satisfies(short ids)" in described
    anomaly = first[-1]
    assert type(anomaly).__name__ == "AnomalyConstraint"
    assert anomaly.analyzer.spec() == "Mean(column='amount', where=None)"
    assert anomaly.strategy == OnlineNormalStrategy(upper_deviation_factor=3)
    assert [a.spec() for a in checks[0].constraints[14].analyzers()] == [
        "Compliance(label='is_in_range(amount, -5, 35)', predicate='`amount` IS NULL OR TRY_CAST(`amount` AS DOUBLE) "
        "BETWEEN -5.0 AND 35.0', where=None)"]


def test_checks_from_json_evaluate_like_the_builder(orders):
    """A few JSON constraints run on the orders table give the builder's results."""
    doc = {"checks": [{"level": "warning", "description": "from json", "constraints": [
        {"type": "has_uniqueness", "column": "order_id", "assertion": "between 0.6 and 0.7"},
        {"type": "is_in_range", "column": "amount", "lower": -5, "upper": 35},
        {"type": "has_data_type", "column": "qty", "type_name": "Integral", "assertion": "== 0.8"},
        {"type": "is_contained_in", "column": "status", "values": ["new", "paid"]},
    ]}]}
    r = VerificationSuite().on_data(orders).add_checks(checks_from_dict(doc)).run()
    got = [(c.status, c.metric.value if not isinstance(c.metric.value, dict) else None)
           for c in r.check_results[0].constraint_results]
    # 4 singleton ids of 6; all non-null amounts in [-5, 35]; 4 integral qty of 5; 4 of 5 statuses allowed
    assert got == [("Success", pytest.approx(4 / 6)), ("Success", 1.0), ("Success", None),
                   ("Failure", pytest.approx(0.8))]
    assert r.status == "Warning" and r.check_results[0].constraint_results[3].samples == [{"value": "lost", "count": 1}]


@pytest.mark.parametrize("doc, where, fragment", [
    ({"checks": [{"constraints": [{"type": "is_complete", "column": "a"}]},
                 {"constraints": [{"type": "is_complete", "column": "a"}, {"type": "is_compelte", "column": "a"}]}]},
     "checks[1].constraints[1]", "'type' must be one of"),
    ({"checks": [{"constraints": [{"type": "has_size", "assertion": ">= lots"}]}]},
     "checks[0].constraints[0] (has_size)", "cannot parse assertion '>= lots'"),
    ({"checks": [{"constraints": [{"type": "is_complete", "colum": "a"}]}]},
     "checks[0].constraints[0] (is_complete)", "colum"),
    ({"checks": [{"constraints": [{"type": "has_no_anomalies", "analyzer": {"type": "Sizes"},
                                   "strategy": {"type": "OnlineNormal"}}]}]},
     "checks[0].constraints[0] (has_no_anomalies)", "unknown analyzer type 'Sizes'"),
    ({"checks": [{"constraints": [{"type": "has_no_anomalies", "analyzer": "Analyzer",
                                   "strategy": {"type": "OnlineNormal"}}]}]},
     "checks[0].constraints[0] (has_no_anomalies)", "unknown analyzer type 'Analyzer'"),
    ({"checks": [{"constraints": [{"type": "has_no_anomalies", "analyzer": "Size",
                                   "strategy": {"type": "Prophet"}}]}]},
     "checks[0].constraints[0] (has_no_anomalies)", "unknown anomaly detection strategy type 'Prophet'"),
    ({"checks": [{"constraints": [{"type": "has_no_anomalies", "analyzer": "Size",
                                   "strategy": {"type": "OnlineNormal", "upper_deviation_factor": -1}}]}]},
     "checks[0].constraints[0] (has_no_anomalies)", "upper_deviation_factor"),
    ({"checks": [{"constraints": [{"type": "has_no_anomalies", "analyzer": "Size"}]}]},
     "checks[0].constraints[0] (has_no_anomalies)", "strategy"),
    ({"checks": [{"constraints": [{"type": "has_histogram_values", "column": "a", "assertion": "== 1"}]}]},
     "checks[0].constraints[0] (has_histogram_values)", "must be a callable"),
    ({"checks": [{"constraints": [{"type": "is_contained_in", "column": "a", "values": "new"}]}]},
     "checks[0].constraints[0] (is_contained_in)", "must be a list"),
    ({"checks": [{"constraints": [{"type": "is_complete", "column": 5}]}]},
     "checks[0].constraints[0] (is_complete)", ""),
    ({"checks": [{"level": "fatal", "constraints": []}]}, "checks[0]", "level"),
    ({"checks": [{"level": "error", "constraint": [{"type": "is_complete", "column": "a"}]}]},
     "checks[0]", "unknown key(s) 'constraint'"),
    ({"checks": [{"constraints": {"type": "is_complete", "column": "a"}}]}, "checks[0]", "must be a list"),
    ({"checks": ["is_complete"]}, "checks[0]", "expected an object"),
    ({"check": []}, "", '{"checks": [...]}'),
])
def test_checks_from_dict_errors_name_the_place(doc, where, fragment):
    with pytest.raises(ChecksFileError) as e:
        checks_from_dict(doc)
    msg = str(e.value)
    assert msg.startswith(where) and fragment in msg, msg


def test_load_checks_from_json_and_python_files(tmp_path):
    j = tmp_path / "checks.json"
    j.write_text(json.dumps({"checks": [{"constraints": [{"type": "is_complete", "column": "a"}]}]}))
    assert [type(c).__name__ for c in load_checks(j)[0].constraints] == ["MetricConstraint"]
    bad = tmp_path / "bad.json"
    bad.write_text('{"checks": [')
    with pytest.raises(ChecksFileError, match="bad.json: not valid JSON"):
        load_checks(bad)
    wrong = tmp_path / "wrong.json"
    wrong.write_text(json.dumps({"checks": [{"constraints": [{"type": "nope"}]}]}))
    with pytest.raises(ChecksFileError, match=r"wrong.json: checks\[0\].constraints\[0\]"):
        load_checks(wrong)

    as_list = tmp_path / "as_list.py"
    as_list.write_text("from lakeindex.checks import Check\n"
                       "checks = [Check('error', 'a').is_complete('x'), Check('warning', 'b').has_size('> 0')]\n")
    assert [(c.level, c.description) for c in load_checks(as_list)] == [("error", "a"), ("warning", "b")]
    as_function = tmp_path / "as_function.py"
    as_function.write_text("from lakeindex.checks import Check\n"
                           "def checks():\n    return [Check('error', 'made').is_unique('x')]\n")
    assert [c.description for c in load_checks(as_function)] == ["made"]
    for name, body, fragment in [("none.py", "x = 1\n", "must define `checks`"),
                                 ("not_checks.py", "checks = ['is_complete']\n", "must define `checks`"),
                                 ("syntax.py", "checks = [\n", "SyntaxError"),
                                 ("raises.py", "raise RuntimeError('boom')\n", "RuntimeError: boom")]:
        p = tmp_path / name
        p.write_text(body)
        with pytest.raises(ChecksFileError, match=fragment):
            load_checks(p)
    with pytest.raises(ChecksFileError, match="no such file"):
        load_checks(tmp_path / "missing.json")
    toml = tmp_path / "checks.toml"  # YAML is a checks format now (tests/test_checks_yaml.py); TOML is not
    toml.write_text("checks = []\n")
    with pytest.raises(ChecksFileError, match=r"\.json, \.yaml/\.yml or \.py"):
        load_checks(toml)


def test_a_check_is_immutable_like_deequs():
    """Each builder method returns a new Check; the receiver keeps its constraints, so one base check can be
    extended two ways, and attributes cannot be reassigned. A copy is rebuilt through __init__."""
    import copy

    base = Check("warning", "base").is_complete("id")
    a = base.is_unique("id")
    b = base.has_size("> 3")
    assert [len(c.constraints) for c in (base, a, b)] == [1, 2, 2]
    assert a.constraints[0] is base.constraints[0] and a.constraints[1] is not b.constraints[1]
    assert (a.level, a.description) == ("warning", "base")
    with pytest.raises(AttributeError, match="immutable"):
        base.level = "error"
    keys = Check().is_primary_key(["a", "b"])  # built from three constraints, by chaining inside
    assert [c.description for c in keys.constraints] == ["is_complete(a)", "is_complete(b)", "is_unique(a, b)"]
    again = copy.deepcopy(Check("error", "p").has_size("> 1"))
    assert (again.level, again.description, [c.description for c in again.constraints]) == \
        ("error", "p", ["has_size > 1"])


def test_a_where_filter_matching_no_rows_passes_as_in_deequ(spark):
    """Deequ's "empty due to filter" rule: has_min/has_max/is_complete/satisfies whose where-filter selects no
    row pass; the same constraint without a filter still judges the data, and an empty unfiltered metric
    still fails."""
    df = spark.createDataFrame([(1, 5.0), (2, None)], "id int, x double")
    check = (Check("error", "f").has_min("x", ">= 0", where="id > 10").has_max("x", "<= 1", where="id > 10")
             .is_complete("x", where="id > 10").satisfies("x > 100", "big", where="id > 10")
             .has_min("x", "> 100"))
    statuses = [r.status for r in VerificationSuite().on_data(df).add_check(check).run()
                .check_results[0].constraint_results]
    assert statuses == ["Success"] * 4 + ["Failure"]
    empty = spark.createDataFrame([], "id int, x double")
    result = VerificationSuite().on_data(empty).add_check(Check("error", "e").has_min("x", ">= 0")).run()
    assert result.check_results[0].constraint_results[0].status == "Failure"


def test_multi_column_completeness_and_distinct_values_as_in_deequ(spark):
    """By hand over 4 rows (a, b): (1, 1), (2, null), (null, 3), (null, null): all present in 1 row (0.25),
    any present in 3 (0.75); a's Histogram has 3 bins, 1, 2 and NullValue (Deequ counts the null bin)."""
    df = spark.createDataFrame([(1, 1), (2, None), (None, 3), (None, None)], "a int, b int")
    check = (Check("error", "multi").have_completeness(["a", "b"], "== 0.25")
             .have_any_completeness(["a", "b"], "== 0.75").are_complete(["a", "b"]).are_any_complete(["a", "b"])
             .has_number_of_distinct_values("a", "== 3"))
    results = VerificationSuite().on_data(df).add_check(check).run().check_results[0].constraint_results
    assert [r.status for r in results] == ["Success", "Success", "Failure", "Failure", "Success"]
    both = spark.createDataFrame([(1, None), (None, 2)], "a int, b int")
    ok = VerificationSuite().on_data(both).add_check(Check("error", "any").are_any_complete(["a", "b"])).run()
    assert ok.status == "Success"
    assert {"are_complete", "have_any_completeness", "has_number_of_distinct_values"} <= set(constraint_types())
