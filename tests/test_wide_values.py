"""Wide values: the template budget, segment windows as evidence, and the weighted caches (no Spark)."""

from __future__ import annotations

import random
import re

import pytest

from lakeindex.caches import WeightedLRU
from lakeindex.patterns import EnumerationLimits, column_patterns, matches
from lakeindex.patterns.enumerate import value_patterns
from lakeindex.patterns.templates import shape_templates, template_count
from lakeindex.patterns.tokens import analyze
from lakeindex.patterns.windows import value_windows, window_parts


def test_shapes_beyond_the_budget_get_a_bounded_subset_of_the_exact_hierarchy():
    value = "9/12/2019 12:01:32 AM"  # Figure 6: 13 tokens, ~300k exact templates
    shape = analyze(value).shape
    exact_n = template_count(shape, 2)
    assert exact_n > 100_000
    free, by_slots = shape_templates(shape, 2, 1024)
    n = len(free) + sum(len(f) for f in by_slots.values())
    assert 0 < n <= 1024
    exact_free = set(shape_templates(shape, 2, exact_n)[0])
    assert set(free) <= exact_free
    # every reduced template accepts the value itself (the regex is the independent oracle)
    assert all(matches(p, value) for p in free)


def test_the_wide_budget_applies_from_9_tokens_up_to_tau():
    """By the documented rule: ``wide_templates`` for 9..tau tokens, ``max_templates`` otherwise
    (at most 8 tokens, or segments wider than tau, which windows index)."""
    lim13 = EnumerationLimits(tau=13)
    assert [lim13.budget(n) for n in (1, 8, 9, 13, 14, 16)] == [8192, 8192, 1024, 1024, 8192, 8192]
    assert [EnumerationLimits().budget(n) for n in (8, 9, 13)] == [8192, 8192, 8192]
    assert EnumerationLimits(tau=13, max_templates=512).budget(9) == 512  # never above the whole budget
    with pytest.raises(ValueError, match="wide_templates"):
        EnumerationLimits(wide_templates=100)


def test_the_build_command_takes_the_wide_budget():
    """``--wide-templates`` reaches the limits the build records; a budget below the smallest level
    (256 templates) is refused with the option's name."""
    import argparse

    from lakeindex.index.build_options import BuildError, add_build_arguments, limits_from_args

    parser = argparse.ArgumentParser()
    add_build_arguments(parser)
    args = parser.parse_args(["lake", "--out", "ix", "--tau", "13", "--wide-templates", "512"])
    assert limits_from_args(args) == EnumerationLimits(tau=13, wide_templates=512)
    args = parser.parse_args(["lake", "--out", "ix", "--window-share", "16", "--window-lead", "0"])
    assert limits_from_args(args) == EnumerationLimits(window_share=16, window_lead=0)
    assert limits_from_args(parser.parse_args(["lake", "--out", "ix"])) == EnumerationLimits()
    with pytest.raises(BuildError, match="wide_templates must be >= 256"):
        limits_from_args(parser.parse_args(["lake", "--out", "ix", "--wide-templates", "100"]))


def test_metadata_without_the_wide_budget_reads_as_built():
    """An index written before ``wide_templates`` existed used ``max_templates`` for every shape."""
    old = {"tau": 13, "max_templates": 4096}
    assert EnumerationLimits.from_dict(old).wide_templates == 4096
    assert EnumerationLimits.from_dict({"tau": 13}).wide_templates == 8192
    assert EnumerationLimits.from_dict({**old, "wide_templates": 512}).wide_templates == 512


def test_metadata_without_window_share_reads_as_built():
    """Before ``window_share`` and ``window_lead``, windows needed the column's own evidence share
    (``min_share``) and none was led by a delimiter; a current build's limits read back unchanged."""
    old = {"min_share": 8, "wide_templates": 1024}
    assert EnumerationLimits.from_dict(old) == EnumerationLimits(min_share=8, window_share=8, window_lead=0)
    assert EnumerationLimits.from_dict({"wide_templates": 1024}) == EnumerationLimits(window_share=16, window_lead=0)
    assert EnumerationLimits.from_dict(EnumerationLimits().to_dict()) == EnumerationLimits()
    assert (EnumerationLimits().window_share, EnumerationLimits().window_lead) == (2, 1)
    with pytest.raises(ValueError, match="window_lead"):
        EnumerationLimits(window_lead=2)


@pytest.mark.parametrize("value", ["192.168.210.159:9092", "anthony.walker@acme-corp.com",
                                   "cust_63222;swright@proton.me"])
