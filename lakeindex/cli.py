"""The ``lakeindex`` command: subcommands print JSON on stdout, progress and errors on stderr.

Only commands that scan data start Spark; lookups and inference read the index directly, since a
JVM start costs seconds.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path

EXIT_OK, EXIT_FLAGGED, EXIT_BAD_INPUT = 0, 1, 2


class UsageError(Exception):
    """Bad input from the user: reported as JSON on stderr with exit code 2."""


def _print(obj: object) -> None:
    print(json.dumps(obj, indent=2, sort_keys=True, ensure_ascii=False))


def cmd_index_build(args: argparse.Namespace) -> int:
    from indexer_jobs.build_index import run

    _print(run(args))
    return EXIT_OK


def cmd_index_merge(args: argparse.Namespace) -> int:
    from lakeindex.index.merge import merge_indexes

    _print(merge_indexes(args.inputs, args.out, args.min_coverage))
    return EXIT_OK


def cmd_index_info(args: argparse.Namespace) -> int:
    from lakeindex.index.store import read_meta

    _print(read_meta(args.index))
    return EXIT_OK


def cmd_index_lookup(args: argparse.Namespace) -> int:
    from lakeindex.index.store import IndexReader
    from lakeindex.patterns.pattern import parse

    for p in args.patterns:
        parse(p)  # reject malformed patterns with a clear message
    with IndexReader(args.index) as ix:
        for p, s in zip(args.patterns, ix.lookup(args.patterns), strict=True):
            row = s.to_dict() if s else {"pattern": p, "fpr": None, "coverage": 0}
            print(json.dumps(row, ensure_ascii=False))
    return EXIT_OK


def read_values(path: str | None, json_path: str | None) -> list[str]:
    """Values from a one-per-line file (``-`` for stdin) or a JSON array of strings."""
    if json_path:
        text = sys.stdin.read() if json_path == "-" else Path(json_path).read_text(encoding="utf-8")
        try:
            data = json.loads(text)
        except ValueError as exc:
            raise UsageError(f"{json_path}: not valid JSON ({exc})") from exc
        if not isinstance(data, list) or not all(isinstance(v, str) for v in data):
            raise UsageError(f"{json_path}: expected a JSON array of strings")
        return data
    text = sys.stdin.read() if path == "-" else Path(path).read_text(encoding="utf-8")
    return text.splitlines()


def cmd_infer(args: argparse.Namespace) -> int:
    from lakeindex.fmdv.infer import AutoValidator
    from lakeindex.index.store import IndexReader

    values = read_values(args.values, args.values_json)
    with IndexReader(args.index) as ix:
        kwargs = {k: v for k, v in (("r", args.r), ("theta", args.theta)) if v is not None}
        rule = AutoValidator(ix, method=args.method, m=args.m, **kwargs).fit(values).rule_
    _print(rule.to_dict())
    return EXIT_OK


def cmd_validate(args: argparse.Namespace) -> int:
    from lakeindex.fmdv.rule import Rule
    from lakeindex.fmdv.validate import validate

    try:
        rule = Rule.from_dict(json.loads(Path(args.rule).read_text(encoding="utf-8")))
    except json.JSONDecodeError as exc:
        raise UsageError(f"{args.rule}: not valid JSON ({exc})") from exc
    values = read_values(args.values, args.values_json)
    result = validate(rule, values, alpha=args.alpha, test=args.test, mode=args.mode)
    _print(result)
    return EXIT_OK if result["passed"] else EXIT_FLAGGED


def cmd_tag(args: argparse.Namespace) -> int:
    from indexer_jobs.tag_lake import tag_lake
    from lakeindex.spark_session import get_spark

    _print(tag_lake(get_spark(args.master, "lakeindex-tag"), args.lake, args.index, args.sample, args.fnr, args.m))
    return EXIT_OK


def cmd_index_head(args: argparse.Namespace) -> int:
    from lakeindex.fmdv.tag import head
    from lakeindex.index.store import IndexReader

    with IndexReader(args.index) as ix:
        floor = args.min_coverage if args.min_coverage is not None else max(2, ix.meta.get("columns_scanned", 0) // 100)
        for row in head(ix.items(), floor, args.max_fpr, args.limit):
            print(json.dumps(row, ensure_ascii=False))
    return EXIT_OK


def cmd_serve(args: argparse.Namespace) -> int:
    import logging
    import os

    import uvicorn

    from lakeindex.index.store import IndexReader
    from query_service.app import create_app
    from query_service.limits import Settings

    logging.basicConfig(level=logging.INFO, format="%(message)s", stream=sys.stderr)
    IndexReader(args.index).close()  # fail fast, with the reader's message, on a bad index path
    if args.workers > 1:
        # one process per worker, each with its own read-only index handle and caches
        os.environ.update(LAKEINDEX_INDEX=str(Path(args.index).resolve()), LAKEINDEX_MAX_VALUES=str(args.max_values),
                          LAKEINDEX_MAX_VALUE_LENGTH=str(args.max_value_length),
                          LAKEINDEX_MAX_BODY_BYTES=str(args.max_body_mb * 1024 * 1024),
                          LAKEINDEX_WATCH_INTERVAL=str(args.watch_interval), LAKEINDEX_REPO=args.repo or "")
        uvicorn.run("query_service.app:app_from_env", factory=True, host=args.host, port=args.port,
                    workers=args.workers, log_level="warning", access_log=False, timeout_keep_alive=30)
        return EXIT_OK
    settings = Settings(max_values=args.max_values, max_value_length=args.max_value_length,
                        max_body_bytes=args.max_body_mb * 1024 * 1024,
                        admin_token=os.environ.get("LAKEINDEX_ADMIN_TOKEN") or None,
                        watch_interval=args.watch_interval, repository=args.repo)
    uvicorn.run(create_app(args.index, settings), host=args.host, port=args.port, log_level="warning",
                access_log=False, timeout_keep_alive=30)
    return EXIT_OK


def cmd_patterns(args: argparse.Namespace) -> int:
    from lakeindex.patterns import analyze, to_regex, value_patterns
    from lakeindex.patterns.enumerate import EnumerationLimits

    limits = EnumerationLimits(tau=args.tau)
    for v in args.values:
        pats = sorted(value_patterns(v, limits))
        print(json.dumps({"value": v, "tokens": analyze(v).ntokens, "patterns": len(pats),
                          "sample": [{"pattern": p, "regex": to_regex(p)} for p in pats[: args.limit]]},
                         ensure_ascii=False))
    return EXIT_OK


def build_parser() -> argparse.ArgumentParser:
    from lakeindex.index.build_options import add_build_arguments

    parser = argparse.ArgumentParser(prog="lakeindex", description="Pattern index and auto-validation for data lakes.")
    sub = parser.add_subparsers(dest="command", required=True)

    index = sub.add_parser("index", help="build, merge and query pattern indexes")
    isub = index.add_subparsers(dest="index_command", required=True)
    b = isub.add_parser("build", help="scan a lake with Spark and write its pattern index")
    add_build_arguments(b)
    b.set_defaults(func=cmd_index_build)
    m = isub.add_parser("merge", help="add indexes key-wise into a new index")
    m.add_argument("inputs", nargs="+", help="index directories")
    m.add_argument("--out", required=True)
    m.add_argument("--min-coverage", type=int, default=None, help="default: the largest input floor")
    m.set_defaults(func=cmd_index_merge)
    i = isub.add_parser("info", help="print index metadata as JSON")
    i.add_argument("index")
    i.set_defaults(func=cmd_index_info)
    lk = isub.add_parser("lookup", help="print FPR and coverage of patterns as JSON lines")
    lk.add_argument("index")
    lk.add_argument("patterns", nargs="+")
    lk.set_defaults(func=cmd_index_lookup)

    hd = isub.add_parser("head", help="the lake's common domains: high coverage, low FPR (JSON lines)")
    hd.add_argument("index")
    hd.add_argument("--min-coverage", type=int, default=None, help="default: 1%% of indexed columns")
    hd.add_argument("--max-fpr", type=float, default=0.01)
    hd.add_argument("--limit", type=int, default=50)
    hd.set_defaults(func=cmd_index_head)

    tg = sub.add_parser("tag", help="auto-tag every column of a lake and group columns by domain (Spark)")
    tg.add_argument("lake")
    tg.add_argument("--index", required=True)
    tg.add_argument("--sample", type=int, default=1000, help="values read per column (default 1000)")
    tg.add_argument("--fnr", type=float, default=0.05, help="target false-negative rate (default 0.05)")
    tg.add_argument("--m", type=int, default=None, help="coverage threshold (default: 0.1%% of indexed columns)")
    tg.add_argument("--master", default=None)
    tg.set_defaults(func=cmd_tag)

    inf = sub.add_parser("infer", help="infer a validation pattern for a column (FMDV)")
    inf.add_argument("--index", required=True)
    src = inf.add_mutually_exclusive_group(required=True)
    src.add_argument("--values", help="file with one value per line, - for stdin")
    src.add_argument("--values-json", help="file with a JSON array of strings, - for stdin")
    inf.add_argument("--method", choices=["fmdv", "fmdv-v", "fmdv-h", "fmdv-vh"], default="fmdv-vh")
    inf.add_argument("--r", type=float, default=None, help="FPR threshold r (default 0.1)")
    inf.add_argument("--m", type=int, default=None, help="coverage threshold m (default: 0.1%% of indexed columns)")
    inf.add_argument("--theta", type=float, default=None, help="non-conforming tolerance of -H methods (0.1)")
    inf.set_defaults(func=cmd_infer)

    val = sub.add_parser("validate", help="validate a batch against a rule; exit 0 pass, 1 flagged, 2 bad input")
    val.add_argument("--rule", required=True, help="rule JSON printed by `lakeindex infer`")
    vsrc = val.add_mutually_exclusive_group(required=True)
    vsrc.add_argument("--values", help="file with one value per line, - for stdin")
    vsrc.add_argument("--values-json", help="file with a JSON array of strings, - for stdin")
    val.add_argument("--alpha", type=float, default=0.01, help="significance level (default 0.01)")
    val.add_argument("--test", choices=["fisher", "chi2"], default="fisher")
    val.add_argument("--mode", choices=["strict", "homogeneity"], default=None, help="default: the rule's")
    val.set_defaults(func=cmd_validate)

    sv = sub.add_parser("serve", help="serve lookups, inference, validation and tagging over HTTP")
    sv.add_argument("--index", required=True)
    sv.add_argument("--host", default="127.0.0.1", help="bind address (default 127.0.0.1: loopback only)")
    sv.add_argument("--port", type=int, default=8000)
    sv.add_argument("--watch-interval", type=float, default=5.0,
                    help="seconds between checks of the index's CURRENT pointer (0: only /admin/reload)")
    sv.add_argument("--workers", type=int, default=1, help="server processes (each opens the index read-only)")
    sv.add_argument("--max-values", type=int, default=100_000, help="values per request")
    sv.add_argument("--max-value-length", type=int, default=4096, help="characters per value")
    sv.add_argument("--max-body-mb", type=int, default=16, help="request body size")
    sv.add_argument("--repo", default=None, help="metrics repository: enables POST /v1/batches/validate")
    sv.set_defaults(func=cmd_serve)

    from lakeindex.cli_quality import add_quality_commands

    add_quality_commands(sub)
    from lakeindex.cli_history import add_history_commands

    add_history_commands(sub)

    pat = sub.add_parser("patterns", help="show the patterns P(v) of values (debugging aid)")
    pat.add_argument("values", nargs="+")
    pat.add_argument("--tau", type=int, default=8)
    pat.add_argument("--limit", type=int, default=20)
    pat.set_defaults(func=cmd_patterns)
    return parser


def main(argv: list[str] | None = None) -> int:
    from lakeindex.checks.checks_file import ChecksFileError
    from lakeindex.index.build_options import BuildError
    from lakeindex.index.store import IndexError_
    from lakeindex.lake.dataset import DatasetError
    from lakeindex.patterns.pattern import PatternError
    from lakeindex.repository import RepositoryError
    from lakeindex.spark_session import SparkUnavailable

    args = build_parser().parse_args(argv)
    func: Callable[[argparse.Namespace], int] = args.func
    try:
        return func(args)
    except (UsageError, IndexError_, PatternError, BuildError, FileNotFoundError, ValueError,
            SparkUnavailable, ChecksFileError, DatasetError, RepositoryError) as exc:
        print(json.dumps({"error": str(exc)}), file=sys.stderr)
        return EXIT_BAD_INPUT


if __name__ == "__main__":
    sys.exit(main())
