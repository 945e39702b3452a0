"""Whether a metric's processed history looks normal enough for Prop. 3's normal tail (Jarque-Bera test).

Prop. 3 (CLT) assumes each batch's value is an average of many i.i.d. cells. On tiny batches of skewed
data (20 heavy-tailed counts a week) the batch means stay skewed, the normal tail is far too thin, and a
CLT clause false-alarms. The history says so itself: ``constraints.fit_metric`` keeps the CLT bound only
when the Jarque-Bera test does not reject normality of the processed series at ``NORMALITY_ALPHA``, and
otherwise uses Chebyshev (Prop. 1), which holds for any distribution.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

__all__ = ["NORMALITY_ALPHA", "jarque_bera", "looks_normal"]

NORMALITY_ALPHA = 0.05


def jarque_bera(series: Sequence[float] | np.ndarray) -> tuple[float, float]:
    """Jarque-Bera statistic ``n/6 (S^2 + (K - 3)^2 / 4)`` (biased moments) and its chi-squared(2) p-value
    ``exp(-JB / 2)``, as ``scipy.stats.jarque_bera`` computes them; ``(0, 1)`` for a constant series."""
    x = np.asarray(series, dtype=float)
    d = x - x.mean()
    m2 = float(np.mean(d * d))
    if x.size < 2 or m2 == 0.0:
        return 0.0, 1.0
    skew = float(np.mean(d**3)) / m2**1.5
    kurt = float(np.mean(d**4)) / m2**2
    stat = x.size / 6.0 * (skew * skew + (kurt - 3.0) ** 2 / 4.0)
    return stat, math.exp(-stat / 2.0)


def looks_normal(series: Sequence[float] | np.ndarray, alpha: float = NORMALITY_ALPHA) -> bool:
    """True unless the Jarque-Bera test rejects normality of ``series`` at level ``alpha``."""
    return jarque_bera(series)[1] >= alpha
