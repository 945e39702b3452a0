"""The default validation test: a Beta prior from the index's FPR, updated by the training counts, and the
batch's count against the Beta-binomial posterior predictive. Expected values come from hand computation,
numerical integration and scipy's Fisher test, never from ``drift.py``."""

from __future__ import annotations

import json
import random
from typing import get_args

import pytest
from fastapi.testclient import TestClient
from scipy import integrate, stats

from lakeindex.cli import main
from lakeindex.fmdv.drift import MAX_PRIOR_STRENGTH, LakePrior, lake_prior, predictive_pvalue, validate
from lakeindex.fmdv.infer import AutoValidator
from lakeindex.fmdv.rule import TESTS, Rule, Segment
from lakeindex.index.local_build import build_from_columns
from lakeindex.index.store import IndexReader
from query_service.app import create_app
from query_service.models import Test
from tests.test_fmdv import corpus


@pytest.fixture(scope="module")
def index_path(tmp_path_factory):
    path = tmp_path_factory.mktemp("stats") / "ix"
    build_from_columns(corpus(), path, min_coverage=2)
    return path


def iso(rng: random.Random) -> str:
    return f"20{rng.randint(10, 24)}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"


def us(rng: random.Random) -> str:
    return f"{rng.randint(1, 12):02d}/{rng.randint(1, 28):02d}/20{rng.randint(10, 24)}"


def date_rule(index_path, n: int, seed: int = 1) -> Rule:
    rng = random.Random(seed)
    with IndexReader(index_path) as ix:
        rule = AutoValidator(ix, m=10).fit([iso(rng) for _ in range(n)]).rule_
    assert rule.feasible and rule.validation == "homogeneity" and rule.train_nonconforming == 0
    return rule


def test_eight_iso_dates_flag_a_batch_with_ten_of_nineteen_off(index_path):
    rule = date_rule(index_path, 8)
    rng = random.Random(2)
    batch = [iso(rng) for _ in range(9)] + [us(rng) for _ in range(5)] + ["N/A"] * 5
    fisher = validate(rule, batch, test="fisher")
    # the problem: Fisher's exact test on 0/8 vs 10/19 is not significant at 0.01
    assert fisher["passed"] and fisher["p_value"] == pytest.approx(
        stats.fisher_exact([[0, 8], [10, 9]]).pvalue) and fisher["p_value"] > 0.01
    res = validate(rule, batch)
    assert res["test"] == "betabinom" and res["flagged"] and res["batch_nonconforming"] == 10



def test_the_result_says_whether_the_training_sample_alone_contradicts_the_batch_rate(index_path):
    # P(all n training values conform | the column always at the batch's fraction) = (1 − q)^n, by hand
    rng = random.Random(2)
    batch = [iso(rng) for _ in range(9)] + [us(rng) for _ in range(5)] + ["N/A"] * 5  # 10 of 19 off
    res = validate(date_rule(index_path, 8), batch)
    assert res["training_p_at_batch_rate"] == pytest.approx((9 / 19) ** 8) and (9 / 19) ** 8 < 0.01
    drifted = [iso(rng) for _ in range(80)] + [us(rng) for _ in range(20)]  # 20% off after 5 values
    res = validate(date_rule(index_path, 5), drifted)
    assert res["flagged"] and res["training_p_at_batch_rate"] == pytest.approx(0.8 ** 5)  # the flag is the lake's


def test_forty_values_flag_a_batch_with_five_of_thirty_five_off(index_path):
    rule = date_rule(index_path, 40)
    rng = random.Random(3)
    batch = [iso(rng) for _ in range(30)] + [us(rng) for _ in range(3)] + ["N/A", "unknown"]
    assert validate(rule, batch, test="fisher")["passed"]
    assert stats.fisher_exact([[0, 40], [5, 30]]).pvalue > 0.01
    assert validate(rule, batch)["flagged"]


def test_clean_batches_pass(index_path):
    for n in (5, 8, 40, 100):
        rule = date_rule(index_path, n, seed=n)
        rng = random.Random(n + 1)
        for _ in range(5):
            assert validate(rule, [iso(rng) for _ in range(200)])["passed"]
        # a column with 2% ad-hoc values (the paper's Fig. 9 range) passes too
        assert validate(rule, [iso(rng) for _ in range(196)] + ["N/A"] * 4)["passed"]


