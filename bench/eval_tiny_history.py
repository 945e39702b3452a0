"""Validation by history on tiny weekly batches of real-looking text: AVH and kNN precision and recall.

    python bench/eval_tiny_history.py --weeks 53 --seed 4242 --first 20

What: the weeks of ``bench/tiny_text_dataset.py`` (about 20 posts a week, 14 columns, long free texts), each
with a clean and a dirty copy (one to five wrong cells). From week ``--first`` on, each week is checked twice
against all clean weeks before it, as ``validate-batch`` would: its clean copy (a flag is a false alarm) and its
dirty copy (a flag is a detection). Records are built by the production path (``history.batches.profile``
against the previous clean week, synthetic-issue features for the clean ones), the verdicts by the
``avh`` and ``novelty`` signals (``lakeindex.validation``) with their defaults (δ = 0.1 %; k = 5, 1 %
contamination). A batch is flagged when the signal fails (any column, for AVH).

precision = flagged dirty weeks / flagged weeks; recall = flagged dirty weeks / dirty weeks. Also listed: the
clean weeks flagged and, per flagged week, the AVH clauses that fired (column, rule), for diagnosis.

Output: ``bench/out/eval_tiny_history.json`` and a Markdown table on stdout.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.tiny_text_dataset import DEFAULT_SEED, generate  # noqa: E402
from lakeindex.history.batches import add_issue_features, profile  # noqa: E402
from lakeindex.validation.avh import AVHSignal  # noqa: E402
from lakeindex.validation.novelty import NoveltySignal  # noqa: E402
from lakeindex.validation.signal import BatchUnderTest  # noqa: E402


def clauses_fired(result: dict) -> list[str]:
    """``column: rule`` of each violated AVH clause of a signal result."""
    return [f"{c}: {v['rule']}" for c, verdict in result.get("failing_columns", {}).items()
            for v in verdict.get("violations", [])] or list(result.get("failing_columns", {}))


def scores(flags: dict[str, list[bool]]) -> dict[str, float | int | None]:
    """Precision and recall of one signal from its verdicts on the clean and the dirty copies."""
    fp, tp = sum(flags["clean"]), sum(flags["dirty"])
    return {"precision": tp / (tp + fp) if tp + fp else None, "recall": tp / len(flags["dirty"]),
            "dirty_flagged": tp, "clean_flagged": fp, "weeks": len(flags["dirty"])}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--weeks", type=int, default=53)
    ap.add_argument("--seed", type=int, default=DEFAULT_SEED, help="data seed (bench/tiny_text_dataset.py)")
    ap.add_argument("--first", type=int, default=20, help="first week checked (0-based)")
    ap.add_argument("--out", type=Path, default=Path(__file__).resolve().parent / "out" / "eval_tiny_history.json")
    args = ap.parse_args()
    t0 = time.perf_counter()
    weeks = generate(args.weeks, args.seed)
    clean_records = []
    for t, (clean, _, _) in enumerate(weeks):
        rec = profile(clean, f"w{t:02d}", clean_records[-1] if clean_records else None, issues=False)
        add_issue_features(rec, workers=1)
        clean_records.append(rec)
    signals = {"avh": AVHSignal(), "knn": NoveltySignal()}
    flags = {name: {"clean": [], "dirty": []} for name in signals}
    details = []
    for t in range(args.first, args.weeks):
        history = clean_records[:t]
        dirty = profile(weeks[t][1], f"w{t:02d}-dirty", history[-1], issues=False)
        for copy, rec in (("clean", clean_records[t]), ("dirty", dirty)):
            row = {"week": t, "copy": copy}
            for name, signal in signals.items():
                result = signal.evaluate(BatchUnderTest(rec, history))
                failed = result["status"] == "failed"
                flags[name][copy].append(failed)
                row[name] = failed
                if name == "avh" and failed:
                    row["avh_clauses"] = clauses_fired(result)
            if copy == "dirty":
                row["wrong_cells"] = [f"{w.column}:{w.kind}" for w in weeks[t][2]]
            details.append(row)
    summary = {name: scores(f) for name, f in flags.items()}
    doc = {"settings": {"weeks": args.weeks, "seed": args.seed, "first": args.first}, "summary": summary,
           "weeks": details, "seconds": round(time.perf_counter() - t0, 1)}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(doc, indent=1))
    print(f"| signal | precision | recall | dirty weeks flagged | clean weeks flagged |  ({doc['seconds']} s)")
    print("|---|---|---|---|---|")
    for name, s in summary.items():
        p = "—" if s["precision"] is None else f"{s['precision']:.3f}"
        print(f"| {name} | {p} | {s['recall']:.3f} | {s['dirty_flagged']} / {s['weeks']} | "
              f"{s['clean_flagged']} / {s['weeks']} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
