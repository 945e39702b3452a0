"""Deequ-style queries over a metrics repository: ``repo.load().for_dataset(...).after(...).get()``.

The builder is immutable (each call returns a new query), so a base query can be shared and refined.
Filters on the result key (dataset, tags, time) apply before "last write wins" deduplication and the
analyzer filter after it, so an older write of a key can never resurface through a narrower query.
"""

from __future__ import annotations

import json
import numbers
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Protocol

from lakeindex.metrics.metric import Metric
from lakeindex.repository.result_key import ResultKey
from lakeindex.repository.rows import plain_row, row_to_metric

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession


def analyzer_spec(analyzer: Any) -> str:
    """The spec string of an analyzer given as a spec/name string or as an object with ``spec()``."""
    if isinstance(analyzer, str):
        return analyzer
    spec = getattr(analyzer, "spec", None)
    if callable(spec):
        spec = spec()
    if not isinstance(spec, str):
        raise TypeError(f"expected an analyzer spec string or an analyzer with spec(), got {analyzer!r}")
    return spec


@dataclass(frozen=True)
class AnalysisResult:
    """All metrics saved for one (dataset, result key), in the order they were saved."""

    dataset: str
    key: ResultKey
    metrics: list[Metric] = field(default_factory=list)

    def metric(self, analyzer: Any) -> Metric | None:
        """The metric of one analyzer (spec string or analyzer object), or None when not in this result."""
        spec = analyzer_spec(analyzer)
        return next((m for m in self.metrics if m.analyzer == spec), None)

    def to_dict(self) -> dict[str, Any]:
        """JSON-able form (NaN/inf values as strings, as ``Metric.to_dict`` does)."""
        return {"dataset": self.dataset, **self.key.to_dict(), "metrics": [m.to_dict() for m in self.metrics]}


@dataclass(frozen=True)
class QueryFilter:
    """What a query selects; ``exact_tags`` requires equal tags rather than a superset."""

    dataset: str | None = None
    tags: tuple[tuple[str, str], ...] = ()
    exact_tags: bool = False
    after: int | None = None  # inclusive, epoch ms
    before: int | None = None  # inclusive, epoch ms
    analyzers: frozenset[str] | None = None  # matched against a metric's analyzer spec or its name
    absent_tags: frozenset[str] = frozenset()  # tag keys a result must not have

    def matches_tags(self, tags: Mapping[str, str]) -> bool:
        """True when a result with these tags passes the tag filter."""
        if any(k in tags for k in self.absent_tags):
            return False
        if self.exact_tags:
            return dict(self.tags) == dict(tags)
        return all(tags.get(k) == v for k, v in self.tags)


class QueryBackend(Protocol):
    """What a repository implements so that ``MetricsQuery`` can run against it."""

    def read_rows(self, f: QueryFilter) -> list[dict[str, Any]]: ...

    def spark_dataframe(self, spark: SparkSession, f: QueryFilter) -> DataFrame: ...


def _timestamp(ts: Any, what: str) -> int:
    if isinstance(ts, bool) or not isinstance(ts, numbers.Integral):
        raise ValueError(f"{what}() takes epoch milliseconds as an int, got {ts!r}")
    return int(ts)


@dataclass(frozen=True)
class MetricsQuery:
    """An immutable query builder; finish with ``get()``, ``get_rows()`` or ``as_dataframe(spark)``."""

    backend: QueryBackend
    filter: QueryFilter = field(default_factory=QueryFilter)

    def for_dataset(self, dataset: str) -> MetricsQuery:
        """Only results of this dataset."""
        if not isinstance(dataset, str) or not dataset:
            raise ValueError(f"dataset name must be a non-empty string, got {dataset!r}")
        return replace(self, filter=replace(self.filter, dataset=dataset))

    def with_tag_values(self, tags: Mapping[str, str]) -> MetricsQuery:
        """Only results whose tags include all these key/value pairs (added to earlier tag filters)."""
        merged = dict(self.filter.tags) | ResultKey(0, tags).tags
        return replace(self, filter=replace(self.filter, tags=tuple(sorted(merged.items()))))

    def without_tag(self, key: str) -> MetricsQuery:
        """Only results whose tags have no ``key`` (e.g. the check runs of a dataset, not its history's
        batches, which are tagged ``batch``)."""
        return replace(self, filter=replace(self.filter, absent_tags=self.filter.absent_tags | {key}))

    def after(self, timestamp_ms: int) -> MetricsQuery:
        """Only results with ``timestamp_ms >= timestamp_ms`` (inclusive)."""
        return replace(self, filter=replace(self.filter, after=_timestamp(timestamp_ms, "after")))

    def before(self, timestamp_ms: int) -> MetricsQuery:
        """Only results with ``timestamp_ms <= timestamp_ms`` (inclusive)."""
        return replace(self, filter=replace(self.filter, before=_timestamp(timestamp_ms, "before")))

    def for_analyzers(self, analyzers: Iterable[Any]) -> MetricsQuery:
        """Only metrics whose analyzer spec (or metric name, e.g. "Completeness") is listed."""
        if isinstance(analyzers, str):
            raise TypeError("for_analyzers() takes a list of analyzers or specs, not a single string")
        return replace(self, filter=replace(self.filter, analyzers=frozenset(analyzer_spec(a) for a in analyzers)))

    def get(self) -> list[AnalysisResult]:
        """Matching results, latest write per key, sorted by timestamp (then dataset, tags).

        With an analyzer filter, results with no matching metric are left out.
        """
        groups: dict[tuple[str, int, str], list[Metric]] = {}
        for row in self.backend.read_rows(self.filter):
            metrics = groups.setdefault((row["dataset"], row["timestamp_ms"], row["tags_json"]), [])
            if row["analyzer"] is not None:
                metrics.append(row_to_metric(row))
        results = [AnalysisResult(ds, ResultKey(ts, json.loads(tj)), ms) for (ds, ts, tj), ms in groups.items()]
        results.sort(key=lambda r: (r.key.timestamp_ms, r.dataset, r.key.tag_items))
        return results

    def get_rows(self) -> list[dict[str, Any]]:
        """Matching metrics as flat stored rows (one per metric; ``tags`` as a dict), sorted by timestamp."""
        rows = [plain_row(r) for r in self.backend.read_rows(self.filter) if r["analyzer"] is not None]
        rows.sort(key=lambda r: (r["timestamp_ms"], r["dataset"], r["tags_json"]))
        return rows

    def as_dataframe(self, spark: SparkSession) -> DataFrame:
        """The same rows as ``get_rows`` as a Spark DataFrame, read by Spark from the Parquet files."""
        return self.backend.spark_dataframe(spark, self.filter)
