"""Seeded generator of a recurring pipeline's daily batches, for the validation-by-history benchmark.

Why: AVH (KDD 2023, §5.1) is evaluated on sequences of batches of a recurring pipeline with sliding windows
of history. Production sequences are not public, so this script simulates one order feed with the kind of
*benign* drift a real pipeline has (a growing trend, a weekly cycle, day-to-day noise) and no data-quality
issue at all: every batch it writes is clean. ``bench/eval_history.py`` injects the synthetic issues itself.

Columns (in this order, which decides the "neighbouring column" of a schema-change issue):

=================  ============  ===================================================================
column             kind          behaviour
=================  ============  ===================================================================
``order_id``       text          ``ORD-0100000``, consecutive across batches (every value unique)
``order_ts``       text          ``YYYY-MM-DD HH:MM:SS`` within the batch's day, busier at daytime
``customer_email`` text          ``first.last42@domain``, lower case; ~3 % nulls (rate varies daily)
``country``        text          lower-case ISO codes, stable mix with small daily (Dirichlet) noise
``status``         text          5 states; weekend batches have more ``pending``, fewer ``shipped``
``amount``         float         log-normal, mean trending up ~0.3 %/day, weekend uplift; ~1.5 % nulls
``quantity``       int           1 + Poisson(1.3), a bit larger at weekends; no nulls
``latency_ms``     float         log-normal body + 2 % Pareto tail (heavy), mild trend; ~0.5 % nulls
=================  ============  ===================================================================

Rows per batch: ``rows`` × (1 + 0.4 %/day growth) × weekly factor (Sat 0.80, Sun 0.74, Mon 1.06, ...) ×
log-normal noise (sd 4 %): about 2,500-4,700 rows with the default ``rows = 3500`` and 60 batches.

    python bench/recurring_dataset.py --batches 60 --rows 3500 --seed 7 --out bench/out/recurring
    python bench/recurring_dataset.py --format csv --out bench/out/recurring_csv

In-process: ``from bench.recurring_dataset import generate; batches = generate(60, seed=7)``.
Files are ``batch-000.parquet`` (or ``.csv``), ..., plus ``manifest.json`` (dates, row counts, settings).
"""

from __future__ import annotations

import argparse
import json
import sys
from datetime import date, timedelta
from pathlib import Path

import numpy as np
import pandas as pd

COUNTRIES = ("us", "gb", "de", "fr", "ca", "au", "nl", "es", "it", "jp", "br", "in", "mx", "se", "pl")
COUNTRY_P = np.array([0.34, 0.11, 0.10, 0.08, 0.07, 0.05, 0.04, 0.04, 0.04, 0.03, 0.03, 0.03, 0.02, 0.01, 0.01])
STATUSES = ("delivered", "shipped", "pending", "cancelled", "returned")
STATUS_WEEKDAY = np.array([0.55, 0.25, 0.10, 0.06, 0.04])
STATUS_WEEKEND = np.array([0.50, 0.15, 0.24, 0.07, 0.04])
# Monday .. Sunday
WEEKLY_ROWS = np.array([1.06, 1.02, 1.00, 1.01, 1.04, 0.80, 0.74])
WEEKLY_AMOUNT = np.array([0.00, -0.02, -0.03, -0.01, 0.03, 0.09, 0.07])  # added to the log-mean
FIRST = ("anna", "ben", "carla", "dev", "emma", "finn", "grace", "hugo", "ines", "jon", "kai", "lena", "mia", "noah",
         "olga", "paul", "rosa", "sam", "tara", "uma", "vik", "wen", "yara", "zoe")
LAST = ("smith", "jones", "garcia", "muller", "rossi", "kim", "silva", "novak", "khan", "lopez", "dubois", "berg",
        "tanaka", "patel", "nguyen", "olsen")
DOMAINS = ("gmail.com", "yahoo.com", "outlook.com", "example.org", "mail.de", "proton.me")
DOMAIN_P = np.array([0.45, 0.15, 0.2, 0.08, 0.07, 0.05])
FIRST_ID = 100_000
MIN_ROWS, MAX_ROWS = 500, 50_000


def _with_nulls(values: np.ndarray, rate: float, rng: np.random.Generator) -> np.ndarray:
    """Null out a binomial number of random positions (rate per row)."""
    out = values.astype(object) if values.dtype.kind in "OUS" else values.astype(float)
    mask = rng.random(len(values)) < rate
    out[mask] = None if out.dtype == object else np.nan
    return out


def _timestamps(day: date, n: int, rng: np.random.Generator) -> np.ndarray:
    """n sorted times of day, a mixture of a daytime peak, an evening peak and a uniform floor."""
    which = rng.choice(3, size=n, p=[0.55, 0.30, 0.15])
    secs = np.where(which == 0, rng.normal(12.5 * 3600, 2.8 * 3600, n),
                    np.where(which == 1, rng.normal(20 * 3600, 1.5 * 3600, n), rng.uniform(0, 86400, n)))
    secs = np.sort(np.clip(secs, 0, 86399).astype(int))
    prefix = day.isoformat()
    return np.array([f"{prefix} {s // 3600:02d}:{s // 60 % 60:02d}:{s % 60:02d}" for s in secs], dtype=object)


