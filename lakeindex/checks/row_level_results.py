"""Row-level results (Deequ's ``VerificationResult.rowLevelResultsAsDataFrame``): the data plus boolean columns.

For each check with row-level constraints: one column named by the check's description, the AND of its
row-level constraints' outcomes (Spark's three-valued AND, as Deequ's ``reduce(_ and _)``: FALSE if any
constraint fails the row, else NULL if any does not judge it, else TRUE); and, after it, one column per
row-level constraint named ``"<check column>: <constraint description>"``. Constraints that are not
row-level (has_mean, has_size, ...) add nothing; a check without row-level constraints gets no column.
A name already taken (by a data column or an earlier result column, compared case-insensitively as Spark
does) gets `` (2)``, `` (3)``, ... appended. A constraint whose metric could not be computed (a missing
column, a wrong type) judges no row: its column is NULL (Deequ leaves the column out).

Everything stays a lazy plan: nothing is collected; uniqueness adds a window over its key.
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from lakeindex.checks.constraint import SUCCESS, Constraint, ConstraintResult
from lakeindex.checks.row_outcome import check_filtered_row, fresh_name
from lakeindex.sql_identifiers import col

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame

    from lakeindex.checks.check import Check, CheckResult


@dataclass(frozen=True)
class RowLevelColumn:
    """One added column: its name, its check, and its constraint (None for the check's own column), with
    their positions in the suite's checks and the check's constraints."""

    name: str
    check: Check
    constraint: Constraint | None
    check_index: int
    constraint_index: int | None


def row_level_columns(check_results: Sequence[CheckResult], data_columns: Sequence[str],
                      constraints: bool = True) -> list[RowLevelColumn]:
    """The columns :func:`row_level_results` adds to data with ``data_columns``, in order."""
    taken = {c.casefold() for c in data_columns}
    out: list[RowLevelColumn] = []
    for i, cr in enumerate(check_results):
        row_level = [(j, c) for j, c in enumerate(cr.check.constraints) if c.row_level is not None]
        if not row_level:
            continue
        check_name = _claim(cr.check.description or f"check {i + 1}", taken)
        out.append(RowLevelColumn(check_name, cr.check, None, i, None))
        if constraints:
            out += [RowLevelColumn(_claim(f"{check_name}: {c.description}", taken), cr.check, c, i, j)
                    for j, c in row_level]
    return out


def row_level_results(data: DataFrame, check_results: Sequence[CheckResult], filtered_row: str = "true",
                      constraints: bool = True) -> DataFrame:
    """``data`` with the row-level columns of ``check_results`` appended (see the module docstring).

    ``filtered_row`` is the outcome of rows outside a constraint's ``where``: ``"true"`` (Deequ's default)
    or ``"null"``. ``constraints=False`` adds only the per-check columns, as Deequ does.
    """
    check_filtered_row(filtered_row)
    outcomes: dict[tuple[int, int], Column] = {}  # (check index, constraint index) -> outcome
    for i, cr in enumerate(check_results):
        for j, (constraint, result) in enumerate(zip(cr.check.constraints, cr.constraint_results, strict=True)):
            if constraint.row_level is not None:
                outcomes[i, j] = _outcome(constraint, result, filtered_row)
    if not outcomes:
        return data
    # first the outcomes under temporary names (a window is computed once), then the named columns
    temps: dict[tuple[int, int], str] = {}
    for key in outcomes:
        temps[key] = fresh_name([*data.columns, *temps.values()], f"__lakeindex_row_level_{len(temps)}")
    staged = data.select("*", *[outcomes[k].alias(temps[k]) for k in outcomes])
    added = []
    for rc in row_level_columns(check_results, data.columns, constraints):
        if rc.constraint_index is None:
            parts = [col(t) for (i, _), t in temps.items() if i == rc.check_index]
            added.append(functools.reduce(operator.and_, parts).alias(rc.name))
        else:
            added.append(col(temps[rc.check_index, rc.constraint_index]).alias(rc.name))
    return staged.select("*", *added).drop(*temps.values())


def _outcome(constraint: Constraint, result: ConstraintResult, filtered_row: str) -> Column:
    """The constraint's row outcome, or NULL when its metric could not be computed (a Failure without a
    metric value; a metric over no rows under a where-filter is a Success, and its rows are all filtered)."""
    from pyspark.sql import functions as F

    metric = result.metric
    if metric is None or (not metric.ok and result.status != SUCCESS):
        return F.lit(None).cast("boolean")
    return constraint.row_level.column(filtered_row)


def _claim(name: str, taken: set[str]) -> str:
    """``name``, or ``name (2)``, ``name (3)``, ... whichever is free; marks it taken."""
    candidate, n = name, 1
    while candidate.casefold() in taken:
        n += 1
        candidate = f"{name} ({n})"
    taken.add(candidate.casefold())
    return candidate
