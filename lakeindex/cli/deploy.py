"""``lakeindex package``: what a cluster's executors need to run lakeindex's Spark jobs."""

from __future__ import annotations

import argparse

from lakeindex.cli.output import EXIT_OK, emit


def cmd_package(args: argparse.Namespace) -> int:
    from lakeindex.executor_code import write_package

    emit(write_package(args.out), sort_keys=True)
    return EXIT_OK


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``package``."""
    p = sub.add_parser("package", help="write lakeindex-<version>.zip for spark-submit --py-files, and the "
                                       "executors' requirements (executor-requirements.txt)")
    p.add_argument("--out", default="dist", help="directory to write into (default: dist)")
    p.set_defaults(func=cmd_package)
