"""The lake's own distribution of a rule's column rates, by brute force: a calibrated prior for the bench.

For a rule, every column of a lake whose first ``per_column`` non-empty values the rule matches in at least
1/16 (the index's evidence share) is one draw of "a column of this domain"; its rate is the share of those
values the rule rejects. Used as the prior of the validation test (each column a Beta kernel of its
measured rate, worth the values measured, plus one uniform Beta(1, 1) pseudo-column), the posterior
predictive p-value is calibrated over columns like the lake's: a clean batch of a lake column is flagged
at most alpha of the time, whatever the rule. ``bench/validation_power.py --oracle-prior`` scores it to show
what no count-based test can beat: the index stores only FPR_T (the mean of these rates), and segments'
rates measured where each fits best, not the whole rule's. :func:`far_posterior` gives, with the same prior,
how likely a column is more than the rule's tolerance off it given its training sample: the bench's
``oracle-refusal`` row keeps only the rules for which that is at most alpha, the most an inference that
refuses rules on the lake's evidence could do.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from scipy.stats import beta, betabinom

from bench.eval_quality import load_columns
from lakeindex.patterns.pattern import element_regex, parse

EVIDENCE_SHARE = 16  # as lakeindex.patterns.enumerate.DEFAULT_MIN_SHARE


class LakeRates:
    """Rates of rules over every column of one lake, measured on each column's first ``per_column`` values."""

    def __init__(self, lake: Path, per_column: int = 64) -> None:
        columns = load_columns(lake, 10**9, 0, {}, min_values=1)
        heads = [c.values[:per_column] for c in columns]
        self.sizes = np.array([len(h) for h in heads])
        self.starts = np.concatenate(([0], np.cumsum(self.sizes)[:-1]))
        self.values = pa.array([v for h in heads for v in h], type=pa.large_string())
        self._cache: dict[str, np.ndarray] = {}

    def rates(self, pattern: str) -> np.ndarray:
        """(rate, values measured) of each column that is evidence for ``pattern``, shape (k, 2)."""
        if pattern not in self._cache:
            regex = "^(?:" + "".join(element_regex(e) for e in parse(pattern)) + ")$"
            hits = pc.match_substring_regex(self.values, pattern=regex).to_numpy(zero_copy_only=False)
            good = np.add.reduceat(hits.astype(np.int64), self.starts)
            keep = good * EVIDENCE_SHARE >= self.sizes
            self._cache[pattern] = np.column_stack((1 - good[keep] / self.sizes[keep], self.sizes[keep]))
        return self._cache[pattern]


def _kernels(rates: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Beta(a, b) of each measured column (worth its values) and of the uniform pseudo-column, last."""
    r, m = rates[:, 0], rates[:, 1]
    return np.append(1 + r * m, 1.0), np.append(1 + (1 - r) * m, 1.0)


def _posterior_weights(a: np.ndarray, b: np.ndarray, k1: int, n1: int, prior: np.ndarray | None = None) -> np.ndarray:
    """Each Beta(a, b) kernel's posterior weight after k1 of n1 training values off the rule (equal priors unless
    given)."""
    logw = betabinom.logpmf(k1, n1, a, b)
    if prior is not None:
        logw = logw + np.log(np.maximum(prior, 1e-300))
    w = np.exp(logw - logw.max())
    return w / w.sum()


def far_posterior(rates: np.ndarray, k1: int, n1: int, theta: float) -> float:
    """P(rate > theta | k1 of n1 training values off the rule) with the lake's columns as the prior: how likely
    the column is one the rule does not describe (more than its tolerance off it), given its training sample."""
    a, b = _kernels(rates)
    return float(np.dot(_posterior_weights(a, b, k1, n1), beta.sf(theta, a + k1, b + n1 - k1)))


def oracle_pvalue(rates: np.ndarray, k1: int, n1: int, k2: int, n2: int,
                  default: tuple[float, float, float] | None = None) -> float:
    """P(K2 >= k2) under the lake's columns as the prior, updated by k1 of n1 training values off the rule.

    ``default`` = (weight, a, b) mixes in a Beta(a, b) prior (the index's) at that prior weight, the lake's
    columns sharing the rest; each part's posterior weight follows its likelihood of the training counts."""
    a, b = _kernels(rates)
    prior = np.full(len(a), 1 / len(a))
    if default is not None:
        weight, da, db = default
        a, b = np.append(a, da), np.append(b, db)
        prior = np.append(prior * (1 - weight), weight)
    if k2 <= 0:
        return 1.0
    return float(np.dot(_posterior_weights(a, b, k1, n1, prior), betabinom.sf(k2 - 1, n2, a + k1, b + n1 - k1)))
