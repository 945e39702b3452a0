"""spark-submit entry point of the index build: ``spark-submit indexer_jobs/build_index.py LAKE --out INDEX``.

Argument parsing only: the command is ``lakeindex index build`` (:func:`lakeindex.index.build.build_index`).
"""

from __future__ import annotations

import argparse
import sys

from lakeindex.cli.index import cmd_index_build
from lakeindex.cli.output import run_command
from lakeindex.index.build_options import add_build_arguments
from lakeindex.spark_submit_stderr import stderr_of_spark_submit


def main(argv: list[str] | None = None) -> int:
    """Exit 0 built, 2 bad input (JSON error), 3 internal error, as the ``lakeindex`` command."""
    parser = argparse.ArgumentParser(prog="build_index",
                                     description="Scan a lake with Spark and write its pattern index.")
    add_build_arguments(parser)
    with stderr_of_spark_submit():  # progress on spark-submit's stderr, the JSON alone on its stdout
        return run_command(cmd_index_build, parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
