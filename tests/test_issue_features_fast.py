"""``issue_features`` (each corrupted column summarised from its codes and float arrays) against its
definition, computed with pandas: for every applicable variant, ``features(prev, summarize_series(corrupt(
...)).scaled(scale))``. Floats must be equal bit for bit (NaN equal to NaN), on small frames of hostile values.
What ``corrupt`` returns is held to a reference in ``test_issue_oracle.py``."""

from __future__ import annotations

import math
import struct

import numpy as np
import pandas as pd
import pytest

from lakeindex.history import CATEGORICAL, NUMERIC, corrupt, features, infer_kind, issue_features, variants_for
from lakeindex.history.summary import summarize_series

N = 48
# digits inserted into "1e5" make numbers like 1e157, whose squares overflow in variance and EMD on both paths
pytestmark = pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning")


def _frame() -> pd.DataFrame:
    rng = np.random.default_rng(5)
    uni = ["ß", "straße", "😀x", "ÀÉ", "ǅ", "ﬃ", "İstanbul", "a\u0301", "", " x ", "tab\tb", "日本語", None]
    signed = ["+1", "-2.5", "  3 ", "1e5", "-0", ".5", "abc", None, "1e999", "007", "-.5e-3", "", "12"]
    return pd.DataFrame({
        "ids": [f"ID-{i % 40:03d}" for i in range(N)],  # mostly singletons, some pairs
        "unicode": [uni[i % len(uni)] for i in range(N)],
        "signed": [signed[i % len(signed)] for i in range(N)],  # numbers as text with signs, mostly numeric
        "ints": rng.integers(-50, 50, N).astype(np.int64),
        "floats": [[1.5, -0.0, 0.0, np.inf, -np.inf, np.nan, 1e20, 2.25, -3.0, 1e-7][i % 10] for i in range(N)],
        "allnull": [None] * N,
        "empties": [""] * N,
        "single": ["x"] * N,
        "bools": [i % 3 == 0 for i in range(N)],
        "mixed": [[1, "a", 2.5, None, True, "b", 7][i % 7] for i in range(N)],
        "nan_obj": [["u", np.nan, "v", "w"][i % 4] for i in range(N)],
        "numtext": [str(x) for x in rng.normal(100, 30, N).round(2)],
        "f32": rng.normal(0, 1e3, N).astype(np.float32),
        "u8": rng.integers(0, 5, N).astype(np.uint8),
        "dates": pd.to_datetime(["2024-01-01 00:00", None, "2024-03-05 10:00"] * (N // 3)),
        "catdtype": pd.Categorical([["lo", "hi", None][i % 3] for i in range(N)]),
    })


FRAME = _frame()
OTHER = {NUMERIC: CATEGORICAL, CATEGORICAL: NUMERIC}


def _bits(x: float) -> bytes | str:
    return "nan" if math.isnan(x) else struct.pack("<d", x)


def _by_definition(prev, df: pd.DataFrame, column: str, seed: int, scale: float, kind: str, top_k: int,
                   limit: int) -> dict[str, dict[str, float]]:
    """What ``issue_features`` is defined as: each corrupted column summarised with pandas, then featurised."""
    return {v.id: features(prev, summarize_series(corrupt(df, column, v.id, seed, kind), kind, top_k=top_k,
                                                  exact_distinct_limit=limit).scaled(scale, limit))
            for v in variants_for(kind)}


def _assert_same(fast: dict[str, dict[str, float]], slow: dict[str, dict[str, float]]) -> None:
    assert list(fast) == list(slow)
    for vid in slow:
        assert list(fast[vid]) == list(slow[vid]), vid
        assert all(type(v) is float for v in fast[vid].values()), vid
        assert {k: _bits(v) for k, v in fast[vid].items()} == {k: _bits(v) for k, v in slow[vid].items()}, vid


CASES = [(c, kind, seed, scale) for i, c in enumerate(FRAME.columns)
         for kind, seed, scale in ((None, i % 3, 1.0), ("other", 1, 2.5))]


@pytest.mark.parametrize(("column", "kind", "seed", "scale"), CASES)
def test_issue_features_equal_the_definition_bit_for_bit(column, kind, seed, scale):
    kind = infer_kind(FRAME[column]) if kind is None else OTHER[infer_kind(FRAME[column])]
    prev = summarize_series(FRAME[column].iloc[::2], kind) if seed != 1 else None
    fast = issue_features(prev, FRAME, column, seed, scale=scale, kind=kind)
    _assert_same(fast, _by_definition(prev, FRAME, column, seed, scale, kind, 1000, 100_000))


def test_features_cover_top_k_ties_untracked_values_alone_and_tiny_columns():
    prev = summarize_series(FRAME["ids"].iloc[:30], top_k=4)
    fast = issue_features(prev, FRAME, "ids", 3, scale=7.0, top_k=4, exact_distinct_limit=30)
    _assert_same(fast, _by_definition(prev, FRAME, "ids", 3, 7.0, CATEGORICAL, 4, 30))
    for column in ("unicode", "ints", "signed"):  # alone: schema change shuffles the column's own values
        alone = FRAME[[column]]
        kind = infer_kind(alone[column])
        _assert_same(issue_features(None, alone, column, 2, kind=kind),
                     _by_definition(None, alone, column, 2, 1.0, kind, 1000, 100_000))
    for rows in (0, 1, 2):
        tiny = FRAME.head(rows)
        for column, kind in (("unicode", CATEGORICAL), ("floats", NUMERIC), ("signed", NUMERIC)):
            _assert_same(issue_features(None, tiny, column, kind=kind),
                         _by_definition(None, tiny, column, 0, 1.0, kind, 1000, 100_000))
