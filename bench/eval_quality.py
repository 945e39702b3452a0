"""Quality benchmark of auto-validation: the paper's programmatic protocol (SIGMOD'21 §5.1).

Sample benchmark columns from a lake and index the lake. For each column C_i (its first 1,000
values), learn a rule on the first 10% and count a false positive if the rule flags C_i's own
remaining 90%. Recall is the fraction of the other benchmark columns C_j the rule flags,
squashed to 0 on a false positive. Precision and recall are averaged over columns.

Methods: FMDV, FMDV-V, FMDV-H, FMDV-VH (validated as their rules say: strict for FMDV/-V, the
two-tailed Fisher test at 0.01 for the -H variants, as in the paper), and two baselines:

* ``dictionary``: future values must be in the training set (Deequ isContainedIn / TFDV);
* ``profiler``: the most specific pattern consistent with all training values, as pattern
  profilers such as Potter's Wheel produce. Values must share one token structure; each word
  position is a constant if all values agree, else its class with a fixed length if lengths
  agree, else ``+``. Otherwise there is no rule.

Like the paper's Table 2, recall is reported twice when the lake has an answer key (generated
lakes): *programmatic* (every other column counts) and *answer-key* (other columns of the same
domain and variant, which no validation pattern can tell apart, leave the denominator; the paper's
"hand-curated" adjustment).

Rules are applied to every other column at once: distinct values of all benchmark columns are
matched by one vectorized RE2 pass per rule (Arrow), then counted per column.

    python bench/eval_quality.py --lake sample_lake/tables --index sample_index --plan-tables 120
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from lakeindex.fmdv.drift import homogeneity_pvalues  # noqa: E402
from lakeindex.fmdv.infer import AutoValidator  # noqa: E402
from lakeindex.fmdv.search import SegmentSolver  # noqa: E402
from lakeindex.index.store import IndexReader  # noqa: E402
from lakeindex.lake.listing import lake_uri  # noqa: E402
from lakeindex.lake.table_files import read_local_table  # noqa: E402
from lakeindex.lake.tables import list_tables  # noqa: E402
from lakeindex.patterns.hierarchy import fixed, plus  # noqa: E402
from lakeindex.patterns.pattern import escape_literal, to_regex  # noqa: E402
from lakeindex.patterns.tokens import DIGIT, LOWER, MIXED, UPPER, analyze, base_kind  # noqa: E402

METHODS = ["fmdv", "fmdv-v", "fmdv-h", "fmdv-vh", "dictionary", "profiler"]
ALPHA = 0.01


@dataclass
class BenchColumn:
    name: str
    kind: str
    values: list[str]
    domain: str = ""
    train_share: float = 0.1  # the paper's protocol: train on the first 10%, test on the rest

    @property
    def _cut(self) -> int:
        return min(len(self.values) - 1, max(1, int(len(self.values) * self.train_share)))

    @property
    def train(self) -> list[str]:
        return self.values[:self._cut]

    @property
    def test(self) -> list[str]:
        return self.values[self._cut:]


def load_columns(lake: Path, n: int, seed: int, kinds: dict[tuple[str, str], tuple[str, str]],
                 min_values: int) -> list[BenchColumn]:
    """Sample up to ``n`` columns (their first 1,000 non-empty values) from the lake's tables (as the index
    build sees them: part directories, partitions, Delta and Iceberg snapshots)."""
    tables = list_tables(None, lake_uri(str(lake))).tables
    rng = random.Random(seed)
    rng.shuffle(tables)
    out: list[BenchColumn] = []
    for t in tables:
        read = read_local_table(t)
        stem = t.name.rsplit(".", 1)[0] if t.format == "file" else t.name
        for name, arr in read.columns:
            values = [v for v in arr.to_pylist() if v][:1000]
            if len(values) >= min_values:
                kind, domain = kinds.get((stem, name), ("unknown", ""))
                out.append(BenchColumn(f"{t.name}:{name}", kind, values, domain))
        if len(out) >= n * 3:
            break
    rng.shuffle(out)
    return sorted(out[:n], key=lambda c: c.name)


def answer_key(tables: int | None, seed: int, wide_tables: int = 0) -> dict[tuple[str, str], tuple[str, str]]:
    """Per column of a generated lake: kind (machine, composite, natural, numeric) and domain.

    ``wide_tables``: the lake's wide tables (``--wide-share``; the count is ``summary["wide"]["tables"]``);
    a wide column's domain is its grammar key.
    """
    if not tables:
        return {}
    from sample_lake.generate import plan_lake, wide_answer_key

    key = {(t.name, c.name): (c.kind, f"{c.domain}/{c.variant}/{c.parts}/{c.sep}/{c.wrap}")
           for t in plan_lake(tables, seed) for c in t.columns}
    return {**key, **wide_answer_key(seed, wide_tables)} if wide_tables else key


def profiler_pattern(values: list[str]) -> str | None:
    """Most specific pattern shared by all values (Potter's Wheel style), or None."""
    analyses = [analyze(v, max_subruns=99) for v in set(values)]
    layout = {tuple(p if isinstance(p, str) else tuple(base_kind(k) for k, _ in p) for p in a.shape)
              for a in analyses}
    if len(layout) != 1:
        return None
    first = analyses[0]
    out, slot = [], 0
    for i, part in enumerate(first.shape):
        if isinstance(part, str):
            out.append(escape_literal(part))
            continue
        for j, (marked, _) in enumerate(part):
            kind = base_kind(marked)
            texts = {a.slots[slot] for a in analyses}
            lengths = {len(a.shape[i][j][1] * "x") for a in analyses}
            if len(texts) == 1:
                out.append(escape_literal(texts.pop()))
            else:
                cls = {DIGIT: "digit", UPPER: "upper", LOWER: "lower", MIXED: "letter"}[kind]
                kinds = {base_kind(a.shape[i][j][0]) for a in analyses}
                if len(kinds) > 1:
                    cls = "letter"
                out.append(fixed(cls, lengths.pop()) if len(lengths) == 1 else plus(cls))
            slot += 1
    return "".join(out)


class Corpus:
    """Distinct values of all benchmark columns, for one vectorized pass per rule."""

    def __init__(self, columns: list[BenchColumn]) -> None:
        vals, ids, counts = [], [], []
        for i, c in enumerate(columns):
            for v, n in Counter(c.values).items():
                vals.append(v)
                ids.append(i)
                counts.append(n)
        self.values = pa.array(vals, pa.string())
        self.ids = np.array(ids)
        self.counts = np.array(counts)
        self.sizes = np.bincount(self.ids, weights=self.counts, minlength=len(columns))
        self.ncols = len(columns)

    def nonconforming(self, mask: np.ndarray) -> np.ndarray:
        """Per column: how many values do not satisfy ``mask`` (True = conforming)."""
        return np.bincount(self.ids[~mask], weights=self.counts[~mask], minlength=self.ncols)

    def regex_mask(self, pattern: str) -> np.ndarray:
        return pc.match_substring_regex(self.values, to_regex(pattern)).to_numpy(zero_copy_only=False)

    def dictionary_mask(self, train: list[str]) -> np.ndarray:
        return pc.is_in(self.values, value_set=pa.array(sorted(set(train)), pa.string())).to_numpy(zero_copy_only=False)


def flags(kind: str, k_train: int, n_train: int, bad: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """Which columns a rule flags, given non-conforming counts per column."""
    if kind == "strict":
        return bad > 0
    theta = k_train / n_train if n_train else 0.0
    out = np.zeros(len(bad), dtype=bool)
    cache: dict[tuple[int, int], bool] = {}
    for j, (k, n) in enumerate(zip(bad.astype(int), sizes.astype(int), strict=True)):
        if k == 0 or k / n <= theta:
            continue
        if (k, n) not in cache:
            cache[(k, n)] = homogeneity_pvalues(k_train, n_train, k, n)[0] < ALPHA
        out[j] = cache[(k, n)]
    return out


def evaluate(columns: list[BenchColumn], solver: SegmentSolver, m: int | None, r: float, sample: bool,
             details: list[dict] | None = None) -> dict:
    """Score every method; with ``details``, append one diagnostic row per column and FMDV method."""
    corpus = Corpus(columns)
    n = len(columns)
    per: dict[str, dict[str, list]] = {meth: {"p": [], "r": [], "r_key": [], "feasible": []} for meth in METHODS}
    domains = np.array([c.domain for c in columns])
    fit_ms: dict[str, list[float]] = {meth: [] for meth in METHODS[:4]}
    for i, col in enumerate(columns):
        train = col.train
        for meth in METHODS:
            t0 = time.perf_counter()
            if meth in fit_ms:
                rule = AutoValidator(solver, method=meth, m=m, r=r, sample=sample).fit(train).rule_
                fit_ms[meth].append((time.perf_counter() - t0) * 1000)
                feasible = rule.feasible
                if feasible:
                    mask = corpus.regex_mask(rule.pattern)
                    k_train, n_train, mode = rule.train_nonconforming, rule.train_size, rule.validation
            elif meth == "dictionary":
                feasible, mask, k_train, n_train, mode = True, corpus.dictionary_mask(train), 0, len(train), "strict"
            else:
                pat = profiler_pattern(train)
                feasible = pat is not None
                if feasible:
                    mask, k_train, n_train, mode = corpus.regex_mask(pat), 0, len(train), "strict"
            if not feasible:  # no rule: flags nothing
                if details is not None and meth in fit_ms:
                    details.append({"column": col.name, "kind": col.kind, "domain": col.domain, "method": meth,
                                    "feasible": False, "reason": rule.reason})
                per[meth]["p"].append(1.0)
                per[meth]["r"].append(0.0)
                per[meth]["r_key"].append(0.0)
                per[meth]["feasible"].append(False)
                continue
            bad = corpus.nonconforming(mask)
            # own column: only its test part (the training 10% is part of the column's counts)
            own_bad = sum(1 for v in col.test if not _conforms(meth, v, mask, corpus, i))
            flagged = flags(mode, k_train, n_train, bad, corpus.sizes)
            own_flag = flags(mode, k_train, n_train, np.array([own_bad]), np.array([len(col.test)]))[0]
            others = np.delete(flagged, i)
            other_domains = np.delete(domains, i)
            different = others[other_domains != col.domain] if col.domain else others
            per[meth]["p"].append(0.0 if own_flag else 1.0)
            per[meth]["r"].append(0.0 if own_flag else float(others.mean()) if n > 1 else 0.0)
            per[meth]["r_key"].append(0.0 if own_flag else float(different.mean()) if len(different) else 0.0)
            per[meth]["feasible"].append(True)
            if details is not None and meth in fit_ms:
                details.append({"column": col.name, "kind": col.kind, "domain": col.domain, "method": meth,
                                "feasible": True, "pattern": rule.pattern, "fpr": rule.fpr,
                                "false_positive": bool(own_flag), "recall": per[meth]["r"][-1],
                                "recall_answer_key": per[meth]["r_key"][-1]})
        if (i + 1) % 100 == 0:
            print(f"  {i + 1}/{n} columns", file=sys.stderr, flush=True)
    return _summarize(per, columns, fit_ms)


_MASK_INDEX: dict[int, dict[str, int]] = {}


def _conforms(meth: str, v: str, mask: np.ndarray, corpus: Corpus, col: int) -> bool:
    index = _MASK_INDEX.get(col)
    if index is None:
        sel = np.nonzero(corpus.ids == col)[0]
        index = _MASK_INDEX[col] = {corpus.values[int(j)].as_py(): int(j) for j in sel}
    return bool(mask[index[v]])


def _summarize(per: dict, columns: list[BenchColumn], fit_ms: dict) -> dict:
    groups = {"all": [True] * len(columns),
              "pattern-applicable": [c.kind in ("machine", "composite", "numeric", "unknown") for c in columns],
              "machine+composite": [c.kind in ("machine", "composite") for c in columns]}
    out: dict = {}
    for gname, sel in groups.items():
        if not any(sel):
            continue
        rows = {}
        for meth, d in per.items():
            p = float(np.mean([x for x, s in zip(d["p"], sel, strict=True) if s]))
            r = float(np.mean([x for x, s in zip(d["r"], sel, strict=True) if s]))
            f = float(np.mean([x for x, s in zip(d["feasible"], sel, strict=True) if s]))
            rk = float(np.mean([x for x, s in zip(d["r_key"], sel, strict=True) if s]))
            rows[meth] = {"precision": round(p, 4), "recall": round(r, 4),
                          "f1": round(2 * p * r / (p + r), 4) if p + r else 0.0, "rule_rate": round(f, 4)}
            if any(c.domain for c in columns):
                rows[meth]["recall_answer_key"] = round(rk, 4)
                rows[meth]["f1_answer_key"] = round(2 * p * rk / (p + rk), 4) if p + rk else 0.0
        out[gname] = {"columns": sum(sel), "methods": rows}
    out["fit_ms_median"] = {k: round(float(np.median(v)), 2) for k, v in fit_ms.items() if v}
    return out


def solver_bands(args: argparse.Namespace) -> dict[str, float]:
    """The SegmentSolver bands given on the command line (``--fpr-slack``, ``--narrow-slack``)."""
    return {k: v for k, v in (("fpr_slack", args.fpr_slack), ("narrow_slack", args.narrow_slack)) if v is not None}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--lake", type=Path, required=True)
    ap.add_argument("--index", type=Path, required=True)
    ap.add_argument("--columns", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--min-values", type=int, default=20)
    ap.add_argument("--plan-tables", type=int, default=None, help="tables of a generated lake (answer key)")
    ap.add_argument("--plan-wide-tables", type=int, default=0,
                    help="wide tables of a lake generated with --wide-share (answer key)")
    ap.add_argument("--plan-seed", type=int, default=7)
    ap.add_argument("--m", type=int, default=None)
    ap.add_argument("--r", type=float, default=0.1)
    ap.add_argument("--fpr-slack", type=float, default=None, help="SegmentSolver's FPR band (default: its own)")
    ap.add_argument("--narrow-slack", type=float, default=None,
                    help="SegmentSolver's narrowing band (default: its own; 0 turns it off)")
    ap.add_argument("--train-share", type=float, default=0.1,
                    help="share of each column's values to train on (the paper: 0.1); more makes wide training columns")
    ap.add_argument("--no-sample", action="store_true",
                    help="solve every training column in full (AutoValidator(sample=False))")
    ap.add_argument("--out", type=Path, default=None)
    ap.add_argument("--details", type=Path, default=None,
                    help="write one JSON line per column and FMDV method (rule, reason, false positive, recall)")
    args = ap.parse_args()
    t0 = time.time()
    key = answer_key(args.plan_tables, args.plan_seed, args.plan_wide_tables)
    columns = load_columns(args.lake, args.columns, args.seed, key, args.min_values)
    for col in columns:
        col.train_share = args.train_share
    with IndexReader(args.index) as ix:
        solver = SegmentSolver(ix, **solver_bands(args))
        details: list[dict] | None = [] if args.details else None
        result = evaluate(columns, solver, args.m, args.r, not args.no_sample, details)
        report = {"date": time.strftime("%Y-%m-%d"), "command": " ".join(sys.argv), "lake": str(args.lake),
                  "index_version": ix.version, "index_columns": ix.meta.get("columns_scanned"),
                  "benchmark_columns": len(columns), "kinds": dict(Counter(c.kind for c in columns)),
                  "seconds": round(time.time() - t0, 1), **result}
    text = json.dumps(report, indent=2)
    print(text)
    write_outputs(text, args.out, args.details, details)
    return 0


def write_outputs(text: str, out: Path | None, details_path: Path | None, details: list[dict] | None) -> None:
    """Write the JSON report and the per-column details lines where the options say."""
    if out:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(text + "\n")
    if details_path:
        details_path.parent.mkdir(parents=True, exist_ok=True)
        details_path.write_text("".join(json.dumps(d) + "\n" for d in details or []))


if __name__ == "__main__":
    sys.exit(main())
