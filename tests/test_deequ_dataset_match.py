"""Deequ parity: DatasetMatch (doesDatasetMatch, reference-data comparison) and DuplicateRowCount over all columns.

Expected values are hand computations in the comments, Deequ's own test expectations (cited by file and test
name: ``comparison/DataSynchronizationTest.scala``, ``VerificationSuiteTest.scala``, ``checks/CheckTest.scala``,
``analyzers/DuplicateRowCountTest.scala``) or brute-force counting in plain Python, never the code under test.
"""

from __future__ import annotations

import json
import random
from collections import Counter

import pytest

from lakeindex.checks import Check, ChecksFileError, VerificationSuite, checks_from_dict
from lakeindex.metrics import (
    DatasetMatch,
    DuplicateRowCount,
    FileSystemStateStore,
    Uniqueness,
    run_analysis,
    run_on_aggregated_states,
)
from tests.conftest import write_csv
from tests.test_metrics import error, value

PEOPLE = "id int, name string, state string"
# DataSynchronizationTest's two datasets: ids 1-4 agree on every column, 5 differs in name, 6/7 exist on one side
DS1 = [(1, "John", "NY"), (2, "Javier", "WI"), (3, "Helena", "TX"), (4, "Helena", "TX"), (5, "Nick", "FL"),
       (6, "Molly", "TX")]
DS2 = [(1, "John", "NY"), (2, "Javier", "WI"), (3, "Helena", "TX"), (4, "Helena", "TX"), (5, "Helena", "FL"),
       (7, "Megan", "TX")]
# its row-level reference, with renamed columns and id 4 in another state
RENAMED = [(1, "John", "NY"), (2, "Javier", "WI"), (3, "Helena", "TX"), (4, "Helena", "WA"), (5, "Helena", "FL"),
           (7, "Megan", "TX")]


def frame(spark, rows, schema=PEOPLE):
    return spark.createDataFrame(rows, schema)


def ok_checks(result) -> dict[str, str]:
    return {r.constraint: r.status for c in result.check_results for r in c.constraint_results}


# --- DatasetMatch: values ------------------------------------------------------------------------------------


def test_deequ_data_synchronization_ratios(spark):
    """DataSynchronizationTest, "Data Synchronization Test": the ratios its assertions bound, computed by hand."""
    ds1, ds2 = frame(spark, DS1), frame(spark, DS2)
    cases = {
        # "match == 0.66 when id is colKey and name is compCols": names agree for ids 1-4 of 6 rows
        DatasetMatch(ds2, {"id": "id"}, {"name": "name"}): 4 / 6,
        # "match == 0.83 when id is colKey and state is compCols": states agree for ids 1-5
        DatasetMatch(ds2, {"id": "id"}, {"state": "state"}): 5 / 6,
        # "match >= 0.66 when id is unique col, rest compCols": both columns agree for ids 1-4
        DatasetMatch(ds2, {"id": "id"}, {"name": "name", "state": "state"}): 4 / 6,
        # "check all columns and return an assertion of .66": no compared columns given = every non-key column
        DatasetMatch(ds2, {"id": "id"}): 4 / 6,
    }
    ctx = run_analysis(ds1, list(cases))
    for analyzer, expected in cases.items():
        assert value(ctx, analyzer) == pytest.approx(expected), analyzer.spec()
    m = ctx.metric(DatasetMatch(ds2, {"id": "id"}))
    assert (m.name, m.entity, m.extra) == ("DataSynchronization", "Dataset", {"rows": 6, "reference_rows": 6,
                                                                             "matched": 4})
    # "match >= 0.66 (same test as above only the data sets change)": the data is DS2, the reference DS1
    swapped = DatasetMatch(ds1, {"id": "id"}, {"name": "name", "state": "state"})
    assert value(run_analysis(ds2, [swapped]), swapped) == pytest.approx(4 / 6)


def test_deequ_no_row_matches(spark):
    """DataSynchronizationTest "cols exist but 0 matches": disjoint ids, 0 of 6 rows match (and ``_ >= 0`` holds)."""
    other = frame(spark, [(7, "Rahul", "CA"), (8, "Tom", "MX"), (9, "Tome", "NM"), (10, "Kyra", "AZ"),
                          (11, "Jamie", "NB"), (12, "Andrius", "ID")])
    a = DatasetMatch(other, {"id": "id"})
    assert value(run_analysis(frame(spark, DS1), [a]), a) == 0.0


