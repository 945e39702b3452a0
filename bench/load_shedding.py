"""Load shedding of ``lakeindex serve`` under a burst of batch validations: 503s, not timeouts, and a live /health.

    python bench/load_shedding.py --index bench/out/index-lake-2520x500 --seconds 30 --concurrency 32

Why: the original report measured ``POST /v1/batches/validate`` at ~1 request/s (p50 9.5 s) and, at
concurrency 32, every request timed out at 30 s: nothing shed load. Slow endpoints now run in bounded
lanes (``query_service/lanes.py``, ``slow_lane`` requests at once per server process): a request beyond
the lane is refused at once with 503 and ``Retry-After``, and ``/health`` is answered on the event loop.
``tests/test_hardening.py`` checks this in process; this script measures it over HTTP under that load.

What it does:

1. Prepares a metrics repository with a history of the recurring ``orders`` dataset, as
   ``bench/history_speed.py`` does (its helpers): ``--history`` weekly TSV partitions of ~1,000 rows
   (8 columns, ``bench/recurring_dataset.py``) backfilled with ``lakeindex history backfill``. The
   repository is reused by later runs (``bench/out/load-shedding/``); the service gets a fresh copy.
2. Starts ``lakeindex serve --index INDEX --repo REPO --port P --workers N`` (the console script beside
   this interpreter), waits for ``/ready`` and warms it with one validation per worker (reported apart).
3. For ``--seconds``, ``--concurrency`` client threads (one kept-alive connection each) post
   ``/v1/batches/validate`` in a loop: the 54th partition as JSON columns, a new batch id per request,
   ``record`` and ``patterns`` false, 30 s timeout. They retry at once (``--honour-retry-after`` makes
   them sleep ``Retry-After`` first). Requests started before the deadline are waited for.
   Meanwhile one thread gets ``/health`` and one posts ``/v1/patterns/lookup`` (two patterns) every 50 ms,
   until the last batch request ends; every request is timed.
4. Samples the service's process tree (RSS and CPU time, ``bench/process_rss.tree_rss``) every 0.2 s.

Output: JSON on stdout, a short summary on stderr. Batch requests: counts by status (200, 503, other),
503s with ``Retry-After``, timeouts and connection errors, p50/p99 latency of the 200s and of the 503s,
accepted (200) requests per second of wall time (from the first request to the end of the last one).
``/health`` and the lookup: requests, errors (non-200 or transport), p50/p99/max latency. The service's
log goes to ``bench/out/load-shedding/service.log``. Exits 0 unless the setup fails.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import threading
import time
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

import httpx
import numpy as np
import pandas as pd
import psutil

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.history_speed import DATASET, SCRIPT, backfill, write_small  # noqa: E402
from bench.latency import free_port  # noqa: E402
from bench.process_rss import tree_rss  # noqa: E402

OUT = ROOT / "bench" / "out" / "load-shedding"
LOOKUP_PATH = "/v1/patterns/lookup"  # the service's batch lookup (there is no /v1/lookup route)
LOOKUP_BODY = {"patterns": ["<digit>+", "<digit>{4}-<digit>{2}-<digit>{2}"]}
PROBE_INTERVAL_S = 0.05
RSS_INTERVAL_S = 0.2
TIMEOUT_S = 30.0
FULL_HISTORY = 53  # partitions write_small writes before the two batches under test


def machine() -> dict:
    return {"cores": psutil.cpu_count(), "physical_cores": psutil.cpu_count(logical=False),
            "memory_gb": round(psutil.virtual_memory().total / 2**30, 1),
            "cpu": platform.processor() or platform.machine(), "python": platform.python_version(),
            "os": platform.platform()}


def pct(xs: list[float], q: float) -> float | None:
    return round(float(np.percentile(xs, q)), 1) if xs else None


def prepare_repo(history: int) -> tuple[Path, Path, dict]:
    """A metrics repository holding ``history`` weekly batches of ``orders`` (reused when already backfilled),
    the next partition (the batch posted) and the backfill's figures."""
    if not 1 <= history <= FULL_HISTORY:
        raise SystemExit(f"--history must be between 1 and {FULL_HISTORY}")
    OUT.mkdir(parents=True, exist_ok=True)
    parts, batch, _ = write_small(OUT)
    if history < FULL_HISTORY:  # the first ``history`` partitions, in their own folder
        subset = OUT / f"parts-1k-first{history}"
        if not subset.exists():
            subset.mkdir()
            for f in sorted(parts.iterdir())[:history]:
                shutil.copy(f, subset / f.name)
        parts = subset
    repo = OUT / f"repo-1k-{history}"
    marker = OUT / f"repo-1k-{history}.backfill.json"
    if repo.exists() and marker.exists():
        return repo, batch, {**json.loads(marker.read_text()), "reused": True}
    marker.unlink(missing_ok=True)
    result = backfill(parts, repo, 1)
    marker.write_text(json.dumps(result))
    return repo, batch, {**result, "reused": False}


