"""The warm engine: a local Spark Connect server kept running in the background, so a command on a small
file skips the JVM start that otherwise costs it 20-30 s.

``lakeindex engine start`` launches pyspark's own ``spark-submit`` with the Connect server class (not
``sbin/start-connect-server.sh``: that daemon script puts its pid file in ``/tmp`` and its log in the
pyspark install, and forks once more, so the pid it records is not ours to wait on). The server runs in a
session of its own (``start_new_session``), bound to 127.0.0.1 only, its Python workers running this
interpreter with this installation's code on their path. Its state lives in :func:`engine_dir`
(``$LAKEINDEX_HOME/engine``, default ``~/.lakeindex/engine``): ``engine.json``, the pid file (pid, port,
the process's start time, the code's digest), published only once the server answers, and ``engine.log``.

Commands reach it through :func:`route_command`: when no master or Connect address is given, an engine
that runs and answers is used (said once on stderr); a stale pid file or a silent port gives one line and
local Spark as before. ``LAKEINDEX_ENGINE=off`` opts out.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from lakeindex.atomic_publish import write_atomically

HOME_ENV = "LAKEINDEX_HOME"
OPT_OUT_ENV = "LAKEINDEX_ENGINE"  # off, 0, no or false: commands never use the engine
OFF_VALUES = ("off", "0", "no", "false")
DEFAULT_PORT = 15002
SERVER_CLASS = "org.apache.spark.sql.connect.service.SparkConnectServer"
START_SECONDS = 180.0  # a JVM start on a loaded machine
STOP_SECONDS = 30.0
PROBE_SECONDS = 1.0
LOG_TAIL_CHARS = 2000


class EngineError(ValueError):
    """The engine cannot be started or stopped as asked (a port in use, a server that dies at start)."""


def engine_dir() -> Path:
    """Where the engine keeps its pid file and log: ``$LAKEINDEX_HOME/engine`` (default ``~/.lakeindex/engine``)."""
    return Path(os.environ.get(HOME_ENV) or Path.home() / ".lakeindex") / "engine"


@dataclass
class EngineState:
    """What ``engine.json`` records about a running server."""

    pid: int
    port: int
    started: float  # seconds since the epoch
    create_time: float  # the process's start time as the OS reports it: a reused pid has another
    log: str
    python: str
    code_digest: str

    @property
    def address(self) -> str:
        return f"sc://127.0.0.1:{self.port}"


def _state_file(home: Path) -> Path:
    return home / "engine.json"


def read_state(home: Path) -> EngineState | str | None:
    """The recorded state, None when there is no pid file, or the reason an unreadable one is stale."""
    path = _state_file(home)
    try:
        return EngineState(**json.loads(path.read_text(encoding="utf-8")))
    except FileNotFoundError:
        return None
    except (OSError, ValueError, TypeError) as exc:
        return f"unreadable pid file {path} ({exc})"


def _alive(state: EngineState) -> bool:
    """Whether the recorded process still runs (not a zombie, not another process that reused the pid)."""
    import psutil

    with contextlib.suppress(ChildProcessError, OSError):
        os.waitpid(state.pid, os.WNOHANG)  # reap it if it was this process's child
    try:
        proc = psutil.Process(state.pid)
        return proc.status() != psutil.STATUS_ZOMBIE and abs(proc.create_time() - state.create_time) < 1.0
    except psutil.Error:
        return False


def _answers(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=PROBE_SECONDS).close()
        return True
    except OSError:
        return False


def _problem(state: EngineState | str | None, home: Path) -> str | None:
    """Why the recorded engine cannot be used (None: it runs and answers)."""
    if state is None:
        return "not started"
    if isinstance(state, str):
        return state
    if not _alive(state):
        return f"pid {state.pid} has exited (stale pid file {_state_file(home)})"
    if not _answers(state.port):
        return f"pid {state.pid} does not answer at {state.address}"
    return None


def status(home: Path | None = None) -> dict[str, Any]:
    """``lakeindex engine status``: whether it runs, and where (pid, address, uptime, log)."""
    home = home or engine_dir()
    state = read_state(home)
    problem = _problem(state, home)
    out: dict[str, Any] = {"running": problem is None, "home": str(home), "log": str(home / "engine.log")}
    if isinstance(state, EngineState):
        out.update(pid=state.pid, address=state.address, python=state.python)
        if problem is None:
            out["uptime_seconds"] = round(time.time() - state.started, 1)
    if problem is not None:
        out["reason"] = problem
    return out


@contextlib.contextmanager
def _locked(home: Path) -> Iterator[None]:
    """One start or stop at a time per engine home."""
    home.mkdir(parents=True, exist_ok=True)
    with open(home / "engine.lock", "w") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        yield


def _port_free(port: int) -> bool:
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
            return True
        except OSError:
            return False


def server_command(port: int, settings: dict[str, str]) -> tuple[list[str], dict[str, str]]:
    """The ``spark-submit`` command line and environment of the Connect server (pyspark's own Spark)."""
    import pyspark

    from lakeindex.executor_code import code_root
    from lakeindex.spark_defaults import DEFAULT_DRIVER_MEMORY, SQL_CONF, STATIC_CONF

    spark_home = os.path.dirname(pyspark.__file__)
    conf = {
        "spark.master": "local[*]",
        "spark.driver.memory": os.environ.get("LAKEINDEX_DRIVER_MEMORY", DEFAULT_DRIVER_MEMORY),
        "spark.ui.enabled": "false",
        "spark.ui.showConsoleProgress": "false",
        "spark.log.level": "WARN",  # the server logs every request at INFO: the log would grow without end
        "spark.sql.shuffle.partitions": str(2 * (os.cpu_count() or 2)),
        **SQL_CONF,
        **STATIC_CONF,
        "spark.pyspark.python": sys.executable,  # the workers run this interpreter, the one lakeindex is in
        **settings,
        # loopback only: the server runs whatever plan a client sends
        "spark.connect.grpc.binding.address": "127.0.0.1",
        "spark.connect.grpc.binding.port": str(port),
    }
    cmd = [os.path.join(spark_home, "bin", "spark-submit"), "--class", SERVER_CLASS]
    for key, value in conf.items():
        cmd += ["--conf", f"{key}={value}"]
    env = {**os.environ, "SPARK_HOME": spark_home, "SPARK_LOCAL_IP": "127.0.0.1", "PYSPARK_PYTHON": sys.executable,
           # Python workers import this installation's lakeindex without a shipped zip
           "PYTHONPATH": os.pathsep.join(p for p in (str(code_root()), os.environ.get("PYTHONPATH", "")) if p)}
    env.pop("SPARK_REMOTE", None)
    env.pop("PYSPARK_GATEWAY_PORT", None)
    return cmd, env


def _log_tail(log: Path) -> str:
    try:
        return log.read_text(encoding="utf-8", errors="replace")[-LOG_TAIL_CHARS:]
    except OSError:
        return ""


def start(port: int = DEFAULT_PORT, settings: dict[str, str] | None = None, home: Path | None = None,
          timeout: float = START_SECONDS,
          warm_up: Callable[[str, Path], None] | None = None) -> dict[str, Any]:
    """Start the engine (or report the one already running) and return its status once it answers; ``warm_up``
    (address, home) runs once against it first (the CLI's runs a small profile)."""
    import psutil

    from lakeindex.executor_code import code_digest
    from lakeindex.spark_defaults import require_java

    home = home or engine_dir()
    with _locked(home):
        state = read_state(home)
        problem = _problem(state, home)
        if problem is None:
            return {**status(home), "already_running": True}
        if isinstance(state, EngineState) and _alive(state):
            raise EngineError(f"the engine process {state.pid} runs but {problem}: see {state.log}, or "
                              "`lakeindex engine stop` it first")
        _state_file(home).unlink(missing_ok=True)  # stale
        if not _port_free(port):
            raise EngineError(f"port {port} on 127.0.0.1 is in use: give another with --port")
        require_java()
        cmd, env = server_command(port, settings or {})
        log = home / "engine.log"
        with open(log, "wb") as out:
            proc = subprocess.Popen(cmd, cwd=home, env=env, stdin=subprocess.DEVNULL, stdout=out,
                                    stderr=subprocess.STDOUT, start_new_session=True)
        try:
            _wait_until_answering(proc, port, log, timeout)
            if warm_up is not None:
                warm_up(f"sc://127.0.0.1:{port}", home)
            created = psutil.Process(proc.pid).create_time()
            new = EngineState(pid=proc.pid, port=port, started=time.time(), create_time=created, log=str(log),
                              python=sys.executable, code_digest=code_digest())
            write_atomically(_state_file(home), json.dumps(asdict(new), indent=2), fsync=False)
        except BaseException:
            _terminate(proc.pid, STOP_SECONDS)
            raise
    return {**status(home), "already_running": False}


def _wait_until_answering(proc: subprocess.Popen[bytes], port: int, log: Path, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while not _answers(port):
        if proc.poll() is not None:
            raise EngineError(f"the Spark Connect server exited at start (code {proc.returncode}); its log "
                              f"{log} ends:\n{_log_tail(log)}")
        if time.monotonic() > deadline:
            raise EngineError(f"the Spark Connect server did not answer on port {port} within {timeout:.0f} s; "
                              f"see {log}")
        time.sleep(0.25)


def _terminate(pid: int, timeout: float) -> bool:
    """SIGTERM the server's process group (the JVM and its Python workers), SIGKILL what outlives
    ``timeout``; True when it had to kill."""
    import psutil

    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGTERM)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with contextlib.suppress(ChildProcessError, OSError):
            os.waitpid(pid, os.WNOHANG)
        try:
            if psutil.Process(pid).status() == psutil.STATUS_ZOMBIE:
                return False
        except psutil.Error:
            return False
        time.sleep(0.2)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)
    return True


