"""Composite values: splitting at separators, list and record rules, repetition syntax, hex positions.

Covers lakeindex.fmdv.split, lakeindex.fmdv.repetition, lakeindex.fmdv.records (directly with a
hand-written item solver, and end to end through AutoValidator on a small in-memory index),
repetition blocks of lakeindex.patterns.pattern, and the hex compatibility of
lakeindex.fmdv.hypotheses.column_alternatives. Every expectation is written out by hand from the
modules' documented semantics.
"""

from __future__ import annotations

import random
import re
from collections import Counter

import pytest

import lakeindex.fmdv.infer as infer
import lakeindex.fmdv.rule_search as rule_search
from lakeindex.fmdv.column import QueryColumn
from lakeindex.fmdv.hypotheses import column_alternatives, segment_hypotheses, segment_key
from lakeindex.fmdv.infer import AutoValidator
from lakeindex.fmdv.records import record_rule, record_separators
from lakeindex.fmdv.repetition import list_separators, repetition_rule
from lakeindex.fmdv.rule_search import FIRST, PART_SAMPLE, RuleSearch
from lakeindex.fmdv.search import Candidate
from lakeindex.fmdv.split import item_tally, separator_tallies, split_items, tally
from lakeindex.index.local_build import build_from_columns
from lakeindex.index.store import IndexReader
from lakeindex.patterns.enumerate import EnumerationLimits, value_patterns
from lakeindex.patterns.pattern import PatternError, format_elements, matches, parse, to_regex
from lakeindex.patterns.sampling import value_hash
from lakeindex.patterns.tokens import analyze


def assert_accepts(pattern: str, accept: list[str], reject: list[str]) -> None:
    """``pattern`` matches every string of ``accept`` and none of ``reject`` (lists the failures)."""
    assert [v for v in accept if not matches(pattern, v)] == [], pattern
    assert [v for v in reject if matches(pattern, v)] == [], pattern

# ---------------------------------------------------------------------------------------------------
# split.py


@pytest.mark.parametrize("value,sep,items", [
    ("a|b|c", "|", ["a", "b", "c"]),
    ("a||b", "|", ["a||b"]),  # a run holding the separator twice is part of an item
    ("a|-|b", "|", ["a|-|b"]),  # ... and so is "|-|" (two separators in one run)
    ("12#-7", "#", ["12", "-7"]),  # cut once inside "#-": the sign stays with its item
    ("{A}|{B}", "|", ["{A}", "{B}"]),  # "}|{": the brackets go left and right
    ("a-|-b", "|", ["a-", "-b"]),
    ("C:\\data", "\\", ["C:", "data"]),
    ("http://x/y", "/", ["http://x", "y"]),  # "://" holds "/" twice: no cut inside it
    ("\\\\srv\\a", "\\", ["\\\\srv", "a"]),  # UNC prefix "\\" is not cut at "\"
    ("a::b::c", "::", ["a", "b", "c"]),  # multi-character separator
    ("a:::b", "::", ["a:::b"]),  # the run has a ":" left over, a separator character: no cut
    ("|a|b", "|", ["", "a", "b"]),  # a leading separator gives an empty first item
    ("a|", "|", ["a", ""]),
    ("ab", "|", ["ab"]),  # no cut: the value itself
])
def test_split_items_cuts_only_where_the_separator_stands_alone(value, sep, items):
    """Run-aware splitting as the split module docstring defines it (expected items by hand)."""
    assert split_items(value, sep) == tuple(items)
    # every cut removes exactly one separator, so joining the items back gives the value
    assert sep.join(items) == value


def test_item_tally_counts_every_item_with_its_lists_count():
    """item_tally against the plain tally of (item, count) pairs on random lists, counts 1 to 3."""
    rng = random.Random(2)
    for _ in range(50):
        rows = [([rng.choice("abcde") for _ in range(rng.randint(1, 6))], rng.choice((1, 1, 1, 2, 3)))
                for _ in range(rng.randint(0, 30))]
        assert item_tally(rows) == tally((it, n) for items, n in rows for it in items)


def test_cuts_are_counted_where_the_separator_stands_alone_not_per_occurrence():
    """A value's cuts: "a||b" contains "|" twice but is cut nowhere."""
    assert [len(split_items(v, "|")) - 1 for v in ["a|b|c", "a", "a||b", "1|2||3"]] == [2, 0, 0, 1]


@pytest.mark.parametrize("values,tol,expected", [
    (["1#2#3", "4#5"], 0.0, ["#"]),
    (["k:v;k:v", "a:b;c:d;e:f"], 0.0, [";", ":"]),  # single symbols in the module's trial order
    (["a::b::c", "x::y"], 0.0, ["::"]),  # ":" never cuts "::"; the run of the longest value does
    (["a||b", "c||d"], 0.0, ["||"]),
    (["http://a/b", "http://c/d/e"], 0.0, [":", "/", "://"]),  # ":" cuts "://" once (rest "//")
    (["a b c", "d e"], 0.0, []),  # spaces are never separators (natural language)
    (["1|2", "3|4", "5|6", "N/A"], 0.0, []),  # "|" misses N/A, "/" cuts only N/A
    (["1|2", "3|4", "5|6", "N/A"], 0.25, ["|"]),  # one value in four may miss it
    ([], 0.0, []),
])
def test_separator_tallies(values, tol, expected):
    """Candidates are the symbols (and longer symbol runs of the longest value) that cut all values
    but ``tol`` of them at least once; expected lists worked out by hand."""
    assert list(separator_tallies(values, tol)) == expected


# ---------------------------------------------------------------------------------------------------
# repetition.py and records.py with a hand-written solver