def columns_json(batch: Path) -> str:
    """The batch's columns as the JSON object of the request body (empty cells as null), encoded once."""
    frame = pd.read_csv(batch, sep="\t", dtype=str, keep_default_na=False)
    return json.dumps({c: [v if v != "" else None for v in frame[c]] for c in frame.columns})


def body(columns: str, batch_id: str) -> bytes:
    return (f'{{"dataset": {json.dumps(DATASET)}, "batch": {json.dumps(batch_id)}, "columns": {columns}, '
            f'"record": false, "patterns": false}}').encode()


class Service:
    """``lakeindex serve`` in a subprocess, its log in ``OUT/service.log``."""

    def __init__(self, index: str, repo: Path, workers: int) -> None:
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.argv = [SCRIPT, "serve", "--index", index, "--repo", str(repo), "--port", str(self.port),
                     "--workers", str(workers)]
        self.log = (OUT / "service.log").open("wb")
        self.proc = subprocess.Popen(self.argv, stdout=self.log, stderr=subprocess.STDOUT)
        self.ps = psutil.Process(self.proc.pid)

    def wait_ready(self, seconds: float = 120) -> float:
        t0 = time.perf_counter()
        while True:
            try:
                if httpx.get(self.base + "/ready", timeout=2).status_code == 200:
                    return time.perf_counter() - t0
            except httpx.HTTPError:
                pass
            if self.proc.poll() is not None or time.perf_counter() - t0 > seconds:
                self.stop()
                raise SystemExit(f"lakeindex serve did not start (exit {self.proc.poll()}); see {OUT / 'service.log'}")
            time.sleep(0.25)

    def tree_cpu_s(self) -> float:
        total = 0.0
        for p in [self.ps, *self.ps.children(recursive=True)]:
            try:
                t = p.cpu_times()
                total += t.user + t.system
            except psutil.Error:
                pass
        return total

    def stop(self) -> None:
        children = []
        try:
            children = self.ps.children(recursive=True)
        except psutil.Error:
            pass
        self.proc.terminate()
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=10)
        for child in children:  # uvicorn's worker processes, should the supervisor leave any behind
            try:
                child.kill()
            except psutil.Error:
                pass
        self.log.close()


class Probe:
    """A thread timing one request every ``PROBE_INTERVAL_S`` (no catch-up burst after a slow one) until stopped."""

    def __init__(self, base: str, method: str, path: str, payload: dict | None, stop: threading.Event) -> None:
        self.base, self.method, self.path, self.payload, self.stop = base, method, path, payload, stop
        self.latencies_ms: list[float] = []
        self.errors: Counter[str] = Counter()
        self.thread = threading.Thread(target=self.run, daemon=True)

    def run(self) -> None:
        with httpx.Client(base_url=self.base, timeout=TIMEOUT_S) as client:
            due = time.perf_counter()
            while not self.stop.is_set():
                t = time.perf_counter()
                try:
                    r = client.request(self.method, self.path, json=self.payload)
                    if r.status_code != 200:
                        self.errors[str(r.status_code)] += 1
                except httpx.TimeoutException:
                    self.errors["timeout"] += 1
                except httpx.HTTPError as exc:
                    self.errors[type(exc).__name__] += 1
                self.latencies_ms.append((time.perf_counter() - t) * 1000)
                due = max(due + PROBE_INTERVAL_S, time.perf_counter())
                self.stop.wait(due - time.perf_counter())

    def summary(self) -> dict:
        xs = self.latencies_ms
        return {"requests": len(xs), "errors": sum(self.errors.values()), "errors_by_kind": dict(self.errors),
                "p50_ms": pct(xs, 50), "p99_ms": pct(xs, 99), "max_ms": round(max(xs), 1) if xs else None,
                "interval_ms": PROBE_INTERVAL_S * 1000}


