"""Each signal's stored verdict as what a reader needs: a one-line summary and tables of the failing evidence
(values, bounds, p-values, offending values), with the signal's full JSON kept for anything else."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Table:
    title: str
    headers: list[str]
    rows: list[list[str]]


@dataclass
class SignalView:
    signal: str
    status: str
    severity: str
    summary: str
    tables: list[Table] = field(default_factory=list)
    raw: str = ""


def num(v: Any) -> str:
    """A number as a reader wants it: 6 significant digits, '–' for none."""
    if v is None:
        return "–"
    if isinstance(v, bool):
        return str(v).lower()
    if isinstance(v, int):
        return f"{v:,}"
    if isinstance(v, float):
        return "NaN" if math.isnan(v) else f"{v:.6g}"
    return str(v)


def _avh(s: dict[str, Any]) -> tuple[str, list[Table]]:
    failing = s.get("failing_columns") or {}
    rows = []
    for column, verdict in sorted(failing.items()):
        if verdict.get("reason"):
            rows.append([column, verdict["reason"], "–", "–", "–", "–", "–"])
        for v in verdict.get("violations", []):
            rows.append([column, v.get("rule", ""), num(v.get("raw_value")), num(v.get("transformed_value")),
                         num(v.get("lower")), num(v.get("upper")), num(v.get("fpr_bound"))])
    summary = (f"{len(failing)} of {s.get('columns_checked', 0)} columns violate their AVH program"
               if failing else f"{s.get('columns_checked', 0)} columns within their AVH programs")
    if s.get("fpr_bound_per_column") is not None:
        summary += f" (FPR bound per column {num(s['fpr_bound_per_column'])})"
    headers = ["column", "violated clause", "value", "transformed", "lower", "upper", "FPR bound"]
    return summary, [Table("Violated clauses", headers, rows)] if rows else []


def _novelty(s: dict[str, Any]) -> tuple[str, list[Table]]:
    score, thr = s.get("score"), s.get("threshold")
    rel = ">" if isinstance(score, float) and isinstance(thr, float) and score > thr else "≤"
    learned = s.get("learned_from")  # the batch ids in a live report, their number once stored
    return (f"kNN novelty score {num(score)} {rel} threshold {num(thr)} (k = {num(s.get('k'))}, learned from "
            f"{num(len(learned) if isinstance(learned, list) else learned)} clean batches)"), []


def _patterns(s: dict[str, Any]) -> tuple[str, list[Table]]:
    failing = s.get("failing_columns") or {}
    rows = []
    for column, r in sorted(failing.items()):
        offending = ", ".join(f"{o['value']!r}×{o['count']}" for o in r.get("offending_sample", [])[:5])
        rows.append([column, r.get("pattern") or "–", num(r.get("p_value")),
                     num(r.get("train_nonconforming_fraction")), num(r.get("batch_nonconforming_fraction")),
                     offending])
    checked = len(s.get("columns") or {})
    summary = (f"{len(failing)} of {checked} text columns' non-conforming share changed (homogeneity test)"
               if failing else f"{checked} text columns conform as before")
    headers = ["column", "pattern", "p-value", "non-conforming (history)", "non-conforming (batch)",
               "offending values"]
    return summary, [Table("Columns whose pattern test failed", headers, rows)] if rows else []


def _schema(s: dict[str, Any]) -> tuple[str, list[Table]]:
    if s.get("reason") and s.get("status") == "failed":
        return s["reason"], []
    missing, new = s.get("missing_columns") or [], s.get("new_columns") or []
    if not missing and not new:
        return "same columns as the latest clean batch", []
    return f"missing: {', '.join(missing) or 'none'}; new: {', '.join(new) or 'none'}", []


def check_rows(checks: list[dict[str, Any]]) -> list[list[str]]:
    """One row per constraint of each declared check: check, level, status, constraint, value, message."""
    rows = []
    for c in checks:
        for r in c.get("constraints", []):
            metric = r.get("metric") or {}
            rows.append([c.get("description", ""), c.get("level", ""), r.get("status", ""), r.get("constraint", ""),
                         num(metric.get("value")) if not isinstance(metric.get("value"), dict) else "…",
                         r.get("message", "")])
    return rows


CHECK_HEADERS = ["check", "level", "status", "constraint", "metric value", "message"]


def _checks(s: dict[str, Any]) -> tuple[str, list[Table]]:
    checks = s.get("checks") or []
    failed = [c for c in checks if c.get("status") != "Success"]
    rows = check_rows(failed)
    return (f"{len(checks) - len(failed)} of {len(checks)} checks passed (overall {s.get('result_status', '?')})",
            [Table("Checks that did not pass", CHECK_HEADERS, rows)] if rows else [])


_SUMMARIES = {"avh": _avh, "novelty": _novelty, "patterns": _patterns, "schema": _schema, "checks": _checks}


def signal_view(s: dict[str, Any]) -> SignalView:
    """The view of one stored signal result."""
    name, status = s.get("signal", "?"), s.get("status", "?")
    if status == "skipped":
        summary, tables = f"skipped: {s.get('reason', '')}", []
    else:
        summary, tables = _SUMMARIES.get(name, lambda _: ("", []))(s)
    if status == "warming_up":
        outcome = "would have failed" if s.get("would_fail") else "passed"
        summary = f"warming up ({s.get('warming_up', '')}); it {outcome}: {summary}"
    return SignalView(name, status, s.get("severity", "error"), summary, tables,
                      json.dumps(s, indent=2, sort_keys=True, default=str))
