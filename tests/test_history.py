"""Validation-by-history data layer: summaries (pandas and Spark), AVH metrics and synthetic DQ issues."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from lakeindex.history import (
    CATEGORICAL,
    NUMERIC,
    VARIANT_IDS,
    VARIANTS,
    ColumnSummary,
    corrupt,
    features,
    infer_kind,
    issue_features,
    metric_names,
    single_distribution,
    summarize_series,
    two_distribution,
    variants_for,
)
from lakeindex.history.batch_metrics import CATEGORICAL_TWO, NUMERIC_TWO
from lakeindex.history.chars import class_counts, pattern_of, patterns
from lakeindex.history.issues import BY_ID, variant_rng
from lakeindex.history.summary import MEDIAN_INDEX, QUANTILE_GRID

approx = pytest.approx


def cat(values: list) -> pd.Series:
    return pd.Series(values, dtype=object)


# ------------------------------------------------------------------------------------ characters, patterns


def test_patterns_follow_algorithm_2_with_unicode_classes():
    assert pattern_of("98052-1202") == r"\d\p\d"
    assert pattern_of("$19.99") == r"\p\d\p\d"
    assert pattern_of("2022-03-01 (Monday)") == r"\d\p\d\p\d\s\p\l\p"
    assert pattern_of("café") == r"\l"  # é is a letter
    assert pattern_of("x𝔘²") == r"\l\o"  # supplementary letter; superscript two is No, not a digit
    assert pattern_of(" en-US ") == r"\s\l\p\l\s"
    assert pattern_of("a\u00a0b") == r"\l\s\l"  # no-break space is whitespace (Zs)
    assert pattern_of("x\ue001y") == r"\l\o\l"  # a private-use character is not mistaken for a placeholder
    assert patterns(["", "1", ""]) == ["", r"\d", ""]
    counts = class_counts(["café-1", "", "x𝔘²", "a_b c!"])
    assert counts["str_len"].tolist() == [6, 0, 3, 6]
    assert counts["char_len"].tolist() == [4, 0, 2, 3]
    assert counts["digit_len"].tolist() == [1, 0, 0, 0]
    assert counts["punc_len"].tolist() == [1, 0, 0, 2]  # '_' and '!' count, the space does not


# ------------------------------------------------------------------------------------------------ summaries


def test_categorical_single_distribution_by_hand():
    s = summarize_series(cat(["ab1", "", None, "é-x", "ab1", " 12"]))
    assert s.kind == CATEGORICAL  # one number out of four non-empty values
    m = single_distribution(s)
    assert list(m) == list(metric_names(CATEGORICAL)[:8])
    assert m["row_count"] == 6
    assert m["complete_ratio"] == approx(4 / 6)  # null and "" are not complete
    assert m["dist_val_count"] == 3
    assert m["unique_ratio"] == approx(3 / 4)
    # averages over the 5 non-null values, the empty string included
    assert m["str_len"] == approx((3 + 0 + 3 + 3 + 3) / 5)
    assert m["char_len"] == approx((2 + 0 + 2 + 2 + 0) / 5)
    assert m["digit_len"] == approx((1 + 0 + 0 + 1 + 2) / 5)
    assert m["punc_len"] == approx(1 / 5)
    assert s.value_counts == {"ab1": 2, " 12": 1, "é-x": 1}
    assert s.pattern_counts == {r"\l\d": 2, r"\l\p\l": 1, r"\s\d": 1}
    assert s.singleton_count == 2


def test_numbers_as_strings_are_numeric_and_metrics_by_hand():
    values = ["1", " 2.5", None, "x", "300", "-4", "5.", ".5", "", "7", "1e1", "2", "3"]
    assert infer_kind(cat(values)) == NUMERIC  # 10 of 11 non-empty values are numbers
    assert infer_kind(cat(values + ["y"])) == CATEGORICAL  # 10 of 12 < 90%
    m = single_distribution(summarize_series(cat(values)))
    assert list(m) == list(metric_names(NUMERIC)[:9])
    nums = [1, 2.5, 300, -4, 5, 0.5, 7, 10, 2, 3]
    assert m["sum"] == approx(sum(nums)) and m["mean"] == approx(sum(nums) / 10)
    assert (m["min"], m["max"], m["range"]) == (-4, 300, 304)
    assert m["median"] == 2.5  # lower middle of 10 sorted values (inverted CDF, as KLL)
    assert m["row_count"] == 13 and m["complete_ratio"] == approx(10 / 13) and m["unique_ratio"] == 1


def test_numeric_dtype_nan_and_inf_are_not_complete():
    s = summarize_series(pd.Series([1.0, np.nan, np.inf, 2.0, 2.0]))
    assert (s.kind, s.row_count, s.non_null_count, s.complete_count) == (NUMERIC, 5, 4, 3)
    m = single_distribution(s)
    assert m["unique_ratio"] == approx(2 / 3) and m["sum"] == 5 and m["max"] == 2
    assert s.variance == approx(np.var([1, 2, 2]))
    assert s.quantiles is not None and len(s.quantiles) == len(QUANTILE_GRID)
    assert s.quantiles[MEDIAN_INDEX] == 2
    # booleans are categories, integers with nulls are numbers
    assert infer_kind(pd.Series([True, False])) == CATEGORICAL
    assert summarize_series(pd.Series([True, None, True])).value_counts == {"true": 2}
    assert summarize_series(pd.Series([1, None, 3], dtype="Int64")).sum == 4


def test_undefined_metrics_are_absent_not_nan():
    empty = summarize_series(cat([None, None]), CATEGORICAL)
    m = single_distribution(empty)
    assert m == {"row_count": 2, "complete_ratio": 0.0, "dist_val_count": 0}
    num = summarize_series(pd.Series([np.nan]), NUMERIC)
    assert single_distribution(num) == {"row_count": 1, "complete_ratio": 0.0}
    full = summarize_series(pd.Series([1.0, 2.0]))
    assert two_distribution(full, num) == {}
    assert "l1" not in two_distribution(summarize_series(cat(["a"])), empty)


def test_summary_json_round_trip():
    for series in (cat(["en-us", "én-GB", None, "", "en-us", "x𝔘²"]), pd.Series([1.5, None, -2.0, 1e20])):
        s = summarize_series(series)
        back = ColumnSummary.from_dict(json.loads(json.dumps(s.to_dict())))
        assert back == s
        assert features(back, back) == features(s, s)


def test_top_k_keeps_the_most_frequent_and_the_rest_mass():
    s = summarize_series(cat(["b", "b", "a", "a", "c", "d", "d", "d"]), top_k=2)
    assert s.value_counts == {"d": 3, "a": 2}  # tie between a and b: the smaller string wins
    assert s.value_other == 3 and s.distinct_count == 4
    untracked = summarize_series(cat(["a", "b", "c"]), exact_distinct_limit=2)
    assert not untracked.values_tracked and untracked.value_counts == {} and untracked.singleton_count is None
    assert untracked.pattern_counts == {r"\l": 3}
    assert "l1" not in two_distribution(untracked, untracked) and two_distribution(untracked, untracked)["pat_l1"] == 0


def test_scaled_extrapolates_counts_and_distinct_values():
    ids = summarize_series(cat([f"id{i}" for i in range(100)]))
    states = summarize_series(cat(["CA", "NY", "WA", "TX"] * 25))
    big_ids, big_states = ids.scaled(10), states.scaled(10)
    assert big_ids.row_count == 1000 and big_ids.distinct_count == 1000  # every singleton stands for 10
    assert big_states.row_count == 1000 and big_states.distinct_count == 4
    assert single_distribution(big_states)["str_len"] == single_distribution(states)["str_len"]
    assert big_states.value_counts == {"CA": 250, "NY": 250, "TX": 250, "WA": 250}
    num = summarize_series(pd.Series([1.0, 2.0, 2.0])).scaled(3)
    assert num.sum == 15 and num.mean == approx(5 / 3) and num.distinct_count == 4  # 2 + 1·(3 − 1)
    assert ids.scaled(10, exact_distinct_limit=500).values_tracked is False


# ------------------------------------------------------------------------------------------------- metrics


def test_identical_batches_have_zero_distance_and_p_value_one():
    for series in (pd.Series(np.random.default_rng(0).normal(size=500)),
                   cat(["a", "b", "b", "c-1", None, "d d"] * 10)):
        s = summarize_series(series)
        two = two_distribution(s, s)
        assert set(two) == set(NUMERIC_TWO if s.kind == NUMERIC else CATEGORICAL_TWO)
        for name, value in two.items():
            assert value == approx(1.0 if name.endswith("pvalue") else 0.0, abs=1e-12), name


def test_categorical_two_distribution_by_hand():
    prev = summarize_series(cat(["a", "a", "b", "c"]))  # p = (.5, .25, .25, 0) over a, b, c, d
    cur = summarize_series(cat(["a", "b", "d", "d"]))  # q = (.25, .25, 0, .5)
    two = two_distribution(prev, cur)
    assert two["l1"] == approx(1.0)
    assert two["linf"] == approx(0.5)
    assert two["cosine"] == approx(0.5)  # p·q = 3/16, |p| = |q| = sqrt(3/8)
    m = (0.375, 0.25, 0.125, 0.25)
    kl_pm = 0.5 * math.log2(0.5 / m[0]) + 0.25 * math.log2(0.25 / m[1]) + 0.25 * math.log2(0.25 / m[2])
    kl_qm = 0.25 * math.log2(0.25 / m[0]) + 0.25 * math.log2(0.25 / m[1]) + 0.5 * math.log2(0.5 / m[3])
    assert two["js_div"] == approx((kl_pm + kl_qm) / 2)  # base 2
    # chi-squared: expected counts (1.5, 1, .5, 1) per row, statistic 10/3 with 3 degrees of freedom
    assert two["chisquare"] == approx(10 / 3)
    assert two["chisquare_pvalue"] == approx(stats.chi2.sf(10 / 3, 3))
    # KL(cur ‖ prev) with 0.5 added to each of the 4 categories: (1.5, 1.5, .5, 2.5) vs (2.5, 1.5, 1.5, .5), /6
    c, p = (1.5, 1.5, 0.5, 2.5), (2.5, 1.5, 1.5, 0.5)
    assert two["kl_div"] == approx(sum(ci / 6 * math.log2(ci / pi) for ci, pi in zip(c, p, strict=True)))
    # all values are letters: identical pattern profiles
    assert (two["pat_l1"], two["pat_chisquare"], two["pat_chisquare_pvalue"]) == (0, 0, 1)


def test_new_value_ratio_against_the_previous_batch_by_hand():
    prev = summarize_series(cat(["article", "video", "video"]))
    cur = summarize_series(cat(["article", "Article", "website", "video", None, ""]))  # 4 complete values
    assert two_distribution(prev, cur)["new_value_ratio"] == approx(2 / 4)  # "Article" and "website"
    assert two_distribution(prev, prev)["new_value_ratio"] == 0


def test_history_values_carry_the_clean_vocabulary_to_the_next_batch():
    from lakeindex.history.batches import profile

    weeks = [pd.DataFrame({"kind": cat(v)}) for v in (["a", "a", "b"], ["a", "c"], ["b", "c", "d", "d"])]
    records = []
    for t, df in enumerate(weeks):
        records.append(profile(df, f"w{t}", records[-1] if records else None, issues=False))
    # the third week is new only in "d" (2 of 4): "b" was last seen two weeks before, which the week before lacks
    assert records[2].features["kind"]["new_value_ratio"] == approx(2 / 4)
    assert two_distribution(summarize_series(weeks[1]["kind"]), summarize_series(weeks[2]["kind"]))[
        "new_value_ratio"] == approx(3 / 4)  # against the week before alone: "b", "d", "d"
    assert records[2].summaries["kind"].history_values == {"a": 3, "b": 2, "c": 2, "d": 2}
    round_trip = ColumnSummary.from_dict(json.loads(json.dumps(records[2].summaries["kind"].to_dict())))
    assert round_trip.history_values == {"a": 3, "b": 2, "c": 2, "d": 2}


def test_history_values_keep_the_most_frequent():
    first = summarize_series(cat(["x", "x", "x", "y"]), top_k=2)
    second = summarize_series(cat(["z", "y", "w"]), top_k=2).with_history(first)
    # counts x 3, y 2, z 1, w 1: the two most frequent are kept
    assert second.history_values == {"x": 3, "y": 2}
    assert summarize_series(pd.Series([1.0, 2.0])).with_history(None).history_values == {}  # numeric: none


def test_pattern_distances_see_format_changes():
    prev = summarize_series(cat(["en-us", "de-de", "fr-fr", "en-gb"]))
    cur = summarize_series(cat(["en-us", "de-de", "frfr", "en gb"]))
    two = two_distribution(prev, cur)
    assert two["pat_l1"] == approx(1.0) and two["pat_linf"] == approx(0.5)


def test_numeric_two_distribution_by_hand():
    prev, cur = summarize_series(pd.Series([1, 2, 3, 4])), summarize_series(pd.Series([3, 4, 5, 6]))
    two = two_distribution(prev, cur)
    assert two["ks_dist"] == approx(0.5)
    assert two["emd"] == approx(2.0)
    assert two["js_div"] == approx(0.5)  # bins of width one: half of the mass is shared
    assert two["cohen_d"] == approx(2 / math.sqrt(5 / 3))  # pooled sample variance 5/3
    constant = summarize_series(pd.Series([7.0] * 5))
    assert two_distribution(constant, summarize_series(pd.Series([8.0] * 5)))["cohen_d"] == 1e6


@pytest.mark.parametrize("seed", [0, 1])
def test_emd_and_ks_match_scipy_on_raw_data(seed):
    rng = np.random.default_rng(seed)
    pairs = ((rng.normal(0, 1, 5000), rng.normal(0.5, 2, 4000)), (rng.exponential(1, 3000), rng.exponential(1.3, 3000)))
    for a, b in pairs:
        two = two_distribution(summarize_series(pd.Series(a)), summarize_series(pd.Series(b)))
        assert two["emd"] == approx(stats.wasserstein_distance(a, b), rel=0.03)
        assert two["ks_dist"] == approx(stats.ks_2samp(a, b).statistic, abs=0.011)


def test_features_of_first_batch_have_no_two_distribution_metrics():
    s = summarize_series(cat(["a", "b"]))
    assert set(features(None, s)) == set(single_distribution(s))
    assert set(features(s, s)) == set(metric_names(CATEGORICAL))
    n = summarize_series(pd.Series([1.0, 2.0]))
    assert set(features(n, n)) == set(metric_names(NUMERIC))
    assert two_distribution(s, n) == {}  # kinds differ


# -------------------------------------------------------------------------------------------------- issues

EXPECTED_IDS = (
    "schema_change_p1 schema_change_p10 schema_change_p50 schema_change_p100 "
    "unit_change_x10 unit_change_x100 unit_change_x1000 unit_change_div10 unit_change_div100 unit_change_div1000 "
    "casing_upper_p1 casing_upper_p10 casing_upper_p50 casing_upper_p100 "
    "casing_lower_p1 casing_lower_p10 casing_lower_p50 casing_lower_p100 "
    "increased_nulls_p1 increased_nulls_p10 increased_nulls_p50 increased_nulls_p100 "
    "missing_values_p1 missing_values_p10 missing_values_p50 missing_values_p100 "
    "volume_x2 volume_x10 volume_p50 volume_p10 "
    "distribution_head_p1 distribution_head_p10 distribution_head_p50 "
    "distribution_tail_p1 distribution_tail_p10 distribution_tail_p50 "
    "typo_p1 typo_p10 typo_p50 typo_p100 insert_chars_p1 insert_chars_p10 insert_chars_p50 insert_chars_p100 "
    "delete_chars_p1 delete_chars_p10 delete_chars_p50 delete_chars_p100 "
    "whitespace_leading_p1 whitespace_leading_p10 whitespace_leading_p50 whitespace_leading_p100 "
    "whitespace_trailing_p1 whitespace_trailing_p10 whitespace_trailing_p50 whitespace_trailing_p100"
).split()


def test_variant_ids_are_stable():
    assert VARIANT_IDS == tuple(EXPECTED_IDS)
    assert len(VARIANTS) == 56 and len(variants_for(NUMERIC)) == 40 and len(variants_for(CATEGORICAL)) == 50
    assert sorted({v.issue_type for v in VARIANTS}) == list(range(1, 11))
    assert not BY_ID["unit_change_x100"].applicable(CATEGORICAL)
    assert not BY_ID["casing_upper_p10"].applicable(NUMERIC)
    assert not BY_ID["whitespace_leading_p10"].applicable(NUMERIC)
    assert BY_ID["typo_p1"].applicable(NUMERIC) and BY_ID["typo_p1"].applicable(CATEGORICAL)


@pytest.fixture(scope="module")
def batch() -> pd.DataFrame:
    rng = np.random.default_rng(7)
    n = 200
    return pd.DataFrame({
        "amount": np.round(rng.normal(100, 15, n), 2),
        "locale": rng.choice(["en-us", "en-gb", "de-de", "Straße-x"], n),
        "code": [f"ab-{i:03d}" for i in range(n)],
        "qty": [str(i % 17) for i in range(n)],
    })


def test_every_variant_is_reproducible_with_a_seed(batch):
    for column in batch.columns:
        kind = infer_kind(batch[column])
        for v in variants_for(kind):
            first = corrupt(batch, column, v.id, seed=3)
            assert first.equals(corrupt(batch, column, v.id, seed=3)), (column, v.id)
    assert not corrupt(batch, "locale", "typo_p10", seed=1).equals(corrupt(batch, "locale", "typo_p10", seed=2))
    # a variant's draws depend on its id and the seed only
    assert variant_rng(0, "typo_p1").random() == variant_rng(0, "typo_p1").random()


def test_unit_change_multiplies_and_divides(batch):
    out = corrupt(batch, "amount", "unit_change_x100")
    assert np.allclose(out.to_numpy(), batch["amount"].to_numpy() * 100)
    assert np.allclose(corrupt(batch, "amount", "unit_change_div10").to_numpy(), batch["amount"].to_numpy() / 10)
    text = corrupt(batch, "qty", "unit_change_x10")  # numbers as text stay text
    assert text.tolist() == [str(int(q) * 10) for q in batch["qty"]]


def test_increased_nulls_blank_and_missing_values_null(batch):
    n = len(batch)
    blank = corrupt(batch, "locale", "increased_nulls_p50")
    assert (blank == "").sum() == n // 2
    assert ((blank == "") | (blank == batch["locale"])).all()
    zeros = corrupt(batch, "amount", "increased_nulls_p50")
    assert (zeros == 0).sum() == n // 2
    missing = corrupt(batch, "amount", "missing_values_p10")
    assert missing.isna().sum() == n // 10
    assert corrupt(batch, "locale", "increased_nulls_p1").eq("").sum() == 2


def test_casing_changes_letters_only(batch):
    out = corrupt(batch, "locale", "casing_upper_p100")
    for before, after in zip(batch["locale"], out, strict=True):
        assert len(before) == len(after)
        assert all(a == b or (a.isalpha() and a.lower() == b.lower()) for a, b in zip(before, after, strict=True))
        assert after == "".join(c.upper() if c != "ß" else c for c in before)  # ß → SS would change the length
    upper = pd.DataFrame({"c": ["AB-1", "CD-2"] * 50})
    lower = corrupt(upper, "c", "casing_lower_p10")
    changed = lower != upper["c"]
    assert changed.sum() == 10 and (lower[changed] == upper["c"][changed].str.lower()).all()


def test_whitespace_pads(batch):
    lead = corrupt(batch, "locale", "whitespace_leading_p100")
    assert (lead == " " + batch["locale"]).all()
    trail = corrupt(batch, "locale", "whitespace_trailing_p50")
    assert trail.str.endswith(" ").sum() == len(batch) // 2
    assert (trail.str.rstrip(" ") == batch["locale"]).all()


def test_volume_changes_length(batch):
    n = len(batch)
    up = corrupt(batch, "amount", "volume_x2")
    assert len(up) == 2 * n and up.iloc[:n].tolist() == batch["amount"].tolist()
    assert set(up) <= set(batch["amount"])
    assert len(corrupt(batch, "amount", "volume_x10")) == 10 * n
    down = corrupt(batch, "code", "volume_p10")
    assert len(down) == n // 10
    positions = [batch["code"].tolist().index(v) for v in down]
    assert positions == sorted(positions)  # a subsequence, in order


def test_distribution_change_keeps_a_biased_tail(batch):
    a = batch["amount"]
    head = corrupt(batch, "amount", "distribution_head_p10")
    assert len(head) == len(a) and head.max() <= np.sort(a)[len(a) // 10 - 1]
    tail = corrupt(batch, "amount", "distribution_tail_p10")
    assert tail.min() >= np.sort(a)[-(len(a) // 10)]
    text = corrupt(batch, "code", "distribution_head_p1")
    assert set(text) == {"ab-000", "ab-001"}  # the two smallest of 200 codes


def test_typos_replace_characters_within_their_class(batch):
    out = corrupt(batch, "code", "typo_p100")
    for before, after in zip(batch["code"], out, strict=True):
        assert len(before) == len(after)
        for b, a in zip(before, after, strict=True):
            if b.isdigit() or b.isalpha():
                assert a != b and a.isdigit() == b.isdigit() and a.islower() == b.islower()
            else:
                assert a == b
    changed = sum(a != b for x, y in zip(batch["code"], corrupt(batch, "code", "typo_p10"), strict=True)
                  for a, b in zip(x, y, strict=True))
    assert changed == round(0.1 * 5 * len(batch))  # 5 perturbable characters per code
    nums = corrupt(batch, "amount", "typo_p50")
    assert nums.notna().all() and (nums != batch["amount"]).sum() > len(batch) // 2


def test_typos_keep_a_lone_surrogate_and_change_the_letters_around_it():
    """Text read with errors="surrogateescape" holds lone surrogates: they are not perturbable, and used to
    make the typo issue raise UnicodeEncodeError."""
    df = pd.DataFrame({"c": ["ab\ud800cd", "xy-12"] * 20})
    out = corrupt(df, "c", "typo_p100")
    for before, after in zip(df["c"], out, strict=True):
        assert len(after) == len(before)
        assert [a == b for a, b in zip(before, after, strict=True)] == [not b.isalnum() for b in before]
    assert all(v[2] == "\ud800" for v in out[::2])


def test_insert_and_delete_characters(batch):
    n = len(batch)
    ins = corrupt(batch, "locale", "insert_chars_p50")
    longer = [(b, a) for b, a in zip(batch["locale"], ins, strict=True) if a != b]
    assert len(longer) == n // 2
    assert all(len(a) == len(b) + 1 and any(a[:i] + a[i + 1:] == b for i in range(len(a))) for b, a in longer)
    dele = corrupt(batch, "code", "delete_chars_p10")
    shorter = [(b, a) for b, a in zip(batch["code"], dele, strict=True) if a != b]
    assert len(shorter) == n // 10
    assert all(len(a) == len(b) - 1 and any(b[:i] + b[i + 1:] == a for i in range(len(b))) for b, a in shorter)
    num = corrupt(batch, "amount", "insert_chars_p100")
    assert num.notna().all()  # digits keep the values numbers
    assert (num != batch["amount"]).mean() > 0.8  # (a 0 appended to a decimal or prepended is no change)


def test_schema_change_takes_values_from_a_neighbouring_column(batch):
    full = corrupt(batch, "locale", "schema_change_p100")
    assert full.tolist() == batch["code"].tolist()  # right neighbour, categorical like locale
    numeric = corrupt(batch, "qty", "schema_change_p100")  # no numeric neighbour on the right: amount
    assert (pd.to_numeric(numeric) == batch["amount"]).all()
    partial = corrupt(batch, "amount", "schema_change_p10")  # nearest numeric column: qty (parsed)
    diff = partial != batch["amount"]
    assert diff.sum() <= len(batch) // 10
    assert (partial[diff] == batch["qty"][diff].astype(float)).all()
    alone = corrupt(batch[["code"]], "code", "schema_change_p100")
    assert sorted(alone) == sorted(batch["code"])  # no other column: shuffled values


def test_issue_features_cover_applicable_variants_and_scale_counts(batch):
    prev = summarize_series(batch["amount"].sample(frac=1.0, replace=True, random_state=1))
    feats = issue_features(prev, batch, "amount", seed=0)
    assert list(feats) == [v.id for v in variants_for(NUMERIC)]
    base = features(prev, summarize_series(batch["amount"]))
    assert feats["unit_change_x100"]["mean"] == approx(base["mean"] * 100)
    assert feats["volume_x2"]["row_count"] == 2 * len(batch)
    assert feats["schema_change_p1"]["row_count"] == len(batch)
    assert set(feats["typo_p10"]) == set(metric_names(NUMERIC))
    scaled = issue_features(prev, batch, "amount", seed=0, scale=50.0)
    assert scaled["volume_p10"]["row_count"] == approx(len(batch) // 10 * 50)
    assert scaled["unit_change_x10"]["sum"] == approx(feats["unit_change_x10"]["sum"] * 50)
    assert scaled["unit_change_x10"]["mean"] == approx(feats["unit_change_x10"]["mean"])
    cat_prev = summarize_series(batch["locale"])
    cats = issue_features(cat_prev, batch, "locale", seed=0, scale=10.0)
    assert list(cats) == [v.id for v in variants_for(CATEGORICAL)]
    assert cats["increased_nulls_p100"]["complete_ratio"] == 0 and "l1" not in cats["increased_nulls_p100"]
    assert cats["casing_upper_p100"]["dist_val_count"] == 4  # no singletons: distinct values do not scale
    assert cats["casing_upper_p100"]["l1"] == approx(2.0) and cats["whitespace_trailing_p100"]["pat_l1"] == 2.0
    assert issue_features(cat_prev, batch, "locale", seed=0, scale=10.0) == cats
    assert all(type(v) is float for f in cats.values() for v in f.values())
    json.dumps(cats, allow_nan=False)
    # integer codes summarised as categories: corrupted values keep their spelling ("12", not "12.0")
    codes = pd.DataFrame({"code": [1, 2, 3, 4] * 25})
    coded = issue_features(summarize_series(codes["code"], CATEGORICAL), codes, "code", kind=CATEGORICAL)
    assert coded["typo_p1"]["l1"] == approx(0.02) and coded["volume_x2"]["dist_val_count"] == 4


# --------------------------------------------------------------------------------------------------- Spark


def _assert_same(a: ColumnSummary, b: ColumnSummary, ignore: tuple[str, ...] = ()) -> None:
    da, db = a.to_dict(), b.to_dict()
    for key in ignore:
        da.pop(key), db.pop(key)
    for key in ("variance", "sum"):
        va, vb = da.pop(key), db.pop(key)
        assert (va is None and vb is None) or va == approx(vb, rel=1e-12), key
    assert da == db


def test_spark_and_pandas_summaries_agree(spark):
    from lakeindex.history.spark_summary import summarize_dataframe

    pdf = pd.DataFrame({
        "x": [1.0, 2.5, None, 4.0, 2.5, -3.0, 7.0, 2.5, float("inf")],
        "i": [1, 2, 3, 1, 2, 1, 1, 2, 1],
        "snum": ["1", " 2.5", None, "12", "3e2", "-4", "5.", ".5", ""],
        "words": ["en-us", "en-GB", "", None, "café 1", "x𝔘²", "en-us", "$19.99", "en-us"],
        "tier": ["gold", "silver", "bronze", "gold", "gold", "silver", None, "", "gold"],
        "flag": [True, False, None, True, True, False, True, True, True],
    })
    rows = [tuple(None if pd.isna(v) else v for v in r) for r in pdf.itertuples(index=False)]
    sdf = spark.createDataFrame(rows, "x double, i long, snum string, words string, tier string, flag boolean")
    # limit 3: x, snum and words are "high-cardinality" (HLL estimate, no value frequencies), i, tier, flag not
    out = summarize_dataframe(sdf, top_k=2, exact_distinct_limit=3)
    assert [out[c].kind for c in pdf.columns] == [NUMERIC, NUMERIC, NUMERIC, CATEGORICAL, CATEGORICAL, CATEGORICAL]
    for c in pdf.columns:
        # pandas knows every distinct count exactly, Spark estimates it above the limit
        _assert_same(out[c], summarize_series(pdf[c], top_k=2, exact_distinct_limit=3), ignore=("distinct_exact",))
    assert out["tier"].value_counts == {"gold": 4, "silver": 2} and out["tier"].value_other == 1
    assert (out["i"].distinct_count, out["i"].singleton_count, out["i"].distinct_exact) == (3, 1, True)
    assert not out["words"].values_tracked and out["words"].distinct_count == 5
    assert out["words"].pattern_counts == {r"\l\p\l": 4, r"\l\o": 1} and out["words"].pattern_other == 2
    assert out["x"].quantiles is not None and out["x"].quantiles[MEDIAN_INDEX] == 2.5
    assert out["snum"].sum == approx(1 + 2.5 + 12 + 300 - 4 + 5 + 0.5)
