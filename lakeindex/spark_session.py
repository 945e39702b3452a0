"""SparkSession construction shared by the CLI, jobs and tests, and what the library asks of a session.

Under ``spark-submit`` the session takes the master and resources from the submit command; when a
command runs on a laptop it defaults to ``local[*]``. With ``remote`` (``--remote sc://host:15002``) or
``SPARK_REMOTE`` set, it is a Spark Connect client session instead: no JVM on this machine (so no Java
needed), and only session-level SQL settings are sent (static ones such as the UI belong to the server).
A session on a cluster or a Connect server gets this installation's code shipped to its executors
(:func:`ship_code`, the zip from :mod:`lakeindex.executor_code`). The UI is off unless asked for.

The library never reaches for ``sparkContext`` without asking :func:`is_connect` first: :func:`master_name`
and :func:`parallelism` answer for both kinds of session.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from collections.abc import MutableMapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lakeindex.executor_code import cached_zip
from lakeindex.spark_defaults import (  # noqa: F401 - SparkUnavailable and JAVA_ADVICE are re-exported
    DEFAULT_DRIVER_MEMORY,
    JAVA_ADVICE,
    SQL_CONF,
    STATIC_CONF,
    SparkUnavailable,
    require_java,
)

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

def local_python(env: MutableMapping[str, str]) -> None:
    """Default ``PYSPARK_PYTHON`` (and the driver's) to the running interpreter; an explicit setting wins."""
    env.setdefault("PYSPARK_PYTHON", sys.executable)
    env.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)


class SessionError(ValueError):
    """Contradictory session options (e.g. both a master and a Spark Connect address)."""


def get_spark(master: str | None = None, app_name: str = "lakeindex", ui: bool = False,
              extra: dict[str, str] | None = None, remote: str | None = None, ship: bool = True,
              quiet: bool = False) -> SparkSession:
    """Return the active session or start one: a Spark Connect session when ``remote`` or ``SPARK_REMOTE``
    names a server, else classic (local[*] unless ``master`` or spark-submit says). ``ship=False``: the
    Connect server already runs this code (the lakeindex engine started from it). ``quiet``: a JVM this
    process starts does not print Java's incubator-module notice (:mod:`lakeindex.jvm_notice_filter`)."""
    from pyspark.sql import SparkSession

    for name in ("SQLQueryContextLogger", "DataFrameQueryContextLogger"):
        # PySpark logs every analysis error with its JVM stack; we report errors ourselves, briefly
        logging.getLogger(name).setLevel(logging.CRITICAL)
    remote = remote or os.environ.get("SPARK_REMOTE") or None
    if remote and master:
        raise SessionError(f"--master {master} and a Spark Connect address ({remote}) cannot be combined: a Connect "
                           "server has its own master; drop --master (or unset SPARK_REMOTE)")
    if remote:  # the Connect client keeps its own sessions: a classic one active in this process is not it
        return _connect(remote, app_name, extra, ship)
    active = SparkSession.getActiveSession()
    if active is not None:
        return active
    require_java()
    builder = SparkSession.builder.appName(app_name)
    # under spark-submit the JVM starts Python and hands it a gateway port: keep its master
    submitted = "PYSPARK_GATEWAY_PORT" in os.environ
    if (master or "local").startswith("local") and not submitted:
        os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")  # local runs stay on loopback
        # local Python workers run this interpreter, the one lakeindex is installed in (a venv's
        # `bin/lakeindex` started by cron or Airflow without the venv on PATH would otherwise give the
        # workers whatever `python3` PATH finds). On a cluster, set PYSPARK_PYTHON to the executors' Python.
        local_python(os.environ)
    if master:
        builder = builder.master(master)
    elif not submitted:
        builder = builder.master("local[*]")
    conf = {
        "spark.ui.enabled": "true" if ui else "false",
        "spark.ui.showConsoleProgress": "false",
        **SQL_CONF,
        **STATIC_CONF,
        "spark.driver.memory": os.environ.get("LAKEINDEX_DRIVER_MEMORY", DEFAULT_DRIVER_MEMORY),
        "spark.sql.shuffle.partitions": str(2 * (os.cpu_count() or 2)),
    }
    conf.update(extra or {})
    if not submitted:  # this process starts the driver's JVM: it logs as the packaged file says
        options = with_log_config(conf.get("spark.driver.extraJavaOptions", ""))
        local = (master or "local").startswith("local")
        conf["spark.driver.extraJavaOptions"] = with_quick_jit(options) if local else options
    for k, v in conf.items():
        builder = builder.config(k, v)
    try:
        if quiet and not submitted:
            from pyspark import SparkContext

            from lakeindex.jvm_notice_filter import start_context_without_notice

            if SparkContext._gateway is None:  # no JVM in this process yet (pyspark reuses a stopped one's)
                start_context_without_notice({"spark.master": master or "local[*]", "spark.app.name": app_name,
                                              **conf})
        spark = builder.getOrCreate()
    except Exception as exc:
        if "JAVA_GATEWAY_EXITED" in str(exc) or "Java gateway" in str(exc):
            raise SparkUnavailable(f"Spark could not start its JVM ({exc}). " + JAVA_ADVICE) from exc
        raise
    spark.sparkContext.setLogLevel(os.environ.get("LAKEINDEX_SPARK_LOG_LEVEL", "ERROR"))
    ship_code(spark)
    return spark


