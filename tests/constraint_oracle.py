"""An oracle for suggested constraints, independent of lakeindex.checks: each constraint kind the suggestion rules
emit, evaluated in plain Python on the rows a reader gave (an Arrow table), from the documented semantics.

Semantics (Deequ's constraints, with the deviations lakeindex documents in docs/ and its Check docstrings):
- ``is_complete`` / ``has_completeness``: the fraction of rows whose value is not null.
- ``is_unique``: every non-null value occurs once (Deequ's Uniqueness over the non-null rows is 1).
- ``has_data_type``: the fraction of the non-null values of the named type. Typed values have their Arrow type
  (integers Integral, floats Fractional, booleans Boolean); text is classified as Deequ's DataTypeHistogram
  describes: an optionally signed run of digits is Integral; a signed decimal with a point or an exponent, NaN
  or Infinity is Fractional; true/false in any case is Boolean; anything else String (dates, times too).
- ``is_non_negative``: the fraction of rows that are null or whose value read as a number is >= 0 (text that is
  no number fails); Spark orders NaN above every number, so NaN passes.
- ``is_contained_in``: the fraction of the non-null values that are among the listed values. Text is compared
  as text; a date or timestamp value against each listed text read as a date/timestamp (Spark's cast: ISO forms,
  a time of day alone meaning today, UTC, the session time zone); numbers compare by numeric value.
Every assertion a suggestion carries has the form ``OP NUMBER``; no assertion means the metric is 1.
"""

from __future__ import annotations

import datetime as dt
import math
import operator
import re
from collections import Counter
from typing import Any

import pyarrow as pa

ASSERTION = re.compile(r"^\s*(>=|<=|==|>|<)\s*([0-9.eE+-]+)\s*$")
OPERATORS = {">=": operator.ge, "<=": operator.le, "==": operator.eq, ">": operator.gt, "<": operator.lt}
JAVA_SPACE = " \t\n\x0b\f\r"  # what Java's \s matches: the spaces a number's text may carry around it
DIGITS = set("0123456789")


def satisfied(value: float, assertion: str | None) -> bool:
    """Whether a metric value satisfies ``OP NUMBER`` (none: the value is 1)."""
    if assertion is None:
        return value == 1.0
    m = ASSERTION.match(assertion)
    if m is None:
        raise ValueError(f"the oracle reads only 'OP NUMBER' assertions, got {assertion!r}")
    return OPERATORS[m.group(1)](value, float(m.group(2)))


def is_digits(text: str) -> bool:
    return bool(text) and set(text) <= DIGITS


def text_type(value: str) -> str:
    """Deequ's type of a text value: Integral, Fractional, Boolean or String."""
    s = value.strip(JAVA_SPACE)
    if s.lower() in ("true", "false"):
        return "Boolean"
    if s in ("NaN", "Infinity", "+Infinity", "-Infinity"):
        return "Fractional"
    body = s[1:] if s[:1] in ("+", "-") else s
    if is_digits(body):
        return "Integral"
    mantissa, has_exponent, exponent = body.lower().partition("e")
    whole, point, fraction = mantissa.partition(".")
    if has_exponent and not is_digits(exponent[1:] if exponent[:1] in ("+", "-") else exponent):
        return "String"
    if not (point or has_exponent) or not (whole or fraction):
        return "String"
    if (whole and not is_digits(whole)) or (fraction and not is_digits(fraction)):
        return "String"
    return "Fractional"


def value_type(value: Any, arrow_type: pa.DataType) -> str:
    """Deequ's type of one non-null value of a column of ``arrow_type``."""
    if pa.types.is_boolean(arrow_type):
        return "Boolean"
    if pa.types.is_integer(arrow_type):
        return "Integral"
    if pa.types.is_floating(arrow_type):
        return "Fractional"
    if pa.types.is_string(arrow_type) or pa.types.is_large_string(arrow_type):
        return text_type(value)
    if pa.types.is_date(arrow_type) or pa.types.is_timestamp(arrow_type):
        return "String"
    raise NotImplementedError(f"the oracle has no type rule for {arrow_type}")


def as_number(value: Any) -> float | None:
    """A value read as a number (Spark's TRY_CAST to DOUBLE: text trimmed; not a number: None)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value)
    try:
        return float(str(value).strip(JAVA_SPACE))
    except ValueError:
        return None


def as_temporal(text: str, date_only: bool) -> dt.date | dt.datetime | None:
    """A listed text value read as a date or a UTC timestamp (None: no such value)."""
    s = text.strip()
    try:
        if date_only:
            return dt.date.fromisoformat(s[:10]) if len(s) >= 10 else None
        try:
            stamp = dt.datetime.fromisoformat(s)
        except ValueError:
            stamp = dt.datetime.combine(dt.datetime.now(dt.UTC).date(), dt.time.fromisoformat(s))
    except ValueError:
        return None
    return stamp.replace(tzinfo=dt.UTC) if stamp.tzinfo is None else stamp.astimezone(dt.UTC)


def contained(values: list[Any], allowed: list[Any], arrow_type: pa.DataType) -> int:
    """How many of the non-null ``values`` are among ``allowed``."""
    if all(isinstance(v, str) for v in allowed):
        if pa.types.is_date(arrow_type) or pa.types.is_timestamp(arrow_type):
            wanted = {as_temporal(a, pa.types.is_date(arrow_type)) for a in allowed} - {None}
            return sum(1 for v in values if (v.astimezone(dt.UTC) if isinstance(v, dt.datetime) else v) in wanted)
        if pa.types.is_integer(arrow_type) or pa.types.is_string(arrow_type):
            texts = set(allowed)
            return sum(1 for v in values if str(v) in texts)
        if pa.types.is_boolean(arrow_type):
            return sum(1 for v in values if ("true" if v else "false") in allowed)
        raise NotImplementedError(f"the oracle does not render {arrow_type} as text")
    numbers = {float(a) for a in allowed}
    return sum(1 for v in values if as_number(v) in numbers)


def metric(constraint: dict[str, Any], table: pa.Table) -> float:
    """The value of the constraint's metric on ``table``."""
    kind, column = constraint["type"], constraint["column"]
    arrow_type = table.schema.field(column).type
    rows = table.column(column).to_pylist()
    present = [v for v in rows if v is not None]
    if not rows:
        raise ValueError("no rows: every metric of an empty table fails")
    if kind in ("is_complete", "has_completeness"):
        return len(present) / len(rows)
    if kind == "is_unique":
        counts = Counter("NaN" if isinstance(v, float) and math.isnan(v) else v for v in present)
        return sum(1 for c in counts.values() if c == 1) / len(present) if present else 0.0
    if kind == "has_data_type":
        wanted = constraint["type_name"]
        return sum(1 for v in present if value_type(v, arrow_type) == wanted) / len(present) if present else 0.0
    if kind == "is_non_negative":
        numbers = [as_number(v) for v in present]
        return (len(rows) - len(present) + sum(1 for x in numbers if x is not None and (math.isnan(x) or x >= 0))) \
            / len(rows)
    if kind == "is_contained_in":
        return contained(present, list(constraint["values"]), arrow_type) / len(present) if present else 1.0
    raise NotImplementedError(f"the oracle has no rule for {kind!r}")


def failing(constraints: list[dict[str, Any]], table: pa.Table) -> list[tuple[dict[str, Any], float]]:
    """The constraints that do not hold on ``table``, each with its metric value."""
    out = []
    for c in constraints:
        value = metric(c, table)
        if not satisfied(value, c.get("assertion")):
            out.append((c, value))
    return out
