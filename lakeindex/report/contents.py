"""What a dataset's report shows, gathered from the metrics repository alone (no data is read).

- **Batches**: every recorded batch, oldest first, with its status and rows.
- **Latest verdicts**: the newest batch recorded by ``validate-batch`` keeps each signal's verdict and
  evidence as decided then (the ``Validation()`` metric); the report shows those, not a recomputation, so
  it says what the pipeline was told.
- **Metric history with AVH bounds**: the AVH programs learned now from the clean history (as the next
  ``validate-batch`` would learn them); one chart per clause: the metric's value per batch, the range the
  clause allows each batch, the batches flagged on that clause's metric and points outside the range.
- **Declared metrics**: each scalar metric that ``lakeindex check --repo`` stored for the dataset, over
  its runs, with the single-metric AVH constraint at the same FPR budget where the series allows one.
- **Pattern rules**: with an index, the FMDV-VH rule of each text column learned from the latest clean
  batch's value sample; else the rules of the latest validation's pattern signal.
- **Check results**: the declared checks of the latest validation.
"""

from __future__ import annotations

import math
import time
from collections import defaultdict
from contextlib import nullcontext
from dataclasses import dataclass, field
from typing import Any

from lakeindex.avh.from_history import DEFAULT_DELTA, MIN_HISTORY, learn_dataset_programs
from lakeindex.history.batches import ACCEPTED, FLAGGED, BatchHistory, BatchRecord
from lakeindex.history.metric_glossary import GLOSSARY
from lakeindex.report.charts import Chart, chart, fitted_constraint
from lakeindex.repository import FileSystemMetricsRepository

MAX_DECLARED_CHARTS = 200  # a repository with more scalar series gets the first ones and a note


class UnknownDataset(ValueError):
    """The repository holds nothing for the dataset."""


@dataclass
class ReportContents:
    """Everything one report page shows (see the module docstring)."""

    dataset: str
    repository: str
    generated_ms: int
    batches: list[dict[str, Any]]
    latest_validation: dict[str, Any] | None
    avh_charts: dict[str, list[Chart]]
    avh_skipped: dict[str, str]
    avh_note: str | None
    declared_charts: list[Chart]
    patterns: dict[str, dict[str, Any]]
    patterns_source: str
    checks: list[dict[str, Any]]
    delta: float
    notes: list[str] = field(default_factory=list)


def utc_text(ms: int) -> str:
    """Epoch milliseconds as the report writes times (``2026-11-26 01:02:03 UTC``); empty for none."""
    return time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(ms / 1000)) if ms else ""


def _float(v: Any) -> float | None:
    if isinstance(v, bool) or not isinstance(v, int | float):
        return None
    return float(v) if math.isfinite(v) else None


def _violated_metrics(validation: dict[str, Any]) -> set[tuple[str, str]]:
    """(column, metric) of every AVH clause a recorded validation found violated."""
    for s in validation.get("signals", []):
        if s.get("signal") == "avh" and isinstance(s.get("failing_columns"), dict):
            return {(column, v.get("metric")) for column, verdict in s["failing_columns"].items()
                    for v in verdict.get("violations", [])}
    return set()


def _avh(records: list[BatchRecord], clean: list[BatchRecord], delta: float, window: int | None,
         violated: dict[str, set[tuple[str, str]]]) -> tuple[dict[str, list[Chart]], dict[str, str], str | None]:
    """One chart per clause of each column's AVH program, learned from ``clean`` as validate-batch would.
    A chart marks a batch flagged only where the batch's recorded validation (``violated``: batch id to
    the (column, metric) pairs AVH flagged) names the chart's column and metric."""
    if len(clean) < MIN_HISTORY:
        return {}, {}, f"{len(clean)} clean batches: AVH programs need {MIN_HISTORY}"
    programs = learn_dataset_programs(clean, delta, window)
    used = {r.batch_id for r in (clean[-window:] if window else clean)}
    labels = [r.batch_id for r in records]
    is_clean = [r.status == ACCEPTED and r.batch_id in used for r in records]
    charts: dict[str, list[Chart]] = {}
    for n, (column, program) in enumerate(sorted(programs.programs.items())):
        for i, clause in enumerate(program.clauses):
            c = clause.constraint
            values = [_float(r.features.get(column, {}).get(c.metric)) for r in records]
            flagged = [r.status == FLAGGED and (column, c.metric) in violated.get(r.batch_id, ()) for r in records]
            key = f"avh-c{n}-{i}"  # column names may hold anything; ids and selectors need plain keys
            title = f"{column} · {c.transform.describe(c.metric)}"
            charts.setdefault(column, []).append(chart(key, title, labels, values, is_clean, c, flagged,
                                                       GLOSSARY[c.metric].description))
    note = None if programs.programs else "no column has an AVH program yet"
    return charts, dict(programs.skipped), note


