"""Validate one new batch of a recurring dataset with every signal the platform has, in one report.

Signals, all learned from the dataset's clean history in the metrics repository:
- **schema**: columns missing from, or new in, the batch compared with the latest clean batch;
- **avh**: per column, the AVH program (KDD 2023) learned from the history's features, checked on the
  batch's features — each violated clause with its metric, observed value and bounds;
- **novelty**: the kNN detector (EDBT 2021) over the batches' feature vectors — score and threshold;
- **patterns**: with a pattern index, per text column, the FMDV-VH rule learned from the history's value
  samples and the homogeneity test (Fisher) on the batch's sample — p-value and offending values;
- **checks**: declared checks (Deequ-style), computed in their own shared pass.
The batch costs one Spark summary pass and one bounded sample (plus one pass for declared checks). It
is recorded as accepted when nothing fails and as flagged otherwise; flagged batches stay out of the
clean history until ``lakeindex history accept``.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from lakeindex.avh.from_history import DEFAULT_DELTA, MIN_HISTORY, check_dataset, learn_dataset_programs
from lakeindex.history.batches import ACCEPTED, FLAGGED, BatchHistory, BatchRecord, profile_batch

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

    from lakeindex.checks import Check

PATTERN_HISTORY_BATCHES = 1  # value samples are loaded for the latest clean batch only
MIN_NOVELTY_HISTORY = 2


def _schema_signal(latest: BatchRecord | None, new: BatchRecord) -> dict[str, Any]:
    if latest is None:
        return {"signal": "schema", "status": "skipped", "reason": "no clean batch yet"}
    # kinds are fixed by the history (a numeric column full of text is numeric with complete_ratio 0, which
    # AVH sees), so this signal is about the column set only
    missing = sorted(set(latest.summaries) - set(new.summaries))
    added = sorted(set(new.summaries) - set(latest.summaries))
    failed = bool(missing or added)
    return {"signal": "schema", "status": "failed" if failed else "passed", "missing_columns": missing,
            "new_columns": added}


def avh_signal(clean: list[BatchRecord], new: BatchRecord, delta: float = DEFAULT_DELTA, window: int | None = None,
               max_clauses: int | None = None) -> dict[str, Any]:
    """Learn every column's AVH program from the clean batches and check the new batch's features."""
    if len(clean) < MIN_HISTORY:
        return {"signal": "avh", "status": "skipped", "reason": f"{len(clean)} clean batches (need {MIN_HISTORY})"}
    t = time.perf_counter()
    programs = learn_dataset_programs(clean, delta, window, max_clauses)
    learn_ms = (time.perf_counter() - t) * 1000
    used = clean[-window:] if window else clean
    verdicts = check_dataset(programs, used, new)
    failing = {c: v.to_dict() for c, v in verdicts.items() if not v.passed}
    for c in failing:
        if c not in new.features:
            failing[c]["reason"] = "column missing from the batch"
    return {"signal": "avh", "status": "failed" if failing else "passed", "columns_checked": len(verdicts),
            "failing_columns": failing, "learned_from": programs.batches, "columns_skipped": programs.skipped,
            "fpr_bound_per_column": delta, "learn_ms": round(learn_ms, 1),
            "programs": {c: [cl.to_dict() for cl in p.clauses] for c, p in programs.programs.items()}}


def novelty_signal(clean: list[BatchRecord], new: BatchRecord) -> dict[str, Any]:
    """Score the new batch with the kNN detector fitted on the clean batches' feature vectors."""
    from lakeindex.novelty.knn import KNNNoveltyDetector

    if len(clean) < MIN_NOVELTY_HISTORY:
        return {"signal": "novelty", "status": "skipped",
                "reason": f"{len(clean)} clean batches (need {MIN_NOVELTY_HISTORY})"}
    det = KNNNoveltyDetector(k=5, contamination=0.01).fit([r.novelty for r in clean])
    score = float(det.decision_function(new.novelty))
    novel = bool(det.predict(new.novelty))
    return {"signal": "novelty", "status": "failed" if novel else "passed", "score": score,
            "threshold": float(det.threshold_), "k": det.n_neighbors_, "learned_from": [r.batch_id for r in clean]}


