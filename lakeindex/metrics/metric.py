"""A computed metric: the value an analyzer produced for one entity, or why it could not.

A metric is a plain record so that it serialises unchanged into the metrics repository, check results
and the service: ``value`` is a float for scalar metrics and a JSON-able dict for distributions
(histograms, quantiles, type counts); ``error`` names the failure when the metric could not be computed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Metric:
    """One metric value: ``analyzer`` is the analyzer's canonical spec and the metric's identity."""

    analyzer: str
    name: str
    instance: str
    entity: str  # "Dataset" | "Column" | "Multicolumn"
    value: float | dict[str, Any] | None = None
    error: str | None = None
    extra: dict[str, Any] = field(default_factory=dict, compare=False)

    @property
    def ok(self) -> bool:
        return self.error is None

    def to_dict(self) -> dict[str, Any]:
        value = self.value
        if isinstance(value, float) and not math.isfinite(value):
            value = str(value)  # JSON has no NaN/inf; keep them readable and round-trippable
        out = {"analyzer": self.analyzer, "name": self.name, "instance": self.instance, "entity": self.entity,
               "value": value, "error": self.error}
        if self.extra:
            out["extra"] = self.extra
        return out

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Metric:
        value = d.get("value")
        if isinstance(value, str) and value in ("nan", "inf", "-inf"):
            value = float(value)
        return cls(analyzer=d["analyzer"], name=d["name"], instance=d["instance"], entity=d["entity"],
                   value=value, error=d.get("error"), extra=d.get("extra") or {})