def test_renamed_key_and_match_columns(spark):
    """DataSynchronizationTest "Data Synchronization Row Level Test": the rows it marks true, over 6 rows."""
    ref = frame(spark, RENAMED, "id2 int, name2 string, state2 string")
    by_name = DatasetMatch(ref, {"id": "id2"}, {"name": "name2"})  # ids 1-4 true: 4/6
    by_both = DatasetMatch(ref, {"id": "id2"}, {"name": "name2", "state": "state2"})  # ids 1-3 true: 3/6
    # "... with additional id columns": name joins the key too, still ids 1-3
    wide_key = DatasetMatch(ref, {"id": "id2", "name": "name2"}, {"name": "name2", "state": "state2"})
    # "fails ... when column key map is not provided and non key columns do not match": name/state are not in ref
    unnamed = DatasetMatch(ref, {"id": "id2"})
    ctx = run_analysis(frame(spark, DS1), [by_name, by_both, wide_key, unnamed])
    assert value(ctx, by_name) == pytest.approx(4 / 6)
    assert value(ctx, by_both) == pytest.approx(3 / 6)
    assert value(ctx, wide_key) == pytest.approx(3 / 6)
    msg = error(ctx, unnamed)
    assert "'name'" in msg and "'state'" in msg and "match_column_mappings" in msg


def test_names_resolve_case_insensitively_as_spark_does(spark):
    """DataSynchronizationTest "works when key/non-key column names have different casings": 4 of 6 rows."""
    ref = frame(spark, [(1, "John", "NY"), (2, "Javier", "WI"), (3, "Helena", "TX"), (4, "Helena", "TX"),
                        (5, "Nicholas", "FL"), (6, "Ms Molly", "TX")], "ID int, Name string, State string")
    a = DatasetMatch(ref, {"id": "id"})
    assert value(run_analysis(frame(spark, DS1), [a]), a) == pytest.approx(4 / 6)


def test_duplicate_keys_fail_with_the_counts(spark):
    """DataSynchronizationTest "return false because the id col in ds1 isn't unique": 6 keys in 7 rows; and
    "return false because col name isn't unique" (Helena twice in the data, three times in the reference)."""
    ds3 = frame(spark, [(1, "John", "NY"), (1, "Javier", "WI"), (3, "Helena", "TX"), (4, "Helena", "TX"),
                        (5, "Helena", "FL"), (9, "Nicholas", "CT"), (7, "Megan", "TX")])
    by_id = DatasetMatch(frame(spark, DS2), {"id": "id"}, {"name": "name", "state": "state"})
    msg = error(run_analysis(ds3, [by_id]), by_id)
    assert "6 distinct keys in 7 rows" in msg and "6 in 6 rows" in msg
    by_name = DatasetMatch(frame(spark, DS2), {"name": "name"}, {"state": "state"})
    # data: 5 distinct names in 6 rows; reference: John, Javier, Helena, Megan = 4 in 6
    msg = error(run_analysis(frame(spark, DS1), [by_name]), by_name)
    assert "5 distinct keys in 6 rows" in msg and "4 in 6 rows" in msg


def test_nulls_in_keys_and_compared_columns(spark):
    schema = "id int, v string"
    data = frame(spark, [(1, "a"), (2, None), (3, None), (None, "d"), (5, "e")], schema)
    ref = frame(spark, [(1, "a"), (2, None), (3, "c"), (None, "d"), (5, "x")], schema)
    a = DatasetMatch(ref, {"id": "id"})
    # 1: equal; 2: null = null counts as equal (deliberate; Deequ's === would not); 3: null vs 'c' differs;
    # the null key pairs with nothing (as Deequ's join); 5: 'e' vs 'x' differs -> 2 of 5
    assert value(run_analysis(data, [a]), a) == pytest.approx(2 / 5)
    # two null keys are one key value twice (Deequ's uniqueness test groups them): not unique
    twice = frame(spark, [(1, "a"), (None, "b"), (None, "c")], schema)
    b = DatasetMatch(frame(spark, [(1, "a"), (2, "b"), (3, "c")], schema), {"id": "id"})
    assert "2 distinct keys in 3 rows" in error(run_analysis(twice, [b]), b)


