"""CPU cost of the index build's executor work, in one process: cells per CPU second of a scan task.

Feeds a lake's single files, as ``binaryFile`` rows, to the body of the build's scan tasks
(``scan_partition``: read, Arrow value counts, enumeration, accumulation) without Spark, and prints the
CPU seconds, cells per CPU second, and a digest of the (pattern, impurity, coverage) sums, so a compiled
and a source installation, or two versions of the code, can be compared for speed and identical results:

    python bench/scan_cpu.py --lake bench/out/lake-wide --runs 3
"""

from __future__ import annotations

import argparse
import gc
import hashlib
import json
import statistics
import sys
import time
from pathlib import Path

import pyarrow as pa


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lake", required=True)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--limit", type=int, default=0, help="first N files only (0: all)")
    args = ap.parse_args()
    import lakeindex.patterns.counting as counting
    from lakeindex.index.scan import PATTERN, STATS, scan_partition
    from lakeindex.patterns.enumerate import EnumerationLimits

    root = Path(args.lake).resolve()
    kinds = (".csv", ".tsv", ".parquet", ".jsonl")
    files = sorted(p for p in root.rglob("*") if p.is_file() and p.suffix in kinds)[:args.limit or None]
    rows = [("file:" + p.as_posix(), p.read_bytes()) for p in files]
    # eight files per Arrow batch, as the build sets it
    chunks = [rows[i:i + 8] for i in range(0, len(rows), 8)]
    batches = [pa.RecordBatch.from_pydict({"path": [p for p, _ in c], "content": [b for _, b in c]}) for c in chunks]
    times, cells, sums = [], 0, {}
    for _ in range(args.runs):
        sums, cells = {}, 0
        t0 = time.process_time()
        for out in scan_partition(iter(batches), "file:" + root.as_posix(), EnumerationLimits().to_dict()):
            kind = out.column("kind").to_pylist()
            if kind and kind[0] == PATTERN:
                for p, imp, cov in zip(*(out.column(c).to_pylist() for c in ("pattern", "imp", "cov")), strict=True):
                    a = sums.setdefault(p, [0, 0])
                    a[0] += imp
                    a[1] += cov
            elif kind and kind[0] == STATS:
                cells += sum(json.loads(i)["cells"] for i in out.column("info").to_pylist())
        times.append(time.process_time() - t0)
    unreachable = gc.collect()
    digest = hashlib.sha256(json.dumps(sorted(sums.items())).encode()).hexdigest()[:16]
    med = statistics.median(times)
    print(json.dumps({"files": len(rows), "cells": cells, "cpu_s": [round(t, 2) for t in times],
                      "cells_per_cpu_s": round(cells / med), "patterns": len(sums), "digest": digest,
                      "unreachable_after": unreachable, "compiled": not counting.__file__.endswith(".py")}))


if __name__ == "__main__":
    sys.exit(main())
