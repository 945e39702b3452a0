"""The ``lakeindex`` command: subcommands print JSON on stdout, progress and errors on stderr.

One module per command group (``index``, ``inference``, ``quality``, ``history``, ``report``, ``deploy``,
``engine``), one shared output and exit-code layer (:mod:`lakeindex.cli.output`). Only commands that scan
data start Spark; lookups and inference read the index directly, since a JVM start costs seconds.

Commands of the installed edges register themselves through the ``lakeindex.commands`` entry-point
group (``serve`` comes from ``query_service``), so the library never imports its edges.
"""

from __future__ import annotations

import argparse
import gc
from importlib.metadata import entry_points

from lakeindex import __version__
from lakeindex.cli import deploy, engine, history, index, inference, quality, report
from lakeindex.cli.command_parser import CommandParser
from lakeindex.cli.output import (
    EXIT_BAD_INPUT,
    EXIT_FLAGGED,
    EXIT_INTERNAL,
    EXIT_OK,
    UsageError,
    finish_output,
    run_command,
)

__all__ = ["EXIT_BAD_INPUT", "EXIT_FLAGGED", "EXIT_INTERNAL", "EXIT_OK", "UsageError", "build_parser", "console_main",
           "main"]

# CPython's default (700, 10, 10) runs a full collection each time the heap grew by a quarter: importing
# numpy, pandas, pyarrow and scipy grows it to ~10^6 objects, and those collections cost 0.1-0.4 s of a
# command that should take 2 s. Young collections every 50,000 allocations still reclaim cycles.
CONSOLE_GC_THRESHOLD = (50_000, 20, 20)
INTERPRETER_GC_THRESHOLD = gc.get_threshold()  # as the interpreter set it: for commands that stay up (serve)

COMMAND_GROUP = "lakeindex.commands"


def build_parser() -> argparse.ArgumentParser:
    """The full parser: the library's command groups, then the commands edges register."""
    parser = CommandParser(prog="lakeindex", description="Pattern index and auto-validation for data lakes.")
    parser.add_argument("--version", action="version", version=f"lakeindex {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    for register in (index.register, inference.register, quality.register, history.register,
                     report.register, deploy.register, engine.register):
        register(sub)
    for ep in sorted(entry_points(group=COMMAND_GROUP), key=lambda e: e.name):
        ep.load()(sub)
    inference.register_debugging(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run one command (``argv`` or the process arguments) and return its exit code."""
    args = build_parser().parse_args(argv)
    return finish_output(run_command(args.func, args))


def console_main() -> int:
    """The ``lakeindex`` console script: ``main`` in a process that runs one command and exits.

    Only here (not in ``main``, which tests and jobs call in long-lived processes) the collector is tuned
    for a short process, and the objects alive at the end are frozen, so the interpreter's exit skips a
    last full collection over every imported module's objects (~0.1 s). A command that stays up (``serve``)
    puts ``INTERPRETER_GC_THRESHOLD`` back: its latency was measured with the interpreter's collector.
    """
    gc.set_threshold(*CONSOLE_GC_THRESHOLD)
    try:
        return main()
    finally:
        gc.freeze()
