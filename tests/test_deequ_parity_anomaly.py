"""Deequ parity, part 3: the Holt-Winters strategy, has_no_anomalies' ``before``, has_data_type's Numeric and
Null, contains_email/url/credit_card_number/social_security_number, and CustomSql with custom_sql (also from JSON).

Expected values are hand-labelled or hand-computed in the comments. The Holt-Winters tests assert behaviour
(a clean value passes, a spike is flagged, too little history fails with the reason) plus one case checkable by
hand: a noiseless periodic series is forecast exactly.
"""

from __future__ import annotations

import json

import pytest

from lakeindex.anomaly import HoltWintersStrategy, OnlineNormalStrategy, strategy_from_dict
from lakeindex.checks import Check, VerificationSuite, checks_from_dict, load_checks
from lakeindex.checks import deequ_patterns as patterns
from lakeindex.metrics import (
    AnalysisRunner,
    CustomSql,
    FileSystemStateStore,
    PatternMatch,
    Size,
    run_analysis,
    run_on_aggregated_states,
)
from lakeindex.metrics.row_counts import java_regex_error
from lakeindex.repository import FileSystemMetricsRepository, ResultKey
from tests.test_metrics import error, value

# ----------------------------------------------------------------------------------------------------------------
# Holt-Winters

PATTERN = [12.0, -5.0, 3.0, 8.0, -10.0, -6.0, -2.0]  # a weekly cycle summing to 0
WEEKS = 6
N = 7 * WEEKS


def level(t: int) -> float:
    """The noiseless series: base + slope * t + the weekday's offset."""
    return 200.0 + 1.5 * t + PATTERN[t % 7]


def noise(t: int) -> float:
    """Deterministic noise in [-0.6, 0.6]: the fit has residuals, so its band has a width."""
    return ((t * 7919) % 13 - 6) / 10


HISTORY = [level(t) + noise(t) for t in range(N)]


def flagged(strategy, values, interval) -> list[int]:
    return [a.index for a in strategy.detect(values, interval)]


def test_holt_winters_passes_a_clean_value_and_flags_a_jump_either_way() -> None:
    hw = HoltWintersStrategy("Daily", "Weekly")
    assert flagged(hw, [*HISTORY, level(N)], (N, N + 1)) == []
    (spike,) = hw.detect([*HISTORY, level(N) + 15], (N, N + 1))
    assert spike.index == N and spike.value == level(N) + 15 and spike.confidence == 1.0
    assert "outside the forecast" in spike.detail and "1.96 * residual std" in spike.detail
    assert flagged(hw, [*HISTORY, level(N) - 15], (N, N + 1)) == [N]


def test_holt_winters_forecasts_the_whole_interval_from_the_points_before_it() -> None:
    # one fit on the 42 points before the interval forecasts the next week; only the jumped Thursday is flagged
    week = [level(t) for t in range(N, N + 7)]
    week[3] += 25
    assert flagged(HoltWintersStrategy(), [*HISTORY, *week], (N, N + 7)) == [N + 3]
    assert flagged(HoltWintersStrategy(), [*HISTORY, *week], (N, N + 3)) == []  # the interval filters the output
    with pytest.raises(ValueError, match="is empty"):  # an empty interval is refused, as Deequ's require
        HoltWintersStrategy().detect([*HISTORY, *week], (N, N))


def test_holt_winters_forecasts_a_noiseless_periodic_series_exactly() -> None:
    # 10 + the weekly pattern, three weeks: the next week is the pattern again (by hand: 22, 5, 13, 18, 0, 4, 8)
    periodic = [10.0 + PATTERN[t % 7] for t in range(21)]
    forecasts, residual_std = HoltWintersStrategy().forecast(periodic, 7)
    assert forecasts.tolist() == pytest.approx([22.0, 5.0, 13.0, 18.0, 0.0, 4.0, 8.0], abs=1e-6)
    assert residual_std == pytest.approx(0.0, abs=1e-6)
    assert flagged(HoltWintersStrategy(), [*periodic, 22.0], (21, 22)) == []  # exact repeat: not flagged
    assert flagged(HoltWintersStrategy(), [*periodic, 22.5], (21, 22)) == [21]  # any real deviation is