def load(service: Service, columns: str, seconds: float, concurrency: int, honour_retry_after: bool) -> dict:
    """``concurrency`` threads posting batch validations for ``seconds``, with the /health and lookup probes
    and the RSS sampler running until the last batch request has ended."""
    lock = threading.Lock()
    statuses: Counter[int] = Counter()
    transport: Counter[str] = Counter()
    ok_ms: list[float] = []
    shed_ms: list[float] = []
    other_ms: list[float] = []
    retry_after: Counter[str] = Counter()
    stop = threading.Event()
    peak = [0]

    def sample() -> None:
        while not stop.is_set():
            rss = tree_rss(service.ps)
            peak[0] = max(peak[0], rss)
            stop.wait(RSS_INTERVAL_S)

    t0 = time.perf_counter()
    deadline = t0 + seconds

    def client(k: int) -> None:
        n = 0
        with httpx.Client(base_url=service.base, timeout=TIMEOUT_S,
                          headers={"content-type": "application/json"}) as http:
            while time.perf_counter() < deadline:
                payload = body(columns, f"load-{k}-{n}")
                n += 1
                t = time.perf_counter()
                try:
                    r = http.post("/v1/batches/validate", content=payload)
                except httpx.TimeoutException:
                    with lock:
                        transport["timeout"] += 1
                    continue
                except httpx.HTTPError as exc:
                    with lock:
                        transport[type(exc).__name__] += 1
                    time.sleep(0.1)  # a refused connection fails at once: do not spin
                    continue
                ms = (time.perf_counter() - t) * 1000
                with lock:
                    statuses[r.status_code] += 1
                    if r.status_code == 200:
                        ok_ms.append(ms)
                    elif r.status_code == 503:
                        shed_ms.append(ms)
                        retry_after[r.headers.get("retry-after", "missing")] += 1
                    else:
                        other_ms.append(ms)
                if r.status_code == 503 and honour_retry_after:
                    try:
                        wait = float(r.headers.get("retry-after", "0"))
                    except ValueError:
                        wait = 0.0
                    time.sleep(min(wait, max(0.0, deadline - time.perf_counter())))

    cpu0 = service.tree_cpu_s()
    sampler = threading.Thread(target=sample, daemon=True)
    probes = {"health": Probe(service.base, "GET", "/health", None, stop),
              "lookup": Probe(service.base, "POST", LOOKUP_PATH, LOOKUP_BODY, stop)}
    sampler.start()
    for p in probes.values():
        p.thread.start()
    clients = [threading.Thread(target=client, args=(k,), daemon=True) for k in range(concurrency)]
    for c in clients:
        c.start()
    for c in clients:
        c.join()
    wall = time.perf_counter() - t0
    stop.set()
    for p in probes.values():
        p.thread.join(timeout=TIMEOUT_S + 5)
    sampler.join(timeout=5)
    cpu = service.tree_cpu_s() - cpu0

    with_header = sum(n for v, n in retry_after.items() if v != "missing")
    batch = {
        "requests": sum(statuses.values()) + sum(transport.values()),
        "status_200": statuses[200], "status_503": statuses[503],
        "status_other": sum(n for s, n in statuses.items() if s not in (200, 503)),
        "other_statuses": {str(s): n for s, n in sorted(statuses.items()) if s not in (200, 503)},
        "status_503_with_retry_after": with_header,
        "retry_after_values": {v: n for v, n in retry_after.items() if v != "missing"},
        "timeouts": transport["timeout"],
        "connection_errors": sum(n for k, n in transport.items() if k != "timeout"),
        "transport_errors_by_kind": {k: n for k, n in transport.items() if k != "timeout"},
        "p50_ms_200": pct(ok_ms, 50), "p99_ms_200": pct(ok_ms, 99),
        "p50_ms_503": pct(shed_ms, 50), "p99_ms_503": pct(shed_ms, 99),
        "p50_ms_other": pct(other_ms, 50),
        "accepted_per_s": round(statuses[200] / wall, 2),
        "wall_s": round(wall, 2),
    }
    return {"batch_validate": batch, "health": probes["health"].summary(), "lookup": probes["lookup"].summary(),
            "service_peak_rss_mb": round(peak[0] / 2**20, 1), "service_cpu_s": round(cpu, 1)}