def test_posterior_predictive_tail_by_hand():
    # prior Beta(1.5, 2.5); 1 of 3 training values off -> posterior Beta(2.5, 4.5); a batch of 2.
    # P(K = 0) = b(b+1) / ((a+b)(a+b+1)) = 4.5 * 5.5 / (7 * 8); P(K = 2) = a(a+1) / ((a+b)(a+b+1)) = 2.5 * 3.5 / 56
    prior = LakePrior(mean=0.3, strength=3.0, tolerance=0.1, a=1.5, b=2.5)
    p1, mean = predictive_pvalue(prior, 1, 3, 1, 2)
    assert p1 == pytest.approx(1 - 24.75 / 56) and mean == pytest.approx(2.5 / 7)
    assert predictive_pvalue(prior, 1, 3, 2, 2)[0] == pytest.approx(8.75 / 56)
    assert predictive_pvalue(prior, 1, 3, 0, 2)[0] == 1.0


def test_posterior_predictive_tail_by_integration():
    # P(K >= k) = integral of the binomial tail over the posterior Beta density
    prior = lake_prior(0.01, 0.1, 0.01)
    k1, n1, k2, n2 = 2, 40, 6, 60
    a, b = prior.a + k1, prior.b + n1 - k1
    want, _ = integrate.quad(lambda t: stats.binom.sf(k2 - 1, n2, t) * stats.beta.pdf(t, a, b), 0, 1,
                             epsabs=1e-12, limit=200)
    assert predictive_pvalue(prior, k1, n1, k2, n2)[0] == pytest.approx(want, rel=1e-6)


def test_prior_strength_is_the_weakest_keeping_alpha_above_theta():
    for mu, theta, alpha in ((0.0, 0.1, 0.01), (0.03, 0.1, 0.01), (0.002, 0.2, 0.05)):
        p = lake_prior(mu, theta, alpha)
        assert p.a == pytest.approx(1 + mu * p.strength) and p.b == pytest.approx(1 + (1 - mu) * p.strength)
        assert stats.beta.sf(theta, p.a, p.b) == pytest.approx(alpha, rel=1e-4)
        weaker = 0.95 * p.strength  # any weaker prior puts more than alpha above theta
        assert stats.beta.sf(theta, 1 + mu * weaker, 1 + (1 - mu) * weaker) > alpha
    # the lake's own rate at or above theta: no prior keeps alpha above it, and the strength is capped
    assert lake_prior(0.12, 0.1, 0.01).strength == MAX_PRIOR_STRENGTH


def test_a_pattern_often_broken_in_the_lake_tolerates_more():
    seg = "<digit>{4}-<digit>{2}-<digit>{2}"
    safe = Rule("fmdv-vh", {"theta": 0.1}, True, [Segment(seg, 0.0, 30)], train_size=20)
    broken = Rule("fmdv-vh", {"theta": 0.1}, True, [Segment(seg, 0.06, 30)], train_size=20)
    batch = ["2021-01-01"] * 90 + ["N/A"] * 10
    assert validate(safe, batch)["flagged"] and validate(broken, batch)["passed"]
    assert validate(broken, ["2021-01-01"] * 75 + ["N/A"] * 25)["flagged"]


def test_strict_rules_keep_their_semantics():
    rule = Rule("fmdv", {"theta": 0.1}, True, [Segment("<digit>+", 0.05, 30)], train_size=1000,
                train_nonconforming=0, validation="strict")
    assert validate(rule, ["1"] * 999 + ["x"])["flagged"]  # one value off fails, whatever the test says
    assert validate(rule, ["1"] * 1000)["passed"]


def test_posted_rule_fpr_must_be_a_rate():
    d = Rule("fmdv-vh", {}, True, [Segment("<digit>+", 0.01, 30)], train_size=5).to_dict()
    for bad in (-0.1, 1.5, float("nan")):
        d["segments"][0]["fpr"] = bad
        with pytest.raises(ValueError, match="fpr"):
            Rule.from_dict(d)


def test_cli_and_service_offer_the_same_tests(index_path, tmp_path, capsys):
    assert get_args(Test) == TESTS
    rule = date_rule(index_path, 8)
    (tmp_path / "rule.json").write_text(json.dumps(rule.to_dict()))
    rng = random.Random(2)
    batch = [iso(rng) for _ in range(9)] + [us(rng) for _ in range(5)] + ["N/A"] * 5
    (tmp_path / "batch.json").write_text(json.dumps(batch))
    args = ["validate", "--rule", str(tmp_path / "rule.json"), "--values-json", str(tmp_path / "batch.json")]
    assert main(args) == 1
    cli_default = json.loads(capsys.readouterr().out)
    assert main([*args, "--test", "fisher"]) == 0
    capsys.readouterr()
    with TestClient(create_app(index_path)) as client:
        body = {"rule": rule.to_dict(), "values": batch}
        default = client.post("/v1/validate", json=body).json()
        fisher = client.post("/v1/validate", json={**body, "test": "fisher"}).json()
    assert default == cli_default and default["flagged"] and default["prior"]["strength"] > 0
    assert fisher["test"] == "fisher" and fisher["passed"]
