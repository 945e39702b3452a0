"""In-process fit latency on 1,000-value columns of wide composite values (40+ tokens), cold and warm.

Issue 10's latency target covers "1,000-value columns, also for values of 40+ tokens". The 1,000-value
columns of ``bench/latency.py`` come from the lake and are mostly narrow, and ``bench/eval_composite.py``
times one (cold) fit on the 10% training prefix. This script fits each of the held-out composite
columns of ``eval_composite`` (UUIDs joined to ids, ISO timestamps, URLs, UNC paths, lists and
records; grammars the index's lake does not hold) on all its ``--rows`` values with FMDV-VH, one
``SegmentSolver`` shared as in the service: **cold** is each column's first fit (its shapes are new
to the solver's caches), **warm** the fastest of ``--passes`` later fits. Reports p50 / p99 / mean and
the slowest columns, as JSON.

    python bench/wide_latency.py --index bench/out/index-wide-v4 --lake-seed 7 --test-seed 11 --columns 200
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from datetime import date
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.eval_composite import held_out_arguments, test_columns  # noqa: E402
from lakeindex.fmdv.infer import AutoValidator  # noqa: E402
from lakeindex.fmdv.search import SegmentSolver  # noqa: E402
from lakeindex.index.store import IndexReader  # noqa: E402


def stats(ms: list[float]) -> dict:
    return {"p50_ms": round(float(np.percentile(ms, 50)), 2), "p99_ms": round(float(np.percentile(ms, 99)), 2),
            "mean_ms": round(statistics.mean(ms), 2)}


def calibration_ms(runs: int = 5) -> float:
    """Median time of a fixed interpreted workload (string and dict work, as a fit does), independent of
    lakeindex: this machine's speed varies from day to day by a third (BENCHMARKS.md, 2026-11-28), so
    figures of different days compare only through it."""
    def work() -> int:
        d: dict[str, int] = {}
        for i in range(200_000):
            k = str(i % 5000)
            d[k] = d.get(k, 0) + len(k)
        return len(d)

    times = []
    for _ in range(runs):
        t = time.perf_counter()
        work()
        times.append((time.perf_counter() - t) * 1000)
    return round(statistics.median(times), 1)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    held_out_arguments(ap)  # every value of a column is fitted
    ap.add_argument("--passes", type=int, default=3, help="warm fits per column (the fastest is kept)")
    args = ap.parse_args()
    cols = test_columns(args.lake_seed, args.test_seed, args.columns, args.rows, 0.1)
    with IndexReader(args.index) as ix:
        solver = SegmentSolver(ix, freeze_gc=True, preload=True)  # as the service runs it
        AutoValidator(solver, method="fmdv-vh").fit(cols[0].values)  # imports and first index reads
        cold, warm = [], [float("inf")] * len(cols)
        for c in cols:
            t = time.perf_counter()
            AutoValidator(solver, method="fmdv-vh").fit(c.values)
            cold.append((time.perf_counter() - t) * 1000)
        for _ in range(args.passes):
            for i, c in enumerate(cols):
                t = time.perf_counter()
                AutoValidator(solver, method="fmdv-vh").fit(c.values)
                warm[i] = min(warm[i], (time.perf_counter() - t) * 1000)
    slowest = sorted(range(len(cols)), key=lambda i: -warm[i])[:5]
    print(json.dumps({
        "date": date.today().isoformat(), "command": " ".join(["bench/wide_latency.py", *sys.argv[1:]]),
        "columns": len(cols), "values_per_column": args.rows, "calibration_ms": calibration_ms(),
        "cold": stats(cold), "warm": stats(warm),
        "slowest_warm": [{"column": cols[i].name, "kind": cols[i].kind, "warm_ms": round(warm[i], 1),
                          "cold_ms": round(cold[i], 1), "example": cols[i].values[0][:80]} for i in slowest],
    }, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
