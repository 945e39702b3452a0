"""``corrupt`` against a plain reference of the synthetic issues (``tests/issue_oracle.py``), value by value.

The reference makes the documented draws in the documented order from the same generator, so every variant
must give exactly its column (floats, NaN equal to NaN; or text) on hostile values: text with signs, unicode
whose case mapping changes length, mixed objects, nullable and extension dtypes, booleans and dates taken as
numeric (text then: no numbers), and columns with no neighbour of their kind.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from lakeindex.history import CATEGORICAL, NUMERIC, corrupt, infer_kind, variants_for
from lakeindex.history.issues import variant_rng
from tests import issue_oracle
from tests.test_issue_features_fast import FRAME

N = len(FRAME)
WIDE = FRAME.assign(
    int_na=pd.array([None if i % 5 == 0 else i - 20 for i in range(N)], dtype="Int64"),
    float_na=pd.array([None if i % 4 == 0 else i / 3 for i in range(N)], dtype="Float64"),
    string=pd.array([None if i % 6 == 0 else f"v{i % 7}" for i in range(N)], dtype="string"),
    bool_na=pd.array([None if i % 6 == 0 else i % 2 == 0 for i in range(N)], dtype="boolean"),
)
OTHER = {NUMERIC: CATEGORICAL, CATEGORICAL: NUMERIC}


def _cell(x: object) -> object:
    return "NaN" if isinstance(x, float) and math.isnan(x) else x


def _as_list(series: pd.Series) -> list:
    """A Series as the reference lists a column: floats (float64 dtype) or text with None for null."""
    if series.dtype == np.float64:
        return [_cell(x) for x in series.tolist()]
    assert series.dtype == object
    return [None if v is None else _cell(v) for v in series.tolist()]


@pytest.mark.parametrize("column", list(WIDE.columns))
@pytest.mark.parametrize("which", ["inferred", "other"])
def test_every_variant_corrupts_as_the_reference_does(column, which):
    kind = infer_kind(WIDE[column])
    kind = kind if which == "inferred" else OTHER[kind]
    seed = len(column) % 3
    for variant in variants_for(kind):
        want = issue_oracle.corrupted(WIDE, column, variant.id, variant_rng(seed, variant.id), kind)
        got = _as_list(corrupt(WIDE, column, variant.id, seed, kind))
        assert got == [_cell(x) for x in want], variant.id


@pytest.mark.parametrize("column", ["ints", "unicode", "signed"])
def test_a_column_alone_takes_its_own_values_shuffled_as_the_reference_does(column):
    alone = FRAME[[column]]
    kind = infer_kind(alone[column])
    for variant in variants_for(kind):
        want = issue_oracle.corrupted(alone, column, variant.id, variant_rng(4, variant.id), kind)
        assert _as_list(corrupt(alone, column, variant.id, 4, kind)) == [_cell(x) for x in want], variant.id
