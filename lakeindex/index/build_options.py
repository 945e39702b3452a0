"""Command-line options of index builds, shared by ``lakeindex index build`` and spark-submit.

Kept free of Spark imports so that the ``lakeindex`` command starts fast.
"""

from __future__ import annotations

import argparse

from lakeindex.patterns.enumerate import EnumerationLimits
from lakeindex.spark_session import add_session_arguments


class BuildError(RuntimeError):
    """The build cannot proceed (no lake, no readable files, incompatible index)."""


def add_build_arguments(p: argparse.ArgumentParser) -> None:
    """Add the build options to a parser."""
    d = EnumerationLimits()
    p.add_argument("lake", nargs="?", default=None,
                   help="lake directory (local path or a URI Spark can read): its tables are files, part "
                        "directories, Hive partitions, Delta and Iceberg tables; optional with --table/--tables")
    p.add_argument("--table", action="append", default=[], metavar="DB.NAME",
                   help="a table of Spark's catalog (Hive metastore, or a catalog set with --conf), read from its "
                        "location (repeatable)")
    p.add_argument("--tables", action="append", default=[], metavar="'DB.GLOB'",
                   help="the catalog tables matching a glob, e.g. 'sales.*' (repeatable)")
    p.add_argument("--out", required=True, help="index directory on the driver")
    p.add_argument("--encoding", default=None, metavar="CODEC",
                   help="character encoding of the lake's CSV/TSV/JSONL files, e.g. latin-1, cp1252 (default UTF-8; "
                        "a file that does not decode is indexed with U+FFFD for its bad bytes and reported, naming "
                        "the byte)")
    p.add_argument("--tau", type=int, default=d.tau,
                   help="token limit of a pattern, 1-16: wider values are indexed through segment windows (default 8)")
    p.add_argument("--window-edge", type=int, default=d.window_edge,
                   help="segment windows of wide values start at their first/last N words; 0: skip wide values "
                        "as the paper does (default 8)")
    p.add_argument("--wide-templates", type=int, default=d.wide_templates,
                   help="templates per value shape of 9 tokens or more, which only a --tau above 8 indexes whole "
                        f"(default {d.wide_templates}; {d.max_templates} keeps every shape's full detail, at about "
                        "3x the tau 13 build time)")
    p.add_argument("--window-share", type=int, default=d.window_share,
                   help="a column is evidence for a window pattern only if it matches >= 1/N of its values at one "
                        f"window (default {d.window_share}; an index built before this option used --min-share)")
    p.add_argument("--window-lead", type=int, choices=(0, 1), default=d.window_lead,
                   help="1: also cut windows that start with the delimiter before a word (/<lower>+, .<digit>+); "
                        "0: as indexes built before this option (default 1)")
    p.add_argument("--min-coverage", type=int, default=2, help="drop patterns covering fewer columns (default 2)")
    p.add_argument("--max-constants", type=int, default=d.max_constants,
                   help="constant slots per pattern (default 2)")
    p.add_argument("--const-share", type=int, default=d.const_share,
                   help="keep a constant only if it fills >= 1/N of a column (default 16)")
    p.add_argument("--min-share", type=int, default=d.min_share,
                   help="a column is evidence for a pattern only if >= 1/N of its values match (default 16)")
    p.add_argument("--incremental", action="store_true", help="add only tables not yet in the index")
    add_session_arguments(p)
    p.add_argument("--quiet", action="store_true", help="no progress on stderr")


# the limits a build command sets, each by the option of the same name (``--window-share``)
LIMIT_OPTIONS = ("tau", "max_constants", "const_share", "min_share", "window_edge", "wide_templates",
                 "window_share", "window_lead")


def _option(name: str) -> str:
    return "--" + name.replace("_", "-")


def limit_differences(index: EnumerationLimits, build: EnumerationLimits) -> list[str]:
    """How a build's limits differ from an index's, each with the option that restores the index's value
    (an incremental build must match them: its delta is added to the index key by key)."""
    out = []
    for name, was in index.to_dict().items():
        now = getattr(build, name)
        if was != now:
            fix = f": pass {_option(name)} {was}" if name in LIMIT_OPTIONS else ""
            out.append(f"{name} is {was} in the index, {now} here{fix}")
    return out


def limits_from_args(args: argparse.Namespace) -> EnumerationLimits:
    """Enumeration limits named by parsed build options."""
    try:
        return EnumerationLimits(**{name: getattr(args, name) for name in LIMIT_OPTIONS})
    except ValueError as exc:
        raise BuildError(str(exc)) from exc
