"""What Spark's ``multiLine`` CSV option costs: read tasks and scan time of one large CSV file, without and
with it (the RFC 4180 dialect of ``lakeindex.lake.dataset.CSV_DIALECT`` sets it, so quoted line breaks read).

    PYTHONPATH=$PWD python bench/csv_multiline.py --mb 64 --split-mb 8 --rounds 3
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time

from lakeindex.lake.dataset import CSV_DIALECT
from lakeindex.spark_session import get_spark


def write_csv(path: str, mb: int) -> None:
    """About ``mb`` MB of rows of an id, a quoted text with a doubled quote, and a number."""
    row = '{i},"text of row {i}, with a ""quote"" and a comma",{x}\n'
    with open(path, "w", encoding="utf-8") as fh:
        fh.write("id,text,x\n")
        i = 0
        while fh.tell() < mb * 1024 * 1024:
            fh.write("".join(row.format(i=i + k, x=(i + k) % 997) for k in range(10_000)))
            i += 10_000


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mb", type=int, default=64)
    ap.add_argument("--split-mb", type=int, default=8, help="spark.sql.files.maxPartitionBytes in MB")
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    spark = get_spark("local[2]", app_name="csv-multiline",
                      extra={"spark.sql.files.maxPartitionBytes": str(args.split_mb * 1024 * 1024)})
    out: dict = {"file_mb": args.mb, "max_partition_mb": args.split_mb, "cores": os.cpu_count()}
    with tempfile.TemporaryDirectory(prefix="csvenc-") as tmp:
        path = os.path.join(tmp, "big.csv")
        write_csv(path, args.mb)
        for multiline in (False, True):
            df = spark.read.options(header=True, mode="PERMISSIVE", **{**CSV_DIALECT, "multiLine": multiline}).csv(path)
            out[f"multiLine={multiline}"] = {"read_tasks": df.rdd.getNumPartitions(), "seconds": []}
        for _ in range(args.rounds):  # alternate, so load changes hit both alike
            for multiline in (False, True):
                df = spark.read.options(header=True, mode="PERMISSIVE",
                                        **{**CSV_DIALECT, "multiLine": multiline}).csv(path)
                t = time.perf_counter()
                n = df.selectExpr("count(*)", "sum(length(text))").first()
                out[f"multiLine={multiline}"]["seconds"].append(round(time.perf_counter() - t, 2))
                out[f"multiLine={multiline}"]["rows"] = n[0]
    print(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
