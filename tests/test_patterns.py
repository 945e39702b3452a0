"""Tokenizer, hierarchy and P(v) enumeration, on the paper's own examples (SIGMOD'21 §2.1-2.2)."""

from __future__ import annotations

import random
import re

import pyarrow as pa
import pyarrow.compute as pc
import pytest

from lakeindex.patterns import (
    EnumerationLimits,
    PatternError,
    analyze,
    column_patterns,
    matches,
    parse,
    to_regex,
    token_generalizations,
    tokenize,
    value_patterns,
)
from lakeindex.patterns.pattern import format_elements


def test_tokenizer_runs_of_letters_digits_symbols():
    assert tokenize("9:07") == ["9", ":", "07"]
    assert tokenize("en-US") == ["en", "-", "US"]
    assert tokenize("https://a.io/x") == ["https", "://", "a", ".", "io", "/", "x"]
    assert analyze("9:07").ntokens == 3


def test_long_mixed_word_is_one_alnum_token():
    a = analyze("3f2a9c1e")  # 8 runs: treated as one <alphanum> word
    assert a.ntokens == 1 and a.slots == ("3f2a9c1e",)
    assert analyze("12kg").ntokens == 2  # short mixed words keep their runs (unit drift stays visible)


def test_seven_generalizations_of_9():
    assert token_generalizations("9") == [
        "9", "<digit>{1}", "<digit>+", "<num>", "<alphanum>{1}", "<alphanum>+", "<all>"]


def test_p_of_9_07_contains_papers_examples():
    p = value_patterns("9:07")
    for expected in ["<digit>{1}:<digit>{2}", "<digit>+:<digit>{2}", "<digit>{1}:<digit>+",
                     "<num>:<digit>+", "9:<digit>{2}", "9:07"]:
        assert expected in p
    assert "<digit>{2}:<digit>{2}" not in p
    assert all(matches(x, "9:07") for x in p)


def test_case_classes_separate_en_us_from_en_US():
    lower, upper = value_patterns("en-us"), value_patterns("en-US")
    assert "<lower>{2}-<lower>{2}" in lower and "<lower>{2}-<lower>{2}" not in upper
    assert "<lower>{2}-<upper>{2}" in upper
    assert "<letter>{2}-<letter>{2}" in lower & upper


def test_values_wider_than_tau_are_skipped():
    assert value_patterns("1-2-3-4-5") == set()  # 9 tokens > tau = 8
    assert value_patterns("1-2-3-4-5", EnumerationLimits(tau=9))


def test_decimal_num_spans_the_dot():
    assert "<num>" in value_patterns("12.50")
    assert matches("<num>", "12.50") and matches("<num>", "12") and not matches("<num>", "12.")


def test_max_constants_bounds_constant_slots():
    pats = value_patterns("Mar 15 2019", EnumerationLimits(max_constants=1))
    assert "Mar <digit>{2} <digit>{4}" in pats
    assert "Mar 15 <digit>{4}" not in pats


def figure6_column() -> list[str]:
    """Figure 6's D: 12 date-times, 4 with one-digit AM hours, the last 8 with two-digit hours,
    of which the last 2 are PM."""
    return ([f"{m}/1{m}/2019 {h}:0{h}:20 AM" for m, h in zip(range(1, 5), [9, 8, 7, 6], strict=True)]
            + [f"9/1{i}/2019 1{i}:02:20 AM" for i in range(6)]
            + ["9/12/2019 12:01:32 PM", "9/13/2019 11:41:02 PM"])


H1 = "<digit>+/<digit>{2}/<digit>{4} <digit>+:<digit>{2}:<digit>{2} AM"
H2 = "<digit>+/<digit>{2}/<digit>{4} <digit>{1}:<digit>{2}:<digit>{2} <letter>{2}"
H5 = "<digit>+/<digit>{2}/<digit>{4} <digit>+:<digit>{2}:<digit>{2} <letter>{2}"


@pytest.mark.parametrize("pattern,impurity", [(H1, 2 / 12), (H2, 8 / 12), (H5, 0 / 12)])
def test_example4_impurities(pattern, impurity):
    d = figure6_column()
    assert len(d) == 12
    # through the enumerator (tau raised to fit 13-token values; the template budget lifted so that
    # P(v) is the paper's exact hierarchy: these shapes have ~300k templates) ...
    cp = column_patterns(d, limits=EnumerationLimits(tau=13, max_templates=400_000, wide_templates=400_000))
    assert cp.impurity(pattern) == pytest.approx(impurity)
    # ... and through the matcher
    assert 1 - sum(matches(pattern, v) for v in d) / len(d) == pytest.approx(impurity)


