"""Pattern counting (lakeindex.patterns.counting): the pruned prefix walk and the per-shape sums.

Both functions must return exactly P(D) restricted to the patterns matched by at least the floor
(the constant floor for patterns holding constants), with count_D(p) the summed weight of the values
whose P(v) holds p. The oracle below enumerates P(v) for every distinct value and sums weights,
then applies the floors as documented in the module and in :mod:`lakeindex.patterns.enumerate`.
"""

from __future__ import annotations

import random
import re
from collections import Counter

import pytest

from lakeindex.patterns.counting import count_patterns, sum_counts
from lakeindex.patterns.enumerate import EnumerationLimits, value_patterns
from lakeindex.patterns.pattern import matches, parse
from lakeindex.patterns.templates import HierarchyOptions, shape_templates, shape_tokens
from lakeindex.patterns.tokens import analyze

_ALNUM = re.compile("[A-Za-z0-9]")


def _groups(weighted: dict[str, int], limits: EnumerationLimits) -> dict[tuple, list]:
    """``shape -> [(slot texts, weight)]`` as the index build groups a column (values within tau)."""
    groups: dict[tuple, list] = {}
    for v, w in weighted.items():
        a = analyze(v, limits.max_subruns)
        assert a.shape and a.ntokens <= limits.tau, v  # generators below stay within tau
        groups.setdefault(a.shape, []).append((a.slots, w))
    return groups


def _has_constant(pattern: str) -> bool:
    """A constant is a slot's own text (letters/digits); symbol runs are the only other literals, so a
    pattern holds a constant exactly when one of its literal elements holds a letter or digit."""
    return any(e.cls is None and _ALNUM.search(e.text) for e in parse(pattern))


def _oracle(weighted: dict[str, int], limits: EnumerationLimits, floor: float, const_floor: float) -> dict[str, int]:
    """Brute force: every pattern of every value, weights summed, then the documented floors."""
    total: Counter[str] = Counter()
    for v, w in weighted.items():
        for p in value_patterns(v, limits):
            total[p] += w
    need_const = max(floor, const_floor)
    return {p: n for p, n in total.items()
            if n > 0 and n >= floor and (not _has_constant(p) or n >= need_const)}


def _run_both(weighted: dict[str, int], limits: EnumerationLimits, floor: float,
              const_floor: float) -> tuple[dict[str, int], dict[str, int]]:
    groups = _groups(weighted, limits)
    maxc = limits.max_constants

    def budget(shape: tuple) -> int:
        return limits.budget(shape_tokens(shape))

    walked = count_patterns(groups, HierarchyOptions(maxc, budget), floor, const_floor)
    summed = sum_counts(groups, lambda shape: shape_templates(shape, maxc, budget(shape)), floor, const_floor)
    return walked, summed


def _value(rng: random.Random) -> str:
    kind = rng.randrange(11)
    if kind == 0:  # ids like AB-123
        return f"{rng.choice('ABCD')}{rng.choice('XYZ')}-{rng.randint(0, 9999)}"
    if kind == 1:  # ISO dates
        return f"20{rng.randint(19, 24)}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"
    if kind in (2, 9):  # codes with repeated constants
        return f"{rng.choice(['ORD', 'ORD', 'INV'])}-{rng.randint(0, 60):04d}"
    if kind == 3:  # words
        return rng.choice(["ok", "fail", "alpha", "beta", "Gamma", "N/A"])
    if kind == 4:  # integers, decimals, and dotted triples (<num>.<num> parses two ways)
        return rng.choice([str(rng.randint(-50, 5000)), f"{rng.randint(0, 99)}.{rng.randint(0, 99):02d}",
                           f"{rng.randint(0, 2)}.{rng.randint(0, 12)}.{rng.randint(0, 3)}"])
    if kind == 5:  # letters and digits in one word
        return rng.choice(["v2", "x86", "12ab", "a3f9", f"v{rng.randint(1, 3)}.{rng.randint(0, 12)}"])
    if kind == 6:  # hex words
        return "".join(rng.choice("0123456789abcdef") for _ in range(7))
    if kind == 7:  # versions with one repeated prefix
        return f"web-{rng.randint(1, 12):03d}.prod"
    if kind == 10:  # three two-run words: reduced to level 1 (constants kept) at a budget of 256
        return "-".join(f"{rng.choice('AB')}{rng.randint(1, 3)}" for _ in range(3))
    return f"{rng.randint(1, 23)}:{rng.randint(0, 59):02d}"