def test_holt_winters_needs_two_full_seasons_before_the_interval() -> None:
    with pytest.raises(ValueError, match=r"needs at least 2 seasons \(14 points\) of history .* got 13"):
        HoltWintersStrategy().detect(HISTORY[:14], (13, 14))
    with pytest.raises(ValueError, match=r"needs at least 2 seasons \(24 points\) .* got 23"):
        HoltWintersStrategy("Monthly", "Yearly").detect([float(t % 12) for t in range(24)], (23, 24))
    assert flagged(HoltWintersStrategy(), HISTORY[:15], (14, 15)) in ([], [14])  # 14 points are enough to decide


def test_holt_winters_periods_and_json_round_trip() -> None:
    assert HoltWintersStrategy().period == 7 and HoltWintersStrategy("Monthly", "Yearly").period == 12
    for interval, season in (("Daily", "Yearly"), ("Monthly", "Weekly"), ("daily", "weekly")):
        with pytest.raises(ValueError, match="Daily\\+Weekly, Monthly\\+Yearly"):
            HoltWintersStrategy(interval, season)
    config = {"type": "HoltWinters", "metrics_interval": "Monthly", "seasonality": "Yearly"}
    strategy = strategy_from_dict(json.loads(json.dumps(config)))
    assert strategy == HoltWintersStrategy("Monthly", "Yearly") and strategy.to_dict() == config
    assert strategy_from_dict({"type": "HoltWintersStrategy"}) == HoltWintersStrategy()
    with pytest.raises(ValueError, match="'period'.*valid parameters: metrics_interval, seasonality"):
        strategy_from_dict({"type": "HoltWinters", "period": 7})


DAY = 86_400_000
T0 = 1_700_000_000_000


def daily_sizes(repo: FileSystemMetricsRepository, sizes: list[float], dataset: str = "orders") -> None:
    for i, size in enumerate(sizes):
        repo.save(dataset, ResultKey(T0 + i * DAY), [Size().success(float(size))])


def judge(spark, repo, check, n_rows: int, day: int, dataset: str = "orders"):
    suite = VerificationSuite().on_data(spark.range(n_rows)).add_check(check)
    suite.use_repository(repo, dataset).save_or_append_result(ResultKey(T0 + day * DAY))
    return suite.run().check_results[0].constraint_results[0]


def test_has_no_anomalies_with_holt_winters_against_a_repository(spark, tmp_path) -> None:
    # daily row counts 10x the series above (integers): 42 days of history, then day 42 is judged
    repo = FileSystemMetricsRepository(tmp_path / "repo", fsync=False)
    daily_sizes(repo, [round(10 * v) for v in HISTORY])
    daily_sizes(repo, [round(10 * v) for v in HISTORY[:13]], dataset="young")
    check = Check("error", "volume").has_no_anomalies(Size(), HoltWintersStrategy("Daily", "Weekly"))
    clean = round(10 * level(N))  # 2750 rows
    assert judge(spark, repo, check, clean, N).status == "Success"
    # the next day (its history now includes day 42) is 150 rows above its clean value
    spiked = judge(spark, repo, check, round(10 * level(N + 1)) + 150, N + 1)
    assert spiked.status == "Failure" and "anomaly against 43 earlier results" in spiked.message, spiked.message
    short = judge(spark, repo, check, clean, 13, dataset="young")
    assert short.status == "Failure", short.message
    assert "needs at least 2 seasons (14 points) of history" in short.message and "got 13" in short.message


# ----------------------------------------------------------------------------------------------------------------
# has_no_anomalies(before=...)


def test_has_no_anomalies_history_is_after_inclusive_before_exclusive(spark, tmp_path) -> None:
    # sizes 99/101 at days 0..9, an incident of 5000 rows at days 10..12; the run on day 20 has 5000 rows
    repo = FileSystemMetricsRepository(tmp_path / "repo", fsync=False)
    daily_sizes(repo, [99.0, 101.0] * 5 + [5000.0] * 3)
    online = OnlineNormalStrategy(ignore_start_percentage=0.0, ignore_anomalies=False)

    def run(**window):
        return judge(spark, repo, Check().has_no_anomalies(Size(), online, **window), 5000, 20)

    # with the incident in the history, 5000 is normal there: mean 1230.8, population std 2065 (by hand)
    assert run().status == "Success"
    before = run(before=T0 + 10 * DAY)  # day 10 itself is left out: days 0..9, mean 100, std 1
    assert before.status == "Failure" and "anomaly against 10 earlier results" in before.message, before.message
    assert f"before={T0 + 10 * DAY}" in before.constraint
    window = run(after=T0 + 5 * DAY, before=T0 + 10 * DAY)  # days 5..9: the after bound is included
    assert "anomaly against 5 earlier results" in window.message, window.message
    assert run(before=T0 + 11 * DAY).message.startswith("anomaly against 11 earlier results")
    assert run(before=T0).message == "no history yet: nothing to compare with"


