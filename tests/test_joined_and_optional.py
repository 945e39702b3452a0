"""Symbols only some values hold: joined words, optional last fields, delimiters first, the second search.

Covers lakeindex.fmdv.repetition.joined_rule, the optional last field of lakeindex.fmdv.records, the
delimiter ranking of record separators, ``{0,}`` repetition blocks, and AutoValidator's second search
(``RuleSearch.column``), which alone tries the optional field; joined words are tried in both searches
(``RuleSearch.joined``). Expectations are written out by hand from the modules' docstrings; the end-to-end FPRs
come from lakes whose columns hold 3 ad-hoc values in 60.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest

import lakeindex.fmdv.records as records
import lakeindex.fmdv.repetition as repetition
import lakeindex.fmdv.rule_search as rule_search
from lakeindex.fmdv.column import is_structured, signless_skeleton
from lakeindex.fmdv.infer import AutoValidator
from lakeindex.fmdv.records import optional_separators, record_rule, record_separators
from lakeindex.fmdv.repetition import joined_rule, repetition_rule
from lakeindex.fmdv.rule_search import FIRST, SECOND
from lakeindex.fmdv.search import Candidate
from lakeindex.index.local_build import build_from_columns
from lakeindex.index.store import IndexReader
from lakeindex.patterns.pattern import PatternError, example, format_elements, matches, parse, to_regex

# The part solver the rules ask: the first pattern every value of the column matches, with a made-up
# FPR and coverage, None when none fits or its FPR is over the budget.
STUB = [("<digit>+", 0.01, 50), ("<lower>+", 0.02, 40), ("ids=<digit>+", 0.03, 5)]
asked: list[Counter] = []


def stub_solve(column: Counter, budget: float = float("inf")) -> Candidate | None:
    asked.append(Counter(column))
    for pattern, fpr, cov in STUB:
        if all(matches(pattern, v) for v in column):
            return Candidate(pattern, fpr, cov) if fpr <= budget else None
    return None


def accepts(pattern: str, accept: list[str], reject: list[str]) -> None:
    assert [v for v in accept if not matches(pattern, v)] == [], pattern
    assert [v for v in reject if matches(pattern, v)] == [], pattern


# ---------------------------------------------------------------------------------------------------
# {0,}: a block repeated zero or more times


def test_a_block_may_repeat_zero_or_more_times():
    p = "<lower>+<rep>-<lower>+</rep>{0,}"
    assert to_regex(p) == r"^[a-z]+(?:\-[a-z]+){0,}$"
    assert format_elements(parse(p)) == p
    assert example(p) == "a"  # the block zero times
    accepts(p, ["a", "ab-cd", "a-b-c-d"], ["", "-a", "a-", "a--b", "A-b"])
    assert example("<digit>+<rep>,<digit>+</rep>{0,2}") == "0"


@pytest.mark.parametrize("bad", ["<lower>+<rep>-<lower>+</rep>{0}", "<lower>+<rep>-<lower>+</rep>{0,0}"])
def test_a_block_repeated_exactly_zero_times_is_refused(bad):
    with pytest.raises(PatternError):
        parse(bad)


# ---------------------------------------------------------------------------------------------------
# joined words


def test_words_joined_by_a_symbol_some_values_hold_are_one_word_domain():
    """Folders ``finance-reports`` among ``config``: the words of every value, each with its value's
    count, are one column (finance 2, reports 2, config 3, raw 1), and the rule charges the word
    pattern once; no value joins more than two words, so the second is an optional block."""
    asked.clear()
    values = Counter({"finance-reports": 2, "config": 3, "raw": 1})
    cand = joined_rule(values, stub_solve)
    assert asked == [Counter({"finance": 2, "reports": 2, "config": 3, "raw": 1})]
    assert cand == Candidate("<lower>+<opt>-<lower>+</opt>", 0.02, 40)
    accepts(cand.pattern, ["a", "ab-cd"], ["a-b-c", "a-", "-a", "a_b", "a--b"])


def test_three_joined_words_or_more_repeat_the_block():
    cand = joined_rule(["a-b-c", "de", "f-g"], stub_solve)
    assert cand == Candidate("<lower>+<rep>-<lower>+</rep>{0,}", 0.02, 40)
    accepts(cand.pattern, ["x", "x-y", "x-y-z-w"], ["x-", "x--y", "x-1"])


@pytest.mark.parametrize("values", [
    ["a-b", "c-d", "e-f"],  # every value holds the symbol: a list or a record, not joined words
    ["a-b:c", "d", "e"],  # ":" joins no words: "b:c" is no word at "-"
    ["a/b-c", "d/e", "f/g"],  # every value holds "/": a record, whose fields may be joined words
    ["1.5", "2", "3.25", "a.b"],  # mostly numbers joined by ".": number syntax (2 pieces of 7 lettered)
    ["-a", "b", "c"],  # an empty word before the symbol
    ["a", "b", "c"],  # no symbol
])
def test_joined_words_need_words_between_a_symbol_only_some_values_hold(values):
    assert joined_rule(values, stub_solve) is None


def test_a_symbol_held_by_fewer_than_the_join_share_is_not_tried():
    """19 words and one joined pair: the symbol is in 5% of the values, the share's floor (tried);
    with 39 words, 2.5% (not tried)."""
    assert repetition.JOIN_SHARE == 0.05
    assert joined_rule(["ab"] * 19 + ["cd-ef"], stub_solve) is not None
    assert joined_rule(["ab"] * 39 + ["cd-ef"], stub_solve) is None


def test_joined_words_stay_within_the_budget():
    assert joined_rule(["a-b", "c"], stub_solve, budget=0.02) is not None
    assert joined_rule(["a-b", "c"], stub_solve, budget=0.01) is None  # <lower>+ costs 0.02


def test_the_winning_words_are_refined_once():
    """``refine`` solves the winner's words again (the caller narrows them): its pattern replaces the
    word's; where it finds none, the rule found stands; it is asked once, for the winner only."""
    refined: list[Counter] = []

    def refine(words: Counter) -> Candidate | None:
        refined.append(Counter(words))
        return Candidate("<lower>{2}", 0.04, 7) if all(len(w) == 2 for w in words) else None

    two = Candidate("<lower>{2}<opt>-<lower>{2}</opt>", 0.04, 7)
    assert joined_rule(["ab-cd", "ef"], stub_solve, refine=refine) == two
    assert refined == [Counter({"ab": 1, "cd": 1, "ef": 1})]
    plain = Candidate("<lower>+<opt>-<lower>+</opt>", 0.02, 40)
    assert joined_rule(["ab-cde", "ef"], stub_solve, refine=refine) == plain


