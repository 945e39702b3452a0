"""Incremental metrics (Deequ §3.2, §4.1): merged states equal batch computation, for every analyzer.

A fixture of 12 rows is cut into three deltas. The metrics of D ∪ ΔD computed from stored states plus a
pass over ΔD only, and the metrics of two disjoint partitions combined from their stored states alone,
must equal one batch run over the union. The state store and the state algebra are tested directly
(atomic publish, key checks, JSON round trips, Chan et al.'s moment merges against numpy).
"""

from __future__ import annotations

import inspect
import json
import math
import shutil

import datasketches as ds
import numpy as np
import pytest

import lakeindex.metrics as metrics_pkg
from lakeindex.metrics import (
    AnalysisRunner,
    Analyzer,
    ApproxCountDistinct,
    ApproxQuantile,
    ApproxQuantiles,
    ColumnCount,
    ColumnExists,
    Completeness,
    Compliance,
    Correlation,
    CountDistinct,
    CustomSql,
    DatasetMatch,
    DataType,
    Distinctness,
    DuplicateRowCount,
    Entropy,
    ExactQuantile,
    FileSystemStateStore,
    Histogram,
    InterquartileRange,
    KLLParameters,
    KLLSketch,
    Kurtosis,
    Maximum,
    MaxLength,
    Mean,
    Minimum,
    MinLength,
    MutualInformation,
    PatternMatch,
    Range,
    RatioOfSums,
    Size,
    Skewness,
    StandardDeviation,
    Sum,
    Uniqueness,
    UniqueValueRatio,
    Variance,
    ZerosCount,
    run_analysis,
    run_on_aggregated_states,
)
from lakeindex.metrics.analyzer import SchemaAnalyzer
from lakeindex.metrics.frequencies import FrequencyState
from lakeindex.metrics.grouping import GroupingAnalyzer
from lakeindex.metrics.runner import frequency_key
from lakeindex.metrics.state_store import KEEP_VERSIONS, StateStoreError
from lakeindex.metrics.states import (
    CoMoments,
    Extreme,
    HllSketch,
    KllSketch,
    Moments,
    NumMatches,
    SumCount,
    TypeCounts,
    state_from_dict,
)

SCHEMA = "id int, x double, y double, s string, k string, v string"
ROWS = [
    # delta 1
    (1, 1.0, 2.0, "a", "p", "1"),
    (2, 2.0, None, "b", "q", "2.5"),
    (3, None, 3.0, "a", "p", "true"),
    (4, 4.0, 1.0, "日本", None, "x"),
    (5, 5.0, 7.0, "b", "q", None),
    # delta 2
    (6, -1.0, 0.5, None, "p", "7"),
    (7, 3.5, 3.0, "c", "q", "false"),
    (8, 8.0, None, "a", "r", "3"),
    (9, 2.0, 2.0, "é", "p", "1e3"),
    # delta 3
    (10, None, 4.0, "c", None, "9"),
    (11, 0.0, 6.0, "", "r", "-2"),
    (12, 9.5, 1.5, "a", "q", None),
]
DELTAS = [ROWS[:5], ROWS[5:9], ROWS[9:]]