def test_has_no_anomalies_before_validation_and_json() -> None:
    with pytest.raises(TypeError, match="before must be a timestamp"):
        Check().has_no_anomalies(Size(), HoltWintersStrategy(), before="tomorrow")
    with pytest.raises(ValueError, match="after \\(5\\) must be earlier than before \\(5\\)"):
        Check().has_no_anomalies(Size(), HoltWintersStrategy(), after=5, before=5)
    (check,) = checks_from_dict({"checks": [{"constraints": [
        {"type": "has_no_anomalies", "analyzer": "Size", "strategy": {"type": "HoltWinters"},
         "after": 1000, "before": 2000}]}]})
    constraint = check.constraints[0]
    assert (constraint.after, constraint.before, constraint.strategy) == (1000, 2000, HoltWintersStrategy())


# ----------------------------------------------------------------------------------------------------------------
# has_data_type: Numeric and Null


def statuses(spark, df, check) -> list[tuple[str, str]]:
    result = VerificationSuite().on_data(df).add_check(check).run()
    return [(c.constraint, c.status) for c in result.check_results[0].constraint_results]


def test_has_data_type_numeric_and_null(spark) -> None:
    # 7 rows: Integral "1" and "-3", Fractional "2.5", Boolean "true", String "abc", and 2 nulls
    df = spark.createDataFrame([("1",), ("2.5",), ("true",), ("abc",), (None,), (None,), ("-3",)], "v string")
    check = (Check()
             .has_data_type("v", "Numeric", "== 0.6")  # (2 + 1) / 5 non-null values
             .has_data_type("v", "Null", lambda r: abs(r - 2 / 7) < 1e-12)  # 2 of 7 rows: over all rows
             .has_data_type("v", "Integral", "== 0.4")  # unchanged: 2 / 5 non-null values
             .has_data_type("v", "Numeric"))  # default == 1 fails: Boolean and String values
    assert [s for _, s in statuses(spark, df, check)] == ["Success", "Success", "Success", "Failure"]
    numbers = spark.createDataFrame([("1",), ("2.5",), (None,)], "v string")  # Integral + Fractional = all
    nulls = spark.createDataFrame([(None,), (None,)], "v string")
    assert statuses(spark, numbers, Check().has_data_type("v", "Numeric"))[0][1] == "Success"
    assert statuses(spark, nulls, Check().has_data_type("v", "Null"))[0][1] == "Success"
    assert statuses(spark, numbers, Check().has_data_type("v", "Null", "== 0"))[0][1] == "Failure"  # 1/3
    with pytest.raises(ValueError, match="'Numeric', 'Null'"):
        Check().has_data_type("v", "Decimal")


# ----------------------------------------------------------------------------------------------------------------
# contains_email / url / credit_card_number / social_security_number

LABELLED = {  # value -> does Deequ's pattern find it (hand-labelled)
    "email": {"ann@example.com": True, "a.b-c+tag@sub.example.co.uk": True, "write to bob@mail.org today": True,
              "user@[192.168.0.1]": True, "Ann@Example.com": False,  # Deequ's pattern is lower-case only
              "x@y": False, "no at sign": False},
    "url": {"https://example.com/a?b=1": True, "ftp://files.example.org": True, "see http://x.io now": True,
            "www.example.com": False, "http://": False, "mailto:ann@example.com": False,
            "HTTP://EXAMPLE.COM": False},
    "card": {"4111 1111 1111 1111": True, "4111-1111-1111-1111": True, "5500000000000004": True,
             "378282246310005": True, "6011111111111117": True, "card: 4111111111111111 exp": True,
             "1234 5678 9012 3456": False, "4111 1111-1111 1111": False,  # mixed separators
             "411111111111": False},
    "ssn": {"123-45-6789": True, "123 45 6789": True, "ssn 123456789": True, "078-05-1120": False,  # advertised
            "666-12-3456": False, "000-12-3456": False, "123-00-6789": False, "987-65-4321": False,
            "12-345-6789": False},
}
PATTERNS = {"email": patterns.EMAIL, "url": patterns.URL, "card": patterns.CREDITCARD,
            "ssn": patterns.SOCIAL_SECURITY_NUMBER_US}


