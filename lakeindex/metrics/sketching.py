"""Sketch analyzers: ApproxCountDistinct (HLL) and ApproxQuantile(s) (KLL), computed in the shared scan.

Spark's built-in DataSketches aggregates build the sketches in the executors; the state is the
serialized sketch, so it merges across deltas and partitions. Values are hashed as their string form
so a column whose type drifts between batches (int to string) is not double-counted after a merge.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from lakeindex.metrics.analyzer import MetricError, ScanAnalyzer, require_column, require_numeric
from lakeindex.metrics.metric import Metric
from lakeindex.metrics.numeric import NO_VALUES
from lakeindex.metrics.states import HLL_LG_K, KLL_K, HllSketch, KllSketch
from lakeindex.sql_identifiers import col

if TYPE_CHECKING:
    from pyspark.sql import Column
    from pyspark.sql.types import StructType


@dataclass(frozen=True)
class ApproxCountDistinct(ScanAnalyzer):
    """Estimated number of distinct non-null values (HLL, lg k = 12: ~1.6% relative standard error)."""

    column: str
    where: str | None = None

    def preconditions(self, schema: StructType) -> None:
        require_column(schema, self.column, self.spec())

    def _key(self) -> str:
        return self.key(f"hll({self.column!r})")

    def aggregations(self) -> dict[str, Column]:
        from pyspark.sql import functions as F

        return {self._key(): F.hll_sketch_agg(self.conditional(col(self.column).cast("string")), HLL_LG_K)}

    def state_from(self, row: dict[str, Any]) -> HllSketch:
        return HllSketch(bytes(row[self._key()]))

    def metric_from_state(self, state: HllSketch | None) -> Metric:
        if state is None:
            return self.failure(f"{self.spec()}: {NO_VALUES}")
        return self.success(float(round(state.estimate())), relative_error=state.relative_error())


@dataclass(frozen=True)
class _Quantiles(ScanAnalyzer):
    column: str

    def preconditions(self, schema: StructType) -> None:
        require_numeric(schema, self.column, self.spec())
        for q in self.requested():
            if not 0.0 <= q <= 1.0:
                raise MetricError(f"{self.spec()}: quantile {q} is outside [0, 1]")

    def requested(self) -> list[float]:  # pragma: no cover - abstract
        raise NotImplementedError

    def _key(self) -> str:
        return self.key(f"kll({self.column!r})")

    def aggregations(self) -> dict[str, Column]:
        from pyspark.sql import functions as F

        return {self._key(): F.kll_sketch_agg_double(self.conditional(col(self.column).cast("double")), KLL_K)}

    def state_from(self, row: dict[str, Any]) -> KllSketch:
        return KllSketch(bytes(row[self._key()]))

    def _values(self, state: KllSketch | None) -> list[float]:
        if state is None or state.count() == 0:
            raise MetricError(f"{self.spec()}: {NO_VALUES}")
        return state.quantiles(self.requested())


@dataclass(frozen=True)
class ApproxQuantile(_Quantiles):
    """One approximate quantile (KLL, k = 200: ~1.3% normalised rank error)."""

    quantile: float = 0.5
    where: str | None = None

    def requested(self) -> list[float]:
        return [self.quantile]

    def metric_from_state(self, state: KllSketch | None) -> Metric:
        try:
            return self.success(self._values(state)[0])
        except MetricError as exc:
            return self.failure(str(exc))


@dataclass(frozen=True)
class ApproxQuantiles(_Quantiles):
    """Several approximate quantiles from one sketch; the value maps each quantile (as text) to its value."""

    quantiles: tuple[float, ...] = (0.25, 0.5, 0.75)
    where: str | None = None

    def requested(self) -> list[float]:
        return list(self.quantiles)

    def metric_from_state(self, state: KllSketch | None) -> Metric:
        try:
            return self.success({str(q): v for q, v in zip(self.quantiles, self._values(state), strict=True)})
        except MetricError as exc:
            return self.failure(str(exc))