LOG_CONFIG = Path(__file__).with_name("spark_log4j2.properties")


def with_log_config(java_options: str) -> str:
    """Driver JVM options with the packaged log4j2 file, unless the options already name a log4j2 file."""
    if "-Dlog4j2.configurationFile=" in java_options or "-Dlog4j.configurationFile=" in java_options:
        return java_options
    return f"{java_options} -Dlog4j2.configurationFile={LOG_CONFIG.as_uri()}".strip()


# JIT options a user's own choice of compiler tiers would contradict
_JIT_CHOICES = ("TieredStopAtLevel", "TieredCompilation")


def with_quick_jit(java_options: str) -> str:
    """Driver JVM options with JIT compilation stopped at C1, unless they already choose the tiers.

    A local command's JVM lives for one job: measured on an index build of 2.5 M cells, C2 compiler
    threads took half of the JVM's CPU (19 of 39 s) on two cores shared with the Python workers; with
    C1 alone the JVM took 25 s (BENCHMARKS.md, "Index build"). The warm engine, which lives long, keeps C2.
    """
    if any(choice in java_options for choice in _JIT_CHOICES):
        return java_options
    return f"{java_options} -XX:TieredStopAtLevel=1".strip()


def _connect(remote: str, app_name: str, extra: dict[str, str] | None, ship: bool = True) -> SparkSession:
    """A Spark Connect session to ``remote`` with the library's SQL settings and its code shipped (unless
    ``ship`` is False)."""
    try:
        _import_connect_client()
    except ImportError as exc:
        raise SparkUnavailable(f"Spark Connect needs its client packages ({exc}): pip install 'lakeindex[connect]'") \
            from exc
    from pyspark import SparkContext
    from pyspark.sql import SparkSession

    static = sorted(k for k in extra or {} if not k.startswith("spark.sql."))
    if static:  # a Connect client can only change session SQL settings: dropping the rest would hide them
        raise SessionError(f"{', '.join(static)}: a Spark Connect client can set only spark.sql.* settings; set "
                           "the others where the server starts (start-connect-server.sh --conf KEY=VALUE)")
    _reachable(remote)
    if SparkContext._active_spark_context is not None:
        # pyspark switches its functions module to Connect process-wide: the two kinds cannot share a process
        raise SessionError(f"a classic Spark session already runs in this process; a Spark Connect session "
                           f"({remote}) needs a process of its own")
    builder = SparkSession.builder.remote(remote).appName(app_name)
    for k, v in {**SQL_CONF, **(extra or {})}.items():  # sent in one request once the session is made
        builder = builder.config(k, v)
    try:
        spark = builder.getOrCreate()
    except Exception as exc:  # noqa: BLE001 - gRPC reports an unreachable server in many ways
        raise SparkUnavailable(f"cannot reach the Spark Connect server at {remote}: "
                               f"{(str(exc).strip().splitlines() or [type(exc).__name__])[0]}. Is it started "
                               "(sbin/start-connect-server.sh) and is the address sc://HOST:PORT?") from exc
    if ship:
        ship_code(spark)
    return spark


