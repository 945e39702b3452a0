"""Pattern subsumption (lakeindex.patterns.pattern.subsumes) and the narrowing band of
lakeindex.fmdv.search.choose.

``subsumes`` is checked against the regex semantics itself: over every string of up to 3 characters
from a small alphabet that holds each class's edge cases (a digit, hex and non-hex letters of both
cases, a dot), whenever ``subsumes(g, s)`` says yes, every string ``s`` matches must match ``g``.
The pairs that must be recognised are written out from the class definitions of
lakeindex.patterns.hierarchy. The band's choices are worked out by hand from the module docstring.
"""

from __future__ import annotations

import itertools
import random
from pathlib import Path

import pytest

from lakeindex.fmdv.infer import AutoValidator
from lakeindex.fmdv.search import Candidate, SegmentSolver, choose
from lakeindex.index.local_build import build_from_columns
from lakeindex.index.store import IndexReader, PatternStats
from lakeindex.patterns.pattern import matches, subsumes

CLASSES = ["<digit>+", "<digit>{2}", "<upper>+", "<upper>{2}", "<lower>+", "<lower>{1}", "<letter>+",
           "<letter>{2}", "<hex>+", "<hex>{2}", "<alphanum>+", "<alphanum>{2}", "<num>", "<all>"]
ALPHABET = "05afzAFZ.-"
STRINGS = ["".join(t) for n in range(1, 4) for t in itertools.product(ALPHABET, repeat=n)]


@pytest.mark.parametrize("specific", CLASSES + ["<upper>+-<digit>{2}", "<opt>-</opt><digit>+"])
def test_a_pattern_said_to_be_inside_another_never_matches_a_string_the_other_rejects(specific):
    generals = CLASSES + ["<alphanum>+-<digit>+", "<letter>+-<num>", "<opt>-</opt><num>", "<opt>-</opt><alphanum>+"]
    inside = [s for s in STRINGS if matches(specific, s)]
    for general in generals:
        if subsumes(general, specific):
            assert all(matches(general, s) for s in inside), (general, specific)


@pytest.mark.parametrize("general,specific,expected", [
    ("<alphanum>+", "<upper>+", True),
    ("<letter>+", "<upper>{6}", True),
    ("<upper>+", "<upper>{6}", True),
    ("<num>", "<digit>+", True),
    ("<hex>+", "<digit>{4}", True),
    ("<alphanum>+-<digit>+", "<upper>+-<digit>{3}", True),
    ("<opt>-</opt><alphanum>+", "<opt>-</opt><digit>+", True),
    ("<alphanum>+", "<num>", False),  # "1.5" has a dot
    ("<digit>+", "<num>", False),
    ("<upper>{6}", "<upper>+", False),
    ("<hex>+", "<lower>+", False),  # "z" is no hex digit
    ("<upper>+", "<letter>+", False),
    ("<alphanum>+-<digit>+", "<upper>+_<digit>{3}", False),  # another literal
    ("<alphanum>+", "<alphanum>+-<digit>+", False),  # other element counts: not decided, so no
])
def test_subsumption_of_hand_picked_pairs(general, specific, expected):
    assert subsumes(general, specific) is expected


ALNUM = Candidate("<alphanum>+", 0.041, 6216)
UPPER = Candidate("<upper>+", 0.054, 1321)
LETTER = Candidate("<letter>+", 0.095, 2808)


def test_the_band_narrows_the_choice_to_a_pattern_inside_it():
    """<alphanum>+ has the lowest FPR; <upper>+ lies inside it, 0.013 higher (within the 0.05 band):
    chosen. <letter>+ is inside too but 0.054 higher. With the band off, the lowest FPR stands."""
    assert choose([ALNUM, UPPER, LETTER], 0.005) == UPPER
    assert choose([ALNUM, UPPER, LETTER], 0.005, narrow=0.0) == ALNUM
    assert choose([ALNUM, LETTER], 0.005) == ALNUM


