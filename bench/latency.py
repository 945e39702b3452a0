"""Latency of FMDV-VH inference on 1,000-value columns: in process, and over HTTP on loopback.

In process: ``AutoValidator(...).fit`` on columns drawn from the lake (warm caches after one pass,
as a long-running service has them), reporting p50/p99. Over HTTP: starts ``lakeindex serve`` as a
subprocess on 127.0.0.1, then a concurrent load generator (httpx, N threads, bounded requests)
posts ``/v1/infer`` and reports p50/p99 latency, sustained requests/s and the service's peak RSS.

    python bench/latency.py --lake /tmp/biglake --index /tmp/bigindex --columns 200
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import numpy as np
import psutil

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.process_rss import tree_rss  # noqa: E402
from lakeindex.fmdv.infer import AutoValidator  # noqa: E402
from lakeindex.fmdv.search import SegmentSolver  # noqa: E402
from lakeindex.index.store import IndexReader  # noqa: E402
from lakeindex.lake.formats import file_format  # noqa: E402
from lakeindex.lake.readers import read_table  # noqa: E402


def columns_of(lake: Path, n: int, size: int) -> list[list[str]]:
    """``n`` columns of ``size`` values each (values repeated cyclically when a column is shorter)."""
    out = []
    for f in sorted(p for p in lake.rglob("*") if p.is_file() and file_format(p.name)):
        for _, arr in read_table(f.name, f.read_bytes()).columns:
            vals = [v for v in arr.to_pylist() if v]
            if len(vals) >= 20:
                out.append([vals[i % len(vals)] for i in range(size)])
            if len(out) >= n:
                return out
    return out


def pct(xs: list[float], q: float) -> float:
    return float(np.percentile(xs, q))


def in_process(index: Path, cols: list[list[str]], passes: int) -> dict:
    with IndexReader(index) as ix:
        solver = SegmentSolver(ix, freeze_gc=True, preload=True)  # as the service runs it
        cold = []
        for c in cols:
            t = time.perf_counter()
            AutoValidator(solver, method="fmdv-vh").fit(c)
            cold.append((time.perf_counter() - t) * 1000)
        warm = []
        for _ in range(passes):
            for c in cols:
                t = time.perf_counter()
                AutoValidator(solver, method="fmdv-vh").fit(c)
                warm.append((time.perf_counter() - t) * 1000)
    return {"columns": len(cols), "cold_p50_ms": round(pct(cold, 50), 2), "cold_p99_ms": round(pct(cold, 99), 2),
            "warm_p50_ms": round(pct(warm, 50), 2), "warm_p99_ms": round(pct(warm, 99), 2),
            "warm_mean_ms": round(statistics.mean(warm), 2), "warm_samples": len(warm)}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def over_http(index: Path, cols: list[list[str]], threads: int, requests: int, workers: int = 1) -> dict:
    port = free_port()
    cmd = [sys.executable, "-m", "lakeindex.cli", "serve", "--index", str(index), "--port", str(port),
           "--workers", str(workers)]
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=os.environ.copy())
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(100):
            try:
                if httpx.get(base + "/ready", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.1)
        bodies = [json.dumps({"values": c}).encode() for c in cols]
        with httpx.Client(base_url=base, timeout=30) as client:  # warm the service's caches once
            for b in bodies:
                client.post("/v1/infer", content=b, headers={"content-type": "application/json"})
        lat: list[float] = []
        errors = 0
        lock = threading.Lock()
        peak = [0]
        ps = psutil.Process(proc.pid)

        def worker(k: int) -> None:
            nonlocal errors
            with httpx.Client(base_url=base, timeout=30) as client:
                for i in range(k, requests, threads):
                    t = time.perf_counter()
                    r = client.post("/v1/infer", content=bodies[i % len(bodies)],
                                    headers={"content-type": "application/json"})
                    dt = (time.perf_counter() - t) * 1000
                    with lock:
                        lat.append(dt)
                        errors += r.status_code != 200
                    if i % 50 == 0:
                        rss = tree_rss(ps)
                        with lock:
                            peak[0] = max(peak[0], rss)

        t0 = time.perf_counter()
        ts = [threading.Thread(target=worker, args=(k,)) for k in range(threads)]
        for t in ts:
            t.start()
        for t in ts:
            t.join()
        wall = time.perf_counter() - t0
        # single-client latency (no queueing), the figure comparable to the paper's per-column time
        single = []
        with httpx.Client(base_url=base, timeout=30) as client:
            for b in bodies:
                t = time.perf_counter()
                client.post("/v1/infer", content=b, headers={"content-type": "application/json"})
                single.append((time.perf_counter() - t) * 1000)
        return {"workers": workers, "threads": threads, "requests": requests, "errors": errors,
                "concurrent_p50_ms": round(pct(lat, 50), 2), "concurrent_p99_ms": round(pct(lat, 99), 2),
                "requests_per_s": round(requests / wall, 1),
                "single_client_p50_ms": round(pct(single, 50), 2), "single_client_p99_ms": round(pct(single, 99), 2),
                "service_peak_rss_mb": round(peak[0] / 2**20, 1)}
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--lake", type=Path, required=True)
    ap.add_argument("--index", type=Path, required=True)
    ap.add_argument("--columns", type=int, default=200)
    ap.add_argument("--size", type=int, default=1000)
    ap.add_argument("--passes", type=int, default=3)
    ap.add_argument("--threads", type=int, default=8)
    ap.add_argument("--requests", type=int, default=2000)
    ap.add_argument("--workers", type=int, default=1, help="service processes")
    ap.add_argument("--no-http", action="store_true", help="measure in process only")
    args = ap.parse_args()
    cols = columns_of(args.lake, args.columns, args.size)
    report = {"date": time.strftime("%Y-%m-%d"), "command": " ".join(sys.argv), "values_per_column": args.size,
              "in_process": in_process(args.index, cols, args.passes)}
    if not args.no_http:
        report["http"] = over_http(args.index, cols, args.threads, args.requests, args.workers)
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
