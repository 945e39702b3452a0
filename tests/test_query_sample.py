"""A wide query column is solved first on a priority sample of its distinct values.

``RuleSearch.run``: a column of more distinct values than ``QUERY_SAMPLE`` (32, at most the
index's ``max_distinct``, 128 by default, ``lakeindex.patterns.sampling``) is solved on about that many,
sampled within each structure (value skeleton) with the structure's weight kept exact; the rule stands
if the whole column passes it (within theta for FMDV-VH), else the column is solved in full. Expectations
are set by hand from those documented semantics: which values a sample holds follows from the
documented priority (weight over a hash of the value), and a strict rule accepts every training value.
"""

from __future__ import annotations

import random

import pytest

import lakeindex.fmdv.rule_search as rule_search
from lakeindex.fmdv.column import memo_skeleton, signless_skeleton, signless_skeletons, skeleton, skeletons
from lakeindex.fmdv.infer import AutoValidator
from lakeindex.fmdv.rule_search import MAX_STRATA, QUERY_SAMPLE, RuleSearch
from lakeindex.index.local_build import build_from_columns
from lakeindex.index.store import IndexReader
from lakeindex.patterns.pattern import matches
from lakeindex.patterns.sampling import MAX_DISTINCT, value_hash


def _date(rng: random.Random, pad: bool = True) -> str:
    """A padded date, or one of a single-digit month and day (``2019-3-7``), which no two-digit
    pattern matches: so ``<digit>{4}-<digit>{2}-<digit>{2}`` is pure in the index, and so is
    ``<digit>{4}-<digit>+-<digit>+``, of wider coverage."""
    if pad:
        return f"20{rng.randint(10, 24)}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"
    return f"20{rng.randint(10, 24)}-{rng.randint(1, 9)}-{rng.randint(1, 9)}"


@pytest.fixture(scope="module")
def index(tmp_path_factory):
    """Padded dates, dates of single digits, and numbers, 60 values a column."""
    rng = random.Random(4)
    cols = [[_date(rng) for _ in range(60)] for _ in range(30)]
    cols += [[_date(rng, pad=False) for _ in range(60)] for _ in range(20)]
    cols += [[str(rng.randint(0, 99999)) for _ in range(60)] for _ in range(30)]
    path = tmp_path_factory.mktemp("sample") / "ix"
    build_from_columns(cols, path, min_coverage=2)
    with IndexReader(path) as ix:
        yield ix


@pytest.fixture
def solved(monkeypatch):
    """The distinct values each query column handed to the solver held."""
    sizes: list[int] = []
    real = rule_search.QueryColumn.from_values

    def spy(values, *args, **kwargs):
        sizes.append(len([v for v in values if v]))
        return real(values, *args, **kwargs)

    monkeypatch.setattr(rule_search.QueryColumn, "from_values", spy)
    return sizes


def _padded(n: int) -> list[str]:
    """``n`` distinct padded dates (2010-01-01 onwards, a day each)."""
    return list(dict.fromkeys(f"20{10 + i // 336}-{i // 28 % 12 + 1:02d}-{i % 28 + 1:02d}" for i in range(n)))


def test_queries_sample_32_distinct_values_of_the_builds_128():
    """The build's default sample size, and the queries' (at most the build's)."""
    assert MAX_DISTINCT == 128
    assert QUERY_SAMPLE == 32


def test_a_wide_column_is_solved_on_its_sample_when_every_value_passes_the_rule(index, solved):
    """1,000 distinct padded dates: the solver sees 32 of them, and the rule accepts all 1,000."""
    values = _padded(1000)
    assert len(set(values)) == 1000
    rule = AutoValidator(index, "fmdv-v").fit(values).rule_
    assert rule.feasible, rule.reason
    assert [v for v in values if not matches(rule.pattern, v)] == []
    assert max(solved) == 32


def test_values_outside_the_sample_that_fail_its_rule_make_a_strict_fit_solve_the_whole_column(index, solved):
    """Three dates with a one-digit month whose hash keeps them out of the sample (all weights are 1,
    so the sample is the 32 smallest hashes): the sample's rule fixes a two-digit month and rejects
    them, so FMDV-V (no value may fail) solves all 1,003 and its rule accepts every one."""
    values = _padded(1000)
    cutoff = sorted(value_hash(v) for v in values)[31]
    short = [v for v in (f"2030-{m}-{d}" for m in range(1, 10) for d in range(10, 29)) if value_hash(v) > cutoff][:3]
    assert len(short) == 3
    rule = AutoValidator(index, "fmdv-v").fit(values + short).rule_
    assert rule.feasible, rule.reason
    assert [v for v in values + short if not matches(rule.pattern, v)] == []
    assert solved[0] == 32 and max(solved) == 1003


