"""Priority sampling of distinct values (lakeindex.patterns.sampling): exactness where promised, and
estimates close to counts known by construction."""

from __future__ import annotations

import random

from lakeindex.patterns import EnumerationLimits, column_patterns
from lakeindex.patterns.sampling import priority_sample, stratified_sample


def test_small_columns_are_not_sampled():
    values, weights = ["a", "b", "c"], [5, 1, 2]
    assert priority_sample(values, weights, 3) == (values, weights)


def test_heavy_values_keep_their_exact_weight_and_the_total_is_preserved():
    # 10 heavy sentinels of weight 1,000 and 5,000 light ids of weight 1; k = 64
    values = [f"S{i}" for i in range(10)] + [f"id-{i}" for i in range(5000)]
    weights = [1000] * 10 + [1] * 5000
    kept, est = priority_sample(values, weights, 64)
    assert len(kept) == 64
    by_value = dict(zip(kept, est, strict=True))
    # priority 1000/u >= 1000 beats a weight-1 value unless its u < 1/1000 (about 5 of 5,000): all kept
    for i in range(10):
        assert by_value[f"S{i}"] == 1000.0
    assert abs(sum(est) - sum(weights)) < 1e-6


def test_estimated_counts_are_close_to_the_true_counts():
    """Columns of 3,000 distinct values, a known share of them numeric: the sampled column's count
    of ``<digit>+`` estimates it within a few percent, and the estimates average to the truth."""
    errors = []
    for seed in range(30):
        rng = random.Random(seed)
        share = rng.choice([0.1, 0.5, 0.9])
        n = 3000
        values = [str(rng.randrange(10**9)) if i < share * n else f"x{rng.randrange(10**9)}y" for i in range(n)]
        values = list(dict.fromkeys(values))
        truth = sum(v.isdigit() for v in values)
        cp = column_patterns(values, limits=EnumerationLimits(min_share=0, max_distinct=128))
        assert cp.total == len(values)
        est = cp.counts.get("<digit>+", 0)
        errors.append((est - truth) / len(values))
        assert abs(est - truth) / len(values) < 0.15, (seed, est, truth)
    assert abs(sum(errors) / len(errors)) < 0.02


def test_a_pattern_every_value_matches_stays_pure_when_sampled():
    values = [f"ORD-{i:06d}" for i in range(5000)]
    cp = column_patterns(values, limits=EnumerationLimits(max_distinct=32))
    assert cp.counts["ORD-<digit>{6}"] == 5000


def test_a_stratified_sample_keeps_each_strata_total_and_shares_k_by_distinct_values():
    """900 values of stratum "a" (weight 1 each), 90 of "b" (weight 2), 10 of "c" (weight 1), k = 100:
    shares 90, 9 and 1 (k times the stratum's share of the 1,000 distinct values); every stratum's
    weights sum to its true total (900, 180, 10), each kept value comes from its stratum and weighs >= 1."""
    counts = {f"a{i}": 1 for i in range(900)} | {f"b{i}": 2 for i in range(90)} | {f"c{i}": 1 for i in range(10)}
    out = stratified_sample(counts, lambda v: v[0], 100)
    by = {s: {v: n for v, n in out.items() if v[0] == s} for s in "abc"}
    assert {s: len(vs) for s, vs in by.items()} == {"a": 90, "b": 9, "c": 1}
    assert {s: sum(vs.values()) for s, vs in by.items()} == {"a": 900, "b": 180, "c": 10}
    assert set(out) <= set(counts) and min(out.values()) >= 1


def test_a_stratum_within_its_share_is_kept_exactly():
    """Two strata of 5 and 3 values and k = 128: nothing is sampled, the counts come back unchanged."""
    counts = {"x1": 4, "x2": 1, "x3": 7, "x4": 2, "x5": 1, "y1": 3, "y2": 9, "y3": 1}
    assert stratified_sample(counts, lambda v: v[0], 128) == counts