# Values repeat across deltas ("a" in all three, "b" and "c" in two), so per-delta frequency tables must really be
# merged (a value unique in each delta is not unique in the union). The extremes sit in different deltas (min x and
# the empty string in deltas 2-3, max y in delta 1), so no partition alone has the union's metrics.
ANALYZERS: list[Analyzer] = [
    Size(), Size(where="x > 2"),
    Completeness("x"), Completeness("k", where="id % 2 = 0"),
    Compliance("x_le_y", "x <= y"), Compliance("pos", "x > 0", where="y is not null"),
    PatternMatch("s", "^[a-z]$"),
    Minimum("x"), Maximum("x"), Minimum("y", where="id > 3"), Mean("x"), Sum("x"), Sum("y", where="s = 'a'"),
    StandardDeviation("x"), StandardDeviation("y"), Variance("x"), Correlation("x", "y"),
    Skewness("x"), Kurtosis("y"), ZerosCount("x"), RatioOfSums("x", "y"), ColumnCount(), ColumnExists("s"),
    MinLength("s"), MaxLength("s"), MaxLength("s", null_behavior="empty_string"),
    Minimum("y", where="id > 3", null_behavior="fail"),
    Range("x"), Range("y", where="id > 3"), InterquartileRange("x"), InterquartileRange("y", where="id > 1"),
    ApproxCountDistinct("s"), ApproxCountDistinct("x"),
    ApproxQuantile("x", 0.6), ApproxQuantile("y", 0.9), ApproxQuantiles("y", (0.0, 0.1, 0.5, 0.75, 1.0)),
    DataType("v"),
    Uniqueness("s"), Distinctness("s"), UniqueValueRatio("s"), CountDistinct("s"), Entropy("s"),
    Uniqueness(("s", "k")), CountDistinct(("s", "k")), MutualInformation(("s", "k")),
    DuplicateRowCount("s"), DuplicateRowCount(("s", "k")), ExactQuantile("x", 0.3), ExactQuantile("y", 0.8),
    Histogram("s"), Histogram("s", max_bins=2), Histogram("x", bins=(0, 3, 6)),
    KLLSketch("x"), KLLSketch("y", KLLParameters(number_of_buckets=4), where="id > 2"),
]

# Metrics whose states are integers, extremes, sketches or frequency tables come out bit-identical; float sums
# (means, moments, entropies) depend on the order of additions and are compared with a relative tolerance.
APPROX = (Mean, Sum, StandardDeviation, Correlation, Entropy, MutualInformation, Skewness, Kurtosis, RatioOfSums)


def assert_same_value(got, expected, exact: bool, what: str) -> None:
    if isinstance(expected, dict):
        assert isinstance(got, dict) and set(got) == set(expected), f"{what}: {got!r} != {expected!r}"
        for key in expected:
            assert_same_value(got[key], expected[key], exact, f"{what}[{key!r}]")
    elif isinstance(expected, float) and math.isnan(expected):
        assert isinstance(got, float) and math.isnan(got), f"{what}: {got!r} is not NaN"
    elif exact or not isinstance(expected, float):
        assert got == expected, f"{what}: {got!r} != {expected!r}"
    else:
        assert got == pytest.approx(expected, rel=1e-9, abs=1e-12), what


def assert_same_metric(got_ctx, expected_ctx, analyzer) -> None:
    got, expected = got_ctx.metric(analyzer), expected_ctx.metric(analyzer)
    assert expected.ok, f"batch metric of {analyzer.spec()} failed: {expected.error}"
    assert got.ok, f"merged metric of {analyzer.spec()} failed: {got.error}"
    assert_same_value(got.value, expected.value, not isinstance(analyzer, APPROX), analyzer.spec())


# Analyzers without a mergeable state: they fail on stored states instead of merging (tested in
# test_deequ_parity_anomaly.py), so they have no place in the equalities below.
NOT_MERGEABLE = {CustomSql, DatasetMatch}  # DatasetMatch: tested in test_deequ_dataset_match.py


def test_every_analyzer_is_covered():
    """Guard: a new analyzer exported by the package must be added to ANALYZERS (or be declared not mergeable)."""
    exported = {getattr(metrics_pkg, n) for n in metrics_pkg.__all__}
    concrete = {c for c in exported if inspect.isclass(c) and issubclass(c, Analyzer) and c is not Analyzer}
    assert concrete - {type(a) for a in ANALYZERS} == NOT_MERGEABLE