def test_missing_columns_name_the_column_and_the_side(spark):
    """DataSynchronizationTest "fails as expected when key columns / non-key columns do not exist"."""
    ds1, ds2 = frame(spark, DS1), frame(spark, DS2)
    cases = {
        DatasetMatch(ds2, {"foo": "bar"}): ("'foo'", "in the data"),
        DatasetMatch(ds2, {"foo": "id"}): ("'foo'", "in the data"),
        DatasetMatch(ds2, {"id": "bar"}): ("'bar'", "in the reference"),
        DatasetMatch(ds2, {"id": "id"}, {"foo": "bar"}): ("'foo'", "in the data"),
        DatasetMatch(ds2, {"id": "id"}, {"state": "bar"}): ("'bar'", "in the reference"),
    }
    ctx = run_analysis(ds1, list(cases))
    for analyzer, words in cases.items():
        msg = error(ctx, analyzer)
        assert all(w in msg for w in words), (analyzer.spec(), msg)


def test_empty_reference_and_empty_data(spark):
    """VerificationSuiteTest "Should work Data Synchronization checks": an empty reference is NaN there (the row
    counts differ), a failed metric with the reason here."""
    ds1 = frame(spark, DS1)
    empty = frame(spark, [])
    a = DatasetMatch(empty, {"id": "id"})
    msg = error(run_analysis(ds1, [a]), a)
    assert "6 rows" in msg and "'reference' 0" in msg
    b = DatasetMatch(frame(spark, []), {"id": "id"})
    assert "no rows" in error(run_analysis(empty, [b]), b)


def test_brute_force_oracle_on_random_data(spark):
    """Random data and references against plain Python: pair rows by key, compare with None == None."""
    rng = random.Random(7)
    schema = "k1 int, k2 string, a int, b string"
    for _ in range(4):
        n = rng.randint(3, 12)
        keys = rng.sample([(i, s) for i in range(6) for s in "xy"], n)
        data = [(k1, k2, rng.choice([1, 2, None]), rng.choice(["p", "q", None])) for k1, k2 in keys]
        ref_keys = rng.sample(keys, n - 2) + [(k1 + 100, k2) for k1, k2 in rng.sample(keys, 2)]
        if rng.random() < 0.5:  # a null key on each side: never a match
            data[0] = (None, *data[0][1:])
            ref_keys[0] = (None, ref_keys[0][1])
        ref = [(k1, k2, rng.choice([1, 2, None]), rng.choice(["p", "q", None])) for k1, k2 in ref_keys]
        by_key = {(r[0], r[1]): r for r in ref if r[0] is not None}
        matched = sum(1 for r in data if r[0] is not None and (r[0], r[1]) in by_key
                      and by_key[(r[0], r[1])][2:] == r[2:])
        swapped = [(r[1], r[0], r[3], r[2]) for r in ref]  # the reference's columns renamed and reordered
        analyzer = DatasetMatch(frame(spark, swapped, "rk2 string, rk1 int, rb string, ra int"),
                                {"k1": "rk1", "k2": "rk2"}, {"a": "ra", "b": "rb"})
        assert value(run_analysis(frame(spark, data, schema), [analyzer]), analyzer) == pytest.approx(matched / n)


# --- DatasetMatch: parameters, spec, identity ----------------------------------------------------------------


def test_bad_parameters_fail_at_construction(spark):
    ref = frame(spark, DS2)
    with pytest.raises(ValueError, match="key_column_mappings is empty"):
        DatasetMatch(ref, {})
    with pytest.raises(ValueError, match="match_column_mappings is empty.*None"):
        DatasetMatch(ref, {"id": "id"}, {})
    with pytest.raises(ValueError, match="DataFrame or a dataset path"):
        DatasetMatch([(1, "a")], {"id": "id"})
    with pytest.raises(ValueError, match="non-empty strings"):
        DatasetMatch(ref, {"id": 3})
    with pytest.raises(ValueError, match="reference name"):
        DatasetMatch(ref, {"id": "id"}, reference=" ")
    with pytest.raises(ValueError, match="key_column_mappings is empty"):
        Check().does_dataset_match(ref, {}, ">= 0.9")


