"""Shape of a numeric distribution: Skewness and Kurtosis from the central moments of the non-null values.

As Deequ's: population skewness = sqrt(n) * m3 / m2^1.5 and excess kurtosis = n * m4 / m2^2 - 3, where
m_k is the sum of k-th powers of the deviations from the mean (scipy's ``skew``/``kurtosis`` with
``bias=True``); a constant column gives 0 (Deequ's choice; scipy gives NaN) and no values fail the metric.
The moments come from Spark's ``skewness``/``kurtosis`` aggregates in the shared scan (their count, mean
and variance keys are StandardDeviation's, computed once) and merge with Pébay's pairwise formulas.
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


@dataclass(frozen=True)
class _Shape(ScanAnalyzer):
    column: str
    where: str | None = None

    def preconditions(self, schema: StructType) -> None:
        require_numeric(schema, self.column, self.spec())

    def aggregations(self) -> dict[str, Column]:
        from pyspark.sql import functions as F

        v = self.conditional(col(self.column).cast("double"))
        return {**moment_aggregations(self, self.column), self.key(f"skewness({self.column!r})"): F.skewness(v),
                self.key(f"kurtosis({self.column!r})"): F.kurtosis(v)}

    def state_from(self, row: dict[str, Any]) -> CentralMoments:
        moments = moments_from(self, self.column, row)
        n, m2 = moments.n, moments.m2
        if n == 0:
            return CentralMoments(0, 0.0, 0.0, 0.0, 0.0)
        skew, kurt = row[self.key(f"skewness({self.column!r})")], row[self.key(f"kurtosis({self.column!r})")]
        # Spark returns null when m2 = 0 (a constant column): then m3 = m4 = 0 too
        m3 = 0.0 if skew is None else float(skew) * m2 ** 1.5 / math.sqrt(n)
        m4 = 0.0 if kurt is None else (float(kurt) + 3.0) * m2 * m2 / n
        return CentralMoments(n, moments.avg, m2, m3, m4)

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
