"""The index build on a real Spark standalone cluster and through Spark Connect, against the local build (issue 16).

    python bench/cluster_build.py --runs 3 [--lake DIR]

What it checks and measures, on one lake (default ``sample_lake/tables``):

1. **Executors without lakeindex.** A venv made with ``python -m venv`` and ``pip install -r`` of the
   ``executor-requirements.txt`` that ``lakeindex package`` writes, and nothing else: no lakeindex, no pyspark
   (executors import pyspark from ``SPARK_HOME/python/lib/pyspark.zip``, as with a Spark distribution). The
   script asserts that ``import lakeindex`` fails in it. It is cached under
   ``/tmp/lakeindex-executor-venv-<hash of the requirements and the Python version>``.
2. **A standalone cluster on 127.0.0.1**: a master and two workers (1 core, 2 GB each) started with
   ``spark-class`` from the pip-installed pyspark (``SPARK_HOME``), each worker with its own work directory;
   the script waits until the master's ``/json/`` reports 2 ALIVE workers and always stops every process
   (process groups) at the end.
3. **The README recipe**: ``lakeindex package --out DIR``, then ``spark-submit --master spark://…
   --conf spark.pyspark.python=<executor venv> --conf spark.pyspark.driver.python=<this Python> --py-files
   DIR/lakeindex-0.1.0.zip indexer_jobs/build_index.py LAKE --out OUT`` with ``LAKEINDEX_SHIP_CODE=0`` (so only
   ``--py-files`` ships the code). Then
   ``lakeindex index build LAKE --out OUT --master spark://…`` with ``PYSPARK_PYTHON=<executor venv>`` and no
   ``--py-files``: the library ships its own zip (``lakeindex.spark_session.ship_code``). And the failure the
   issue reports: the same spark-submit with the wheel (``pip wheel --no-deps``) instead of the zip, reported
   as ``failed`` (not fatal if it passes).
4. **Spark Connect**: a Connect server (``SparkConnectServer`` through spark-submit, ``local[2]``, driver memory
   4 GB as the local build's, its Python workers in the executor venv) and ``lakeindex index build LAKE --out OUT
   --remote sc://127.0.0.1:PORT``; the server is warmed by one untimed build first. Unless ``--no-connect-cluster``,
   also a Connect server whose master is the standalone cluster (executors in the executor venv): code shipped
   as a Spark Connect artifact.
5. **The oracle** is the local build ``lakeindex index build LAKE --out OUT`` (``local[*]``): every other index
   must hold the same keys and values (``IndexReader.items()``); key counts and ``identical`` are reported.

Every timed figure is the wall time of a fresh process (``spark-submit`` or ``lakeindex``; driver JVM start
included, and on the cluster the executors' JVM start too), median of ``--runs``; ``build_s`` is the build's
own ``build_seconds``. Starting the cluster and the Connect servers is not timed in the builds (reported apart).
Every build runs with ``--quiet``, in a scratch directory as working directory. Results: JSON on stdout,
progress on stderr.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import date
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

SAMPLE_LAKE = ROOT / "sample_lake" / "tables"
BUILD_JOB = ROOT / "indexer_jobs" / "build_index.py"
VENV_PREFIX = "lakeindex-executor-venv-"


def log(msg: str) -> None:
    print(f"[cluster_build {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def spark_home() -> Path:
    """The pip-installed pyspark's directory: bin/spark-submit, bin/spark-class, jars/, python/lib/."""
    import pyspark

    return Path(pyspark.__file__).resolve().parent