def test_values_of_9_tokens_and_more_get_a_bounded_subset_of_their_exact_patterns_at_tau_13(value):
    """Exact P(v) of these values holds 5,000-16,000 patterns; at tau 13 the wide budget keeps at most
    1,024 of them, every one still accepting the value (the regex is the independent oracle)."""
    assert analyze(value).ntokens == 9
    exact = value_patterns(value, EnumerationLimits(tau=13, wide_templates=8192, max_templates=1 << 15))
    assert len(exact) > 5000
    reduced = value_patterns(value, EnumerationLimits(tau=13))
    assert 0 < len(reduced) <= 1024
    assert reduced <= exact
    assert all(matches(p, value) for p in reduced)
    assert value_patterns(value) == set()  # wider than the default tau: not indexed whole at all


def test_every_value_of_up_to_16_tokens_fits_the_smallest_budget():
    rng = random.Random(4)
    for _ in range(30):
        words = [rng.choice(["a1b", "12", "Ab3c", "ff09", "XYZ", "q"]) for _ in range(8)]
        value = "-".join(words)
        a = analyze(value)
        if a.ntokens > 16:
            continue
        free, by_slots = shape_templates(a.shape, 2, 256)
        assert len(free) + sum(len(f) for f in by_slots.values()) <= 256
        assert all(matches(p, value) for p in free)


def test_windows_of_a_value_by_hand():
    # words 11 22 33 44 55 at parts 0,2,4,6,8; windows hold two or three words with their dashes
    wins = value_windows(window_parts("11-22-33-44-55"), tau=5, edge=8)
    starts = {k for k, _ in wins if k[0] == "s"}
    assert starts == {("s", i, i + 1) for i in range(4)} | {("s", i, i + 2) for i in range(3)}
    subs = {k: s for k, s in wins}
    assert subs[("s", 1, 2)] == (("d", 2, True), "-", ("d", 2, True))
    assert subs[("e", 1, 0)] == subs[("s", 3, 4)]  # words 44-55, counted from the end
    assert ("e", 2, 0) in subs and ("e", 3, 0) not in subs  # at most three words
    assert ("e", 0, 0) not in subs  # one word alone is no window
    # tau 3 tokens: two words and their dash only
    assert {k for k, _ in value_windows(window_parts("11-22-33-44-55"), 3, 8)} == \
        {("s", i, i + 1) for i in range(4)} | {("e", i + 1, i) for i in range(4)}
    # edge 1: only windows starting at the first word or ending at the last
    assert {k for k, _ in value_windows(window_parts("11-22-33-44-55"), 5, 1)} == \
        {("s", 0, 1), ("s", 0, 2), ("e", 1, 0), ("e", 2, 0)}


def test_windows_led_by_a_delimiter_by_hand():
    """With ``lead``, the dash before a word leads a window of 1-2 words here (tau 5; the dash is a
    token), keyed by the dash's occurrence among the value's dashes from the start and from the end."""
    wins = value_windows(window_parts("11-22-33-44-55"), tau=5, edge=8, lead=True)
    led = {k for k, _ in wins if k[0] == "S"}
    # dashes 0..3 lead "-22", "-33", "-44", "-55" and, within 5 tokens, "-22-33", "-33-44", "-44-55"
    assert led == {("S", "-", k, 0) for k in range(4)} | {("S", "-", k, 1) for k in range(3)}
    subs = dict(wins)
    assert subs[("S", "-", 0, 0)] == ("-", ("d", 2, True))
    assert subs[("E", "-", 0, 0)] == subs[("S", "-", 3, 0)]  # "-55": the last dash, from either end
    # the windows without a leading delimiter are the same as without ``lead``
    plain = value_windows(window_parts("11-22-33-44-55"), tau=5, edge=8)
    assert [w for w in wins if w[0][0] in "se"] == plain
    assert value_windows(window_parts("ab"), 8, 8, lead=True) == []  # one word, nothing before it
    # occurrences count runs equal to the leading one: "/x" is the first "/" after the "://" run
    url = dict(value_windows(window_parts("https://h.io/x/7"), 8, 8, lead=True))
    assert url[("S", "://", 0, 0)] == ("://", ("l", 1, False))
    assert url[("S", "/", 0, 0)] == ("/", ("l", 1, False)) and url[("S", "/", 1, 0)] == ("/", ("d", 1, True))
    assert url[("E", "/", 0, 0)] == url[("S", "/", 1, 0)]