def test_spec_is_stable_text_without_the_dataframe(spark):
    ref, other = frame(spark, DS2), frame(spark, DS2)
    a = DatasetMatch(ref, {"id": "id", "name": "name"}, {"state": "state"}, reference="people_ref")
    b = DatasetMatch(other, {"name": "name", "id": "id"}, {"state": "state"}, reference="people_ref")
    expected = ("DatasetMatch(reference='people_ref', key_column_mappings={'id': 'id', 'name': 'name'}, "
                "match_column_mappings={'state': 'state'})")
    assert a.spec() == b.spec() == expected  # mapping order is no part of it, nor the DataFrame
    assert a != b  # two DataFrames are two references: both are computed in one run
    assert a == DatasetMatch(ref, {"name": "name", "id": "id"}, {"state": "state"}, reference="people_ref")
    assert DatasetMatch(ref, {"id": "id"}).spec().startswith("DatasetMatch(reference='reference',")
    assert DatasetMatch("ref/people.csv", {"id": "id"}).reference == "ref/people.csv"
    assert DatasetMatch(ref, {"id": "id"}).instance() == "reference"


# --- DatasetMatch in checks ----------------------------------------------------------------------------------

DATE_SCHEMA = "id int, product string, product_id string, units int"
# Deequ's FixtureSupport.getDateDf with the columns VerificationSuiteTest selects
DATE_ROWS = [(100, "Furniture", "Product 1", 25), (101, "Cosmetics", "Product 2", 20),
             (102, "Furniture", "Product 3", 30), (103, "Electronics", "Product 4", 10),
             (104, "Electronics", "Product 5", 50)]


def test_verification_suite_deequ_data_synchronization_checks(spark):
    """VerificationSuiteTest "Should work Data Synchronization checks for single column" and "... for multiple
    column": id 100 renamed 99 in the reference leaves 4 of 5 rows matching (0.8)."""
    df = frame(spark, DATE_ROWS, DATE_SCHEMA)
    modified = frame(spark, [(99 if r[0] == 100 else r[0], *r[1:]) for r in DATE_ROWS], DATE_SCHEMA)
    renamed = df.withColumnRenamed("id", "id_renamed")
    empty = frame(spark, [], DATE_SCHEMA)
    two = {"id": "id", "product": "product"}
    check = (Check("error", "data synchronization")
             .does_dataset_match(modified, {"id": "id"}, lambda v: v > 0.7, reference_name="modified")
             .does_dataset_match(modified, {"id": "id"}, lambda v: v > 0.9, reference_name="modified")
             .does_dataset_match(empty, {"id": "id"}, lambda v: v < 0.5, reference_name="empty")
             .does_dataset_match(modified, {"id": "id2"}, lambda v: v < 0.5, reference_name="modified")
             .does_dataset_match(renamed, {"id": "id_renamed"}, "== 1", reference_name="renamed")
             .does_dataset_match(df, {"id": "id"}, "== 1", reference_name="itself")
             .does_dataset_match(modified, two, "> 0.7", reference_name="modified")
             .does_dataset_match(df, two, "> 0.7", {"product": "product"}, reference_name="itself")
             .does_dataset_match(df.selectExpr("*", "1 AS newColumn"), two, "> 0.7", {"product": "product"},
                                 reference_name="wider"))
    result = VerificationSuite().on_data(df).add_check(check).run()
    rs = result.check_results[0].constraint_results
    got = [(r.status, r.metric.value if r.metric is not None else None) for r in rs]
    assert got == [("Success", 0.8), ("Failure", 0.8), ("Failure", None), ("Failure", None), ("Success", 1.0),
                   ("Success", 1.0), ("Success", 0.8), ("Success", 1.0), ("Success", 1.0)]
    assert result.status == "Error"
    names = [r.constraint for r in rs]
    assert names[6] == "does_dataset_match(modified, keys={'id': 'id', 'product': 'product'}) > 0.7"
    assert len(set(names)) == len(names) - 1  # the two callables on 'modified' by id share a name; the rest differ


