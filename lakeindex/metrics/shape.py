"""Shape of a numeric distribution: Skewness and Kurtosis from the central moments of the non-null values.

As Deequ's: population skewness = sqrt(n) * m3 / m2^1.5 and excess kurtosis = n * m4 / m2^2 - 3, where
m_k is the sum of k-th powers of the deviations from the mean (scipy's ``skew``/``kurtosis`` with
``bias=True``); a constant column gives 0 (Deequ's choice; scipy gives NaN) and no values fail the metric.

How m3 and m4 are computed, and why: the shared scan adds two plain sums, of (x - c)^3 and (x - c)^4 with
shift c = 0, next to StandardDeviation's count, mean and m2 (computed once). Spark's own
``skewness``/``kurtosis`` aggregates cost 1-4 s per column per 10 M rows once the shared aggregate runs
without code generation (the sketches force that; BENCHMARKS.md), plain sums almost nothing. Raw power sums
lose digits when the mean is far from 0 against the spread: turning them into central moments amplifies
rounding by about (1 + κ)^4 with κ = |mean - c| / σ. So when κ > ``MAX_SHIFT_RATIO`` (e.g. years, epoch
times) the column gets a second pass with c = the exact mean from the first (the textbook two-pass
algorithm), shared by every such column of the run. States merge with Pébay's pairwise formulas.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from lakeindex.metrics.analyzer import ScanAnalyzer, require_numeric
from lakeindex.metrics.metric import Metric
from lakeindex.metrics.numeric import NO_VALUES, moment_aggregations, moments_from
from lakeindex.metrics.states import CentralMoments
from lakeindex.sql_identifiers import col

if TYPE_CHECKING:
    from pyspark.sql import Column
    from pyspark.sql.types import StructType

# (1 + 4)^4 = 625: a sum's relative rounding error (~1e-16 per addition, growing like sqrt(n)) grows at most
# 625-fold, ~1e-10 relative on 10^8 values; beyond it one more pass is cheaper than wrong digits
MAX_SHIFT_RATIO = 4.0


@dataclass(frozen=True)
class _Shape(ScanAnalyzer):
    column: str
    where: str | None = None

    def preconditions(self, schema: StructType) -> None:
        require_numeric(schema, self.column, self.spec())

    def _power_keys(self, shift: float) -> tuple[str, str]:
        return (self.key(f"sum((x-{shift!r})^3 of {self.column!r})"),
                self.key(f"sum((x-{shift!r})^4 of {self.column!r})"))

    def _power_sums(self, shift: float) -> dict[str, Column]:
        from pyspark.sql import functions as F

        d = self.conditional(col(self.column).cast("double") - F.lit(float(shift)))
        k3, k4 = self._power_keys(shift)
        return {k3: F.sum(d * d * d), k4: F.sum(d * d * d * d)}

    def aggregations(self) -> dict[str, Column]:
        return {**moment_aggregations(self, self.column), **self._power_sums(0.0)}

    def _central(self, row: dict[str, Any], moments: CentralMoments, shift: float) -> CentralMoments:
        """m3 and m4 from power sums about ``shift`` (expanded with a = mean - shift and the stable m2)."""
        n, m2 = moments.n, moments.m2
        k3, k4 = self._power_keys(shift)
        s3, s4 = float(row[k3] or 0.0), float(row[k4] or 0.0)
        a = moments.avg - shift
        m3 = s3 - 3.0 * a * m2 - n * a ** 3
        m4 = s4 - 4.0 * a * s3 + 6.0 * a * a * m2 + 3.0 * n * a ** 4
        return CentralMoments(n, moments.avg, m2, m3, m4)

    def state_from(self, row: dict[str, Any]) -> CentralMoments:
        moments = moments_from(self, self.column, row)
        state = CentralMoments(moments.n, moments.avg, moments.m2, 0.0, 0.0)
        if moments.n == 0 or moments.m2 == 0:  # no values, or all equal: every deviation is 0
            return state
        return self._central(row, state, 0.0)

    def _ill_conditioned(self, state: CentralMoments) -> bool:
        if state.n == 0 or not (math.isfinite(state.avg) and math.isfinite(state.m2)) or state.m2 <= 0:
            return False
        return abs(state.avg) > MAX_SHIFT_RATIO * math.sqrt(state.m2 / state.n)

    def refinement(self, state: CentralMoments) -> dict[str, Column]:
        return self._power_sums(state.avg) if self._ill_conditioned(state) else {}

    def refined(self, state: CentralMoments, row: dict[str, Any]) -> CentralMoments:
        return self._central(row, state, state.avg)

    def shape(self, s: CentralMoments) -> float:  # pragma: no cover - abstract
        raise NotImplementedError

    def metric_from_state(self, state: CentralMoments | None) -> Metric:
        if state is None or state.n == 0:
            return self.failure(f"{self.spec()}: {NO_VALUES}")
        if state.m2 == 0:
            return self.success(0.0)  # all values equal: no asymmetry, no tails (Deequ)
        return self.success(self.shape(state))


@dataclass(frozen=True)
class Skewness(_Shape):
    """Population skewness of the non-null values: sqrt(n) * m3 / m2^1.5."""

    def shape(self, s: CentralMoments) -> float:
        return math.sqrt(s.n) * s.m3 / s.m2 ** 1.5


@dataclass(frozen=True)
class Kurtosis(_Shape):
    """Population excess kurtosis of the non-null values: n * m4 / m2^2 - 3 (0 for a normal distribution)."""

    def shape(self, s: CentralMoments) -> float:
        return s.n * s.m4 / (s.m2 * s.m2) - 3.0
