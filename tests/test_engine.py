"""The warm engine (``lakeindex engine start|stop|status``) and how commands find it (issue 43).

One engine is started for the module (a Connect server costs a JVM start), with ``lakeindex engine start``
in a temporary ``LAKEINDEX_HOME`` on a free port, and stopped by the last test of its lifecycle. Commands
run as ``python -m lakeindex`` processes: a Connect client cannot share the test process with the suite's
classic session. Oracles: the same command on the suite's classic session, the OS's view of the process,
and values read from the CSV by hand.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

from lakeindex.cli import main
from tests.conftest import write_csv

REPO = Path(__file__).resolve().parents[1]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _run(args: list[str], home: Path, cwd: Path | None = None, env: dict[str, str] | None = None,
         timeout: float = 600) -> subprocess.CompletedProcess:
    """``python -m lakeindex ARGS`` with ``home`` as LAKEINDEX_HOME and the engine not opted out."""
    full = {k: v for k, v in os.environ.items() if k not in ("SPARK_REMOTE", "LAKEINDEX_ENGINE")}
    full.update({"PYTHONPATH": str(REPO), "LAKEINDEX_HOME": str(home), **(env or {})})
    return subprocess.run([sys.executable, "-m", "lakeindex", *args], cwd=cwd, env=full, capture_output=True,
                          text=True, timeout=timeout)


@pytest.fixture(scope="module")
def engine(tmp_path_factory):
    """A started engine: its home, port and ``engine start`` output; stopped at the end whatever happens."""
    pytest.importorskip("grpc", reason="the Spark Connect client needs pip install 'lakeindex[connect]'")
    home = tmp_path_factory.mktemp("engine-home")
    port = _free_port()
    got = _run(["engine", "start", "--port", str(port), "--no-warmup"], home)
    assert got.returncode == 0, got.stderr[-3000:]
    try:
        yield home, port, json.loads(got.stdout)
    finally:
        _run(["engine", "stop"], home)


def test_engine_start_status_and_a_second_start(engine):
    home, port, started = engine
    assert started["running"] is True and started["already_running"] is False
    assert started["address"] == f"sc://127.0.0.1:{port}"
    proc = psutil.Process(started["pid"])
    assert "SparkConnectServer" in " ".join(proc.cmdline())
    # listening on the port on loopback only (IPv4, or IPv4 mapped into an IPv6 socket)
    on_port = {c.laddr.ip for c in proc.net_connections(kind="tcp") if c.status == psutil.CONN_LISTEN
               and c.laddr.port == port}
    assert on_port and on_port <= {"127.0.0.1", "::ffff:127.0.0.1"}
    status = json.loads(_run(["engine", "status"], home).stdout)
    assert status["running"] is True and status["pid"] == started["pid"] and status["uptime_seconds"] >= 0
    assert Path(status["log"]).parent == home / "engine" and Path(status["log"]).is_file()
    again = _run(["engine", "start", "--port", str(port)], home)
    assert again.returncode == 0, again.stderr[-2000:]
    assert json.loads(again.stdout)["already_running"] is True and json.loads(again.stdout)["pid"] == started["pid"]


def test_a_command_through_the_engine_prints_what_local_spark_prints(engine, spark, tmp_path, monkeypatch, capsys):
    home, port, _ = engine
    rows = [[str(i), "" if i % 5 == 0 else f"u{i}@example.com", ["red", "green", "blue"][i % 3]] for i in range(60)]
    data = write_csv(tmp_path / "users.csv", ["id", "email", "colour"], rows)
    via_engine = _run(["profile", str(data)], home)
    assert via_engine.returncode == 0, via_engine.stderr[-3000:]
    said = [line for line in via_engine.stderr.splitlines() if "lakeindex engine" in line]
    assert said == [f"using the lakeindex engine at sc://127.0.0.1:{port}"]
    # the same command on the suite's classic session in this process
    monkeypatch.setenv("LAKEINDEX_HOME", str(home))
    assert main(["profile", str(data), "--quiet"]) == 0
    assert json.loads(via_engine.stdout) == json.loads(capsys.readouterr().out)


def test_engine_stop_waits_for_exit_and_removes_the_pid_file(engine):
    home, _, started = engine
    got = _run(["engine", "stop"], home)
    assert got.returncode == 0, got.stderr[-2000:]
    out = json.loads(got.stdout)
    assert out["stopped"] is True and out["pid"] == started["pid"]
    assert not psutil.pid_exists(started["pid"]) or psutil.Process(started["pid"]).status() == psutil.STATUS_ZOMBIE
    assert not (home / "engine" / "engine.json").exists()
    status = json.loads(_run(["engine", "status"], home).stdout)
    assert status["running"] is False and status["reason"] == "not started"


def _pid_file(home: Path, pid: int, create_time: float, port: int) -> None:
    (home / "engine").mkdir(parents=True, exist_ok=True)
    (home / "engine" / "engine.json").write_text(json.dumps({
        "pid": pid, "port": port, "started": time.time(), "create_time": create_time,
        "log": str(home / "engine" / "engine.log"), "python": sys.executable, "code_digest": "x"}))


ROUTE = ("import json\nfrom lakeindex.engine import route_command\nlines = []\n"
         "route = route_command({}, lines.append)\nprint(json.dumps({'route': route is not None, 'lines': lines}))")


def _route(home: Path, opt_out: str = "") -> dict:
    """Whether a command would use the engine recorded in ``home``, and the lines it would say."""
    env = {**os.environ, "PYTHONPATH": str(REPO), "LAKEINDEX_HOME": str(home), "LAKEINDEX_ENGINE": opt_out}
    got = subprocess.run([sys.executable, "-c", ROUTE], env=env, capture_output=True, text=True, timeout=120)
    assert got.returncode == 0, got.stderr
    return json.loads(got.stdout)


def test_a_stale_pid_file_falls_back_to_local_spark_and_stop_removes_it(tmp_path):
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    _pid_file(tmp_path, gone.pid, time.time(), _free_port())
    status = json.loads(_run(["engine", "status"], tmp_path).stdout)
    assert status["running"] is False and "stale pid file" in status["reason"]
    got = _route(tmp_path)
    assert got["route"] is False and len(got["lines"]) == 1
    assert got["lines"][0].startswith(f"lakeindex engine not used: pid {gone.pid} has exited (stale pid file ")
    assert got["lines"][0].endswith("; starting local Spark")
    stopped = json.loads(_run(["engine", "stop"], tmp_path).stdout)
    assert stopped["stopped"] is False and "stale pid file removed" in stopped["reason"]
    assert not (tmp_path / "engine" / "engine.json").exists()


def test_a_live_pid_whose_port_does_not_answer_falls_back_and_the_opt_out_is_silent(tmp_path):
    other = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        port = _free_port()
        _pid_file(tmp_path, other.pid, psutil.Process(other.pid).create_time(), port)
        got = _route(tmp_path)
        assert got == {"route": False, "lines": [f"lakeindex engine not used: pid {other.pid} does not answer at "
                                                 f"sc://127.0.0.1:{port}; starting local Spark"]}
        assert _route(tmp_path, opt_out="off") == {"route": False, "lines": []}
        # the same pid number in a pid file of another process's start time is not that engine
        _pid_file(tmp_path, other.pid, psutil.Process(other.pid).create_time() - 3600, port)
        assert "has exited" in _route(tmp_path)["lines"][0]
    finally:
        other.kill()
        other.wait()