def test_check_has_data_in_sync_expectations(spark):
    """CheckTest "Check hasDataInSync": att1 3 -> 4 leaves 2 of 3 rows matching, > 0.9 fails and > 0.6 passes,
    by one key column or two; a filtered (smaller) or renamed reference fails."""
    df = frame(spark, [(1, 4), (2, 5), (3, 6)], "att1 int, att2 int")
    modified = frame(spark, [(1, 4), (2, 5), (4, 6)], "att1 int, att2 int")
    one, two = {"att1": "att1"}, {"att1": "att1", "att2": "att2"}
    check = (Check("error", "in sync")
             .does_dataset_match(df, one, "> 0.9", reference_name="itself")
             .does_dataset_match(df, one, "> 0.9", one, reference_name="itself")
             .does_dataset_match(df, two, "> 0.9", one, reference_name="itself")
             .does_dataset_match(modified, one, "> 0.9", reference_name="modified")
             .does_dataset_match(modified, one, "> 0.6", reference_name="modified")
             .does_dataset_match(modified, two, "> 0.6", reference_name="modified")
             .does_dataset_match(df.where("att1 > 2"), one, "> 0.9", reference_name="filtered")
             .does_dataset_match(df.withColumnRenamed("att1", "att1_renamed"), two, "> 0.9", reference_name="renamed"))
    result = VerificationSuite().on_data(df).add_check(check).run()
    statuses = [r.status for r in result.check_results[0].constraint_results]
    assert statuses == ["Success", "Success", "Success", "Failure", "Success", "Success", "Failure", "Failure"]
    values = [r.metric.value for r in result.check_results[0].constraint_results]
    assert values[3:6] == [pytest.approx(2 / 3)] * 3


def test_stored_states_cannot_hold_a_dataset_match(spark, tmp_path):
    a = DatasetMatch(frame(spark, DS2), {"id": "id"})
    ctx = run_analysis(frame(spark, DS1), [a], previous=FileSystemStateStore(str(tmp_path / "st")))
    assert "not mergeable" in error(ctx, a)


def test_checks_file_reads_the_reference_path(spark, tmp_path):
    ref = write_csv(tmp_path / "ref" / "people.csv", ["id2", "name2", "state2"],
                    [[str(v) for v in r] for r in RENAMED])
    doc = {"checks": [{"description": "ref", "constraints": [
        {"type": "does_dataset_match", "reference": str(ref), "key_column_mappings": {"id": "id2"},
         "match_column_mappings": {"name": "name2"}, "assertion": ">= 0.66"},
        {"type": "does_dataset_match", "reference": str(ref), "key_column_mappings": {"id": "id2"},
         "match_column_mappings": {"name": "name2", "state": "state2"}, "assertion": ">= 0.66",
         "reference_name": "people"}]}]}
    checks = checks_from_dict(json.loads(json.dumps(doc)))
    result = VerificationSuite().on_data(frame(spark, DS1)).add_checks(checks).run()
    rs = result.check_results[0].constraint_results
    # 4/6 and 3/6, as in test_renamed_key_and_match_columns, now with the reference read from CSV
    assert [(r.status, round(r.metric.value, 4)) for r in rs] == [("Success", 0.6667), ("Failure", 0.5)]
    assert rs[0].metric.analyzer.startswith(f"DatasetMatch(reference={str(ref)!r},")
    assert rs[1].metric.instance == "people"


@pytest.mark.parametrize(("constraint", "words"), [
    ({"reference": "no/such/ref.csv", "key_column_mappings": {"id": "id"}}, "no such file"),
    ({"key_column_mappings": {"id": "id"}}, "needs 'reference'"),
    ({"other": "x.csv", "reference": "x.csv", "key_column_mappings": {"id": "id"}}, "'other'"),
])
def test_checks_file_refuses_a_bad_reference(constraint, words):
    doc = {"checks": [{"constraints": [{"type": "does_dataset_match", **constraint}]}]}
    with pytest.raises(ChecksFileError, match=words):
        checks_from_dict(doc)


def test_unreadable_reference_path_fails_the_metric(spark, tmp_path):
    (tmp_path / "notes.txt").write_text("x", encoding="utf-8")
    a = DatasetMatch(str(tmp_path / "notes.txt"), {"id": "id"})
    assert "cannot read the reference" in error(run_analysis(frame(spark, DS1), [a]), a)


