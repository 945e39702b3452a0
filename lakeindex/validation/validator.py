"""Validate one new batch of a recurring dataset with every signal the platform has, in one report.

Signals (each its own module here), all learned from the dataset's clean history in the metrics
repository: **schema**, **avh**, **novelty**, **patterns** (with a pattern index) and **checks**
(declared checks). The batch costs one Spark summary pass (or a pandas one for a small local batch) and one
bounded sample, plus one pass for declared checks. It is recorded as accepted when no error-severity
signal fails and as flagged otherwise; flagged batches stay out of the clean history until
``lakeindex history accept``. Each signal's policy (:mod:`lakeindex.validation.policy`) says how much clean
history it needs before it may fail a batch ("warming_up" before that) and whether a failure is an error
or a warning.

The CLI (``lakeindex validate-batch``, :meth:`BatchValidator.validate_frame`) and the service
(``POST /v1/batches/validate``, :meth:`BatchValidator.validate_columns`) use this class unchanged; they differ
only in how the batch is profiled.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from lakeindex.avh.from_history import DEFAULT_DELTA
from lakeindex.history.batches import (
    ACCEPTED,
    FLAGGED,
    BatchHistory,
    BatchRecord,
    IssueFeatureJob,
    profile,
    profile_frame,
)
from lakeindex.validation.avh import AVHSignal
from lakeindex.validation.checks import ChecksSignal
from lakeindex.validation.novelty import NoveltySignal
from lakeindex.validation.patterns import PatternSignal
from lakeindex.validation.policy import DEFAULT_POLICIES, SignalPolicy
from lakeindex.validation.schema import SchemaSignal
from lakeindex.validation.signal import BatchUnderTest, Signal

if TYPE_CHECKING:
    import pandas as pd
    from pyspark.sql import DataFrame

    from lakeindex.checks import Check


class NoCleanHistory(LookupError):
    """A dataset without a clean batch to profile a new batch against."""


class BatchValidator:
    """Runs its signals on a batch and records the verdict in the dataset's history."""

    def __init__(self, signals: list[Signal], policies: dict[str, SignalPolicy] | None = None) -> None:
        self.signals = signals
        self.policies = {**DEFAULT_POLICIES, **(policies or {})}

    @classmethod
    def default(cls, index: Any = None, checks: list[Check] | None = None, delta: float = DEFAULT_DELTA,
                window: int | None = None, alpha: float = 0.01,
                policies: dict[str, SignalPolicy] | None = None) -> BatchValidator:
        """Schema, AVH and novelty always; patterns with an index (path, reader or solver); checks if given."""
        signals: list[Signal] = [SchemaSignal(), AVHSignal(delta, window), NoveltySignal()]
        if index:
            signals.append(PatternSignal(index, alpha))
        if checks:
            signals.append(ChecksSignal(checks))
        return cls(signals, policies)

    def judged(self, result: dict[str, Any], clean_batches: int) -> dict[str, Any]:
        """A signal's result under its policy: ``warming_up`` (with ``would_fail``) while the history is shorter
        than its ``min_history``, and its ``severity``."""
        policy = self.policies.get(result["signal"], SignalPolicy())
        result = {**result, "severity": policy.severity}
        if clean_batches < policy.min_history and result["status"] in ("passed", "failed"):
            result["would_fail"] = result["status"] == "failed"
            result["status"] = "warming_up"
            result["warming_up"] = (f"{clean_batches} clean batches; this signal may fail batches from "
                                    f"{policy.min_history} on")
        return result

    def validate_frame(self, df: DataFrame | pd.DataFrame, history: BatchHistory, batch_id: str, record: bool = True,
                       timestamp_ms: int | None = None) -> dict[str, Any]:
        """Profile the batch (one Spark pass, or pandas for a frame in memory), then :meth:`validate`."""
        known = history.light_records()  # one read for the duplicate-id checks and the clean history
        history.ensure_new(batch_id, known)
        clean = history.with_latest_in_full(history.clean_of(known))
        t0 = time.perf_counter()
        new = profile(df, batch_id, clean[-1] if clean else None, issues=False)
        summary_s = time.perf_counter() - t0
        report = self.validate(history, new, clean, df, record, timestamp_ms, known)
        report["timing"]["profile_s"] = round(summary_s, 3)
        return report

    def validate_columns(self, history: BatchHistory, batch_id: str, columns: Mapping[str, Sequence[Any]],
                         record: bool = False) -> dict[str, Any]:
        """Profile a small batch given as columns of values (pandas, no Spark) against the latest clean batch,
        then :meth:`validate`. Raises ``BatchAlreadyRecorded`` for an id the history holds, and
        :class:`NoCleanHistory` for a dataset without clean batches (onboarding goes through the CLI)."""
        import pandas as pd

        known = history.light_records()  # one read for the duplicate-id checks and the clean history
        history.ensure_new(batch_id, known)
        clean = history.with_latest_in_full(history.clean_of(known))
        if not clean:
            raise NoCleanHistory(f"no clean history for dataset {history.dataset!r}")
        pdf = pd.DataFrame({k: pd.Series(v, dtype=object) for k, v in columns.items()})
        new = profile_frame(pdf, batch_id, clean[-1], issues=False)  # added by validate() if accepted
        return self.validate(history, new, clean, record=record, known=known)

    def validate(self, history: BatchHistory, new: BatchRecord, clean: list[BatchRecord],
                 df: DataFrame | None = None, record: bool = True, timestamp_ms: int | None = None,
                 known: list[BatchRecord] | None = None) -> dict[str, Any]:
        """The signals and the report for a batch already profiled (by Spark or pandas). A batch recorded as
        accepted gets its synthetic-issue features now (it becomes the batch AVH learns from); a checked or
        flagged one never pays for them. ``known``: every stored batch, light, if already read."""
        # the features a passing batch needs start now, in worker processes while the signals run
        job = IssueFeatureJob(new) if record else None
        try:
            report = self._report(history.dataset, new, clean, df)
            if job is not None:
                self._record(history, new, report, job, timestamp_ms, known)
        finally:
            if job is not None:
                job.cancel()  # a flagged batch (or a failure) does not wait for them
        return report

    def _report(self, dataset: str, new: BatchRecord, clean: list[BatchRecord],
                df: DataFrame | None) -> dict[str, Any]:
        """Every signal on the batch, judged under its policy, and the verdict."""
        t1 = time.perf_counter()
        batch = BatchUnderTest(new, clean, df)
        signals = [self.judged(s.evaluate(batch), len(clean)) for s in self.signals]
        failing = [s["signal"] for s in signals if s["status"] == "failed" and s["severity"] == "error"]
        warnings = [s["signal"] for s in signals if s["status"] == "failed" and s["severity"] == "warn"]
        return {"dataset": dataset, "batch": new.batch_id, "verdict": "flagged" if failing else "passed",
                "failing_signals": failing, "warning_signals": warnings,
                "warming_up": [s["signal"] for s in signals if s["status"] == "warming_up"],
                "signals": signals, "rows": new.notes.get("rows"), "clean_history_batches": len(clean),
                "timing": {"signals_s": round(time.perf_counter() - t1, 3)}}

    @staticmethod
    def _record(history: BatchHistory, new: BatchRecord, report: dict[str, Any], job: IssueFeatureJob,
                timestamp_ms: int | None, known: list[BatchRecord] | None) -> None:
        """Store the batch with its verdict: accepted with its synthetic-issue features, or flagged."""
        failing, warnings = report["failing_signals"], report["warning_signals"]
        history.claim(new.batch_id, known)  # the id is a unique key: concurrent validations record it once
        new.status = ACCEPTED if not failing else FLAGGED
        new.timestamp_ms = timestamp_ms or int(time.time() * 1000)
        if failing:
            new.notes["failing_signals"] = failing
        if warnings:
            new.notes["warning_signals"] = warnings
        new.validation = stored_evidence(report)
        try:
            if not failing:  # it becomes the batch AVH learns from next
                t2 = time.perf_counter()
                job.finish()
                report["timing"]["issue_features_s"] = round(time.perf_counter() - t2, 3)
            history.save(new)
        except BaseException:
            history.unclaim(new.batch_id)
            raise
        report["recorded_as"] = new.status


def stored_evidence(report: dict[str, Any]) -> dict[str, Any]:
    """What a recorded batch keeps of its validation report (the ``Validation()`` metric): verdicts and
    evidence as decided, without what can be learned again and grows with the history (AVH programs, the
    ids of every batch learned from)."""
    signals = []
    for s in report["signals"]:
        s = {k: v for k, v in s.items() if k != "programs"}
        if isinstance(s.get("learned_from"), list):
            s["learned_from"] = len(s["learned_from"])
        signals.append(s)
    keep = ("verdict", "failing_signals", "warning_signals", "warming_up", "rows", "clean_history_batches")
    return {**{k: report[k] for k in keep if k in report}, "signals": signals}