def test_a_list_rule_is_not_joined_words():
    assert repetition_rule(["finance-reports", "config", "raw"], stub_solve) is None


def test_the_symbols_that_join_words_exclude_delimiters():
    assert repetition.JOINERS == "-_.+ &"
    assert joined_rule(["a|b", "c", "d"], stub_solve) is None  # "|" delimits fields
    asked.clear()
    assert joined_rule(["navy blue", "red", "space gray"], stub_solve) == Candidate(
        "<lower>+<opt> <lower>+</opt>", 0.02, 40)
    assert asked == [Counter({"navy": 1, "blue": 1, "red": 1, "space": 1, "gray": 1})]


def test_a_query_string_cut_at_equals_has_values_joined_to_the_next_key():
    """``page=2`` and ``ref=x&utm=y``: ``=`` is in every value, so they are no joined words (a list or a
    record); cut at ``=``, the items ``page``, ``2``, ``ref``, ``x&utm``, ``y`` are words joined at ``&``
    (a value, then the next key), one item domain whatever the number of pairs."""
    assert joined_rule(["page=2", "ref=x&utm=y"], stub_solve) is None
    asked.clear()
    items = Counter({"page": 1, "two": 1, "ref": 1, "x&utm": 1, "y": 1})
    assert joined_rule(items, stub_solve) == Candidate("<lower>+<opt>&<lower>+</opt>", 0.02, 40)
    assert asked == [Counter({"page": 1, "two": 1, "ref": 1, "x": 1, "utm": 1, "y": 1})]


