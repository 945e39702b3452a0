"""What the HTTP edge adds to a request: loopback latency of ``lakeindex serve`` against the work itself.

    python bench/service_overhead.py --index bench/out/index-lake-2520x500-tau8 --runs 3

Starts ``lakeindex serve`` on 127.0.0.1 (this checkout, ``python -m lakeindex.cli``), then one client
on a kept-alive connection times ``GET /health`` (no work), ``POST /v1/infer`` of 3 values and of
1,000 values of one cheap domain (``usr_N``), 300 requests each after 20 warm-up requests; the same
fits are timed in process for comparison. Reports p50 / p90 per run as JSON on stdout.
"""

from __future__ import annotations

import argparse
import json
import socket
import subprocess
import sys
import time
import timeit
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

SMALL = ["usr_1", "usr_2", "usr_3"]
LARGE = [f"usr_{i}" for i in range(1000)]


def in_process(index: str) -> dict[str, float]:
    from lakeindex.fmdv.infer import AutoValidator
    from lakeindex.fmdv.search import SegmentSolver
    from lakeindex.index.store import IndexReader

    out = {}
    with IndexReader(index) as ix:
        solver = SegmentSolver(ix, freeze_gc=True, preload=True)  # as the service runs it
        for name, values in (("infer_3", SMALL), ("infer_1000", LARGE)):
            AutoValidator(solver).fit(values)
            per = timeit.timeit(lambda v=values: AutoValidator(solver).fit(v).rule_.to_dict(), number=200) / 200
            out[name + "_ms"] = round(per * 1000, 2)
    return out


def over_http(index: str) -> dict[str, dict[str, float]]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([sys.executable, "-m", "lakeindex.cli", "serve", "--index", index, "--port", str(port)],
                            cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.time() + 120
        while True:
            try:
                if httpx.get(base + "/ready", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.time() > deadline or proc.poll() is not None:
                raise SystemExit("lakeindex serve did not start")
            time.sleep(0.2)
        headers = {"content-type": "application/json"}
        small, large = json.dumps({"values": SMALL}).encode(), json.dumps({"values": LARGE}).encode()
        out = {}
        with httpx.Client(base_url=base, timeout=30) as c:
            for name, call in (("health", lambda: c.get("/health")),
                               ("infer_3", lambda: c.post("/v1/infer", content=small, headers=headers)),
                               ("infer_1000", lambda: c.post("/v1/infer", content=large, headers=headers))):
                for _ in range(20):
                    call()
                lat = []
                for _ in range(300):
                    t = time.perf_counter()
                    resp = call()
                    lat.append(time.perf_counter() - t)
                    if resp.status_code != 200:
                        raise SystemExit(f"{name}: HTTP {resp.status_code}: {resp.text[:200]}")
                lat.sort()
                out[name] = {"p50_ms": round(lat[150] * 1000, 2), "p90_ms": round(lat[270] * 1000, 2)}
        return out
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--index", required=True)
    p.add_argument("--runs", type=int, default=3)
    args = p.parse_args()
    result = {"command": " ".join(["python", "bench/service_overhead.py", *sys.argv[1:]]),
              "date": time.strftime("%Y-%m-%d"), "in_process": in_process(args.index),
              "http_runs": [over_http(args.index) for _ in range(args.runs)]}
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
