"""Composite/wide-column benchmark: the paper's protocol (SIGMOD'21 §5.1) on held-out grammars.

The test columns are not sampled from the lake: they are generated from composite *grammars*
(:mod:`sample_lake.wide`: UUIDs joined to ids, ISO-8601 timestamps with ms and zones, URLs and UNC
paths, ``key:value`` lists, tuples of numbers, bracketed records...) drawn with ``--test-seed``,
and every grammar whose key the lake generated with ``--lake-seed`` may contain is dropped
(:func:`sample_lake.wide.held_out_grammars`). The index can only have evidence for the *parts*
of a test column (a UUID, a date), never the column's own structure, so the benchmark cannot be
tuned to by adding the test domains to the lake.

Protocol, as in ``bench/eval_quality.py`` (whose corpus, flagging and profiler it reuses): each test
column has ``--rows`` values (default 1,000); a rule is learned on the first 10% and is a false
positive if it flags the column's own remaining 90% (precision = 1 - FP rate); recall is the
fraction of the other test columns it flags, 0 on a false positive. A column without a feasible
rule counts precision 1, recall 0. Rules are validated as they say: strict for FMDV/FMDV-V, the
two-tailed Fisher test at 0.01 for the -H variants. With ``--answer-key-recall``, recall is also
reported with the other columns of the same grammar key left out of the denominator.

Fit latency is the in-process ``AutoValidator.fit`` time per column, after one warm-up fit, with one
``SegmentSolver`` per method shared across columns as in the query service (``--cold-solver``: a new
solver, hence an empty pattern cache, for every fit). Results are per structure kind and overall.

    python bench/eval_composite.py --index bench/out/index-wide --lake-seed 7 --test-seed 11 --columns 200
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.eval_quality import (  # noqa: E402
    BenchColumn,
    Corpus,
    flags,
    profiler_pattern,
    solver_bands,
    write_outputs,
)
from lakeindex.fmdv.infer import AutoValidator  # noqa: E402
from lakeindex.fmdv.rule import METHODS as FMDV_METHODS  # noqa: E402
from lakeindex.fmdv.rule import Rule  # noqa: E402
from lakeindex.fmdv.search import SegmentSolver  # noqa: E402
from lakeindex.index.store import IndexReader  # noqa: E402
from sample_lake.generate import SPECIAL_RATE, SPECIAL_TOKENS  # noqa: E402
from sample_lake.wide import KINDS, held_out_grammars  # noqa: E402

BASELINES = ("dictionary", "profiler")


def test_columns(lake_seed: int, test_seed: int, count: int, rows: int, special_share: float) -> list[BenchColumn]:
    """Held-out test columns: kind = structure kind, domain = grammar key; a few carry ad-hoc specials."""
    out = []
    for i, grammar in enumerate(held_out_grammars(lake_seed, test_seed, count)):
        rng = random.Random(f"lakeindex/bench/eval_composite/{test_seed}/{i}")
        values = grammar.generate(rows, rng)
        if rng.random() < special_share:  # the paper's Figure 9: 1-3% of one or two per-column tokens
            tokens = rng.sample(SPECIAL_TOKENS, rng.choice((1, 1, 2)))
            for pos in rng.sample(range(rows), max(1, round(rng.uniform(*SPECIAL_RATE) * rows))):
                values[pos] = rng.choice(tokens)
        out.append(BenchColumn(f"c{i:04d}", grammar.kind, values, grammar.key))
    return out


class OwnTest:
    """Per column: the distinct values of its test part with counts and their rows in the corpus."""

    def __init__(self, columns: list[BenchColumn], corpus: Corpus) -> None:
        rows: list[dict[str, int]] = [{} for _ in columns]
        for j, (v, i) in enumerate(zip(corpus.values.to_pylist(), corpus.ids.tolist(), strict=True)):
            rows[i][v] = j
        self.parts = []
        for i, col in enumerate(columns):
            counts = Counter(col.test)
            self.parts.append((np.array([rows[i][v] for v in counts]), np.array(list(counts.values()))))

    def nonconforming(self, i: int, mask: np.ndarray) -> int:
        """How many of column ``i``'s test values do not satisfy ``mask``."""
        at, counts = self.parts[i]
        return int(counts[~mask[at]].sum())


