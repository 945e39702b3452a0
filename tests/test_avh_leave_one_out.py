"""``new_value_ratio``'s history measured leave-one-out (``lakeindex.avh.leave_one_out``).

Expected values are counted by hand from the tiny batches written out in each test.
"""

from __future__ import annotations

from dataclasses import replace

import pandas as pd
import pytest

from lakeindex.avh.leave_one_out import column_history
from lakeindex.history.batches import LIGHT_METRICS, NEW_VALUES_KEPT, BatchRecord, profile


def _records(weeks: list[list[str]]):
    records = []
    for t, values in enumerate(weeks):
        records.append(profile(pd.DataFrame({"label": values}), f"w{t}", records[-1] if records else None,
                               issues=False))
    return records


def test_the_start_up_transient_is_measured_against_the_other_batches():
    # w1 brings z against a one-week vocabulary {x, y}: stored 1/2. But w2 has z too, so against the other
    # batches nothing in w1 is new: 0. w2 (z, y) and w3 (x, y) share every value with another week: 0.
    records = _records([["x", "y"], ["x", "z"], ["z", "y"], ["x", "y"]])
    assert [r.features["label"].get("new_value_ratio") for r in records] == [None, 0.5, 0.0, 0.0]
    history = column_history(records, "label")
    assert [h.get("new_value_ratio") for h in history] == [None, 0.0, 0.0, 0.0]
    # the other metrics are the stored ones
    assert [{k: v for k, v in h.items() if k != "new_value_ratio"} for h in history] == \
        [{k: v for k, v in r.features["label"].items() if k != "new_value_ratio"} for r in records]


def test_a_value_only_one_batch_ever_had_stays_new():
    # q appears in w3 only (1 of 2 values); w1's z appears in w1 only (1 of 2): both stay new
    records = _records([["x", "y"], ["x", "z"], ["x", "y"], ["x", "q"]])
    assert [h.get("new_value_ratio") for h in column_history(records, "label")] == [None, 0.5, 0.0, 0.5]


def test_light_records_read_back_give_the_same_history():
    # what validate-batch learns from: the older batches read back with the light metrics only, the newest
    # in full (its vocabulary: the history's value counts)
    records = _records([["x", "y"], ["x", "z"], ["z", "y"], ["x", "y"]])

    def read_back(r: BatchRecord, names: list[str] | None) -> BatchRecord:
        return BatchRecord.from_metrics(r.key(), [m for m in r.to_metrics() if names is None or m.name in names])

    stored = [read_back(r, LIGHT_METRICS) for r in records[:-1]] + [read_back(records[-1], None)]
    assert [r.new_values.get("label") for r in stored] == [None, {"z": 1.0}, {}, {}]
    assert [h.get("new_value_ratio") for h in column_history(stored, "label")] == [None, 0.0, 0.0, 0.0]


def test_a_share_of_the_brought_values_that_later_batches_have_is_not_new():
    # w1 brings z (x1) and q (x2) of 4 values: stored 3/4; z comes back in w2, q never: 2/4
    records = _records([["x", "y"], ["x", "z", "q", "q"], ["z", "y"], ["x", "y"]])
    assert records[1].features["label"]["new_value_ratio"] == pytest.approx(0.75)
    assert column_history(records, "label")[1]["new_value_ratio"] == pytest.approx(0.5)


def test_without_the_new_values_the_stored_ratio_is_kept():
    # records stored before new values were (or with too many to keep) cannot say which are the batch's alone
    records = _records([["x", "y"], ["x", "z"], ["z", "y"], ["x", "y"]])
    old = [replace(r, new_values={}) for r in records]
    assert [h.get("new_value_ratio") for h in column_history(old, "label")] == [None, 0.5, 0.0, 0.0]


def test_too_many_new_values_are_not_stored():
    # a key column brings NEW_VALUES_KEPT + 1 values in its second batch: not stored, the stored ratio stays
    records = _records([["k0"], [f"k{i}" for i in range(1, NEW_VALUES_KEPT + 2)], ["k0"], ["k0"]])
    assert "label" not in records[1].new_values
    assert column_history(records, "label")[1]["new_value_ratio"] == 1.0