def _windows_by_definition(value: str, tau: int, edge: int, max_words: int, lead: bool) -> set[tuple]:
    """Brute force over every (first word, last word) pair, from the module docstring's definition."""
    toks = re.findall(r"[A-Za-z0-9]+|[^A-Za-z0-9]+", value)
    words = [i for i, t in enumerate(toks) if t[0].isalnum()]
    nw = len(words)
    out = set()
    for a in range(nw):
        for b in range(a + 1, min(nw, a + max_words)):
            if words[b] - words[a] + 1 <= tau:
                if a < edge:
                    out.add(("s", a, b))
                if nw - 1 - b < edge:
                    out.add(("e", nw - 1 - a, nw - 1 - b))
        if not lead or words[a] == 0:
            continue
        run = toks[words[a] - 1]
        same = [i for i in words if i > 0 and toks[i - 1] == run]
        k, back = same.index(words[a]), len(same) - 1 - same.index(words[a])
        for b in range(a, min(nw, a + max_words)):
            if words[b] - words[a] + 2 <= tau:
                if k < edge:
                    out.add(("S", run, k, b - a))
                if back < edge:
                    out.add(("E", run, back, b - a))
    return out


def test_window_keys_match_their_definition_on_random_values():
    rng = random.Random(5)
    for _ in range(400):
        value = "".join(rng.choice(["ab", "7", "x9", "-", "/", "::", ".", "Q"]) for _ in range(rng.randint(1, 14)))
        tau, edge, lead = rng.choice((3, 5, 8)), rng.choice((1, 2, 8)), rng.random() < 0.5
        got = [k for k, _ in value_windows(window_parts(value), tau, edge, 3, lead)]
        assert len(got) == len(set(got))
        assert set(got) == _windows_by_definition(value, tau, edge, 3, lead), (value, tau, edge, lead)


def test_a_window_pattern_needs_the_window_share_of_the_column():
    """9 of 20 values hold ``<lower>{2}-<digit>{4}`` (words 0-1), 11 ``<lower>{2}-<upper>{4}``: below half,
    the first is no window evidence by default (window_share 2) and is at 1/16."""
    rng = random.Random(4)
    values = ([f"ab-{rng.randint(1000, 9999)}-XY-56-cd-7-q" for _ in range(9)]
              + [f"ab-{''.join(rng.choice('CDEF') for _ in range(4))}-XY-56-cd-7-q" for _ in range(11)])
    assert all(analyze(v).ntokens > 8 for v in values)
    default = column_patterns(values)
    assert "<lower>{2}-<digit>{4}" not in default.counts
    assert default.counts["<lower>{2}-<upper>{4}"] == _window_oracle(values, "<lower>{2}-<upper>{4}", 8) == 11
    loose = column_patterns(values, limits=EnumerationLimits(window_share=16))
    assert loose.counts["<lower>{2}-<digit>{4}"] == _window_oracle(values, "<lower>{2}-<digit>{4}", 8) == 9


@pytest.mark.parametrize("seed", range(6))
def test_window_patterns_of_several_sub_shapes_count_as_brute_force_says(seed):
    """Windows whose values differ in word lengths and kinds (digits of 2-4, letters of 3): a pattern is
    window evidence exactly when brute force finds it in half of the values at one window, with that count."""
    rng = random.Random(seed)

    def word() -> str:
        return rng.choice([str(rng.randint(10, 99)), str(rng.randint(100, 999)), str(rng.randint(1000, 9999)),
                           "".join(rng.choice("klmn") for _ in range(3))])

    values = [f"ab-{word()}-{word()}-x-y-z-w" for _ in range(20)]
    assert len(values) == 20 and all(analyze(v).ntokens > 8 for v in values)
    counts = column_patterns(values).counts
    classes = ["<digit>{2}", "<digit>{3}", "<digit>{4}", "<digit>+", "<lower>{3}", "<lower>+", "<letter>+",
               "<alphanum>{3}", "<alphanum>+"]
    for a in classes:
        for b in classes:
            for pattern in (f"{a}-{b}", f"<lower>{{2}}-{a}-{b}"):
                n = _window_oracle(values, pattern, 8)
                assert counts.get(pattern, 0) == (n if n >= 10 else 0), pattern


