"""AVH programs for every column of a dataset, learned from its batch history in the metrics repository.

Learning reads only stored features (no data): the clean batches' feature dicts, and the synthetic-issue
features and column summaries of the latest clean batch (its row counts and value shapes decide where the
CLT bound applies, ``normality``). Columns with too short a history (fewer than ``MIN_HISTORY`` clean
batches) get no program, and the result says so.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from lakeindex.avh.learner import learn_program
from lakeindex.avh.leave_one_out import column_history
from lakeindex.avh.normality import clt_fallbacks
from lakeindex.avh.program import AVHProgram, Verdict
from lakeindex.history.batches import BatchRecord

MIN_HISTORY = 3
DEFAULT_DELTA = 0.001


@dataclass
class DatasetPrograms:
    """One AVH program per column, with the history it was learned from."""

    programs: dict[str, AVHProgram]
    batches: list[str]
    skipped: dict[str, str] = field(default_factory=dict)
    delta: float = DEFAULT_DELTA

    def to_dict(self) -> dict[str, Any]:
        return {"delta": self.delta, "history_batches": self.batches, "columns_skipped": self.skipped,
                "programs": {c: p.to_dict() for c, p in self.programs.items()}}


def learn_dataset_programs(records: Sequence[BatchRecord], delta: float = DEFAULT_DELTA, window: int | None = None,
                           max_clauses: int | None = None) -> DatasetPrograms:
    """Algorithm 1 per column over the clean batches ``records`` (oldest first)."""
    if window is not None:
        records = records[-window:]
    if not records:
        raise ValueError("no clean batches in the history: add some with `lakeindex history add`")
    latest = records[-1]
    programs, skipped = {}, {}
    for column in latest.features:
        # the first batch has no two-distribution metrics: it still describes single-distribution ones;
        # new_value_ratio each batch against all the others where the summaries allow it (leave_one_out)
        history = column_history(records, column)
        if len(history) < MIN_HISTORY:
            skipped[column] = f"only {len(history)} clean batches (need {MIN_HISTORY})"
            continue
        # the latest batch's synthetic-issue features, or the newest clean batch's that has them (a flagged
        # batch accepted later has none: they are computed only for batches recorded as accepted)
        issues = next((r.issue_features[column] for r in reversed(records) if r.issue_features.get(column)), None)
        if not issues:
            skipped[column] = "no synthetic-issue features for the latest batch"
            continue
        # Prop. 3 only where the newest clean batch's rows are many enough for their skewness (normality.py)
        summary = next((r.summaries[column] for r in reversed(records) if column in r.summaries), None)
        try:
            bound_kinds = clt_fallbacks(summary, delta, history) if summary is not None else None
            programs[column] = learn_program(column, history, issues, delta=delta, max_clauses=max_clauses,
                                             bound_kinds=bound_kinds)
        except ValueError as exc:
            skipped[column] = str(exc)
    return DatasetPrograms(programs, [r.batch_id for r in records], skipped, delta)


def check_dataset(programs: DatasetPrograms, records: Sequence[BatchRecord], new: BatchRecord) -> dict[str, Verdict]:
    """Each column's verdict for a new batch (features computed against the latest clean batch)."""
    verdicts = {}
    for column, program in programs.programs.items():
        history = column_history(records, column)
        if column not in new.features:
            verdicts[column] = Verdict(False, (), 0)
            continue
        verdicts[column] = program.check(history, new.features.get(column, {}))
    return verdicts