def test_values_that_are_no_joined_words_are_cut_within_the_tolerance():
    """An enum with one ad-hoc ``-`` in 10: cut at tol 0.1, which the horizontal cut allows at the top."""
    values = ["web_portal"] * 3 + ["crm"] * 6 + ["-"]
    assert joined_rule(values, stub_solve, tol=0.1) == Candidate("<lower>+<opt>_<lower>+</opt>", 0.02, 40)
    assert joined_rule(values, stub_solve, tol=0.05) is None


def test_words_may_be_joined_words_of_another_symbol():
    """A MIME subtype: words joined by ``.``, some of them by ``-``. The word column is solved as a
    column, so it may be joined words itself. Cut at ``-`` first (held by 2 of 3), the words
    ``vnd.openxmlformats`` are an optional block, which cannot sit in another (blocks do not nest); cut at
    ``.``, ``openxmlformats-officedocument`` is a word of the optional-block kind, inside a repetition."""
    def solve(column: Counter, budget: float = float("inf")) -> Candidate | None:
        return joined_rule(column, stub_solve, budget) or stub_solve(column, budget)

    values = ["vnd.openxmlformats-officedocument.sheet", "json", "octet-stream"]
    cand = joined_rule(values, solve)
    assert cand == Candidate("<lower>+<opt>-<lower>+</opt><rep>.<lower>+<opt>-<lower>+</opt></rep>{0,}", 0.02, 40)
    accepts(cand.pattern, values + ["a.b-c.d", "x-y"], ["a-b-c", "a..b", "a.-b", "a.b."])


# ---------------------------------------------------------------------------------------------------
# optional last field

URLS = ["ab?ids=1", "cd?ids=22", "ef", "gh"]


def test_a_last_field_only_some_values_hold_is_optional():
    """``?`` cuts half the values once and the rest nowhere: the first field is solved over all four
    values, the second over the two that hold it, and the FPRs add up (0.02 + 0.03)."""
    assert record_separators(URLS) == []  # no symbol cuts every value: no plain record
    # at "=" the values without it ("ef": a word) look nothing like the first fields of those with it
    # ("ab?ids": a word, "?", a word), see the next tests
    assert optional_separators(URLS) == ["?"]
    asked.clear()
    cand = record_rule(URLS, stub_solve, optional=True)
    # the fields, fewest distinct values first
    assert asked == [Counter({"ids=1": 1, "ids=22": 1}), Counter({"ab": 1, "cd": 1, "ef": 1, "gh": 1})]
    assert cand == Candidate("<lower>+<opt>?ids=<digit>+</opt>", 0.05, 5)
    accepts(cand.pattern, ["x", "x?ids=7"], ["x?", "x?ids=", "?ids=1", "x?ids=1?ids=2", "x?id=1"])
    assert record_rule(URLS, stub_solve) is None  # only when asked


def test_the_values_without_the_field_must_be_more_than_ad_hoc_values():
    """One value in 20 without the field (5%) is below OPTIONAL_SHARE (10%): an ad-hoc value such as
    ``none``, not a record without its last field. Two in 20 (10%) qualify, unless the tolerance (a
    horizontal cut's theta) is larger."""
    assert records.OPTIONAL_SHARE == 0.1
    assert optional_separators(["ab?ids=1"] * 19 + ["none"]) == []
    assert optional_separators(["ab?ids=1"] * 18 + ["none", "x"]) == ["?"]
    assert optional_separators(["ab?ids=1"] * 18 + ["none", "x"], tol=0.15) == []
    # and the values with it must be a tenth too; a symbol cutting a value twice is no optional field
    assert optional_separators(["ab"] * 19 + ["cd?ids=1"]) == []
    assert optional_separators(["a?b?c", "d", "e?f", "g"]) == []


