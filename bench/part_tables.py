"""Benchmark of multi-part tables: the same lake as single files and as Spark-style part files.

Rewrites every table of a lake as ``--parts`` part files (``table/part-0000i-bench.c000.EXT``, rows cut
in order, the header repeated in CSV/TSV), builds the index of both layouts, and reports wall time,
cells/s and how many keys differ. With every column under the merge cap (``part_merge.MERGE_DISTINCT``)
the two indexes should agree key for key, up to the wide values a part lists for windows.

    python bench/part_tables.py --lake bench/out/lake-2520x500 --parts 4
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path

import pyarrow.parquet as pq

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.build_throughput import run_build  # noqa: E402
from lakeindex.index.format import unpack  # noqa: E402
from lakeindex.index.store import IndexReader  # noqa: E402


def split_table(src: Path, dst_dir: Path, parts: int) -> None:
    """Write ``src`` as ``parts`` part files under ``dst_dir``, rows in order."""
    dst_dir.mkdir(parents=True, exist_ok=True)
    ext = src.suffix
    name = "part-{:05d}-bench.c000" + ext
    if ext == ".parquet":
        table = pq.read_table(src)
        step = -(-table.num_rows // parts)
        for i in range(parts):
            pq.write_table(table.slice(i * step, step), dst_dir / name.format(i))
        return
    lines = src.read_text(encoding="utf-8").splitlines(keepends=True)
    header, body = (lines[:1], lines[1:]) if ext in (".csv", ".tsv") else ([], lines)
    step = -(-len(body) // parts)
    for i in range(parts):
        (dst_dir / name.format(i)).write_text("".join(header + body[i * step:(i + 1) * step]), encoding="utf-8")


def index_items(path: Path) -> dict[bytes, tuple[int, int]]:
    with IndexReader(path) as ix:
        return {k: unpack(v) for k, v in ix.items()}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--lake", type=Path, required=True)
    ap.add_argument("--parts", type=int, default=4)
    ap.add_argument("--master", default="local[*]")
    args = ap.parse_args()
    out = ROOT / "bench" / "out"
    parted = out / f"{args.lake.name}-parts{args.parts}"
    if not parted.exists():
        tmp = parted.with_name(parted.name + ".tmp")
        shutil.rmtree(tmp, ignore_errors=True)
        for f in sorted(args.lake.iterdir()):
            if f.is_file():
                split_table(f, tmp / f.stem, args.parts)
        tmp.rename(parted)
    result = {"lake": str(args.lake), "parts": args.parts}
    for label, lake in (("single_files", args.lake), ("part_files", parted)):
        run = run_build(lake, out / f"index-{lake.name}", args.master)
        meta = run["meta"]
        result[label] = {"wall_s": round(run["wall_s"], 1), "cells_per_s": round(meta["cells_scanned"] / run["wall_s"]),
                         "tables": meta["tables_scanned"], "columns": meta["columns_scanned"],
                         "patterns": meta["patterns"], "worker_peak_rss_mb": round(run["worker_peak_rss_mb"])}
    a, b = index_items(out / f"index-{args.lake.name}"), index_items(out / f"index-{parted.name}")
    result["keys_only_in_one"] = len(set(a) ^ set(b))
    result["keys_differing"] = sum(1 for k in set(a) & set(b) if a[k] != b[k])
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
