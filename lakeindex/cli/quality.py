"""``lakeindex check | profile | suggest | metrics``: the Deequ-style quality commands (JSON on stdout).

``check`` exits 0 when every error-level check passes (warnings are reported, not fatal), 1 when an
error-level check fails, 2 on bad input.
"""

from __future__ import annotations

import argparse
import json
import time

from lakeindex.cli.data import add_data_arguments, parse_tags, progress, read_data, selected_columns
from lakeindex.cli.output import EXIT_FLAGGED, EXIT_OK, emit, emit_line


def cmd_profile(args: argparse.Namespace) -> int:
    from lakeindex.profiling.profiler import ColumnProfiler

    profiler = ColumnProfiler(low_cardinality_threshold=args.low_cardinality_threshold, columns=selected_columns(args))
    df = read_data(args)
    with progress(args, df, "profiling (3 passes)"):
        profile = profiler.profile(df)
    if args.index:
        from lakeindex.suggestions.pattern_rules import profile_patterns

        with progress(args, df, f"learning text columns' patterns against {args.index}"):
            profile_patterns(df, profile, args.index)
    emit(profile.to_dict())
    return EXIT_OK


def cmd_suggest(args: argparse.Namespace) -> int:
    from pathlib import Path

    from lakeindex.suggestions.rules import DEFAULT_RULES, EXTENDED_RULES
    from lakeindex.suggestions.suggest import ConstraintSuggestionRunner

    df = read_data(args)
    runner = ConstraintSuggestionRunner().on_data(df) \
        .with_low_cardinality_threshold(args.low_cardinality_threshold) \
        .add_constraint_rules(EXTENDED_RULES if args.rules == "extended" else DEFAULT_RULES)
    if selected_columns(args):
        runner = runner.restrict_to_columns(selected_columns(args))
    if args.index:
        runner = runner.with_pattern_index(args.index)
    with progress(args, df, "profiling for suggestions (3 passes)"):
        result = runner.run()
    if args.checks_out:
        Path(args.checks_out).write_text(json.dumps(result.to_check_json(), indent=2), encoding="utf-8")
    emit(result.to_dict(include_profile=args.include_profile))
    return EXIT_OK


def cmd_check(args: argparse.Namespace) -> int:
    from lakeindex.checks import VerificationSuite, load_checks
    from lakeindex.repository import FileSystemMetricsRepository, ResultKey

    checks = load_checks(args.checks)  # validate the file before starting Spark
    if bool(args.repo) != bool(args.dataset):
        raise ValueError("--repo and --dataset go together")
    if args.quarantine:
        from lakeindex.checks.quarantine import check_target

        check_target(args.quarantine)  # an existing target is refused before the checks run
    df = read_data(args)
    _check_regexes(args.checks, checks)
    suite = VerificationSuite().on_data(df).add_checks(checks).with_offending_samples(args.samples)
    if args.repo:
        ts = args.timestamp if args.timestamp is not None else int(time.time() * 1000)
        suite.use_repository(FileSystemMetricsRepository(args.repo), args.dataset) \
             .save_or_append_result(ResultKey(ts, parse_tags(args.tag)))
    n = sum(len(c.constraints) for c in checks)
    with progress(args, df, f"checking {n} constraints (shared passes)"):
        result = suite.run()
    doc = result.to_dict()
    if args.quarantine:
        from lakeindex.checks.quarantine import failing_rows, write_quarantine

        with progress(args, df, f"writing the rows failing a check to {args.quarantine}"):
            doc["quarantine"] = {"path": args.quarantine,
                                 "rows": write_quarantine(failing_rows(result, df), args.quarantine)}
    emit(doc)
    return EXIT_FLAGGED if result.status == "Error" else EXIT_OK