def test_the_values_without_the_field_must_look_like_the_first_field_of_those_with_it():
    """``okhttp/4.12`` among ``Mozilla/5.0 (X11, Linux)``: the values without a comma are other
    things, not user agents without their last field (their skeletons, ``w/w.w`` against ``w/w.w (w``,
    share nothing); URLs without their query string are URLs (``w/w`` on both sides)."""
    agents = ["okhttp/4.12", "curl/8.1"] * 3 + ["Mozilla/5.0 (X11, Linux)", "Mozilla/5.0 (Mac, Intel)"] * 3
    assert optional_separators(agents) == []
    assert optional_separators(["ab/cd?x=1", "ef/gh?y=22", "ab/ef", "cd/ab"]) == ["?"]


# ---------------------------------------------------------------------------------------------------
# delimiters first


def test_record_separators_are_tried_delimiters_first():
    """``|`` cuts each value twice, ``/`` twice, ``.`` once, and ``|/`` (a run of the longest value) once.
    Rarest first alone gave ``|/``, ``.``, ``/``: the record was never cut at ``|``."""
    values = ["1.5|/a/b|x", "2.25|/c/d|y"]
    assert record_separators(values) == [("|", 2), ("|/", 1), (".", 1)]
    assert record_separators(["a::b::c", "d::e::f"]) == [("::", 2)]  # a run of one symbol is a delimiter
    assert record_separators(["2024-01-02|ABC-12|ok", "2023-11-30|XY-7|fail"]) == [("|", 2), ("-", 3)]


# ---------------------------------------------------------------------------------------------------
# End to end: the second search


def _word(rng: random.Random) -> str:
    return "".join(rng.choices("abcdefghijklmnop", k=rng.randint(2, 7)))


@pytest.fixture(scope="module")
def index(tmp_path_factory):
    """Columns of lower-case words and of numbers, each with 3 ad-hoc values in 60, so ``<lower>+`` and
    ``<digit>+`` have FPR 3/60 = 0.05; no column holds a hyphen."""
    rng = random.Random(4)
    cols = [[_word(rng) for _ in range(57)] + ["-", "N/A", "?"] for _ in range(30)]
    cols += [[str(rng.randint(0, 99999)) for _ in range(57)] + ["-", "N/A", "?"] for _ in range(30)]
    path = tmp_path_factory.mktemp("joined") / "ix"
    build_from_columns(cols, path, min_coverage=2)
    with IndexReader(path) as ix:
        assert ix.get("<lower>+").fpr == pytest.approx(0.05)
        yield ix


def _paths(seed: int, n: int = 60) -> list[str]:
    """3 to 5 folders, every third of them two words joined by a hyphen."""
    rng = random.Random(seed)
    out = []
    for i in range(n):
        folders = [_word(rng) + (f"-{_word(rng)}" if (i + k) % 3 == 0 else "") for k in range(3 + i % 3)]
        out.append("/".join(folders))
    return out


def test_paths_of_joined_folders_get_a_rule_from_joined_words(index, monkeypatch):
    """Vertical cuts can only cut the folders into ``<opt><lower>+-</opt><lower>+`` (0.05 + 0.05), over
    r = 0.08; as joined words, the folders cost the word domain once, 0.05. 60 paths of 3 to 5 folders are
    too few for their shortest to bound the count: two folders at least, {1,}."""
    train = _paths(1)
    rule = AutoValidator(index, "fmdv-vh", r=0.08).fit(train).rule_
    assert rule.feasible, rule.reason
    assert rule.pattern == "<lower>+<opt>-<lower>+</opt><rep>/<lower>+<opt>-<lower>+</opt></rep>{1,}"
    assert rule.fpr == pytest.approx(0.05)
    accepts(rule.pattern, [*_paths(2), "ab/cd"],
            ["ab", "ab/Cd/ef", "ab/c--d/ef", "ab/-cd/ef", "ab/c-d-e/f", "ab//cd/ef"])
    monkeypatch.setattr(rule_search, "joined_rule", lambda *a, **k: None)
    assert not AutoValidator(index, "fmdv-vh", r=0.08).fit(train).rule_.feasible


