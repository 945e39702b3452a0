"""spark-submit entry point of lake tagging: ``spark-submit indexer_jobs/tag_lake.py LAKE --index INDEX``.

Argument parsing and the Spark session only; the job is :func:`lakeindex.fmdv.tag_lake.tag_lake`.
"""

from __future__ import annotations

import argparse
import json
import sys

from lakeindex.fmdv.tag_lake import tag_lake
from lakeindex.spark_session import get_spark


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Auto-tag every column of a lake")
    ap.add_argument("lake")
    ap.add_argument("--index", required=True)
    ap.add_argument("--sample", type=int, default=1000)
    ap.add_argument("--fnr", type=float, default=0.05)
    ap.add_argument("--master", default=None)
    a = ap.parse_args(argv)
    print(json.dumps(tag_lake(get_spark(a.master, "lakeindex-tag"), a.lake, a.index, a.sample, a.fnr), indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
