"""Anomaly detection strategies for metric time series (Deequ VLDB 2018 §3.4).

Python re-creation of ``com.amazon.deequ.anomalydetection``. Each strategy is a frozen dataclass
with validated parameters and one method, ``detect(values, search_interval)``. It returns the
anomalies whose index lies in ``[start, end)``. Points outside the interval still count as
context: as the previous values for differencing, as the running estimate, or as the training set.

Conventions shared by all strategies:

* ``values`` is a 1-D sequence of finite floats. NaN or inf raises ``ValueError``, so drop missing
  metrics first (``AnomalyDetector`` does this for you).
* ``search_interval`` defaults to the whole series. ``start`` must be ``>= 0`` and ``<= end``, and
  an ``end`` past the series is clamped. An empty series or empty interval gives ``[]``.
* Bounds are strict. A value exactly on a bound is not anomalous, so with a standard deviation of
  0, exact repeats of a constant series are never flagged but any deviation from it is.
* ``confidence`` is always 1.0, as in Deequ: these are deterministic rules, not probabilistic
  models.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence
from dataclasses import dataclass, fields
from typing import Any, ClassVar

import numpy as np

from lakeindex.anomaly.base import Anomaly, AnomalyDetectionStrategy, fmt, prepare_series
from lakeindex.anomaly.holt_winters import HoltWintersStrategy

__all__ = [
    "AbsoluteChangeStrategy",
    "BatchNormalStrategy",
    "OnlineNormalStrategy",
    "RateOfChangeStrategy",
    "RelativeRateOfChangeStrategy",
    "SimpleThresholdStrategy",
    "strategy_from_dict",
]


# --------------------------------------------------------------------------- helpers


def _as_float(name: str, value: Any, *, allow_none: bool = False, allow_inf: bool = True) -> float | None:
    """Validate a numeric parameter and return it as a float (``None`` passes if allowed)."""
    if value is None:
        if allow_none:
            return None
        raise ValueError(f"{name} is required (a number), got None")
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ValueError(f"{name} must be a number, got {value!r}")
    result = float(value)
    if math.isnan(result) or (not allow_inf and math.isinf(result)):
        raise ValueError(f"{name} must be a finite number, got {value!r}")
    return result


def _as_factor(name: str, value: Any) -> float | None:
    """Validate an optional deviation factor: ``None`` (no bound on that side) or a finite number >= 0."""
    factor = _as_float(name, value, allow_none=True, allow_inf=False)
    if factor is not None and factor < 0:
        raise ValueError(f"{name} cannot be negative, got {value!r}")
    return factor


def _as_order(value: Any) -> int:
    """Validate a differencing order: an int >= 1."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise ValueError(f"order must be an integer >= 1, got {value!r}")
    if value < 1:
        raise ValueError(f"order must be >= 1, got {value!r}")
    return int(value)


def _as_bool(name: str, value: Any) -> bool:
    """Validate a boolean flag (no truthy strings or ints)."""
    if not isinstance(value, bool):
        raise ValueError(f"{name} must be true or false, got {value!r}")
    return value


def _check_rate_bounds(decrease: float | None, increase: float | None) -> None:
    """Change strategies need at least one bound, and the decrease bound must not exceed the increase bound."""
    if decrease is None and increase is None:
        raise ValueError("at least one of max_rate_decrease and max_rate_increase must be given")
    if decrease is not None and increase is not None and decrease > increase:
        raise ValueError(f"max_rate_decrease ({decrease}) must not be larger than max_rate_increase ({increase})")


def _check_factors(lower: float | None, upper: float | None) -> None:
    """Normal strategies need at least one deviation factor."""
    if lower is None and upper is None:
        raise ValueError("at least one of lower_deviation_factor and upper_deviation_factor must be given")


def _normal_bounds(mean: float, std: float, lower_factor: float | None, upper_factor: float | None,
                   ) -> tuple[float, float]:
    """``mean -/+ factor * std``; a missing factor leaves that side unbounded."""
    lower = -math.inf if lower_factor is None else mean - lower_factor * std
    upper = math.inf if upper_factor is None else mean + upper_factor * std
    return lower, upper


