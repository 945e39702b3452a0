"""The pattern signal: per text column, the FMDV-VH rule learned from the latest clean batch's value sample,
and the test of the batch's sample against it (``drift.validate``'s default), with the p-value and offending
values."""

from __future__ import annotations

from contextlib import nullcontext
from typing import Any

from lakeindex.validation.signal import BatchUnderTest, status

PATTERN_HISTORY_BATCHES = 1  # value samples are loaded for the latest clean batch only


class PatternSignal:
    """``index``: an index path, or an open reader or solver (the service passes its shared one)."""

    name = "patterns"

    def __init__(self, index: Any, alpha: float = 0.01) -> None:
        self.index = index
        self.alpha = alpha

    def evaluate(self, batch: BatchUnderTest) -> dict[str, Any]:
        from lakeindex.fmdv.drift import validate
        from lakeindex.fmdv.infer import AutoValidator
        from lakeindex.index.store import IndexReader

        recent = batch.clean[-PATTERN_HISTORY_BATCHES:]
        results, failing = {}, {}
        opened = IndexReader(self.index) if isinstance(self.index, str) else nullcontext(self.index)
        with opened as ix:
            for column, values in batch.new.value_samples.items():
                train = [v for r in recent for v in r.value_samples.get(column, [])]
                if not train or not values:
                    continue
                rule = AutoValidator(ix).fit(train).rule_
                if not rule.feasible:
                    results[column] = {"rule": None, "reason": "no feasible pattern (e.g. free text)"}
                    continue
                res = validate(rule, values, alpha=self.alpha, mode="homogeneity")
                results[column] = {"pattern": rule.pattern, "passed": res["passed"], "p_value": res.get("p_value")}
                if not res["passed"]:
                    failing[column] = res
        return {"signal": self.name, "status": status(bool(failing)), "columns": results, "failing_columns": failing}
