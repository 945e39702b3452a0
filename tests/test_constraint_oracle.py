"""The suggestion oracle (tests/constraint_oracle.py) on hand-counted tables: it must be able to fail."""

from __future__ import annotations

import datetime as dt

import pyarrow as pa
import pytest

from tests.constraint_oracle import failing, metric, satisfied, text_type


@pytest.mark.parametrize(("text", "kind"), [
    ("7", "Integral"), ("-12", "Integral"), (" +3 ", "Integral"), ("3.5", "Fractional"), ("3.", "Fractional"),
    (".5", "Fractional"), ("1e5", "Fractional"), ("-2.5E-3", "Fractional"), ("NaN", "Fractional"),
    ("-Infinity", "Fractional"), ("True", "Boolean"), ("false", "Boolean"), (".", "String"), ("1e", "String"),
    ("1,000", "String"), ("1.2.3", "String"), ("inf", "String"), ("٣", "String"), ("2024-01-01", "String"),
    ("14:41", "String"), ("", "String")])
def test_text_types_follow_deequs_classes(text, kind):
    assert text_type(text) == kind


def test_assertions():
    assert satisfied(1.0, None) and not satisfied(0.99, None)
    assert satisfied(0.93, ">= 0.93") and not satisfied(0.929, ">= 0.93") and satisfied(0.5, "< 0.6")
    with pytest.raises(ValueError):
        satisfied(1.0, "between 0 and 1")


TABLE = pa.table({
    "id": pa.array(["a", "b", "c", None, "b"]),  # 4 non-null, "b" twice: 2 of 4 occur once
    "n": pa.array(["1", "2.5", "x", None, "-1"]),  # 1 and -1 Integral, 2.5 Fractional, x String
    "k": pa.array([1, 2, 2, None, 3], pa.int64()),
    "t": pa.array([dt.datetime(2024, 1, 1, 10, 0, tzinfo=dt.UTC)] * 4 + [None], pa.timestamp("us", tz="UTC")),
})


def test_metrics_counted_by_hand():
    assert metric({"type": "is_complete", "column": "id"}, TABLE) == 4 / 5
    assert metric({"type": "is_unique", "column": "id"}, TABLE) == 2 / 4
    assert metric({"type": "is_unique", "column": "k"}, TABLE) == 2 / 4
    assert metric({"type": "has_data_type", "column": "n", "type_name": "Integral"}, TABLE) == 2 / 4  # 1, -1
    assert metric({"type": "has_data_type", "column": "n", "type_name": "Fractional"}, TABLE) == 1 / 4
    assert metric({"type": "has_data_type", "column": "k", "type_name": "Integral"}, TABLE) == 1.0
    assert metric({"type": "is_non_negative", "column": "n"}, TABLE) == 3 / 5  # null, 1, 2.5 pass; x, -1 fail
    assert metric({"type": "is_contained_in", "column": "id", "values": ["a", "b"]}, TABLE) == 3 / 4
    assert metric({"type": "is_contained_in", "column": "k", "values": [1, 3]}, TABLE) == 2 / 4
    assert metric({"type": "is_contained_in", "column": "k", "values": ["2"]}, TABLE) == 2 / 4  # typed, as text
    assert metric({"type": "is_contained_in", "column": "t", "values": ["2024-01-01T10:00:00Z"]}, TABLE) == 1.0
    assert metric({"type": "is_contained_in", "column": "t", "values": ["2024-01-01 10:00:00"]}, TABLE) == 1.0
    assert metric({"type": "is_contained_in", "column": "t", "values": ["10:00"]}, TABLE) == 0.0  # today, not 2024


def test_failing_names_the_constraints_that_do_not_hold():
    constraints = [{"type": "is_complete", "column": "k"}, {"type": "has_completeness", "column": "k",
                                                             "assertion": ">= 0.8"},
                   {"type": "is_contained_in", "column": "id", "values": ["a", "b"], "assertion": ">= 0.7"}]
    assert failing(constraints, TABLE) == [({"type": "is_complete", "column": "k"}, 0.8)]
    with pytest.raises(NotImplementedError):
        metric({"type": "has_pattern", "column": "id", "pattern": "^a$"}, TABLE)
