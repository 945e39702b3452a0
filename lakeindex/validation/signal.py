"""What a batch signal is: a named test of one new batch against the dataset's clean history.

Every signal returns a JSON-able dict with at least ``signal`` (its name) and ``status``: ``passed``,
``failed`` or ``skipped`` (with a ``reason``, e.g. too little history), plus its own evidence.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

    from lakeindex.history.batches import BatchRecord


@dataclass
class BatchUnderTest:
    """The new batch's record (profiled by Spark or pandas), the clean history it is tested against,
    and, for signals that scan data (declared checks), the batch's DataFrame when there is one."""

    new: BatchRecord
    clean: list[BatchRecord]
    df: DataFrame | None = None


class Signal(Protocol):
    """One test of a batch; ``name`` is the ``signal`` field of its result."""

    name: str

    def evaluate(self, batch: BatchUnderTest) -> dict[str, Any]: ...


def skipped(name: str, reason: str) -> dict[str, Any]:
    """The result of a signal that cannot judge this batch."""
    return {"signal": name, "status": "skipped", "reason": reason}


def status(failed: bool) -> str:
    return "failed" if failed else "passed"
