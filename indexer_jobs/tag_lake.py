"""spark-submit entry point of lake tagging: ``spark-submit indexer_jobs/tag_lake.py LAKE --index INDEX``.

Argument parsing only: the command is ``lakeindex tag`` (:func:`lakeindex.tagging.tag_lake.tag_lake`).
"""

from __future__ import annotations

import argparse
import sys

from lakeindex.cli.inference import cmd_tag
from lakeindex.cli.output import run_command
from lakeindex.spark_session import add_session_arguments
from lakeindex.spark_submit_stderr import stderr_of_spark_submit


def main(argv: list[str] | None = None) -> int:
    """Exit 0 tagged, 2 bad input (JSON error), 3 internal error, as the ``lakeindex`` command."""
    ap = argparse.ArgumentParser(description="Auto-tag every column of a lake")
    ap.add_argument("lake")
    ap.add_argument("--index", required=True)
    ap.add_argument("--sample", type=int, default=1000)
    ap.add_argument("--fnr", type=float, default=0.05)
    ap.add_argument("--m", type=int, default=None, help="coverage threshold (default: 0.1%% of indexed columns)")
    ap.add_argument("--jsonl", default=None, help="also write one catalog record per column (JSON lines)")
    ap.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    add_session_arguments(ap)
    with stderr_of_spark_submit():  # progress on spark-submit's stderr, the JSON alone on its stdout
        return run_command(cmd_tag, ap.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
