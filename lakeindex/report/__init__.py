"""A dataset's quality report: one self-contained HTML page (``lakeindex report``, ``GET
/v1/datasets/{name}/report``) with the latest verdicts and their evidence, every AVH-tracked metric's
history with its bounds, declared metrics, pattern rules and check results.

``gather`` reads the metrics repository (:mod:`lakeindex.report.contents`), ``render`` draws the page
(:mod:`lakeindex.report.page`); ``build_report`` does both.
"""

from __future__ import annotations

from typing import Any

from lakeindex.report.contents import ReportContents, UnknownDataset, gather

__all__ = ["ReportContents", "UnknownDataset", "build_report", "gather", "render"]


def render(contents: ReportContents) -> str:
    """The HTML page of gathered contents (imports matplotlib and Jinja2 only when called)."""
    from lakeindex.report.page import render as _render

    return _render(contents)


def build_report(repository: Any, dataset: str, index: Any = None, **options: Any) -> tuple[str, ReportContents]:
    """The HTML report of ``dataset`` in ``repository`` (a path or repository), and what it shows."""
    contents = gather(repository, dataset, index=index, **options)
    return render(contents), contents
