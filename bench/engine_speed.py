"""Per-command wall time on a 150-row file with and without the warm engine (issue 43).

    python bench/engine_speed.py --runs 5

Each figure is a fresh ``python -m lakeindex`` process (interpreter start and imports included), median of
``--runs``. The two ways alternate run by run, so a machine whose load changes affects both alike:

* ``engine``: a ``lakeindex engine start`` on a free port in a temporary ``LAKEINDEX_HOME``; the commands
  find it there. Also recorded: the CPU seconds of the command's process and of the engine (its JVM and
  Python workers) during the command, which load does not inflate as it inflates wall time.
* ``local``: ``LAKEINDEX_ENGINE=off``, a JVM start per command (Spark as before the engine existed).

Commands: ``check`` (a checks file of six constraints), ``profile``, ``suggest`` and ``infer --data
--column``. ``infer --data`` reads one small local file without any JVM, engine or not; its ``local``
figure is the Spark path it took before (``--master local[*]``). The index it learns against is built from
the bundled lake's CSV columns without Spark. Results go to stdout as JSON.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import resource
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.history_speed import prepare_bytecode  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
TABLE = ROOT / "sample_lake" / "tables" / "auth_events_001.csv"  # 150 rows, 6 text columns
CHECKS = {"checks": [{"level": "error", "description": "auth events", "constraints": [
    {"type": "has_size", "assertion": "== 150"}, {"type": "is_complete", "column": "event_id"},
    {"type": "is_unique", "column": "event_id"}, {"type": "is_complete", "column": "actor_email"},
    {"type": "has_pattern", "column": "cert_sha1", "pattern": "^[0-9a-f]{40}$"},
    {"type": "has_completeness", "column": "actor_title", "assertion": ">= 0.9"}]}]}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run(args: list[str], env: dict[str, str]) -> tuple[float, float, int]:
    """Wall seconds, CPU seconds of the process, exit code of ``python -m lakeindex ARGS``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    got = subprocess.run([sys.executable, "-m", "lakeindex", *args], env=env, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if got.returncode not in (0, 1):
        raise RuntimeError(f"lakeindex {' '.join(args)} exited {got.returncode}: {got.stderr[-2000:]}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), got.returncode


def server_cpu(pid: int) -> float:
    """CPU seconds the engine's JVM and its Python workers have used so far."""
    import psutil

    proc = psutil.Process(pid)
    total = sum(proc.cpu_times()[:2])
    for child in proc.children(recursive=True):
        try:
            total += sum(child.cpu_times()[:2])
        except psutil.Error:
            pass
    return total


def build_index(out: Path) -> Path:
    """A pattern index of the bundled lake's CSV columns (no Spark: the local builder)."""
    from lakeindex.index.local_build import build_from_columns

    columns = []
    for path in sorted((ROOT / "sample_lake" / "tables").glob("*.csv")):
        with open(path, encoding="utf-8", newline="") as fh:
            rows = list(csv.reader(fh))
        columns += [[r[i] for r in rows[1:] if i < len(r)] for i in range(len(rows[0]))] if rows else []
    build_from_columns(columns, out, min_coverage=2)
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--bytecode", choices=["source", "compiled"], default="compiled",
                   help="compiled (default): byte-compile the packages first, as a wheel install is")
    args = p.parse_args()
    prepare_bytecode(args.bytecode)
    work = Path(tempfile.mkdtemp(prefix="engine-speed-"))
    checks = work / "checks.json"
    checks.write_text(json.dumps(CHECKS))
    index = build_index(work / "index")
    base = {k: v for k, v in os.environ.items() if k not in ("SPARK_REMOTE", "LAKEINDEX_ENGINE")}
    base.update(PYTHONPATH=str(ROOT), LAKEINDEX_HOME=str(work / "home"))
    commands = {
        "check": ["check", str(TABLE), "--checks", str(checks), "--quiet"],
        "profile": ["profile", str(TABLE), "--quiet"],
        "suggest": ["suggest", str(TABLE), "--quiet"],
        "infer --data": ["infer", "--index", str(index), "--data", str(TABLE), "--column", "actor_email"],
    }
    t0 = time.perf_counter()
    started = subprocess.run([sys.executable, "-m", "lakeindex", "engine", "start", "--port", str(free_port())],
                             env=base, capture_output=True, text=True)
    if started.returncode != 0:
        raise SystemExit(f"engine start failed: {started.stderr[-3000:]}")
    start_seconds = time.perf_counter() - t0
    pid = json.loads(started.stdout)["pid"]
    results: dict[str, dict] = {}
    try:
        for name, cmd in commands.items():
            walls: dict[str, list[float]] = {"engine": [], "local": []}
            cpu: dict[str, list[float]] = {"engine_client": [], "engine_server": []}
            for _ in range(args.runs):
                server_before = server_cpu(pid)
                wall, client, _ = run(cmd, base)
                cpu["engine_server"].append(server_cpu(pid) - server_before)
                walls["engine"].append(wall)
                cpu["engine_client"].append(client)
                local_cmd = cmd + ["--master", "local[*]"] if name == "infer --data" else cmd
                wall, _, _ = run(local_cmd, {**base, "LAKEINDEX_ENGINE": "off"})
                walls["local"].append(wall)
            results[name] = {
                **{f"{way}_median_s": round(statistics.median(ts), 2) for way, ts in walls.items()},
                **{f"{way}_runs_s": [round(t, 2) for t in ts] for way, ts in walls.items()},
                **{f"{what}_cpu_median_s": round(statistics.median(ts), 2) for what, ts in cpu.items()},
            }
            print(name, results[name], file=sys.stderr, flush=True)
    finally:
        subprocess.run([sys.executable, "-m", "lakeindex", "engine", "stop"], env=base, capture_output=True)
    print(json.dumps({"table": str(TABLE.relative_to(ROOT)), "rows": 150, "runs": args.runs,
                      "bytecode": args.bytecode, "engine_start_s": round(start_seconds, 1),
                      "cpus": os.cpu_count(), "load_average": os.getloadavg(), "commands": results}, indent=2))


if __name__ == "__main__":
    main()