def test_the_band_never_picks_a_pattern_that_accepts_what_the_choice_rejects():
    """<num> is 0.0018 above <alphanum>+ and more specific by coverage, but accepts "1.5", which
    <alphanum>+ rejects: not inside, so not chosen (a plain band would pick it)."""
    low = Candidate("<alphanum>+", 0.0302, 170)
    num = Candidate("<num>", 0.0428, 120)
    assert choose([low, num], 0.005) == low
    assert choose([low, num], 0.02, narrow=0.0) == num  # what a plain band of 0.02 does


class _Solver:
    """What ``vertical._narrow`` asks of a solver: its band and each segment's candidates."""

    narrow_slack = 0.02

    def __init__(self, cands: dict[tuple[int, int], list[Candidate]]) -> None:
        self.cands = cands

    def column_candidates(self, al, s, e, r, m):
        return self.cands[(s, e)], None


def test_a_segmentation_narrows_left_to_right_within_what_r_leaves():
    """Two <alphanum>+ segments (0.041 each) around a literal sum to 0.082 under r = 0.1, leaving
    0.018. Narrowing the first to <upper>+ costs 0.013 (left: 0.005); the second would cost 0.013
    too, more than is left, so it stays: the rule's FPR is 0.095, still within r."""
    from lakeindex.fmdv.vertical import _narrow

    dash = Candidate("-", 0.0, 0, literal=True)
    solver = _Solver({(0, 1): [ALNUM, UPPER, LETTER], (1, 2): [dash], (2, 3): [ALNUM, UPPER]})
    segs = [(0, 1, ALNUM, None), (1, 2, dash, None), (2, 3, ALNUM, None)]
    out = _narrow(segs, None, solver, 0.1, 1)
    assert [c for _, _, c, _ in out] == [UPPER, dash, ALNUM]
    assert sum(c.fpr for _, _, c, _ in out) <= 0.1
    solver.narrow_slack = 0.0
    assert [c for _, _, c, _ in _narrow(segs, None, solver, 0.1, 1)] == [ALNUM, dash, ALNUM]


def test_within_the_band_a_pattern_inside_another_wins_whatever_the_coverage():
    """Eq. 5's tie-break: <digit>+/<num>/<digit>{4} has the lowest FPR (0.0017) and the smaller coverage,
    but <digit>+/<digit>+/<digit>{4} (0.0062, within the 0.005 band) lies inside it, so it is the more
    specific rule; outside the band (0.0070) the lowest FPR stands."""
    loose = Candidate("<digit>+/<num>/<digit>{4}", 0.0017, 194)
    tight = Candidate("<digit>+/<digit>+/<digit>{4}", 0.0062, 780)
    assert choose([loose, tight], 0.005, narrow=0.0) == tight
    assert choose([tight, loose], 0.005, narrow=0.0) == tight
    far = Candidate("<digit>+/<digit>+/<digit>{4}", 0.0070, 780)
    assert choose([loose, far], 0.005, narrow=0.0) == loose


def _dotted(rng: random.Random) -> str:
    return f"{rng.choice(['Page', 'View'])}.{rng.choice(['Home', 'Shop', 'Account'])}.{rng.choice(WORDS)}"


WORDS = ["sports", "news", "weather", "games", "music", "video", "about", "help"]


def _lake(tmp_path, digit_share: float) -> Path:
    """Ten word columns, ``digit_share`` of whose values end in digits (``news12``), and four columns of
    dotted names whose last words are letters only: the dotted columns cannot tell <lower>+ from
    <alphanum>+ there, the word columns can."""
    rng = random.Random(3)
    cols = []
    for _ in range(10):
        cols.append([rng.choice(WORDS) + (str(rng.randint(1, 99)) if i < 60 * digit_share else "") for i in range(60)])
    cols += [[_dotted(rng) for _ in range(60)] for _ in range(4)]
    path = tmp_path / "ix"
    build_from_columns(cols, path, min_coverage=2)
    return path


