"""Every dataset of a metrics repository as a small static site, like Great Expectations' Data Docs: one
report page per dataset and an ``index.html`` listing them with their latest verdicts.

Each page is written atomically and the index last, so a reader sees each file whole; page names are
safe slugs of the dataset names (with a hash, so names that slug alike stay apart).
"""

from __future__ import annotations

import hashlib
import re
import time
from pathlib import Path
from typing import Any

from lakeindex.atomic_publish import write_atomically
from lakeindex.report.contents import gather, utc_text
from lakeindex.repository import FileSystemMetricsRepository


def page_name(dataset: str) -> str:
    """The file name of a dataset's page: letters, digits, ``._-`` and a hash of the full name."""
    slug = re.sub(r"[^A-Za-z0-9._-]+", "_", dataset).strip("._")[:60] or "dataset"
    return f"{slug}-{hashlib.sha1(dataset.encode('utf-8')).hexdigest()[:8]}.html"


def write_site(repository: FileSystemMetricsRepository | str, out_dir: str | Path, index: Any = None,
               **options: Any) -> dict[str, Any]:
    """Write every dataset's report and ``index.html`` into ``out_dir`` (created if missing)."""
    from lakeindex.report.page import render

    repo = FileSystemMetricsRepository(repository) if isinstance(repository, str) else repository
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    rows = []
    for dataset in repo.datasets():
        contents = gather(repo, dataset, index=index, **options)
        name = page_name(dataset)
        write_atomically(out / name, render(contents))
        latest = contents.latest_validation or {}
        statuses = [b["status"] for b in contents.batches]
        rows.append({"dataset": dataset, "page": name, "batches": len(statuses),
                     "flagged": statuses.count("flagged"),
                     "latest_batch": contents.batches[-1]["batch"] if contents.batches else None,
                     "latest_recorded": contents.batches[-1]["timestamp"] if contents.batches else None,
                     "latest_verdict": latest.get("verdict"), "verdict_batch": latest.get("batch"),
                     "failing_signals": latest.get("failing_signals", []),
                     "avh_charts": sum(len(v) for v in contents.avh_charts.values()),
                     "declared_charts": len(contents.declared_charts)})
    write_atomically(out / "index.html", render_index(str(repo.path), rows))
    return {"site": str(out), "index": str(out / "index.html"), "datasets": rows}


def render_index(repository: str, rows: list[dict[str, Any]]) -> str:
    """The site's index page: one row per dataset, linking to its page."""
    from lakeindex import __version__
    from lakeindex.report.page import CSP, environment

    return environment().get_template("site_index.html.j2").render(
        rows=rows, repository=repository, csp=CSP, version=__version__,
        generated=utc_text(int(time.time() * 1000)))