def _normal_detail(value: float, mean: float, std: float, lower_factor: float | None, upper_factor: float | None,
                   lower: float, upper: float) -> str:
    """Describe why a value lies outside ``mean -/+ factor * std``."""
    if value > upper:
        return (f"value {fmt(value)} is above the upper bound {fmt(upper)} "
                f"(mean {fmt(mean)} + {fmt(upper_factor)} * std {fmt(std)})")
    return (f"value {fmt(value)} is below the lower bound {fmt(lower)} "
            f"(mean {fmt(mean)} - {fmt(lower_factor)} * std {fmt(std)})")


# --------------------------------------------------------------------------- threshold


@dataclass(frozen=True, kw_only=True)
class SimpleThresholdStrategy(AnomalyDetectionStrategy):
    """Flag values outside the fixed range ``[lower_bound, upper_bound]``.

    Parameters (keyword-only):
        lower_bound: smallest accepted value (default ``-inf``; ``None`` also means unbounded).
        upper_bound: largest accepted value (required; ``None`` means unbounded).
    """

    type_name: ClassVar[str] = "SimpleThreshold"

    lower_bound: float = -math.inf
    upper_bound: float

    def __post_init__(self) -> None:
        lower = _as_float("lower_bound", self.lower_bound, allow_none=True)
        upper = _as_float("upper_bound", self.upper_bound, allow_none=True)
        lower = -math.inf if lower is None else lower
        upper = math.inf if upper is None else upper
        if lower > upper:
            raise ValueError(f"lower_bound ({lower}) must not be larger than upper_bound ({upper})")
        object.__setattr__(self, "lower_bound", lower)
        object.__setattr__(self, "upper_bound", upper)

    def detect(self, values: Sequence[float], search_interval: tuple[int, int] | None = None) -> list[Anomaly]:
        """Flag every value in the interval that is below ``lower_bound`` or above ``upper_bound``."""
        array, start, end = prepare_series(values, search_interval)
        anomalies = []
        for i in range(start, end):
            value = float(array[i])
            if value > self.upper_bound:
                detail = f"value {fmt(value)} is above the upper bound {fmt(self.upper_bound)}"
            elif value < self.lower_bound:
                detail = f"value {fmt(value)} is below the lower bound {fmt(self.lower_bound)}"
            else:
                continue
            anomalies.append(Anomaly(i, value, 1.0, detail))
        return anomalies


# --------------------------------------------------------------------------- change strategies


@dataclass(frozen=True)
class _ChangeBounds(AnomalyDetectionStrategy):
    """Shared parameters of the change strategies: accepted decrease/increase and the lag ``order``."""

    max_rate_decrease: float | None = None
    max_rate_increase: float | None = None
    order: int = 1

    def __post_init__(self) -> None:
        decrease = _as_float("max_rate_decrease", self.max_rate_decrease, allow_none=True)
        increase = _as_float("max_rate_increase", self.max_rate_increase, allow_none=True)
        _check_rate_bounds(decrease, increase)
        object.__setattr__(self, "max_rate_decrease", decrease)
        object.__setattr__(self, "max_rate_increase", increase)
        object.__setattr__(self, "order", _as_order(self.order))


@dataclass(frozen=True)
class AbsoluteChangeStrategy(_ChangeBounds):
    """Flag a point when the ``order``-th difference ending at it leaves ``[max_rate_decrease, max_rate_increase]``.

    Differencing makes a trending series stationary: ``order=1`` compares ``x[i] - x[i-1]``, and ``order=2``
    compares the change of the change, so a steadily accelerating series passes. As in Deequ, ``diff`` is
    applied ``order`` times, so the value at ``i`` depends on ``x[i-order] .. x[i]``. The first ``order``
    points of the series have no such difference and are never flagged. Points before the search interval
    are used as context.

    Parameters:
        max_rate_decrease: smallest accepted difference, usually negative (``None``: no lower bound).
        max_rate_increase: largest accepted difference (``None``: no upper bound). At least one is required.
        order: how many times to difference, ``>= 1``.
    """

    type_name: ClassVar[str] = "AbsoluteChange"


    def detect(self, values: Sequence[float], search_interval: tuple[int, int] | None = None) -> list[Anomaly]:
        """Flag indices ``i`` in the interval (``i >= order``) whose ``order``-th difference is out of bounds."""
        array, start, end = prepare_series(values, search_interval)
        first = max(start, self.order)
        if first >= end:
            return []
        # Differences that end at the indices first .. end-1 need only the values from first - order on.
        changes = np.diff(array[first - self.order:end], n=self.order)
        anomalies = []
        for offset, change in enumerate(changes):
            change = float(change)
            i = first + offset
            if self.max_rate_increase is not None and change > self.max_rate_increase:
                where, bound_name, bound = "above", "maximum increase", self.max_rate_increase
            elif self.max_rate_decrease is not None and change < self.max_rate_decrease:
                where, bound_name, bound = "below", "maximum decrease", self.max_rate_decrease
            else:
                continue
            detail = (f"change {change:+.6g} (order-{self.order} difference ending at value {fmt(float(array[i]))}) "
                      f"is {where} the {bound_name} {fmt(bound)}")
            anomalies.append(Anomaly(i, float(array[i]), 1.0, detail))
        return anomalies