def _check_regexes(path: str, checks: list) -> None:
    """An invalid regular expression is a mistake in the checks file (exit 2), not a failed check."""
    from lakeindex.checks import ChecksFileError
    from lakeindex.metrics import PatternMatch
    from lakeindex.metrics.row_counts import java_regex_error

    for check in checks:
        for analyzer in check.analyzers():
            if isinstance(analyzer, PatternMatch) and (problem := java_regex_error(analyzer.pattern)):
                raise ChecksFileError(f"{path}: check {check.description!r}: {analyzer.spec()}: invalid regular "
                                      f"expression: {problem}")


def cmd_metrics(args: argparse.Namespace) -> int:
    from lakeindex.repository import FileSystemMetricsRepository

    q = FileSystemMetricsRepository(args.repo).load()
    if args.dataset:
        q = q.for_dataset(args.dataset)
    if args.tag:
        q = q.with_tag_values(parse_tags(args.tag))
    if args.after is not None:
        q = q.after(args.after)
    if args.before is not None:
        q = q.before(args.before)
    if args.analyzer:
        q = q.for_analyzers(args.analyzer)
    for row in q.get_rows():
        emit_line(row)
    return EXIT_OK


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``check``, ``profile``, ``suggest`` and ``metrics``."""
    ck = sub.add_parser("check", help="verify declarative checks on a dataset (exit 0 pass, 1 error, 2 bad input)")
    add_data_arguments(ck, typed=True)
    ck.add_argument("--checks", required=True,
                    help="checks file: .json or .yaml (constraints as data) or .py (defines checks)")
    ck.add_argument("--repo", default=None, help="metrics repository directory: store this run's metrics there")
    ck.add_argument("--dataset", default=None, help="dataset name in the repository")
    ck.add_argument("--tag", action="append", help="result tag key=value (repeatable)")
    ck.add_argument("--timestamp", type=int, default=None, help="result time in ms since the epoch (default now)")
    ck.add_argument("--samples", type=int, default=5, help="offending rows/values shown per failed constraint")
    ck.add_argument("--quarantine", default=None, metavar="OUT",
                    help="write the rows some check's row-level result marks false, with those results, as Parquet "
                         "into the new local directory OUT (published atomically)")
    ck.set_defaults(func=cmd_check)

    for name, func, text in (("profile", cmd_profile, "profile columns in at most three Spark passes"),
                             ("suggest", cmd_suggest, "suggest constraints from a profile, with evidence and code")):
        sp = sub.add_parser(name, help=text)
        add_data_arguments(sp, typed=False)
        sp.add_argument("--columns", default=None, help="comma-separated columns (default: all)")
        sp.add_argument("--low-cardinality-threshold", type=int, default=120,
                        help="columns with at most this many distinct values get a value histogram")
        sp.add_argument("--index", default=None,
                        help="pattern index: learn each text column's pattern against the lake (FMDV-VH on a "
                             "bounded sample, one more Spark job)" + ("; suggest has_pattern with it"
                                                                     if name == "suggest" else ""))
        if name == "suggest":
            sp.add_argument("--rules", choices=["default", "extended"], default="default",
                            help="Deequ's default suggestion rules, or those plus is_positive for columns "
                                 "without zeros (extended)")
            sp.add_argument("--checks-out", default=None, help="also write the suggestions as a checks JSON file")
            sp.add_argument("--include-profile", action="store_true", help="also print the column profiles used")
        sp.set_defaults(func=func)

    mt = sub.add_parser("metrics", help="query a metrics repository (JSON lines, one metric per line)")
    mt.add_argument("--repo", required=True, help="metrics repository directory")
    mt.add_argument("--dataset", default=None, help="only this dataset's metrics (default: all)")
    mt.add_argument("--tag", action="append", help="key=value (repeatable; all must match)")
    mt.add_argument("--after", type=int, default=None, help="from this time (ms, inclusive)")
    mt.add_argument("--before", type=int, default=None, help="up to this time (ms, inclusive)")
    mt.add_argument("--analyzer", action="append", help="analyzer name or spec, e.g. Size or \"Mean(column='x', ...)\"")
    mt.set_defaults(func=cmd_metrics)
