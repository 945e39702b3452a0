"""Run an anomaly detection strategy over a timestamped metric history (Deequ's ``AnomalyDetector``).

The detector prepares the series for a strategy: it drops missing values, sorts by time and turns
a time interval into an index interval. It then maps the strategy's anomalies back to their data
points.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from lakeindex.anomaly.base import Anomaly, AnomalyDetectionStrategy

__all__ = ["AnomalyDetector", "DataPoint", "DetectionResult"]


@dataclass(frozen=True)
class DataPoint:
    """One metric observation: an integer time (e.g. epoch millis or a version number) and its value.

    ``value`` is ``None`` when the metric is missing for that time. NaN is treated as missing too.
    """

    time: int
    value: float | None

    @property
    def is_missing(self) -> bool:
        """True when the point has no usable value (``None`` or NaN)."""
        return self.value is None or (isinstance(self.value, float) and math.isnan(self.value))


@dataclass(frozen=True)
class DetectionResult:
    """The anomalies a strategy found, with the cleaned, time-sorted series that its indices refer to.

    Attributes:
        anomalies: the anomalies in the searched time interval, sorted by time. ``Anomaly.index``
            indexes ``series``.
        series: the points that the strategy saw: values present, sorted by time.
        search_interval: the index interval ``[start, end)`` of ``series`` that was searched.
    """

    anomalies: list[Anomaly]
    series: list[DataPoint]
    search_interval: tuple[int, int]

    @property
    def is_anomalous(self) -> bool:
        """True when at least one anomaly was found."""
        return bool(self.anomalies)

    @property
    def anomalous_points(self) -> list[DataPoint]:
        """The data points (with their times) that were flagged, in the order of ``anomalies``."""
        return [self.series[a.index] for a in self.anomalies]

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe summary: the verdict and, for each anomaly, its time, value, confidence and detail."""
        return {
            "is_anomalous": self.is_anomalous,
            "anomalies": [
                {"time": self.series[a.index].time, "value": a.value, "confidence": a.confidence, "detail": a.detail}
                for a in self.anomalies
            ],
        }


def _check_point(point: Any, what: str) -> DataPoint:
    """Reject anything that is not a ``DataPoint`` with an integer time."""
    if not isinstance(point, DataPoint):
        raise ValueError(f"{what} must be a DataPoint, got {type(point).__name__}")
    if isinstance(point.time, bool) or not isinstance(point.time, int):
        raise ValueError(f"{what} has a non-integer time {point.time!r}")
    return point


def _sorted_unique(points: Sequence[DataPoint], what: str) -> list[DataPoint]:
    """Sort points by time. Two points with the same time raise ``ValueError``, since their order would be arbitrary."""
    ordered = sorted((_check_point(p, what) for p in points), key=lambda p: p.time)
    for before, after in zip(ordered, ordered[1:], strict=False):
        if before.time == after.time:
            raise ValueError(f"{what} has more than one point at time {after.time}")
    return ordered


@dataclass(frozen=True)
class AnomalyDetector:
    """Apply ``strategy`` to a metric history: check a new point, or search a time interval of a series."""

    strategy: AnomalyDetectionStrategy

    def __post_init__(self) -> None:
        if not isinstance(self.strategy, AnomalyDetectionStrategy):
            raise ValueError(f"strategy must be an AnomalyDetectionStrategy, got {type(self.strategy).__name__}")

    def is_new_point_anomalous(self, history: Sequence[DataPoint], new_point: DataPoint) -> DetectionResult:
        """Judge ``new_point`` against ``history`` (any order). It must be later than every history point.

        The strategy runs over the present history values plus the new point, searching only the new
        point. An empty history, a new point without a value, or a new point that is not later than
        the history raises ``ValueError``.
        """
        new_point = _check_point(new_point, "new_point")
        if not history:
            raise ValueError("history must not be empty")
        ordered = _sorted_unique(history, "history")
        first, last = ordered[0].time, ordered[-1].time
        if new_point.time <= last:
            raise ValueError(f"new point with time {new_point.time} is not later than the history, "
                             f"which spans times {first} to {last}")
        if new_point.is_missing:
            raise ValueError(f"new point at time {new_point.time} has no value")
        return self.detect_anomalies_in_series([*ordered, new_point], (new_point.time, None))

    def detect_anomalies_in_series(self, points: Sequence[DataPoint],
                                   time_interval: tuple[int | None, int | None] = (None, None)) -> DetectionResult:
        """Find anomalies among ``points`` whose time is in ``[start_time, end_time)``. ``None`` leaves that side open.

        Points outside the interval still serve as context (history, training data). Missing values are
        dropped before the strategy runs. Points are sorted by time, and duplicate times raise ``ValueError``.
        """
        start_time, end_time = time_interval
        if start_time is not None and end_time is not None and start_time > end_time:
            raise ValueError(f"time interval start {start_time} is later than its end {end_time}")
        series = [p for p in _sorted_unique(points, "points") if not p.is_missing]
        times = [p.time for p in series]
        start = 0 if start_time is None else bisect.bisect_left(times, start_time)
        end = len(series) if end_time is None else bisect.bisect_left(times, end_time)
        anomalies = self.strategy.detect([float(p.value) for p in series], (start, end))  # type: ignore[arg-type]
        return DetectionResult(anomalies=list(anomalies), series=series, search_interval=(start, end))
