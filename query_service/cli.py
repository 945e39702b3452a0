"""``lakeindex serve``: the service's command, registered through the ``lakeindex.commands`` entry point."""

from __future__ import annotations

import argparse
import logging.config
import os
from pathlib import Path

from lakeindex.cli.output import EXIT_OK
from query_service.settings import SERVE_WATCH_INTERVAL, Settings


def cmd_serve(args: argparse.Namespace) -> int:
    import gc

    import uvicorn

    from lakeindex.cli import INTERPRETER_GC_THRESHOLD

    gc.set_threshold(*INTERPRETER_GC_THRESHOLD)  # a long-running process: not the one-shot commands' setting

    from lakeindex.index.store import IndexReader
    from query_service.app import create_app
    from query_service.log_config import log_config

    logs = log_config()  # timestamped lines, from here on and in every worker process
    logging.config.dictConfig(logs)
    logging.captureWarnings(True)  # Python warnings too, as timestamped lines
    with IndexReader(args.index) as reader:  # fail fast, with the reader's message, on a bad index path
        version = reader.version
    if args.signals_config:
        from lakeindex.validation.policy import load_policies

        load_policies(args.signals_config)  # fail fast on a bad policy file, before binding the port
    settings = Settings(max_values=args.max_values, max_value_length=args.max_value_length,
                        max_body_bytes=args.max_body_mb * 1024 * 1024,
                        admin_token=os.environ.get("LAKEINDEX_ADMIN_TOKEN") or None,
                        watch_interval=args.watch_interval, repository=args.repo,
                        signals_config=str(Path(args.signals_config).resolve()) if args.signals_config else None)
    workers = f"{args.workers} worker processes" if args.workers > 1 else "1 worker process"
    newer = (f"a newer one is picked up within {args.watch_interval:g} s" if args.watch_interval > 0
             else "a newer one on POST /admin/reload")
    # through the service's logging, so the line starts with its timestamp like every other
    logging.getLogger("lakeindex.serve").info(
        f"lakeindex serve: index {Path(args.index).resolve()} version {version} ({newer}) on "
        f"http://{args.host}:{args.port} with {workers}; API docs at http://{args.host}:{args.port}/docs")
    if args.workers > 1:
        # one process per worker, each with its own read-only index handle and caches
        os.environ.update(settings.to_env(str(Path(args.index).resolve())))
        uvicorn.run("query_service.app:app_from_env", factory=True, host=args.host, port=args.port,
                    workers=args.workers, log_config=logs, log_level="warning", access_log=False,
                    timeout_keep_alive=30)
        return EXIT_OK
    uvicorn.run(create_app(args.index, settings), host=args.host, port=args.port, log_config=logs,
                log_level="warning", access_log=False, timeout_keep_alive=30)
    return EXIT_OK


def add_serve_command(sub: argparse._SubParsersAction) -> None:
    """Add ``serve`` to the ``lakeindex`` command."""
    sv = sub.add_parser("serve", help="serve lookups, inference, validation and tagging over HTTP")
    sv.add_argument("--index", required=True, help="pattern index to serve (re-opened when a new version appears)")
    sv.add_argument("--host", default="127.0.0.1", help="bind address (default 127.0.0.1: loopback only)")
    sv.add_argument("--port", type=int, default=8000, help="TCP port (default 8000)")
    sv.add_argument("--watch-interval", type=float, default=SERVE_WATCH_INTERVAL,
                    help="seconds between checks of the index's CURRENT pointer (0: only /admin/reload)")
    sv.add_argument("--workers", type=int, default=1, help="server processes (each opens the index read-only)")
    sv.add_argument("--max-values", type=int, default=Settings.max_values, help="values per request")
    sv.add_argument("--max-value-length", type=int, default=Settings.max_value_length, help="characters per value")
    sv.add_argument("--max-body-mb", type=int, default=Settings.max_body_bytes // (1024 * 1024),
                    help="request body size")
    sv.add_argument("--repo", default=None, help="metrics repository: enables POST /v1/batches/validate")
    sv.add_argument("--signals-config", default=None,
                    help="YAML/JSON signal policies for batch validation (severity, min_history), as validate-batch")
    sv.set_defaults(func=cmd_serve)