def base_env(**extra: str) -> dict[str, str]:
    """Environment of every Spark process here: SPARK_HOME set, loopback only, nothing inherited that could put
    lakeindex on an executor's path (PYTHONPATH) or choose its Python (PYSPARK_*), no Connect address."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "PYSPARK_PYTHON", "PYSPARK_DRIVER_PYTHON", "SPARK_REMOTE",
                        "LAKEINDEX_SHIP_CODE", "SPARK_CONF_DIR")}
    env["SPARK_HOME"] = str(spark_home())
    env["SPARK_LOCAL_IP"] = "127.0.0.1"
    env.update(extra)
    return env


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def port_open(port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(0.5)
        return s.connect_ex(("127.0.0.1", port)) == 0


def stop_group(proc: subprocess.Popen, grace: float = 15.0) -> None:
    """SIGTERM the process group ``proc`` leads (started with ``start_new_session``), SIGKILL after ``grace``."""
    if proc.poll() is not None:
        try:  # the leader is gone; children (executor JVMs) may remain in its group
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        return
    try:
        os.killpg(proc.pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    try:
        proc.wait(grace)
    except subprocess.TimeoutExpired:
        pass
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    proc.wait()


def tail(path: Path, chars: int = 3000) -> str:
    try:
        return path.read_text(errors="replace")[-chars:]
    except OSError:
        return ""


# ---------------------------------------------------------------- code to ship and the executors' Python

def package(out_dir: Path) -> dict:
    """``lakeindex package --out DIR``: the zip and executor-requirements.txt (its JSON)."""
    proc = subprocess.run([sys.executable, "-m", "lakeindex.cli", "package", "--out", str(out_dir)],
                          capture_output=True, text=True, check=False, cwd=out_dir.parent)
    if proc.returncode != 0:
        raise RuntimeError(f"lakeindex package failed ({proc.returncode}): {proc.stderr[-2000:]}")
    return json.loads(proc.stdout)


def build_wheel(out_dir: Path) -> Path:
    """``pip wheel --no-deps -w DIR .`` of a copy of the sources (an in-tree build would write build/ and
    *.egg-info into the checkout)."""
    src = out_dir / "wheel-src"
    shutil.rmtree(src, ignore_errors=True)
    src.mkdir(parents=True)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for name in ("lakeindex", "indexer_jobs", "query_service"):
        shutil.copytree(ROOT / name, src / name, ignore=ignore)
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, src / name)
    proc = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(out_dir), str(src)],
                          capture_output=True, text=True, check=False)
    wheels = sorted(out_dir.glob("lakeindex-*.whl"))
    if proc.returncode != 0 or not wheels:
        raise RuntimeError(f"pip wheel failed ({proc.returncode}): {proc.stderr[-2000:]}")
    return wheels[-1]


def venv_imports(python: Path, modules: list[str]) -> dict[str, str | None]:
    """Version of each module importable by ``python`` run as an executor would be (no PYTHONPATH, a working
    directory outside the repository), None when the import fails."""
    code = ("import importlib, json, sys\nout = {}\nfor m in sys.argv[1:]:\n"
            "    try:\n        mod = importlib.import_module(m)\n        out[m] = getattr(mod, '__version__', 'yes')\n"
            "    except ImportError:\n        out[m] = None\nprint(json.dumps(out))")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    with tempfile.TemporaryDirectory() as cwd:
        proc = subprocess.run([str(python), "-c", code, *modules], capture_output=True, text=True, check=True,
                              env=env, cwd=cwd)
    return json.loads(proc.stdout)


def executor_venv(requirements: Path, base: Path | None = None) -> tuple[Path, dict]:
    """A venv holding only ``requirements`` (``pip install -r``), cached by their hash and the Python version:
    (its python, facts). Asserts that it cannot import lakeindex."""
    text = requirements.read_text()
    key = hashlib.sha256(f"{text}\n{sys.version}\n{platform.machine()}".encode()).hexdigest()[:16]
    venv = (base or Path(tempfile.gettempdir())) / f"{VENV_PREFIX}{key}"
    python = venv / "bin" / "python"
    marker = venv / ".complete"
    created_s = None
    if not marker.exists():
        shutil.rmtree(venv, ignore_errors=True)
        log(f"creating executor venv {venv} ({', '.join(text.split())})")
        t = time.perf_counter()
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        proc = subprocess.run([str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check",
                               "-r", str(requirements)], capture_output=True, text=True, check=False)
        if proc.returncode != 0:
            raise RuntimeError(f"pip install -r {requirements} failed: {proc.stderr[-2000:]}")
        created_s = round(time.perf_counter() - t, 1)
        marker.write_text(text)
    imports = venv_imports(python, ["lakeindex", "pyspark", "pyarrow", "rocksdict", "numpy", "pandas"])
    assert imports["lakeindex"] is None, f"the executor venv {venv} can import lakeindex: it must not"
    assert imports["pyspark"] is None, f"the executor venv {venv} has pyspark: executors must take SPARK_HOME's"
    freeze = subprocess.run([str(python), "-m", "pip", "freeze", "--disable-pip-version-check"],
                            capture_output=True, text=True, check=True).stdout.split()
    return python, {"python": str(python), "requirements": text.split(), "created_s": created_s,
                    "reused": created_s is None, "imports": imports, "pip_freeze": freeze}


# ---------------------------------------------------------------- the standalone cluster

class StandaloneCluster:
    """A master and ``workers`` workers on 127.0.0.1, started with ``spark-class``; a context manager that
    always stops them (the workers' executor JVMs are in the workers' process groups)."""

    def __init__(self, root: Path, workers: int = 2, cores: int = 1, memory: str = "2g") -> None:
        self.root, self.workers, self.cores, self.memory = root, workers, cores, memory
        self.port, self.webui = free_port(), free_port()
        self.url = f"spark://127.0.0.1:{self.port}"
        self.procs: list[tuple[str, subprocess.Popen, Path]] = []
        self.start_s: float | None = None

    def _spawn(self, name: str, args: list[str], env: dict[str, str]) -> None:
        logf = self.root / "logs" / f"{name}.log"
        logf.parent.mkdir(parents=True, exist_ok=True)
        with open(logf, "wb") as fh:
            proc = subprocess.Popen([str(spark_home() / "bin" / "spark-class"), *args], stdout=fh,
                                    stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env, cwd=self.root,
                                    start_new_session=True)
        self.procs.append((name, proc, logf))

    def status(self) -> dict:
        with urllib.request.urlopen(f"http://127.0.0.1:{self.webui}/json/", timeout=5) as resp:
            return json.load(resp)

    def alive_workers(self) -> int:
        try:
            return sum(1 for w in self.status().get("workers", []) if w.get("state") == "ALIVE")
        except OSError:
            return 0

    def start(self, timeout: float = 120.0) -> StandaloneCluster:
        t = time.perf_counter()
        env = base_env()
        self._spawn("master", ["org.apache.spark.deploy.master.Master", "--host", "127.0.0.1",
                               "--port", str(self.port), "--webui-port", str(self.webui)], env)
        for k in range(self.workers):
            work = self.root / f"worker-{k}"
            work.mkdir(parents=True, exist_ok=True)
            self._spawn(f"worker-{k}", ["org.apache.spark.deploy.worker.Worker", self.url, "--host", "127.0.0.1",
                                        "--cores", str(self.cores), "--memory", self.memory,
                                        "--webui-port", str(free_port()), "--work-dir", str(work)],
                        {**env, "SPARK_WORKER_DIR": str(work)})
        while self.alive_workers() < self.workers:
            dead = [(n, p, f) for n, p, f in self.procs if p.poll() is not None]
            if dead or time.perf_counter() - t > timeout:
                name, _, logf = dead[0] if dead else self.procs[0]
                self.stop()
                raise RuntimeError(f"standalone cluster did not come up ({'exited: ' + name if dead else 'timeout'})"
                                   f"; {logf}:\n{tail(logf)}")
            time.sleep(0.5)
        self.start_s = round(time.perf_counter() - t, 2)
        log(f"cluster {self.url}: {self.workers} ALIVE workers in {self.start_s} s (web UI port {self.webui})")
        return self

    def stop(self) -> None:
        for _, proc, _ in reversed(self.procs):  # workers (and their executors) first, then the master
            stop_group(proc)
        self.procs.clear()

    def __enter__(self) -> StandaloneCluster:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


@contextmanager
def connect_server(root: Path, master: str, executor_python: Path, name: str,
                   timeout: float = 180.0) -> Iterator[str]:
    """A Spark Connect server (spark-submit of ``SparkConnectServer``) on a free loopback port, its Python
    workers running ``executor_python``; yields its ``sc://`` address and always stops it."""
    port = free_port()
    logf = root / "logs" / f"connect-{name}.log"
    logf.parent.mkdir(parents=True, exist_ok=True)
    cmd = [str(spark_home() / "bin" / "spark-submit"),
           "--class", "org.apache.spark.sql.connect.service.SparkConnectServer",
           "--name", f"lakeindex-bench-connect-{name}", "--master", master, "--driver-memory", "4g",
           "--conf", f"spark.connect.grpc.binding.port={port}",
           "--conf", "spark.connect.grpc.binding.address=127.0.0.1",
           "--conf", "spark.ui.enabled=false", "--conf", f"spark.pyspark.python={executor_python}"]
    env = base_env(PYSPARK_PYTHON=str(executor_python))
    t = time.perf_counter()
    with open(logf, "wb") as fh:
        proc = subprocess.Popen(cmd, stdout=fh, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env,
                                cwd=root, start_new_session=True)
    try:
        while not port_open(port):
            if proc.poll() is not None or time.perf_counter() - t > timeout:
                raise RuntimeError(f"Spark Connect server did not start; {logf}:\n{tail(logf)}")
            time.sleep(0.5)
        log(f"Connect server sc://127.0.0.1:{port} (master {master}) up in {time.perf_counter() - t:.1f} s")
        yield f"sc://127.0.0.1:{port}"
    finally:
        stop_group(proc)


