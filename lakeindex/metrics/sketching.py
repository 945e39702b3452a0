"""Sketch analyzers: ApproxCountDistinct (HLL) and ApproxQuantile(s) (KLL), computed in the shared scan.

Spark's built-in DataSketches aggregates build the sketches in the executors; the state is the
serialized sketch, so it merges across deltas and partitions. Values are hashed as their string form
so a column whose type drifts between batches (int to string) is not double-counted after a merge.

ApproxQuantile(s) take Deequ's ``relative_error`` (default 0.01), a bound on the *rank* error: Deequ's
Greenwald-Khanna summary guarantees it always, a KLL sketch with 99% confidence. The sketch's size k is the
smallest whose normalised rank error is at most ``relative_error`` (0.01 gives k = 269 instead of the
former fixed 200, ~1.3%); below ~5e-5 no KLL sketch can promise it and the metric fails (use ExactQuantile).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from lakeindex.metrics.analyzer import MetricError, ScanAnalyzer, require_column, require_numeric
from lakeindex.metrics.metric import Metric
from lakeindex.metrics.numeric import NO_VALUES
from lakeindex.metrics.states import HLL_LG_K, HllSketch, KllSketch
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


KLL_MAX_K = 65535  # the largest k Spark's kll_sketch_agg_double accepts
DEFAULT_RELATIVE_ERROR = 0.01  # Deequ's default


@functools.cache
def kll_k(relative_error: float) -> int:
    """The smallest KLL k whose normalised rank error (single quantile, 99% confidence) is <= ``relative_error``."""
    import datasketches as ds

    def err(k: int) -> float:
        return ds.kll_doubles_sketch.get_normalized_rank_error(k, False)

    if not 0.0 < relative_error <= 1.0 or err(KLL_MAX_K) > relative_error:
        raise ValueError(f"relative_error {relative_error} is not in ({err(KLL_MAX_K):.1e}, 1], what a KLL sketch "
                         "can guarantee (use ExactQuantile for exact quantiles)")
    lo, hi = 8, KLL_MAX_K  # err decreases with k: binary search for the first k meeting the bound
    while lo < hi:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if err(mid) <= relative_error else (mid + 1, hi)
    return lo


@dataclass(frozen=True)
class _Quantiles(ScanAnalyzer):
    column: str

    def preconditions(self, schema: StructType) -> None:
        require_numeric(schema, self.column, self.spec())
        for q in self.requested():
            if not 0.0 <= q <= 1.0:
                raise MetricError(f"{self.spec()}: quantile {q} is outside [0, 1]")
        try:
            kll_k(self.relative_error)
        except ValueError as exc:
            raise MetricError(f"{self.spec()}: {exc}") from exc

    def requested(self) -> list[float]:  # pragma: no cover - abstract
        raise NotImplementedError

    def _key(self) -> str:
        return self.key(f"kll({self.column!r}, k={kll_k(self.relative_error)})")

    def aggregations(self) -> dict[str, Column]:
        from pyspark.sql import functions as F

        k = kll_k(self.relative_error)
        return {self._key(): F.kll_sketch_agg_double(self.conditional(col(self.column).cast("double")), k)}

    def state_from(self, row: dict[str, Any]) -> KllSketch:
        return KllSketch(bytes(row[self._key()]))

    def _values(self, state: KllSketch | None) -> list[float]:
        if state is None or state.count() == 0:
            raise MetricError(f"{self.spec()}: {NO_VALUES}")
        return state.quantiles(self.requested())


@dataclass(frozen=True)
class ApproxQuantile(_Quantiles):
    """One approximate quantile (KLL sketch sized for ``relative_error``, a rank error)."""

    quantile: float = 0.5
    where: str | None = None
    relative_error: float = field(default=DEFAULT_RELATIVE_ERROR, metadata={"omit_default": True})

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
    relative_error: float = field(default=DEFAULT_RELATIVE_ERROR, metadata={"omit_default": True})

    def requested(self) -> list[float]:
        return list(self.quantiles)

    def metric_from_state(self, state: KllSketch | None) -> Metric:
        try:
            return self.success({str(q): v for q, v in zip(self.quantiles, self._values(state), strict=True)})
        except MetricError as exc:
            return self.failure(str(exc))
