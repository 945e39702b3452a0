"""KLLSketch (Deequ's KLL analyzer): a numeric column's distribution as equal-width buckets, from a KLL sketch.

The sketch is Spark's built-in ``kll_sketch_agg_double`` (Apache DataSketches' KLL), computed in the shared scan;
its state is the serialized sketch, so it merges across deltas and partitions. The metric follows Deequ's
``KLLSketch.computeMetricFrom``: ``number_of_buckets`` buckets of equal width between the minimum and maximum,
bucket i = [min + (max-min)·i/b, min + (max-min)·(i+1)/b), the last one closed, each counting the sketch's
weight in it. While the column has fewer non-null values than the sketch's k, the sketch keeps every value and
the counts are exact; beyond, they are approximate as Deequ's are (a bucket's count is off by at most ~0.18% of
all values at k = 2048, DataSketches' PMF error with 99% confidence), but from DataSketches' sketch, not Deequ's
QuantileNonSample, so the approximations differ.

Deliberate differences from Deequ (each for a reason given where it happens): no data (empty input, all-null
column, where-filter matching none) is a failed metric, where Deequ reports buckets between ±2^31 holding 0;
the last bucket ends exactly at the maximum; NaN values are skipped like nulls; infinite values fail the
metric; ``parameters`` carries ``number_of_buckets`` as a third element; ``where=`` is supported.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from lakeindex.metrics.analyzer import MetricError, ScanAnalyzer, require_numeric
from lakeindex.metrics.metric import Metric
from lakeindex.metrics.numeric import NO_VALUES
from lakeindex.metrics.sketching import KLL_MAX_K
from lakeindex.metrics.states import KllSketch
from lakeindex.sql_identifiers import col, quote_identifier

if TYPE_CHECKING:
    from pyspark.sql import Column
    from pyspark.sql.types import StructType

DEFAULT_SKETCH_SIZE = 2048  # Deequ's KLLSketch.DEFAULT_SKETCH_SIZE
DEFAULT_SHRINKING_FACTOR = 0.64  # Deequ's KLLSketch.DEFAULT_SHRINKING_FACTOR
MAX_BUCKETS = 100  # Deequ's KLLSketch.MAXIMUM_ALLOWED_DETAIL_BINS (also the default number of buckets)
KLL_MIN_K = 8  # the smallest k DataSketches' KLL (and Spark's kll_sketch_agg_double) accepts
PERCENTILES = 100  # Deequ's computePercentiles asks its sketch for quantiles(100): 1/100 … 99/100


@dataclass(frozen=True)
class KLLParameters:
    """Deequ's KLLParameters: the sketch size, its shrinking factor and the number of equal-width buckets.

    ``sketch_size`` becomes the KLL sketch's k, clamped to what Spark and DataSketches accept (8 to 65535):
    Deequ's tests use sizes as small as 2, which we serve with k = 8, a sketch at least as accurate.
    ``shrinking_factor`` is reported (in ``parameters``) but not applied: Deequ's own sketch shrinks each
    level's capacity by it, while DataSketches' KLL uses a fixed factor of 2/3 (close to Deequ's 0.64).
    """

    sketch_size: int = DEFAULT_SKETCH_SIZE
    shrinking_factor: float = DEFAULT_SHRINKING_FACTOR
    number_of_buckets: int = MAX_BUCKETS

    def __post_init__(self) -> None:
        for name in ("sketch_size", "number_of_buckets"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int):
                raise ValueError(f"KLLParameters: {name} must be an integer, got {v!r}")
        if self.sketch_size < 1:
            raise ValueError(f"KLLParameters: sketch_size must be positive, got {self.sketch_size}")
        if not 1 <= self.number_of_buckets <= MAX_BUCKETS:
            raise ValueError(f"KLLParameters: number_of_buckets must be 1 to {MAX_BUCKETS} (Deequ's limit), "
                             f"got {self.number_of_buckets}")
        sf = self.shrinking_factor
        if isinstance(sf, bool) or not isinstance(sf, int | float) or not 0.0 < sf <= 1.0:
            raise ValueError(f"KLLParameters: shrinking_factor must be in (0, 1], got {sf!r}")
        object.__setattr__(self, "shrinking_factor", float(sf))  # 1 and 1.0 give one spec

    @property
    def kll_k(self) -> int:
        """The KLL k that serves ``sketch_size`` (see the class docstring)."""
        return min(max(self.sketch_size, KLL_MIN_K), KLL_MAX_K)


@dataclass(frozen=True)
class BucketValue:
    """One bucket: values in [low_value, high_value) (the last bucket includes high_value) and their count."""

    low_value: float
    high_value: float
    count: int


@dataclass(frozen=True, repr=False)
class BucketDistribution:
    """What a ``kll_sketch_satisfies`` assertion receives: Deequ's BucketDistribution.

    ``buckets`` as in the metric; ``parameters`` is Deequ's list ``[shrinking_factor, sketch_size]`` (in that
    order, so a ported ``d.parameters[1] >= 16`` still reads the sketch size) plus ``number_of_buckets``;
    ``data`` holds the sketch's retained values by level, level i weighing 2^i (Deequ's compactors).
    ``d[i]``, ``len(d)``, ``d.argmax()`` and ``d.compute_percentiles()`` are Deequ's ``apply``, bucket count,
    ``argmax`` and ``computePercentiles``.
    """

    buckets: tuple[BucketValue, ...]
    parameters: tuple[float, ...]
    data: tuple[tuple[float, ...], ...] = field(default=())

    @classmethod
    def from_value(cls, value: Mapping[str, Any]) -> BucketDistribution:
        """The distribution from a KLLSketch metric's value (e.g. read back from the metrics repository)."""
        return cls(tuple(BucketValue(float(b["low_value"]), float(b["high_value"]), int(b["count"]))
                         for b in value["buckets"]),
                   tuple(float(p) for p in value["parameters"]),
                   tuple(tuple(float(x) for x in level) for level in value.get("data") or ()))

    def __getitem__(self, i: int) -> BucketValue:
        return self.buckets[i]

    def __len__(self) -> int:
        return len(self.buckets)

    def __iter__(self) -> Iterator[BucketValue]:
        return iter(self.buckets)

    def __repr__(self) -> str:  # the data can hold thousands of values: keep failure messages readable
        counts = [b.count for b in self.buckets]
        shown = counts if len(counts) <= 20 else [*counts[:20], "…"]
        lo = self.buckets[0].low_value if self.buckets else None
        hi = self.buckets[-1].high_value if self.buckets else None
        return (f"BucketDistribution({len(self.buckets)} buckets over [{lo}, {hi}], counts={shown}, "
                f"total={sum(counts)}, parameters={list(self.parameters)})")

    @property
    def shrinking_factor(self) -> float:
        return self.parameters[0]

    @property
    def sketch_size(self) -> int:
        return int(self.parameters[1])

    @property
    def total(self) -> int:
        """The number of values the buckets count (the non-null, non-NaN values)."""
        return sum(b.count for b in self.buckets)

    def argmax(self) -> int:
        """Index of the first bucket with the largest count (0 when every count is 0), as Deequ's argmax."""
        best, best_count = 0, 0
        for i, b in enumerate(self.buckets):
            if b.count > best_count:
                best, best_count = i, b.count
        return best

    def compute_percentiles(self) -> list[float]:
        """The 99 percentiles 1/100 … 99/100 from ``data``, by Deequ's QuantileNonSample.quantiles(100).

        Percentile j is the first retained value whose preceding weight reaches floor(j·W/100), W the total
        weight. Deequ's loop stops early when the last value is heavy and leaves the remaining percentiles
        at the smallest value; here they continue with the last value (the quantile the walk reached).
        """
        weighted = sorted((x, 1 << level) for level, xs in enumerate(self.data) for x in xs)
        if not weighted:
            return []
        before = [0]  # before[i]: weight of the values preceding weighted[i]
        for _, w in weighted:
            before.append(before[-1] + w)
        total = before[-1]
        out = []
        for j in range(1, PERCENTILES):
            i = bisect.bisect_left(before, j * total // PERCENTILES)
            out.append(weighted[min(i, len(weighted) - 1)][0])
        return out


def bucket_counts(weighted: list[tuple[float, int]], lo: float, hi: float, buckets: int) -> list[dict[str, Any]]:
    """Deequ's equal-width buckets over sorted (value, weight) pairs: rank differences at the edges.

    Edges use Deequ's arithmetic, ``lo + (hi - lo) * i / buckets``, except the last bucket's high edge, which is
    ``hi`` itself: the formula can round a hair below the maximum (in about 3% of random ranges) and Deequ
    then leaves the maximum out of every bucket.
    """
    values = [x for x, _ in weighted]
    before = [0]
    for _, w in weighted:
        before.append(before[-1] + w)

    def below(x: float) -> int:  # Deequ's getRankExclusive: weight of the values < x
        return before[bisect.bisect_left(values, x)]

    out = []
    for i in range(buckets):
        low = lo + (hi - lo) * i / buckets
        last = i == buckets - 1
        high = hi if last else lo + (hi - lo) * (i + 1) / buckets
        upper = before[bisect.bisect_right(values, high)] if last else below(high)  # last: getRank (<= x)
        out.append({"low_value": low, "high_value": high, "count": upper - below(low)})
    return out


@dataclass(frozen=True)
class KLLSketch(ScanAnalyzer):
    """Deequ's KLLSketch: equal-width bucket counts of a numeric column from a KLL sketch (module docstring).

    The value is ``{"buckets": [{"low_value", "high_value", "count"}, …], "parameters": [shrinking_factor,
    sketch_size, number_of_buckets], "data": [[level-0 values], [level-1 values], …]}``: ``data`` is the
    sketch's retained values by level (weight 2^level), Deequ's compactors, so the percentiles can be
    recomputed from a stored metric; it holds at most the column's values, and about 3·k values for a
    large column (≈6,000 floats at the default size 2048: pick a smaller sketch_size to store less).
    """

    column: str
    kll_parameters: KLLParameters | None = None
    where: str | None = None

    def __post_init__(self) -> None:
        # one spec for one metric: None and the defaults are the same parameters (the spec keys the repository);
        # a mapping, e.g. from a JSON checks file, is read as the parameters' fields
        p = self.kll_parameters
        if p is None:
            p = KLLParameters()
        elif isinstance(p, Mapping):
            try:
                p = KLLParameters(**p)
            except TypeError as exc:
                raise ValueError(f"KLLSketch({self.column!r}): bad kll_parameters {dict(p)!r}: {exc}") from exc
        elif not isinstance(p, KLLParameters):
            raise ValueError(f"KLLSketch({self.column!r}): kll_parameters must be KLLParameters, got {p!r}")
        object.__setattr__(self, "kll_parameters", p)

    @property
    def parameters(self) -> KLLParameters:
        assert self.kll_parameters is not None  # set by __post_init__
        return self.kll_parameters

    def preconditions(self, schema: StructType) -> None:
        require_numeric(schema, self.column, self.spec())

    def _key(self) -> str:
        # the same text and expression as ApproxQuantile's sketch: with an equal k one aggregate serves both
        return self.key(f"kll({self.column!r}, k={self.parameters.kll_k})")

    def aggregations(self) -> dict[str, Column]:
        from pyspark.sql import functions as F

        return {self._key(): F.kll_sketch_agg_double(self.conditional(col(self.column).cast("double")),
                                                     self.parameters.kll_k)}

    def state_from(self, row: dict[str, Any]) -> KllSketch:
        return KllSketch(bytes(row[self._key()]))

    def metric_from_state(self, state: KllSketch | None) -> Metric:
        try:
            return self._distribution(state)
        except MetricError as exc:
            return self.failure(str(exc))

    def _distribution(self, state: KllSketch | None) -> Metric:
        import datasketches as ds

        sketch = ds.kll_doubles_sketch.deserialize(state.sketch) if state is not None else None
        if sketch is None or sketch.is_empty():  # Deequ's buckets would span its initial ±2^31 "extremes", all 0
            raise MetricError(f"{self.spec()}: {NO_VALUES}")
        lo, hi = sketch.get_min_value(), sketch.get_max_value()
        if not (math.isfinite(lo) and math.isfinite(hi)):  # the edges would be NaN
            c = quote_identifier(self.column)
            raise MetricError(f"{self.spec()}: column '{self.column}' has infinite values (minimum {lo}, maximum "
                              f"{hi}), so its range cannot be cut into equal-width buckets; leave them out with "
                              f"where=\"abs({c}) < double('Infinity')\"")
        weighted = sorted(sketch)  # (value, weight) pairs, weight 2^level
        p = self.parameters
        levels: list[list[float]] = [[] for _ in range(max(w for _, w in weighted).bit_length())]
        for x, w in weighted:
            levels[w.bit_length() - 1].append(x)
        value = {"buckets": bucket_counts(weighted, lo, hi, p.number_of_buckets),
                 "parameters": [p.shrinking_factor, float(p.sketch_size), float(p.number_of_buckets)],
                 "data": levels}
        return self.success(value, k=p.kll_k, n=sketch.n)