# The solver a list or record rule asks for each part column: the first of these patterns that
# every value of the column matches, with a made-up FPR and coverage (None when none fits).
STUB = [("<digit>+", 0.01, 50), ("<lower>+", 0.01, 40), ("<lower>+.csv", 0.02, 10), ("ids=<digit>+", 0.02, 5),
        ("<digit>{4}-<digit>{2}-<digit>{2}", 0.01, 30), ("<upper>+-<digit>+", 0.02, 20),
        ("<opt>-</opt><digit>+", 0.03, 25)]


def stub_solve(column: list[str], budget: float = float("inf")) -> Candidate | None:
    """The first STUB pattern every value matches, if its FPR is within the budget."""
    for pattern, fpr, cov in STUB:
        if all(matches(pattern, v) for v in column):
            return Candidate(pattern, fpr, cov) if fpr <= budget else None
    return None


def test_a_wrapped_list_keeps_its_brackets_and_repeats_the_item():
    """Lists of 3-4 numbers in [ ]: form ITEM<rep>SEP ITEM</rep>{1,}, open from two items (the shortest a
    list of varying length may have: three lists are too few for their shortest to bound the count), the
    wrapper kept literally; head or tail forms add a part's FPR, so the plain form (0.01) wins."""
    values = ["[1,22,333]", "[4,5,6,7]", "[8,9,10]"]
    assert list_separators(values) == [","]
    cand = repetition_rule(values, stub_solve)
    assert cand == Candidate("[<digit>+<rep>,<digit>+</rep>{1,}]", 0.01, 50)
    accept = ["[0,0,0]", "[1,2,3,4,5,6,7,8,9]", "[1,2]"]
    reject = ["[1]", "1,2,3", "[1,2,x]", "[1;2;3]", "[1,2,3,]", "[-1,2,3]", "[1,,2,3]"]
    assert_accepts(cand.pattern, accept, reject)


def test_the_shortest_training_list_bounds_the_count_from_one_hundred_lists():
    """Lists of 3 or 4 numbers: with 99 of them (counted with repeats) the count is open from the two items
    any list of varying length may have, {1,}; with 100, from the shortest training list, 3 items: {2,}
    (a new list undercuts all of n exchangeable training lists with probability at most 1/(n + 1))."""
    for n, quant in ((99, "{1,}"), (100, "{2,}")):
        counts = Counter({"[1,2,3]": n - 1, "[4,5,6,7]": 1})
        assert repetition_rule(counts, stub_solve) == Candidate(f"[<digit>+<rep>,<digit>+</rep>{quant}]", 0.01, 50)
    # lists of one length keep it, however few
    assert repetition_rule(["[1,2,3]", "[4,5,6]"], stub_solve) == Candidate("[<digit>+<rep>,<digit>+</rep>{2}]",
                                                                              0.01, 50)


def test_a_list_with_a_head_gets_the_head_pattern_before_the_block():
    """ids=3|4|5: "ids=3" is not an item, so only the head forms fit; head + items (FPR 0.02 + 0.01)
    beats head + items + tail (0.04). Two to three items follow the head, and two lists are too few for
    their shortest to bound the count: one item at least, {1,}."""
    values = ["ids=3|4|5", "ids=10|2|7|8"]
    assert list_separators(values) == ["|"]  # "=" cuts once: a pair, not a list
    cand = repetition_rule(values, stub_solve)
    assert cand == Candidate("ids=<digit>+<rep>|<digit>+</rep>{1,}", 0.03, 5)
    accept = ["ids=7|8|9", "ids=100|2|3|4|5|6", "ids=7|8"]
    reject = ["ids=7", "ids=7|x|9", "ids=7,8,9", "ids:7|8|9", "=7|8|9", "ids=|7|8", "ID=7|8|9"]
    assert_accepts(cand.pattern, accept, reject)


def test_a_path_keeps_its_leading_separator_and_gets_a_tail():
    """/dir/.../name.csv: every value starts with "/", kept literally; the file name is a tail
    (items + tail, FPR 0.01 + 0.02, beats head + items + tail, 0.04); at least two folders."""
    values = ["/data/raw/report.csv", "/srv/a/b/notes.csv", "/x/y/z.csv"]
    assert list_separators(values) == ["/"]
    cand = repetition_rule(values, stub_solve)
    assert cand == Candidate("/<lower>+<rep>/<lower>+</rep>{1,}/<lower>+.csv", 0.03, 10)
    accept = ["/a/b/c.csv", "/a/b/c/d/e/f.csv"]
    reject = ["/a/c.csv", "a/b/c.csv", "/a/b/c.txt", "/a/B/c.csv", "/a//b/c.csv", "/a/b/c.csv/"]
    assert_accepts(cand.pattern, accept, reject)


def test_a_unc_path_keeps_its_double_separator_and_its_server_is_an_item():
    """\\\\server\\dir\\...\\name.csv: "\\\\" opens every value and is kept literally, so the server is the first
    item, of the folders' domain (a list of k items is k draws from one domain), and needs no head
    of its own; the file name is a tail. Items + tail: 0.01 + 0.02. Lists of 3 to 4 items, too few to
    bound the count: two items at least before the tail, as any list with a tail, {1,}."""
    values = [r"\\srv\data\raw\report.csv", r"\\fs\a\b\c\notes.csv", r"\\nas\x\y\z.csv"]
    assert list_separators(values) == ["\\"]
    cand = repetition_rule(values, stub_solve)
    assert cand == Candidate(r"\\\\<lower>+<rep>\\<lower>+</rep>{1,}\\<lower>+.csv", 0.03, 10)
    accept = [r"\\h\a\b\c.csv", r"\\h\a\b\c\d\e.csv", r"\\h\a\c.csv"]
    reject = [r"\h\a\b\c.csv", r"\\h\c.csv", r"\\H\a\b\c.csv", r"\\h\a\b\c.txt", r"\\\h\a\b\c.csv",
              r"\\h\a\\b\c.csv"]
    assert_accepts(cand.pattern, accept, reject)


