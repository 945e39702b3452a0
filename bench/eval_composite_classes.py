"""Held-out families of the last composite classes (issue: number#domain, bracketed timestamp records,
dotted names whose last word later holds digits, 12-hour US timestamps), measured as ``eval_composite``.

Each family generates ``--per-family`` columns from ``--test-seed`` (the index lake's generator has none of
these shapes whatever its seed). The other columns a rule is tested on for recall are the other family
columns and ``--held-out`` composite columns of ``sample_lake.wide`` drawn from the same test seed; a rule
is learned on a column's first 10% and is a false positive if it flags the rest of the column (the
Fisher test at 0.01 for FMDV-VH). Per family: the share of columns with a rule, precision and recall.

* ``number#domain``: ``48213#shop.example.net``, one to three host labels and a top-level domain after
  ``#``; labels from a per-column pool, some with digits or a hyphen.
* ``bracketed timestamps``: ``[12.50|03/14/2021 08:05:09|03/15/2021 17:44:02|open]``; the training
  tenth repeats about 18 distinct records, the rest are new records of the same grammar.
* ``dotted names``: ``Page.Home.sports``; the training tenth's last words are lower-case letters, the
  rest hold a word with digits (``apps4kids``) in about 11% of the values.
* ``12-hour timestamps``: ``5/26/2014 10:04:57 AM``.

    python bench/eval_composite_classes.py --index bench/out/index-wide-v8 --test-seed 17
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.eval_composite import evaluate, test_columns  # noqa: E402
from bench.eval_quality import BenchColumn, write_outputs  # noqa: E402
from lakeindex.index.store import IndexReader  # noqa: E402
from sample_lake.wide import WORDS  # noqa: E402

HOST_LABELS = ("shop", "mail", "api", "www", "cdn", "static", "eu-west", "us-east", "media", "auth", "img2",
               "app", "portal", "edge1", "corp", "example", "acme", "store", "blog", "files")
TLDS = ("com", "net", "org", "io", "co.uk", "de", "com.au")
SECTIONS = ("Home", "Main", "Shop", "Blog", "News", "Sports", "Account", "Help", "Search", "Video")
STATES = ("open", "closed", "pending", "done", "failed", "queued", "active")


def _number_domain(r: random.Random, n: int) -> list[str]:
    """``<id>#<labels>.<tld>``: a per-column id width and label pool."""
    width = r.choice((4, 5, 5, 6))
    labels = r.sample(HOST_LABELS, r.randint(4, 10))
    tlds = r.sample(TLDS, r.randint(1, 3))
    out = []
    for _ in range(n):
        host = ".".join(r.choice(labels) for _ in range(r.randint(1, 3)))
        out.append(f"{r.randrange(10 ** (width - 1), 10 ** width)}#{host}.{r.choice(tlds)}")
    return out


def _us_ts(r: random.Random, twelve_hour: bool) -> str:
    """``MM/DD/YYYY hh:mm:ss``, or ``M/D/YYYY h:mm:ss AM`` (``twelve_hour``)."""
    month, day, year = r.randint(1, 12), r.randint(1, 28), r.randint(2012, 2025)
    hour, minute, second = r.randint(0, 23), r.randint(0, 59), r.randint(0, 59)
    if twelve_hour:
        half = "AM" if hour < 12 else "PM"
        return f"{month}/{day}/{year} {hour % 12 or 12}:{minute:02d}:{second:02d} {half}"
    return f"{month:02d}/{day:02d}/{year} {hour:02d}:{minute:02d}:{second:02d}"


