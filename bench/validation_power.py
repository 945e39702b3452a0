"""Validation power by training size: false alarms on clean batches and detection of drifted ones.

For each bench column and training size n (5, 8, 10, 20, 40, 100, 1000), the column's values are shuffled
(``--seed``); an FMDV-VH rule is learned on the first n; the *clean* batch is the next ``--batch`` values of
the same column, and the *drifted* batch is that batch with ``--drift-share`` (20%) of its positions replaced
by values off the rule, drawn in turn from N/A-like tokens, US dates and values of other bench columns
(each checked not to match the rule). Each batch is validated with every test of ``drift.validate``
(``betabinom``, the default, and the paper's ``fisher`` and ``chi2``) at ``--alpha``; a false alarm is a
flagged clean batch, a detection a flagged drifted one. False alarms are also counted among the clean
batches within the rule's own tolerance (at most θ of the batch off the rule): beyond it, the rule learned
from n values does not describe the column, and any test with power flags the batch. Columns without a
feasible rule at a size, or with fewer than n + batch values, do not count at that size.

Columns: ``--lake-columns`` sampled from ``--lake`` (indexed by ``--index``; a 500-row lake reaches n = 100),
and ``--composites`` held-out composite columns from ``bench/eval_composite.py``'s generator (grammars the
lake of ``--lake-seed`` never holds, 1--3% ad-hoc tokens in ``--special-share`` of them), validated against
``--wide-index``.

``--loo N`` also evaluates leave-one-out (jackknife) evidence for rules learned from at most N values: the
rule is learned again without each training value in turn, and ``k_loo`` counts the held-out values the
rule learned without them rejects (or that leave no rule). Two variants of the default test are scored
beside it: ``loo-evidence`` (the posterior updated with max(k1, k_loo) of n instead of k1 of n) and
``loo-uniform`` (a rule with k_loo > k1 gets the uniform prior, its evidence k_loo of n); the rows count the
false alarms whose rule is stable under leave-one-out (k_loo <= k1) and the refits' time.

``--oracle-prior`` (with ``--wide-lake``, the lake of ``--wide-index``) also scores ``oracle``: the same posterior
predictive test with the lake's own distribution of the whole rule's column rates as the prior, measured by
brute force over every lake column (``bench/lake_rate_oracle.py``): calibrated over columns like the lake's,
it shows what the best count-based test can do with evidence the index does not store.
It also scores ``oracle-refusal``: the default test on the rules an inference would keep if it refused every
rule that, by the same lake columns, more likely than alpha does not describe its column (P(rate > θ | k1 of n)
> alpha); ``refused`` counts the others: what refusing rules on the lake's evidence costs and buys.

``--paper-split`` counts instead the columns each test flags against their own rule under the paper's
protocol (train on the first 10% of a column, validate the other 90%), as ``bench/eval_quality.py`` scores
precision. ``--calibration`` prints instead the default test's exact false-alarm rate for a column whose values are
off the rule at a fixed rate (1-10%), by training size: no rule learning, only the statistics.

    python bench/validation_power.py --lake bench/out/lake-2520x500 \\
        --index bench/out/index-lake-2520x500-tau8 --wide-index bench/out/index-wide-v8 \\
        --out bench/out/validation_power.json
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections import defaultdict
from pathlib import Path

import numpy as np
from scipy import stats

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.eval_composite import test_columns  # noqa: E402
from bench.eval_quality import BenchColumn, load_columns  # noqa: E402
from bench.lake_rate_oracle import LakeRates, far_posterior, oracle_pvalue  # noqa: E402
from lakeindex.fmdv.drift import LakePrior, lake_prior, predictive_pvalue, rule_prior, validate  # noqa: E402
from lakeindex.fmdv.infer import AutoValidator  # noqa: E402
from lakeindex.fmdv.rule import TESTS, Rule  # noqa: E402
from lakeindex.fmdv.search import SegmentSolver  # noqa: E402
from lakeindex.index.store import IndexReader  # noqa: E402
from sample_lake.generate import SPECIAL_TOKENS  # noqa: E402

TRAIN_SIZES = (5, 8, 10, 20, 40, 100, 1000)
DRIFT_KINDS = ("token", "us-date", "other-column")
LOO_VARIANTS = ("loo-evidence", "loo-uniform")
ORACLE = "oracle"
REFUSAL = "oracle-refusal"


def us_date(rng: random.Random) -> str:
    return f"{rng.randint(1, 12):02d}/{rng.randint(1, 28):02d}/{rng.randint(1990, 2030)}"


class OffPattern:
    """Values off a rule, drawn in turn from special tokens, US dates and the other columns' values."""

    def __init__(self, columns: list[BenchColumn], seed: int, pool: int = 3000) -> None:
        rng = random.Random(seed)
        self.others = [(i, rng.choice(c.values)) for i, c in enumerate(columns) for _ in range(3)]
        rng.shuffle(self.others)
        self.others = self.others[:pool]

    def draw(self, rule: Rule, column: int, k: int, rng: random.Random) -> list[str]:
        """``k`` values the rule rejects (fewer if no source has any)."""
        sources = {
            "token": list(SPECIAL_TOKENS),
            "us-date": [us_date(rng) for _ in range(50)],
            "other-column": [v for i, v in self.others if i != column],
        }
        off = {kind: [v for v in vals if v and rule.nonconforming([v])] for kind, vals in sources.items()}
        kinds = [kind for kind in DRIFT_KINDS if off[kind]]
        return [rng.choice(off[kinds[j % len(kinds)]]) for j in range(k)] if kinds else []