@pytest.fixture(scope="module")
def runs(spark, tmp_path_factory):
    """All Spark work of the module: 5 scans and one scan-free combination of stored states."""
    root = tmp_path_factory.mktemp("states")
    frames = [spark.createDataFrame(rows, SCHEMA) for rows in DELTAS]
    batch = run_analysis(spark.createDataFrame(ROWS, SCHEMA), ANALYZERS)
    # incremental: S(1) = f(ΔD(1)); S(t) = f(ΔD(t), S(t-1)); each step publishes to its own store
    stores = [FileSystemStateStore(root / f"after-{t}") for t in (1, 2, 3)]
    steps = []
    previous = None
    for frame, store in zip(frames, stores, strict=True):
        steps.append(AnalysisRunner.on_data(frame).add_analyzers(ANALYZERS).aggregate_with(previous)
                     .save_states_with(store).run())
        previous = store
    # two disjoint partitions saved separately: delta 1 (its state is stores[0]) and deltas 2 + 3 together
    rest_store = FileSystemStateStore(root / "rest")
    rest = AnalysisRunner.on_data(spark.createDataFrame(ROWS[5:], SCHEMA)).add_analyzers(ANALYZERS) \
        .save_states_with(rest_store).run()
    combined = run_on_aggregated_states(spark, ANALYZERS, [stores[0], rest_store])
    return {"batch": batch, "steps": steps, "rest": rest, "combined": combined, "stores": stores}


@pytest.mark.parametrize("analyzer", ANALYZERS, ids=lambda a: a.spec())
def test_incremental_equals_batch(runs, analyzer):
    assert_same_metric(runs["steps"][-1], runs["batch"], analyzer)


@pytest.mark.parametrize("analyzer", ANALYZERS, ids=lambda a: a.spec())
def test_partition_states_combine_to_batch(runs, analyzer):
    assert_same_metric(runs["combined"], runs["batch"], analyzer)


def test_fixture_discriminates(runs):
    """The equalities above are not vacuous: for every analyzer, delta 1 alone or deltas 2+3 alone (the two
    partitions) give another value than the union. Schema analyzers are the exception: every delta has the same
    columns (their merge is tested on states with different columns in test_deequ_parity_more.py)."""
    batch, parts = runs["batch"], (runs["steps"][0], runs["rest"])
    same = [a.spec() for a in ANALYZERS if not isinstance(a, SchemaAnalyzer)
            and all(p.metric(a).value == batch.metric(a).value for p in parts)]
    assert same == []


def test_intermediate_steps_are_the_metrics_of_the_prefix(runs):
    """After two deltas the metrics are those of D(2) = ΔD(1) ∪ ΔD(2) (hand-computed)."""
    step = runs["steps"][1]
    # 9 rows; x non-null in 8 (row 3 null); s over non-null: a a b b 日本 c a é -> a ×3, b ×2, 日本, c, é
    assert step.metric(Size()).value == 9.0
    assert step.metric(Completeness("x")).value == 8 / 9
    assert step.metric(CountDistinct("s")).value == 5.0
    assert step.metric(Uniqueness("s")).value == pytest.approx(3 / 8)  # 日本, c, é once, over 8 values
    # x over D(2): 1 2 4 5 -1 3.5 8 2 -> sum 24.5, min -1, max 8
    assert step.metric(Sum("x")).value == pytest.approx(24.5)
    assert (step.metric(Minimum("x")).value, step.metric(Maximum("x")).value) == (-1.0, 8.0)


def test_states_are_published_for_every_analyzer_and_table(runs, spark):
    store = runs["stores"][-1]
    for a in ANALYZERS:
        if isinstance(a, GroupingAnalyzer):
            assert isinstance(store.load(frequency_key(a.frequency_spec()), spark), FrequencyState), a.spec()
        else:
            assert store.load(a.spec()) is not None, a.spec()
    # the stored Size state covers all 12 rows, the Size(where x > 2) state the 6 rows with x > 2
    assert store.load(Size().spec()) == NumMatches(12, 12)
    assert store.load(Size(where="x > 2").spec()) == NumMatches(5, 5)  # x = 4, 5, 3.5, 8, 9.5


def test_aggregated_states_without_state_fail_softly(spark, tmp_path):
    empty = FileSystemStateStore(tmp_path / "nothing")
    ctx = run_on_aggregated_states(spark, [Size(), Mean("x"), Uniqueness("s")], [empty])
    assert len(ctx) == 3
    assert all(not m.ok for m in ctx)
    assert "no stored state" in ctx.metric(Mean("x")).error