@dataclass(frozen=True)
class RelativeRateOfChangeStrategy(_ChangeBounds):
    """Flag a point when the ratio ``x[i] / x[i-order]`` leaves ``[max_rate_decrease, max_rate_increase]``.

    Example: ``RelativeRateOfChangeStrategy(0.9, 1.1)`` flags any step that changes the value by more than
    10%. ``order=7`` on a daily metric compares each day with the same weekday a week earlier. Unlike
    ``AbsoluteChangeStrategy``, this is a single ratio over a lag of ``order``, not a repeated difference,
    as in Deequ's ``RelativeRateOfChangeStrategy``. The first ``order`` points are never flagged.

    ``RateOfChangeStrategy`` is *not* this class: as in Deequ, it is the (deprecated) name of
    ``AbsoluteChangeStrategy``, so that a ported check keeps its meaning.

    Division by zero (Deequ would give NaN or inf):
        * ``0 -> 0`` has ratio 1 (no change);
        * ``x -> 0`` with ``x != 0`` has ratio 0 (no special case; caught by a decrease bound);
        * ``0 -> x`` with ``x > 0`` has ratio ``+inf`` and ``0 -> x`` with ``x < 0`` has ``-inf``. They are
          flagged by an increase bound or a decrease bound, respectively.
    Ratios between values of different signs are negative. A decrease bound flags them.

    Parameters:
        max_rate_decrease: smallest accepted ratio, e.g. 0.5 (``None``: no lower bound).
        max_rate_increase: largest accepted ratio, e.g. 2.0 (``None``: no upper bound). At least one is required.
        order: lag between the compared points, ``>= 1``.
    """

    type_name: ClassVar[str] = "RelativeRateOfChange"


    @staticmethod
    def ratios(new: np.ndarray, old: np.ndarray) -> np.ndarray:
        """Element-wise ``new / old`` with the division-by-zero rules above (no warnings, no NaN)."""
        out = np.empty_like(new)
        nonzero = old != 0
        np.divide(new, old, out=out, where=nonzero)
        out[~nonzero & (new == 0)] = 1.0
        out[~nonzero & (new > 0)] = np.inf
        out[~nonzero & (new < 0)] = -np.inf
        return out

    def detect(self, values: Sequence[float], search_interval: tuple[int, int] | None = None) -> list[Anomaly]:
        """Flag indices ``i`` in the interval (``i >= order``) whose ratio to ``x[i-order]`` is out of bounds."""
        array, start, end = prepare_series(values, search_interval)
        first = max(start, self.order)
        if first >= end:
            return []
        new = array[first:end]
        old = array[first - self.order:end - self.order]
        ratios = self.ratios(new, old)
        anomalies = []
        for offset, ratio in enumerate(ratios):
            ratio = float(ratio)
            i = first + offset
            if self.max_rate_increase is not None and ratio > self.max_rate_increase:
                where, bound_name, bound = "above", "maximum increase", self.max_rate_increase
            elif self.max_rate_decrease is not None and ratio < self.max_rate_decrease:
                where, bound_name, bound = "below", "maximum decrease", self.max_rate_decrease
            else:
                continue
            detail = (f"ratio {fmt(ratio)} of value {fmt(float(new[offset]))} to value {fmt(float(old[offset]))} "
                      f"{self.order} point(s) earlier is {where} the {bound_name} {fmt(bound)}")
            anomalies.append(Anomaly(i, float(array[i]), 1.0, detail))
        return anomalies


#: Alias of :class:`RelativeRateOfChangeStrategy`. In Deequ, the deprecated ``RateOfChangeStrategy`` is
#: the absolute-change strategy; here "rate of change" means a ratio (see the class docstring).
RateOfChangeStrategy = AbsoluteChangeStrategy  # Deequ's deprecated name of the absolute change