def test_a_list_rule_tolerates_ad_hoc_values_only_within_tol():
    """N/A among three lists: with tol 0 no separator cuts every value, so no rule; with one value
    in four allowed off-form, the list rule is learned from the other three."""
    values = ["1,2,3", "4,5,6", "7,8,9", "N/A"]
    assert repetition_rule(values, stub_solve) is None
    assert repetition_rule(values, stub_solve, tol=0.25) == Candidate("<digit>+<rep>,<digit>+</rep>{2}", 0.01, 50)


def test_pairs_are_not_lists():
    """Two items is a record of two fields: a list needs two cuts for the median value."""
    assert list_separators(["1,2", "3,4", "5,6,7"]) == []
    assert repetition_rule(["1,2", "3,4", "5,6,7"], stub_solve) is None


def test_a_list_of_varying_length_may_start_at_two_items():
    """Host names of 2 to 4 labels (the median value has two cuts, so "." is a list separator): with a
    two-item value among longer ones the pair is the shortest list, not a record, so the items' form
    alone fits and the list costs the label domain once (0.01), not a head plus items (0.02)."""
    values = ["shop.example.net", "example.com", "mail.acme.co.uk"]
    assert list_separators(values) == ["."]
    cand = repetition_rule(values, stub_solve)
    assert cand == Candidate("<lower>+<rep>.<lower>+</rep>{1,}", 0.01, 40)
    assert_accepts(cand.pattern, ["a.b", "a.b.c.d.e"], ["a", "a..b", ".a.b", "a.b.", "a.B", "a.b1"])
    assert repetition_rule(["ab.cd", "ef.gh", "ij.kl"], stub_solve) is None  # only pairs: a record


RECORDS = ["2024-01-02|ABC-12|ok", "2023-11-30|XY-7|fail", "2022-05-06|QRS-100|ok"]


def test_a_record_is_cut_at_its_rarest_consistent_separator():
    """"|" cuts every value twice and "-" three times (date and code): both are consistent, "|"
    (fewer cuts) first. Cut at "-", the first field "2024" fits no solver pattern, so the record
    rule is the fields' rules joined by "|", FPR summed (0.01 + 0.02 + 0.01), coverage the least."""
    assert record_separators(RECORDS) == [("|", 2), ("-", 3)]
    cand = record_rule(RECORDS, stub_solve)
    assert cand == Candidate("<digit>{4}-<digit>{2}-<digit>{2}|<upper>+-<digit>+|<lower>+", 0.04, 20)
    accept = ["1999-12-31|XY-7|done", "2000-01-01|A-0|x"]
    reject = ["1999-12-31|XY-7", "1999-12-31|xy-7|done", "1999-12-31|XY-7|done|x", "99-12-31|XY-7|done",
              "1999-12-31|XY7|done", "1999-12-31||XY-7|done"]
    assert_accepts(cand.pattern, accept, reject)


def test_a_record_field_with_a_sign_is_cut_after_the_separator():
    """"|-12" is cut at "|" with the sign kept in the field; "-" cuts values 2 or 3 times, so it is
    no record separator. The signed field gets its own rule inside the record."""
    values = ["2024-01-02|-12|ok", "2023-11-30|34|fail", "2022-05-06|-7|ok"]
    assert record_separators(values) == [("|", 2)]
    cand = record_rule(values, stub_solve)
    assert cand == Candidate("<digit>{4}-<digit>{2}-<digit>{2}|<opt>-</opt><digit>+|<lower>+", 0.05, 25)
    assert matches(cand.pattern, "2021-01-01|-5|x") and matches(cand.pattern, "2021-01-01|5|x")
    assert not any(matches(cand.pattern, v) for v in ["2021-01-01|+5|x", "2021-01-01|--5|x", "2021-01-01|5"])


def test_a_record_needs_every_field_solved():
    """A field no pattern fits (upper-case words here: the solver has no such pattern) gives no rule."""
    assert record_rule(["2024-01-02|ABC|ok", "2023-11-30|XY|fail"], stub_solve) is None


def test_a_query_string_is_cut_from_its_address_at_the_question_mark():
    """``?`` is a separator (URLs put their query string after it): ``ORD-1?a`` is a record of two
    fields, and the rule keeps ``?`` literal (the regex escapes it, so ``12a`` without it fails)."""
    values = ["ORD-1?a", "ORD-22?b", "XY-7?cd"]
    assert list(separator_tallies(values)) == ["-", "?"]
    assert record_separators(values) == [("-", 1), ("?", 1)]
    cand = record_rule(values, stub_solve)
    assert cand == Candidate("<upper>+-<digit>+?<lower>+", 0.03, 20)
    assert_accepts(cand.pattern, ["A-1?x", "QQ-123?abc"], ["A-1x", "A-1", "A-1??x", "A-1?", "?x"])


def test_parts_are_handed_to_the_solver_as_counts_of_every_item():
    """A column of 1,000 values with 3 distinct lists: the item column the solver gets holds each
    distinct item once with its count over all 1,000 values (counted by hand: "1,2,3" x 500,
    "4,5,6,7" x 300, "1,8,9" x 200 -> "1" 700, "2" 500, ... 3,200 items), and the rule is the one the
    plain list of values gives; the same for a record's fields."""
    values = ["[1,2,3]"] * 500 + ["[4,5,6,7]"] * 300 + ["[1,8,9]"] * 200
    seen = []

    def spy(column, budget):
        seen.append(column)
        return stub_solve(column, budget)

    cand = repetition_rule(Counter(values), spy)
    assert cand == repetition_rule(values, stub_solve) == Candidate("[<digit>+<rep>,<digit>+</rep>{2,}]", 0.01, 50)
    items = seen[0]
    assert dict(items) == {"1": 700, "2": 500, "3": 500, "4": 300, "5": 300, "6": 300, "7": 300, "8": 200, "9": 200}
    assert sum(items.values()) == 3 * 500 + 4 * 300 + 3 * 200
    seen.clear()
    records = RECORDS * 300 + [""] * 7
    assert record_rule(Counter(records), spy) == record_rule(records, stub_solve)
    assert {"2024-01-02": 300, "2023-11-30": 300, "2022-05-06": 300} in [dict(c) for c in seen]