def _bracketed(r: random.Random, n: int) -> list[str]:
    """``[decimal|ts|ts|state]``; the first tenth drawn from about 18 distinct records."""
    scale = 10 ** r.randint(1, 4)
    states = r.sample(STATES, r.randint(3, 6))

    def record() -> str:
        return f"[{r.uniform(0, scale):.2f}|{_us_ts(r, False)}|{_us_ts(r, False)}|{r.choice(states)}]"

    head = max(1, n // 10)
    pool = [record() for _ in range(r.randint(15, 21))]
    return [r.choice(pool) for _ in range(head)] + [record() for _ in range(n - head)]


def _dotted(r: random.Random, n: int) -> list[str]:
    """``Page.Section.word``; after the first tenth about 11% of the last words hold digits."""
    root = r.choice(("Page", "Screen", "View", "App"))
    sections = r.sample(SECTIONS, r.randint(3, 7))
    words = r.sample(WORDS, r.randint(6, 12))
    head = max(1, n // 10)
    out = []
    for i in range(n):
        word = r.choice(words)
        if i >= head and r.random() < 0.11:
            word = f"{word[:r.randint(2, 5)]}{r.randint(1, 99)}{r.choice(('', 'kids', 'x', 'go'))}"
        out.append(f"{root}.{r.choice(sections)}.{word}")
    return out


def _twelve_hour(r: random.Random, n: int) -> list[str]:
    """``M/D/YYYY h:mm:ss AM``."""
    return [_us_ts(r, True) for _ in range(n)]


FAMILIES: dict[str, Callable[[random.Random, int], list[str]]] = {
    "number#domain": _number_domain,
    "bracketed timestamps": _bracketed,
    "dotted names": _dotted,
    "12-hour timestamps": _twelve_hour,
}


def family_columns(test_seed: int, per_family: int, rows: int) -> list[BenchColumn]:
    """``per_family`` columns of each family, kind = family name, domain = family name."""
    out = []
    for name, fn in FAMILIES.items():
        for i in range(per_family):
            rng = random.Random(f"lakeindex/bench/eval_composite_classes/{test_seed}/{name}/{i}")
            out.append(BenchColumn(f"{name}/{i}", name, fn(rng, rows), name))
    return out


def summarize(rows: list[dict]) -> dict:
    """Per family: columns, rule share, precision, recall (also without the family's own columns)."""
    out = {}
    for name in FAMILIES:
        sel = [x for x in rows if x["kind"] == name]
        out[name] = {"columns": len(sel), "rule_found": round(float(np.mean([x["feasible"] for x in sel])), 4),
                     "precision": round(float(np.mean([x["precision"] for x in sel])), 4),
                     "recall": round(float(np.mean([x["recall"] for x in sel])), 4),
                     "recall_answer_key": round(float(np.mean([x["recall_answer_key"] for x in sel])), 4),
                     "rules": sorted({x.get("pattern") or f"(none: {x.get('reason')})" for x in sel})}
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--index", type=Path, required=True)
    ap.add_argument("--lake-seed", type=int, default=7, help="seed the index's lake was generated with")
    ap.add_argument("--test-seed", type=int, default=17, help="seed of the family and held-out columns")
    ap.add_argument("--per-family", type=int, default=10)
    ap.add_argument("--held-out", type=int, default=60, help="held-out composite columns among the others")
    ap.add_argument("--rows", type=int, default=1000)
    ap.add_argument("--method", default="fmdv-vh")
    ap.add_argument("--out", type=Path, default=None)
    ap.add_argument("--details", type=Path, default=None)
    args = ap.parse_args()
    t0 = time.time()
    columns = family_columns(args.test_seed, args.per_family, args.rows)
    columns += test_columns(args.lake_seed, args.test_seed, args.held_out, args.rows, 0.0)
    details: list[dict] | None = [] if args.details else None
    with IndexReader(args.index) as ix:
        rows = evaluate(columns, ix, [args.method], None, 0.1, False, details)[args.method]
    report = {"date": time.strftime("%Y-%m-%d"), "command": " ".join(sys.argv), "index": str(args.index),
              "test_seed": args.test_seed, "columns": len(columns), "seconds": round(time.time() - t0, 1),
              "families": summarize(rows)}
    text = json.dumps(report, indent=2)
    print(text)
    write_outputs(text, args.out, args.details, details)
    return 0


if __name__ == "__main__":
    sys.exit(main())
