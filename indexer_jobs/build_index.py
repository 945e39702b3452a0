"""spark-submit entry point of the index build: ``spark-submit indexer_jobs/build_index.py LAKE --out INDEX``.

Argument parsing and the Spark session only; the build is :func:`lakeindex.index.build.build_index`.
"""

from __future__ import annotations

import argparse
import json
import sys

from lakeindex.index.build import build_index
from lakeindex.index.build_options import BuildError, add_build_arguments, limits_from_args
from lakeindex.lake.listing import LakeError
from lakeindex.spark_session import get_spark


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="build_index",
                                     description="Scan a lake with Spark and write its pattern index.")
    add_build_arguments(parser)
    args = parser.parse_args(argv)
    try:
        spark = get_spark(args.master, app_name="lakeindex-index-build")
        meta = build_index(spark, args.lake, args.out, limits_from_args(args), args.min_coverage, args.incremental,
                           progress=not args.quiet)
    except (BuildError, LakeError) as exc:
        print(json.dumps({"error": str(exc)}), file=sys.stderr)
        return 2
    print(json.dumps(meta, indent=2, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
