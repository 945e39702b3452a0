"""Benchmark of the offline index build: throughput, peak memory, index size, and scaling.

Generates seeded lakes of several sizes with ``sample_lake/generate.py`` (cached under
``bench/out``), runs ``lakeindex index build`` on each several times as a separate process, and
reports the median wall time, cells/s, columns/s, peak RSS of the whole process tree (driver JVM,
Python workers) and the index size relative to the lake's raw bytes, as JSON and Markdown.

    python bench/build_throughput.py --tables 25 252 2520 --rows 500 --runs 3
    python bench/build_throughput.py --tables 630 1260 2520 --wide-share 0.25 --layouts-share 0.4 --runs 1
    python bench/build_throughput.py --tables 630 --layouts-share 0.4 --installed /tmp/site  # a compiled install

``--layouts-share`` lays part of the tables out as Spark part directories and Delta tables, so the build
reads tables as real lakes hold them; ``scaling_exponent_*`` give how wall time, build time and index
size grow with the lake (1.0: linear).
"""

from __future__ import annotations

import argparse
import json
import os
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
from sample_lake.layouts import relayout_share  # noqa: E402


def run_build(lake: Path, index: Path, master: str, extra: list[str] | None = None,
              installed: Path | None = None) -> dict:
    """Run one build as a subprocess (this checkout's sources, or the package installed in ``installed``);
    sample the process tree's RSS (and its largest Python worker's) every 0.2 s."""
    shutil.rmtree(index, ignore_errors=True)
    cmd = [sys.executable, "-m", "lakeindex.cli", "index", "build", str(lake), "--out", str(index),
           "--master", master, "--quiet", *(extra or [])]
    env = {**os.environ, "PYTHONPATH": str(installed)} if installed else None
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=installed or ROOT, env=env)
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
    ap.add_argument("--installed", type=Path, help="run lakeindex from this directory (e.g. the compiled wheel "
                    "installed with `pip install --target DIR`) instead of this checkout's sources")
    ap.add_argument("--wide-share", type=float, default=0.0,
                    help="generated lakes get wide tables until this share of values is wider than 8 tokens")
    ap.add_argument("--layouts-share", type=float, default=0.0,
                    help="lay this share of the generated Parquet tables out as Spark part directories and Delta "
                         "tables with an overwritten version (sample_lake/layouts.py)")
    args = ap.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    results = []
    for tables in [0] if args.lake else args.tables:
        suffix = (f"-w{args.wide_share:g}" if args.wide_share else "") + \
            (f"-l{args.layouts_share:g}" if args.layouts_share else "")
        lake = args.lake or args.out / f"lake-{tables}x{args.rows}{suffix}"
        if not lake.exists():
            summary = generate_lake(lake, tables, args.rows, seed=7, wide_share=args.wide_share)
            if args.layouts_share:
                summary["laid_out"] = relayout_share(lake, args.layouts_share, seed=7)
        else:
            summary = None
        raw_bytes = sum(p.stat().st_size for p in lake.rglob("*") if p.is_file())
        name = f"index-{lake.name}-tau{args.tau}" if args.lake else f"index-{tables}{suffix}"
        runs = [run_build(lake, args.out / name, args.master, ["--tau", str(args.tau)], args.installed)
                for _ in range(args.runs)]
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
            "values": meta.get("values_scanned"), "tables_by_format": meta.get("tables_by_format"),
            "index_bytes": meta["index_bytes"], "index_pct_of_raw": round(100 * meta["index_bytes"] / raw_bytes, 3),
        }
        if summary:
            row["generated"] = {k: summary[k] for k in ("columns", "cells", "bytes", "laid_out") if k in summary}
        results.append(row)
        print(json.dumps(row), flush=True)
    compiled = bool(args.installed and list((args.installed / "lakeindex" / "patterns").glob("counting.*.so")))
    report = {"date": time.strftime("%Y-%m-%d"), "machine": machine(), "command": " ".join(sys.argv),
              "code": "compiled" if compiled else "sources", "results": results}
    if len(results) >= 2:
        a, b = results[0], results[-1]
        # growth exponent of wall time vs cells (1.0 = linear); JVM start-up is a constant in wall time
        import math

        report["scaling_exponent_wall"] = round(math.log(b["wall_s_median"] / a["wall_s_median"])
                                                / math.log(b["cells"] / a["cells"]), 3)
        report["scaling_exponent_build"] = round(math.log(b["build_s_median"] / a["build_s_median"])
                                                 / math.log(b["cells"] / a["cells"]), 3)
        report["scaling_exponent_index_bytes"] = round(math.log(b["index_bytes"] / a["index_bytes"])
                                                       / math.log(b["cells"] / a["cells"]), 3)
    name = f"build_throughput-{args.lake.name}-tau{args.tau}.json" if args.lake else f"build_throughput{suffix}.json"
    (args.out / name).write_text(json.dumps(report, indent=2))
    print(json.dumps({k: v for k, v in report.items() if k != "results"}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
