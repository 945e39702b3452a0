"""Seeded generator of tiny weekly batches of social-media posts, each with a clean and a dirty copy.

Why: validation by history on a public recurring dataset (53 weekly partitions of news-outlet posts, about
20 rows a week, long free texts; real errors in a dirty copy of each week) defeats bounds learned on large
batches. That dataset is not shipped, so this script simulates one of the same shape with a seed of its own;
``bench/eval_tiny_history.py`` checks it week by week.

Columns (14): ``post_id`` (unique text), ``page_id`` (number), ``page_name`` and ``outlet`` (one per page),
``outlet_type`` and ``post_type`` (lower-case labels), ``created_time`` (ISO timestamp), ``link`` (URL),
``message``, ``description`` (long free texts, sometimes empty), ``caption`` (a domain, often empty),
``likes``, ``shares``, ``comments`` (heavy-tailed counts). 14-27 rows a week; a page posts more in some weeks.

The dirty copy of a week holds one to five wrong cells, of two kinds (as in the real data):

* **boilerplate**: a text field that is empty in the clean copy holds one long boilerplate text (the same
  value in every cell it fills): completeness jumps and one long value repeats;
* **label**: a category label outside the clean weeks' vocabulary: a case variant (``Article`` for
  ``article``) or a near-synonym (``website``, ``blog``).

    python bench/tiny_text_dataset.py --weeks 53 --seed 4242 --out bench/out/tiny_text

In-process: ``from bench.tiny_text_dataset import generate; weeks = generate(53, seed=4242)`` gives a list of
``(clean, dirty, wrong_cells)`` per week. Files: ``clean/week-NN.parquet``, ``dirty/week-NN.parquet`` and
``manifest.json`` (the wrong cells of each week).
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import Path

import numpy as np
import pandas as pd

DEFAULT_SEED = 4242
# page name, outlet, outlet type, domain, share of the posts
PAGES = (
    ("Daily Planet", "Planet Media Group", "newspaper", "dailyplanet.com", 0.22),
    ("Metro Courier", "Courier Holdings", "newspaper", "metrocourier.net", 0.16),
    ("World Wire", "World Wire Agency", "news agency", "worldwire.org", 0.14),
    ("Channel Nine News", "Nine Broadcasting", "broadcaster", "ninenews.tv", 0.13),
    ("The Weekly Lens", "Lens Publishing", "magazine", "weeklylens.com", 0.10),
    ("Evening Standard Post", "Standard Post Ltd", "newspaper", "eveningpost.co.uk", 0.09),
    ("Radio Horizon", "Horizon Public Radio", "broadcaster", "radiohorizon.fm", 0.08),
    ("Science Today", "Lens Publishing", "magazine", "sciencetoday.com", 0.08),
)
PAGE_IDS = (101873, 228190, 311457, 402288, 517763, 600912, 713305, 804411)
POST_TYPES = ("article", "video", "photo", "link", "status")
POST_TYPE_P = np.array([0.52, 0.18, 0.15, 0.10, 0.05])
SECTIONS = ("world", "politics", "business", "science", "culture", "sport", "health", "tech")
WORDS = ("government", "report", "minister", "city", "council", "market", "prices", "climate", "study", "scientists",
         "team", "season", "final", "election", "voters", "court", "ruling", "company", "workers", "strike",
         "hospital", "patients", "school", "students", "festival", "film", "music", "record", "storm", "flood",
         "police", "investigation", "budget", "plan", "energy", "water", "transport", "housing", "rents", "museum",
         "exhibition", "space", "mission", "launch", "data", "privacy", "bank", "rates", "inflation", "trade")
GLUE = ("the", "a", "of", "in", "to", "and", "after", "over", "for", "with", "as", "on", "new", "says", "could")
BOILERPLATE = ("This content is not available in your region. Subscribe to our newsletter for the latest news, "
               "analysis and opinion from around the world, delivered to your inbox every morning. Follow us for "
               "more updates and share this story with your friends.")
CASE_VARIANTS = {"post_type": ("Article", "Video", "Photo"), "outlet_type": ("Newspaper", "Magazine")}
SYNONYMS = {"post_type": ("website", "blog", "story"), "outlet_type": ("website", "blog", "online")}
TEXT_FIELDS = ("message", "description", "caption")


@dataclass(frozen=True)
class WrongCell:
    """One cell of a dirty copy that differs from the clean copy."""

    row: int
    column: str
    clean: str | None
    dirty: str
    kind: str  # "boilerplate", "case" or "synonym"


def _sentence(rng: np.random.Generator, words: int) -> str:
    """A pseudo-headline sentence of about ``words`` words."""
    out = [rng.choice(WORDS) if rng.random() < 0.6 else rng.choice(GLUE) for _ in range(words)]
    return " ".join(out).capitalize() + "."


def _text(rng: np.random.Generator, sentences: tuple[int, int], words: tuple[int, int]) -> str:
    return " ".join(_sentence(rng, int(rng.integers(*words))) for _ in range(int(rng.integers(*sentences))))


def week(t: int, day: date, first_seq: int, rng: np.random.Generator) -> pd.DataFrame:
    """The clean posts of week ``t`` starting on ``day``, numbered from ``first_seq``."""
    n = int(np.clip(rng.poisson(20), 14, 27))
    share = rng.dirichlet(np.array([p[4] for p in PAGES]) * 30)  # some weeks a page posts more
    page = rng.choice(len(PAGES), n, p=share)
    ptype = rng.choice(POST_TYPES, n, p=POST_TYPE_P)
    seconds = np.sort(rng.integers(0, 7 * 86400, n))
    rows = []
    for i in range(n):
        name, outlet, otype, domain, _ = PAGES[page[i]]
        when = pd.Timestamp(day) + pd.Timedelta(seconds=int(seconds[i]))
        slug = "-".join(rng.choice(WORDS, int(rng.integers(3, 8))))
        link = f"https://www.{domain}/{rng.choice(SECTIONS)}/{when:%Y/%m/%d}/{slug}"
        reach = rng.lognormal(4.0 + 0.3 * (page[i] < 3), 1.2)
        rows.append({
            "post_id": f"{PAGE_IDS[page[i]]}_{first_seq + i}",
            "page_id": PAGE_IDS[page[i]],
            "page_name": name,
            "outlet": outlet,
            "outlet_type": otype,
            "post_type": str(ptype[i]),
            "created_time": f"{when:%Y-%m-%dT%H:%M:%S}+0000",
            "link": link if ptype[i] != "status" else None,
            "message": _text(rng, (1, 4), (6, 18)) if rng.random() < 0.9 else None,
            "description": _text(rng, (1, 3), (8, 20)) if rng.random() < 0.65 else None,
            "caption": domain if rng.random() < 0.7 else None,
            "likes": int(reach),
            "shares": int(reach * rng.beta(1, 6)),
            "comments": int(reach * rng.beta(1, 10)),
        })
    return pd.DataFrame(rows).astype({"page_id": "int64", "likes": "int64", "shares": "int64", "comments": "int64"})


def dirty_copy(clean: pd.DataFrame, rng: np.random.Generator) -> tuple[pd.DataFrame, list[WrongCell]]:
    """The week with one to five wrong cells: boilerplate in empty text fields and/or out-of-vocabulary labels."""
    dirty = clean.copy()
    wrong: list[WrongCell] = []
    kinds = ["boilerplate", "label"] if rng.random() < 0.35 else [str(rng.choice(["boilerplate", "label"]))]
    for kind in kinds:
        if kind == "boilerplate":
            empty = [(c, r) for c in TEXT_FIELDS for r in np.flatnonzero(clean[c].isna())]
            fields = sorted({c for c, _ in empty})
            if not fields:
                continue
            column = str(rng.choice(fields))
            rows = [r for c, r in empty if c == column]
            for r in rng.choice(rows, min(len(rows), int(rng.integers(1, 4))), replace=False):
                dirty.loc[r, column] = BOILERPLATE
                wrong.append(WrongCell(int(r), column, None, BOILERPLATE, "boilerplate"))
        else:
            column = str(rng.choice(["post_type", "outlet_type"]))
            for r in rng.choice(len(clean), int(rng.integers(1, 3)), replace=False):
                old = str(clean.loc[r, column])
                variants = [v for v in CASE_VARIANTS[column] if v.lower() == old]
                how = "case" if variants and rng.random() < 0.5 else "synonym"
                new = variants[0] if how == "case" else str(rng.choice(SYNONYMS[column]))
                dirty.loc[r, column] = new
                wrong.append(WrongCell(int(r), column, old, new, how))
    if not wrong:  # a week without empty text fields and a boilerplate draw: fall back to a label
        r = int(rng.integers(len(clean)))
        new = str(rng.choice(SYNONYMS["outlet_type"]))
        wrong.append(WrongCell(r, "outlet_type", str(clean.loc[r, "outlet_type"]), new, "synonym"))
        dirty.loc[r, "outlet_type"] = new
    return dirty, wrong


def generate(weeks: int = 53, seed: int = DEFAULT_SEED,
             start: str = "2019-01-07") -> list[tuple[pd.DataFrame, pd.DataFrame, list[WrongCell]]]:
    """``(clean, dirty, wrong_cells)`` of each of the first ``weeks`` weeks; deterministic in ``seed``."""
    if weeks < 1:
        raise ValueError("weeks must be >= 1")
    rng = np.random.default_rng(seed)
    day0 = date.fromisoformat(start)
    out, seq = [], 1
    for t in range(weeks):
        clean = week(t, day0 + timedelta(weeks=t), seq, rng)
        seq += len(clean)
        dirty, wrong = dirty_copy(clean, rng)
        out.append((clean, dirty, wrong))
    return out


def write(weeks: list[tuple[pd.DataFrame, pd.DataFrame, list[WrongCell]]], out: Path, settings: dict) -> dict:
    """``clean/week-NN.parquet``, ``dirty/week-NN.parquet`` and ``manifest.json``; returns the manifest."""
    files = []
    for copy in ("clean", "dirty"):
        (out / copy).mkdir(parents=True, exist_ok=True)
    for t, (clean, dirty, wrong) in enumerate(weeks):
        clean.to_parquet(out / "clean" / f"week-{t:02d}.parquet", index=False)
        dirty.to_parquet(out / "dirty" / f"week-{t:02d}.parquet", index=False)
        files.append({"week": t, "rows": len(clean), "wrong_cells": [vars(w) for w in wrong]})
    manifest = {"generator": "bench/tiny_text_dataset.py", "settings": settings, "weeks": files}
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1))
    return manifest


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--weeks", type=int, default=53)
    ap.add_argument("--seed", type=int, default=DEFAULT_SEED)
    ap.add_argument("--start", default="2019-01-07", help="first day of the first week (ISO)")
    ap.add_argument("--out", type=Path, default=Path(__file__).resolve().parent / "out" / "tiny_text")
    args = ap.parse_args()
    weeks = generate(args.weeks, args.seed, args.start)
    manifest = write(weeks, args.out, {"weeks": args.weeks, "seed": args.seed, "start": args.start})
    rows = [w["rows"] for w in manifest["weeks"]]
    cells = [len(w["wrong_cells"]) for w in manifest["weeks"]]
    print(json.dumps({"out": str(args.out), "weeks": len(rows), "rows_min": min(rows), "rows_max": max(rows),
                      "wrong_cells_min": min(cells), "wrong_cells_max": max(cells)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