def loo_failures(solver: SegmentSolver, train: list[str]) -> int:
    """Training values that the rule learned from the others rejects (or that leave no rule)."""
    failures = 0
    for i, value in enumerate(train):
        rule = AutoValidator(solver, method="fmdv-vh").fit(train[:i] + train[i + 1:]).rule_
        failures += not rule.feasible or bool(value and rule.nonconforming([value]))
    return failures


def loo_verdict(res: dict, rule: Rule, k_loo: int, variant: str, alpha: float) -> dict:
    """The default test's verdict on a batch with leave-one-out evidence (``--loo``'s two variants)."""
    n, k1 = rule.train_size, rule.train_nonconforming
    if variant == "loo-evidence":
        prior, k = rule_prior(rule, alpha), max(k1, k_loo)
    elif k_loo > k1:  # loo-uniform: an unstable rule loses the lake's prior
        prior, k = LakePrior(0.0, 0.0, 1.0, 1.0, 1.0), k_loo
    else:
        prior, k = rule_prior(rule, alpha), k1
    p = predictive_pvalue(prior, k, n, res["batch_nonconforming"], res["batch_size"])[0]
    return {**res, "p_value": p, "flagged": p < alpha}


def oracle_verdict(res: dict, rule: Rule, lake: LakeRates, alpha: float, default_weight: float = 0.0) -> dict:
    """The posterior predictive test with the lake's measured column rates of the rule as the prior (mixed with
    the default test's prior at ``default_weight``)."""
    prior = rule_prior(rule, alpha)
    p = oracle_pvalue(lake.rates(rule.pattern), rule.train_nonconforming, rule.train_size,
                      res["batch_nonconforming"], res["batch_size"],
                      (default_weight, prior.a, prior.b) if default_weight else None)
    return {**res, "p_value": p, "flagged": p < alpha}


