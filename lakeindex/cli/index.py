"""``lakeindex index build | merge | info | lookup | head``: building and reading pattern indexes."""

from __future__ import annotations

import argparse

from lakeindex.cli.output import EXIT_OK, emit, emit_line


def cmd_index_build(args: argparse.Namespace) -> int:
    from lakeindex.index.build import build_index
    from lakeindex.index.build_options import BuildError, limits_from_args
    from lakeindex.lake.text_encoding import codec_name
    from lakeindex.spark_session import session_from_args

    limits = limits_from_args(args)
    codec_name(args.encoding)  # an unknown codec is bad input before Spark starts
    if args.lake is None and not args.table and not args.tables:
        raise BuildError("name a lake directory (LAKE) or catalog tables (--table db.name, --tables 'db.*')")
    spark = session_from_args(args, "lakeindex-index-build")
    emit(build_index(spark, args.lake, args.out, limits, args.min_coverage, args.incremental,
                     progress=not args.quiet, tables=args.table, table_patterns=args.tables, encoding=args.encoding),
         sort_keys=True)
    return EXIT_OK


def cmd_index_merge(args: argparse.Namespace) -> int:
    from lakeindex.index.merge import merge_indexes

    emit(merge_indexes(args.inputs, args.out, args.min_coverage), sort_keys=True)
    return EXIT_OK


def cmd_index_info(args: argparse.Namespace) -> int:
    from lakeindex.index.store import read_meta

    emit(read_meta(args.index), sort_keys=True)
    return EXIT_OK


def cmd_index_lookup(args: argparse.Namespace) -> int:
    from lakeindex.index.store import IndexReader
    from lakeindex.patterns.pattern import parse

    for p in args.patterns:
        parse(p)  # reject malformed patterns with a clear message
    with IndexReader(args.index) as ix:
        for p, s in zip(args.patterns, ix.lookup(args.patterns), strict=True):
            emit_line(s.to_dict() if s else {"pattern": p, "fpr": None, "coverage": 0})
    return EXIT_OK


def cmd_index_head(args: argparse.Namespace) -> int:
    from lakeindex.index.store import IndexReader
    from lakeindex.tagging.tag import head

    with IndexReader(args.index) as ix:
        floor = args.min_coverage if args.min_coverage is not None else max(2, ix.meta.get("columns_scanned", 0) // 100)
        for row in head(ix.items(), floor, args.max_fpr, args.limit):
            emit_line(row)
    return EXIT_OK


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``index`` command group."""
    from lakeindex.index.build_options import add_build_arguments

    index = sub.add_parser("index", help="build, merge and query pattern indexes")
    isub = index.add_subparsers(dest="index_command", required=True)
    b = isub.add_parser("build", help="scan a lake with Spark and write its pattern index")
    add_build_arguments(b)
    b.set_defaults(func=cmd_index_build)
    m = isub.add_parser("merge", help="add indexes key-wise into a new index")
    m.add_argument("inputs", nargs="+", help="index directories")
    m.add_argument("--out", required=True, help="directory of the merged index (a new version, published atomically)")
    m.add_argument("--min-coverage", type=int, default=None, help="default: the largest input floor")
    m.set_defaults(func=cmd_index_merge)
    i = isub.add_parser("info", help="print index metadata as JSON")
    i.add_argument("index", help="index directory")
    i.set_defaults(func=cmd_index_info)
    lk = isub.add_parser("lookup", help="print FPR and coverage of patterns as JSON lines")
    lk.add_argument("index", help="index directory")
    lk.add_argument("patterns", nargs="+", help="patterns in the pattern language, e.g. '<digit>{4}-<digit>{2}'")
    lk.set_defaults(func=cmd_index_lookup)
    hd = isub.add_parser("head", help="the lake's common domains: high coverage, low FPR (JSON lines)")
    hd.add_argument("index", help="index directory")
    hd.add_argument("--min-coverage", type=int, default=None, help="default: 1%% of indexed columns")
    hd.add_argument("--max-fpr", type=float, default=0.01,
                    help="highest expected FPR of a listed pattern (default 0.01)")
    hd.add_argument("--limit", type=int, default=50, help="patterns listed at most (default 50)")
    hd.set_defaults(func=cmd_index_head)
