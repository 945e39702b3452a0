"""End-to-end speed of onboarding and checking a recurring dataset from the command line (issue 15).

    python bench/history_speed.py --runs 3

Every figure is the wall time of a fresh ``lakeindex`` process (process start and imports included),
median of ``--runs``, on a copy of a prepared repository so each run starts from the same state:

1. **Backfill**: ``lakeindex history backfill`` of 53 weekly TSV partitions of about 1,000 rows
   (``bench/recurring_dataset.py``, 8 columns) into an empty repository.
2. **One batch of ~1,000 rows** (the 54th partition) against that history: ``history add``,
   ``avh check``, ``novelty check``, ``validate-batch`` (recording it) and ``validate-batch --dry-run``.
3. **One batch of 100,000 rows** against a history of ``--big-history`` batches of 100,000 rows
   (``bench/avh_latency.py``'s daily orders, 6 columns), backfilled once: the same five commands.

Each command runs with the default engine (``auto``: pandas/Arrow for these local files, no JVM) and,
with ``--spark``, once more with ``--engine spark`` for comparison (the backfill too). With
``--service-index INDEX``, the 1,000-row batch is also posted to a resident
``lakeindex serve --repo`` (``POST /v1/batches/validate``, not recorded): imports paid once (600,000 cells
of the 100,000-row batch are over the service's request limits, by design). Results go to stdout as JSON.

The script is the one pip installed beside this interpreter (``console_script``), not a PATH wrapper.

Byte code: an installed wheel is byte-compiled by pip, but an editable install under
``PYTHONDONTWRITEBYTECODE=1`` (this machine's environment) compiles lakeindex's ~90 modules from source in
every process (0.2-0.3 s). ``--bytecode compiled`` runs ``compileall`` on the packages first (as a wheel
install); ``--bytecode source`` (default) deletes their ``__pycache__`` directories first. The result says which.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from datetime import date, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "bench" / "out" / "history-speed"
PACKAGES = ("lakeindex", "query_service", "indexer_jobs")
DATASET = "orders"


def console_script() -> str:
    """The ``lakeindex`` script pip installed for this interpreter (as a virtualenv's ``bin/lakeindex``), not
    a version manager's wrapper found first on PATH: pyenv's shim is a bash script that costs ~0.1 s per call
    on this machine, which is pyenv's time, not lakeindex's. Falls back to PATH when there is none."""
    beside = Path(sys.executable).with_name("lakeindex")
    return str(beside) if beside.exists() else (shutil.which("lakeindex") or "lakeindex")


SCRIPT = console_script()


def lakeindex(*args: str) -> tuple[float, int, dict]:
    """Run ``lakeindex ARGS`` in a new process: (seconds, exit code, JSON output or {})."""
    t = time.perf_counter()
    proc = subprocess.run([SCRIPT, *args, "--quiet"] if args[0] == "history" and args[1] == "backfill"
                          else [SCRIPT, *args], capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - t
    if proc.returncode not in (0, 1):
        raise SystemExit(f"lakeindex {' '.join(args)} exited {proc.returncode}: {proc.stderr[-2000:]}")
    try:
        out = json.loads(proc.stdout) if proc.stdout.strip() else {}
    except json.JSONDecodeError:
        out = {}
    return seconds, proc.returncode, out


def write_small(root: Path) -> tuple[Path, Path, Path]:
    """53 weekly partitions of ~1,000 rows, and the 54th and 55th as the batches under test."""
    from bench.recurring_dataset import generate

    parts = root / "parts-1k"
    if not parts.exists():
        parts.mkdir(parents=True)
        frames = generate(55, rows=1000, seed=7)
        for k, frame in enumerate(frames):
            day = date(2024, 1, 1) + timedelta(days=7 * k)
            target = parts if k < 53 else root
            frame.to_csv(target / f"{day.isoformat()}.tsv", sep="\t", index=False)
    days = [date(2024, 1, 1) + timedelta(days=7 * k) for k in (53, 54)]
    return parts, root / f"{days[0].isoformat()}.tsv", root / f"{days[1].isoformat()}.tsv"


def write_big(root: Path, history: int) -> tuple[Path, Path]:
    """``history`` daily partitions of 100,000 rows, and the next day as the batch under test."""
    from bench.avh_latency import batch

    parts = root / f"parts-100k-{history}"
    if not parts.exists():
        parts.mkdir(parents=True)
        for day in range(history):
            batch(day, 100_000, seed=day).to_csv(parts / f"2024-01-{day + 1:02d}.tsv" if day < 31 else
                                                parts / f"2024-02-{day - 30:02d}.tsv", sep="\t", index=False)
    new = root / "big-next.tsv"
    if not new.exists():
        batch(history, 100_000, seed=10_000).to_csv(new, sep="\t", index=False)
    return parts, new


def timed_commands(repo: Path, batch: Path, runs: int, engine: str) -> dict[str, dict]:
    """The five commands on ``batch``, each on a fresh copy of ``repo``: medians and verdicts."""
    common = ["--repo", "", "--dataset", DATASET, str(batch), "--engine", engine]
    commands = {
        "history add": ["history", "add", *common, "--batch", "new"],
        "avh check": ["avh", "check", *common],
        "novelty check": ["novelty", "check", *common],
        "validate-batch": ["validate-batch", *common, "--batch", "new"],
        "validate-batch --dry-run": ["validate-batch", *common, "--batch", "new", "--dry-run"],
    }
    out = {}
    for name, argv in commands.items():
        times, codes, extra = [], set(), {}
        for _ in range(runs):
            work = OUT / "work-repo"
            shutil.rmtree(work, ignore_errors=True)
            shutil.copytree(repo, work)
            argv[argv.index("--repo") + 1] = str(work)
            seconds, code, result = lakeindex(*argv)
            times.append(seconds)
            codes.add(code)
            timing = result.get("timing")
            if timing:
                extra = timing
        out[name] = {"median_s": round(statistics.median(times), 2), "runs_s": [round(t, 2) for t in times],
                     "exit_codes": sorted(codes), **({"last_timing": extra} if extra else {})}
        print(f"{engine:5s} {name:26s} {out[name]['median_s']:6.2f} s  exit {sorted(codes)}", file=sys.stderr)
    return out


def service_latency(repo: Path, batch: Path, index: str, runs: int) -> dict:
    """``POST /v1/batches/validate`` of ``batch`` (as JSON columns, patterns off, not recorded) on a
    resident ``lakeindex serve --repo``: the path whose imports are paid once, per request wall time."""
    import socket
    import urllib.request

    import pandas as pd

    work = OUT / "service-repo"
    shutil.rmtree(work, ignore_errors=True)
    shutil.copytree(repo, work)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    frame = pd.read_csv(batch, sep="\t", dtype=str, keep_default_na=False)
    columns = {c: [v if v != "" else None for v in frame[c]] for c in frame.columns}
    server = subprocess.Popen([SCRIPT, "serve", "--index", index, "--repo", str(work), "--port", str(port)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.time() + 120
        while True:
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=2).read()
                break
            except OSError:
                if time.time() > deadline or server.poll() is not None:
                    raise SystemExit("lakeindex serve did not start") from None
                time.sleep(0.5)
        times, verdicts = [], []
        for k in range(runs + 1):  # the first request warms the imports: reported apart
            body = json.dumps({"dataset": DATASET, "batch": f"svc-{k}", "columns": columns,
                               "patterns": False}).encode()
            req = urllib.request.Request(f"http://127.0.0.1:{port}/v1/batches/validate", data=body,
                                         headers={"Content-Type": "application/json"})
            t = time.perf_counter()
            verdicts.append(json.loads(urllib.request.urlopen(req, timeout=120).read())["verdict"])
            times.append(time.perf_counter() - t)
    finally:
        server.terminate()
        server.wait(timeout=30)
    print(f"service validate {batch.name}: first {times[0]:.2f} s, then {statistics.median(times[1:]):.2f} s",
          file=sys.stderr)
    return {"first_request_s": round(times[0], 2), "median_s": round(statistics.median(times[1:]), 2),
            "runs_s": [round(t, 2) for t in times[1:]], "verdicts": sorted(set(verdicts))}


def backfill(parts: Path, repo: Path, runs: int, engine: str = "auto") -> dict:
    times = []
    for _ in range(runs):
        shutil.rmtree(repo, ignore_errors=True)
        seconds, code, result = lakeindex("history", "backfill", "--repo", str(repo), "--dataset", DATASET, str(parts),
                                          "--engine", engine)
        if code != 0 or len(result.get("recorded", [])) != len(list(parts.iterdir())):
            raise SystemExit(f"backfill of {parts} failed: {result}")
        times.append(seconds)
    print(f"backfill {parts.name} ({engine}): {statistics.median(times):.2f} s", file=sys.stderr)
    return {"median_s": round(statistics.median(times), 2), "runs_s": [round(t, 2) for t in times],
            "partitions": len(list(parts.iterdir())), "engines": result.get("engines")}


def prepare_bytecode(mode: str) -> None:
    """``compiled``: byte-compile the packages (as pip does for a wheel); ``source``: remove their byte code."""
    if mode == "compiled":
        subprocess.run([sys.executable, "-m", "compileall", "-q", *[str(ROOT / p) for p in PACKAGES]], check=True)
        return
    for package in PACKAGES:
        for cache in (ROOT / package).rglob("__pycache__"):
            shutil.rmtree(cache, ignore_errors=True)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--big-history", type=int, default=20, help="batches of 100,000 rows in the large history")
    p.add_argument("--spark", action="store_true", help="also time every command with --engine spark")
    p.add_argument("--skip-big", action="store_true")
    p.add_argument("--service-index", default=None,
                   help="an index for `lakeindex serve`: also time POST /v1/batches/validate on a resident service")
    p.add_argument("--only-service", action="store_true", help="prepare the repositories, time the service only")
    p.add_argument("--bytecode", choices=["source", "compiled"], default="source",
                   help="run lakeindex from source (editable install without byte code) or byte-compiled first")
    args = p.parse_args()
    prepare_bytecode(args.bytecode)
    OUT.mkdir(parents=True, exist_ok=True)
    engines = ["auto", "spark"] if args.spark else ["auto"]
    result: dict = {"command": " ".join(["python", "bench/history_speed.py", *sys.argv[1:]]),
                    "date": time.strftime("%Y-%m-%d"), "cpus": os.cpu_count(), "loadavg_start": os.getloadavg(),
                    "bytecode": args.bytecode, "script": SCRIPT}

    parts, first, _ = write_small(OUT)
    repo = OUT / "repo-1k"
    if args.only_service and repo.exists():
        result["service_1000_rows"] = service_latency(repo, first, args.service_index, args.runs)
        print(json.dumps(result, indent=2))
        return
    result["backfill_53x1000"] = backfill(parts, repo, args.runs)
    if args.service_index:
        result["service_1000_rows"] = service_latency(repo, first, args.service_index, args.runs)
    if args.spark:  # the same partitions through Spark, summarised in runs (into a scratch repository)
        result["backfill_53x1000_spark"] = backfill(parts, OUT / "repo-1k-spark", args.runs, "spark")
    result["batch_1000_rows"] = {e: timed_commands(repo, first, args.runs, e) for e in engines}
    if not args.skip_big:
        big_parts, big = write_big(OUT, args.big_history)
        big_repo = OUT / f"repo-100k-{args.big_history}"
        result["backfill_100k"] = backfill(big_parts, big_repo, 1)
        result["batch_100000_rows"] = {e: timed_commands(big_repo, big, args.runs, e) for e in engines}
    result["loadavg_end"] = os.getloadavg()
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