# --------------------------------------------------------------------------- normal-distribution strategies


_MIN_ONLINE_ESTIMATE = 2  # accepted points needed before OnlineNormalStrategy judges a point


@dataclass(frozen=True)
class OnlineNormalStrategy(AnomalyDetectionStrategy):
    """Flag a point that lies more than ``factor * std`` from the running mean of the points before it.

    The running mean and population variance (divide by n) are updated with Welford's algorithm.
    Each point is compared with the estimate of the accepted points before it. The point itself is
    left out, unlike Deequ, which adds it first and so cannot flag anything within about the first
    ten points at factor 3. A point is judged only once at least 2 points are in the estimate,
    because the std of one point is 0 by definition, not by evidence. With ``ignore_anomalies``, one
    flagged point would otherwise freeze the estimate at that single point. So indices 0 and 1 are
    never flagged. Use ``ignore_start_percentage`` for a longer warm-up.

    Parameters:
        lower_deviation_factor: flag values below ``mean - factor * std`` (``None``: no lower bound).
        upper_deviation_factor: flag values above ``mean + factor * std`` (``None``: no upper bound).
            At least one factor is required; factors must be >= 0.
        ignore_start_percentage: fraction in [0, 1] of the whole series, counted from index 0. Points
            with ``index < len(values) * ignore_start_percentage`` are never flagged, but they do train
            the estimate.
        ignore_anomalies: if true, flagged points are left out of the running estimate, so one spike
            does not widen the bounds for later points. After a genuine level shift, every later point
            stays flagged until the strategy is reset. Whether a point counts as flagged does not depend
            on the search interval, which only filters the output (Deequ adds would-be anomalies before
            the interval to the estimate).
    """

    type_name: ClassVar[str] = "OnlineNormal"

    lower_deviation_factor: float | None = 3.0
    upper_deviation_factor: float | None = 3.0
    ignore_start_percentage: float = 0.1
    ignore_anomalies: bool = True

    def __post_init__(self) -> None:
        lower = _as_factor("lower_deviation_factor", self.lower_deviation_factor)
        upper = _as_factor("upper_deviation_factor", self.upper_deviation_factor)
        _check_factors(lower, upper)
        pct = _as_float("ignore_start_percentage", self.ignore_start_percentage, allow_inf=False)
        if not 0.0 <= pct <= 1.0:
            raise ValueError(f"ignore_start_percentage must be in [0, 1], got {self.ignore_start_percentage!r}")
        object.__setattr__(self, "lower_deviation_factor", lower)
        object.__setattr__(self, "upper_deviation_factor", upper)
        object.__setattr__(self, "ignore_start_percentage", pct)
        object.__setattr__(self, "ignore_anomalies", _as_bool("ignore_anomalies", self.ignore_anomalies))

    def detect(self, values: Sequence[float], search_interval: tuple[int, int] | None = None) -> list[Anomaly]:
        """Walk the series from index 0 with a running estimate; report the flagged points in the interval."""
        array, start, end = prepare_series(values, search_interval)
        skip = len(array) * self.ignore_start_percentage
        count, mean, m2 = 0, 0.0, 0.0
        anomalies = []
        for i in range(end):  # points after the interval cannot influence it
            value = float(array[i])
            flagged = False
            if count >= _MIN_ONLINE_ESTIMATE and i >= skip:
                std = math.sqrt(m2 / count)
                lower, upper = _normal_bounds(mean, std, self.lower_deviation_factor, self.upper_deviation_factor)
                if value < lower or value > upper:
                    flagged = True
                    if i >= start:
                        detail = _normal_detail(value, mean, std, self.lower_deviation_factor,
                                                self.upper_deviation_factor, lower, upper)
                        anomalies.append(Anomaly(i, value, 1.0, detail))
            if not (flagged and self.ignore_anomalies):
                count += 1
                delta = value - mean
                mean += delta / count
                m2 += delta * (value - mean)
        return anomalies


