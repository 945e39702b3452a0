"""CPU cost of the index build's executor work, in one process: cells per CPU second of ``profile_file``.

Runs what a scan task runs (read, Arrow value counts, enumeration, accumulation) over a lake's single
files, without Spark, and prints the CPU seconds, cells per CPU second, and a digest of the accumulated
(pattern, impurity, coverage) sums, so a compiled and a source installation can be compared for speed
and for identical results:

    python bench/scan_cpu.py --lake /work/bench-data/lake-wide --runs 3
"""

from __future__ import annotations

import argparse
import hashlib
import json
import statistics
import sys
import time
from pathlib import Path


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lake", required=True)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--limit", type=int, default=0, help="first N files only (0: all)")
    args = ap.parse_args()
    import lakeindex.patterns.counting as counting
    from lakeindex.index.scan import profile_file
    from lakeindex.patterns.enumerate import EnumerationLimits

    kinds = (".csv", ".tsv", ".parquet", ".jsonl")
    files = sorted(p for p in Path(args.lake).rglob("*") if p.is_file() and p.suffix in kinds)
    if args.limit:
        files = files[:args.limit]
    data = [(p.relative_to(args.lake).as_posix(), p.read_bytes()) for p in files]
    limits = EnumerationLimits()
    times, cells, digest = [], 0, ""
    for _ in range(args.runs):
        acc: dict[str, list[int]] = {}
        cells = 0
        t0 = time.process_time()
        for rel, raw in data:
            cells += profile_file(rel, raw, limits, acc)["cells"]
        times.append(time.process_time() - t0)
        digest = hashlib.sha256(json.dumps(sorted(acc.items())).encode()).hexdigest()[:16]
    med = statistics.median(times)
    print(json.dumps({"files": len(data), "cells": cells, "cpu_s": [round(t, 2) for t in times],
                      "cells_per_cpu_s": round(cells / med), "patterns": len(acc), "digest": digest,
                      "compiled": not counting.__file__.endswith(".py")}))


if __name__ == "__main__":
    sys.exit(main())
