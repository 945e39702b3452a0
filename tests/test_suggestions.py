"""Constraint suggestion: each rule fires on its fixture column only, with the right bounds, code and JSON."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pyarrow as pa
import pytest
from pyspark.sql import DataFrame

from lakeindex import checks
from lakeindex.profiling import ColumnProfile, DatasetProfile
from lakeindex.suggestions import (
    DEFAULT_RULES,
    EXTENDED_RULES,
    ConstraintSuggestionRunner,
    RetainCompletenessRule,
    Suggestion,
    UniqueIfApproximatelyUniqueRule,
    UniqueIfUniqueRule,
    suggest_constraints,
    suggestions_to_check_json,
    wilson_lower_bound,
)
from tests import constraint_oracle
from tests.test_profiling import shared_data

Z = 1.959963984540054


@pytest.fixture(scope="module")
def data(spark):
    return shared_data(spark)


@pytest.fixture(scope="module")
def suggestions(data) -> list[Suggestion]:
    return suggest_constraints(data[1])


def by_column(suggestions: list[Suggestion]) -> dict[str, dict[str, Suggestion]]:
    out: dict[str, dict[str, Suggestion]] = {}
    for s in suggestions:
        out.setdefault(s.column, {})[s.rule] = s
    return out


def test_each_rule_fires_on_its_columns_only(suggestions):
    fired = {c: sorted(rules) for c, rules in by_column(suggestions).items()}
    assert fired == {
        "id": ["CompleteIfCompleteRule", "UniqueIfUniqueRule"],
        "amount": ["CompleteIfCompleteRule", "NonNegativeNumbersRule", "RetainTypeRule"],
        "frac": ["CompleteIfCompleteRule", "NonNegativeNumbersRule", "RetainTypeRule",
                 "UniqueIfUniqueRule"],
        "score": ["CompleteIfCompleteRule", "UniqueIfUniqueRule"],  # negative: no is_non_negative
        "ctrl": ["CategoricalRangeRule", "CompleteIfCompleteRule", "NonNegativeNumbersRule"],
        "flag": ["CompleteIfCompleteRule", "RetainTypeRule"],
        "cat": ["CategoricalRangeRule", "CompleteIfCompleteRule"],
        "outl": ["CompleteIfCompleteRule", "FractionalCategoricalRangeRule"],
        "partial": ["CategoricalRangeRule", "RetainCompletenessRule"],
    }  # the all-null column gets nothing


def test_retain_completeness_uses_the_wilson_lower_bound(suggestions):
    s = by_column(suggestions)["partial"]["RetainCompletenessRule"]
    # Wilson score lower bound of 36/40 at 95%: 0.7695, rounded down
    assert wilson_lower_bound(0.9, 40) == pytest.approx(0.76948, abs=1e-4)
    assert s.constraint == {"type": "has_completeness", "column": "partial", "assertion": ">= 0.76"}
    assert s.code == '.has_completeness("partial", ">= 0.76")'
    assert s.current_value["completeness"] == pytest.approx(0.9) and s.current_value["num_records"] == 40
    assert "0.9" in s.description and "36 of 40" in s.description


def test_wilson_bound_is_below_the_observation_and_above_wald_near_one():
    for n in (5, 40, 1000, 10**6):
        for k in (1, n // 3, n - 1):
            p = k / n
            assert 0.0 <= wilson_lower_bound(p, n) < p
    assert wilson_lower_bound(1.0, 40) == pytest.approx(40 / (40 + Z * Z))
    p, n = 0.99, 50  # the normal approximation is over-confident near 1; Wilson is more cautious there
    assert wilson_lower_bound(p, n) < p - Z * math.sqrt(p * (1 - p) / n)


def test_vacuous_completeness_bound_is_not_suggested():
    col = ColumnProfile("sparse", "string", "String", True, 20, 1, 0.05, 1, 0.03)
    profile = DatasetProfile(20, {"sparse": col}, 1, 120)
    assert wilson_lower_bound(0.05, 20) < 0.01  # ">= 0.00" would assert nothing
    assert not RetainCompletenessRule().applies(col, profile)


def wilson_by_hand(k: int, n: int, z: float = Z) -> float:
    """Wilson score interval, lower end (Wilson 1927), written out independently of lakeindex.suggestions."""
    p = k / n
    return (p + z * z / (2 * n) - z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))) / (1 + z * z / n)


def test_type_rule(suggestions):
    cols = by_column(suggestions)
    # frac: "0.5" .. "39.5", all 40 Fractional -> the plain type constraint, no share
    assert cols["frac"]["RetainTypeRule"].constraint == {"type": "has_data_type", "column": "frac",
                                                         "type_name": "Fractional"}
    assert cols["frac"]["RetainTypeRule"].current_value["type_counts"] == {"Fractional": 40}
    # flag: "true"/"FALSE" alternate, all 40 Boolean
    assert cols["flag"]["RetainTypeRule"].code == '.has_data_type("flag", "Boolean")'
    assert cols["flag"]["RetainTypeRule"].current_value["type_counts"] == {"Boolean": 40}
    # amount cycles "12", "3.5", "0", "7": 30 Integral and 10 Fractional strings. has_data_type counts exact
    # types, so the rule asserts the Fractional share 10/40 = 0.25 at its Wilson lower bound, by hand:
    #   centre = 0.25 + z^2/80 = 0.29802, margin = z * sqrt(0.25 * 0.75 / 40 + z^2 / 6400) = 0.14252,
    #   lower = (0.29802 - 0.14252) / (1 + z^2/40) = 0.14187 -> rounded down to two decimals: 0.14
    assert wilson_by_hand(10, 40) == pytest.approx(0.14187, abs=1e-5)
    mixed = cols["amount"]["RetainTypeRule"]
    assert mixed.constraint == {"type": "has_data_type", "column": "amount", "type_name": "Fractional",
                                "assertion": ">= 0.14"}
    assert mixed.code == '.has_data_type("amount", "Fractional", ">= 0.14")'
    assert mixed.current_value["type_counts"] == {"Fractional": 10, "Integral": 30}
    assert mixed.current_value["share"] == 0.25
    # typed columns (score, ctrl) and the string ids get no type rule
    assert not {"id", "score", "ctrl"} & {c for c, rules in cols.items() if "RetainTypeRule" in rules}


def test_categorical_ranges(suggestions):
    cols = by_column(suggestions)
    cat = cols["cat"]["CategoricalRangeRule"]
    assert cat.constraint == {"type": "is_contained_in", "column": "cat", "values": ["red", "green", "blue"]}
    assert cat.code == '.is_contained_in("cat", ["red", "green", "blue"])'
    # typed integer columns keep integer values; unicode strings are kept as they are
    assert cols["ctrl"]["CategoricalRangeRule"].constraint["values"] == [0, 1]
    assert cols["partial"]["CategoricalRangeRule"].constraint["values"] == ["é", "日本", "😀"]
    frac = cols["outl"]["FractionalCategoricalRangeRule"]
    # a, b, c cover 39 of 40 values; one rare outlier "zz" must not make the constraint fail
    assert frac.constraint["values"] == ["a", "b", "c"]
    bound = math.floor(wilson_lower_bound(39 / 40, 40) * 100) / 100
    assert bound == 0.87 and frac.constraint["assertion"] == ">= 0.87"
    assert frac.current_value["coverage"] == pytest.approx(0.975)


def test_unique_rule_counts_hll_candidates_exactly(spark, data):
    df = data[0]
    result = (ConstraintSuggestionRunner().on_data(df).restrict_to_columns(["id", "cat", "amount"])
              .with_low_cardinality_threshold(5).run())
    assert result.profile["id"].histogram is None  # 40 distinct > 5: the HLL estimate picks the candidate
    assert result.profile["id"].exact_distinct == 40  # and one more pass counts it
    unique = [s for s in result.suggestions if s.rule == "UniqueIfUniqueRule"]
    assert [s.column for s in unique] == ["id"] and "(exact count)" in unique[0].description
    doc = result.to_dict()
    assert doc["passes"] == 4 and json.loads(json.dumps(doc))["suggestions"][0]["column"] == "id"


def test_a_few_repeats_within_the_hll_error_are_not_unique(spark):
    # 1000 values, 990 distinct (10 repeated): within the sketch's ~3% error of 1000, so Deequ's rule fires;
    # the default rule counts 990 != 1000 exactly and does not suggest is_unique
    values = [f"k{i}" for i in range(990)] + [f"k{i}" for i in range(10)]
    df = spark.createDataFrame([(v,) for v in values], "k string")
    deequ = ConstraintSuggestionRunner().on_data(df).add_constraint_rule(UniqueIfApproximatelyUniqueRule()) \
        .with_low_cardinality_threshold(5).run()
    assert [s.constraint["type"] for s in deequ.suggestions] == ["is_unique"]
    default = ConstraintSuggestionRunner().on_data(df).with_low_cardinality_threshold(5).run()
    assert default.profile["k"].exact_distinct == 990
    assert "is_unique" not in [s.constraint["type"] for s in default.suggestions]
    result = (checks.VerificationSuite().on_data(df)
              .add_checks(checks.checks_from_dict(deequ.to_check_json())).run())
    assert result.status == "Error"  # Deequ's suggestion fails on the data it came from


def test_unique_rule_tolerates_the_hll_error_only():
    rule = UniqueIfApproximatelyUniqueRule()

    def col(approx: int, non_null: int) -> ColumnProfile:
        return ColumnProfile("k", "string", "String", True, 1000, non_null, non_null / 1000, approx, 0.0318)

    profile = DatasetProfile(1000, {}, 1, 120)
    assert rule.applies(col(985, 1000), profile) and rule.applies(col(1020, 1000), profile)
    assert not rule.applies(col(960, 1000), profile) and not rule.applies(col(0, 0), profile)
    assert rule.applies(col(880, 900), profile)  # nulls do not count against uniqueness


def test_positive_rule_is_opt_in(data):
    extended = by_column(suggest_constraints(data[1], EXTENDED_RULES))
    assert {c for c, rules in extended.items() if "PositiveNumbersRule" in rules} == {"frac"}
    assert len(DEFAULT_RULES) == 7 and len(EXTENDED_RULES) == 8
    assert not any(isinstance(r, UniqueIfApproximatelyUniqueRule) for r in EXTENDED_RULES)


# Every constraint the default rules should suggest for the fixture (tests/test_profiling.py), worked out by
# hand from its rows: which rules fire is the table of test_each_rule_fires_on_its_columns_only, the bounds
# are Wilson lower bounds rounded down (36/40 present -> 0.76, 39/40 covered -> 0.87, 10/40 Fractional -> 0.14).
EXPECTED_CONSTRAINTS = [
    {"type": "is_complete", "column": "id"},
    {"type": "is_unique", "column": "id"},
    {"type": "is_complete", "column": "amount"},
    {"type": "is_non_negative", "column": "amount"},
    {"type": "has_data_type", "column": "amount", "type_name": "Fractional", "assertion": ">= 0.14"},
    {"type": "is_complete", "column": "frac"},
    {"type": "is_non_negative", "column": "frac"},
    {"type": "has_data_type", "column": "frac", "type_name": "Fractional"},
    {"type": "is_unique", "column": "frac"},
    {"type": "is_complete", "column": "score"},
    {"type": "is_unique", "column": "score"},
    {"type": "is_complete", "column": "ctrl"},
    {"type": "is_non_negative", "column": "ctrl"},
    {"type": "is_contained_in", "column": "ctrl", "values": [0, 1]},
    {"type": "is_complete", "column": "flag"},
    {"type": "has_data_type", "column": "flag", "type_name": "Boolean"},
    {"type": "is_complete", "column": "cat"},
    {"type": "is_contained_in", "column": "cat", "values": ["red", "green", "blue"]},
    {"type": "is_complete", "column": "outl"},
    {"type": "is_contained_in", "column": "outl", "values": ["a", "b", "c"], "assertion": ">= 0.87"},
    {"type": "has_completeness", "column": "partial", "assertion": ">= 0.76"},
    {"type": "is_contained_in", "column": "partial", "values": ["é", "日本", "😀"]},
]


def test_check_json_document(suggestions):
    doc = suggestions_to_check_json(suggestions, level="warning", description="orders")
    assert list(doc) == ["checks"] and len(doc["checks"]) == 1
    check = doc["checks"][0]
    assert set(check) == {"level", "description", "constraints"}
    assert check["level"] == "warning" and check["description"] == "orders"
    # the document holds exactly the hand-derived constraints (in any order), each once
    canonical = sorted(json.dumps(c, sort_keys=True, ensure_ascii=False) for c in check["constraints"])
    assert canonical == sorted(json.dumps(c, sort_keys=True, ensure_ascii=False) for c in EXPECTED_CONSTRAINTS)
    # plain JSON: it survives a strict round trip unchanged, unicode values included
    assert json.loads(json.dumps(doc, allow_nan=False, ensure_ascii=False)) == doc
    # and the checks-file reader accepts it as one warning check with one constraint per suggestion
    parsed = checks.checks_from_dict(json.loads(json.dumps(doc)))
    assert len(parsed) == 1 and parsed[0].level == "warning" and parsed[0].description == "orders"
    assert len(parsed[0].constraints) == len(EXPECTED_CONSTRAINTS)
    # the defaults of the function: level "error", the module's review-before-use description
    default = suggestions_to_check_json(suggestions)["checks"][0]
    assert default["level"] == "error" and "review before use" in default["description"]


def test_suggestions_hold_on_the_data_they_were_learned_from(data, suggestions):
    df, _ = data
    result = (checks.VerificationSuite().on_data(df)
              .add_checks(checks.checks_from_dict(suggestions_to_check_json(suggestions))).run())
    failed = [r.to_dict() for c in result.check_results for r in c.constraint_results if r.status != "Success"]
    assert result.status == "Success", failed
    # the Python code of every suggestion is a valid call of the Check builder, equal to the JSON form
    by_code, by_apply = checks.Check("error", "code"), checks.Check("error", "apply")
    for s in suggestions:
        by_code = eval("by_code" + s.code, {"by_code": by_code})  # noqa: S307 - our own generated code
        by_apply = s.apply(by_apply)
    assert [c.description for c in by_code.constraints] == [c.description for c in by_apply.constraints]
    assert len(by_code.constraints) == len(suggestions)


LAKE = Path(__file__).resolve().parents[1] / "sample_lake" / "tables"
BUNDLED_TABLES = sorted(p.name for p in LAKE.iterdir() if not p.name.startswith((".", "_")))


def typed_unless_same(spark, path: str, text: DataFrame) -> list[pa.Table]:
    """The rows as check reads them by default (typed), unless that read is the text one (Parquet, JSON lines)."""
    from lakeindex.lake.dataset import read_dataset

    typed = read_dataset(spark, path, infer_schema=True)
    return [typed.toArrow()] if typed.schema != text.schema else []


def test_the_bundled_lake_is_all_there():
    assert len(BUNDLED_TABLES) == 120


@pytest.mark.parametrize("name", BUNDLED_TABLES)
def test_suggestions_hold_on_every_bundled_table(spark, name):
    """Every suggestion holds on the table it came from, as suggest reads it (text) and as check does (typed),
    judged by an oracle independent of lakeindex.checks (tests/constraint_oracle.py)."""
    from lakeindex.lake.dataset import read_dataset

    path = str(LAKE / name)
    text = read_dataset(spark, path, infer_schema=False)
    result = ConstraintSuggestionRunner().on_data(text).run()
    assert result.suggestions
    constraints = [s.constraint for s in result.suggestions]
    for table in [text.toArrow(), *typed_unless_same(spark, path, text)]:
        assert constraint_oracle.failing(constraints, table) == [], (name, table.schema)


def test_the_oracle_finds_deequs_approximate_uniqueness_failing_on_auth_events(spark):
    """The issue's case: with Deequ's HLL-based uniqueness rule, is_unique is suggested for columns with a few
    repeats of auth_events_001.csv and fails there; the oracle must see it (its counts come from Counter)."""
    from lakeindex.lake.dataset import read_dataset

    path = str(LAKE / "auth_events_001.csv")
    rules = [r for r in DEFAULT_RULES if not isinstance(r, UniqueIfUniqueRule)] + [UniqueIfApproximatelyUniqueRule()]
    df = read_dataset(spark, path, infer_schema=False)
    result = ConstraintSuggestionRunner().add_constraint_rules(rules).on_data(df).run()
    text = df.toArrow()
    failed = constraint_oracle.failing([s.constraint for s in result.suggestions], text)
    assert failed and {c["type"] for c, _ in failed} == {"is_unique"}
    for c, value in failed:  # a repeated value: fewer distinct values than non-null rows
        values = [v for v in text.column(c["column"]).to_pylist() if v is not None]
        assert len(set(values)) < len(values) and value < 1.0