def test_type_drift_between_deltas(spark, tmp_path):
    """Frequency tables and HLL sketches key values by their text: an int column that arrives as strings in the
    next delta is merged, not double-counted (documented in frequencies.py and sketching.py)."""
    first = spark.createDataFrame([(1,), (2,), (2,)], "x int")
    second = spark.createDataFrame([("2",), ("3",)], "x string")
    analyzers = [CountDistinct("x"), Uniqueness("x"), ApproxCountDistinct("x"), Size()]
    s1, s2 = FileSystemStateStore(tmp_path / "1"), FileSystemStateStore(tmp_path / "2")
    AnalysisRunner.on_data(first).add_analyzers(analyzers).save_states_with(s1).run()
    ctx = AnalysisRunner.on_data(second).add_analyzers(analyzers).aggregate_with(s1).save_states_with(s2).run()
    # union: 1 ×1, 2 ×3, 3 ×1 -> 3 distinct values, 2 rows with a value seen once out of 5
    assert ctx.metric(CountDistinct("x")).value == 3.0
    assert ctx.metric(Uniqueness("x")).value == pytest.approx(2 / 5)
    assert ctx.metric(ApproxCountDistinct("x")).value == 3.0
    assert ctx.metric(Size()).value == 5.0


def test_nan_extremes_merge_like_spark(spark, tmp_path):
    """NaN is Spark's largest double: Max over data holding NaN is NaN, Min ignores it, in either merge order."""
    a = spark.createDataFrame([(1.0,), (float("nan"),)], "x double")
    b = spark.createDataFrame([(0.5,), (2.0,)], "x double")
    analyzers = [Minimum("x"), Maximum("x")]
    batch = run_analysis(a.unionAll(b), analyzers)
    assert batch.metric(Minimum("x")).value == 0.5
    assert math.isnan(batch.metric(Maximum("x")).value)
    for order, (first, second) in {"ab": (a, b), "ba": (b, a)}.items():
        s1, s2 = FileSystemStateStore(tmp_path / f"{order}1"), FileSystemStateStore(tmp_path / f"{order}2")
        AnalysisRunner.on_data(first).add_analyzers(analyzers).save_states_with(s1).run()
        ctx = AnalysisRunner.on_data(second).add_analyzers(analyzers).aggregate_with(s1).save_states_with(s2).run()
        for an in analyzers:
            assert_same_metric(ctx, batch, an)


# ---------------------------------------------------------------------------------------------------------------
# State store
# ---------------------------------------------------------------------------------------------------------------

def key_dir(store_root):
    """Map each key to its directory (found by reading the stored state.json files, not by the hash scheme)."""
    found = {}
    for d in store_root.iterdir():
        current = (d / "CURRENT").read_text(encoding="utf-8").strip()
        found[json.loads((d / current / "state.json").read_text(encoding="utf-8"))["key"]] = d
    return found


def test_store_round_trip_and_missing_key(tmp_path):
    store = FileSystemStateStore(tmp_path)
    assert store.load("Mean(column='x', where=None)") is None
    store.save("Mean(column='x', where=None)", SumCount(16.0, 5))
    assert store.load("Mean(column='x', where=None)") == SumCount(16.0, 5)
    assert store.load("Mean(column='y', where=None)") is None
    # a string root works too
    assert FileSystemStateStore(str(tmp_path)).load("Mean(column='x', where=None)") == SumCount(16.0, 5)