def _rule_for(meth: str, col: BenchColumn, index: IndexReader, solver: SegmentSolver | None, m: int | None,
              r: float) -> tuple[Rule, float]:
    """Fit one FMDV rule; returns the rule and the fit time in ms."""
    t0 = time.perf_counter()
    rule = AutoValidator(solver if solver is not None else index, method=meth, m=m, r=r).fit(col.train).rule_
    return rule, (time.perf_counter() - t0) * 1000


def evaluate(columns: list[BenchColumn], index: IndexReader, methods: list[str], m: int | None, r: float,
             cold: bool, details: list[dict] | None, bands: dict | None = None) -> dict[str, list[dict]]:
    """Per method, one row per column: feasible, false positive, recall (both kinds), fit time."""
    corpus = Corpus(columns)
    own = OwnTest(columns, corpus)
    keys = np.array([c.domain for c in columns])
    n = len(columns)
    rows: dict[str, list[dict]] = {}
    for meth in methods:
        solver = None if cold else SegmentSolver(index, **(bands or {}))
        if meth in FMDV_METHODS:
            _rule_for(meth, columns[0], index, solver, m, r)  # warm-up: imports, first reads of the index
        out = rows[meth] = []
        for i, col in enumerate(columns):
            row: dict = {"column": col.name, "kind": col.kind, "grammar": col.domain, "method": meth}
            if meth in FMDV_METHODS:
                rule, ms = _rule_for(meth, col, index, solver, m, r)
                row["fit_ms"] = round(ms, 3)
                feasible = rule.feasible
                if feasible:
                    pattern, k_train, n_train, mode = rule.pattern, rule.train_nonconforming, rule.train_size, \
                        rule.validation
                    row.update(pattern=pattern, fpr=rule.fpr)
                else:
                    row["reason"] = rule.reason
            elif meth == "dictionary":
                feasible, k_train, n_train, mode = True, 0, len(col.train), "strict"
            else:
                pattern = profiler_pattern(col.train)
                feasible, k_train, n_train, mode = pattern is not None, 0, len(col.train), "strict"
            row["feasible"] = feasible
            if not feasible:
                row.update(false_positive=False, precision=1.0, recall=0.0, recall_answer_key=0.0)
            else:
                mask = corpus.dictionary_mask(col.train) if meth == "dictionary" else corpus.regex_mask(pattern)
                flagged = flags(mode, k_train, n_train, corpus.nonconforming(mask), corpus.sizes)
                own_flag = bool(flags(mode, k_train, n_train, np.array([own.nonconforming(i, mask)]),
                                      np.array([len(col.test)]))[0])
                others = np.delete(flagged, i)
                different = others[np.delete(keys, i) != col.domain]
                row.update(false_positive=own_flag, precision=0.0 if own_flag else 1.0,
                           recall=0.0 if own_flag or n < 2 else float(others.mean()),
                           recall_answer_key=0.0 if own_flag or not len(different) else float(different.mean()))
            out.append(row)
            if details is not None:
                details.append({**row, "example": col.values[0]})
            if (i + 1) % 50 == 0:
                print(f"  {meth}: {i + 1}/{n} columns", file=sys.stderr, flush=True)
    return rows


def summarize(rows: dict[str, list[dict]], answer_key: bool) -> dict:
    """Per structure kind and overall, per method: precision, recall, no-rule share, fit p50/p99."""
    kinds = [k for k in KINDS if any(row["kind"] == k for row in next(iter(rows.values())))]
    out: dict = {}
    for group in ["all", *kinds]:
        per: dict = {}
        for meth, col_rows in rows.items():
            sel = [x for x in col_rows if group == "all" or x["kind"] == group]
            p = float(np.mean([x["precision"] for x in sel]))
            rc = float(np.mean([x["recall"] for x in sel]))
            stats = {"precision": round(p, 4), "recall": round(rc, 4),
                     "f1": round(2 * p * rc / (p + rc), 4) if p + rc else 0.0,
                     "no_rule": round(float(np.mean([not x["feasible"] for x in sel])), 4),
                     "false_positives": sum(x["false_positive"] for x in sel)}
            if answer_key:
                stats["recall_answer_key"] = round(float(np.mean([x["recall_answer_key"] for x in sel])), 4)
            ms = [x["fit_ms"] for x in sel if "fit_ms" in x]
            if ms:
                stats["fit_ms_p50"] = round(float(np.percentile(ms, 50)), 2)
                stats["fit_ms_p99"] = round(float(np.percentile(ms, 99)), 2)
            per[meth] = stats
        out[group] = {"columns": len([x for x in next(iter(rows.values())) if group == "all" or x["kind"] == group]),
                      "methods": per}
    return out