def stop(home: Path | None = None, timeout: float = STOP_SECONDS) -> dict[str, Any]:
    """Stop the engine and wait for it to exit; remove its pid file (also a stale one)."""
    home = home or engine_dir()
    with _locked(home):
        state = read_state(home)
        if state is None:
            return {"stopped": False, "reason": "not running", "home": str(home)}
        if isinstance(state, str) or not _alive(state):
            _state_file(home).unlink(missing_ok=True)
            reason = state if isinstance(state, str) else f"pid {state.pid} had already exited"
            return {"stopped": False, "reason": f"{reason}; stale pid file removed", "home": str(home)}
        began = time.monotonic()
        killed = _terminate(state.pid, timeout)
        _state_file(home).unlink(missing_ok=True)
        return {"stopped": True, "pid": state.pid, "killed": killed, "seconds": round(time.monotonic() - began, 1),
                "home": str(home)}


@dataclass
class Route:
    """A command's way to the engine: its address, and whether this code must be shipped to it."""

    address: str
    ship_code: bool


def route_command(settings: dict[str, str], say: Callable[[str], None], quiet: bool = False) -> Route | None:
    """The engine a command with no ``--master``/``--remote`` should use, or None for local Spark as before.

    ``say`` gets one line: which engine is used (not when ``quiet``), or why a recorded one is not.
    Settings other than ``spark.sql.*`` belong to a server's start, so a command giving them runs on local Spark.
    """
    if os.environ.get(OPT_OUT_ENV, "").strip().lower() in OFF_VALUES or "PYSPARK_GATEWAY_PORT" in os.environ:
        return None
    if "pyspark" in sys.modules:
        from pyspark import SparkContext

        if SparkContext._active_spark_context is not None:  # this process already runs classic Spark
            return None
    home = engine_dir()
    state = read_state(home)
    if state is None:
        return None
    problem = _problem(state, home)
    if problem is not None:
        say(f"lakeindex engine not used: {problem}; starting local Spark")
        return None
    assert isinstance(state, EngineState)
    static = sorted(k for k in settings if not k.startswith("spark.sql."))
    if static:
        say(f"lakeindex engine not used: {', '.join(static)} can only be set where a server starts; "
            "starting local Spark")
        return None
    from lakeindex.executor_code import code_digest

    if not quiet:
        say(f"using the lakeindex engine at {state.address}")
    return Route(state.address, ship_code=state.code_digest != code_digest())