def test_record_fields_are_solved_fewest_distinct_first_each_within_what_the_others_left():
    """RECORDS cut at "|": the status field has 2 distinct values, the others 3, so it is solved first
    with the whole budget 0.05; <lower>+ (0.01) leaves 0.04 for the date (0.01), which leaves 0.03 for
    the code (<upper>+-<digit>+, 0.02). The rule is the same as in field order (hand-summed 0.04)."""
    calls = []

    def spy(column, budget):
        calls.append((sorted(column), round(budget, 10)))
        return stub_solve(column, budget)

    cand = record_rule(RECORDS, spy, budget=0.05)
    assert cand == Candidate("<digit>{4}-<digit>{2}-<digit>{2}|<upper>+-<digit>+|<lower>+", 0.04, 20)
    assert calls[:3] == [(["fail", "ok"], 0.05), (["2022-05-06", "2023-11-30", "2024-01-02"], 0.04),
                         (["ABC-12", "QRS-100", "XY-7"], 0.03)]


def test_a_record_over_budget_stops_before_its_widest_field():
    """With a budget of 0.015 the status (0.01) leaves 0.005, the date (0.01) does not fit it: the
    separator is given up and the code field (3 distinct values, solved last) is never asked for; "-"
    then fails at its first field. No rule fits 0.015 (the full rule costs 0.04)."""
    asked = []

    def spy(column, budget):
        asked.append(sorted(column))
        return stub_solve(column, budget)

    assert record_rule(RECORDS, spy, budget=0.015) is None
    assert ["ABC-12", "QRS-100", "XY-7"] not in asked


def test_a_list_rule_stays_within_the_budget():
    """ids=3|4|5 with budget 0.025: the head form needs ids=<digit>+ (0.02) plus items (0.01) = 0.03,
    over the budget, so no rule; with 0.03 the rule of the test above is found (hand-summed)."""
    values = ["ids=3|4|5", "ids=10|2|7|8"]
    assert repetition_rule(values, stub_solve, budget=0.025) is None
    found = repetition_rule(values, stub_solve, budget=0.03)
    assert found == Candidate("ids=<digit>+<rep>|<digit>+</rep>{1,}", 0.03, 5)


def test_a_list_solves_its_parts_fewest_distinct_first():
    """/x/y/name.csv with folders from {a, b} and four file names. Hand-traced by form: no head or
    tail (6 distinct items, fails); head {a, b} (<lower>+, 0.01) then 6 items (fails); tail form: the
    2 folder items before the 4 file names, so the tail is asked after; head and tail: head, items
    (ties keep head first), tail, summing 0.04, no better than the tail form's 0.03."""
    values = ["/a/b/fa.csv", "/b/a/fb.csv", "/a/a/fc.csv", "/b/b/fd.csv"]
    asked = []

    def spy(column, budget):
        asked.append(sorted(column))
        return stub_solve(column, budget)

    cand = repetition_rule(values, spy)
    assert cand == Candidate("/<lower>+<rep>/<lower>+</rep>{1}/<lower>+.csv", 0.03, 10)
    files = ["fa.csv", "fb.csv", "fc.csv", "fd.csv"]
    folders = ["a", "b"]
    items = folders + files
    assert asked == [items, folders, items, folders, files, folders, folders, files]


# ---------------------------------------------------------------------------------------------------
# End to end: AutoValidator over a small index of the item and field domains


def _word(rng: random.Random, lo: int = 2, hi: int = 7) -> str:
    return "".join(rng.choices("abcdefghijklmnop", k=rng.randint(lo, hi)))


def _date(rng: random.Random) -> str:
    return f"20{rng.randint(10, 24)}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"


def _code(rng: random.Random) -> str:
    return f"{''.join(rng.choices('ABCDEFGHIJKLMNOP', k=3))}-{rng.randint(0, 999)}"


@pytest.fixture(scope="module")
def index(tmp_path_factory):
    rng = random.Random(8)
    cols = [[str(rng.randint(0, 99999)) for _ in range(60)] for _ in range(40)]
    cols += [[_word(rng) for _ in range(60)] for _ in range(30)]
    cols += [[_date(rng) for _ in range(60)] for _ in range(30)]
    cols += [[_code(rng) for _ in range(60)] for _ in range(30)]
    cols += [[f"{rng.choice(['id', 'ids', 'key', 'n'])}={rng.randint(0, 999)}" for _ in range(60)] for _ in range(20)]
    path = tmp_path_factory.mktemp("composite") / "ix"
    build_from_columns(cols, path, min_coverage=2)
    with IndexReader(path) as ix:
        yield ix


def _fit(index, make, n: int = 60) -> tuple[str, list[str]]:
    """Fit FMDV-VH on ``n`` values of ``make(rng, i)``; return the rule's pattern and held-out values."""
    rng = random.Random(5)
    train = [make(rng, i) for i in range(n)]
    rule = AutoValidator(index, "fmdv-vh").fit(train).rule_
    assert rule.feasible, rule.reason
    assert [v for v in train if not matches(rule.pattern, v)] == []  # every training value conforms
    return rule.pattern, [make(rng, i) for i in range(n)]


def _check(pattern: str, held_out: list[str], reject: list[str]) -> None:
    assert_accepts(pattern, held_out, reject)


def test_bracketed_number_lists_of_varying_length_get_a_rule(index):
    """[n,n,...] with 3 to 8 numbers: held-out lists pass, and longer ones (lists of varying length
    get an open count, ``{k-1,}``, from the shortest of 120 lists: enough to bound it); shorter lists, other
    items, other separators, a missing bracket or an empty item do not."""
    pattern, held = _fit(index, lambda r, i: "[" + ",".join(str(r.randint(0, 999)) for _ in range(3 + i % 6)) + "]",
                         n=120)
    held.append("[" + ",".join(str(k) for k in range(12)) + "]")  # longer than any training list: open count
    _check(pattern, held, ["[1,2]", "1,2,3", "[1,2,3", "[1,2,x]", "[1;2;3]", "[1,2,3,]", "[1,,2,3]", "[-1,2,3]"])


