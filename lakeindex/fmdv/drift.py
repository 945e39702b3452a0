"""Validating a new batch against a rule (paper §4, "Distributional test").

The non-conforming fractions of training data C and batch C' are compared with a two-sample
homogeneity test on the 2x2 table [[nonconforming, conforming] for C, C']: Fisher's exact test or
Pearson's chi-squared with Yates' correction (scipy), two-tailed, at significance alpha (0.01).
The batch is flagged when the test rejects homogeneity *and* the fraction rose; a significant drop
is reported as ``changed`` but is not a failure. Rules from FMDV/FMDV-V are strict: they assume a
clean column, so any non-conforming value fails. Empty strings are outside a pattern's scope
(completeness is a separate check) and are ignored.
"""

from __future__ import annotations

from scipy.stats import chi2_contingency, fisher_exact

from lakeindex.fmdv.rule import Rule

SAMPLE_SIZE = 20


def homogeneity_pvalues(k1: int, n1: int, k2: int, n2: int) -> tuple[float, float]:
    """Two-tailed p-values (Fisher exact, chi-squared with Yates) for k1/n1 vs k2/n2."""
    table = [[k1, n1 - k1], [k2, n2 - k2]]
    fisher = float(fisher_exact(table, alternative="two-sided").pvalue)
    if k1 + k2 == 0 or (n1 - k1) + (n2 - k2) == 0:
        chi2 = 1.0  # a zero margin: the fractions are identical
    else:
        chi2 = float(chi2_contingency(table, correction=True).pvalue)
    return fisher, chi2


def validate(rule: Rule, values: list[str], alpha: float = 0.01, test: str = "fisher",
             mode: str | None = None) -> dict:
    """Validate a batch; the result says pass/fail, p-values, fractions, sizes, offending values."""
    if test not in ("fisher", "chi2"):
        raise ValueError(f"unknown test {test!r}: use fisher or chi2")
    mode = mode or rule.validation
    batch = [v for v in values if v]
    out: dict = {"method": rule.method, "pattern": rule.pattern, "mode": mode, "test": test, "alpha": alpha,
                 "train_size": rule.train_size, "train_nonconforming_fraction": rule.train_nonconforming_fraction,
                 "batch_size": len(batch), "empty_values_ignored": len(values) - len(batch)}
    if not rule.feasible:
        out.update(passed=True, flagged=False, skipped="the rule has no pattern (infeasible column)")
        return out
    bad = rule.nonconforming(batch)
    k = sum(bad.values())
    fraction = k / len(batch) if batch else 0.0  # the paper's θ_C' of the batch
    fisher, chi2 = homogeneity_pvalues(rule.train_nonconforming, rule.train_size, k, len(batch)) \
        if rule.train_size and batch else (1.0, 1.0)
    p = fisher if test == "fisher" else chi2
    changed = p < alpha
    if mode == "strict":
        flagged = k > 0
    else:
        flagged = changed and fraction > rule.train_nonconforming_fraction
    out.update(passed=not flagged, flagged=flagged, changed=changed, p_value=p, fisher_p=fisher, chi2_p=chi2,
               batch_nonconforming=k, batch_nonconforming_fraction=fraction,
               offending_sample=[{"value": v, "count": n} for v, n in bad.most_common(SAMPLE_SIZE)])
    return out
