"""Equal-width bins between a column's minimum and maximum (Deequ's ``HistogramBinned(binCount=n)``).

With lo, hi the smallest and largest non-null value and w = (hi − lo) / n, the edges are e_i = lo + i·w for
i < n and e_n = hi (``numpy.histogram_bin_edges``'s edges); bin i holds e_i <= x < e_{i+1} and the last bin
also holds hi, so the maximum always falls in it (Deequ's ``least(floor((x − lo) / w), n − 1)``, and numpy's
closed last bin). A constant column (lo = hi) has one bin ``[lo, lo]``.

The bins are cut from the histogram's *value* frequency table (one row per distinct value, the table that
``Histogram(column)`` builds), not from the rows: lo and hi come from the one aggregation over the table that
all analyzers sharing it run, and one more job over the table sums its rows into the bins. So the state is
the plain value table and merges exactly: after ``aggregate_with`` the edges are those of D ∪ ΔD, where the
edges of two deltas' own ranges could not be merged (Deequ refuses: ``BinnedFrequencies`` cannot merge).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from lakeindex.metrics.frequencies import NULL_LABEL

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame

MIN_KEY, MAX_KEY, NON_FINITE_KEY = "finite_min(double g0)", "finite_max(double g0)", "non_finite(double g0)"
NULL_BIN = -1  # the bin index of the NullValue bucket in the binning job


def _value() -> Column:
    """The table's value (text) read back as a double; the NullValue label reads as null."""
    from pyspark.sql import functions as F

    return F.col("g0").try_cast("double")


def range_aggregations() -> dict[str, Column]:
    """Aggregations over the value table: lo and hi over the finite values, and how many values are not finite."""
    from pyspark.sql import functions as F

    v = _value()
    finite = ~F.isnan(v) & (F.abs(v) != F.lit(math.inf))
    return {MIN_KEY: F.min(F.when(finite, v)), MAX_KEY: F.max(F.when(finite, v)),
            NON_FINITE_KEY: F.count(F.when(~finite, F.lit(1)))}


def edges(lo: float, hi: float, n: int) -> list[float]:
    """The n + 1 edges from lo to hi (two equal edges for a constant column: one bin)."""
    if lo == hi:
        return [lo, hi]
    width = (hi - lo) / n
    return [lo + i * width for i in range(n)] + [hi]


def labels(cuts: list[float]) -> list[str]:
    """``[a, b)`` per bin, the last one closed: ``[a, b]``."""
    inner = [f"[{lo!r}, {hi!r})" for lo, hi in zip(cuts[:-2], cuts[1:-1], strict=True)]
    return inner + [f"[{cuts[-2]!r}, {cuts[-1]!r}]"]


def bin_index(cuts: list[float]) -> Column:
    """Each table row's bin (0 … n−1; NULL_BIN for NullValue): the index from the width, moved by one where
    rounding put a value across an edge (as numpy does), so membership follows the edges exactly."""
    from pyspark.sql import functions as F

    n = len(cuts) - 1
    v = _value()
    if n == 1:
        index = F.lit(0)
    else:
        lo, width = cuts[0], (cuts[-1] - cuts[0]) / n
        guess = F.least(F.greatest(F.floor((v - F.lit(lo)) / F.lit(width)), F.lit(0)), F.lit(n - 1)).cast("int")
        array = F.array(*[F.lit(float(e)) for e in cuts])
        below, above = v < F.element_at(array, guess + 1), v >= F.element_at(array, guess + 2)
        index = F.when(below, guess - 1).when(above & (guess < n - 1), guess + 1).otherwise(guess)
    return F.when(F.col("g0") == F.lit(NULL_LABEL), F.lit(NULL_BIN)).otherwise(index)


def binned(table: DataFrame, cuts: list[float], weight: str) -> dict[int, int | float]:
    """``weight`` (the count or sum column) summed per bin: one job over the table, at most n + 1 rows back."""
    from pyspark.sql import functions as F

    rows = table.groupBy(bin_index(cuts).alias("bin")).agg(F.sum(weight).alias("w")).collect()
    return {int(r["bin"]): r["w"] for r in rows}


def width_is_finite(lo: float, hi: float, n: int) -> bool:
    """False when hi − lo overflows (values near ±1.8e308): the edges cannot be computed."""
    return math.isfinite((hi - lo) / n)