def test_lists_with_a_head_get_a_rule(index):
    """ids=n|n|... (3 to 8 numbers after "ids="): held-out values pass, and 12 numbers (open count);
    values without the head, with another separator, with a letter item or fewer than three numbers
    do not (120 lists: enough for their shortest to bound the count)."""
    pattern, held = _fit(index, lambda r, i: "ids=" + "|".join(str(r.randint(0, 999)) for _ in range(3 + i % 6)),
                         n=120)
    held.append("ids=" + "|".join(str(k * 7) for k in range(12)))
    _check(pattern, held, ["ids=7|8", "7|8|9", "ids=7,8,9", "ids=7|x|9", "ids:7|8|9", "ids=|7|8", "ids=7|8|9|"])


def test_records_with_a_fixed_field_count_get_a_rule(index):
    """date|CODE-n|word: held-out records pass; a missing or extra field, a lower-case code, a
    reordered record or an upper-case word do not."""
    pattern, held = _fit(index, lambda r, i: f"{_date(r)}|{_code(r)}|{_word(r)}")
    _check(pattern, held, ["2024-01-02|ABC-12", "2024-01-02|ABC-12|ok|ok", "2024-01-02|abc-12|ok",
                           "ABC-12|2024-01-02|ok", "2024-01-02|ABC-12|OK", "2024/01/02|ABC-12|ok"])


def test_records_with_a_list_field_get_a_rule(index):
    """date|a/b/c|CODE-n with 3 to 6 path words: the path breaks the alignment, so the rule needs a
    record cut with a list field (open count: ten folders pass too). Held-out records pass; an
    upper-case or empty folder, a missing field or a swapped field do not."""
    pattern, held = _fit(index, lambda r, i: f"{_date(r)}|" + "/".join(_word(r) for _ in range(3 + i % 4))
                         + f"|{_code(r)}")
    held.append("2024-01-02|" + "/".join(["ab", "cde"] * 5) + "|ABC-12")  # ten folders: open count
    _check(pattern, held, ["2024-01-02|ab/Cd/ef|ABC-12", "2024-01-02|ab//ef|ABC-12", "2024-01-02|ab/cd/ef",
                           "2024-01-02|ABC-12|ab/cd/ef", "2024-01-02|ab/cd/ef|ABC-12|x", "2024-01-02|ab|cd|ABC-12"])


def test_a_part_solved_on_a_sample_is_solved_again_when_a_value_outside_the_sample_fails(index):
    """A list's items beyond PART_SAMPLE distinct values are solved on a hash sample first
    (``RuleSearch.part``). Here the sample holds only dates with 2-digit months while three dates
    with a 1-digit month lie outside it: the sample's most specific rule,
    ``<digit>{4}-<digit>{2}-<digit>{2}``, rejects them, so the part must be solved in full."""
    rng = random.Random(3)
    items = list(dict.fromkeys(_date(rng) for _ in range(2000)))[:960]
    assert all(re.fullmatch(r"\d{4}-\d{2}-\d{2}", v) for v in items)
    cutoff = sorted(value_hash(v) for v in items)[PART_SAMPLE - 1]
    short = [v for v in (f"20{y}-{m}-{d:02d}" for y in range(10, 25) for m in range(1, 10) for d in range(10, 29))
             if value_hash(v) > cutoff][:3]
    validator = AutoValidator(index, "fmdv-vh")
    # a search as fit makes one (the solver and m resolved), a new one for each part
    sample_only = validator._search().part(sorted(items, key=value_hash)[:PART_SAMPLE], 1, None, FIRST)
    assert sample_only is not None and sample_only.pattern == "<digit>{4}-<digit>{2}-<digit>{2}"
    part = validator._search().part(items + short, 1, None, FIRST)
    assert part is not None
    assert_accepts(part.pattern, items + short, ["2020-01", "2020-01-02-03", "2020/01/02"])


def test_the_part_budget_bounds_the_work_and_makes_no_rule_up(index, monkeypatch):
    """Past MAX_PART_SOLVES part solves a fit stops solving parts: with a budget of 0 a list column
    gets no rule, and a budget of 2 is never exceeded (counted by a spy on the solver of columns)."""
    train = ["[" + ",".join(str(k * 37 % 1000) for k in range(i, i + 3 + i % 6)) + "]" for i in range(60)]
    assert AutoValidator(index, "fmdv-vh").fit(train).rule_.feasible
    monkeypatch.setattr(rule_search, "MAX_PART_SOLVES", 0)
    assert not AutoValidator(index, "fmdv-vh").fit(train).rule_.feasible
    monkeypatch.setattr(rule_search, "MAX_PART_SOLVES", 2)
    built = []
    real = rule_search.QueryColumn.from_values
    monkeypatch.setattr(rule_search.QueryColumn, "from_values", lambda v, *a: built.append(len(v)) or real(v, *a))
    AutoValidator(index, "fmdv-vh").fit(train)
    assert 1 <= len(built) <= 1 + 2  # the column itself, then at most two parts


class _Forgetful(dict):
    """A ``no_rule`` map that never remembers: the search without the shortcut, as an oracle."""

    def __setitem__(self, key, value) -> None:
        pass


class _PlainSearch(RuleSearch):
    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.no_rule = _Forgetful()


