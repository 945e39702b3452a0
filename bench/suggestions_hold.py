"""Do suggested constraints hold on the data they were suggested from? Every table of a lake, both reads.

For each table: ``suggest``'s rules (no index) on the text read ``suggest`` uses, then the suggestions run as
checks on that read and on the typed read ``check`` uses by default. A suggestion that fails on its own data
is a false alarm by construction. One Spark session for the whole lake.

    python bench/suggestions_hold.py sample_lake/tables [--out bench/out/suggestions_hold.json]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

from lakeindex import checks
from lakeindex.lake.dataset import read_dataset
from lakeindex.spark_session import get_spark
from lakeindex.suggestions.suggest import ConstraintSuggestionRunner


def table_paths(root: str) -> list[str]:
    """The lake's tables: its files and directories (part directories, partitioned, Delta) at the top."""
    return [os.path.join(root, n) for n in sorted(os.listdir(root)) if not n.startswith((".", "_"))]


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("lake")
    p.add_argument("--out", default=None)
    args = p.parse_args()
    spark = get_spark("local[2]", app_name="suggestions-hold", extra={"spark.sql.shuffle.partitions": "2"})
    rows, t0 = [], time.time()
    for path in table_paths(args.lake):
        t = time.time()
        suggested = ConstraintSuggestionRunner().on_data(read_dataset(spark, path, infer_schema=False)).run()
        doc = suggested.to_check_json()
        for typed in (False, True):
            result = (checks.VerificationSuite().on_data(read_dataset(spark, path, infer_schema=typed))
                      .add_checks(checks.checks_from_dict(doc)).run())
            failed = [r.to_dict()["constraint"] for c in result.check_results for r in c.constraint_results
                      if r.status != "Success"]
            rows.append({"table": os.path.basename(path), "read": "typed" if typed else "text",
                         "suggestions": len(suggested.suggestions), "failed": failed})
        print(f"{os.path.basename(path)}: {len(suggested.suggestions)} suggestions, failed "
              f"{[len(r['failed']) for r in rows[-2:]]}, {time.time() - t:.1f} s", file=sys.stderr, flush=True)
    summary = {"tables": len(rows) // 2, "suggestions": sum(r["suggestions"] for r in rows) // 2,
               "failing_text": sum(len(r["failed"]) for r in rows if r["read"] == "text"),
               "failing_typed": sum(len(r["failed"]) for r in rows if r["read"] == "typed"),
               "seconds": round(time.time() - t0, 1), "command": " ".join(sys.argv)}
    if args.out:
        with open(args.out, "w") as fh:
            json.dump({"summary": summary, "tables": rows}, fh, indent=1)
    print(json.dumps(summary))
    return 0 if summary["failing_text"] == summary["failing_typed"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