def batch(t: int, day: date, first_id: int, rows: int, rng: np.random.Generator) -> pd.DataFrame:
    """Batch number ``t`` (0-based) of the pipeline, for calendar day ``day``, with ids from ``first_id``."""
    dow = day.weekday()
    weekend = dow >= 5
    n = int(round(rows * (1 + 0.004 * t) * WEEKLY_ROWS[dow] * rng.lognormal(0.0, 0.04)))
    n = int(np.clip(n, MIN_ROWS, MAX_ROWS))

    ids = np.array([f"ORD-{i:07d}" for i in range(first_id, first_id + n)], dtype=object)
    first = rng.choice(FIRST, n)
    last = rng.choice(LAST, n)
    num = rng.integers(1, 1000, n)
    dom = rng.choice(DOMAINS, n, p=DOMAIN_P)
    emails = np.array([f"{a}.{b}{k}@{d}" for a, b, k, d in zip(first, last, num, dom, strict=True)], dtype=object)
    email_null = float(np.clip(rng.normal(0.03, 0.004), 0.01, 0.05))

    country_p = rng.dirichlet(COUNTRY_P * 10000)  # small day-to-day noise (0.3x sampling variance)
    countries = rng.choice(COUNTRIES, n, p=country_p).astype(object)
    status_p = STATUS_WEEKEND if weekend else STATUS_WEEKDAY
    status = rng.choice(STATUSES, n, p=rng.dirichlet(status_p * 2000)).astype(object)

    log_mean = np.log(40.0) + 0.003 * t + WEEKLY_AMOUNT[dow] + rng.normal(0, 0.01)
    amount = np.round(rng.lognormal(log_mean, 0.6, n), 2)
    quantity = 1 + rng.poisson(1.45 if weekend else 1.3, n)
    body = rng.lognormal(np.log(120.0) + 0.001 * t, 0.45, n)
    tail = 400.0 * (1 + rng.pareto(2.5, n))  # heavy tail: 2 % of requests are slow
    latency = np.round(np.where(rng.random(n) < 0.02, tail, body), 1)

    return pd.DataFrame({
        "order_id": ids,
        "order_ts": _timestamps(day, n, rng),
        "customer_email": _with_nulls(emails, email_null, rng),
        "country": countries,
        "status": status,
        "amount": _with_nulls(amount, float(np.clip(rng.normal(0.015, 0.002), 0.005, 0.03)), rng),
        "quantity": quantity.astype("int64"),
        "latency_ms": _with_nulls(latency, 0.005, rng),
    })


def generate(batches: int = 60, rows: int = 3500, seed: int = 7, start: str = "2024-01-01") -> list[pd.DataFrame]:
    """The pipeline's first ``batches`` daily batches (clean), one DataFrame each; deterministic in ``seed``."""
    if batches < 1 or rows < 1:
        raise ValueError("batches and rows must be >= 1")
    rng = np.random.default_rng(seed)
    day0 = date.fromisoformat(start)
    out, next_id = [], FIRST_ID
    for t in range(batches):
        df = batch(t, day0 + timedelta(days=t), next_id, rows, rng)
        next_id += len(df)
        out.append(df)
    return out


def write(frames: list[pd.DataFrame], out: Path, fmt: str = "parquet", start: str = "2024-01-01",
          settings: dict | None = None) -> dict:
    """Write ``batch-NNN.<fmt>`` per frame and ``manifest.json``; returns the manifest."""
    out.mkdir(parents=True, exist_ok=True)
    for old in [*out.glob("batch-*.parquet"), *out.glob("batch-*.csv")]:
        old.unlink()
    day0 = date.fromisoformat(start)
    files = []
    for t, df in enumerate(frames):
        path = out / f"batch-{t:03d}.{fmt}"
        if fmt == "parquet":
            df.to_parquet(path, index=False)
        else:
            df.to_csv(path, index=False)
        files.append({"file": path.name, "date": (day0 + timedelta(days=t)).isoformat(), "rows": len(df)})
    manifest = {"generator": "bench/recurring_dataset.py", "settings": settings or {}, "batches": files}
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1))
    return manifest


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--batches", type=int, default=60)
    ap.add_argument("--rows", type=int, default=3500, help="base rows per batch before trend/cycle/noise")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--start", default="2024-01-01", help="date of the first batch (ISO)")
    ap.add_argument("--format", choices=("parquet", "csv"), default="parquet")
    ap.add_argument("--out", type=Path, default=Path(__file__).resolve().parent / "out" / "recurring")
    args = ap.parse_args()
    frames = generate(args.batches, args.rows, args.seed, args.start)
    settings = {"batches": args.batches, "rows": args.rows, "seed": args.seed, "start": args.start}
    manifest = write(frames, args.out, args.format, args.start, settings)
    sizes = [b["rows"] for b in manifest["batches"]]
    print(json.dumps({"out": str(args.out), "batches": len(sizes), "rows_min": min(sizes), "rows_max": max(sizes),
                      "rows_total": sum(sizes), "columns": list(frames[0].columns)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