def _declared(repo: FileSystemMetricsRepository, dataset: str, delta: float) -> tuple[list[Chart], list[str]]:
    """Scalar metrics of the dataset's check runs (results without a ``batch`` tag), one chart per analyzer."""
    results = repo.load().for_dataset(dataset).without_tag("batch").get()
    series: dict[str, dict[int, float | None]] = defaultdict(dict)
    names: dict[str, tuple[str, str]] = {}
    for i, r in enumerate(results):
        for m in r.metrics:
            if m.ok and isinstance(m.value, float):
                series[m.analyzer][i] = _float(m.value)
                names[m.analyzer] = (m.name, m.instance)
    labels = [utc_text(r.key.timestamp_ms) + (" " + ",".join(f"{k}={v}" for k, v in r.key.tag_items)
                                          if r.key.tag_items else "") for r in results]
    charts, notes = [], []
    for n, spec in enumerate(sorted(series)):
        if n == MAX_DECLARED_CHARTS:
            notes.append(f"{len(series) - n} more declared metrics not charted (first {MAX_DECLARED_CHARTS} shown)")
            break
        points = sorted(series[spec])
        values = [series[spec][i] for i in points]
        name, instance = names[spec]
        c = fitted_constraint(name, instance, values, delta)
        charts.append(chart(f"declared-{n}", spec, [labels[i] for i in points], values, [True] * len(values), c))
    return charts, notes


def _patterns(latest_clean: BatchRecord | None, validation: dict[str, Any] | None,
              index: Any) -> tuple[dict[str, dict[str, Any]], str]:
    """Per text column: the FMDV-VH rule (with an index) or the latest validation's pattern results."""
    if index is not None and latest_clean is not None and latest_clean.value_samples:
        from lakeindex.fmdv.infer import AutoValidator
        from lakeindex.index.store import IndexReader

        out: dict[str, dict[str, Any]] = {}
        opened = IndexReader(index) if isinstance(index, str) else nullcontext(index)
        with opened as ix:
            for column, values in sorted(latest_clean.value_samples.items()):
                if not values:
                    continue
                rule = AutoValidator(ix).fit(values).rule_
                out[column] = {"pattern": rule.pattern, "fpr": rule.fpr, "coverage": rule.coverage,
                               "index_version": rule.index_version, "train_size": rule.train_size,
                               "reason": None if rule.feasible else (rule.reason or "no feasible pattern")}
        for column, result in _latest_patterns(validation).items():  # the p-value the latest verdict gave
            if column in out and isinstance(result, dict):
                out[column]["p_value"] = result.get("p_value")
        return out, f"learned now with the index from the value sample of batch {latest_clean.batch_id!r}"
    latest = _latest_patterns(validation)
    if latest:
        return dict(sorted(latest.items())), "from the latest validation's pattern signal"
    return {}, "no pattern rules: give an index (--index) to learn them from the latest clean batch"


def _latest_patterns(validation: dict[str, Any] | None) -> dict[str, Any]:
    """Per column, the pattern signal's result in the latest validation (empty without one)."""
    for s in (validation or {}).get("signals", []):
        if s.get("signal") == "patterns" and isinstance(s.get("columns"), dict):
            return s["columns"]
    return {}


def gather(repository: FileSystemMetricsRepository | str, dataset: str, index: Any = None,
           delta: float = DEFAULT_DELTA, window: int | None = None) -> ReportContents:
    """The report of ``dataset``; ``index`` (path, reader or solver) adds pattern rules learned now."""
    repo = FileSystemMetricsRepository(repository) if isinstance(repository, str) else repository
    if dataset not in repo.datasets():
        known = repo.datasets()
        raise UnknownDataset(f"no dataset {dataset!r} in the metrics repository {repo.path}"
                             + (f"; it holds: {', '.join(known[:20])}" if known else " (it is empty)"))
    history = BatchHistory(repo, dataset)
    records = history.records(status=None, light=True)
    # one read of the history: the clean batches are those records, the newest of them loaded in full
    # (samples, issue features) as ``records(ACCEPTED, light=True)`` would
    clean = history.with_latest_in_full([r for r in records if r.status == ACCEPTED])
    latest_validation = None
    validations = repo.load().for_dataset(dataset).for_analyzers(["Validation"]).get()
    violated = {r.key.tags.get("batch", ""): _violated_metrics(r.metrics[0].value) for r in validations
                if r.metrics and isinstance(r.metrics[0].value, dict)}
    if validations:  # the newest recorded validation (a batch added by `history add` has none)
        newest = validations[-1]
        latest_validation = {"verdict": "unknown", "failing_signals": [], "warning_signals": [], "rows": None,
                             "clean_history_batches": None, "signals": [], **newest.metrics[0].value,
                             "batch": newest.key.tags.get("batch", ""), "timestamp": utc_text(newest.key.timestamp_ms)}
    batches = [{"batch": r.batch_id, "status": r.status, "timestamp": utc_text(r.timestamp_ms),
                "rows": r.notes.get("rows"), "failing_signals": r.notes.get("failing_signals", []),
                "warning_signals": r.notes.get("warning_signals", [])} for r in records]
    avh_charts, avh_skipped, avh_note = _avh(records, clean, delta, window, violated)
    declared, notes = _declared(repo, dataset, delta)
    patterns, source = _patterns(clean[-1] if clean else None, latest_validation, index)
    checks: list[dict[str, Any]] = []
    for s in (latest_validation or {}).get("signals", []):
        if s.get("signal") == "checks":
            checks = list(s.get("checks", []))
    return ReportContents(dataset, str(repo.path), int(time.time() * 1000), batches, latest_validation, avh_charts,
                          avh_skipped, avh_note, declared, patterns, source, checks, delta, notes)