# --- DuplicateRowCount over all columns ---------------------------------------------------------------------


def test_deequ_duplicate_row_count_all_columns(spark):
    """DuplicateRowCountTest "use all columns when columns list is empty": ("a", 1) twice -> 2.0."""
    df = frame(spark, [("a", 1), ("b", 2), ("a", 1), ("c", 3)], "col1 string, col2 int")
    ctx = run_analysis(df, [DuplicateRowCount(())])
    assert value(ctx, DuplicateRowCount()) == 2.0  # () is the default
    m = ctx.metric(DuplicateRowCount())
    assert (m.analyzer, m.entity, m.instance) == ("DuplicateRowCount(columns=(), where=None)", "Dataset", "*")
    assert DuplicateRowCount(("col1", "col2")).spec() == "DuplicateRowCount(columns=('col1', 'col2'), where=None)"
    assert DuplicateRowCount("col1").spec() == "DuplicateRowCount(columns=('col1',), where=None)"


def test_duplicate_row_count_all_columns_brute_force(spark):
    """Random rows with nulls: Σ of the counts above 1 over whole rows, rows entirely null left out (Deequ's
    "exclude rows where all grouping columns are NULL"), with and without a where-filter."""
    rng = random.Random(11)
    rows = [(rng.choice([1, 2, None]), rng.choice(["x", "y", None]), rng.choice([0.5, None])) for _ in range(60)]
    df = frame(spark, rows, "a int, b string, c double")

    def oracle(selected):
        counts = Counter(r for r in selected if any(v is not None for v in r))
        return float(sum(n for n in counts.values() if n > 1))

    everything, filtered = DuplicateRowCount(), DuplicateRowCount((), where="a = 1")
    uniq = Uniqueness(("a", "b", "c"))  # shares the all-columns frequency table
    ctx = run_analysis(df, [everything, filtered, uniq])
    assert value(ctx, everything) == oracle(rows)
    assert value(ctx, filtered) == oracle([r for r in rows if r[0] == 1])
    counts = Counter(r for r in rows if any(v is not None for v in r))
    assert value(ctx, uniq) == pytest.approx(sum(1 for n in counts.values() if n == 1) / sum(counts.values()))


def test_has_duplicate_row_count_over_all_columns(spark):
    """DuplicateRowCountTest "work with empty columns through VerificationSuite": hasDuplicateRowCount(Seq.empty,
    _ == 2) passes; a failing one shows the duplicated rows, from JSON too (``"column": []``)."""
    df = frame(spark, [("a", 1), ("b", 2), ("a", 1), ("c", 3)], "col1 string, col2 int")
    check = Check("error", "dups").has_duplicate_row_count((), "== 2").has_duplicate_row_count([], "== 0")
    [json_check] = checks_from_dict({"checks": [{"constraints": [
        {"type": "has_duplicate_row_count", "column": [], "assertion": "== 2"}]}]})
    result = VerificationSuite().on_data(df).add_check(check).add_check(json_check).run()
    rs = result.check_results[0].constraint_results
    assert [(r.constraint, r.status) for r in rs] == [("has_duplicate_row_count(*) == 2", "Success"),
                                                      ("has_duplicate_row_count(*) == 0", "Failure")]
    assert rs[1].samples == [{"col1": "a", "col2": 1, "count": 2}]
    assert result.check_results[1].status == "Success"


def test_duplicate_row_count_all_columns_merges_stored_states(spark, tmp_path):
    """DuplicateRowCountTest "correctly merge state across partitions": ("a", 1) once in each part -> 2.0."""
    schema = "col1 string, col2 int"
    store = FileSystemStateStore(str(tmp_path / "states"))
    run_analysis(frame(spark, [("a", 1), ("b", 2)], schema), [DuplicateRowCount()], save_to=store)
    ctx = run_analysis(frame(spark, [("a", 1), ("c", 3)], schema), [DuplicateRowCount()], previous=store)
    assert value(ctx, DuplicateRowCount()) == 2.0
    # from stored states alone the columns are unknown: a clear failure, not a wrong value
    alone = run_on_aggregated_states(spark, [DuplicateRowCount()], [store])
    assert "name the columns" in error(alone, DuplicateRowCount())