def test_a_column_the_first_search_solves_never_reaches_the_second(index, monkeypatch):
    """Lists of numbers have a rule in the first search: the optional field is not even tried (a spy
    that fails), so every rule found before stands as it was (60 lists, too few for their shortest to
    bound the count: {1,})."""
    def never(*args, **kwargs):
        raise AssertionError("the second search ran")

    monkeypatch.setattr(records, "optional_separators", never)
    rng = random.Random(3)
    train = ["|".join(str(rng.randint(0, 999)) for _ in range(3 + i % 5)) for i in range(60)]
    rule = AutoValidator(index, "fmdv-vh").fit(train).rule_
    assert rule.feasible and rule.pattern == "<digit>+<rep>|<digit>+</rep>{1,}"


def test_free_text_gets_no_second_search(index, monkeypatch):
    """Sentences (more structures than the 64 most common can hold to 1 - theta, signs folded) have no
    rule after the first search, and the second is not tried at all (it cost 5 ms per free-text column
    of the 20k-column bench lake and found nothing there)."""
    def never(*args, **kwargs):
        raise AssertionError("the second search ran")

    monkeypatch.setattr(records, "optional_separators", never)
    rng = random.Random(6)
    text = ["".join(_word(rng) + rng.choice([" ", " ", ", ", "; ", "-"]) for _ in range(3 + i % 6)) + _word(rng)
            for i in range(200)]
    assert not is_structured(text, 0.9, structure=signless_skeleton)
    assert not AutoValidator(index, "fmdv-vh").fit(text).rule_.feasible


def test_the_second_search_leaves_parts_unnarrowed(tmp_path):
    """Lower-case words (3 ad-hoc values in 60: ``<lower>+`` and ``<alphanum>+`` FPR 0.05 there) and
    words mixing letters and digits (``<alphanum>+`` pure) make ``<alphanum>+`` 0.025 and ``<lower>+``
    0.05 (checked). A part of 10 lower-case words within 0.06 is narrowed to ``<lower>+`` (0.05, within
    the band) by the first search, and left at ``<alphanum>+`` (0.025) by the second, which keeps the
    rest for the other parts; a whole column is narrowed in both."""
    rng = random.Random(9)

    def mixed(r: random.Random) -> str:
        return "".join(r.choice("abcdef") + r.choice("0123456789") for _ in range(r.randint(2, 4)))

    cols = [[_word(rng) for _ in range(57)] + ["-", "N/A", "?"] for _ in range(30)]
    cols += [[mixed(rng) for _ in range(60)] for _ in range(30)]
    build_from_columns(cols, tmp_path / "ix", min_coverage=2)
    words = Counter({_word(rng): 3 for _ in range(10)})
    with IndexReader(tmp_path / "ix") as ix:
        assert ix.get("<alphanum>+").fpr == pytest.approx(0.025)
        assert ix.get("<lower>+").fpr == pytest.approx(0.05)
        search = AutoValidator(ix, "fmdv-vh", r=0.06)._search()
        first = search.solve(words, 1, 0.06, FIRST)
        second = search.solve(words, 1, 0.06, SECOND)
        top = search.solve(words, 0, 0.06, SECOND)
    assert (first.pattern, first.fpr) == ("<lower>+", pytest.approx(0.05))
    assert (second.pattern, second.fpr) == ("<alphanum>+", pytest.approx(0.025))
    assert top.pattern == "<lower>+"


