"""The data of one history chart: a metric's value per batch, the range a rule allows for each batch, and
which batches were flagged or fall outside that range.

A range is computed the way the rule checks a batch: a constraint on a lag-differenced metric
(``x[t] - x[t-lag]``, AVH Appendix E) allows a range that moves with the value ``lag`` clean batches
back, so the range is drawn per batch, from the clean batches before it, not as one flat band.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from lakeindex.avh.bounds import beta_for_fpr
from lakeindex.avh.constraints import RangeConstraint, SkipMetric, fit_metric
from lakeindex.history.metric_glossary import metric_range


@dataclass(frozen=True)
class Chart:
    """One metric's history. ``lower``/``upper`` are each point's allowed range (None: unbounded on that side
    or not defined yet); ``next_range`` is what the next batch must satisfy; ``description`` what the metric is."""

    key: str
    title: str
    rule: str
    labels: list[str]
    values: list[float | None]
    flagged: list[bool]
    lower: list[float | None]
    upper: list[float | None]
    outside: list[bool]
    next_range: tuple[float | None, float | None] | None
    description: str = ""

    @property
    def bounded(self) -> bool:
        return any(v is not None for v in self.lower + self.upper)


def _finite(x: float | None) -> float | None:
    return None if x is None or not math.isfinite(x) else float(x)


def raw_range(c: RangeConstraint, history: Sequence[float | None]) -> tuple[float | None, float | None] | None:
    """The range of raw metric values ``c`` allows after ``history`` (the clean values before, oldest first);
    None when the lag reference is missing."""
    t = c.transform
    if t.kind == "identity":
        return _within(c.metric, c.lower, c.upper)
    if len(history) < t.lag:
        return None
    ref = history[-t.lag]
    if ref is None or not math.isfinite(ref):
        return None
    if t.kind == "lag":
        return _within(c.metric, ref + c.lower, ref + c.upper)
    if ref <= 0:
        return None
    return _within(c.metric, ref * math.exp(c.lower) if math.isfinite(c.lower) else -math.inf,
                   ref * math.exp(c.upper) if math.isfinite(c.upper) else math.inf)


def _within(metric: str, lower: float, upper: float) -> tuple[float | None, float | None]:
    """A raw range cut to the values ``metric`` can take (a ratio's band stops at 1), None for an open side."""
    lowest, highest = metric_range(metric)
    return _finite(max(lower, lowest) if math.isfinite(lowest) else lower), \
        _finite(min(upper, highest) if math.isfinite(highest) else upper)


def _violates(c: RangeConstraint, value: float | None, history: Sequence[float | None]) -> bool:
    """The check's own verdict (a missing value or reference violates); False where it is not defined yet."""
    if c.transform.kind != "identity" and len(history) < c.transform.lag:
        return False
    return c.violates(c.transform.apply(value, history))


def chart(key: str, title: str, labels: list[str], values: list[float | None], clean: list[bool],
          constraint: RangeConstraint | None, flagged: list[bool] | None = None, description: str = "") -> Chart:
    """The chart of ``values`` (one per batch, oldest first); ``clean[i]``: batch i is in the clean history
    the rule was learned from (only those are lag references, as when the rule checks a batch);
    ``flagged[i]``: batch i was flagged on this metric (default: every batch that is not clean)."""
    lower: list[float | None] = []
    upper: list[float | None] = []
    outside: list[bool] = []
    history: list[float | None] = []
    for value, ok in zip(values, clean, strict=True):
        rng = raw_range(constraint, history) if constraint is not None else None
        lower.append(rng[0] if rng else None)
        upper.append(rng[1] if rng else None)
        outside.append(constraint is not None and rng is not None and _violates(constraint, value, history))
        if ok:
            history.append(value)
    next_range = raw_range(constraint, history) if constraint is not None else None
    return Chart(key, title, constraint.describe() if constraint is not None else "", labels, values,
                 flagged if flagged is not None else [not ok for ok in clean], lower, upper, outside, next_range,
                 description)


def fitted_constraint(name: str, instance: str, values: Sequence[float | None],
                      delta: float) -> RangeConstraint | None:
    """The single-metric AVH constraint at FPR bound ``delta`` for a metric series that no program covers (a
    declared check's metric): stationarity transform, then Chebyshev's bound (Prop. 1, which holds for any
    metric). None when the series cannot be bounded (fewer than 3 values, not stationary)."""
    try:
        fit = fit_metric(instance, name, values, bound_kinds={name: "chebyshev"})
    except SkipMetric:
        return None
    beta = beta_for_fpr(fit.bound_kind, fit.sigma, delta) if fit.sigma > 0 else 0.0
    return fit.constraint(beta)
