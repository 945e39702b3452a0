"""Generate a small but realistic-looking enterprise data lake of string-heavy tables.

The command line of ``python sample_lake/generate.py``: parses the options, runs
:func:`sample_lake.lake.generate_lake` and prints its summary as one JSON line (exit status 2 and a
message on stderr for a refused or invalid request). The first paragraph above is the ``--help``
description.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from sample_lake.lake import MAX_WIDE_SHARE, generate_lake

DEFAULT_OUT = Path(__file__).resolve().parent / "tables"
DEFAULT_TABLES = 120
DEFAULT_ROWS = 150
DEFAULT_SEED = 7


def _parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT,
                        help="output directory (default: sample_lake/tables next to this script)")
    parser.add_argument("--tables", type=int, default=DEFAULT_TABLES, help="number of tables")
    parser.add_argument("--rows", type=int, default=DEFAULT_ROWS, help="rows per table")
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED, help="random seed")
    parser.add_argument("--wide-share", type=float, default=0.0, metavar="F",
                        help="add wide tables (composite grammars, see sample_lake/wide.py) until their values "
                             "wider than 8 tokens are a fraction F of all values (default 0: none, the lake is "
                             f"unchanged; at most {MAX_WIDE_SHARE})")
    parser.add_argument("--layouts", action="store_true",
                        help="lay two Parquet tables out as a Hive-partitioned directory and a Delta table "
                             "(sample_lake/layouts.py), as the bundled lake has them")
    parser.add_argument("--force", action="store_true",
                        help="overwrite: delete existing *.csv/*.tsv/*.parquet/*.jsonl in --out first")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = _parse_args(argv)
    try:
        summary = generate_lake(args.out, args.tables, args.rows, args.seed, force=args.force,
                                wide_share=args.wide_share, layouts=args.layouts)
    except (FileExistsError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