def _column(seed: int, n: int) -> dict[str, int]:
    rng = random.Random(seed)
    # a few values picked repeatedly so weights vary and constants reach the constant floor
    pool = [_value(rng) for _ in range(n // 3)]
    return dict(Counter(rng.choice(pool) if rng.random() < 0.6 else _value(rng) for _ in range(n)))


# (floor share, constant-floor share) of |D|: Definition 7 (no floor), the build's defaults (1/16
# each), a constant floor above the floor (12 of 120 values: constant patterns of seed 2 counting
# exactly 12 sit on it), one below it (the floor then applies to constants too), a constant floor alone
FLOORS = [(0.0, 0.0), (1 / 16, 1 / 16), (1 / 40, 1 / 10), (1 / 10, 1 / 40), (0.0, 1 / 12)]
LIMITS = [EnumerationLimits(), EnumerationLimits(max_constants=1),
          EnumerationLimits(max_templates=256)]  # 256: long shapes at a reduced level


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("limits", LIMITS, ids=["default", "maxc1", "budget256"])
def test_walk_and_sums_equal_the_brute_force_oracle(seed, limits):
    """count_patterns and sum_counts agree with each other and with the oracle, for every floor
    setting (including constant floors above and below the evidence floor)."""
    weighted = _column(seed, 120)
    n = sum(weighted.values())
    assert any(_has_constant(p) for p in _oracle(weighted, limits, n / 16, n / 16))  # constants do matter
    for fs, cs in FLOORS:
        floor, const_floor = n * fs, n * cs
        walked, summed = _run_both(weighted, limits, floor, const_floor)
        expected = _oracle(weighted, limits, floor, const_floor)
        assert walked == summed, (fs, cs)
        missing = set(expected) - set(walked)
        extra = set(walked) - set(expected)
        wrong = {p for p in expected if p in walked and walked[p] != expected[p]}
        assert not missing and not extra and not wrong, (fs, cs, sorted(missing)[:5], sorted(extra)[:5],
                                                         sorted(wrong)[:5])


def _wide_value(rng: random.Random) -> str:
    """Values of 9 to 13 tokens (indexed whole only when tau > 8): addresses with ports, e-mail
    addresses, timestamps; a few repeated octets so constants reach the floor."""
    kind = rng.randrange(3)
    if kind == 0:
        return f"10.{rng.choice([1, 22])}.{rng.randint(0, 255)}.{rng.randint(1, 254)}:{rng.choice([80, 443, 8080])}"
    if kind == 1:
        host = rng.choice(["acme", "initech"])
        return f"{rng.choice(['ann', 'bo', 'cy'])}.{rng.choice(['lee', 'kim'])}@{host}.example.com"
    return f"2024-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d} {rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}"


@pytest.mark.parametrize("seed", [1, 2])
def test_wide_shapes_at_tau_13_walk_and_sum_to_the_oracle(seed):
    """At tau 13 shapes of 9-13 tokens are held to ``wide_templates``: the walk and the sums, given that
    budget per shape, still equal the brute-force oracle over P(v)."""
    rng = random.Random(seed)
    weighted = dict(Counter(_wide_value(rng) for _ in range(150)))
    limits = EnumerationLimits(tau=13)
    assert all(8 < analyze(v).ntokens <= 13 for v in weighted)
    n = sum(weighted.values())
    for fs, cs in FLOORS:
        floor, const_floor = n * fs, n * cs
        walked, summed = _run_both(weighted, limits, floor, const_floor)
        assert walked == summed == _oracle(weighted, limits, floor, const_floor), (fs, cs)


def test_counts_never_exceed_the_values_the_pattern_matches():
    """P(v) holds only patterns that accept v, so count(p) is at most the weight of the values whose
    string the pattern's regex accepts (an independent check of the counts through matching)."""
    weighted = _column(11, 150)
    limits = EnumerationLimits()
    walked, summed = _run_both(weighted, limits, 0.0, 0.0)
    assert walked == summed
    rng = random.Random(0)
    for p in rng.sample(sorted(walked), 300):
        accepted = sum(w for v, w in weighted.items() if matches(p, v))
        assert walked[p] <= accepted, p


# Hand-built column (weights are multiplicities): ORD-1 x2, ORD-22 x2, INV-3 x1, ab x2, cd x1, x1 x2.
HAND = {"ORD-1": 2, "ORD-22": 2, "INV-3": 1, "ab": 2, "cd": 1, "x1": 2}


@pytest.mark.parametrize("fn", ["walk", "sums"])
def test_the_floor_keeps_a_pattern_at_the_floor_and_drops_one_just_below(fn):
    """Counted by hand: <lower>{2} matches ab, cd (3); <lower>{1}<digit>{1} matches x1 (2);
    <upper>{3}-<digit>+ all three codes (5). At floor 3, the first is kept, the second dropped."""
    walked, summed = _run_both(HAND, EnumerationLimits(), 3, 0)
    got = walked if fn == "walk" else summed
    assert got["<lower>{2}"] == 3
    assert got["<upper>{3}-<digit>+"] == 5
    assert got["<upper>{3}-<digit>{1}"] == 3  # ORD-1 x2, INV-3
    assert "<lower>{1}<digit>{1}" not in got
    assert "<upper>{3}-<digit>{2}" not in got  # ORD-22 x2 only
    # one step lower, the 2-weight patterns appear with their exact counts
    walked, summed = _run_both(HAND, EnumerationLimits(), 2, 0)
    got = walked if fn == "walk" else summed
    assert got["<lower>{1}<digit>{1}"] == 2 and got["<upper>{3}-<digit>{2}"] == 2


@pytest.mark.parametrize("fn", ["walk", "sums"])
def test_a_constant_is_counted_across_shapes_and_held_to_the_constant_floor(fn):
    """ORD is a constant of two shapes (ORD-1 and ORD-22): ORD-<digit>+ counts 4 and is kept at a
    constant floor of 4, ORD-<digit>{1} counts 2 and is not; at 4.5 ORD-<digit>+ goes too, while the
    constant-free <upper>{3}-<digit>+ (5) stays, as the constant floor applies to constants only."""
    walked, summed = _run_both(HAND, EnumerationLimits(), 1, 4)
    got = walked if fn == "walk" else summed
    assert got["ORD-<digit>+"] == 4
    assert "ORD-<digit>{1}" not in got and "INV-<digit>+" not in got
    assert got["<lower>{1}<digit>{1}"] == 2  # constant-free: only the floor of 1 applies
    walked, summed = _run_both(HAND, EnumerationLimits(), 1, 4.5)
    got = walked if fn == "walk" else summed
    assert "ORD-<digit>+" not in got
    assert got["<upper>{3}-<digit>+"] == 5
    # the constant floor never drops below the floor: floor 5, constant floor 1
    walked, summed = _run_both(HAND, EnumerationLimits(), 5, 1)
    got = walked if fn == "walk" else summed
    assert "ORD-<digit>+" not in got and got["<upper>{3}-<digit>+"] == 5


@pytest.mark.parametrize("fn", ["walk", "sums"])
def test_a_value_with_two_parses_of_one_pattern_counts_once(fn):
    """1.2.3 is <num>.<num> two ways (1.2|3 and 1|2.3); count_D counts values, so 1.2.3 x1 and
    4.5.6 x2 give <num>.<num> a count of 3, not 6."""
    walked, summed = _run_both({"1.2.3": 1, "4.5.6": 2}, EnumerationLimits(), 0, 0)
    got = walked if fn == "walk" else summed
    assert got["<num>.<num>"] == 3
    assert got["<digit>{1}.<digit>{1}.<digit>{1}"] == 3
    assert got["4.<num>"] == 2 and got["<num>.6"] == 2  # one constant, the rest one decimal


@pytest.mark.parametrize("fn", ["walk", "sums"])
def test_a_value_with_one_constant_at_two_slots_counts_once(fn):
    """10.2.2.7 is <num>.2.<num> two ways (10|.2.|2.7 and 10.2|.2.|7: the constant 2 is either middle word);
    a value counts once, so 10.2.2.7 x2, 10.3.2.7 x1 and 10.2.3.7 x1 give 4 (each matches), not 6; 10.5.5.7
    matches neither way."""
    walked, summed = _run_both({"10.2.2.7": 2, "10.3.2.7": 1, "10.2.3.7": 1, "10.5.5.7": 1},
                               EnumerationLimits(), 0, 0)
    got = walked if fn == "walk" else summed
    assert got["<num>.2.<num>"] == 4
    assert got["10.2.<num>"] == 3 and got["<num>.5.<num>"] == 1


# "1.5" and "1.x" share the constant 1 in their first part, but "1.5" is a decimal (the part may be
# <num> over three parts) and "1.x" is not, so the walk files their first parts under two option keys.
SPLIT_KEYS = {"1.5": 4, "1.x": 4, "abc": 92}


@pytest.mark.parametrize("fn", [
    "walk",
    "sums",
])
def test_a_constant_shared_by_a_decimal_and_a_non_decimal_part_is_counted(fn):
    """Hand count, |D| = 100, floors 100/16 = 6.25: 1.<alphanum>{1} and 1.<alphanum>+ match 1.5 x4 and
    1.x x4 (8 values, above the constant floor); 1.5 alone (4) and 1.x alone (4) are below it. The
    module promises the floor applies to the merged state (``_split``: "one constant may be common
    only across shapes")."""
    walked, summed = _run_both(SPLIT_KEYS, EnumerationLimits(), 6.25, 6.25)
    got = walked if fn == "walk" else summed
    assert got["<digit>{1}.<alphanum>{1}"] == 8  # constant-free: kept by both
    assert "1.5" not in got and "1.x" not in got
    assert got.get("1.<alphanum>{1}") == 8 and got.get("1.<alphanum>+") == 8


@pytest.mark.parametrize("fn", [
    "walk",
    "sums",
])
def test_a_kept_constant_pattern_counts_values_of_every_part_key(fn):
    """Hand count, constant floor 5: 1.<alphanum>+ matches 1.50 x6 and 1.x x4 (10); 1.<alphanum>{2}
    only 1.50 (6); 1.<alphanum>{1} only 1.x (4, below the floor). Counts of kept patterns are exact
    (lakeindex.patterns.enumerate: "FPR_T and Cov_T are exact for every pattern kept")."""
    walked, summed = _run_both({"1.50": 6, "1.x": 4}, EnumerationLimits(), 0, 5)
    got = walked if fn == "walk" else summed
    assert got["1.<alphanum>{2}"] == 6
    assert "1.<alphanum>{1}" not in got
    assert got["1.<alphanum>+"] == 10


@pytest.mark.parametrize("value", ["2019-08-28T12:47:26.115Z", "a1b2-C3", "ORD-12|x", "9B1E-44AF", "12.50",
                                   "hello_world-2", "{00C56B34-54AC-4B36}", "-12", "x.y@z.com", "AB12cd34"])
def test_free_templates_are_the_constant_free_part_of_a_shapes_templates(value):
    """``free_templates`` lists without the constant templates what ``shape_templates`` lists with them:
    the same constant-free patterns in the same order, at every constant budget and template budget
    (the oracle is the full listing, filtered; caches cleared so neither reads the other's entry)."""
    from lakeindex.patterns import templates

    shape = analyze(value, 4).shape
    for max_constants in (0, 1, 3):
        for budget in (256, 8192):
            templates._SHAPE_CACHE.clear()
            full = shape_templates(shape, max_constants, budget)
            oracle = list(full[0])
            templates._SHAPE_CACHE.clear()
            assert list(templates.free_templates(shape, max_constants, budget)) == oracle


def test_shapes_share_a_constant_free_template_only_if_their_labels_share_an_outline():
    """``hypotheses.label_outlines`` may skip listing templates: brute force over pairs of 16 values
    (signed and unsigned, decimals and not, hex and words, URLs), every pair whose listed constant-free
    templates intersect has a common outline of their alignment labels; pairs with disjoint outlines
    are checked to share none."""
    from lakeindex.fmdv.column import part_label
    from lakeindex.fmdv.hypotheses import label_outlines
    from lakeindex.patterns.templates import free_templates

    values = ["-12", "34", "12.50", "7", "3.1.4", "ab-cd", "AB12", "x.y", "9B1E-44AF", "1-2", "12:30", "a:b",
              "https://x.io/a", "http://y.com/b", "-1.5", "+7"]
    shapes = [analyze(v, 4).shape for v in values]
    disjoint = 0
    for i, a in enumerate(shapes):
        for b in shapes[i + 1:]:
            shared = set(free_templates(a, 3, 8192)) & set(free_templates(b, 3, 8192))
            if not (label_outlines(tuple(map(part_label, a))) & label_outlines(tuple(map(part_label, b)))):
                disjoint += 1
                assert not shared, (a, b, sorted(shared)[:3])
    assert disjoint > 50  # most pairs differ in outline: the check does work