@dataclass(frozen=True)
class BatchNormalStrategy(AnomalyDetectionStrategy):
    """Flag points in the interval more than ``factor * std`` from the mean of a training set.

    The training set is every point outside the search interval, or the whole series when
    ``include_interval`` is true. It needs at least 2 points, because the standard deviation is the
    sample one (divide by n - 1, as Breeze's ``meanAndVariance`` in Deequ). If all training values are
    equal, the mean is that exact value and std is 0: exact repeats pass and any deviation is flagged.

    Parameters:
        lower_deviation_factor: flag values below ``mean - factor * std`` (``None``: no lower bound).
        upper_deviation_factor: flag values above ``mean + factor * std`` (``None``: no upper bound).
            At least one factor is required; factors must be >= 0.
        include_interval: also train on the points being judged. This is more robust with little
            history, but a large anomaly widens its own bounds.
    """

    type_name: ClassVar[str] = "BatchNormal"

    lower_deviation_factor: float | None = 3.0
    upper_deviation_factor: float | None = 3.0
    include_interval: bool = False

    def __post_init__(self) -> None:
        lower = _as_factor("lower_deviation_factor", self.lower_deviation_factor)
        upper = _as_factor("upper_deviation_factor", self.upper_deviation_factor)
        _check_factors(lower, upper)
        object.__setattr__(self, "lower_deviation_factor", lower)
        object.__setattr__(self, "upper_deviation_factor", upper)
        object.__setattr__(self, "include_interval", _as_bool("include_interval", self.include_interval))

    def detect(self, values: Sequence[float], search_interval: tuple[int, int] | None = None) -> list[Anomaly]:
        """Fit mean and std on the training set, then flag out-of-bounds points in the interval."""
        array, start, end = prepare_series(values, search_interval)
        if start == end:
            return []
        training = array if self.include_interval else np.concatenate([array[:start], array[end:]])
        if len(training) < 2:
            which = "the series" if self.include_interval else f"outside the search interval [{start}, {end})"
            raise ValueError(f"BatchNormalStrategy needs at least 2 training points {which}, got {len(training)}")
        if np.ptp(training) == 0:
            mean, std = float(training[0]), 0.0
        else:
            mean, std = float(np.mean(training)), float(np.std(training, ddof=1))
        lower, upper = _normal_bounds(mean, std, self.lower_deviation_factor, self.upper_deviation_factor)
        anomalies = []
        for i in range(start, end):
            value = float(array[i])
            if value < lower or value > upper:
                detail = _normal_detail(value, mean, std, self.lower_deviation_factor, self.upper_deviation_factor,
                                        lower, upper)
                anomalies.append(Anomaly(i, value, 1.0, detail))
        return anomalies


# --------------------------------------------------------------------------- factory

_STRATEGIES: dict[str, type[AnomalyDetectionStrategy]] = {
    cls.type_name: cls
    for cls in (SimpleThresholdStrategy, AbsoluteChangeStrategy, RelativeRateOfChangeStrategy,
                OnlineNormalStrategy, BatchNormalStrategy, HoltWintersStrategy)
}
_ALIASES: dict[str, str] = {"RateOfChange": AbsoluteChangeStrategy.type_name}  # as in Deequ


def strategy_from_dict(config: dict[str, Any]) -> AnomalyDetectionStrategy:
    """Build a strategy from ``{"type": "OnlineNormal", <param>: value, ...}``, the inverse of ``to_dict``.

    ``type`` may carry the ``Strategy`` suffix, and ``RateOfChange`` names the relative strategy. An
    unknown type, an unknown or missing parameter, or a bad value raises ``ValueError`` with the
    valid choices.
    """
    if not isinstance(config, dict):
        raise ValueError(f"a strategy config must be a dict, got {type(config).__name__}")
    params = dict(config)
    name = params.pop("type", None)
    strategies = _STRATEGIES
    valid_types = ", ".join(sorted([*strategies, *_ALIASES]))
    if not isinstance(name, str):
        raise ValueError(f"a strategy config needs a string 'type', one of: {valid_types}")
    key = name.removesuffix("Strategy")
    cls = strategies.get(_ALIASES.get(key, key))
    if cls is None:
        raise ValueError(f"unknown anomaly detection strategy type {name!r}; valid types: {valid_types}")
    valid_params = [f.name for f in fields(cls)]  # type: ignore[arg-type]
    unknown = sorted(set(params) - set(valid_params))
    if unknown:
        raise ValueError(f"unknown parameter(s) {', '.join(map(repr, unknown))} for {cls.type_name}; "
                         f"valid parameters: {', '.join(valid_params)}")
    try:
        return cls(**params)
    except TypeError as exc:  # e.g. a missing required parameter
        raise ValueError(f"invalid parameters for {cls.type_name} ({exc}); valid parameters: "
                         f"{', '.join(valid_params)}") from None
