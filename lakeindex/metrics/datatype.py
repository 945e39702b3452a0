"""DataType: the distribution of inferred value types of a column, and the type it is consistent with.

String values are classified by regular expressions as in Deequ's DataTypeHistogram (Integral,
Fractional incl. exponents, Boolean true/false in any case, else String); nulls are Unknown. Typed
columns are classified by their text (Spark's cast: 1, 1.5, NaN, true). The dominant type follows
Deequ: any String value, or Booleans mixed with numbers, make the column String; Fractional wins
over Integral.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from lakeindex.metrics.analyzer import ScanAnalyzer, col, require_column
from lakeindex.metrics.metric import Metric
from lakeindex.metrics.states import TypeCounts

if TYPE_CHECKING:
    from pyspark.sql import Column
    from pyspark.sql.types import StructType

INTEGRAL_RE = r"^\s*[+-]?\d+\s*$"
FRACTIONAL_RE = r"^\s*([+-]?(\d+\.\d*|\.\d+|\d+(\.\d*)?[eE][+-]?\d+|\.\d+[eE][+-]?\d+)|NaN|[+-]?Infinity)\s*$"
BOOLEAN_RE = r"^\s*(?i:true|false)\s*$"


def dominant_type(counts: dict[str, int]) -> str:
    """The single type a column is consistent with, from its type counts (Deequ's rule)."""
    get = counts.get
    if get("String", 0) > 0 or (get("Boolean", 0) > 0 and (get("Integral", 0) + get("Fractional", 0)) > 0):
        return "String"
    if get("Boolean", 0) > 0:
        return "Boolean"
    if get("Fractional", 0) > 0:
        return "Fractional"
    if get("Integral", 0) > 0:
        return "Integral"
    return "Unknown"


@dataclass(frozen=True)
class DataType(ScanAnalyzer):
    """Counts and ratios of Unknown/Fractional/Integral/Boolean/String values, plus the dominant type."""

    column: str
    where: str | None = None

    def preconditions(self, schema: StructType) -> None:
        require_column(schema, self.column, self.spec())

    def _k(self, t: str) -> str:
        return self.key(f"type_{t}({self.column!r})")

    def aggregations(self) -> dict[str, Column]:
        from pyspark.sql import functions as F

        c = col(self.column)
        s = c.cast("string")  # typed columns classify by their text: 1 -> Integral, 1.5/NaN -> Fractional

        def count(cond: Column) -> Column:
            return F.count(self.conditional(F.lit(1), cond))

        return {self._k("Unknown"): count(c.isNull()), self._k("Integral"): count(s.rlike(INTEGRAL_RE)),
                self._k("Fractional"): count(s.rlike(FRACTIONAL_RE)), self._k("Boolean"): count(s.rlike(BOOLEAN_RE)),
                self._k("non_null"): count(c.isNotNull())}

    def state_from(self, row: dict[str, Any]) -> TypeCounts:
        counts = {t: int(row[self._k(t)] or 0) for t in ("Unknown", "Integral", "Fractional", "Boolean")}
        counts["String"] = int(row[self._k("non_null")] or 0) - counts["Integral"] - counts["Fractional"] \
            - counts["Boolean"]
        return TypeCounts(counts)

    def metric_from_state(self, state: TypeCounts | None) -> Metric:
        counts = state.counts if state else dict.fromkeys(TypeCounts.TYPES, 0)
        total = sum(counts.values())
        if total == 0:
            return self.failure(f"{self.spec()}: no rows")
        return self.success({"dominant": dominant_type(counts),
                             "types": {t: {"absolute": counts.get(t, 0), "ratio": counts.get(t, 0) / total}
                                       for t in TypeCounts.TYPES}})