@pytest.fixture(scope="module")
def mixed_index(tmp_path_factory):
    """Lower-case words with 3 ad-hoc values in 60 and words mixing letters and digits (pure), so
    ``<alphanum>+`` has FPR 0.025 and ``<lower>+`` 0.05; no column holds a symbol."""
    rng = random.Random(9)

    def mixed(r: random.Random) -> str:
        return "".join(r.choice("abcdef") + r.choice("0123456789") for _ in range(r.randint(2, 4)))

    cols = [[_word(rng) for _ in range(57)] + ["-", "N/A", "?"] for _ in range(30)]
    cols += [[mixed(rng) for _ in range(60)] for _ in range(30)]
    path = tmp_path_factory.mktemp("mixed") / "ix"
    build_from_columns(cols, path, min_coverage=2)
    with IndexReader(path) as ix:
        assert ix.get("<alphanum>+").fpr == pytest.approx(0.025)
        assert ix.get("<lower>+").fpr == pytest.approx(0.05)
        yield ix


ENUM = ["web_portal", "crm", "mobile_app", "erp", "retail_store", "partner", "phone", "email"]


def test_an_enum_of_joined_words_beats_vertical_cuts_in_the_first_search(mixed_index, monkeypatch):
    """Vertical cuts charge two segments, ``<opt><lower>+_</opt><lower>+`` (0.05 each: 0.1); joined
    words charge the word domain once, ``<alphanum>+`` 0.025, which beats 0.1 before narrowing and then
    narrows within the band to ``<lower>+`` (0.05 <= 0.025 + 0.05). The second search is never reached
    (a spy on the optional field)."""
    def never(*args, **kwargs):
        raise AssertionError("the second search ran")

    rng = random.Random(5)
    train = [rng.choice(ENUM) for _ in range(60)] + ["-"]  # one ad-hoc value: cut at the top
    monkeypatch.setattr(records, "optional_separators", never)
    rule = AutoValidator(mixed_index, "fmdv-vh").fit(train).rule_
    assert (rule.pattern, rule.fpr) == ("<lower>+<opt>_<lower>+</opt>", pytest.approx(0.05))
    assert rule.train_nonconforming == 1
    monkeypatch.setattr(rule_search, "joined_rule", lambda *a, **k: None)
    rule = AutoValidator(mixed_index, "fmdv-vh").fit(train).rule_
    assert (rule.pattern, rule.fpr) == ("<opt><lower>+_</opt><lower>+", pytest.approx(0.1))


def test_a_record_field_of_nested_joined_words_gets_a_rule(mixed_index, monkeypatch):
    """MIME types: a record at ``/`` (every value holds it, so the whole value is no joined words), whose
    subtype is words joined by ``.``, some of them by ``-``. In the first search both fields narrow to
    ``<lower>+`` (0.05 each), 0.1 in all, within r. Without joined words the subtypes have no rule."""
    rng = random.Random(6)
    mime = ["application/octet-stream", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
            "text/html", "image/png", "application/json", "application/vnd.ms-excel"]
    train = [rng.choice(mime) for _ in range(60)]
    rule = AutoValidator(mixed_index, "fmdv-vh").fit(train).rule_
    assert rule.pattern == "<lower>+/<lower>+<opt>-<lower>+</opt><rep>.<lower>+<opt>-<lower>+</opt></rep>{0,}"
    assert rule.fpr == pytest.approx(0.1)
    accepts(rule.pattern, mime + ["video/x-matroska", "font/woff.two"],
            ["text", "text/html/x", "Text/html", "a/b..c", "video/mp4"])
    monkeypatch.setattr(rule_search, "joined_rule", lambda *a, **k: None)
    assert not AutoValidator(mixed_index, "fmdv-vh").fit(train).rule_.feasible
