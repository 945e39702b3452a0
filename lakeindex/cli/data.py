"""Reading the DATA argument of the commands that scan a dataset with Spark, and their shared options."""

from __future__ import annotations

import argparse
import contextlib
from collections.abc import Iterator
from typing import Any

from lakeindex.spark_session import add_session_arguments


def parse_tags(pairs: list[str] | None) -> dict[str, str]:
    """``k=v`` pairs from the command line."""
    tags = {}
    for p in pairs or []:
        if "=" not in p:
            raise ValueError(f"--tag {p!r}: expected key=value")
        k, v = p.split("=", 1)
        tags[k] = v
    return tags


def read_data(args: argparse.Namespace) -> Any:
    """The DATA argument as a DataFrame (``--format``, ``--infer-schema``/``--no-infer-schema``, ``--master``)."""
    from lakeindex.lake.dataset import read_dataset
    from lakeindex.spark_session import session_from_args

    spark = session_from_args(args)
    return read_dataset(spark, args.data, args.format, infer_schema=args.infer_schema,
                        schema=getattr(args, "schema", None), encoding=getattr(args, "encoding", None))


def read_batch(args: argparse.Namespace) -> Any:
    """A history command's DATA: for a small local batch (no JVM, ``lakeindex.lake.local_dataset``) a
    ``TextFrame`` when its columns are text (no pandas either), else pandas; otherwise a Spark DataFrame.
    ``--engine spark`` always starts Spark; ``--engine local`` refuses rather than falling back, naming
    what only Spark can read."""
    engine = getattr(args, "engine", "spark")
    if engine != "spark":
        from lakeindex.lake.local_dataset import read_local

        got = read_local(args.data, args.format, infer_schema=args.infer_schema, schema=getattr(args, "schema", None),
                         encoding=getattr(args, "encoding", None))
        if got.table is not None:
            return got.batch()
        if engine == "local":
            from lakeindex.lake.dataset import DatasetError

            raise DatasetError(f"{args.data}: --engine local cannot read it ({got.reason}); use --engine spark")
    return read_data(args)


@contextlib.contextmanager
def progress(args: argparse.Namespace, df: Any, what: str) -> Iterator[None]:
    """Phase and task-count lines on stderr while the Spark work of a command runs (``--quiet`` hides them)."""
    from lakeindex.progress import Progress

    with Progress(df.sparkSession, enabled=not getattr(args, "quiet", False)) as prog:
        prog.say(f"{what}: {args.data} ({len(df.columns)} columns)")
        prog.phase = what  # task-count lines name the phase only
        yield
        prog.say(f"{what}: done")


def selected_columns(args: argparse.Namespace) -> list[str] | None:
    return [c.strip() for c in args.columns.split(",") if c.strip()] if args.columns else None


def add_encoding_argument(p: argparse.ArgumentParser) -> None:
    """``--encoding``, the same for every command that reads text data or values files."""
    p.add_argument("--encoding", default=None, metavar="CODEC",
                   help="character encoding of CSV/TSV/JSONL/values text, e.g. latin-1, cp1252, utf-16 (default "
                        "UTF-8; text that does not decode is an error naming the file and byte)")


def add_data_arguments(p: argparse.ArgumentParser, typed: bool,
                       what: str = "a CSV/TSV/Parquet/JSONL file or a directory of one table's files",
                       local_engine: bool = False) -> None:
    """DATA and the options of reading it, the same for every command that scans data.

    Each command states its default for CSV/TSV/JSONL columns: ``typed`` (Spark's schema inference) where
    the work is on values as numbers (``check``: minima, means), text as written otherwise (``profile``,
    ``suggest``, the history commands: ``02134`` stays a 5-character code, an upstream that starts writing
    ``N/A`` into a numeric column shows up as text, and types are inferred per value). Either way
    ``--infer-schema`` / ``--no-infer-schema`` or ``--schema`` decide.
    """
    default = "typed by Spark's inference" if typed else "read as text, as written"
    p.add_argument("data", help=what)
    p.add_argument("--format", choices=["csv", "tsv", "parquet", "jsonl"], default=None,
                   help="default: from the file extensions")
    p.add_argument("--infer-schema", dest="infer_schema", action=argparse.BooleanOptionalAction, default=typed,
                   help=f"type CSV/TSV columns by Spark's inference, or read them as strings (default: {default})")
    p.add_argument("--schema", default=None,
                   help="CSV/TSV/JSONL column types as DDL, e.g. 'id BIGINT, amount DOUBLE' (skips the inference "
                        "pass; unparsable values become null)")
    add_encoding_argument(p)
    add_session_arguments(p)
    if local_engine:
        p.add_argument("--engine", choices=["auto", "local", "spark"], default="auto",
                       help="auto (default): read a local batch of at most 50 MB with pandas/Arrow, without a "
                            "JVM, when Spark's reader would give the same rows, else Spark; local: never Spark; "
                            "spark: always Spark")
    p.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
