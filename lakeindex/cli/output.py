"""What every ``lakeindex`` command shares: JSON on stdout, errors on stderr, one set of exit codes.

Exit codes: 0 pass, 1 flagged (a check, a rule or a batch failed), 2 bad input (the error names the
file, column or value and what to do), 3 internal error (a bug or a broken environment: the JSON
error, then the traceback, go to stderr).

A reader that closes stdout early (``lakeindex index head IX | head -3``) ends the command quietly: no
BrokenPipeError traceback. The exit code is the command's when its output was complete in the buffer,
else 0 (only listing commands stream more than a buffer; their output was cut by the reader's choice).
"""

from __future__ import annotations

import argparse
import json
import sys
import traceback
from collections.abc import Callable

EXIT_OK, EXIT_FLAGGED, EXIT_BAD_INPUT, EXIT_INTERNAL = 0, 1, 2, 3


class UsageError(Exception):
    """Bad input from the user: reported as JSON on stderr with exit code 2."""


def emit(obj: object, sort_keys: bool = False) -> None:
    """A command's result as indented JSON on stdout."""
    print(json.dumps(obj, indent=2, sort_keys=sort_keys, ensure_ascii=False, default=str))


def emit_line(obj: object) -> None:
    """One JSON line on stdout (commands that stream rows)."""
    print(json.dumps(obj, ensure_ascii=False, default=str))


def verdict(flagged: bool) -> int:
    """Exit code of a command that passes or flags."""
    return EXIT_FLAGGED if flagged else EXIT_OK


def error(message: str) -> None:
    """An error as one JSON line on stderr."""
    print(json.dumps({"error": message}, ensure_ascii=False), file=sys.stderr)


# Exceptions that mean the user's input is wrong, by module. Looked up among the modules already loaded
# when an error happens (an exception class can only be raised once its module is imported), so that a
# command does not import the checks layer or pyspark just to be able to name their errors.
BAD_INPUT_CLASSES = (
    ("lakeindex.cli.output", "UsageError"), ("lakeindex.checks.checks_file", "ChecksFileError"),
    ("lakeindex.index.build_options", "BuildError"), ("lakeindex.index.store", "IndexUnusable"),
    ("lakeindex.lake.dataset", "DatasetError"), ("lakeindex.lake.listing", "LakeError"),
    ("lakeindex.patterns.pattern", "PatternError"), ("lakeindex.repository.filesystem", "RepositoryError"),
    ("lakeindex.spark_session", "SparkUnavailable"), ("lakeindex.history.backfill", "PartitionError"),
)


def bad_input_errors() -> tuple[type[BaseException], ...]:
    """Exception classes that mean the user's input is wrong, among the loaded modules."""
    classes = [getattr(sys.modules[m], name) for m, name in BAD_INPUT_CLASSES if m in sys.modules]
    # a path of the wrong kind (a directory given as --values, a file as --repo) or unreadable is the
    # user's to fix, like a missing one
    paths = (FileNotFoundError, IsADirectoryError, NotADirectoryError, PermissionError)
    return (*classes, *paths, ValueError)


def run_command(func: Callable[[argparse.Namespace], int], args: argparse.Namespace) -> int:
    """Run a command function and map its exceptions to exit codes 2 and 3."""
    try:
        return func(args)
    except KeyboardInterrupt:
        raise
    except BrokenPipeError:  # the reader closed stdout: not an error of the command
        _silence_stdout()
        return EXIT_OK
    except Exception as exc:  # noqa: BLE001 - the last line of defence: exit 3, not a bare traceback's 1
        if isinstance(exc, bad_input_errors()):
            error(str(exc))
            return EXIT_BAD_INPUT
        reading = sys.modules.get("lakeindex.lake.read_errors")  # loaded by every command that reads data
        if reading is not None and reading.unreadable_file(exc):
            error(f"{reading.error_line(exc)}: fix or remove the file (it is corrupt, truncated or not of its "
                  "format)")
            return EXIT_BAD_INPUT
        error(f"internal error: {type(exc).__name__}: {exc}")
        traceback.print_exc(file=sys.stderr)
        return EXIT_INTERNAL


def _silence_stdout() -> None:
    """Point stdout at /dev/null so the interpreter's final flush cannot raise again (Python's documented
    way out of a broken pipe)."""
    import os

    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())


def finish_output(code: int) -> int:
    """Flush stdout, treating a reader that closed it as the end of the output; return ``code``."""
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        _silence_stdout()
    return code