def test_paths_give_evidence_for_a_word_after_its_delimiter():
    """Led windows of a column of wide paths: ``/<lower>+`` counts the values whose word after a slash
    is lower case at one position (here every value, at word 0); without ``window_lead`` no such key."""
    rng = random.Random(6)
    values = [f"/{rng.choice(['data', 'raw', 'logs'])}/{rng.randint(1, 99)}/x{rng.randint(1, 9)}/"
              f"{rng.choice(['a', 'bb'])}/part_{rng.randint(1, 9)}" for _ in range(30)]
    assert all(analyze(v).ntokens > 8 for v in values)
    cp = column_patterns(values)
    assert cp.counts["/<lower>+"] == 30 and cp.counts["/<digit>+"] == 30 and cp.counts["/<alphanum>{2}"] == 30
    assert cp.counts["/<digit>+/<alphanum>+"] == 30
    assert "/<alphanum>+" not in cp.counts  # any word after a slash is one: no evidence of anything
    off = column_patterns(values, limits=EnumerationLimits(window_lead=0))
    assert not any(p.startswith("/") for p in off.counts)


def _window_oracle(values: list[str], pattern: str, tau: int) -> int:
    """Brute force: the largest number of values whose words i..j (from the start) match ``pattern``."""
    best = 0
    split = [re.findall(r"[A-Za-z0-9]+|[^A-Za-z0-9]+", v) for v in values]
    width = max(len(s) for s in split)
    for i in range(0, width, 2):
        for j in range(i + 1, width + 1, 2):
            n = sum(1 for s in split if len(s) >= j and matches(pattern, "".join(s[i:j])))
            best = max(best, n)
    return best


def test_segments_of_wide_values_become_evidence():
    rng = random.Random(2)
    # 11 tokens each: too wide for tau = 8 as a whole
    values = [f"AB-{rng.randint(1000, 9999)}-{''.join(rng.choice('XYZ') for _ in range(6))}-{rng.randint(10, 99)}-cd-7"
              for _ in range(40)]
    assert all(analyze(v).ntokens > 8 for v in values)
    off = column_patterns(values, limits=EnumerationLimits(window_edge=0))
    assert off.counts == {} and off.wide == 40
    cp = column_patterns(values)
    assert cp.total == 40 and cp.wide == 40
    for p in ("<digit>{4}-<upper>{6}", "<upper>{6}-<digit>{2}-<lower>{2}", "<digit>+-<lower>+-<digit>{1}"):
        assert cp.counts.get(p, 0) == _window_oracle(values, p, 8) == 40, p
    assert cp.impurity("<digit>{4}-<upper>{6}") == 0.0
    assert "<digit>{4}-<upper>{6}-<digit>{2}-<lower>{2}-<digit>{1}" not in cp.counts  # 9 tokens > tau


def test_values_without_a_windowed_part_count_as_not_matching():
    narrow = ["12-34"] * 20
    wide = ["AB-1234-XY-56-cd-7"] * 20
    cp = column_patterns(narrow + wide)
    # words 1..2 from the start: "34" alone for narrow values, "1234-XY" for wide ones
    assert cp.counts["<digit>{4}-<upper>{2}"] == 20
    assert cp.impurity("<digit>{4}-<upper>{2}") == 0.5


def test_free_text_is_not_cut_into_windows():
    rng = random.Random(1)
    words = "the data lake broke again when upstream changed its format".split()
    values = [" ".join(rng.choice(words) for _ in range(rng.randint(5, 14))) for _ in range(200)]
    cp = column_patterns(values)
    assert not any(p.count("<") >= 2 for p in cp.counts), sorted(cp.counts)[:5]


def test_weighted_cache_is_bounded_by_weight():
    cache = WeightedLRU(100)
    for i in range(50):
        cache.put(i, "x", 30)
        assert cache.weight <= 100
    assert len(cache) == 3 and cache.get(49) == "x" and cache.get(0) is None
    cache.put("huge", "y", 101)  # heavier than the whole cache: not kept
    assert cache.get("huge") is None and cache.weight <= 100


