"""Signs a small training sample cannot show (``lakeindex.fmdv.signs``)."""

from __future__ import annotations

import random

import pytest

from lakeindex.fmdv.drift import validate
from lakeindex.fmdv.infer import AutoValidator
from lakeindex.fmdv.rule import Segment
from lakeindex.fmdv.signs import release_signs, release_size
from lakeindex.index.local_build import build_from_columns
from lakeindex.index.store import IndexReader
from lakeindex.patterns.pattern import matches


def _posterior(pi: float, n: int) -> float:
    """P(signed | n values without a minus), a signed column showing none with probability (15/16)^n."""
    s = (15 / 16) ** n
    return pi * s / (pi * s + 1 - pi)


def test_release_size_by_hand():
    # pi = 0.1, alpha = 0.01: (15/16)^n <= 0.01 * 0.9 / (0.1 * 0.99) = 0.0909 from n = 37.2, so 38
    assert release_size(0.1, 0.01) == 38
    assert release_size(0.0, 0.01) == 0  # a lake without negative numbers never releases a sign


@pytest.mark.parametrize("pi", [0.02, 0.074, 0.27, 0.6])
def test_release_size_is_where_the_posterior_falls_to_alpha(pi):
    n = release_size(pi, 0.01)
    assert _posterior(pi, n) <= 0.01 < _posterior(pi, n - 1)


@pytest.mark.parametrize("segments, expected", [
    (["<digit>+.<digit>+"], ["<opt>-</opt><digit>+.<digit>+"]),  # a decimal: its integer part, not its fraction
    (["[<digit>+::<alphanum>+"], ["[<opt>-</opt><digit>+::<alphanum>+"]),  # a field after a symbol
    (["-<num>"], ["<opt>-</opt><num>"]),  # a minus every training value had becomes optional
    (["<hex>{8}::-", "<digit>+::<lower>+"], ["<hex>{8}::<opt>-</opt>", "<digit>+::<lower>+"]),  # across a cut
    (["<digit>+<rep>,<digit>+</rep>{1,}"], ["<opt>-</opt><digit>+<rep>,<opt>-</opt><digit>+</rep>{1,}"]),
    (["<opt>-</opt>", "<digit>+_<hex>{8}"], None),  # already optional
    (["<digit>{4}-<digit>{2}-<num>"], None),  # a date's parts: fixed width, or after a separator minus
    (["INV-<digit>+"], None),  # a code's dash follows a letter
    (["<digit>+:<digit>{2}"], ["<opt>-</opt><digit>+:<digit>{2}"]),  # only the unbounded field
    (["<lower>+<opt>_<digit>+</opt>"], None),  # optional blocks do not nest
])
def test_which_numbers_take_a_sign(segments, expected):
    out = release_signs([Segment(p, 0.01, 5) for p in segments])
    assert (None if out is None else [s.pattern for s in out]) == expected
    if out is not None:  # the lake's prices of the unsigned fields stay
        assert [(s.fpr, s.coverage) for s in out] == [(0.01, 5)] * len(segments)


def _decimals(rng: random.Random, k: int, signed: bool) -> list[str]:
    return [f"{rng.uniform(-30 if signed else 0, 90):.4f}" for _ in range(k)]


@pytest.fixture(scope="module", params=[True, False], ids=["signed-lake", "unsigned-lake"])
def lake(request, tmp_path_factory):
    """40 columns of positive decimals, 10 of decimals a quarter of them negative (or positive too), and 20 of
    words half of them dotted (so that ``<alphanum>+.<alphanum>+`` is too often broken to be a rule)."""
    rng = random.Random(5)
    cols = [_decimals(rng, 80, False) for _ in range(40)] + [_decimals(rng, 80, request.param) for _ in range(10)]
    cols += [[".".join("".join(rng.choices("abcdefgh", k=rng.randint(3, 9))) for _ in range(1 + i % 2))
              for i in range(80)] for _ in range(20)]
    path = tmp_path_factory.mktemp("signs") / "ix"
    build_from_columns(cols, path, min_coverage=2)
    with IndexReader(path) as ix:
        yield request.param, ix


def test_a_few_positive_numbers_admit_a_sign_where_the_lake_has_signed_ones(lake):
    signed_lake, ix = lake
    rng = random.Random(6)
    # pi = 10 / 50 in the signed lake: signs are released below 50 training values (by hand as above)
    for n, released in ((5, signed_lake), (30, signed_lake), (60, False)):
        rule = AutoValidator(ix, "fmdv-vh").fit(_decimals(rng, n, False)).rule_
        assert rule.feasible, rule.reason
        assert matches(rule.pattern, "12.5000")
        assert matches(rule.pattern, "-12.5000") is released, (n, rule.pattern)


def test_a_minus_all_training_values_had_becomes_optional(lake):
    signed_lake, ix = lake
    rule = AutoValidator(ix, "fmdv-vh").fit(["-1.2500", "-3.7500", "-12.0000", "-0.5000", "-7.2500"]).rule_
    assert rule.feasible, rule.reason
    assert matches(rule.pattern, "-4.0000")
    assert matches(rule.pattern, "4.0000") is signed_lake


def test_a_negative_value_the_horizontal_cut_dropped_is_counted_again(lake):
    signed_lake, ix = lake
    train = ["12.5000", "3.2500", "45.0000", "7.7500", "60.1250", "8.5000", "19.0000", "33.3750", "2.0000",
             "-4.5000"]
    rule = AutoValidator(ix, "fmdv-vh").fit(train).rule_
    assert rule.feasible, rule.reason
    assert rule.train_nonconforming == (0 if signed_lake else 1)
    batch = [f"{v:.4f}" for v in (5.5, -6.25, 7.0, -8.5, 9.75) * 20]  # 40% negative, as the column may be
    assert validate(rule, batch)["passed"] is signed_lake
