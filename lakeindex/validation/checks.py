"""The checks signal: declared checks (Deequ-style) computed on the batch's DataFrame in their own shared
pass; it fails when an error-level check fails."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from lakeindex.validation.signal import BatchUnderTest, skipped, status

if TYPE_CHECKING:
    from lakeindex.checks import Check


class ChecksSignal:
    name = "checks"

    def __init__(self, checks: list[Check]) -> None:
        self.checks = checks

    def evaluate(self, batch: BatchUnderTest) -> dict[str, Any]:
        from lakeindex.checks import VerificationSuite

        if batch.df is None:
            return skipped(self.name, "declared checks need the batch's DataFrame")
        result = VerificationSuite().on_data(batch.df).add_checks(self.checks).run()
        return {"signal": self.name, "status": status(result.status == "Error"), "result_status": result.status,
                "checks": [c.to_dict() for c in result.check_results]}
