"""The argument parser of ``lakeindex`` and its subcommands: an unknown option is reported under the usage of
the command it was given to, with the closest option that command takes (``--dryrun``: did you mean --dry-run?)."""

from __future__ import annotations

import argparse
import difflib
from collections.abc import Sequence


class CommandParser(argparse.ArgumentParser):
    """An ArgumentParser that refuses arguments it does not know itself, so the innermost subcommand reports them.

    Python 3.11's argparse hands a subcommand's leftovers up to the top-level parser, which prints its own
    usage and no suggestion; subparsers made by ``add_subparsers`` inherit this class.
    """

    def parse_known_args(self, args: Sequence[str] | None = None,
                         namespace: argparse.Namespace | None = None) -> tuple[argparse.Namespace, list[str]]:
        parsed, extras = super().parse_known_args(args, namespace)
        if extras:
            self.error(f"unrecognized arguments: {' '.join(extras)}{self._suggestion(extras)}")
        return parsed, extras

    def _suggestion(self, extras: list[str]) -> str:
        """'; did you mean --x?' for the first unknown option close to one this parser takes, else ''."""
        known = [o for o in self._option_string_actions if o.startswith("--")]
        for extra in extras:
            if extra.startswith("--"):
                close = difflib.get_close_matches(extra.split("=", 1)[0], known, n=1)
                if close:
                    return f"; did you mean {close[0]}?"
        return ""