def test_a_part_without_a_rule_is_not_searched_again_within_a_smaller_budget(index, monkeypatch):
    """A column with no rule within FPR 0.1 has none within 0.05 either (a smaller budget only
    narrows every search), so the second solve builds no query column (spy on the builder)."""
    search = AutoValidator(index, "fmdv-vh")._search()
    rng = random.Random(4)  # three layouts that align nowhere and share no separator: no rule
    column = Counter(("-", ".", "_")[i % 3].join(_word(rng) for _ in range(2 + i % 3)) for i in range(60))
    built = []
    real = rule_search.QueryColumn.from_values
    monkeypatch.setattr(rule_search.QueryColumn, "from_values", lambda v, *a: built.append(len(v)) or real(v, *a))
    assert search.solve(column, 1, 0.1, FIRST) is None
    first = len(built)
    assert first >= 1
    assert search.solve(column, 1, 0.05, FIRST) is None
    assert len(built) == first
    assert search.solve(column, 1, 0.1, FIRST) is None and len(built) == first  # the same budget: memo


@pytest.mark.parametrize("make", [
    lambda r, i: f"{_date(r)}|" + "/".join(_word(r) for _ in range(3 + i % 4)) + f"|{_code(r)}",
    lambda r, i: "https://" + _word(r) + "." + _word(r, 2, 3) + "/" + "/".join(_word(r) for _ in range(2 + i % 4))
    + f"?{_word(r)}={r.randint(0, 99)}",
    lambda r, i: "\\\\" + _word(r) + "\\" + "\\".join(_word(r) for _ in range(2 + i % 5)) + f"_{i}.csv",
    lambda r, i: "ids=" + "|".join(str(r.randint(0, 999)) for _ in range(3 + i % 6)) + f";{_code(r)}",
])
def test_the_no_rule_shortcut_changes_no_rule(index, make, monkeypatch):
    """The oracle is the same search without the shortcut (``no_rule`` never remembers): for list,
    record, URL-like and path-like columns, feasible or not, both give the same rule and reason."""
    rng = random.Random(11)
    train = [make(rng, i) for i in range(80)]
    fast = AutoValidator(index, "fmdv-vh").fit(train).rule_
    monkeypatch.setattr(infer, "RuleSearch", _PlainSearch)  # what fit makes
    plain = AutoValidator(index, "fmdv-vh").fit(train).rule_
    assert (fast.feasible, fast.pattern, fast.fpr, fast.reason) == (plain.feasible, plain.pattern, plain.fpr,
                                                                    plain.reason)


# ---------------------------------------------------------------------------------------------------
# pattern.py: repetition blocks

TWO_BLOCKS = "<lower>+<rep>/<lower>+</rep>{1,}|<digit>+<rep>,<digit>+</rep>{2}"


def test_two_blocks_with_different_separators_parse_round_trip_and_match():
    """A record of a path field and a list field: one block per separator, so where each ends is
    unambiguous. The regex is written by hand from the documented block semantics."""
    assert format_elements(parse(TWO_BLOCKS)) == TWO_BLOCKS
    assert to_regex(TWO_BLOCKS) == r"^[a-z]+(?:/[a-z]+){1,}\|[0-9]+(?:,[0-9]+){2}$"
    accept = ["a/b|1,2,3", "a/b/c|10,2,3", "abc/de/f/g|0,0,0"]
    reject = ["a|1,2,3", "a/b|1,2", "a/b|1,2,3,4", "a/B|1,2,3", "a/b,1,2,3", "a/b|1/2/3", "a/b|1,2,3|"]
    assert_accepts(TWO_BLOCKS, accept, reject)


def test_two_blocks_with_one_separator_are_refused_even_when_apart():
    """Two "," blocks: where the first ends would be ambiguous, whatever stands between them."""
    with pytest.raises(PatternError):
        parse("<digit>+<rep>,<digit>+</rep>{2}|<digit>+<rep>,<digit>+</rep>{2}")


SKU = "SKU-<digit>+<rep>,SKU-<digit>+</rep>{1,}"


def test_an_item_starting_with_a_constant_uses_the_leading_symbols_as_separator():
    """In <rep>,SKU-<digit>+</rep> the canonical form merges ",SKU-" into one literal; the separator
    is its leading symbols ",", and "SKU-" (no comma) is the item's constant text."""
    elems = parse(SKU)
    assert format_elements(elems) == SKU
    assert [e for e in elems if e.cls is None] == [parse("SKU-")[0], parse(",SKU-")[0]]
    assert to_regex(SKU) == r"^SKU\-[0-9]+(?:,SKU\-[0-9]+){1,}$"
    accept = ["SKU-1,SKU-22", "SKU-1,SKU-2,SKU-3"]
    reject = ["SKU-1", "SKU-1,sku-2", "SKU-1,SKU-", "SKU-1,,SKU-2", "SKU-1;SKU-2", "SKU-1,2"]
    assert_accepts(SKU, accept, reject)
    # ", " (comma and space) is a two-symbol separator, equally taken from the literal's start
    spaced = "SKU-<digit>+<rep>, SKU-<digit>+</rep>{1,}"
    assert format_elements(parse(spaced)) == spaced
    assert matches(spaced, "SKU-1, SKU-2") and not matches(spaced, "SKU-1,SKU-2")


@pytest.mark.parametrize("bad", [
    "<digit>+<rep>-SKU-<digit>+</rep>{2}",  # separator "-" recurs in the item's constant "SKU-"
    "<digit>+<rep>,A,<digit>+</rep>{2}",  # separator "," recurs after the item's letter
    "SKU-<digit>+<rep>SKU-<digit>+</rep>{2}",  # the literal starts with letters: no separator
])
def test_a_separator_taken_from_the_first_literal_must_not_recur(bad):
    """The leading symbols of the first literal are the separator; the rest must not hold them."""
    with pytest.raises(PatternError):
        parse(bad)


# ---------------------------------------------------------------------------------------------------
# hypotheses.py: hex compatibility at one aligned position

_HEX = frozenset("0123456789abcdefABCDEF")


