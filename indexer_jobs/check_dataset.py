"""Batch data-quality job: ``lakeindex check | profile | suggest`` as a PySpark application.

The same arguments, JSON and exit codes as the CLI subcommands (0 pass, 1 an error-level check
failed, 2 bad input), so a scheduler can run it on a cluster unchanged::

    lakeindex package --out dist && spark-submit --master yarn --deploy-mode client \\
      --py-files dist/lakeindex-0.1.0.zip indexer_jobs/check_dataset.py \\
      --output result.json check hdfs:///warehouse/orders/2026-11-21 --format parquet \\
      --checks checks.json --repo /data/metrics-repo --dataset orders --tag day=2026-11-21

spark-submit merges the Python process's stderr into its stdout; the job writes its stderr (progress,
errors) to spark-submit's own stderr instead (``lakeindex.spark_submit_stderr``), so stdout holds the JSON
alone. ``--output FILE`` (before the subcommand) writes the JSON to a file instead, atomically. Spark's
master and resources come from spark-submit; executors read the data, and only metric values, offending
samples and profiles reach the driver.
"""

from __future__ import annotations

import contextlib
import io
import json
import sys
import uuid

COMMANDS = ("check", "profile", "suggest")


def main(argv: list[str] | None = None) -> int:
    from lakeindex.spark_submit_stderr import stderr_of_spark_submit

    with stderr_of_spark_submit():
        return _run(list(sys.argv[1:] if argv is None else argv))


def _run(argv: list[str]) -> int:
    from lakeindex.atomic_publish import write_atomically
    from lakeindex.cli import main as cli_main

    output = None
    if argv[:1] == ["--output"]:
        if len(argv) < 2:
            print(json.dumps({"error": "--output needs a file path"}), file=sys.stderr)
            return 2
        output, argv = argv[1], argv[2:]
    if not argv or argv[0] not in COMMANDS:
        got = argv[0] if argv else "nothing"
        print(json.dumps({"error": f"check_dataset runs one of {', '.join(COMMANDS)}, got {got!r}; "
                                   "e.g. [--output result.json] check DATA --checks checks.json"}), file=sys.stderr)
        return 2
    if output is None:
        return cli_main(argv)
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        code = cli_main(argv)
    if buffer.getvalue():  # nothing on bad input: the error went to stderr
        write_atomically(output, buffer.getvalue(), temp_name=f".check_dataset-{uuid.uuid4().hex}")
    return code


if __name__ == "__main__":
    sys.exit(main())