def table(summary: dict, answer_key: bool) -> str:
    """A small human-readable table of the summary."""
    head = f"{'kind':<17}{'cols':>5}  {'method':<10}{'prec':>7}{'recall':>8}"
    head += f"{'r_key':>8}" if answer_key else ""
    head += f"{'no_rule':>9}{'p50 ms':>9}{'p99 ms':>9}"
    lines = [head, "-" * len(head)]
    for group, g in summary.items():
        for j, (meth, s) in enumerate(g["methods"].items()):
            line = f"{group if j == 0 else '':<17}{g['columns'] if j == 0 else '':>5}  {meth:<10}"
            line += f"{s['precision']:>7.3f}{s['recall']:>8.3f}"
            line += f"{s['recall_answer_key']:>8.3f}" if answer_key else ""
            nan = float("nan")
            line += f"{s['no_rule']:>9.3f}{s.get('fit_ms_p50', nan):>9.1f}{s.get('fit_ms_p99', nan):>9.1f}"
            lines.append(line)
    return "\n".join(lines)


def held_out_arguments(ap: argparse.ArgumentParser) -> None:
    """The options that pick the index and the held-out test columns (this script and ``wide_latency``)."""
    ap.add_argument("--index", type=Path, required=True)
    ap.add_argument("--lake-seed", type=int, default=7, help="seed the index's lake was generated with")
    ap.add_argument("--test-seed", type=int, default=11, help="seed of the held-out test grammars")
    ap.add_argument("--columns", type=int, default=200)
    ap.add_argument("--rows", type=int, default=1000, help="values per test column")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    held_out_arguments(ap)
    ap.add_argument("--methods", default="fmdv-vh,fmdv-v",
                    help=f"comma-separated, from {', '.join((*FMDV_METHODS, *BASELINES))}")
    ap.add_argument("--special-share", type=float, default=0.1,
                    help="share of test columns with 1-3%% ad-hoc special values (N/A, null, ...)")
    ap.add_argument("--m", type=int, default=None)
    ap.add_argument("--r", type=float, default=0.1)
    ap.add_argument("--fpr-slack", type=float, default=None, help="SegmentSolver's FPR band (default: its own)")
    ap.add_argument("--narrow-slack", type=float, default=None,
                    help="SegmentSolver's narrowing band (default: its own; 0 turns it off)")
    ap.add_argument("--cold-solver", action="store_true", help="a new SegmentSolver (empty cache) for every fit")
    ap.add_argument("--answer-key-recall", action="store_true",
                    help="also report recall without the other columns of the same grammar key")
    ap.add_argument("--out", type=Path, default=None, help="write the JSON summary here too")
    ap.add_argument("--details", type=Path, default=None, help="one JSON line per column and method")
    args = ap.parse_args()
    methods = [x.strip() for x in args.methods.split(",") if x.strip()]
    unknown = [x for x in methods if x not in (*FMDV_METHODS, *BASELINES)]
    if unknown or not methods:
        ap.error(f"unknown methods {unknown}")
    t0 = time.time()
    columns = test_columns(args.lake_seed, args.test_seed, args.columns, args.rows, args.special_share)
    details: list[dict] | None = [] if args.details else None
    with IndexReader(args.index) as ix:
        rows = evaluate(columns, ix, methods, args.m, args.r, args.cold_solver, details, solver_bands(args))
        report = {"date": time.strftime("%Y-%m-%d"), "command": " ".join(sys.argv), "index": str(args.index),
                  "index_version": ix.version, "index_columns": ix.meta.get("columns_scanned"),
                  "lake_seed": args.lake_seed, "test_seed": args.test_seed, "test_columns": len(columns),
                  "rows": args.rows, "grammars": len({c.domain for c in columns}),
                  "kinds": {k: n for k in KINDS if (n := sum(c.kind == k for c in columns))},
                  "columns_with_specials": sum(any(v in SPECIAL_TOKENS for v in c.values) for c in columns),
                  "solver": "cold" if args.cold_solver else "shared per method",
                  "seconds": round(time.time() - t0, 1), "results": summarize(rows, args.answer_key_recall)}
    text = json.dumps(report, indent=2)
    print(text)
    print(table(report["results"], args.answer_key_recall), file=sys.stderr)
    write_outputs(text, args.out, args.details, details)
    return 0


if __name__ == "__main__":
    sys.exit(main())
