"""Mergeable states of the scan-shared analyzers (Deequ §3.2, §4.1).

A state is the sufficient statistic of a metric: the metric of D ∪ ΔD comes from ``state(D).merge(
state(ΔD))`` without touching D again, and states of partitions combine in any order. Moments merge
with Chan et al.'s parallel formulas; distinct counts and quantiles are Apache DataSketches HLL and KLL
sketches (what Spark's ``hll_sketch_agg``/``kll_sketch_agg_double`` produce), merged with the
``datasketches`` library so no JVM is needed to combine stored states. Third and fourth central moments
merge with Pébay's pairwise formulas (the ones Spark's CentralMomentAgg and Deequ's Skewness use).
"""

from __future__ import annotations

import base64
import math
from dataclasses import asdict, dataclass, field
from typing import Any, ClassVar

import datasketches as ds

HLL_LG_K = 12  # 4,096 registers: relative standard error ~1.6%


class State:
    """Base of all states: ``merge`` is associative and commutative; states serialise to JSON."""

    kind: ClassVar[str] = "state"

    def merge(self, other: State) -> State:  # pragma: no cover - abstract
        raise NotImplementedError

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, **asdict(self)}  # type: ignore[call-overload]


@dataclass(frozen=True)
class NumMatches(State):
    """Rows satisfying a condition out of the rows considered (Size, Completeness, Compliance)."""

    kind: ClassVar[str] = "num_matches"
    num: int
    total: int

    def merge(self, other: NumMatches) -> NumMatches:
        return NumMatches(self.num + other.num, self.total + other.total)


@dataclass(frozen=True)
class Extreme(State):
    """Minimum or maximum of the non-null values seen (``value`` None when there were none)."""

    kind: ClassVar[str] = "extreme"
    value: float | None
    is_max: bool

    def merge(self, other: Extreme) -> Extreme:
        vals = [v for v in (self.value, other.value) if v is not None]
        if not vals:
            return self
        # NaN is Spark's largest double (max is NaN if any value is, min skips it); Python's min/max would
        # depend on the merge order instead
        pick = max if self.is_max else min
        return Extreme(pick(vals, key=lambda v: (math.isnan(v), v)), self.is_max)


@dataclass(frozen=True)
class Span(State):
    """Smallest and largest non-null value seen (Range); each merges as an :class:`Extreme` does."""

    kind: ClassVar[str] = "span"
    low: float | None
    high: float | None

    def merge(self, other: Span) -> Span:
        return Span(Extreme(self.low, False).merge(Extreme(other.low, False)).value,
                    Extreme(self.high, True).merge(Extreme(other.high, True)).value)


@dataclass(frozen=True)
class SumCount(State):
    """Sum and count of the non-null values (Mean, Sum)."""

    kind: ClassVar[str] = "sum_count"
    total: float
    count: int

    def merge(self, other: SumCount) -> SumCount:
        return SumCount(self.total + other.total, self.count + other.count)


@dataclass(frozen=True)
class Moments(State):
    """Count, mean and sum of squared deviations M2 (population standard deviation)."""

    kind: ClassVar[str] = "moments"
    n: int
    avg: float
    m2: float

    def merge(self, other: Moments) -> Moments:
        if self.n == 0:
            return other
        if other.n == 0:
            return self
        n = self.n + other.n
        delta = other.avg - self.avg
        avg = self.avg + delta * other.n / n
        m2 = self.m2 + other.m2 + delta * delta * self.n * other.n / n
        return Moments(n, avg, m2)


@dataclass(frozen=True)
class CentralMoments(State):
    """Count, mean and the sums of 2nd, 3rd and 4th powers of deviations (Skewness, Kurtosis)."""

    kind: ClassVar[str] = "central_moments"
    n: int
    avg: float
    m2: float
    m3: float
    m4: float

    def merge(self, other: CentralMoments) -> CentralMoments:
        # Pébay (2008), eq. 2.1-2.3; the same pairwise update as Spark's CentralMomentAgg.merge
        if self.n == 0:
            return other
        if other.n == 0:
            return self
        na, nb = self.n, other.n
        n = na + nb
        delta = other.avg - self.avg
        dn = delta / n
        m2 = self.m2 + other.m2 + delta * dn * na * nb
        m3 = (self.m3 + other.m3 + delta * dn * dn * na * nb * (na - nb)
              + 3.0 * dn * (na * other.m2 - nb * self.m2))
        m4 = (self.m4 + other.m4 + delta * dn * dn * dn * na * nb * (na * na - na * nb + nb * nb)
              + 6.0 * dn * dn * (na * na * other.m2 + nb * nb * self.m2) + 4.0 * dn * (na * other.m3 - nb * self.m3))
        return CentralMoments(n, self.avg + dn * nb, m2, m3, m4)


