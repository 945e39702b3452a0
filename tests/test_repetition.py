"""Repetition blocks: the pattern syntax, and rules for list columns learned from item evidence."""

from __future__ import annotations

import random
import re

import pytest

from lakeindex.fmdv.drift import validate
from lakeindex.fmdv.infer import AutoValidator
from lakeindex.fmdv.rule_search import _open_count
from lakeindex.index.local_build import build_from_columns
from lakeindex.index.store import IndexReader
from lakeindex.patterns.pattern import PatternError, example, format_elements, matches, parse, to_regex


@pytest.mark.parametrize("pattern,regex", [
    ("<digit>+<rep>|<digit>+</rep>{23}", r"^[0-9]+(?:\|[0-9]+){23}$"),
    ("[<lower>+<rep>,<lower>+</rep>{2,}]", r"^\[[a-z]+(?:,[a-z]+){2,}\]$"),
    ("<opt>-</opt><digit>+<rep>#<opt>-</opt><digit>+</rep>{7,9}", r"^(?:\-)?[0-9]+(?:\#(?:\-)?[0-9]+){7,9}$"),
])
def test_repetition_syntax_round_trips_and_converts(pattern, regex):
    assert to_regex(pattern) == regex
    assert format_elements(parse(pattern)) == pattern
    assert re.fullmatch(regex, example(pattern))


def test_repetition_matches_by_count():
    p = "<digit>+<rep>|<digit>+</rep>{2}"
    assert matches(p, "1|22|333") and not matches(p, "1|22") and not matches(p, "1|22|3|4")
    assert matches("<digit>+<rep>|<digit>+</rep>{2,}", "1|2|3|4|5")


@pytest.mark.parametrize("bad", [
    "<rep>a</rep>", "<rep>|a</rep>{0}", "<rep>|<rep>|a</rep>{2}</rep>{2}", "<rep>|a</rep>{3,2}",
    "<rep>|a</rep>{2}<rep>|b</rep>{2}", "<opt><rep>|a</rep>{2}</opt>",
    "<rep><digit>+</rep>{2,}",  # no separator: (?:[0-9]+){2,} backtracks exponentially
    "<rep>|<all></rep>{2}", "<rep>.<num></rep>{2}", "<rep>|<digit>+|</rep>{2}",
])
def test_malformed_or_backtracking_repetitions_are_refused(bad):
    with pytest.raises(PatternError):
        parse(bad)


@pytest.fixture(scope="module")
def index(tmp_path_factory):
    rng = random.Random(8)
    cols = [[str(rng.randint(0, 99999)) for _ in range(60)] for _ in range(60)]
    cols += [[str(rng.randint(-999, 999)) for _ in range(60)] for _ in range(20)]
    cols += [["".join(rng.choices("abcdefgh", k=rng.randint(3, 9))) for _ in range(60)] for _ in range(30)]
    cols += [[f"{rng.choice('abcdef')}:{rng.randint(0, 99)}" for _ in range(60)] for _ in range(30)]
    cols += [[f"{rng.randint(1, 12):02d}/{rng.randint(1, 28):02d}/20{rng.randint(10, 24)}" for _ in range(60)]
             for _ in range(30)]
    path = tmp_path_factory.mktemp("rep") / "ix"
    build_from_columns(cols, path, min_coverage=2)
    with IndexReader(path) as ix:
        yield ix


def _numbers(rng: random.Random, k: int) -> str:
    return "#".join(str(rng.randint(-99, 999)) for _ in range(k))


def test_a_fixed_length_list_of_signed_numbers_gets_a_repetition_rule(index):
    rng = random.Random(1)
    train = [_numbers(rng, 24) for _ in range(100)]
    rule = AutoValidator(index, "fmdv-vh").fit(train).rule_
    assert rule.feasible, rule.reason
    assert rule.pattern.endswith("</rep>{23}") and "<rep>#" in rule.pattern
    assert validate(rule, [_numbers(rng, 24) for _ in range(900)])["passed"]
    assert validate(rule, [_numbers(rng, 20) for _ in range(900)])["flagged"]  # shorter lists
    assert validate(rule, [_numbers(rng, 23) + "#1.5" for _ in range(900)])["flagged"]  # decimal items


def test_lists_of_varying_length_get_an_open_count(index):
    rng = random.Random(2)
    train = [",".join(f"{rng.choice('abcdef')}:{rng.randint(0, 99)}" for _ in range(rng.randint(4, 9)))
             for _ in range(200)]
    rule = AutoValidator(index, "fmdv-vh").fit(train).rule_
    assert rule.feasible, rule.reason
    assert rule.pattern.endswith("</rep>{3,}") and "<rep>," in rule.pattern
    assert rule.train_nonconforming == 0
    assert not matches(rule.pattern, "a:1,b:2,c3,d:4")  # an item without its colon



@pytest.fixture(scope="module")
def list_index(tmp_path_factory):
    """Numbers with 3% ``N/A`` (FPR about 0.03) and lists of 10-13 of them, whose few skeletons give the
    index windows led by the comma (``,<digit>+``): what lets vertical cuts align a list as a record."""
    rng = random.Random(8)
    cols = [[str(rng.randint(0, 999)) if rng.random() > 0.03 else "N/A" for _ in range(100)] for _ in range(40)]
    cols += [[",".join(str(rng.randint(0, 999)) for _ in range(rng.randint(10, 13))) for _ in range(60)]
             for _ in range(20)]
    path = tmp_path_factory.mktemp("lists") / "ix"
    build_from_columns(cols, path, min_coverage=2)
    with IndexReader(path) as ix:
        yield ix


@pytest.mark.parametrize("lengths,unseen", [((12, 13, 12, 13, 12), 11), ((5, 7, 5, 7, 5), 6)])
def test_lists_whose_sample_shows_two_lengths_are_lists_not_records_with_an_optional_block(list_index, lengths,
                                                                                          unseen):
    # aligned, 5 lists of 5 and 7 numbers are 5 fields and an optional block of 2 (each field's FPR and the
    # block's), which rejects a list of 6; a list rule pays the items' FPR once and holds any length
    rng = random.Random(3)
    train = [",".join(str(rng.randint(0, 999)) for _ in range(k)) for k in lengths]
    rule = AutoValidator(list_index, "fmdv-vh").fit(train).rule_
    assert rule.feasible, rule.reason
    assert "<opt>" not in rule.pattern and "<rep>," in rule.pattern
    other = [",".join(str(rng.randint(0, 999)) for _ in range(unseen)) for _ in range(20)]
    assert rule.nonconforming(other) == {}
    assert rule.nonconforming(["1,2,x"]) != {}


@pytest.mark.parametrize("pattern,open_", [
    ("<digit>+<rep>,<digit>+</rep>{1,}", True),
    ("<hex>+<rep>|<hex>+</rep>{7,}", True),
    ("<digit>+<rep>#<digit>+</rep>{23}", False),  # lists of one length: a record the aligned rule keeps
    ("<digit>+.<digit>+<rep>|<lower>{3}_<digit>+</rep>{1}|<alphanum>+<opt> <alphanum>+</opt>", False),
    ("<opt><digit>+,</opt><digit>+,<digit>+", False),
])
def test_only_a_list_of_open_count_replaces_an_aligned_rule(pattern, open_):
    assert _open_count(pattern) is open_
