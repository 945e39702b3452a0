"""Prop. 3's sample-size gate (``lakeindex.avh.normality``): the Edgeworth skewness term against the normal tail.

Expected values are hand computations: moments of small discrete distributions worked out as fractions, the
normal density from its formula, the 99.95% normal quantile from the table (3.290527).
"""

from __future__ import annotations

import math
from dataclasses import replace

import pandas as pd
import pytest

import lakeindex.avh.from_history as from_history
from lakeindex.avh.bounds import BoundKind
from lakeindex.avh.normality import clt_fallbacks, min_rows_for_clt, row_skewness, skewness_error
from lakeindex.history.batches import profile
from lakeindex.history.summary import summarize_series

Z_9995 = 3.290527  # the normal quantile whose two-sided tail is 0.001 (tables)


def phi(x: float) -> float:
    return math.exp(-x * x / 2) / math.sqrt(2 * math.pi)


def test_skewness_term_is_the_first_edgeworth_correction():
    # |gamma| (k^2 - 1) phi(k) / (6 sqrt(n)): gamma = 1, n = 1, k = 3 gives 8 phi(3) / 6; gamma = -2, n = 4 the same
    assert skewness_error(1.0, 1, 3.0) == pytest.approx(8 * phi(3.0) / 6, rel=1e-12)
    assert skewness_error(-2.0, 4, 3.0) == pytest.approx(8 * phi(3.0) / 6, rel=1e-12)
    with pytest.raises(ValueError, match="n must be > 0"):
        skewness_error(1.0, 0, 3.0)


def test_fewest_rows_for_the_clt_at_the_default_budget():
    # at delta = 0.001 the widest CLT clause sits at k = 3.290527; the term there equals delta / 2 when
    # n = ((k^2 - 1) phi(k) / 6 / 0.0005)^2 gamma^2 = 33.89 gamma^2
    k = Z_9995
    per_unit = ((k * k - 1) * phi(k) / 6 / 0.0005) ** 2
    assert per_unit == pytest.approx(33.89, abs=0.01)
    assert min_rows_for_clt(1.0, 0.001) == pytest.approx(per_unit, rel=1e-5)
    assert min_rows_for_clt(-3.0, 0.001) == pytest.approx(9 * per_unit, rel=1e-5)
    assert min_rows_for_clt(math.inf, 0.001) == math.inf
    # at that n the skewness term is exactly the normal tail it corrects
    n = min_rows_for_clt(2.0, 0.001)
    assert skewness_error(2.0, n, k) == pytest.approx(0.0005, rel=1e-5)


def test_completeness_is_bernoulli_pooled_over_the_history():
    s = summarize_series(pd.Series(["a"] * 18 + [None] * 2), "categorical")  # p = 0.9 over 20 rows
    n, gamma = row_skewness(s, "complete_ratio")
    assert n == 20
    assert gamma == pytest.approx((1 - 1.8) / math.sqrt(0.09), rel=1e-12)  # -0.8 / 0.3
    # pooled: (10 * 0.5 + 30 * 1.0) / 40 = 0.875; skewness -0.75 / sqrt(0.875 * 0.125) = -2.267787
    history = [{"row_count": 10.0, "complete_ratio": 0.5}, {"row_count": 30.0, "complete_ratio": 1.0}]
    assert row_skewness(s, "complete_ratio", history) == (20, pytest.approx(-2.267787, rel=1e-6))
    full = summarize_series(pd.Series(["a"] * 20), "categorical")
    assert row_skewness(full, "complete_ratio")[1] == math.inf  # no row differs: nothing is normal


def test_text_length_skewness_counts_empty_strings_as_length_zero():
    # lengths 1, 4, 0: mean 5/3, m2 = 26/9, m3 = 70/27
    s = summarize_series(pd.Series(["a", "abcd", ""]), "categorical")
    expected = (70 / 27) / (26 / 9) ** 1.5
    assert row_skewness(s, "str_len") == (3, pytest.approx(expected, rel=1e-12))
    assert row_skewness(s, "char_len") == (3, pytest.approx(expected, rel=1e-12))
    assert row_skewness(s, "digit_len") is None  # every value has 0 digits: no spread
    # the clean history's vocabulary, when known, replaces the batch's values: lengths 2, 2, 2, 6 give
    # m2 = 3, m3 = 6, skewness 2 / sqrt(3); n stays the batch's
    t = summarize_series(pd.Series(["a", "abcd"]), "categorical")
    pooled = replace(t, history_values={"ab": 3.0, "abcdef": 1.0})
    assert row_skewness(pooled, "str_len") == (2, pytest.approx(2 / math.sqrt(3), rel=1e-12))


def test_mean_skewness_from_the_quantile_grid():
    # 19 zeros and one 10: a scaled Bernoulli(0.05), skewness 0.9 / sqrt(0.0475)
    s = summarize_series(pd.Series([0.0] * 19 + [10.0]))
    assert row_skewness(s, "mean") == (20, pytest.approx(0.9 / math.sqrt(0.0475), rel=1e-9))
    assert row_skewness(summarize_series(pd.Series([5.0] * 20)), "mean") is None


def test_one_row_distribution_keeps_the_clt_at_1000_rows_and_leaves_it_at_20():
    # skewness 0.9 / sqrt(0.0475) = 4.1295: the CLT needs 33.89 * 17.05 = 578 rows
    small = summarize_series(pd.Series([0.0] * 19 + [10.0]))
    large = summarize_series(pd.Series([0.0] * 950 + [10.0] * 50))
    assert clt_fallbacks(small, 0.001).get("mean") is BoundKind.CHEBYSHEV
    assert "mean" not in clt_fallbacks(large, 0.001)
    # a looser budget tolerates more: at delta = 0.2, k = 1.281552 and (k^2 - 1) phi(k) / 6 / 0.1
    # = 0.6424 * 0.1755 / 0.6 = 0.1879, so 0.0353 gamma^2 = 0.60 rows suffice
    assert "mean" not in clt_fallbacks(small, 0.2)
    assert clt_fallbacks(small, 1.0) == {}  # a budget of 1 spends no tail


def test_learning_gives_a_skewed_20_row_mean_chebyshev(monkeypatch):
    """The newest clean batch's summary decides, through ``learn_dataset_programs``."""
    seen: dict[str, object] = {}
    real = from_history.learn_program

    def spy(column, history, issues, **kw):
        seen[column] = kw.get("bound_kinds")
        return real(column, history, issues, **kw)

    monkeypatch.setattr(from_history, "learn_program", spy)
    records = []
    for b in range(4):
        values = [0.0] * 19 + [10.0 + b]
        records.append(profile(pd.DataFrame({"x": values}), f"b{b}", records[-1] if records else None,
                               issues=b == 3))
    programs = from_history.learn_dataset_programs(records)
    assert seen["x"]["mean"] is BoundKind.CHEBYSHEV
    assert programs.programs["x"].options["bound_kinds"]["mean"] == "chebyshev"  # the program says why