# ---------------------------------------------------------------- builds

def last_json(text: str) -> dict | None:
    """The last JSON object in ``text`` that starts a line (spark-submit may mix the driver's stderr into it)."""
    dec = json.JSONDecoder()
    found = None
    pos = 0
    while True:
        i = text.find("{", pos)
        if i < 0:
            return found
        if i == 0 or text[i - 1] == "\n":
            try:
                obj, end = dec.raw_decode(text, i)
                if isinstance(obj, dict):
                    found = obj
                pos = end
                continue
            except json.JSONDecodeError:
                pass
        pos = i + 1


def run_build(cmd: list[str], env: dict[str, str], out: Path, cwd: Path, timeout: float = 1800.0) -> dict:
    """Run one build as a fresh process (own process group): wall seconds, exit code, the metadata JSON it
    printed, and the end of its stderr."""
    shutil.rmtree(out, ignore_errors=True)
    t = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, env=env,
                            cwd=cwd, text=True, start_new_session=True)
    try:
        stdout, stderr = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        stop_group(proc, grace=5)
        stdout, stderr = proc.communicate()
        stderr += f"\n[timeout after {timeout} s]"
    wall = time.perf_counter() - t
    return {"wall_s": round(wall, 2), "rc": proc.returncode,
            "meta": last_json(stdout) if proc.returncode == 0 else None,
            "stdout_tail": stdout[-1500:], "stderr": stderr}


