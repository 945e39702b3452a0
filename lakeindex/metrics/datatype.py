"""DataType: the distribution of inferred value types of a column, and the type it is consistent with.

String values are classified by regular expressions as in Deequ's DataTypeHistogram (Integral,
Fractional incl. exponents, NaN and Infinity, Boolean true/false in any case, else String); nulls
are Unknown. Each value is classified once per row by a pre-projected CASE shared by the five counts.
A value whose first non-space character cannot start a number or a boolean is String without running
any regex (a native substring test; 3x faster on text columns, measured 1.5 s -> 0.45 s on 10 M rows).
(Spark's ``try_cast`` would be simpler but raises and catches an exception per non-numeric string:
measured 30x slower than the regexes on a text column.) Typed columns are classified by their text.
The dominant type follows Deequ: any String value, or Booleans mixed with numbers, make the column
String; Fractional wins over Integral.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from lakeindex.metrics.analyzer import ScanAnalyzer, require_column
from lakeindex.metrics.metric import Metric
from lakeindex.metrics.states import TypeCounts
from lakeindex.sql_identifiers import col

INTEGRAL_RE = r"^\s*[+-]?\d+\s*$"
FRACTIONAL_RE = r"^\s*([+-]?(\d+\.\d*|\.\d+|\d+(\.\d*)?[eE][+-]?\d+|\.\d+[eE][+-]?\d+)|NaN|[+-]?Infinity)\s*$"
BOOLEAN_RE = r"^\s*(?i:true|false)\s*$"
# What can follow the leading spaces (``ltrim`` strips only U+0020) of an Integral, Fractional or Boolean
# match: a sign, dot or ASCII digit, NaN/Infinity, t/f in either case, or another ``\s`` character.
NON_STRING_STARTS = tuple("+-.0123456789NItTfF\t\n\x0b\f\r")

if TYPE_CHECKING:
    from pyspark.sql import Column
    from pyspark.sql.types import StructType



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

    def _code_name(self) -> str:
        import hashlib

        return "__lakeindex_dtype_" + hashlib.sha1(self.column.encode("utf-8")).hexdigest()[:12]

    def projections(self) -> dict[str, Column]:
        from pyspark.sql import functions as F

        c = col(self.column)
        s = c.cast("string")
        first = F.substring(F.ltrim(s), 1, 1)
        code = (F.when(c.isNull(), F.lit(0)).when(~first.isin(*NON_STRING_STARTS), F.lit(4))
                .when(s.rlike(INTEGRAL_RE), F.lit(2))
                .when(s.rlike(FRACTIONAL_RE), F.lit(1)).when(s.rlike(BOOLEAN_RE), F.lit(3)).otherwise(F.lit(4)))
        return {self._code_name(): code}

    def aggregations(self) -> dict[str, Column]:
        from pyspark.sql import functions as F

        code = F.col(self._code_name())
        return {self._k(t): F.count(self.conditional(F.lit(1), code == i)) for i, t in enumerate(TypeCounts.TYPES)}

    def state_from(self, row: dict[str, Any]) -> TypeCounts:
        return TypeCounts({t: int(row[self._k(t)] or 0) for t in TypeCounts.TYPES})

    def metric_from_state(self, state: TypeCounts | None) -> Metric:
        counts = state.counts if state else dict.fromkeys(TypeCounts.TYPES, 0)
        total = sum(counts.values())
        if total == 0:
            return self.failure(f"{self.spec()}: no rows")
        return self.success({"dominant": dominant_type(counts),
                             "types": {t: {"absolute": counts.get(t, 0), "ratio": counts.get(t, 0) / total}
                                       for t in TypeCounts.TYPES}})
