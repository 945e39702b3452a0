"""``validate-batch``'s report in a few lines for a person at a terminal: the verdict, then each signal's status
and one-line summary, and for a failed signal its first pieces of evidence (the same summaries and evidence
tables the HTML report shows, :mod:`lakeindex.report.evidence`)."""

from __future__ import annotations

from typing import Any

from lakeindex.report.evidence import num, signal_view

EVIDENCE_ROWS = 5  # per failed signal; the JSON report (--json) has them all


def batch_summary(report: dict[str, Any]) -> str:
    """The report as text: a headline, one line per signal, the evidence of failed ones, where to see more."""
    recorded = report.get("recorded_as")
    lines = [f"{report.get('dataset')} batch {report.get('batch')}: {str(report.get('verdict')).upper()}"
             + (f" (recorded as {recorded})" if recorded else " (not recorded)"),
             f"  {num(report.get('rows'))} rows, checked against {num(report.get('clean_history_batches'))} clean "
             "batches"]
    width = max((len(str(s.get("signal", ""))) for s in report.get("signals", [])), default=0)
    for s in report.get("signals", []):
        view = signal_view(s)
        status = view.status.upper() if view.status == "failed" else view.status
        severity = " (warning)" if view.status == "failed" and view.severity == "warn" else ""
        # a warming-up signal's summary starts by saying so
        said = view.summary if view.status == "warming_up" else f"{status}{severity}: {view.summary}"
        lines.append(f"  {view.signal:<{width}}  {said}")
        if view.status != "failed":
            continue
        for table in view.tables:
            for row in table.rows[:EVIDENCE_ROWS]:
                details = ", ".join(f"{h} {v}" for h, v in zip(table.headers[1:], row[1:], strict=False)
                                    if v not in ("", "–"))
                lines.append(f"      {row[0]}: {details}")
            if len(table.rows) > EVIDENCE_ROWS:
                lines.append(f"      ... {len(table.rows) - EVIDENCE_ROWS} more")
    lines.append("The whole report as JSON: --json (with the learned AVH programs: --programs)")
    return "\n".join(lines)
