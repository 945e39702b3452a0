"""False alarms of each validate-batch signal on clean batches, by the length of the clean history (issue 13 §4).

    python bench/signal_warmup.py --seeds 5 --batches 40 --rows 1000 --out bench/out/signal_warmup.json

What: the seeded recurring pipeline of ``bench/recurring_dataset.py`` (trend, weekly cycle, daily noise, no
data-quality issue: every batch is clean). For each history length h and each batch t ≥ h, the signals judge
batch t against the h clean batches before it (t−h … t−1), as ``validate-batch`` does once h batches are
recorded: every flag is a false alarm. Batches are profiled with the pandas path (``history.batches.profile``)
and get their synthetic-issue features, as accepted batches do. FPR(h) = flags / tests, per signal and for the
batch (any signal). The pattern signal needs an index and is not measured here.

Why: a signal fitted on a handful of batches has not seen the weekly cycle; the defaults of each signal's
minimum history (``lakeindex.validation.policy``) are read off this table.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.recurring_dataset import generate  # noqa: E402
from lakeindex.history.batches import add_issue_features, profile  # noqa: E402
from lakeindex.validation.avh import AVHSignal  # noqa: E402
from lakeindex.validation.novelty import NoveltySignal  # noqa: E402
from lakeindex.validation.schema import SchemaSignal  # noqa: E402
from lakeindex.validation.signal import BatchUnderTest  # noqa: E402

HISTORY_LENGTHS = (2, 3, 4, 5, 6, 7, 8, 10, 12, 14, 21, 28)


def records_of(seed: int, batches: int, rows: int) -> list:
    """The seed's clean batches, each profiled against the one before and with its issue features."""
    out, prev = [], None
    for i, frame in enumerate(generate(batches, rows=rows, seed=seed)):
        rec = profile(frame, f"s{seed}-b{i:03d}", prev, issues=False)
        add_issue_features(rec, workers=1)
        out.append(rec)
        prev = rec
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--batches", type=int, default=40)
    ap.add_argument("--rows", type=int, default=1000)
    ap.add_argument("--lengths", default=",".join(map(str, HISTORY_LENGTHS)))
    ap.add_argument("--out", type=Path, default=Path(__file__).resolve().parent / "out" / "signal_warmup.json")
    args = ap.parse_args()
    lengths = [int(x) for x in args.lengths.split(",")]
    signals = [SchemaSignal(), AVHSignal(), NoveltySignal()]
    counts = {h: {"tests": 0, **{s.name: 0 for s in signals}, "batch": 0} for h in lengths}
    t0 = time.time()
    for seed in range(1, args.seeds + 1):
        recs = records_of(seed, args.batches, args.rows)
        for h in lengths:
            for t in range(h, len(recs)):
                batch = BatchUnderTest(recs[t], recs[t - h:t])
                c = counts[h]
                c["tests"] += 1
                failed = [s.name for s in signals if s.evaluate(batch)["status"] == "failed"]
                for name in failed:
                    c[name] += 1
                c["batch"] += bool(failed)
        print(f"seed {seed} done, {time.time() - t0:.0f}s", file=sys.stderr, flush=True)
    table = {h: {"tests": c["tests"], **{k: round(v / c["tests"], 4) for k, v in c.items() if k != "tests"}}
             for h, c in counts.items()}
    doc = {"settings": vars(args) | {"out": str(args.out)}, "fpr_by_history_length": table,
           "seconds": round(time.time() - t0, 1)}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(doc, indent=2))
    print("| clean batches h | tests | schema | avh | novelty | any signal |")
    print("|---|---|---|---|---|---|")
    for h, r in table.items():
        print(f"| {h} | {r['tests']} | {r['schema']:.3f} | {r['avh']:.3f} | {r['novelty']:.3f} | {r['batch']:.3f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