@pytest.fixture(scope="module")
def labelled(spark):
    """One column per pattern, padded with nulls (PatternMatch divides by the non-null values)."""
    width = max(len(v) for v in LABELLED.values())
    columns = {k: [*v, *[None] * (width - len(v))] for k, v in LABELLED.items()}
    rows = list(zip(*columns.values(), strict=True))
    return spark.createDataFrame(rows, ", ".join(f"{k} string" for k in columns))


def test_deequ_patterns_compile_in_java(spark) -> None:
    assert {k: java_regex_error(p) for k, p in PATTERNS.items()} == dict.fromkeys(PATTERNS)


def test_deequ_patterns_find_the_hand_labelled_values(spark, labelled) -> None:
    ctx = run_analysis(labelled, [PatternMatch(k, p) for k, p in PATTERNS.items()])
    for k, p in PATTERNS.items():
        expected = sum(LABELLED[k].values()) / len(LABELLED[k])
        assert value(ctx, PatternMatch(k, p)) == pytest.approx(expected), k
        per_value = run_analysis(labelled.where(labelled[k].isin([v for v, ok in LABELLED[k].items() if ok])),
                                 [PatternMatch(k, p)])
        assert value(per_value, PatternMatch(k, p)) == 1.0, k  # the matches are exactly the ones labelled so


def test_contains_constraints_are_has_pattern_with_deequs_regexes(spark, labelled) -> None:
    check = (Check()
             .contains_email("email", lambda r: abs(r - 4 / 7) < 1e-12)
             .contains_url("url", lambda r: abs(r - 3 / 7) < 1e-12)
             .contains_credit_card_number("card", lambda r: abs(r - 6 / 9) < 1e-12)
             .contains_social_security_number("ssn", lambda r: abs(r - 3 / 9) < 1e-12)
             .contains_email("email")  # Deequ's default assertion: every value
             .contains_url("url", where="url LIKE '%://%'", assertion="== 0.6"))  # 3 of the 5 with '://'
    result = statuses(spark, labelled, check)
    assert [s for _, s in result] == ["Success"] * 4 + ["Failure", "Success"]
    assert result[0][0].startswith("contains_email(email)") and result[3][0].startswith(
        "contains_social_security_number(ssn)")
    assert check.constraints[0].analyzer == PatternMatch("email", patterns.EMAIL)


# ----------------------------------------------------------------------------------------------------------------
# CustomSql / custom_sql

AMOUNTS = [(1, -2.0), (2, 3.0), (3, -1.0), (4, None), (5, 7.5)]


@pytest.fixture(scope="module")
def amounts(spark):
    return spark.createDataFrame(AMOUNTS, "id int, amount double")


def test_custom_sql_single_cell_is_the_metric(spark, amounts) -> None:
    negatives = CustomSql("SELECT count(*) FROM {table} WHERE amount < 0")  # ids 1 and 3
    total = CustomSql("WITH t AS (SELECT sum(amount) AS s FROM {table}) SELECT s FROM t;")  # -2 + 3 - 1 + 7.5
    decimal = CustomSql("SELECT CAST(max(amount) AS DECIMAL(10, 2)) FROM {table}")
    ctx = run_analysis(amounts, [negatives, total, decimal, Size()])
    assert value(ctx, negatives) == 2.0 and value(ctx, total) == 7.5 and value(ctx, decimal) == 7.5
    assert value(ctx, Size()) == 5.0
    metric = ctx.metric(negatives)
    assert (metric.name, metric.instance, metric.entity) == ("CustomSql", "*", "Dataset")
    assert not [t for t in spark.catalog.listTables() if t.name.startswith("__lakeindex_custom_sql")]


@pytest.mark.parametrize(("statement", "message"), [
    ("SELECT nope FROM {table}", "the statement failed: [UNRESOLVED_COLUMN"),
    ("SELEC 1", "the statement failed: [PARSE_SYNTAX_ERROR]"),
    ("SELECT id FROM {table}", "exactly one row, got more than one row"),
    ("SELECT id FROM {table} WHERE id > 10", "exactly one row, got no rows"),
    ("SELECT 1 AS a, 2 AS b", "one column, got 2 (a, b)"),
    ("SELECT 'many'", "returned 'many' (str), not a number"),
    ("SELECT true", "returned True (bool), not a number"),
    ("SELECT NULL", "returned NULL"),
    ("  ;", "must be a non-empty SQL query"),
])
def test_custom_sql_failures_say_why(spark, amounts, statement, message) -> None:
    analyzer = CustomSql(statement)
    assert message in error(run_analysis(amounts, [analyzer]), analyzer)