def _part(value: str) -> tuple:
    """(word part, agreed constants, hex flags) of a one-word value, as if it were alone in its group:
    constants are left out (None) so only the class alternatives are compared."""
    a = analyze(value)
    assert len(a.shape) == 1, value
    return (a.shape[0], tuple(None for _ in a.slots), tuple(_HEX.issuperset(s) for s in a.slots))


ALNUM4 = {("<alphanum>{4}", 0, 1), ("<alphanum>+", 0, 1)}
HEX4 = {("<hex>{4}", 0, 1), ("<hex>+", 0, 1)}
DIGIT4 = {("<digit>{4}", 0, 1), ("<digit>+", 0, 1), ("<num>", 0, 1)}


def test_a_hex_word_lends_hex_classes_to_all_digit_words_at_its_position():
    """12ab (hex word) and 1234 (digits only) share only the whole-word classes <alphanum>{4}/+ in
    P(v); as every text there is hex digits and one is a hex word, <hex>{4} and <hex>+ join them."""
    got = column_alternatives([_part("12ab"), _part("1234")], False, 0)
    assert got == frozenset(ALNUM4 | HEX4)


def test_hex_compatibility_with_letters_only_and_different_lengths():
    """cafe (hex letters only) next to 12ab also gets <hex>; with lengths 4 and 3 only <hex>+ (and
    <alphanum>+) remain, as no fixed length fits both."""
    assert column_alternatives([_part("12ab"), _part("cafe")], False, 0) == frozenset(ALNUM4 | HEX4)
    assert column_alternatives([_part("12ab"), _part("123")], False, 0) == frozenset(
        {("<alphanum>+", 0, 1), ("<hex>+", 0, 1)})


def test_a_position_of_digit_words_only_offers_no_hex():
    """Only digits at the position: the digit-word alternatives (the hierarchy of Figure 4), no
    <hex>, and with the value's text agreed, the constant itself (one constant slot)."""
    assert column_alternatives([_part("1234")], False, 0) == frozenset(DIGIT4 | ALNUM4)
    part, _, hexable = _part("1234")
    assert column_alternatives([(part, ("1234",), hexable)], False, 0) == frozenset(
        DIGIT4 | ALNUM4 | {("1234", 1, 1)})


def test_a_non_hex_text_at_the_position_cancels_hex():
    """12xy is not hex digits: next to 12ab the position keeps the shared run classes and whole-word
    <alphanum> classes, and no <hex>."""
    runs = {(d + lo, 0, 1) for d in ("<digit>{2}", "<digit>+")
            for lo in ("<lower>{2}", "<lower>+", "<letter>{2}", "<letter>+")}
    assert column_alternatives([_part("12ab"), _part("12xy")], False, 0) == frozenset(runs | ALNUM4)


def test_symbol_positions_are_literal_or_inconsistent():
    """A shared symbol is its literal; differing symbols, or a symbol against a word, give None."""
    assert column_alternatives([("-", (), ()), ("-", (), ())], False, 0) == frozenset({("-", 0, 1)})
    assert column_alternatives([("-", (), ()), ("/", (), ())], False, 0) is None
    assert column_alternatives([_part("12"), ("-", (), ())], False, 0) is None


def test_hex_compatibility_reaches_the_segment_hypotheses():
    """Through the query column: UUID-like groups where one value's group is digits only still get
    <hex>{4}-<hex>{4} in H, and a column of plain numbers-dash-numbers does not get <hex>."""
    limits = EnumerationLimits()

    def hyps(values: list[str]) -> list[str]:
        col = QueryColumn.from_values(values, limits)
        parts = [(g, 0, len(g.shape)) for g in col.groups]
        return segment_hypotheses(segment_key(parts), limits.max_constants, limits.max_templates)

    values = ["12ab-9f3c", "1234-77e1", "a1b2-0000"]
    mixed = hyps(values)
    assert "<hex>{4}-<hex>{4}" in mixed and "<hex>+-<hex>+" in mixed
    assert [(p, v) for p in mixed for v in values if not re.fullmatch(to_regex(p), v)] == []  # H fits C
    digits = hyps(["1234-5678", "4321-8765"])
    assert "<digit>{4}-<digit>{4}" in digits and not any("<hex>" in p for p in digits)


def test_split_items_results_cannot_be_changed_by_a_caller():
    """Splits are cached and shared between callers, so they come as tuples: a caller cannot edit
    what the next one gets."""
    from lakeindex.fmdv.split import split_items as split

    first = split("a|b|c", "|")
    with pytest.raises(AttributeError):
        first.append("zzz")  # type: ignore[attr-defined]
    with pytest.raises(TypeError):
        first[0] = "changed"  # type: ignore[index]
    assert split("a|b|c", "|") == ("a", "b", "c")


def test_a_composite_rule_stays_within_r(tmp_path):
    """A record's FPR is the sum of its fields' (Eq. 8), and like a vertical segmentation it must
    stay within r even when each field does. Here every lake column has 3 ad-hoc values in 60, so
    each field pattern has FPR 3/60 = 0.05 and the record date|a/b/c|CODE-n sums to 0.15: no rule at
    r = 0.1, the record rule at r = 0.2."""
    rng = random.Random(4)

    def dirty(make) -> list[str]:
        return [make(rng) for _ in range(57)] + ["-", "N/A", "?"]

    cols = [dirty(_word) for _ in range(30)] + [dirty(_date) for _ in range(30)] + [dirty(_code) for _ in range(30)]
    build_from_columns(cols, tmp_path / "ix", min_coverage=2)
    r5 = random.Random(5)
    train = [f"{_date(r5)}|" + "/".join(_word(r5) for _ in range(3 + i % 4)) + f"|{_code(r5)}" for i in range(60)]
    with IndexReader(tmp_path / "ix") as ix:
        assert ix.get("<lower>+").fpr == pytest.approx(0.05)
        assert not AutoValidator(ix, "fmdv-vh", r=0.1).fit(train).rule_.feasible
        rule = AutoValidator(ix, "fmdv-vh", r=0.2).fit(train).rule_
    assert rule.feasible and rule.fpr == pytest.approx(0.15)
    assert [v for v in train if not matches(rule.pattern, v)] == []


