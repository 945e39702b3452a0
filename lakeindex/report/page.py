"""The report as one self-contained HTML page: inline CSS and inline SVG charts, no script, and a
Content-Security-Policy that forbids every fetch, so the page opens offline and can never call out.

Everything from the repository (batch ids, column names, values, messages) is escaped by Jinja2's
autoescaping; the only markup inserted unescaped is matplotlib's SVG (which escapes its own text).
"""

from __future__ import annotations

from typing import Any

from lakeindex.report.contents import ReportContents, utc_text
from lakeindex.report.evidence import CHECK_HEADERS, check_rows, num, signal_view

# nothing is loaded from anywhere: styles and images are inline, and there are no scripts
CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'"
BATCH_ROWS = 60  # the batches table shows the latest ones


def environment() -> Any:
    """Jinja2 with autoescaping on for every template, and undefined names as errors."""
    from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape

    return Environment(loader=PackageLoader("lakeindex.report", "templates"),
                       autoescape=select_autoescape(default=True, default_for_string=True),
                       undefined=StrictUndefined, trim_blocks=True, lstrip_blocks=True)


def render(c: ReportContents) -> str:
    """The HTML page of ``c``."""
    from markupsafe import Markup

    from lakeindex import __version__
    from lakeindex.report.svg import chart_svg

    template = environment().get_template("report.html.j2")
    statuses = [b["status"] for b in c.batches]
    signals = [signal_view(s) for s in (c.latest_validation or {}).get("signals", [])]
    return template.render(
        c=c, csp=CSP, version=__version__, num=num, signals=signals, batch_rows=BATCH_ROWS,
        generated=utc_text(c.generated_ms),
        counts={"total": len(statuses), "accepted": statuses.count("accepted"), "flagged": statuses.count("flagged")},
        svg=lambda ch: Markup(chart_svg(ch)), check_headers=CHECK_HEADERS, check_rows=check_rows(c.checks))