@dataclass(frozen=True)
class SumPair(State):
    """Sums and non-null counts of two columns (RatioOfSums): the sums of D ∪ ΔD are the sums' sums."""

    kind: ClassVar[str] = "sum_pair"
    numerator: float
    denominator: float
    numerator_count: int
    denominator_count: int

    def merge(self, other: SumPair) -> SumPair:
        return SumPair(self.numerator + other.numerator, self.denominator + other.denominator,
                       self.numerator_count + other.numerator_count, self.denominator_count + other.denominator_count)


@dataclass(frozen=True)
class ColumnNames(State):
    """The column names of the data (ColumnCount, ColumnExists); D ∪ ΔD has the columns of either."""

    kind: ClassVar[str] = "column_names"
    names: tuple[str, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "names", tuple(self.names))  # a list when read back from JSON

    def merge(self, other: ColumnNames) -> ColumnNames:
        return ColumnNames(tuple(dict.fromkeys(self.names + other.names)))


@dataclass(frozen=True)
class CoMoments(State):
    """Pairwise count, means, co-moment and M2s: Pearson correlation merges exactly (Deequ's state)."""

    kind: ClassVar[str] = "co_moments"
    n: int
    x_avg: float
    y_avg: float
    ck: float
    x_mk: float
    y_mk: float

    def merge(self, other: CoMoments) -> CoMoments:
        if self.n == 0:
            return other
        if other.n == 0:
            return self
        n = self.n + other.n
        dx, dy = other.x_avg - self.x_avg, other.y_avg - self.y_avg
        w = self.n * other.n / n
        return CoMoments(n, self.x_avg + dx * other.n / n, self.y_avg + dy * other.n / n,
                         self.ck + other.ck + dx * dy * w, self.x_mk + other.x_mk + dx * dx * w,
                         self.y_mk + other.y_mk + dy * dy * w)


@dataclass(frozen=True)
class TypeCounts(State):
    """Values per inferred type: Unknown (null), Fractional, Integral, Boolean, String."""

    kind: ClassVar[str] = "type_counts"
    TYPES: ClassVar[tuple[str, ...]] = ("Unknown", "Fractional", "Integral", "Boolean", "String")
    counts: dict[str, int] = field(default_factory=dict)

    def merge(self, other: TypeCounts) -> TypeCounts:
        return TypeCounts({t: self.counts.get(t, 0) + other.counts.get(t, 0) for t in self.TYPES})


@dataclass(frozen=True)
class HllSketch(State):
    """A serialized DataSketches HLL sketch of the distinct non-null values."""

    kind: ClassVar[str] = "hll"
    sketch: bytes

    def merge(self, other: HllSketch) -> HllSketch:
        union = ds.hll_union(HLL_LG_K)
        union.update(ds.hll_sketch.deserialize(self.sketch))
        union.update(ds.hll_sketch.deserialize(other.sketch))
        return HllSketch(union.get_result().serialize_compact())

    def estimate(self) -> float:
        return ds.hll_sketch.deserialize(self.sketch).get_estimate()

    def relative_error(self) -> float:
        """Bound of the estimate's relative error at two standard deviations."""
        # get_rel_err is signed (negative for the upper bound): report the larger side as a positive bound
        return max(abs(ds.hll_sketch.get_rel_err(upper, True, HLL_LG_K, 2)) for upper in (True, False))

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "sketch": base64.b64encode(self.sketch).decode("ascii")}


@dataclass(frozen=True)
class KllSketch(State):
    """A serialized DataSketches KLL sketch of the non-null numeric values (approximate quantiles)."""

    kind: ClassVar[str] = "kll"
    sketch: bytes

    def merge(self, other: KllSketch) -> KllSketch:
        merged = ds.kll_doubles_sketch.deserialize(self.sketch)
        merged.merge(ds.kll_doubles_sketch.deserialize(other.sketch))
        return KllSketch(merged.serialize())

    def count(self) -> int:
        return ds.kll_doubles_sketch.deserialize(self.sketch).n

    def quantiles(self, qs: list[float]) -> list[float]:
        # inclusive ranks: the smallest value v with rank(v) >= q, as Spark's kll_sketch_get_quantile_double and
        # percentile_approx (the Python binding defaults to exclusive ranks, which gives 3, not 2, as median of 1..4)
        return list(ds.kll_doubles_sketch.deserialize(self.sketch).get_quantiles(qs, inclusive=True))

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "sketch": base64.b64encode(self.sketch).decode("ascii")}


_KINDS: dict[str, type[State]] = {c.kind: c for c in (NumMatches, Extreme, Span, SumCount, Moments, CentralMoments,
                                                     SumPair, ColumnNames, CoMoments, TypeCounts, HllSketch,
                                                     KllSketch)}


def state_from_dict(d: dict[str, Any]) -> State:
    """Inverse of ``State.to_dict``: rebuild a state read from a state store."""
    d = dict(d)
    cls = _KINDS.get(d.pop("kind", ""))
    if cls is None:
        raise ValueError(f"unknown state kind in {d!r}")
    if cls in (HllSketch, KllSketch):
        return cls(base64.b64decode(d["sketch"]))
    return cls(**d)
