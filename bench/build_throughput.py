"""Benchmark of the offline index build: throughput, peak memory, index size, and scaling.

Generates seeded lakes of several sizes with ``sample_lake/generate.py`` (cached under
``bench/out``), runs ``lakeindex index build`` on each several times as a separate process, and
reports the median wall time, cells/s, columns/s, peak RSS of the whole process tree (driver JVM,
Python workers) and the index size relative to the lake's raw bytes, as JSON and Markdown.

    python bench/build_throughput.py --tables 25 252 2520 --rows 500 --runs 3
"""

from __future__ import annotations

import argparse
import json
import platform
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.process_rss import max_python_worker_rss, tree_rss  # noqa: E402
from sample_lake.generate import generate_lake  # noqa: E402


def run_build(lake: Path, index: Path, master: str, extra: list[str] | None = None) -> dict:
    """Run one build as a subprocess; sample the process tree's RSS (and its largest Python worker's)
    every 0.2 s."""
    shutil.rmtree(index, ignore_errors=True)
    cmd = [sys.executable, "-m", "lakeindex.cli", "index", "build", str(lake), "--out", str(index),
           "--master", master, "--quiet", *(extra or [])]
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT)
    ps = psutil.Process(proc.pid)
    peak = worker_peak = 0
    while proc.poll() is None:
        try:
            peak = max(peak, tree_rss(ps))
            worker_peak = max(worker_peak, max_python_worker_rss(ps))
        except psutil.Error:
            pass
        time.sleep(0.2)
    wall = time.perf_counter() - t0
    out, err = proc.communicate()
    if proc.returncode != 0:
        raise RuntimeError(f"build failed ({proc.returncode}): {err.decode()[-2000:]}")
    meta = json.loads(out)
    return {"wall_s": wall, "peak_rss_mb": peak / 2**20, "worker_peak_rss_mb": worker_peak / 2**20,
            "build_s": meta["build_seconds"], "meta": meta}


def machine() -> dict:
    java = subprocess.run(["java", "-version"], capture_output=True, text=True).stderr.splitlines()[0]
    import pyspark

    return {"cpu": platform.processor() or platform.machine(), "cores": psutil.cpu_count(),
            "memory_gb": round(psutil.virtual_memory().total / 2**30, 1), "python": platform.python_version(),
            "java": java, "pyspark": pyspark.__version__, "os": platform.platform()}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tables", type=int, nargs="+", default=[25, 252, 2520])
    ap.add_argument("--rows", type=int, default=500)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--master", default="local[*]")
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "out")
    ap.add_argument("--lake", type=Path, help="build this existing lake instead of generated ones")
    ap.add_argument("--tau", type=int, default=8)
    args = ap.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    results = []
    for tables in [0] if args.lake else args.tables:
        lake = args.lake or args.out / f"lake-{tables}x{args.rows}"
        if not lake.exists():
            summary = generate_lake(lake, tables, args.rows, seed=7)
        else:
            summary = None
        raw_bytes = sum(p.stat().st_size for p in lake.rglob("*") if p.is_file())
        name = f"index-{lake.name}-tau{args.tau}" if args.lake else f"index-{tables}"
        runs = [run_build(lake, args.out / name, args.master, ["--tau", str(args.tau)]) for _ in range(args.runs)]
        meta = runs[-1]["meta"]
        wall = statistics.median(r["wall_s"] for r in runs)
        row = {
            "tables": tables, "rows": args.rows, "columns": meta["columns_scanned"], "cells": meta["cells_scanned"],
            "raw_bytes": raw_bytes, "runs": args.runs, "wall_s_median": round(wall, 2),
            "wall_s_all": [round(r["wall_s"], 2) for r in runs],
            "build_s_median": round(statistics.median(r["build_s"] for r in runs), 2),
            "cells_per_s": round(meta["cells_scanned"] / wall),
            "columns_per_s": round(meta["columns_scanned"] / wall, 1),
            "peak_rss_mb": round(max(r["peak_rss_mb"] for r in runs)),
            "worker_peak_rss_mb": round(max(r["worker_peak_rss_mb"] for r in runs)), "patterns": meta["patterns"],
            "tau": args.tau, "wide_values": meta.get("wide_values_skipped"),
            "index_bytes": meta["index_bytes"], "index_pct_of_raw": round(100 * meta["index_bytes"] / raw_bytes, 3),
        }
        if summary:
            row["generated"] = {k: summary[k] for k in ("columns", "cells", "bytes")}
        results.append(row)
        print(json.dumps(row), flush=True)
    report = {"date": time.strftime("%Y-%m-%d"), "machine": machine(), "command": " ".join(sys.argv),
              "results": results}
    if len(results) >= 2:
        a, b = results[0], results[-1]
        # growth exponent of wall time vs cells (1.0 = linear); JVM start-up is a constant in wall time
        import math

        report["scaling_exponent_wall"] = round(math.log(b["wall_s_median"] / a["wall_s_median"])
                                                / math.log(b["cells"] / a["cells"]), 3)
        report["scaling_exponent_build"] = round(math.log(b["build_s_median"] / a["build_s_median"])
                                                 / math.log(b["cells"] / a["cells"]), 3)
    name = f"build_throughput-{args.lake.name}-tau{args.tau}.json" if args.lake else "build_throughput.json"
    (args.out / name).write_text(json.dumps(report, indent=2))
    print(json.dumps({k: v for k, v in report.items() if k != "results"}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