def test_store_publishes_atomically(tmp_path):
    store = FileSystemStateStore(tmp_path)
    store.save("k", NumMatches(1, 2))
    store.save("k", NumMatches(3, 4))
    (base,) = list(tmp_path.iterdir())
    live = (base / "CURRENT").read_text(encoding="utf-8").strip()
    # CURRENT names a complete version directory
    assert (base / live / "state.json").is_file()
    assert json.loads((base / live / "state.json").read_text(encoding="utf-8"))["key"] == "k"
    # a crash mid-save leaves a half-written version (and maybe its temporary pointer) that nothing points to
    half = base / "v-halfwritten"
    half.mkdir()
    (half / "state.json").write_text('{"key": "k", "state": {"kind": "num_ma', encoding="utf-8")
    (base / ".CURRENT.v-halfwritten").write_text("v-halfwritten", encoding="utf-8")
    assert store.load("k") == NumMatches(3, 4)
    # a key whose first save crashed before CURRENT was published has no state yet
    store.save("other", NumMatches(5, 5))
    other = key_dir(tmp_path)["other"]
    (other / "CURRENT").unlink()
    assert store.load("other") is None
    # later saves keep the live version plus at most one older one
    for i in range(3):
        store.save("k", NumMatches(i, 10))
    assert store.load("k") == NumMatches(2, 10)
    live = (base / "CURRENT").read_text(encoding="utf-8").strip()
    versions = [p for p in base.iterdir() if p.name.startswith("v-") and p.name != "v-halfwritten"]
    assert live in {p.name for p in versions}
    assert len(versions) <= KEEP_VERSIONS


def test_store_refuses_a_state_of_another_key(tmp_path):
    store = FileSystemStateStore(tmp_path)
    store.save("Size(where=None)", NumMatches(6, 6))
    store.save("Completeness(column='x', where=None)", NumMatches(5, 6))
    dirs = key_dir(tmp_path)
    size_dir, compl_dir = dirs["Size(where=None)"], dirs["Completeness(column='x', where=None)"]
    # copy the Size state over the Completeness version: loading Completeness must not return Size's state
    size_version = (size_dir / "CURRENT").read_text(encoding="utf-8").strip()
    compl_version = (compl_dir / "CURRENT").read_text(encoding="utf-8").strip()
    shutil.copy(size_dir / size_version / "state.json", compl_dir / compl_version / "state.json")
    with pytest.raises(StateStoreError, match="Size"):
        store.load("Completeness(column='x', where=None)")
    # an unreadable state is an error too, not a silent None
    (size_dir / size_version / "state.json").write_text("{not json", encoding="utf-8")
    with pytest.raises(StateStoreError):
        store.load("Size(where=None)")


def _hll(values) -> HllSketch:
    sk = ds.hll_sketch(12)
    for v in values:
        sk.update(str(v))
    return HllSketch(sk.serialize_compact())


def _kll(values) -> KllSketch:
    sk = ds.kll_doubles_sketch(200)
    for v in values:
        sk.update(float(v))
    return KllSketch(sk.serialize())


SCALAR_STATES = [
    NumMatches(3, 5), Extreme(None, True), Extreme(-2.5, False), Extreme(float("inf"), True),
    SumCount(16.0, 5), SumCount(0.0, 0), Moments(5, 3.2, 14.8), Moments(0, 0.0, 0.0),
    CoMoments(4, 2.5, 3.75, 3.5, 5.0, 4.75),
    TypeCounts({"Unknown": 1, "Fractional": 2, "Integral": 3, "Boolean": 0, "String": 4}),
    _hll(["a", "b", "日本"]), _kll([3.0, 1.0, 2.0]),
]


@pytest.mark.parametrize("state", SCALAR_STATES, ids=lambda s: f"{s.kind}")
def test_state_json_round_trip(state, tmp_path):
    d = json.loads(json.dumps(state.to_dict()))
    assert d["kind"] == state.kind
    back = state_from_dict(d)
    assert type(back) is type(state) and back == state
    # and through the store
    store = FileSystemStateStore(tmp_path)
    store.save("key", state)
    assert store.load("key") == state


def test_sketch_states_survive_round_trip_and_merge():
    back = state_from_dict(json.loads(json.dumps(_hll(["a", "b"]).to_dict())))
    assert back.merge(_hll(["b", "c", "日本"])).estimate() == pytest.approx(4)  # {a, b, c, 日本}
    k = state_from_dict(json.loads(json.dumps(_kll([1, 2]).to_dict())))
    merged = k.merge(_kll([3, 4]))
    assert merged.count() == 4
    # inclusive quantiles of [1, 2, 3, 4]: the smallest v with #{x <= v} >= q·4
    assert merged.quantiles([0.25, 0.5, 0.75, 1.0]) == [1.0, 2.0, 3.0, 4.0]


