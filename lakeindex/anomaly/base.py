"""What every anomaly detection strategy shares: the anomaly record, the base class, and checking a series.

Its own module so that each strategy module (:mod:`lakeindex.anomaly.strategies`,
:mod:`lakeindex.anomaly.holt_winters`) builds on it without importing another strategy module.
"""

from __future__ import annotations

import math
import numbers
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass, fields
from typing import Any, ClassVar

import numpy as np


@dataclass(frozen=True)
class Anomaly:
    """One anomalous point: its index in the series, its value and a human-readable reason."""

    index: int
    value: float
    confidence: float
    detail: str


def fmt(x: float) -> str:
    """Format a number for a detail message: ``1000.0``, ``14.4``, ``1.5e-07``, ``inf``."""
    text = f"{x:.6g}"
    if math.isfinite(x) and not any(c in text for c in ".en"):
        text += ".0"
    return text


def prepare_series(values: Sequence[float], search_interval: tuple[int, int] | None) -> tuple[np.ndarray, int, int]:
    """Check the series and the interval. Returns ``(array, start, end)`` with ``end`` clamped to the series length."""
    try:
        array = np.asarray(values, dtype=float)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"values must be a sequence of numbers: {exc}") from None
    if array.ndim != 1:
        raise ValueError(f"values must be one-dimensional, got shape {array.shape}")
    bad = np.flatnonzero(~np.isfinite(array))
    if bad.size:
        first_bad = int(bad[0])
        raise ValueError(f"values must be finite; index {first_bad} is {float(array[first_bad])} "
                         "(drop missing metrics first)")
    n = len(array)
    if search_interval is None:
        return array, 0, n
    try:
        start, end = search_interval
    except (TypeError, ValueError):
        raise ValueError(f"search_interval must be a (start, end) pair, got {search_interval!r}") from None
    for name, bound in (("start", start), ("end", end)):
        if isinstance(bound, bool) or not isinstance(bound, numbers.Integral):
            raise ValueError(f"search_interval {name} must be an integer, got {bound!r}")
    if start < 0:
        raise ValueError(f"search_interval start must be >= 0, got {start}")
    if start > end:
        raise ValueError(f"search_interval start {start} is larger than its end {end}")
    return array, min(int(start), n), min(int(end), n)


class AnomalyDetectionStrategy(ABC):
    """Base class: detect anomalies in a series and serialize the strategy's parameters to a dict."""

    type_name: ClassVar[str]

    @abstractmethod
    def detect(self, values: Sequence[float], search_interval: tuple[int, int] | None = None) -> list[Anomaly]:
        """Return the anomalies whose index lies in ``[start, end)`` (default: the whole series), sorted by index."""

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe parameters, ``{"type": ..., <param>: ...}``. ``strategy_from_dict`` reads them back."""
        out: dict[str, Any] = {"type": self.type_name}
        for f in fields(self):  # type: ignore[arg-type]
            value = getattr(self, f.name)
            out[f.name] = None if isinstance(value, float) and math.isinf(value) else value
        return out
