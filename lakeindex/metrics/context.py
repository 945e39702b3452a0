"""AnalyzerContext: the metrics one analysis run produced, by analyzer, as JSON or a Spark DataFrame."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from lakeindex.metrics.analyzer import Analyzer
from lakeindex.metrics.metric import Metric

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession


@dataclass
class AnalyzerContext:
    """Metrics keyed by the analyzer that computed them (failed metrics carry their error)."""

    metric_map: dict[Analyzer, Metric] = field(default_factory=dict)

    def metric(self, analyzer: Analyzer) -> Metric | None:
        return self.metric_map.get(analyzer)

    def metrics(self) -> list[Metric]:
        return list(self.metric_map.values())

    def __iter__(self) -> Iterator[Metric]:
        return iter(self.metric_map.values())

    def __len__(self) -> int:
        return len(self.metric_map)

    def to_dicts(self) -> list[dict[str, Any]]:
        return [m.to_dict() for m in self.metric_map.values()]

    def as_dataframe(self, spark: SparkSession) -> DataFrame:
        """One row per metric: entity, instance, name, value (scalar), value_json (distributions), error."""
        import json

        rows = [(m.entity, m.instance, m.name, m.analyzer,
                 float(m.value) if isinstance(m.value, int | float) else None,
                 json.dumps(m.value) if isinstance(m.value, dict) else None, m.error) for m in self]
        schema = ("entity string, instance string, name string, analyzer string, value double, "
                  "value_json string, error string")
        return spark.createDataFrame(rows, schema)
