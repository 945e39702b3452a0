"""Validating a new batch against a rule: the lake-informed test (default) and the paper's §4 tests.

``betabinom`` (default): the column's non-conforming rate gets a Beta prior from the index's evidence
for the rule's pattern (the uniform Beta(1, 1) plus ``s`` pseudo-values of which the fraction FPR_T do not
conform), updated by the training counts; the batch is flagged when its non-conforming count is improbably
high under the Beta-binomial posterior predictive (one-sided tail < alpha). The strength ``s`` is the
smallest that puts at most alpha of the prior above the rule's tolerance θ (the -H search accepts no rule
for a column with more than θ non-conforming), capped at ``MAX_PRIOR_STRENGTH``. Equations and the
reasons for each choice: docs/design/validation-statistics.md.

``fisher`` / ``chi2`` (the paper's §4): a two-sample homogeneity test on the 2x2 table [[nonconforming,
conforming] for C, C'], two-tailed at alpha; flagged when it rejects *and* the fraction rose (a significant
drop is reported as ``changed``). With a small training column these have almost no power.

Rules from FMDV/FMDV-V are strict: they assume a clean column, so any non-conforming value fails. Empty
strings are outside a pattern's scope (completeness is a separate check) and are ignored.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from scipy.optimize import brentq
from scipy.stats import beta, betabinom, binom, chi2_contingency, fisher_exact

from lakeindex.fmdv.rule import DEFAULT_TEST, TESTS, Rule

SAMPLE_SIZE = 20
DEFAULT_TOLERANCE = 0.1  # FMDV-H's default θ, for a posted rule whose params lack it
# The lake's evidence never counts for more than this many training values: it describes the pattern's
# columns in general, and a long training column knows its own rate better.
MAX_PRIOR_STRENGTH = 1000.0
# Beta(1, 1), the uniform start: unlike Jeffreys' Beta(½, ½) it puts no excess mass at a rate of 0, so a
# training sample with no value off the rule is not read as a column that never has one (fewer false alarms)
UNIFORM = 1.0


@dataclass(frozen=True)
class LakePrior:
    """Beta(a, b) for a column's non-conforming rate, from the lake's FPR_T worth ``strength`` values."""

    mean: float  # the index's FPR_T for the rule (the sum of its segments' FPRs, at most 1)
    strength: float  # pseudo-values the index's evidence counts as
    tolerance: float  # θ: the prior puts at most alpha above it (unless strength is capped)
    a: float
    b: float


def lake_prior(fpr: float, tolerance: float, alpha: float) -> LakePrior:
    """The weakest Beta(1 + μs, 1 + (1 − μ)s), μ = ``fpr``, whose mass above ``tolerance`` is at most alpha."""
    mu = min(max(fpr, 0.0), 1.0)

    def tail(s: float) -> float:
        return float(beta.sf(tolerance, UNIFORM + mu * s, UNIFORM + (1 - mu) * s)) - alpha

    if tail(0.0) <= 0:
        s = 0.0
    elif tail(MAX_PRIOR_STRENGTH) > 0:  # the lake's rate itself is near or above θ
        s = MAX_PRIOR_STRENGTH
    else:
        s = float(brentq(tail, 0.0, MAX_PRIOR_STRENGTH, xtol=1e-6))
    return LakePrior(mu, s, tolerance, UNIFORM + mu * s, UNIFORM + (1 - mu) * s)


def rule_prior(rule: Rule, alpha: float) -> LakePrior:
    """The lake prior of a feasible rule: its FPR_T and its own tolerance θ (``params["theta"]``)."""
    theta = rule.params.get("theta", DEFAULT_TOLERANCE)
    tolerance = float(theta) if isinstance(theta, int | float) and 0 <= theta < 1 else DEFAULT_TOLERANCE
    return lake_prior(rule.fpr or 0.0, tolerance, alpha)


def predictive_pvalue(prior: LakePrior, k1: int, n1: int, k2: int, n2: int) -> tuple[float, float]:
    """P(K ≥ k2) for K ~ BetaBinomial(n2, a + k1, b + n1 − k1), and that posterior's mean rate."""
    a, b = prior.a + k1, prior.b + (n1 - k1)
    p = 1.0 if k2 <= 0 else float(betabinom.sf(k2 - 1, n2, a, b))
    return min(max(p, 0.0), 1.0), a / (a + b)