def local_cmd(lake: Path, out: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "lakeindex.cli", "index", "build", str(lake), "--out", str(out), "--quiet", *extra]


def submit_cmd(master: str, executor_python: Path, py_file: Path | None, lake: Path, out: Path) -> list[str]:
    """The README recipe: spark-submit of indexer_jobs/build_index.py with the package as ``--py-files``."""
    cmd = [str(spark_home() / "bin" / "spark-submit"), "--master", master,
           "--conf", f"spark.pyspark.python={executor_python}",
           "--conf", f"spark.pyspark.driver.python={sys.executable}"]
    if py_file is not None:
        cmd += ["--py-files", str(py_file)]
    return [*cmd, str(BUILD_JOB), str(lake), "--out", str(out), "--quiet"]


def submit_env() -> dict[str, str]:
    """spark-submit with only ``--py-files`` shipping code (the library's own shipping off)."""
    return base_env(LAKEINDEX_SHIP_CODE="0")


def auto_ship_env(executor_python: Path) -> dict[str, str]:
    """``lakeindex index build --master spark://…``: executors run ``executor_python``, the library ships its zip."""
    return base_env(PYSPARK_PYTHON=str(executor_python), PYSPARK_DRIVER_PYTHON=sys.executable)


def index_items(path: Path) -> dict[bytes, bytes]:
    from lakeindex.index.store import IndexReader

    with IndexReader(path) as reader:
        return dict(reader.items())