VALUES = ["9:07", "2019-03-15", "192.168.1.10", "v2.10.0", "en-US", "ORD-000123", "12.50", "a3f29c1e9d",
          "$1,234.56", "Mar 15 2019", "x<y+{z}\\w", "10:02:20 AM", "web-042.prod", "héllo wörld"]


@pytest.mark.parametrize("value", VALUES)
def test_every_pattern_round_trips_and_matches_its_value(value):
    pats = value_patterns(value)
    assert pats, value
    sample = sorted(pats)[::max(1, len(pats) // 50)]
    arr = pa.array([value])
    for p in sample:
        assert format_elements(parse(p)) == p
        assert matches(p, value)
        assert pc.match_substring_regex(arr, to_regex(p))[0].as_py(), (p, to_regex(p))  # RE2 agrees


def test_patterns_reject_other_domains():
    assert not matches("<lower>{2}-<lower>{2}", "en-US")
    assert not matches("ORD-<digit>{6}", "INV-000123")
    assert not matches("<digit>{4}-<digit>{2}-<digit>{2}", "2019-3-15")


@pytest.mark.parametrize("bad", ["<digit>", "<foo>+", "a{b", "<num>+", "x\\y", "<digit>{0}"])
def test_malformed_patterns_are_rejected(bad):
    with pytest.raises(PatternError):
        parse(bad)


def brute_force_counts(values: list[str], limits: EnumerationLimits) -> dict[str, int]:
    counts: dict[str, int] = {}
    for v in values:
        for p in value_patterns(v, limits):
            counts[p] = counts.get(p, 0) + 1
    return counts


def test_column_counts_equal_brute_force_on_constant_free_patterns():
    rng = random.Random(5)
    values = [rng.choice([f"{rng.randint(0, 999)}.{rng.randint(0, 99)}", f"ID-{rng.randint(0, 99999)}",
                          f"{rng.choice(['en', 'fr'])}-{rng.choice(['us', 'US', 'gb'])}", "N/A", "-",
                          f"{rng.randint(1, 99)}.{rng.randint(1, 99)}.{rng.randint(0, 9)}.{rng.randint(1, 99)}"])
              for _ in range(400)]
    # the paper's Definition 7 (any matching value counts), every distinct value enumerated (no sampling)
    limits = EnumerationLimits(min_share=0, max_distinct=0)
    cp = column_patterns(values, limits=limits)
    exact = brute_force_counts(values, limits)
    free = {p: c for p, c in exact.items()
            if not any(e.cls is None and re.search("[A-Za-z0-9]", e.text) for e in parse(p))}
    for p, c in free.items():
        assert cp.counts.get(p) == c, p
    # every constant pattern kept is exact, and kept iff it covers >= 1/const_share of the column
    for p, c in cp.counts.items():
        assert exact[p] == c, p
    for p, c in exact.items():
        if p not in cp.counts:
            assert c < len(values) / limits.const_share, p


def test_min_share_keeps_only_patterns_describing_part_of_the_column():
    values = ["alice smith"] * 97 + ["NULL"] * 3
    paper = column_patterns(values, limits=EnumerationLimits(min_share=0))
    ours = column_patterns(values)
    assert paper.counts["<upper>{4}"] == 3 and "<upper>{4}" not in ours.counts
    assert ours.counts["<lower>+ <lower>+"] == paper.counts["<lower>+ <lower>+"] == 97


def test_ambiguous_num_parses_count_once():
    cp = column_patterns(["23.49.41.99", "1.2.3.4"])
    assert max(cp.counts.values()) <= cp.total == 2
    assert cp.counts["<digit>+.<num>.<num>"] == 2


def test_distinct_values_with_counts_equal_expanded_column():
    values = ["ORD-000001", "ORD-000002", "N/A"]
    a = column_patterns(values, [5, 3, 2])
    b = column_patterns(["ORD-000001"] * 5 + ["ORD-000002"] * 3 + ["N/A"] * 2)
    assert a.counts == b.counts and a.total == b.total == 10


def test_million_ids_do_not_explode_the_pattern_space():
    values = [f"ORD-{i:06d}" for i in range(20000)]
    cp = column_patterns(values)
    assert len(cp.counts) < 100
    assert cp.counts["ORD-<digit>{6}"] == 20000
    assert not any(p.startswith("ORD-0") for p in cp.counts)


@pytest.mark.parametrize("pattern,yes,no", [
    ("<opt>-</opt><digit>+", ["-12", "12"], ["--12", "-", "+12", ""]),
    ("<alphanum>+<opt>_<alphanum>+</opt>", ["web", "mobile_app"], ["mobile_", "_app", "a_b_c"]),
    ("<opt><lower>+.</opt><lower>+@<lower>+", ["a.b@c", "b@c"], [".b@c", "a.@c"]),
    ("\\<opt>x", ["<opt>x"], ["x"]),
])
def test_optional_blocks_round_trip_and_agree_with_re2(pattern, yes, no):
    assert format_elements(parse(pattern)) == pattern
    values = yes + no
    re2 = pc.match_substring_regex(pa.array(values), to_regex(pattern)).to_pylist()
    assert re2 == [matches(pattern, v) for v in values] == [True] * len(yes) + [False] * len(no)


@pytest.mark.parametrize("bad", ["<opt>a", "a</opt>", "<opt></opt>", "<opt>a<opt>b</opt></opt>"])
def test_malformed_optional_blocks_are_rejected(bad):
    with pytest.raises(PatternError):
        parse(bad)


def test_optional_blocks_are_skipped_by_example_and_generality():
    from lakeindex.patterns.pattern import example, generality

    assert example("<opt>-</opt><digit>+") == "0"
    assert generality("<opt>-</opt><digit>+") == generality("<digit>+")


def test_hex_words_are_marked_and_get_hex_classes():
    from lakeindex.patterns.tokens import ALNUM, ALNUM_HEX, DIGIT, LOWER, LOWER_HEX, UPPER_HEX

    assert analyze("8026a55").shape == (((DIGIT, 4), (LOWER_HEX, 1), (DIGIT, 2)),)  # 3 runs: kept per run
    assert analyze("c02c12a").shape == (((ALNUM_HEX, 7),),) and analyze("c02c12a").ntokens == 1
    assert analyze("C0FFEE1").shape == (((ALNUM_HEX, 7),),)  # 4 runs
    assert analyze("A1").shape == (((UPPER_HEX, 1), (DIGIT, 1)),)
    assert analyze("g02c12a").shape == (((ALNUM, 7),),)  # a letter beyond f: not hex
    assert analyze("12kg").shape == (((DIGIT, 2), (LOWER, 2)),)
    for v in ("8026a55", "c02c12a", "A1"):
        p = value_patterns(v)
        assert {f"<hex>{{{len(v)}}}", "<hex>+"} <= p, v
        assert f"<alphanum>{{{len(v)}}}" in p
    assert "<digit>{4}<lower>{1}<digit>{2}" in value_patterns("8026a55")  # run classes as before
    # digits only, letters only, or letters past f: described by their own classes
    for v in ("1234567", "cafe", "12kg", "zz9"):
        assert not any("<hex>" in p for p in value_patterns(v)), v


def test_hex_sits_between_runs_and_alphanum():
    from lakeindex.patterns.pattern import generality

    assert generality("<digit>+") < generality("<hex>{7}") < generality("<hex>+") <= generality("<alphanum>{7}")
    assert generality("<hex>+") < generality("<alphanum>+")


@pytest.mark.parametrize("pattern,yes,no", [
    ("<hex>{7}", ["8026a55", "c02c12a", "C02C12A", "1234567", "abcdefa"], ["g02c12a", "8026a5", "8026a555", "8026-55"]),
    ("<hex>+-<hex>{4}", ["3f2a9c1e-0b1c", "3F-ABCD"], ["3f2a9c1e-0b1", "xyz-0b1c", "-0b1c"]),
])
def test_hex_regex_agrees_with_matcher_and_re2(pattern, yes, no):
    assert format_elements(parse(pattern)) == pattern
    values = yes + no
    re2 = pc.match_substring_regex(pa.array(values), to_regex(pattern)).to_pylist()
    assert re2 == [matches(pattern, v) for v in values] == [True] * len(yes) + [False] * len(no)


@pytest.mark.parametrize("value", ["8026a55", "3f2a9c1e-0b1c-4d2e", "AB:CD:12:34:5E:6F", "f0e1d2c3b4a5"])
def test_hex_values_round_trip_and_match_every_pattern(value):
    pats = value_patterns(value, EnumerationLimits(tau=13))
    assert any("<hex>" in p for p in pats)
    arr = pa.array([value])
    for p in sorted(pats)[::max(1, len(pats) // 60)] + [p for p in pats if "<hex>" in p][:40]:
        assert format_elements(parse(p)) == p
        assert matches(p, value)
        assert pc.match_substring_regex(arr, to_regex(p))[0].as_py(), (p, to_regex(p))


def test_hex_column_counts_equal_brute_force():
    rng = random.Random(11)
    values = [rng.choice([f"{rng.getrandbits(28):07x}", f"v{rng.randint(1, 9)}.{rng.randint(0, 9)}",
                          f"{rng.getrandbits(16):04X}-{rng.randint(0, 99)}"]) for _ in range(300)]
    limits = EnumerationLimits(min_share=0, max_distinct=0)
    cp = column_patterns(values, limits=limits)
    exact = brute_force_counts(values, limits)
    for p, c in exact.items():
        if "<hex>" in p and not any(e.cls is None and re.search("[A-Za-z0-9]", e.text) for e in parse(p)):
            assert cp.counts.get(p) == c, p
