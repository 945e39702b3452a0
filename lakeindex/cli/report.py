"""``lakeindex report``: a dataset's quality report as one self-contained HTML page (opens offline), or every
dataset's as a small site with an index page."""

from __future__ import annotations

import argparse
from pathlib import Path

from lakeindex.cli.output import EXIT_OK, emit


def cmd_report(args: argparse.Namespace) -> int:
    from lakeindex.local_paths import local_path

    repo = local_path(args.repo, "metrics repository")
    if not Path(repo).is_dir():
        raise FileNotFoundError(f"metrics repository {args.repo} does not exist (create it with `lakeindex "
                                "history add` or `lakeindex check --repo`)")
    out = Path(args.out)
    if not out.parent.resolve().is_dir():
        raise FileNotFoundError(f"--out {args.out}: directory {out.parent} does not exist; create it first")
    options = {"index": args.index, "delta": args.delta, "window": args.window}
    if args.dataset is None:  # every dataset: a directory of pages and an index.html
        from lakeindex.report.site import write_site

        if out.exists() and not out.is_dir():
            raise NotADirectoryError(f"--out {args.out} is a file; without --dataset it names a directory")
        emit(write_site(str(repo), out, **options))
        return EXIT_OK
    from lakeindex.atomic_publish import write_atomically
    from lakeindex.report import build_report

    if out.is_dir():
        raise IsADirectoryError(f"--out {args.out} is a directory; give a file name such as report.html")
    page, contents = build_report(str(repo), args.dataset, **options)
    write_atomically(out, page)  # a reader never sees half a page
    latest = contents.latest_validation or {}
    emit({"report": str(out), "dataset": args.dataset, "bytes": len(page.encode("utf-8")),
          "batches": len(contents.batches), "latest_batch": latest.get("batch"),
          "latest_verdict": latest.get("verdict"),
          "avh_charts": sum(len(v) for v in contents.avh_charts.values()),
          "declared_charts": len(contents.declared_charts), "pattern_rules": len(contents.patterns)})
    return EXIT_OK


def register(sub: argparse._SubParsersAction) -> None:
    """Register ``report`` on the main parser."""
    rp = sub.add_parser("report", help="a dataset's quality report as one self-contained HTML page (exit 0/2)")
    rp.add_argument("--repo", required=True, help="metrics repository directory")
    rp.add_argument("--dataset", default=None,
                    help="dataset name in the repository (default: every dataset, as a site with an index.html)")
    rp.add_argument("--out", required=True,
                    help="the HTML file to write (replaced atomically); without --dataset, the site's directory")
    rp.add_argument("--index", default=None,
                    help="pattern index: show each text column's FMDV-VH rule learned from the latest clean batch")
    rp.add_argument("--delta", type=float, default=0.001,
                    help="AVH FPR budget per column for the bounds drawn (default 0.001, as validate-batch)")
    rp.add_argument("--window", type=int, default=None, help="learn the bounds from the last N clean batches")
    rp.set_defaults(func=cmd_report)
