"""Dump the rules FMDV-VH and FMDV-V learn on a fixed set of columns, one JSON line each, so two code
versions can be compared rule for rule (an optimisation that claims to change no result must leave
the dump identical).

Columns: the first ``--columns`` columns of the lake as ``bench/latency.py`` draws them (all
``--size`` values, and the first 100), and the held-out composite columns of
``bench/eval_composite.py`` (first 100 values, as it trains). Run it from each version's checkout:

    python bench/dump_rules.py --lake bench/out/lake-2520x500 --index bench/out/index-lake-2520x500-tau8 --out new.jsonl
    diff old.jsonl new.jsonl

``--preload`` solves as the service does, with the whole index in memory (``SegmentSolver.preload``).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.eval_composite import test_columns  # noqa: E402
from bench.latency import columns_of  # noqa: E402
from lakeindex.fmdv.infer import AutoValidator  # noqa: E402
from lakeindex.fmdv.search import SegmentSolver  # noqa: E402
from lakeindex.index.store import IndexReader  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--lake", type=Path, required=True)
    ap.add_argument("--index", type=Path, required=True)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--columns", type=int, default=200)
    ap.add_argument("--size", type=int, default=1000)
    ap.add_argument("--composite", type=int, default=200, help="held-out composite columns (seeds 7 and 11)")
    ap.add_argument("--preload", action="store_true",
                    help="solve with the whole index held in memory, as the service does (SegmentSolver.preload)")
    args = ap.parse_args()
    lake = columns_of(args.lake, args.columns, args.size)
    composite = [c.values for c in test_columns(7, 11, args.composite, 1000, 0.1)]
    jobs = ([("lake", i, c) for i, c in enumerate(lake)] + [("lake100", i, c[:100]) for i, c in enumerate(lake)]
            + [("composite100", i, c[:100]) for i, c in enumerate(composite)])
    with IndexReader(args.index) as ix, args.out.open("w") as f:
        for method in ("fmdv-vh", "fmdv-v"):
            solver = SegmentSolver(ix, preload=args.preload)
            for kind, i, values in jobs:
                rule = AutoValidator(solver, method=method).fit(values).rule_.to_dict()
                f.write(json.dumps([method, kind, i, rule], sort_keys=True) + "\n")
    print(f"{2 * len(jobs)} rules written to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