def warm(service: Service, columns: str, workers: int) -> list[dict]:
    """One validation per worker at once (the first pays pandas' and the validators' imports), and a lookup."""
    out: list[dict] = []

    def one(k: int) -> None:
        t = time.perf_counter()
        r = httpx.post(service.base + "/v1/batches/validate", content=body(columns, f"warmup-{k}"),
                       headers={"content-type": "application/json"}, timeout=120)
        verdict = r.json().get("verdict") if r.status_code == 200 else None
        out.append({"status": r.status_code, "seconds": round(time.perf_counter() - t, 2), "verdict": verdict})

    threads = [threading.Thread(target=one, args=(k,)) for k in range(workers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if not any(w["status"] == 200 for w in out):
        service.stop()
        raise SystemExit(f"warm-up validation failed: {out}; see {OUT / 'service.log'}")
    r = httpx.post(service.base + LOOKUP_PATH, json=LOOKUP_BODY, timeout=30)
    if r.status_code != 200:
        service.stop()
        raise SystemExit(f"POST {LOOKUP_PATH} answered {r.status_code}: {r.text[:500]}")
    return out


def summary(result: dict) -> str:
    b, h, lk = result["batch_validate"], result["health"], result["lookup"]
    return (f"batch validate: {b['requests']} requests in {b['wall_s']} s: {b['status_200']} x 200 "
            f"(p50 {b['p50_ms_200']} ms, p99 {b['p99_ms_200']} ms, {b['accepted_per_s']}/s), "
            f"{b['status_503']} x 503 ({b['status_503_with_retry_after']} with Retry-After; p50 {b['p50_ms_503']} ms, "
            f"p99 {b['p99_ms_503']} ms), {b['status_other']} other, {b['timeouts']} timeouts, "
            f"{b['connection_errors']} connection errors\n"
            f"/health: {h['requests']} requests, {h['errors']} errors, p50 {h['p50_ms']} ms, p99 {h['p99_ms']} ms, "
            f"max {h['max_ms']} ms\n"
            f"{LOOKUP_PATH}: {lk['requests']} requests, {lk['errors']} errors, p50 {lk['p50_ms']} ms, "
            f"p99 {lk['p99_ms']} ms, max {lk['max_ms']} ms\n"
            f"service: peak RSS {result['service_peak_rss_mb']} MB, CPU {result['service_cpu_s']} s")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--index", required=True, help="pattern index to serve, e.g. bench/out/index-lake-2520x500")
    ap.add_argument("--seconds", type=float, default=30.0, help="how long the clients start new requests")
    ap.add_argument("--concurrency", type=int, default=32, help="client threads posting /v1/batches/validate")
    ap.add_argument("--workers", type=int, default=1, help="lakeindex serve --workers")
    ap.add_argument("--history", type=int, default=FULL_HISTORY,
                    help=f"weekly batches of history in the repository (1-{FULL_HISTORY}; fewer for quick tries)")
    ap.add_argument("--honour-retry-after", action="store_true",
                    help="clients sleep Retry-After seconds after a 503 (default: they retry at once)")
    args = ap.parse_args()

    from query_service.settings import Settings

    started = datetime.now(UTC)
    result: dict = {"command": " ".join(["python", "bench/load_shedding.py", *sys.argv[1:]]),
                    "date": started.strftime("%Y-%m-%d"), "started_utc": started.isoformat(timespec="seconds"),
                    "machine": machine(), "loadavg_start": [round(x, 2) for x in os.getloadavg()],
                    "index": args.index, "workers": args.workers, "concurrency": args.concurrency,
                    "seconds": args.seconds, "request_timeout_s": TIMEOUT_S,
                    "honour_retry_after": args.honour_retry_after,
                    "slow_lane_per_worker": Settings.slow_lane, "script": SCRIPT}
    repo, batch, backfilled = prepare_repo(args.history)
    columns = columns_json(batch)
    result["history"] = {"dataset": DATASET, "batches": args.history, "backfill": backfilled,
                         "posted_batch": batch.name, "posted_rows": len(next(iter(json.loads(columns).values()))),
                         "body_kb": round(len(body(columns, "load-0-0")) / 1024, 1)}
    work = OUT / "service-repo"
    shutil.rmtree(work, ignore_errors=True)
    shutil.copytree(repo, work)

    service = Service(args.index, work, args.workers)
    result["service_command"] = " ".join(service.argv)
    try:
        result["ready_after_s"] = round(service.wait_ready(), 2)
        result["warmup"] = warm(service, columns, args.workers)
        print(f"service ready on {service.base}; loading for {args.seconds} s at concurrency {args.concurrency}",
              file=sys.stderr)
        result.update(load(service, columns, args.seconds, args.concurrency, args.honour_retry_after))
        result["service_exit_code_during_run"] = service.proc.poll()
    finally:
        service.stop()
    result["loadavg_end"] = [round(x, 2) for x in os.getloadavg()]
    print(summary(result), file=sys.stderr)
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