@pytest.mark.parametrize("digit_share,last_accepts_digits", [(0.25, True), (0.0, False)])
def test_a_word_class_the_lake_shows_broken_by_digits_is_not_guessed_from_the_sample(
        tmp_path, digit_share, last_accepts_digits):
    """In the lake's word columns a quarter of the values carry digits: by hand, FPR_T(<lower>+) = 0.25
    and FPR_T(<alphanum>+) = 0, so a dotted name's last word, which the dotted columns show only as letters,
    gets <alphanum>+ and a clean ``Page.Home.apps4kids`` passes. With pure word columns both FPRs are 0
    and the most specific class stands."""
    with IndexReader(_lake(tmp_path, digit_share)) as ix:
        solver = SegmentSolver(ix)
        assert solver.classes_hold("<alphanum>+", "<lower>+") is not last_accepts_digits
        train = [_dotted(random.Random(i)) for i in range(40)]
        rule = AutoValidator(solver, "fmdv-vh").fit(train).rule_
    assert rule.feasible, rule.reason
    assert all(matches(rule.pattern, v) for v in train)
    assert matches(rule.pattern, "Page.Home.apps4kids") is last_accepts_digits
    assert not matches(rule.pattern, "Page.Home.apps-kids")


class _Lake(SegmentSolver):
    """A solver over hand-set index statistics (pattern -> FPR, coverage), the FPR band 0.005."""

    def __init__(self, stats: dict[str, tuple[float, int]]) -> None:
        self.fpr_slack = 0.005
        self.stats = stats
        self._safe_classes = {}

    def lookup(self, patterns):
        return [PatternStats(p, *self.stats[p], 0) if p in self.stats else None for p in patterns]


LED = [Candidate(".<lower>+", 0.0016, 276), Candidate("/<digit>+", 0.007, 305)]


def test_a_led_word_of_a_letter_class_the_lake_shows_less_safe_is_written_alphanumeric():
    """The build never counts ``.<alphanum>+``: where whole columns give <lower>+ FPR 0.10 against 0.041
    for <alphanum>+ (over the 0.005 band), ``.<lower>+`` is written ``.<alphanum>+`` at its own FPR;
    ``/<digit>+`` is no letter class and stays. At 0.044 (within the band) <lower>+ stands, and where the
    index holds ``.<alphanum>+`` itself, only equal evidence could drop the narrower one."""
    whole = {"<lower>+": (0.10, 107), "<alphanum>+": (0.041, 836), "<digit>+": (0.017, 382)}
    assert _Lake(whole)._evidenced(LED) == [Candidate(".<alphanum>+", 0.0016, 276), LED[1]]
    assert _Lake({**whole, "<lower>+": (0.044, 107)})._evidenced(LED) == LED
    assert _Lake({**whole, ".<alphanum>+": (0.0, 400)})._evidenced(LED) == LED


def test_equal_evidence_drops_a_narrower_letter_class_only_where_the_lake_shows_it_less_safe():
    """Same columns (coverage 72, equal FPR): <lower>+ and <letter>+ at the end are dropped for
    <alphanum>+ when whole columns give 0.087 and 0.095 against 0.041; a candidate of other coverage
    (the index tells it apart) is kept whatever its class."""
    whole = {"<lower>+": (0.087, 842), "<letter>+": (0.095, 2808), "<alphanum>+": (0.041, 6216)}
    tied = [Candidate(f"<letter>+.<alphanum>{{4}}.{c}", 0.0061, 72) for c in ("<alphanum>+", "<letter>+", "<lower>+")]
    other = Candidate("<letter>+.<letter>+.<lower>+", 0.0355, 274)
    assert _Lake(whole)._evidenced([*tied, other]) == [tied[0], other]
    pure = {"<lower>+": (0.03, 842), "<letter>+": (0.03, 2808), "<alphanum>+": (0.041, 6216)}
    assert _Lake(pure)._evidenced([*tied, other]) == [*tied, other]
