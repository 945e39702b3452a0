"""``lakeindex engine start | stop | status``: the warm local Spark Connect server (:mod:`lakeindex.engine`)."""

from __future__ import annotations

import argparse
from pathlib import Path

from lakeindex.cli.output import EXIT_OK, emit


def cmd_start(args: argparse.Namespace) -> int:
    from lakeindex.engine import start
    from lakeindex.spark_session import spark_settings

    emit(start(args.port, spark_settings(args.conf, args.properties_file), warm_up=warm_up if args.warmup else None))
    return EXIT_OK


WARMUP_ROWS = 64


def warm_up(address: str, home: Path) -> None:
    """Run a small profile once against the engine at ``address``, so the first command does not pay the
    server's class loading and the first compilation of its query code."""
    from lakeindex.lake.dataset import read_dataset
    from lakeindex.profiling.profiler import ColumnProfiler
    from lakeindex.spark_session import get_spark

    sample = home / "warmup.csv"
    rows = [f"{i},c{i % 7},{i * 1.5},2026-01-{1 + i % 28:02d}" for i in range(WARMUP_ROWS)]
    sample.write_text("\n".join(["id,code,amount,day", *rows]) + "\n", encoding="utf-8")
    spark = get_spark(remote=address, app_name="lakeindex-engine-warmup", ship=False)
    ColumnProfiler().profile(read_dataset(spark, str(sample), "csv", infer_schema=True))


def cmd_stop(args: argparse.Namespace) -> int:
    from lakeindex.engine import stop

    emit(stop(timeout=args.timeout))
    return EXIT_OK


def cmd_status(args: argparse.Namespace) -> int:
    from lakeindex.engine import status

    emit(status())
    return EXIT_OK


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``engine start``, ``engine stop`` and ``engine status``."""
    from lakeindex.engine import DEFAULT_PORT, STOP_SECONDS

    eng = sub.add_parser("engine", help="a warm local Spark engine (Spark Connect on 127.0.0.1) that Spark commands "
                                        "use while it runs, so they skip the JVM start")
    cmds = eng.add_subparsers(dest="engine_command", required=True)
    st = cmds.add_parser("start", help="start the engine in the background; pid file and log in "
                                       "$LAKEINDEX_HOME/engine (default ~/.lakeindex/engine)")
    st.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"port on 127.0.0.1 (default {DEFAULT_PORT})")
    st.add_argument("--conf", action="append", default=[], metavar="KEY=VALUE",
                    help="a Spark setting of the server, e.g. spark.driver.memory=8g (repeatable)")
    st.add_argument("--properties-file", default=None, metavar="FILE",
                    help="server Spark settings in spark-defaults.conf form")
    st.add_argument("--warmup", action=argparse.BooleanOptionalAction, default=True,
                    help="run a small profile once at start, so the first command finds the server warm "
                         "(default: on)")
    st.set_defaults(func=cmd_start)
    sp = cmds.add_parser("stop", help="stop the engine, wait for it to exit and remove its pid file")
    sp.add_argument("--timeout", type=float, default=STOP_SECONDS,
                    help=f"seconds to wait before killing it (default {STOP_SECONDS:.0f})")
    sp.set_defaults(func=cmd_stop)
    ss = cmds.add_parser("status", help="whether the engine runs: JSON with pid, address, uptime and log")
    ss.set_defaults(func=cmd_status)
