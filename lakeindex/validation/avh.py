"""The AVH signal: every column's AVH program (KDD 2023) learned from the clean batches' features, checked
on the batch's features, with each violated clause's metric, observed value and bounds."""

from __future__ import annotations

import time
from typing import Any

from lakeindex.avh.from_history import DEFAULT_DELTA, MIN_HISTORY, check_dataset, learn_dataset_programs
from lakeindex.validation.signal import BatchUnderTest, skipped, status


class AVHSignal:
    """``delta``: FPR budget per column; ``window``: learn from the last N clean batches (None: all)."""

    name = "avh"

    def __init__(self, delta: float = DEFAULT_DELTA, window: int | None = None, max_clauses: int | None = None) -> None:
        self.delta = delta
        self.window = window
        self.max_clauses = max_clauses

    def evaluate(self, batch: BatchUnderTest) -> dict[str, Any]:
        clean, new = batch.clean, batch.new
        if len(clean) < MIN_HISTORY:
            return skipped(self.name, f"{len(clean)} clean batches (need {MIN_HISTORY})")
        t = time.perf_counter()
        programs = learn_dataset_programs(clean, self.delta, self.window, self.max_clauses)
        learn_ms = (time.perf_counter() - t) * 1000
        used = clean[-self.window:] if self.window else clean
        verdicts = check_dataset(programs, used, new)
        failing = {c: v.to_dict() for c, v in verdicts.items() if not v.passed}
        for c in failing:
            if c not in new.features:
                failing[c]["reason"] = "column missing from the batch"
        return {"signal": self.name, "status": status(bool(failing)), "columns_checked": len(verdicts),
                "failing_columns": failing, "learned_from": programs.batches, "columns_skipped": programs.skipped,
                "fpr_bound_per_column": self.delta, "learn_ms": round(learn_ms, 1),
                "programs": {c: [cl.to_dict() for cl in p.clauses] for c, p in programs.programs.items()}}