def test_segments_of_multi_run_hex_words_find_their_window_evidence(tmp_path):
    """A GUID group such as ``9B1E`` is one word of 4 run tokens, so three groups can exceed tau = 8 as
    whole values, while the index holds them as a window (a window word is one token). The segment
    must be looked up there: every group gets ``<hex>{4}``, not a lone ``<hex>+`` between two windows."""
    rng = random.Random(6)

    def guid(r: random.Random) -> str:
        return "-".join("".join(r.choices("0123456789ABCDEF", k=k)) for k in (8, 4, 4, 4, 12))

    cols = [[guid(rng) for _ in range(60)] for _ in range(30)]
    cols += [["".join(rng.choices("0123456789abcdef", k=rng.randint(6, 12))) for _ in range(60)] for _ in range(10)]
    build_from_columns(cols, tmp_path / "ix", min_coverage=2)
    train = [guid(random.Random(i)) for i in range(100)]
    assert any(len(analyze(g.split("-")[1]).shape[0]) >= 3 for g in train)  # multi-run middle groups
    with IndexReader(tmp_path / "ix") as ix:
        rule = AutoValidator(ix, "fmdv-v").fit(train).rule_
    assert rule.feasible and rule.pattern == "<hex>{8}-<hex>{4}-<hex>{4}-<hex>{4}-<hex>{12}"


def test_separator_tallies_follow_their_definition_on_random_columns():
    """Brute force from the docstring: a single symbol of the list (in its order), then the longest
    value's other symbol runs, kept if values of weight >= (1 - tol) of the total contain it and are
    cut by it at least once; 300 random weighted columns of symbol-rich values."""
    from lakeindex.fmdv import split

    rng = random.Random(12)
    alphabet = "ab1|#,;:_/~\\-.=&@+? "
    for _ in range(300):
        counts = Counter({"".join(rng.choices(alphabet, k=rng.randint(1, 9))): rng.randint(1, 5)
                          for _ in range(rng.randint(1, 12))})
        tol = rng.choice([0.0, 0.1, 0.3])
        need = (1 - tol) * sum(counts.values())

        def weight(holds, counts=counts):
            return sum(n for v, n in counts.items() if holds(v))

        oracle = [c for c in split._SYMBOLS if weight(lambda v, c=c: c in v) >= need]
        for run in re.findall(r"[A-Za-z0-9]+|[^A-Za-z0-9]+", max(counts, key=len)):
            if not run[0].isalnum() and len(run) > 1 and run not in oracle and weight(lambda v, r=run: r in v) >= need:
                oracle.append(run)
        oracle = [c for c in oracle if weight(lambda v, c=c: len(split_items(v, c)) > 1) >= need]
        assert list(separator_tallies(counts, tol)) == oracle, (counts, tol)


def test_at_tau_13_a_query_asks_for_whole_values_only_patterns_the_build_lists(tmp_path):
    """At tau 13 a 9-token value (an address with a port) is enumerated within ``wide_templates`` by the
    build; the query must ask for the same patterns, not the 8,000 of the whole budget, which no index
    would hold. Patterns asked that accept the value whole are checked against the build's P(v)."""
    limits = EnumerationLimits(tau=13)

    def address(r: random.Random) -> str:
        return f"10.{r.randint(0, 255)}.{r.randint(0, 255)}.{r.randint(1, 254)}:{r.choice([80, 443, 8080, 9092])}"

    rng = random.Random(3)
    build_from_columns([[address(rng) for _ in range(40)] for _ in range(6)], tmp_path / "ix", limits=limits)
    value = "10.1.22.3:80"
    asked: list[str] = []
    with IndexReader(tmp_path / "ix") as ix:
        validator = AutoValidator(ix, "fmdv-vh")
        validator._prepare()
        feasible = validator.solver_.feasible

        def spy(patterns: list[str], r: float, m: int) -> list[Candidate]:
            asked.extend(patterns)
            return feasible(patterns, r, m)

        validator.solver_.feasible = spy
        rule = validator.fit([value] * 50).rule_
    whole = {p for p in asked if matches(p, value)}
    listed = value_patterns(value, limits)
    assert len(listed) <= 1024 and whole
    assert whole <= listed, sorted(whole - listed)[:5]
    assert rule.feasible and rule.pattern in listed


def _split_by_runs(value: str, sep: str) -> list[str]:
    """The module docstring's rule, run by run: a symbol run holding ``sep`` once, with none of its
    characters left over, is cut there; word runs (ASCII letters and digits) never are."""
    items, cur = [], ""
    for run in re.findall(r"[A-Za-z0-9]+|[^A-Za-z0-9]+", value):
        at = run.find(sep)
        if not (run[0].isascii() and run[0].isalnum()) and at >= 0 and run.count(sep) == 1 \
                and not set(sep) & set(run[:at] + run[at + len(sep):]):
            items.append(cur + run[:at])
            cur = run[at + len(sep):]
        else:
            cur += run
    return items + [cur]


def test_split_items_follows_the_run_rule_on_random_values():
    """Splitting against the run-by-run rule written out here, on random values over words, separators
    (alone, doubled, inside longer symbol runs) and other symbols, non-ASCII included."""
    from lakeindex.fmdv import split as split_module

    rng = random.Random(12)
    pieces = ["ab", "7", "Zq9", "é", " ", "|", "||", "-", "--", ":", "://", "/", ",", ", ", "\\\\", "\\", "x-y"]
    for _ in range(3000):
        value = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 8)))
        for sep in ("|", "-", "/", ":", ", ", "\\", "é", "||"):
            assert split_module._split(value, sep) == _split_by_runs(value, sep), (value, sep)
