"""``lakeindex infer | validate | tag | patterns``: pattern rules from the index (FMDV) and their use."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from lakeindex.cli.data import add_encoding_argument
from lakeindex.cli.output import EXIT_OK, UsageError, emit, emit_line, verdict
from lakeindex.fmdv.rule import DEFAULT_TEST, TESTS
from lakeindex.spark_session import add_session_arguments


def _read_text(path: str, encoding: str | None) -> str:
    """A values file (``-`` for stdin) decoded with ``encoding`` (default UTF-8), or the shared encoding error."""
    from lakeindex.lake.text_encoding import decode_text

    data = sys.stdin.buffer.read() if path == "-" else Path(path).read_bytes()
    return decode_text(data, "stdin" if path == "-" else path, encoding)


def read_values(path: str | None, json_path: str | None, encoding: str | None = None) -> list[str]:
    """Values from a one-per-line file (``-`` for stdin) or a JSON array of strings."""
    if json_path:
        text = _read_text(json_path, encoding)
        try:
            data = json.loads(text)
        except ValueError as exc:
            raise UsageError(f"{json_path}: not valid JSON ({exc})") from exc
        if not isinstance(data, list) or not all(isinstance(v, str) for v in data):
            raise UsageError(f"{json_path}: expected a JSON array of strings")
        return data
    return _read_text(path, encoding).splitlines()


def cmd_infer(args: argparse.Namespace) -> int:
    from lakeindex.fmdv.infer import AutoValidator
    from lakeindex.index.store import IndexReader

    values = column_values(args) if args.data else read_values(args.values, args.values_json, args.encoding)
    with IndexReader(args.index) as ix:
        kwargs = {k: v for k, v in (("r", args.r), ("theta", args.theta)) if v is not None}
        rule = AutoValidator(ix, method=args.method, m=args.m, **kwargs).fit(values).rule_
    emit(rule.to_dict(), sort_keys=True)
    return EXIT_OK


def column_values(args: argparse.Namespace) -> list[str]:
    """The first ``--sample`` non-null values of ``--column`` of the dataset ``--data``, read as text: without
    a JVM when :func:`local_table` can, else with Spark."""
    from lakeindex.lake.dataset import read_dataset
    from lakeindex.spark_session import session_from_args
    from lakeindex.suggestions.pattern_rules import sample_columns

    if not args.column:
        raise UsageError("--data needs --column, the column to learn a rule for")
    table = local_table(args)
    if table is not None:
        from lakeindex.lake.rendering import sample_text

        if args.column not in table.column_names:
            raise UsageError(f"{args.data}: no column {args.column!r} (columns: {', '.join(table.column_names[:30])})")
        return sample_text(table.column(args.column).slice(0, 3 * args.sample), args.sample)
    df = read_dataset(session_from_args(args, "lakeindex-infer"), args.data, args.format, infer_schema=False,
                      encoding=args.encoding)
    if args.column not in df.columns:
        raise UsageError(f"{args.data}: no column {args.column!r} (columns: {', '.join(df.columns[:30])})")
    return sample_columns(df, [args.column], rows=0, n=args.sample)[args.column]


def local_table(args: argparse.Namespace) -> Any:
    """``--data`` read without Spark (:mod:`lakeindex.lake.local_dataset`) when it is one small local file that
    Spark's reader would give the same rows of, in the same order (so the same first values), and no
    ``--master``/``--remote``/``SPARK_REMOTE`` asks for Spark; else None."""
    import os

    if args.master or args.remote or os.environ.get("SPARK_REMOTE") or not os.path.isfile(args.data):
        return None
    from lakeindex.lake.local_dataset import read_local

    return read_local(args.data, args.format, encoding=args.encoding).table


def cmd_validate(args: argparse.Namespace) -> int:
    from lakeindex.fmdv.drift import validate
    from lakeindex.fmdv.rule import Rule

    try:
        rule = Rule.from_dict(json.loads(Path(args.rule).read_text(encoding="utf-8")))
    except json.JSONDecodeError as exc:
        raise UsageError(f"{args.rule}: not valid JSON ({exc})") from exc
    if not 0 < args.alpha < 1:
        raise UsageError(f"--alpha {args.alpha}: the significance level must be between 0 and 1, e.g. 0.01")
    values = read_values(args.values, args.values_json, args.encoding)
    if not any(values):
        raise UsageError(f"{args.values or args.values_json}: the batch holds no non-empty value, so there is "
                         "nothing to validate (an empty batch is not a pass)")
    result = validate(rule, values, alpha=args.alpha, test=args.test, mode=args.mode)
    emit(result, sort_keys=True)
    return verdict(not result["passed"])


def cmd_tag(args: argparse.Namespace) -> int:
    from lakeindex.progress import Progress
    from lakeindex.spark_session import session_from_args
    from lakeindex.tagging.tag_lake import tag_lake

    jsonl = getattr(args, "jsonl", None)
    if jsonl and not Path(jsonl).resolve().parent.is_dir():
        raise UsageError(f"--jsonl {jsonl}: directory {Path(jsonl).resolve().parent} does not exist")
    if args.lake is None and not args.table and not args.tables:
        raise UsageError("name a lake directory (LAKE) or catalog tables (--table db.name, --tables 'db.*')")
    spark = session_from_args(args, "lakeindex-tag")
    with Progress(spark, enabled=not args.quiet) as prog:
        prog.say(f"tagging the columns of {args.lake or 'the catalog tables'} against {args.index}")
        out = tag_lake(spark, args.lake, args.index, args.sample, args.fnr, args.m, tables=args.table,
                       table_patterns=args.tables, encoding=args.encoding)
        prog.say(f"tagged {out['columns_tagged']} of {len(out['columns'])} columns, "
                 f"named the domain of {out['columns_named']}")
    if jsonl:
        from lakeindex.tagging.tag_lake import write_catalog_jsonl

        out["jsonl"] = {"path": str(jsonl), "lines": write_catalog_jsonl(out, jsonl)}
    emit(out, sort_keys=True)
    return EXIT_OK


def cmd_patterns(args: argparse.Namespace) -> int:
    from lakeindex.patterns import analyze, to_regex, value_patterns
    from lakeindex.patterns.enumerate import EnumerationLimits

    limits = EnumerationLimits(tau=args.tau)
    for v in args.values:
        pats = sorted(value_patterns(v, limits))
        emit_line({"value": v, "tokens": analyze(v).ntokens, "patterns": len(pats),
                   "sample": [{"pattern": p, "regex": to_regex(p)} for p in pats[: args.limit]]})
    return EXIT_OK


def _values_source(p: argparse.ArgumentParser, data: bool = False) -> None:
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--values", help="file with one value per line, - for stdin")
    src.add_argument("--values-json", help="file with a JSON array of strings, - for stdin")
    if data:
        src.add_argument("--data", help="a dataset (CSV/TSV/Parquet/JSONL file or directory) read with Spark; "
                                        "give --column")
    add_encoding_argument(p)


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``tag``, ``infer`` and ``validate``."""
    tg = sub.add_parser("tag", help="auto-tag every column of a lake with its pattern and domain name (uuid, "
                                    "ipv4, email, ...) and group columns by domain (Spark)")
    tg.add_argument("lake", nargs="?", default=None,
                    help="lake directory or URI (every table in it is tagged); optional with --table/--tables")
    tg.add_argument("--table", action="append", default=[], metavar="DB.NAME",
                    help="a table of Spark's catalog, read from its location (repeatable)")
    tg.add_argument("--tables", action="append", default=[], metavar="'DB.GLOB'",
                    help="the catalog tables matching a glob, e.g. 'sales.*' (repeatable)")
    tg.add_argument("--index", required=True, help="pattern index built from a lake (lakeindex index build)")
    tg.add_argument("--encoding", default=None, metavar="CODEC",
                    help="character encoding of the lake's CSV/TSV/JSONL files (default UTF-8), as for index build")
    tg.add_argument("--sample", type=int, default=1000, help="values read per column (default 1000)")
    tg.add_argument("--fnr", type=float, default=0.05, help="target false-negative rate (default 0.05)")
    tg.add_argument("--m", type=int, default=None, help="coverage threshold (default: 0.1%% of indexed columns)")
    tg.add_argument("--jsonl", metavar="PATH", default=None,
                    help="also write one catalog record per column to PATH (JSON lines, written atomically): "
                         "table, column, domain, pattern, confidence, fpr, coverage, values")
    add_session_arguments(tg)
    tg.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    tg.set_defaults(func=cmd_tag)

    inf = sub.add_parser("infer", help="infer a validation pattern for a column (FMDV)")
    inf.add_argument("--index", required=True, help="pattern index built from a lake (lakeindex index build)")
    _values_source(inf, data=True)
    inf.add_argument("--column", default=None, help="with --data: the column to learn a rule for")
    inf.add_argument("--format", choices=["csv", "tsv", "parquet", "jsonl"], default=None,
                     help="with --data: the dataset's format (default: from the file extensions)")
    inf.add_argument("--sample", type=int, default=1000,
                     help="with --data: learn from the column's first N non-null values (default 1000)")
    add_session_arguments(inf)
    inf.add_argument("--method", choices=["fmdv", "fmdv-v", "fmdv-h", "fmdv-vh"], default="fmdv-vh",
                     help="FMDV variant: -v cuts composite values into segments, -h tolerates a few ad-hoc "
                          "values (default fmdv-vh, both)")
    inf.add_argument("--r", type=float, default=None, help="FPR threshold r (default 0.1)")
    inf.add_argument("--m", type=int, default=None, help="coverage threshold m (default: 0.1%% of indexed columns)")
    inf.add_argument("--theta", type=float, default=None, help="non-conforming tolerance of -H methods (0.1)")
    inf.set_defaults(func=cmd_infer)

    val = sub.add_parser("validate", help="validate a batch against a rule; exit 0 pass, 1 flagged, 2 bad input")
    val.add_argument("--rule", required=True, help="rule JSON printed by `lakeindex infer`")
    _values_source(val)
    val.add_argument("--alpha", type=float, default=0.01, help="significance level (default 0.01)")
    val.add_argument("--test", choices=list(TESTS), default=DEFAULT_TEST,
                     help="test of the batch's non-conforming count: betabinom (default: the training counts and "
                          "the index's FPR for the pattern, one-sided), or the paper's two-sample fisher / chi2")
    val.add_argument("--mode", choices=["strict", "homogeneity"], default=None, help="default: the rule's")
    val.set_defaults(func=cmd_validate)


def register_debugging(sub: argparse._SubParsersAction) -> None:
    """Add ``patterns`` (listed last: a debugging aid)."""
    pat = sub.add_parser("patterns", help="show the patterns P(v) of values (debugging aid)")
    pat.add_argument("values", nargs="+", help="values to enumerate the patterns of")
    pat.add_argument("--tau", type=int, default=8, help="most tokens a value may have (default 8, the index's)")
    pat.add_argument("--limit", type=int, default=20, help="patterns shown per value at most (default 20)")
    pat.set_defaults(func=cmd_patterns)