def test_custom_sql_runs_only_a_query(spark, amounts) -> None:
    spark.createDataFrame([(1,)], "x int").createOrReplaceTempView("custom_sql_victim")
    try:
        for statement in ("DROP VIEW custom_sql_victim",
                          "SELECT 1) AS x; DROP VIEW custom_sql_victim; SELECT * FROM (SELECT 1"):
            analyzer = CustomSql(statement)
            assert "PARSE_SYNTAX_ERROR" in error(run_analysis(amounts, [analyzer]), analyzer)
        assert spark.catalog.tableExists("custom_sql_victim")
        joined = CustomSql("SELECT count(*) FROM {table} JOIN custom_sql_victim ON id = x")  # a user's view, as Deequ
        assert value(run_analysis(amounts, [joined]), joined) == 1.0
    finally:
        spark.catalog.dropTempView("custom_sql_victim")


def test_custom_sql_is_not_mergeable(spark, amounts, tmp_path) -> None:
    analyzer = CustomSql("SELECT count(*) FROM {table}")
    store = FileSystemStateStore(tmp_path / "states")
    first = AnalysisRunner.on_data(amounts).add_analyzers([analyzer, Size()]).save_states_with(store).run()
    assert value(first, analyzer) == 5.0
    merged = AnalysisRunner.on_data(amounts).add_analyzers([analyzer, Size()]).aggregate_with(store).run()
    assert value(merged, Size()) == 10.0  # the others merge as before
    assert "not mergeable" in error(merged, analyzer) and "aggregate_with" in error(merged, analyzer)
    combined = run_on_aggregated_states(spark, [analyzer], [store])
    assert "not mergeable" in error(combined, analyzer)


def test_custom_sql_constraint(spark, amounts) -> None:
    check = (Check()
             .custom_sql("SELECT count(*) FROM {table} WHERE amount < 0", "== 2")
             .custom_sql("SELECT count(*) FROM {table} WHERE amount < 0", "== 0")
             .custom_sql("SELECT id FROM {table}", ">= 0"))
    result = VerificationSuite().on_data(amounts).add_check(check).run().check_results[0].constraint_results
    assert [c.status for c in result] == ["Success", "Failure", "Failure"]
    assert result[0].constraint == "custom_sql(SELECT count(*) FROM {table} WHERE amount < 0) == 2"
    assert "value 2.0 does not meet" in result[1].message
    assert "more than one row" in result[2].message
    with pytest.raises(ValueError, match="custom_sql: give an assertion"):
        Check().custom_sql("SELECT 1", None)


# ----------------------------------------------------------------------------------------------------------------
# all of it from a JSON checks file


def test_new_constraints_from_a_json_checks_file(spark, tmp_path) -> None:
    repo = FileSystemMetricsRepository(tmp_path / "repo", fsync=False)
    daily_sizes(repo, [round(10 * v) for v in HISTORY])
    n = round(10 * level(N))  # 2750 rows, the clean next value of the series
    path = tmp_path / "checks.json"
    path.write_text(json.dumps({"checks": [{"level": "error", "description": "parity 3", "constraints": [
        {"type": "has_no_anomalies", "analyzer": {"type": "Size"},
         "strategy": {"type": "HoltWinters", "metrics_interval": "Daily", "seasonality": "Weekly"}},
        {"type": "has_no_anomalies", "analyzer": "Size", "strategy": {"type": "HoltWinters"},
         "before": T0 + 13 * DAY},  # 13 days of history: too few for a weekly season
        {"type": "contains_email", "column": "contact"},
        {"type": "contains_url", "column": "contact", "assertion": "== 0"},
        {"type": "custom_sql", "statement": "SELECT count(*) FROM {table} WHERE id % 2 = 0", "assertion": "== 1375"},
        {"type": "has_data_type", "column": "code", "type_name": "Numeric"},
        {"type": "has_data_type", "column": "code", "type_name": "Null", "assertion": "== 0"},
    ]}]}))
    checks = load_checks(path)
    data = spark.range(n).selectExpr("id", "concat('user', id, '@example.com') AS contact",
                                     "CAST(id AS STRING) AS code")
    suite = VerificationSuite().on_data(data).add_check(checks[0])
    suite.use_repository(repo, "orders").save_or_append_result(ResultKey(T0 + N * DAY))
    results = suite.run().check_results[0].constraint_results
    assert [c.status for c in results] == ["Success", "Failure", "Success", "Success", "Success", "Success",
                                           "Success"], [(c.constraint, c.message) for c in results]
    assert "needs at least 2 seasons (14 points)" in results[1].message