def run(columns: list[tuple[str, int, BenchColumn]], solvers: dict[str, SegmentSolver], sizes: tuple[int, ...],
        batch: int, share: float, alpha: float, seed: int, loo: int = 0,
        oracles: dict[str, LakeRates] | None = None, oracle_default_weight: float = 0.0) -> dict:
    """Counts per (source, train size, test): rules, false alarms on clean batches, detected drifts (and the
    leave-one-out variants for rules learned from at most ``loo`` values, and the lake-rate oracle)."""
    off = {src: OffPattern([c for s, _, c in columns if s == src], seed) for src in solvers}
    counts: dict = defaultdict(lambda: {"columns": 0, "clean": 0, "false_alarms": 0, "clean_within_theta": 0,
                                        "false_alarms_within_theta": 0, "drifted": 0, "detected": 0,
                                        "false_alarms_loo_stable": 0, "loo_seconds": 0.0, "refused": 0})
    examples: dict = defaultdict(list)
    over_theta: dict = defaultdict(list)  # the off-rule shares of clean batches beyond θ
    for done, (src, j, col) in enumerate(columns, 1):
        rng = random.Random(f"{seed}/{col.name}")
        values = list(col.values)
        rng.shuffle(values)
        for n in sizes:
            if len(values) < n + batch:
                continue
            rule = AutoValidator(solvers[src], method="fmdv-vh").fit(values[:n]).rule_
            if not rule.feasible:
                continue
            clean = values[n:n + batch]
            k = round(share * batch)
            replacement = off[src].draw(rule, j, k, rng)
            if len(replacement) < k:
                continue
            drifted = list(clean)
            for pos, v in zip(rng.sample(range(batch), k), replacement, strict=True):
                drifted[pos] = v
            k_loo, seconds = None, 0.0
            if n <= loo:
                start = time.perf_counter()
                k_loo = loo_failures(solvers[src], values[:n])
                seconds = time.perf_counter() - start
            for test in (*TESTS, *(LOO_VARIANTS if k_loo is not None else ()), *((ORACLE, REFUSAL) if oracles else ())):
                c = counts[(src, n, test)]
                if test == REFUSAL and oracles and far_posterior(oracles[src].rates(rule.pattern),
                                                                 rule.train_nonconforming, n,
                                                                 rule.params["theta"]) > alpha:
                    c["refused"] += 1  # the lake says this rule may well not describe its column
                    continue
                c["columns"] += 1
                if test == ORACLE and oracles:
                    res_clean = oracle_verdict(validate(rule, clean, alpha, mode="homogeneity"), rule, oracles[src],
                                               alpha, oracle_default_weight)
                    res_drift = oracle_verdict(validate(rule, drifted, alpha, mode="homogeneity"), rule, oracles[src],
                                               alpha, oracle_default_weight)
                elif test in LOO_VARIANTS:
                    res_clean = loo_verdict(validate(rule, clean, alpha, mode="homogeneity"), rule, k_loo, test, alpha)
                    res_drift = loo_verdict(validate(rule, drifted, alpha, mode="homogeneity"), rule, k_loo, test,
                                            alpha)
                else:  # the paper's tests and the default (REFUSAL: the default on the rules kept)
                    which = TESTS[0] if test == REFUSAL else test
                    res_clean = validate(rule, clean, alpha, test=which, mode="homogeneity")
                    res_drift = validate(rule, drifted, alpha, test=which, mode="homogeneity")
                if k_loo is not None:
                    c["false_alarms_loo_stable"] += res_clean["flagged"] and k_loo <= rule.train_nonconforming
                    c["loo_seconds"] += seconds
                c["clean"] += 1
                c["drifted"] += 1
                c["false_alarms"] += res_clean["flagged"]
                # the rule's own contract: at most θ of a column's values off it (else inference, not the
                # test, is wrong about the column)
                within = res_clean["batch_nonconforming_fraction"] <= rule.params["theta"]
                c["clean_within_theta"] += within
                c["false_alarms_within_theta"] += within and res_clean["flagged"]
                if not within:
                    over_theta[(src, n, test)].append(round(res_clean["batch_nonconforming_fraction"], 2))
                c["detected"] += res_drift["flagged"]
                for what, res in (("false_alarm", res_clean), ("missed", res_drift)):
                    if res["flagged"] == (what == "false_alarm") and len(examples[(src, n, test, what)]) < 3:
                        examples[(src, n, test, what)].append(
                            {"column": col.name, "pattern": rule.pattern, "fpr": rule.fpr,
                             "train_nonconforming": rule.train_nonconforming,
                             "batch_nonconforming": res["batch_nonconforming"], "p_value": res["p_value"]})
        if done % 50 == 0:
            print(f"  {done}/{len(columns)} columns", file=sys.stderr, flush=True)
    rows = []
    for (src, n, test), c in sorted(counts.items()):
        rows.append({"source": src, "train_size": n, "test": test, **c,
                     "false_alarm_rate": c["false_alarms"] / c["clean"] if c["clean"] else None,
                     "false_alarm_rate_within_theta": c["false_alarms_within_theta"] / c["clean_within_theta"]
                     if c["clean_within_theta"] else None,
                     "detection_rate": c["detected"] / c["drifted"] if c["drifted"] else None,
                     "clean_over_theta_fractions": sorted(over_theta[(src, n, test)]),
                     "examples": {what: examples[(src, n, test, what)] for what in ("false_alarm", "missed")
                                  if examples[(src, n, test, what)]}})
    for n in sizes:  # both sources together
        for test in (*TESTS, *LOO_VARIANTS, ORACLE, REFUSAL):
            part = [r for r in rows if r["train_size"] == n and r["test"] == test and r["source"] != "all"]
            tot = {key: sum(r[key] for r in part) for key in ("columns", "clean", "false_alarms", "clean_within_theta",
                                                               "false_alarms_within_theta", "drifted", "detected",
                                                               "false_alarms_loo_stable", "loo_seconds", "refused")}
            if tot["clean"] or tot["refused"]:
                rows.append({"source": "all", "train_size": n, "test": test, **tot,
                             "false_alarm_rate": tot["false_alarms"] / tot["clean"] if tot["clean"] else None,
                             "false_alarm_rate_within_theta": tot["false_alarms_within_theta"]
                             / max(tot["clean_within_theta"], 1),
                             "detection_rate": tot["detected"] / tot["drifted"] if tot["drifted"] else None})
    return {"alpha": alpha, "batch": batch, "drift_share": share, "seed": seed, "rows": rows}