def training_pvalue(k1: int, n1: int, fraction: float) -> float:
    """P(K1 <= k1) for K1 ~ Bin(n1, fraction): how likely the training counts are had the column always been
    off the rule at the batch's fraction. Above alpha, the training sample alone cannot tell the batch's
    rate from the column's usual one (5 values all conform with probability 0.33 at a rate of 20%), and a
    flag rests on the lake's prior."""
    return min(max(float(binom.cdf(k1, n1, fraction)), 0.0), 1.0) if n1 else 1.0


def homogeneity_pvalues(k1: int, n1: int, k2: int, n2: int) -> tuple[float, float]:
    """Two-tailed p-values (Fisher exact, chi-squared with Yates) for k1/n1 vs k2/n2."""
    table = [[k1, n1 - k1], [k2, n2 - k2]]
    fisher = float(fisher_exact(table, alternative="two-sided").pvalue)
    if k1 + k2 == 0 or (n1 - k1) + (n2 - k2) == 0:
        chi2 = 1.0  # a zero margin: the fractions are identical
    else:
        chi2 = float(chi2_contingency(table, correction=True).pvalue)
    return fisher, chi2


def validate(rule: Rule, values: list[str], alpha: float = 0.01, test: str = DEFAULT_TEST,
             mode: str | None = None) -> dict:
    """Validate a batch; the result says pass/fail, p-values, fractions, sizes, offending values."""
    if test not in TESTS:
        raise ValueError(f"unknown test {test!r}: use {', '.join(TESTS)}")
    mode = mode or rule.validation
    batch = [v for v in values if v]
    out: dict = {"method": rule.method, "pattern": rule.pattern, "mode": mode, "test": test, "alpha": alpha,
                 "train_size": rule.train_size, "train_nonconforming_fraction": rule.train_nonconforming_fraction,
                 "batch_size": len(batch), "empty_values_ignored": len(values) - len(batch)}
    if not rule.feasible:
        out.update(passed=True, flagged=False, skipped="the rule has no pattern (infeasible column)")
        return out
    bad = rule.nonconforming(batch)
    k, n = sum(bad.values()), len(batch)
    fraction = k / n if n else 0.0  # the paper's θ_C' of the batch
    fisher, chi2 = homogeneity_pvalues(rule.train_nonconforming, rule.train_size, k, n) \
        if rule.train_size and batch else (1.0, 1.0)
    prior = rule_prior(rule, alpha)
    predictive, expected = predictive_pvalue(prior, rule.train_nonconforming, rule.train_size, k, n)
    p = {"betabinom": predictive, "fisher": fisher, "chi2": chi2}[test]
    changed = p < alpha
    if mode == "strict":
        flagged = k > 0
    elif test == "betabinom":
        flagged = changed  # one-sided: only a count improbably high is tested
    else:
        flagged = changed and fraction > rule.train_nonconforming_fraction
    out.update(passed=not flagged, flagged=flagged, changed=changed, p_value=p, betabinom_p=predictive,
               fisher_p=fisher, chi2_p=chi2, prior=asdict(prior), expected_nonconforming_fraction=expected,
               training_p_at_batch_rate=training_pvalue(rule.train_nonconforming, rule.train_size, fraction),
               batch_nonconforming=k, batch_nonconforming_fraction=fraction,
               offending_sample=[{"value": v, "count": c} for v, c in bad.most_common(SAMPLE_SIZE)])
    return out
