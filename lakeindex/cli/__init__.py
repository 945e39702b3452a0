"""The ``lakeindex`` command: subcommands print JSON on stdout, progress and errors on stderr.

One module per command group (``index``, ``inference``, ``quality``, ``history``, ``report``, ``deploy``), one
shared output and exit-code layer (:mod:`lakeindex.cli.output`). Only commands that scan data start Spark; lookups
and inference read the index directly, since a JVM start costs seconds.

Commands of the installed edges register themselves through the ``lakeindex.commands`` entry-point
group (``serve`` comes from ``query_service``), so the library never imports its edges.
"""

from __future__ import annotations

import argparse
from importlib.metadata import entry_points

from lakeindex import __version__
from lakeindex.cli import deploy, history, index, inference, quality, report
from lakeindex.cli.output import (
    EXIT_BAD_INPUT,
    EXIT_FLAGGED,
    EXIT_INTERNAL,
    EXIT_OK,
    UsageError,
    finish_output,
    run_command,
)

__all__ = ["EXIT_BAD_INPUT", "EXIT_FLAGGED", "EXIT_INTERNAL", "EXIT_OK", "UsageError", "build_parser", "main"]

COMMAND_GROUP = "lakeindex.commands"


def build_parser() -> argparse.ArgumentParser:
    """The full parser: the library's command groups, then the commands edges register."""
    parser = argparse.ArgumentParser(prog="lakeindex", description="Pattern index and auto-validation for data lakes.")
    parser.add_argument("--version", action="version", version=f"lakeindex {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    for register in (index.register, inference.register, quality.register, history.register,
                     report.register, deploy.register):
        register(sub)
    for ep in sorted(entry_points(group=COMMAND_GROUP), key=lambda e: e.name):
        ep.load()(sub)
    inference.register_debugging(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return finish_output(run_command(args.func, args))