def paper_split(columns: list[tuple[str, int, BenchColumn]], solvers: dict[str, SegmentSolver],
                alpha: float) -> list[dict]:
    """The paper's protocol (``bench/eval_quality.py``): train on a column's first 10%, validate the other
    90%; per source and test, how many of its own columns each test flags (false positives)."""
    counts: dict = defaultdict(lambda: {"rules": 0, "own_column_flagged": 0})
    for src, _, col in columns:
        rule = AutoValidator(solvers[src], method="fmdv-vh").fit(col.train).rule_
        if not rule.feasible:
            continue
        for test in TESTS:
            c = counts[(src, test)]
            c["rules"] += 1
            c["own_column_flagged"] += validate(rule, col.test, alpha, test=test, mode="homogeneity")["flagged"]
    return [{"source": src, "test": test, **c} for (src, test), c in sorted(counts.items())]


def calibration(sizes: tuple[int, ...], batch: int, alpha: float, rates: tuple[float, ...] = (0.01, 0.03, 0.05, 0.1),
                fprs: tuple[float, ...] = (0.0, 0.01, 0.05), theta: float = 0.1) -> list[dict]:
    """The ``betabinom`` test's exact false-alarm rate on a column whose values are off the rule at a fixed
    rate: k1 ~ Bin(n, rate), k2 ~ Bin(batch, rate), given k1 <= θ·n (else FMDV-H learns no rule)."""
    out = []
    for fpr in fprs:
        prior = lake_prior(fpr, theta, alpha)
        for rate in rates:
            row: dict = {"fpr": fpr, "rate": rate}
            for n in sizes:
                k1s = np.arange(int(theta * n) + 1)
                w = stats.binom.pmf(k1s, n, rate)
                # the smallest flagged batch count after each k1, then the chance a clean batch reaches it
                first = [next((k for k in range(batch + 1) if predictive_pvalue(prior, int(k1), n, k, batch)[0]
                               < alpha), batch + 1) for k1 in k1s]
                row[str(n)] = float(np.dot(w, stats.binom.sf(np.array(first) - 1, batch, rate)) / w.sum())
            out.append(row)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lake", type=Path, required=True)
    ap.add_argument("--index", type=Path, required=True, help="the index of --lake")
    ap.add_argument("--wide-index", type=Path, required=True, help="index of the lake of --lake-seed (wide)")
    ap.add_argument("--lake-columns", type=int, default=300)
    ap.add_argument("--composites", type=int, default=150)
    ap.add_argument("--lake-seed", type=int, default=7, help="seed --wide-index's lake was generated with")
    ap.add_argument("--test-seed", type=int, default=11, help="seed of the held-out composite grammars")
    ap.add_argument("--special-share", type=float, default=0.1, help="composites with 1-3%% ad-hoc tokens")
    ap.add_argument("--train-sizes", default=",".join(map(str, TRAIN_SIZES)))
    ap.add_argument("--batch", type=int, default=100, help="values per validated batch")
    ap.add_argument("--drift-share", type=float, default=0.2, help="share of a drifted batch off the pattern")
    ap.add_argument("--alpha", type=float, default=0.01)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--loo", type=int, default=0, metavar="N",
                    help="also score leave-one-out evidence for rules learned from at most N values")
    ap.add_argument("--oracle-prior", action="store_true",
                    help="also score the test with each rule's measured lake column rates as prior (needs --wide-lake)")
    ap.add_argument("--oracle-default-weight", type=float, default=0.0, metavar="W",
                    help="mix the default test's prior into the oracle's at prior weight W (0: the lake's alone)")
    ap.add_argument("--wide-lake", type=Path, default=None, help="the lake --wide-index was built from")
    ap.add_argument("--out", type=Path, default=None)
    ap.add_argument("--calibration", action="store_true",
                    help="only print the betabinom test's exact false-alarm rates at fixed off-rule rates")
    ap.add_argument("--paper-split", action="store_true",
                    help="only count own-column false positives under the paper's 10%%/90%% split, per test")
    args = ap.parse_args(argv)
    sizes = tuple(int(s) for s in args.train_sizes.split(","))
    if args.calibration:
        for row in calibration(sizes, args.batch, args.alpha):
            print(json.dumps(row))
        return 0
    rows = max(sizes) + args.batch
    if args.paper_split:
        rows = 1000  # as bench/eval_composite.py's composites
    with IndexReader(str(args.index)) as lake_ix, IndexReader(str(args.wide_index)) as wide_ix:
        lake_cols = load_columns(args.lake, args.lake_columns, args.seed, {}, min_values=min(sizes) + args.batch)
        composites = test_columns(args.lake_seed, args.test_seed, args.composites, rows, args.special_share)
        columns = [("lake", j, c) for j, c in enumerate(lake_cols)] + \
            [("composite", j, c) for j, c in enumerate(composites)]
        solvers = {"lake": SegmentSolver(lake_ix), "composite": SegmentSolver(wide_ix)}
        if args.paper_split:
            for row in paper_split(columns, solvers, args.alpha):
                print(json.dumps(row))
            return 0
        oracles = None
        if args.oracle_prior:
            if args.wide_lake is None:
                ap.error("--oracle-prior needs --wide-lake, the lake --wide-index was built from")
            oracles = {"lake": LakeRates(args.lake), "composite": LakeRates(args.wide_lake)}
        result = run(columns, solvers, sizes, args.batch, args.drift_share, args.alpha, args.seed, args.loo, oracles,
                     args.oracle_default_weight)
    result["command"] = " ".join(sys.argv)
    text = json.dumps(result, indent=1)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text + "\n", encoding="utf-8")
    for r in result["rows"]:
        if not r["clean"]:  # every rule refused
            print(f"{r['source']:9s} n={r['train_size']:5d} {r['test']:9s} rules=   0 refused {r['refused']}")
            continue
        print(f"{r['source']:9s} n={r['train_size']:5d} {r['test']:9s} rules={r['columns']:4d} "
              f"false alarms {r['false_alarms']:3d} ({r['false_alarm_rate']:.3f}; "
              f"{r['false_alarms_within_theta']}/{r['clean_within_theta']} within θ)  "
              f"detected {r['detected']:4d} ({r['detection_rate']:.3f})"
              + (f"  refused {r['refused']}" if r["test"] == REFUSAL else "")
              + (f"  loo-stable false alarms {r['false_alarms_loo_stable']}, refits "
                 f"{1000 * r['loo_seconds'] / r['columns']:.0f} ms per rule" if r["loo_seconds"] else ""))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