def _pattern_signal(clean: list[BatchRecord], new: BatchRecord, index: Any, alpha: float) -> dict[str, Any]:
    """``index``: an index path, or an open reader/solver (the service passes its shared one)."""
    from contextlib import nullcontext

    from lakeindex.fmdv.infer import AutoValidator
    from lakeindex.fmdv.validate import validate
    from lakeindex.index.store import IndexReader

    recent = clean[-PATTERN_HISTORY_BATCHES:]
    results, failing = {}, {}
    with (IndexReader(index) if isinstance(index, str) else nullcontext(index)) as ix:
        for column, values in new.value_samples.items():
            train = [v for r in recent for v in r.value_samples.get(column, [])]
            if not train or not values:
                continue
            rule = AutoValidator(ix).fit(train).rule_
            if not rule.feasible:
                results[column] = {"rule": None, "reason": "no feasible pattern (e.g. free text)"}
                continue
            res = validate(rule, values, alpha=alpha, mode="homogeneity")
            results[column] = {"pattern": rule.pattern, "passed": res["passed"], "p_value": res.get("p_value")}
            if not res["passed"]:
                failing[column] = res
    return {"signal": "patterns", "status": "failed" if failing else "passed", "columns": results,
            "failing_columns": failing}


def _checks_signal(df: DataFrame, checks: list[Check]) -> dict[str, Any]:
    from lakeindex.checks import VerificationSuite

    result = VerificationSuite().on_data(df).add_checks(checks).run()
    failed = result.status == "Error"
    return {"signal": "checks", "status": "failed" if failed else "passed", "result_status": result.status,
            "checks": [c.to_dict() for c in result.check_results]}


def validate_batch(df: DataFrame, history: BatchHistory, batch_id: str, index: str | None = None,
                   checks: list[Check] | None = None, delta: float = DEFAULT_DELTA, window: int | None = None,
                   alpha: float = 0.01, record: bool = True, timestamp_ms: int | None = None) -> dict[str, Any]:
    """Run every signal on the batch and return one report; record the batch as accepted or flagged."""
    if history.find(batch_id) is not None:
        raise ValueError(f"batch {batch_id!r} is already in the history of {history.dataset!r}")
    clean = history.records(ACCEPTED, light=True)
    t0 = time.perf_counter()
    new = profile_batch(df, batch_id, clean[-1] if clean else None)
    summary_s = time.perf_counter() - t0
    report = validate_record(history, new, clean, index, checks, df, delta, window, alpha, record, timestamp_ms)
    report["timing"]["summary_pass_s"] = round(summary_s, 3)
    return report


def validate_record(history: BatchHistory, new: BatchRecord, clean: list[BatchRecord], index: Any = None,
                    checks: list[Check] | None = None, df: DataFrame | None = None, delta: float = DEFAULT_DELTA,
                    window: int | None = None, alpha: float = 0.01, record: bool = True,
                    timestamp_ms: int | None = None) -> dict[str, Any]:
    """The signals and the report for a batch already profiled (by Spark or, in the service, by pandas)."""
    latest = clean[-1] if clean else None
    batch_id = new.batch_id
    t1 = time.perf_counter()
    signals = [_schema_signal(latest, new), avh_signal(clean, new, delta, window), novelty_signal(clean, new)]
    if index:
        signals.append(_pattern_signal(clean, new, index, alpha))
    if checks and df is not None:
        signals.append(_checks_signal(df, checks))
    failing = [s["signal"] for s in signals if s["status"] == "failed"]
    verdict = "flagged" if failing else "passed"
    report = {"dataset": history.dataset, "batch": batch_id, "verdict": verdict, "failing_signals": failing,
              "signals": signals, "rows": new.notes.get("rows"), "clean_history_batches": len(clean),
              "timing": {"signals_s": round(time.perf_counter() - t1, 3)}}
    if record:
        new.status = ACCEPTED if verdict == "passed" else FLAGGED
        new.timestamp_ms = timestamp_ms or int(time.time() * 1000)
        if failing:
            new.notes["failing_signals"] = failing
        history.save(new)
        report["recorded_as"] = new.status
    return report