def test_weighted_cache_gets_without_its_lock_while_other_threads_put_and_evict():
    """``get`` takes no lock: an entry evicted by another thread between its lookup and its being marked
    recently used must not fail the get (a plain ``move_to_end`` there raised KeyError in this test).
    Every hit is the value put for its key, and the weight bound holds."""
    import sys
    import threading

    cache = WeightedLRU(20)
    errors: list = []

    def writer(seed: int) -> None:
        for i in range(20000):
            cache.put((seed, i % 5), (seed, i % 5), 1 + i % 7)

    def reader() -> None:
        try:
            for i in range(40000):
                key = (i % 4, i % 5)
                value = cache.get(key)
                if value is not None and value != key:
                    errors.append((key, value))
        except Exception as exc:  # noqa: BLE001 - any failure of get is the finding
            errors.append(repr(exc))

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # switch threads as often as possible
    try:
        threads = [threading.Thread(target=writer, args=(s,)) for s in range(4)]
        threads += [threading.Thread(target=reader) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        sys.setswitchinterval(interval)
    assert errors == []
    assert cache.weight <= 20 and cache.weight == sum(w for _, w in cache._data.values())


def test_window_counts_of_a_capped_column_are_scaled_to_the_whole_column():
    rng = random.Random(3)
    values = [f"{rng.randint(10**7, 10**8 - 1)}-{rng.randint(1000, 9999)}-{rng.randint(1000, 9999)}-x-y"
              for _ in range(600)]
    assert len(set(values)) == 600 and all(analyze(v).ntokens > 8 for v in values)
    # as the build passes them: 300 wide values listed, the other 300 only counted
    cp = column_patterns([], [], wide=300, wide_values=values[:300], wide_weights=[1] * 300)
    assert cp.total == 600
    assert cp.impurity("<digit>{8}-<digit>{4}") == 0.0  # every value has it: an estimate, exact here


def test_queries_look_up_one_word_after_a_delimiter_only_in_indexes_that_cut_such_windows(tmp_path):
    """``SegmentSolver._windowed``: a range too wide for whole values has window evidence when it holds 2-3
    words, or 1 word led by a delimiter if the index was built with ``window_lead``."""
    from lakeindex.fmdv.search import SegmentSolver
    from lakeindex.index.local_build import build_from_columns
    from lakeindex.index.store import IndexReader

    cols = [["/data/12/x3/a/part_7", "/raw/5/y1/bb/part_2"]] * 2
    word, slash = ("w", "L"), ("s", "/")
    for lead in (1, 0):
        build_from_columns(cols, tmp_path / f"ix{lead}", limits=EnumerationLimits(window_lead=lead))
        with IndexReader(tmp_path / f"ix{lead}") as ix:
            solver = SegmentSolver(ix)
            assert solver._windowed((slash, word), 0, 2) is bool(lead)
            assert solver._windowed((word, slash, word), 0, 3) is True
            assert solver._windowed((word,), 0, 1) is False
            assert solver._windowed((slash, word, slash, word, slash, word, slash, word), 0, 8) is False  # 4 words


def test_a_window_led_by_a_delimiter_counts_among_the_values_holding_it():
    """An optional query string: 12 of 20 URLs carry ``?team=<word>``; among them ``?<lower>+`` holds in
    all 12, so its count is all 20 (impurity 0 over the values holding a "?"), ``=<lower>+`` in 9 of 12
    (count 15), ``=<digit>+`` in 3 of 12, below the window share of one half. Held by 9 values in 20
    (below half of them), a "?" gives no evidence."""
    rng = random.Random(8)
    base = [f"https://h{rng.randint(1, 9)}.example.com/a/b/{rng.randint(10, 99)}" for _ in range(20)]
    teams = ["east"] * 9 + ["42"] * 3
    values = [u + f"?team={t}" for u, t in zip(base[:12], teams, strict=True)] + base[12:]
    assert all(analyze(v).ntokens > 8 for v in values)
    cp = column_patterns(values)
    assert cp.counts["?<lower>+"] == 20 and cp.impurity("?<lower>+") == 0.0
    assert cp.counts["=<lower>+"] == 15 and "=<digit>+" not in cp.counts
    rare = column_patterns([u + "?team=east" for u in base[:9]] + base[9:])
    assert not any(p.startswith(("?", "=")) for p in rare.counts)


def test_an_incremental_build_on_an_index_of_other_limits_names_the_options_to_pass(tmp_path):
    """An index built before ``window_share``/``window_lead`` reads as built with 16 and 0; extending it
    with this version's defaults is refused before any Spark work, naming each option and its value."""
    import json

    from lakeindex.index.build import build_index
    from lakeindex.index.build_options import BuildError
    from lakeindex.index.local_build import build_from_columns
    from lakeindex.index.store import current_version

    build_from_columns([["a-1", "b-2"]] * 2, tmp_path / "ix")
    meta_path = tmp_path / "ix" / current_version(tmp_path / "ix") / "meta.json"
    meta = json.loads(meta_path.read_text())
    for knob in ("window_share", "window_lead"):
        del meta["limits"][knob]
    meta_path.write_text(json.dumps(meta))
    with pytest.raises(BuildError) as err:
        build_index(None, "lake", tmp_path / "ix", EnumerationLimits(), incremental=True)
    message = str(err.value)
    assert "window_share is 16 in the index, 2 here: pass --window-share 16" in message
    assert "window_lead is 0 in the index, 1 here: pass --window-lead 0" in message
    assert "tau is" not in message  # equal limits are not listed
