"""``new_value_ratio``'s history measured leave-one-out (``lakeindex.avh.leave_one_out``).

Expected values are counted by hand from the tiny batches written out in each test.
"""

from __future__ import annotations

from dataclasses import replace

import pandas as pd
import pytest

from lakeindex.avh.leave_one_out import column_history, new_value_ratio_against_others
from lakeindex.history.batches import profile


def test_a_value_no_other_batch_has_is_new():
    # the batch: a x3, b x1 and one value in the rest bucket (known); all batches together: a 10, b 1, c 4,
    # so b is this batch's alone: 1 of 5 values is new
    assert new_value_ratio_against_others({"a": 3, "b": 1}, 5, {"a": 10, "b": 1, "c": 4}) == pytest.approx(0.2)
    # d is beyond the vocabulary kept (top_k): new, as it would be for a new batch
    assert new_value_ratio_against_others({"a": 2, "d": 2}, 4, {"a": 10}) == pytest.approx(0.5)
    with pytest.raises(ValueError, match="without complete values"):
        new_value_ratio_against_others({}, 0, {"a": 1})


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


def test_without_the_summaries_the_stored_values_are_kept():
    # light records (only the newest loaded in full) cannot tell which values the other batches had
    records = _records([["x", "y"], ["x", "z"], ["z", "y"], ["x", "y"]])
    light = [replace(r, summaries={}) for r in records[:-1]] + [records[-1]]
    assert [h.get("new_value_ratio") for h in column_history(light, "label")] == [None, 0.5, 0.0, 0.0]