def _import_connect_client() -> None:
    """Import pyspark's Connect client (it needs grpcio) without IPython: its progress bar imports IPython
    only to size a terminal, which costs a command 0.2-0.4 s (the bar is off). A process that already
    imported IPython keeps it; afterwards ``import IPython`` works as before."""
    blocked = "IPython" not in sys.modules
    if blocked:
        sys.modules["IPython"] = None  # type: ignore[assignment] - makes `import IPython` raise ImportError
    try:
        import pyspark.sql.connect.session  # noqa: F401
    finally:
        if blocked and sys.modules.get("IPython", 0) is None:
            del sys.modules["IPython"]


CONNECT_DEFAULT_PORT = 15002
CONNECT_PROBE_SECONDS = 10.0


def _reachable(remote: str) -> None:
    """Fail fast when nothing listens at a Connect address: the client's own retries take minutes, then
    retry again at exit."""
    import socket
    from urllib.parse import urlparse

    parsed = urlparse(remote.split(";", 1)[0])
    if parsed.scheme != "sc" or not parsed.hostname:
        raise SessionError(f"Spark Connect address {remote!r} is not of the form sc://HOST[:PORT]")
    port = parsed.port or CONNECT_DEFAULT_PORT
    try:
        socket.create_connection((parsed.hostname, port), timeout=CONNECT_PROBE_SECONDS).close()
    except OSError as exc:
        raise SparkUnavailable(f"cannot reach the Spark Connect server at {remote} ({parsed.hostname}:{port}: "
                               f"{exc.strerror or exc}). Is it started (sbin/start-connect-server.sh) and is the "
                               "address sc://HOST:PORT?") from exc


def is_connect(spark: SparkSession) -> bool:
    """Whether ``spark`` is a Spark Connect client session (no SparkContext, no JVM here)."""
    return type(spark).__module__.startswith("pyspark.sql.connect")


def master_name(spark: SparkSession) -> str:
    """The session's master (``local[2]``, ``spark://…``, ``yarn``); a Connect session asks its server."""
    if is_connect(spark):
        return spark.conf.get("spark.master", None) or "unknown"
    return spark.sparkContext.master


def parallelism(spark: SparkSession) -> int:
    """How many tasks the session runs at once: the SparkContext's default parallelism, or on Spark Connect
    (no SparkContext) ``spark.default.parallelism``, else the cores of ``local[N]``, else executors × cores, else 8."""
    if not is_connect(spark):
        return spark.sparkContext.defaultParallelism
    conf = spark.conf
    if conf.get("spark.default.parallelism", None):
        return int(conf.get("spark.default.parallelism"))
    master = conf.get("spark.master", None) or ""
    if master.startswith("local"):
        inside = master[master.find("[") + 1:master.find("]")] if "[" in master else "1"
        inside = inside.split(",")[0]
        return (os.cpu_count() or 2) if inside == "*" else max(1, int(inside))
    instances, cores = conf.get("spark.executor.instances", None), conf.get("spark.executor.cores", None)
    if instances and cores:
        return int(instances) * int(cores)
    return 8


def add_session_arguments(p: argparse.ArgumentParser) -> None:
    """``--master``, ``--remote``, ``--conf`` and ``--properties-file``: where and how a command's Spark work runs
    (the same options for every command and job, named as spark-submit names them)."""
    p.add_argument("--master", default=None,
                   help="Spark master, e.g. spark://host:7077 (default: spark-submit's, else local[*])")
    p.add_argument("--remote", default=None,
                   help="Spark Connect server, e.g. sc://host:15002 (default: $SPARK_REMOTE; needs "
                        "pip install 'lakeindex[connect]')")
    p.add_argument("--conf", action="append", default=[], metavar="KEY=VALUE",
                   help="a Spark setting, e.g. spark.driver.memory=8g (repeatable; wins over --properties-file)")
    p.add_argument("--properties-file", default=None, metavar="FILE",
                   help="Spark settings in spark-defaults.conf form: one 'key value' (or key=value) per line, "
                        "# comments")


