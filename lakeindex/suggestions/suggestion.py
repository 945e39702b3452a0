"""A suggested constraint: why it was suggested, the evidence, and how to apply it (Python code or checks-file JSON).

``constraint`` is exactly a constraint of a JSON checks file: ``type`` names a ``Check`` method and the
other keys are its keyword arguments, in the method's parameter order, so ``code`` is the same call
written positionally (``.has_completeness("b", ">= 0.93")``).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

DEFAULT_CHECK_DESCRIPTION = "Constraints suggested from a profile of the data (review before use)"


def py_literal(value: Any) -> str:
    """Python source for a JSON-like value (strings double-quoted, as the JSON escapes are valid Python)."""
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list | tuple):
        return "[" + ", ".join(py_literal(v) for v in value) + "]"
    if value is None or isinstance(value, bool | int | float):
        return repr(value)
    raise TypeError(f"cannot render {value!r} as a literal")


@dataclass(frozen=True)
class Suggestion:
    """One constraint suggested for ``column`` by ``rule``, with the metric evidence behind it."""

    column: str
    rule: str
    description: str
    current_value: dict[str, Any]
    constraint: dict[str, Any] = field(default_factory=dict)

    @property
    def code(self) -> str:
        """The Check-builder call that applies this suggestion, e.g. ``.is_complete("id")``."""
        args = ", ".join(py_literal(v) for k, v in self.constraint.items() if k != "type")
        return f".{self.constraint['type']}({args})"

    def apply(self, check: Any) -> Any:
        """A new ``lakeindex.checks.Check``: ``check`` with this constraint (checks are immutable)."""
        kwargs = {k: v for k, v in self.constraint.items() if k != "type"}
        return getattr(check, self.constraint["type"])(**kwargs)

    def to_dict(self) -> dict[str, Any]:
        """JSON-able form, including the rendered ``code``."""
        return {"column": self.column, "rule": self.rule, "description": self.description,
                "current_value": self.current_value, "code": self.code, "constraint": dict(self.constraint)}


def suggestions_to_check_json(suggestions: Iterable[Suggestion], level: str = "error",
                              description: str = DEFAULT_CHECK_DESCRIPTION) -> dict[str, Any]:
    """A checks-file document with one check holding every suggested constraint (``lakeindex.checks`` reads it)."""
    return {"checks": [{"level": level, "description": description,
                        "constraints": [dict(s.constraint) for s in suggestions]}]}