def test_a_horizontal_cut_tolerates_the_values_outside_the_sample_within_theta(index, solved):
    """The same column under FMDV-VH: 3 of 1,003 values failing the sample's rule is within theta
    (0.1), so the sample's rule stands, the solver never sees more than 32 values, and the three
    count as the training batch's non-conforming values."""
    values = _padded(1000)
    cutoff = sorted(value_hash(v) for v in values)[31]
    short = [v for v in (f"2030-{m}-{d}" for m in range(1, 10) for d in range(10, 29)) if value_hash(v) > cutoff][:3]
    rule = AutoValidator(index, "fmdv-vh").fit(values + short).rule_
    assert rule.feasible, rule.reason
    assert max(solved) == 32
    assert rule.train_nonconforming == 3
    assert [v for v in short if matches(rule.pattern, v)] == []


def test_a_minority_structure_weighs_in_the_sample_what_it_weighs_in_the_column(index, solved):
    """910 dates and 90 distinct codes such as ``abc/de!`` (9% of the column, within theta = 0.1) chosen
    with the smallest hashes of a large pool: a plain priority sample of 32 (all weights are 1, so the
    32 smallest hashes) would hold 31 codes, 97% of its weight, too many to cut. Sampled by structure, the codes keep
    their 9% (90 of 1,000), so the sample's cut removes them: the dates' rule comes from the sample
    alone, with the 90 codes non-conforming."""
    rng = random.Random(9)
    letters = "abcdefghijklmnopqrstuvwxyz"
    pool = {"".join(rng.choices(letters, k=3)) + "/" + "".join(rng.choices(letters, k=2)) + "!" for _ in range(20000)}
    words = sorted(pool, key=value_hash)[:90]
    dates = _padded(910)
    cutoff = sorted(value_hash(v) for v in dates + words)[31]
    assert len(set(dates)) == 910 and sum(value_hash(w) <= cutoff for w in words) == 31
    rule = AutoValidator(index, "fmdv-vh").fit(dates + words).rule_
    assert rule.feasible, rule.reason
    assert [v for v in dates if not matches(rule.pattern, v)] == []
    assert [w for w in words if matches(rule.pattern, w)] == []
    assert rule.train_nonconforming == 90
    assert max(solved) <= 33  # 29 dates and 3 codes (shares of 32 by distinct values, rounded)


@pytest.mark.parametrize(("value", "expected"), [
    ("-7.01,6.41,-16.45", "w.w,w.w,w.w"),  # signs of list items fold into the items
    ("+1-555-0100", "w-w-w"),  # a leading sign folds; a dash between words stays
    ("2024-01-02", "w-w-w"),
    ("x=-5", "w=w"),
    ("a - b", "w - w"),  # a dash standing alone is a separator
])
def test_signless_skeleton_by_hand(value, expected):
    assert signless_skeleton(value) == expected


def test_the_memo_skeleton_agrees_with_the_regex_skeleton():
    """``memo_skeleton`` (byte translation, runs collapsed by replaces) against :func:`skeleton`'s regex
    replace (the oracle) on random values of words, symbols, non-ASCII letters and long runs, each asked
    twice (a memo hit and a miss)."""
    rng = random.Random(9)
    alphabet = "aZ9w_-.:/ é€\u00a0😀,|#"
    values = ["", "w", "ww", "x" * 1000, "é" * 7, "1" * 33 + "-" + "w" * 5]
    values += ["".join(rng.choice(alphabet) for _ in range(rng.randint(1, 40))) for _ in range(2000)]
    values += [",".join(str(rng.randint(-9999, 9999)) for _ in range(rng.randint(1, 24))) for _ in range(500)]
    structure = memo_skeleton()
    for v in values + values:
        assert structure(v) == skeleton(v), v