def test_state_from_dict_rejects_unknown_kinds():
    with pytest.raises(ValueError):
        state_from_dict({"kind": "nope", "x": 1})
    with pytest.raises(TypeError):
        FrequencyState(None, ("g0",)).to_dict()


def test_simple_state_merges():
    assert NumMatches(1, 2).merge(NumMatches(3, 4)) == NumMatches(4, 6)
    assert SumCount(1.5, 2).merge(SumCount(2.0, 1)) == SumCount(3.5, 3)
    assert Extreme(None, True).merge(Extreme(None, True)).value is None
    assert Extreme(None, False).merge(Extreme(2.0, False)).value == 2.0
    assert Extreme(3.0, True).merge(Extreme(7.0, True)).value == 7.0
    assert Extreme(3.0, False).merge(Extreme(7.0, False)).value == 3.0
    nan = float("nan")
    for a, b in ((nan, 5.0), (5.0, nan)):
        assert Extreme(a, False).merge(Extreme(b, False)).value == 5.0
        assert math.isnan(Extreme(a, True).merge(Extreme(b, True)).value)
    t = TypeCounts({"Integral": 2, "String": 1}).merge(TypeCounts({"Integral": 1, "Unknown": 4}))
    assert t.counts == {"Unknown": 4, "Fractional": 0, "Integral": 3, "Boolean": 0, "String": 1}


def _moments(x: np.ndarray) -> Moments:
    if len(x) == 0:
        return Moments(0, 0.0, 0.0)
    return Moments(len(x), float(x.mean()), float(((x - x.mean()) ** 2).sum()))


def _co_moments(x: np.ndarray, y: np.ndarray) -> CoMoments:
    if len(x) == 0:
        return CoMoments(0, 0.0, 0.0, 0.0, 0.0, 0.0)
    dx, dy = x - x.mean(), y - y.mean()
    return CoMoments(len(x), float(x.mean()), float(y.mean()), float((dx * dy).sum()), float((dx * dx).sum()),
                     float((dy * dy).sum()))


def _chunks(rng, n):
    cuts = np.sort(rng.choice(np.arange(1, n), size=7, replace=False))
    return [slice(a, b) for a, b in zip([0, 0, *cuts], [0, *cuts, n], strict=True)]  # includes an empty chunk


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_moment_merges_equal_numpy(seed):
    rng = np.random.default_rng(seed)
    n = 1000
    x = rng.normal(50.0, 7.0, n)
    y = 0.3 * x + rng.normal(0.0, 2.0, n)
    parts = _chunks(rng, n)
    # left fold, and the reverse order (merges are associative and commutative)
    for order in (parts, parts[::-1]):
        m = _moments(x[order[0]])
        c = _co_moments(x[order[0]], y[order[0]])
        for p in order[1:]:
            m = m.merge(_moments(x[p]))
            c = _co_moments(x[p], y[p]).merge(c)
        assert m.n == n and c.n == n
        assert m.avg == pytest.approx(np.mean(x), rel=1e-12)
        assert math.sqrt(m.m2 / m.n) == pytest.approx(np.std(x), rel=1e-10)  # population deviation
        assert (c.x_avg, c.y_avg) == (pytest.approx(np.mean(x), rel=1e-12), pytest.approx(np.mean(y), rel=1e-12))
        assert c.ck / n == pytest.approx(np.cov(x, y, bias=True)[0, 1], rel=1e-10)
        assert c.x_mk / n == pytest.approx(np.var(x), rel=1e-10)
        assert c.y_mk / n == pytest.approx(np.var(y), rel=1e-10)
        assert c.ck / math.sqrt(c.x_mk * c.y_mk) == pytest.approx(np.corrcoef(x, y)[0, 1], rel=1e-10)
    # a balanced tree of merges gives the same result
    states = [_moments(x[p]) for p in parts]
    while len(states) > 1:
        states = [states[i].merge(states[i + 1]) if i + 1 < len(states) else states[i]
                  for i in range(0, len(states), 2)]
    assert states[0].m2 == pytest.approx(np.var(x) * n, rel=1e-10)
