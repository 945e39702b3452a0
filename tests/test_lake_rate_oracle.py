"""The bench's lake-rate oracle: column rates by brute force and the calibrated predictive p-value."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import integrate, stats

from bench.lake_rate_oracle import LakeRates, far_posterior, oracle_pvalue


def test_rates_count_each_column_that_is_evidence(tmp_path):
    # a: 4 of 5 values are digits (rate 0.2); b: all digits; c: no digits (not evidence: 0 < 1/16)
    (tmp_path / "t.csv").write_text("a,b,c\n1,10,x\n2,20,y\n3,30,z\nq,40,w\n5,50,v\n", encoding="utf-8")
    lake = LakeRates(tmp_path, per_column=64)
    rates = sorted(map(tuple, lake.rates("<digit>+").tolist()))
    assert rates == [(0.0, 5.0), (pytest.approx(0.2), 5.0)]


def test_pvalue_matches_numeric_integration():
    rates = np.array([[0.0, 64.0], [0.5, 64.0]])
    k1, n1, k2, n2 = 0, 5, 20, 100
    kernels = [(1.0, 65.0), (33.0, 33.0), (1.0, 1.0)]  # 1 + r·m, 1 + (1 − r)·m, and the uniform pseudo-column

    def integral(f):
        return sum(integrate.quad(lambda t, a=a, b=b: stats.beta.pdf(t, a, b) * f(t), 0, 1, limit=200)[0]
                   for a, b in kernels)

    def likelihood(t):
        return stats.binom.pmf(k1, n1, t)

    expected = integral(lambda t: likelihood(t) * stats.binom.sf(k2 - 1, n2, t)) / integral(likelihood)
    assert oracle_pvalue(rates, k1, n1, k2, n2) == pytest.approx(expected, rel=1e-6)
    assert oracle_pvalue(rates, k1, n1, 0, n2) == 1.0


def test_default_prior_mixed_in_at_its_weight():
    rates = np.array([[0.3, 64.0]])
    k1, n1, k2, n2 = 0, 8, 15, 100
    # the lake's kernel and the uniform pseudo-column share 1 − w; the default Beta(1.2, 45) has w
    w = 0.3
    parts = [((1 - w) / 2, 1 + 0.3 * 64, 1 + 0.7 * 64), ((1 - w) / 2, 1.0, 1.0), (w, 1.2, 45.0)]

    def integral(f):
        return sum(pi * integrate.quad(lambda t, a=a, b=b: stats.beta.pdf(t, a, b) * f(t), 0, 1, limit=200)[0]
                   for pi, a, b in parts)

    def likelihood(t):
        return stats.binom.pmf(k1, n1, t)

    expected = integral(lambda t: likelihood(t) * stats.binom.sf(k2 - 1, n2, t)) / integral(likelihood)
    assert oracle_pvalue(rates, k1, n1, k2, n2, (w, 1.2, 45.0)) == pytest.approx(expected, rel=1e-6)


def test_far_posterior_without_lake_columns_is_the_uniform_prior_updated():
    # only the uniform pseudo-column: after 0 of 5 off, Beta(1, 6), and P(rate > 0.1) = 0.9^6 (hand computed)
    assert far_posterior(np.empty((0, 2)), 0, 5, 0.1) == pytest.approx(0.9 ** 6, rel=1e-9)
    # 0 of 43 off: 0.9^44 = 0.0097, the training size from which a rule with no lake evidence is kept at 1%
    assert far_posterior(np.empty((0, 2)), 0, 43, 0.1) == pytest.approx(0.9 ** 44, rel=1e-9)


def test_far_posterior_matches_numeric_integration():
    rates = np.array([[0.0, 64.0], [0.3, 64.0]])
    k1, n1, theta = 1, 10, 0.1
    kernels = [(1.0, 65.0), (1 + 0.3 * 64, 1 + 0.7 * 64), (1.0, 1.0)]

    def integral(f, lo=0.0):
        return sum(integrate.quad(lambda t, a=a, b=b: stats.beta.pdf(t, a, b) * f(t), lo, 1, limit=200)[0]
                   for a, b in kernels)

    def likelihood(t):
        return stats.binom.pmf(k1, n1, t)

    expected = integral(likelihood, theta) / integral(likelihood)
    assert far_posterior(rates, k1, n1, theta) == pytest.approx(expected, rel=1e-6)