def _signed_lists(rng: random.Random, n: int, item) -> list[str]:
    """``n`` distinct lists of 4-6 items, each item negated at random: 16 + 32 + 64 = 112 skeletons, more
    than a sample may hold (``MAX_STRATA``, 32), but three once signs are folded."""
    out: set[str] = set()
    while len(out) < n:
        out.add(",".join(("-" if rng.random() < 0.5 else "") + item(rng) for _ in range(rng.randint(4, 6))))
    return sorted(out)


@pytest.fixture
def top_solves(monkeypatch):
    """The distinct values of each whole-column solve (``RuleSearch.column``: its first search, and the second
    where the first finds no rule; list items and record fields are parts, solved inside them)."""
    sizes: list[int] = []
    real = RuleSearch.column

    def spy(self, counts):
        sizes.append(len(counts))
        return real(self, counts)

    monkeypatch.setattr(RuleSearch, "column", spy)
    return sizes


def test_lists_of_signed_numbers_are_solved_on_a_sample_of_their_folded_structures(index, top_solves):
    """1,000 distinct lists of signed integers: too many skeletons for the structure sample, few with
    signs folded, so the column is solved first on about 32 of its values and never in full; the rule
    accepts every value."""
    values = _signed_lists(random.Random(2), 1000, lambda r: str(r.randint(0, 99999)))
    assert len({skeleton(v) for v in values}) > MAX_STRATA >= len({signless_skeleton(v) for v in values})
    rule = AutoValidator(index, "fmdv-vh").fit(values).rule_
    assert rule.feasible, rule.reason
    assert [v for v in values if not matches(rule.pattern, v)] == []
    assert len(top_solves) == 1 and top_solves[0] <= QUERY_SAMPLE + 1


def test_a_folded_sample_without_a_rule_proves_nothing_so_the_column_is_solved_in_full(index, top_solves):
    """Its weights are exact per folded structure only, so a sample with no rule does not end the fit
    (as a structure sample's does): with a coverage floor above the index's 80 columns nothing is
    feasible, and the lists of signed integers are solved on the sample, then in full."""
    values = _signed_lists(random.Random(3), 1000, lambda r: str(r.randint(0, 99999)))
    rule = AutoValidator(index, "fmdv-vh", m=81).fit(values).rule_
    assert not rule.feasible
    assert len(top_solves) == 2 and top_solves[0] <= QUERY_SAMPLE + 1 and top_solves[1] == 1000


def test_a_sample_holds_up_to_32_structures_whatever_its_size(index, top_solves):
    """Lists of 1 to 20 padded dates joined by ``/``, 50 distinct values of each length: 20 skeletons, more
    than half the sample of 32 but within ``MAX_STRATA``, so the column is sampled, not solved in full:
    each structure gets round(32 * 50 / 1,000) = round(1.6) = 2 values, 40 in all."""
    dates = _padded(1000)
    values = ["/".join(dates[(i * 7 + k) % 1000] for k in range(1 + i % 20)) for i in range(1000)]
    assert len(set(values)) == 1000 and len({skeleton(v) for v in values}) == 20 > QUERY_SAMPLE // 2
    AutoValidator(index, "fmdv-vh").fit(values)
    assert top_solves[0] == 40


def test_batch_skeletons_agree_with_the_regex_skeletons():
    """``skeletons`` and ``signless_skeletons`` (all values joined by newlines, one translation or one
    regex replace) against the per-value regexes of :func:`skeleton` and :func:`signless_skeleton` (the
    oracles) on random values of words, signs, symbols, non-ASCII letters and long runs, and on lists
    where a value holds a newline (done one value at a time)."""
    rng = random.Random(11)
    alphabet = "aZ9w_-+.:/ é€\u00a0😀,|#\r\t"
    values = ["w", "ww", "x" * 1000, "é" * 7, "-5", "+1-555-0100", "a - b", "1" * 33 + "-" + "w" * 5]
    values += ["".join(rng.choice(alphabet) for _ in range(rng.randint(1, 40))) for _ in range(2000)]
    values += [",".join(str(rng.randint(-9999, 9999)) for _ in range(rng.randint(1, 24))) for _ in range(500)]
    for batch in (values, values[:1], [], values[:50] + ["two\nlines", "-3\n+4"] + values[50:100]):
        assert skeletons(batch) == [skeleton(v) for v in batch]
        assert signless_skeletons(batch) == [signless_skeleton(v) for v in batch]