def compare(reference: dict[bytes, bytes], path: Path) -> dict:
    """Key counts and whether the index at ``path`` equals ``reference`` key by key."""
    items = index_items(path)
    differing = sum(1 for k, v in items.items() if reference.get(k) != v)
    return {"keys": len(items), "reference_keys": len(reference), "identical": items == reference,
            "missing": len(reference.keys() - items.keys()), "extra": len(items.keys() - reference.keys()),
            "differing_values": differing - len(items.keys() - reference.keys())}


def failure_excerpt(stderr: str, lines: int = 6) -> list[str]:
    """The lines that say why a build failed (the executors' Python error first)."""
    keep = [ln.strip() for ln in stderr.splitlines()
            if any(s in ln for s in ("ModuleNotFoundError", "ImportError", "Error:", "error:", "Exception:"))]
    seen: list[str] = []
    for ln in keep:
        if ln[:200] not in seen:
            seen.append(ln[:200])
    return seen[:lines] or stderr.strip().splitlines()[-lines:]


def traceback_excerpt(text: str, before: int = 10) -> list[str]:
    """The ``before`` lines of the first Python traceback that ends in ``No module named``, and that line."""
    lines = text.splitlines()
    for i, ln in enumerate(lines):
        if "No module named" in ln:
            return [x.rstrip()[:300] for x in lines[max(0, i - before):i + 1]]
    return []


def timed(name: str, runs: int, cmd: list[str], env: dict[str, str], out: Path, cwd: Path,
          reference: dict[bytes, bytes] | None, warm: bool = False) -> dict:
    """``runs`` builds (after one untimed one when ``warm``): median wall and build seconds, and the last
    index compared with ``reference``."""
    if warm:
        log(f"{name}: warm-up build")
        first = run_build(cmd, env, out, cwd)
        if first["rc"] != 0:
            return {"command": cmd, "rc": first["rc"], "error": failure_excerpt(first["stderr"])}
    walls, builds = [], []
    for k in range(runs):
        r = run_build(cmd, env, out, cwd)
        log(f"{name}: run {k + 1}/{runs}: exit {r['rc']}, {r['wall_s']} s")
        if r["rc"] != 0 or not r["meta"]:
            return {"command": cmd, "rc": r["rc"], "error": failure_excerpt(r["stderr"]),
                    "stderr_tail": r["stderr"][-3000:], "stdout_tail": r["stdout_tail"]}
        walls.append(r["wall_s"])
        builds.append(r["meta"].get("build_seconds"))
    res = {"command": cmd, "rc": 0, "wall_s_median": round(statistics.median(walls), 2), "wall_s_runs": walls,
           "build_s_median": round(statistics.median(builds), 2) if None not in builds else None,
           "build_s_runs": builds, "warm_up_run": warm}
    if reference is not None:
        res["index"] = compare(reference, out)
    return res


def wheel_variant(master: str, executor_python: Path, wheel: Path, lake: Path, out: Path, cwd: Path) -> dict:
    """The recipe as the README gave it before issue 16: the wheel as ``--py-files``. Expected to fail."""
    r = run_build(submit_cmd(master, executor_python, wheel, lake, out), submit_env(), out, cwd, timeout=900)
    log(f"wheel variant: exit {r['rc']} in {r['wall_s']} s")
    return {"command": submit_cmd(master, executor_python, wheel, lake, out), "rc": r["rc"], "failed": r["rc"] != 0,
            "module_not_found_lakeindex": "No module named 'lakeindex'" in r["stderr"] + r["stdout_tail"],
            "wall_s": r["wall_s"], "error": failure_excerpt(r["stderr"] + "\n" + r["stdout_tail"]) if r["rc"] else [],
            "traceback": traceback_excerpt(r["stderr"] + "\n" + r["stdout_tail"])}


# ---------------------------------------------------------------- report

def machine() -> dict:
    import pyspark

    model = "unknown"
    try:
        model = next(ln.split(":", 1)[1].strip() for ln in Path("/proc/cpuinfo").read_text().splitlines()
                     if ln.startswith("model name"))
    except (OSError, StopIteration):
        pass
    java = subprocess.run(["java", "-version"], capture_output=True, text=True).stderr.splitlines()[0]
    mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    return {"cpu_count": os.cpu_count(), "cpu_model": model, "memory_gb": round(mem, 1),
            "python": platform.python_version(), "java": java, "pyspark": pyspark.__version__,
            "os": platform.platform(), "date": date.today().isoformat()}