# the arguments of commands that name existing inputs: checked before Spark starts (a JVM start costs seconds)
INPUT_ARGUMENTS = {"data": "data", "lake": "lake", "index": "index", "checks": "checks file"}


def session_from_args(args: argparse.Namespace, app_name: str = "lakeindex") -> SparkSession:
    """The session :func:`add_session_arguments` options name, once the command's local inputs exist."""
    from lakeindex.local_paths import URI

    for name, what in INPUT_ARGUMENTS.items():
        value = getattr(args, name, None)
        if isinstance(value, str) and value and not URI.match(value) and not os.path.exists(value):
            raise FileNotFoundError(f"{what} {value}: no such file or directory")
    settings = spark_settings(getattr(args, "conf", None) or [], getattr(args, "properties_file", None))
    master, remote, ship = getattr(args, "master", None), getattr(args, "remote", None), True
    if master is None and remote is None and not os.environ.get("SPARK_REMOTE"):
        from lakeindex.engine import route_command

        quiet = getattr(args, "quiet", False)
        route = route_command(settings, lambda line: print(line, file=sys.stderr, flush=True), quiet)
        if route is not None:
            remote, ship = route.address, route.ship_code
    return get_spark(master, app_name, extra=settings or None, remote=remote, ship=ship,
                     quiet=getattr(args, "quiet", False))


def spark_settings(conf: list[str], properties_file: str | None = None) -> dict[str, str]:
    """Spark settings from a spark-defaults.conf-style file, then ``KEY=VALUE`` pairs (later ones win).
    Keys must start with ``spark.``: Spark ignores others with a warning, which would hide a typo."""
    import re

    pairs: list[tuple[str, str, str]] = []
    if properties_file:
        try:
            lines = open(properties_file, encoding="utf-8").read().splitlines()  # noqa: SIM115
        except OSError as exc:
            raise SessionError(f"--properties-file {properties_file}: {exc.strerror or exc}") from exc
        for n, line in enumerate(lines, 1):
            text = line.strip()
            if not text or text.startswith(("#", "!")):
                continue
            m = re.match(r"^([^\s=:]+)\s*(?:[=:]|\s)\s*(.*)$", text)
            if m is None:
                raise SessionError(f"{properties_file}:{n}: {text!r} is not 'key value' (or key=value)")
            pairs.append((m.group(1), m.group(2).strip(), f"{properties_file}:{n}"))
    for item in conf:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise SessionError(f"--conf {item!r}: expected KEY=VALUE, e.g. spark.driver.memory=8g")
        pairs.append((key.strip(), value, f"--conf {item}"))
    settings: dict[str, str] = {}
    for key, value, where in pairs:
        if not key.startswith("spark."):
            raise SessionError(f"{where}: {key!r} is not a Spark setting (Spark settings start with 'spark.')")
        settings[key] = value
    return settings


def ship_code(spark: Any) -> str | None:
    """Make this installation's lakeindex importable by the session's executors; the zip's path, or None
    when there is nothing to do (a local master, ``LAKEINDEX_SHIP_CODE=0``, or spark-submit already shipped a
    lakeindex zip with ``--py-files``).

    Classic sessions get it through ``SparkContext.addPyFile``, Spark Connect sessions as a Python artifact.
    """
    if os.environ.get("LAKEINDEX_SHIP_CODE", "1") == "0":
        return None
    if is_connect(spark):
        zpath = cached_zip()
        spark.addArtifacts(str(zpath), pyfile=True)
        return str(zpath)
    if master_name(spark).startswith("local"):
        return None
    sc = spark.sparkContext
    shipped = sc.getConf().get("spark.submit.pyFiles", "") or ""
    if any(Path(p).name.startswith("lakeindex") and p.endswith(".zip") for p in shipped.split(",") if p):
        return None
    zpath = cached_zip()
    sc.addPyFile(str(zpath))
    return str(zpath)
