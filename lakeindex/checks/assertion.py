"""Assertions on metric values: a Python callable, or a small textual form usable in JSON check files.

The textual form is parsed, never evaluated: ``>= 0.9``, ``> 0``, ``<= 5``, ``< 3``, ``== 1``, ``!= 0`` and
``between 0.1 and 0.3`` (inclusive). It keeps check files data, not code, and lets results say what
was asserted in words.
"""

from __future__ import annotations

import math
import operator
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

_OPS: dict[str, Callable[[float, float], bool]] = {
    ">=": operator.ge, ">": operator.gt, "<=": operator.le, "<": operator.lt, "==": operator.eq, "!=": operator.ne}
_NUM = r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?|[+-]?inf"
_CMP_RE = re.compile(rf"^\s*(>=|<=|==|!=|>|<)\s*({_NUM})\s*$")
_BETWEEN_RE = re.compile(rf"^\s*between\s+({_NUM})\s+and\s+({_NUM})\s*$", re.IGNORECASE)


@dataclass(frozen=True)
class Assertion:
    """A predicate on a metric value with a human-readable description."""

    fn: Callable[[Any], bool]
    text: str
    # a parsed bound as comparisons that must all hold, e.g. ((">=", 0.1), ("<=", 0.3)); empty for a callable.
    # Row-level results compile them to Spark expressions (row_outcome.assertion_column), no Python UDF
    comparisons: tuple[tuple[str, float], ...] = ()

    def __call__(self, value: Any) -> bool:
        if self.comparisons and isinstance(value, float) and math.isnan(value):
            return False  # NaN satisfies no textual bound (not even "!= x"); a callable judges NaN itself
        return bool(self.fn(value))

    def __str__(self) -> str:
        return self.text


def parse_assertion(spec: str | Callable[[Any], bool] | Assertion | None, default: str = "== 1") -> Assertion:
    """An Assertion from a textual spec, a callable, or the default (``== 1``: the constraint must hold on all rows)."""
    if spec is None:
        spec = default
    if isinstance(spec, Assertion):
        return spec
    if callable(spec):
        return Assertion(spec, getattr(spec, "__name__", "custom assertion").replace("<lambda>", "custom assertion"))
    if not isinstance(spec, str):
        raise ValueError(f"assertion must be a string like '>= 0.9' or a callable, got {spec!r}")
    m = _CMP_RE.match(spec)
    if m:
        op, bound = _OPS[m.group(1)], float(m.group(2))
        return Assertion(lambda v, op=op, bound=bound: op(float(v), bound), f"{m.group(1)} {_fmt(bound)}",
                         ((m.group(1), bound),))
    m = _BETWEEN_RE.match(spec)
    if m:
        lo, hi = float(m.group(1)), float(m.group(2))
        if lo > hi:
            raise ValueError(f"assertion {spec!r}: lower bound {lo} is above upper bound {hi}")
        return Assertion(lambda v, lo=lo, hi=hi: lo <= float(v) <= hi, f"between {_fmt(lo)} and {_fmt(hi)}",
                         ((">=", lo), ("<=", hi)))
    raise ValueError(f"cannot parse assertion {spec!r}: use '>= x', '> x', '<= x', '< x', '== x', '!= x' "
                     "or 'between a and b'")


def _fmt(x: float) -> str:
    return str(int(x)) if x.is_integer() else repr(x)
