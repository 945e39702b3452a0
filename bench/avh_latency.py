"""Latency of validation by history for one batch: AVH learn + check from the repository, and end to end.

    python bench/avh_latency.py --history 30 --rows 100000 --runs 5

Builds a history of ``--history`` clean daily batches (``--rows`` rows, 6 columns) in a metrics
repository under bench/out (reused when present), then for a new batch measures, median of ``--runs``:
- the Spark summary pass (summaries + bounded sample + synthetic-issue features of the batch);
- learn + check: reading the clean history from the repository, learning every column's AVH program
  and checking the batch's features (the issue target: ≤ 0.2 s);
- kNN fit + score;
- end to end, as ``lakeindex validate-batch`` runs it: ``BatchValidator.default().validate_frame``
  (without recording).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

OUT = Path(__file__).resolve().parent / "out"


def batch(day: int, rows: int, seed: int) -> pd.DataFrame:
    """A day of orders: trend and weekly cycle in amounts, stable categories, ids, emails."""
    rng = np.random.default_rng(seed)
    n = rows + int(rng.integers(-rows // 50, rows // 50 + 1))
    weekly = 5 * np.sin(2 * np.pi * day / 7)
    return pd.DataFrame({
        "amount": np.round(rng.gamma(4, 25, n) + day * 0.3 + weekly, 2),
        "quantity": rng.integers(1, 20, n),
        "country": rng.choice(["us", "de", "fr", "jp", "br", "in"], n, p=[.3, .2, .15, .15, .1, .1]),
        "status": rng.choice(["new", "paid", "shipped", "returned"], n, p=[.2, .4, .35, .05]),
        "order_id": [f"ORD-{day:04d}-{i:07d}" for i in range(n)],
        "email": [f"user{int(u)}@example.{tld}" for u, tld in zip(rng.integers(1, 10**6, n),
                                                                    rng.choice(["com", "org", "net"], n),
                                                                    strict=True)],
    })


def median_ms(fn, runs: int) -> tuple[float, list[float]]:  # noqa: ANN001
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t) * 1000)
    return round(statistics.median(times), 1), [round(x, 1) for x in times]


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--history", type=int, default=30)
    p.add_argument("--rows", type=int, default=100_000)
    p.add_argument("--runs", type=int, default=5)
    args = p.parse_args()

    from lakeindex.avh.from_history import check_dataset, learn_dataset_programs
    from lakeindex.history.batches import BatchHistory, profile_batch
    from lakeindex.spark_session import get_spark
    from lakeindex.validation import BatchUnderTest, BatchValidator, NoveltySignal

    spark = get_spark(app_name="bench-avh")
    OUT.mkdir(exist_ok=True)
    repo = OUT / f"avh-repo-{args.history}x{args.rows}"
    history = BatchHistory(str(repo), "orders")
    have = len(history.records())
    t = time.perf_counter()
    for day in range(have, args.history):
        history.add(spark.createDataFrame(batch(day, args.rows, seed=day)), f"d{day:03d}", timestamp_ms=1000 + day)
        print(f"history {day + 1}/{args.history}", file=sys.stderr, flush=True)
    build_s = time.perf_counter() - t
    new_df = spark.createDataFrame(batch(args.history, args.rows, seed=10_000)).cache()
    new_df.count()
    clean = history.records(light=True)

    profile_batch(new_df, "warm", clean[-1])
    summary_ms, summary_all = median_ms(lambda: profile_batch(new_df, "candidate", clean[-1]), args.runs)
    new = profile_batch(new_df, "candidate", clean[-1])

    def learn_check() -> None:
        recs = history.records(light=True)
        programs = learn_dataset_programs(recs)
        check_dataset(programs, recs, new)

    def read_only() -> None:
        history.records(light=True)

    learn_check()
    learn_ms, learn_all = median_ms(learn_check, args.runs)
    read_ms, _ = median_ms(read_only, args.runs)
    novelty = NoveltySignal()
    knn_ms, _ = median_ms(lambda: novelty.evaluate(BatchUnderTest(new, clean)), args.runs)
    validator = BatchValidator.default()
    e2e_ms, e2e_all = median_ms(lambda: validator.validate_frame(new_df, history, "candidate", record=False),
                                args.runs)
    programs = learn_dataset_programs(clean)
    result = {
        "command": " ".join(["python", "bench/avh_latency.py", *sys.argv[1:]]), "date": time.strftime("%Y-%m-%d"),
        "cpus": os.cpu_count(), "loadavg": os.getloadavg(), "history_batches": len(clean), "rows": args.rows,
        "columns": len(clean[-1].summaries), "history_build_s": round(build_s, 1),
        "summary_pass_ms_median": summary_ms, "summary_pass_ms": summary_all,
        "learn_and_check_ms_median": learn_ms, "learn_and_check_ms": learn_all,
        "of_which_repository_read_ms_median": read_ms, "knn_fit_score_ms_median": knn_ms,
        "validate_batch_end_to_end_ms_median": e2e_ms, "validate_batch_end_to_end_ms": e2e_all,
        "clauses_per_column": {c: len(p.clauses) for c, p in programs.programs.items()},
        "columns_skipped": programs.skipped,
    }
    (OUT / "avh_latency.json").write_text(json.dumps(result, indent=2))
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