def lake_facts(lake: Path) -> dict:
    files = [p for p in lake.rglob("*") if p.is_file()]
    return {"path": str(lake), "files": len(files), "bytes": sum(p.stat().st_size for p in files)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--lake", type=Path, default=SAMPLE_LAKE, help="lake directory (default sample_lake/tables)")
    ap.add_argument("--workdir", type=Path, default=None, help="scratch directory (default: a new temp dir)")
    ap.add_argument("--no-connect", action="store_true", help="skip Spark Connect")
    ap.add_argument("--no-connect-cluster", action="store_true", help="skip the Connect server on the cluster")
    args = ap.parse_args()
    lake = args.lake.resolve()
    work = Path(tempfile.mkdtemp(prefix="lakeindex-cluster-bench-", dir=args.workdir))
    log(f"scratch directory {work}")
    result: dict = {"machine": machine(), "lake": lake_facts(lake), "runs": args.runs,
                    "load_avg_start": os.getloadavg()}  # another process's load shows in every figure

    dist = work / "dist"
    pkg = package(dist)
    result["package"] = {k: pkg[k] for k in ("zip", "bytes", "files", "executors_need")}
    python, result["executor_venv"] = executor_venv(Path(pkg["executor_requirements"]))
    wheel = build_wheel(work / "wheel")
    result["wheel"] = {"path": str(wheel), "bytes": wheel.stat().st_size}

    log(f"local builds of {lake}")
    local_out = work / "index-local"
    result["local"] = timed("local", args.runs, local_cmd(lake, local_out), base_env(), local_out, work, None)
    if result["local"]["rc"] != 0:
        print(json.dumps(result, indent=2))
        return 1
    reference = index_items(local_out)
    result["local"]["index"] = {"keys": len(reference)}

    with StandaloneCluster(work / "cluster") as cluster:
        result["cluster"] = {"master": cluster.url, "workers": cluster.workers, "cores_per_worker": cluster.cores,
                             "memory_per_worker": cluster.memory, "start_s": cluster.start_s}
        out = work / "index-submit-zip"
        result["cluster_submit_zip"] = timed("spark-submit --py-files zip", args.runs,
                                             submit_cmd(cluster.url, python, Path(pkg["zip"]), lake, out),
                                             submit_env(), out, work, reference)
        out = work / "index-auto-ship"
        result["cluster_auto_ship"] = timed("lakeindex --master (automatic shipping)", args.runs,
                                            local_cmd(lake, out, "--master", cluster.url), auto_ship_env(python),
                                            out, work, reference)
        result["cluster_submit_wheel"] = wheel_variant(cluster.url, python, wheel, lake, work / "index-wheel", work)
        if not args.no_connect and not args.no_connect_cluster:
            with connect_server(work, cluster.url, python, "cluster") as remote:
                out = work / "index-connect-cluster"
                result["connect_cluster"] = timed("Connect on the cluster", args.runs,
                                                  local_cmd(lake, out, "--remote", remote), base_env(), out, work,
                                                  reference, warm=True)
    if not args.no_connect:
        with connect_server(work, "local[2]", python, "local") as remote:
            out = work / "index-connect-local"
            result["connect_local"] = timed("Connect local[2]", args.runs, local_cmd(lake, out, "--remote", remote),
                                            base_env(), out, work, reference, warm=True)
            if result["connect_local"]["rc"] == 0:
                result["connect_cost_s"] = round(result["connect_local"]["wall_s_median"]
                                                 - result["local"]["wall_s_median"], 2)
    result["load_avg_end"] = os.getloadavg()
    print(json.dumps(result, indent=2))
    ok = all(result.get(k, {}).get("index", {}).get("identical", True) and result.get(k, {}).get("rc", 0) == 0
             for k in ("cluster_submit_zip", "cluster_auto_ship", "connect_cluster", "connect_local"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
