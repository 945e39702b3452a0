"""Row outcomes: how a row-level constraint judges each row (Deequ's RowLevelConstraint and its fullColumn).

An outcome is a lazy Spark expression over the data: TRUE the row passes, FALSE the row is one the
constraint's metric counts against it, NULL the constraint does not judge it (a null value that the
metric skips, e.g. ``has_min``'s, as Deequ's default ``NullBehavior.Ignore``). Rows outside the
constraint's ``where`` get the filtered-row outcome: TRUE (Deequ's default) or NULL
(``FilteredRowOutcome.NULL``). A row is in scope when its ``where`` is true, as for the metric.

The offending-rows queries of the verification suite are derived from the same outcome, so a row
shown as offending is exactly a row whose outcome is FALSE.
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from lakeindex.checks.assertion import Assertion
from lakeindex.sql_identifiers import col

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame

FILTERED_ROW_OUTCOMES = ("true", "null")  # Deequ's FilteredRowOutcome.TRUE (its default) and NULL

_COMPARE: dict[str, Callable[[Any, Any], Any]] = {
    ">=": operator.ge, ">": operator.gt, "<=": operator.le, "<": operator.lt, "==": operator.eq, "!=": operator.ne}


def check_filtered_row(filtered_row: str) -> str:
    """``filtered_row`` if valid, else a ValueError saying what it may be."""
    if filtered_row not in FILTERED_ROW_OUTCOMES:
        raise ValueError(f"filtered_row must be one of {FILTERED_ROW_OUTCOMES} (the outcome of rows outside a "
                         f"constraint's where-filter), got {filtered_row!r}")
    return filtered_row


def fresh_name(taken: list[str], stem: str) -> str:
    """A column name starting with ``stem`` that is none of ``taken`` (case-insensitively, as Spark resolves)."""
    lowered = {t.casefold() for t in taken}
    name, i = stem, 1
    while name.casefold() in lowered:
        i += 1
        name = f"{stem}_{i}"
    return name


def _require_names(*names: object) -> None:
    """A TypeError naming the value unless every one is a column name: caught when the check is built (a
    checks file's ``"column": 5``), not when the outcome is first used."""
    for name in names:
        if not isinstance(name, str):
            raise TypeError(f"a column name must be a string, got {name!r}")


class RowOutcome:
    """Base: ``judge`` gives the outcome of the rows inside ``where``; ``column`` adds the filtered rows."""

    where: str | None
    grouped: ClassVar[bool] = False  # a window over a key: fine in a projection, not allowed in a WHERE clause

    def __post_init__(self) -> None:
        _require_names(*[getattr(self, f) for f in ("column_name", "nulls_pass") if getattr(self, f, None) is not None],
                       *getattr(self, "columns", ()))

    def judge(self) -> Column:  # pragma: no cover - abstract
        raise NotImplementedError

    def in_scope(self) -> Column:
        """TRUE on the rows the constraint's metric looks at (``where`` true; null counts as false)."""
        from pyspark.sql import functions as F

        return F.coalesce(F.expr(self.where), F.lit(False)) if self.where else F.lit(True)

    def column(self, filtered_row: str = "true") -> Column:
        """The boolean outcome of every row; rows outside ``where`` are TRUE or NULL (``filtered_row``)."""
        from pyspark.sql import functions as F

        judged = self.judge()
        if not self.where:
            return judged
        outside = F.lit(True) if check_filtered_row(filtered_row) == "true" else F.lit(None).cast("boolean")
        return F.when(self.in_scope(), judged).otherwise(outside)

    def failing_rows(self, df: DataFrame) -> DataFrame:
        """The rows of ``df`` whose outcome is FALSE (lazy; the suite shows a few as offending samples)."""
        from pyspark.sql import functions as F

        bad = ~F.coalesce(self.judge(), F.lit(True))
        if self.where:
            bad = self.in_scope() & bad
        if not self.grouped:
            return df.where(bad)
        flag = fresh_name(df.columns, "__lakeindex_failing")
        return df.withColumn(flag, bad).where(col(flag)).drop(flag)


@dataclass(frozen=True)
class NotNullOutcome(RowOutcome):
    """Completeness (is_complete, has_completeness): the value is not null."""

    column_name: str
    where: str | None = None

    def judge(self) -> Column:
        return col(self.column_name).isNotNull()


@dataclass(frozen=True)
class PredicateOutcome(RowOutcome):
    """Compliance (satisfies, is_non_negative, is_less_than, is_contained_in, ...): the SQL predicate holds.

    A null predicate result is FALSE, as the Compliance metric counts it. With ``nulls_pass``, a row whose
    value of that column is null passes: is_contained_in judges the non-null values only.
    """

    predicate: str
    where: str | None = None
    nulls_pass: str | None = None

    def judge(self) -> Column:
        from pyspark.sql import functions as F

        held = F.coalesce(F.expr(self.predicate).cast("boolean"), F.lit(False))
        return F.when(col(self.nulls_pass).isNull(), F.lit(True)).otherwise(held) if self.nulls_pass else held


@dataclass(frozen=True)
class PatternOutcome(RowOutcome):
    """PatternMatch (has_pattern, contains_email, ...): the regex is found in the value; a null value passes,
    since the PatternMatch metric counts only the non-null values."""

    column_name: str
    pattern: str
    where: str | None = None

    def judge(self) -> Column:
        from pyspark.sql import functions as F

        c = col(self.column_name)
        return F.when(c.isNull(), F.lit(True)).otherwise(F.coalesce(c.cast("string").rlike(self.pattern), F.lit(False)))


@dataclass(frozen=True)
class ValueOutcome(RowOutcome):
    """Minimum, Maximum, MinLength, MaxLength (has_min, has_max, has_min_length, has_max_length): the
    constraint's assertion holds for the row's value (or its length), as Deequ's RowLevelAssertedConstraint.
    A NaN is FALSE (the assertion's rule). A null value follows Deequ's NullBehavior: ``ignore`` leaves it NULL
    (not judged), ``fail`` makes it FALSE, ``empty_string`` (lengths) judges the length of ``""``, 0."""

    column_name: str
    assertion: Assertion
    where: str | None = None
    length: bool = False
    null_behavior: str = "ignore"

    def judge(self) -> Column:
        from pyspark.sql import functions as F

        c = col(self.column_name)
        if self.null_behavior == "empty_string":
            c = F.coalesce(c, F.lit(""))
        judged = assertion_column(self.assertion, (F.length(c) if self.length else c).cast("double"))
        if self.null_behavior == "fail":
            return F.when(c.isNull(), F.lit(False)).otherwise(judged)
        return judged


@dataclass(frozen=True)
class UniqueKeyOutcome(RowOutcome):
    """Uniqueness and UniqueValueRatio (is_unique, has_uniqueness, ...; Deequ's RowLevelGroupedConstraint):
    the row's key occurs once among the rows in scope. A row whose key columns are all null passes: the
    metric leaves it out (completeness judges it).

    Keys compare as text, as the metric's frequency table does. One window over the key counts the rows;
    rows it does not count each get their own window partition, so many null keys do not make one huge
    partition.
    """

    columns: tuple[str, ...]
    where: str | None = None
    grouped: ClassVar[bool] = True

    def judge(self) -> Column:
        from pyspark.sql import Window
        from pyspark.sql import functions as F

        keys = [col(c).cast("string") for c in self.columns]
        has_key = functools.reduce(operator.or_, [k.isNotNull() for k in keys])
        counted = self.in_scope() & has_key
        window = Window.partitionBy(*keys, F.when(~counted, F.monotonically_increasing_id()))
        occurrences = F.count(F.when(counted, F.lit(1))).over(window)
        return F.when(has_key, occurrences == 1).otherwise(F.lit(True))


def assertion_column(assertion: Assertion, value: Column) -> Column:
    """``assertion`` on each row's (double) ``value``: NULL for null, FALSE for NaN, as ``Assertion`` judges.

    A textual bound becomes Spark comparisons; a callable runs in a Python UDF (Deequ's row-level
    assertion is a UDF too), and a row on which it raises is FALSE, as the constraint fails when it raises.
    """
    from pyspark.sql import functions as F

    if assertion.comparisons:
        held = functools.reduce(operator.and_, [_COMPARE[op](value, F.lit(float(bound)))
                                                for op, bound in assertion.comparisons])
    else:
        held = F.udf(_row_assertion(assertion), "boolean", useArrow=False)(value)  # a plain row-at-a-time UDF
    return F.when(value.isNull(), F.lit(None).cast("boolean")).when(F.isnan(value), F.lit(False)).otherwise(held)


def _row_assertion(assertion: Assertion) -> Callable[[float | None], bool | None]:
    def judge(v: float | None) -> bool | None:
        if v is None:
            return None
        try:
            return bool(assertion(v))
        except Exception:  # noqa: BLE001 - a user assertion may raise anything; the row does not pass
            return False
    return judge
