"""Anomaly detection strategies and the detector (Deequ VLDB 2018 §3.4): pure Python, no Spark."""

from __future__ import annotations

import json
import math
import random
import statistics

import pytest

from lakeindex.anomaly import (
    AbsoluteChangeStrategy,
    Anomaly,
    AnomalyDetector,
    BatchNormalStrategy,
    DataPoint,
    OnlineNormalStrategy,
    RateOfChangeStrategy,
    RelativeRateOfChangeStrategy,
    SimpleThresholdStrategy,
    strategy_from_dict,
)


def indices(anomalies: list[Anomaly]) -> list[int]:
    return [a.index for a in anomalies]


# ----------------------------------------------------------------------------------------- SimpleThreshold


def test_threshold_flags_values_outside_bounds_only() -> None:
    values = [5.0, 10.0, 10.5, -1.0, 0.0, 3.0]
    anomalies = SimpleThresholdStrategy(lower_bound=0.0, upper_bound=10.0).detect(values)
    assert indices(anomalies) == [2, 3]  # bounds are inclusive: 10.0 and 0.0 pass
    assert anomalies[0] == Anomaly(2, 10.5, 1.0, "value 10.5 is above the upper bound 10.0")
    assert anomalies[1].detail == "value -1.0 is below the lower bound 0.0"


def test_threshold_respects_search_interval() -> None:
    values = [100.0, 1.0, 100.0, 1.0, 100.0]
    strategy = SimpleThresholdStrategy(upper_bound=50.0)
    assert indices(strategy.detect(values)) == [0, 2, 4]
    assert indices(strategy.detect(values, (1, 4))) == [2]
    assert indices(strategy.detect(values, (3, 3))) == []
    assert indices(strategy.detect(values, (4, 99))) == [4]  # end past the series is clamped


def test_threshold_requires_upper_bound_and_ordered_bounds() -> None:
    with pytest.raises(TypeError):
        SimpleThresholdStrategy(lower_bound=0.0)  # type: ignore[call-arg]
    with pytest.raises(ValueError, match="lower_bound"):
        SimpleThresholdStrategy(lower_bound=2.0, upper_bound=1.0)
    assert SimpleThresholdStrategy(upper_bound=None).detect([1e300]) == []  # type: ignore[arg-type]


# ----------------------------------------------------------------------------------------- AbsoluteChange


def test_absolute_change_flags_spike_up_and_back_down() -> None:
    values = [10.0, 10.0, 10.0, 50.0, 10.0, 10.0]
    assert indices(AbsoluteChangeStrategy(-20.0, 20.0).detect(values)) == [3, 4]
    assert indices(AbsoluteChangeStrategy(max_rate_increase=20.0).detect(values)) == [3]
    assert indices(AbsoluteChangeStrategy(max_rate_decrease=-20.0).detect(values)) == [4]
    anomaly = AbsoluteChangeStrategy(-20.0, 20.0).detect(values)[0]
    assert anomaly.value == 50.0
    assert "+40" in anomaly.detail and "above the maximum increase 20.0" in anomaly.detail


def test_absolute_change_flags_only_the_start_of_a_level_shift() -> None:
    values = [10.0] * 5 + [30.0] * 5
    assert indices(AbsoluteChangeStrategy(-5.0, 5.0).detect(values)) == [5]


def test_slow_trend_passes_absolute_change_but_not_threshold() -> None:
    values = [float(v) for v in range(0, 100, 2)]  # +2 per step, reaches 98
    assert AbsoluteChangeStrategy(-5.0, 5.0, order=1).detect(values) == []
    flagged = indices(SimpleThresholdStrategy(upper_bound=80.0).detect(values))
    assert flagged == list(range(41, 50))  # 82 .. 98


def test_order_two_differencing_handles_a_quadratic_trend() -> None:
    values = [float(i * i) for i in range(20)]  # first difference 2i-1 grows, second difference is 2
    assert indices(AbsoluteChangeStrategy(max_rate_increase=10.0, order=1).detect(values)) == list(range(6, 20))
    assert AbsoluteChangeStrategy(-5.0, 5.0, order=2).detect(values) == []
    values[12] += 30.0  # a kink: second differences at 12, 13, 14 become 32, -58, 32
    anomalies = AbsoluteChangeStrategy(-5.0, 5.0, order=2).detect(values)
    assert indices(anomalies) == [12, 13, 14]
    assert "+32" in anomalies[0].detail and "-58" in anomalies[1].detail
    assert "order-2" in anomalies[0].detail


def test_absolute_change_uses_points_before_the_interval_as_context() -> None:
    strategy = AbsoluteChangeStrategy(max_rate_increase=5.0)
    assert indices(strategy.detect([10.0, 50.0], (1, 2))) == [1]
    assert strategy.detect([10.0, 50.0], (0, 1)) == []  # index 0 has no previous value
    order2 = AbsoluteChangeStrategy(max_rate_increase=5.0, order=2)
    assert indices(order2.detect([0.0, 0.0, 10.0, 20.0], (2, 3))) == [2]
    assert indices(order2.detect([0.0, 0.0, 10.0, 20.0], (3, 4))) == []  # 20 - 2*10 + 0 = 0


def test_absolute_change_needs_order_plus_one_points() -> None:
    strategy = AbsoluteChangeStrategy(max_rate_increase=0.0, order=3)
    assert strategy.detect([0.0, 100.0, 1000.0]) == []
    assert indices(strategy.detect([0.0, 100.0, 1000.0, 1e6])) == [3]


@pytest.mark.parametrize("kwargs, message", [
    ({}, "at least one"),
    ({"max_rate_increase": 1.0, "order": 0}, "order"),
    ({"max_rate_increase": 1.0, "order": 1.5}, "order"),
    ({"max_rate_increase": 1.0, "order": True}, "order"),
    ({"max_rate_decrease": 2.0, "max_rate_increase": 1.0}, "must not be larger"),
    ({"max_rate_increase": "5"}, "number"),
])
def test_change_strategies_validate_parameters(kwargs: dict, message: str) -> None:
    for cls in (AbsoluteChangeStrategy, RelativeRateOfChangeStrategy):
        with pytest.raises(ValueError, match=message):
            cls(**kwargs)


# ----------------------------------------------------------------------------------------- RelativeRateOfChange


def test_relative_rate_of_change_compares_ratios() -> None:
    values = [100.0, 100.0, 200.0, 100.0, 40.0]
    anomalies = RelativeRateOfChangeStrategy(0.5, 1.5).detect(values)
    assert indices(anomalies) == [2, 4]  # ratios 1, 2, 0.5 (on the bound), 0.4
    assert anomalies[0].detail.startswith("ratio 2.0 of value 200.0 to value 100.0")
    assert "above the maximum increase 1.5" in anomalies[0].detail
    assert "below the maximum decrease 0.5" in anomalies[1].detail


def test_relative_rate_of_change_order_is_a_lag() -> None:
    values = [100.0, 10.0] * 5  # a two-step seasonality
    assert indices(RelativeRateOfChangeStrategy(0.5, 2.0, order=1).detect(values)) == list(range(1, 10))
    assert RelativeRateOfChangeStrategy(0.5, 2.0, order=2).detect(values) == []
    values[-1] = 30.0  # 30 / 10 two steps earlier = 3
    assert indices(RelativeRateOfChangeStrategy(0.5, 2.0, order=2).detect(values)) == [9]
    assert indices(RelativeRateOfChangeStrategy(0.5, 2.0, order=2).detect(values, (9, 10))) == [9]


def test_relative_rate_of_change_division_by_zero() -> None:
    both = RelativeRateOfChangeStrategy(0.5, 2.0)
    assert both.detect([0.0, 0.0, 0.0]) == []  # 0 -> 0 is ratio 1
    assert indices(both.detect([5.0, 0.0])) == [1]  # x -> 0 is ratio 0
    assert indices(both.detect([0.0, 5.0])) == [1]  # 0 -> x>0 is +inf
    assert "ratio inf" in both.detect([0.0, 5.0])[0].detail
    assert RelativeRateOfChangeStrategy(max_rate_decrease=0.5).detect([0.0, 5.0]) == []
    assert indices(RelativeRateOfChangeStrategy(max_rate_decrease=0.5).detect([0.0, -5.0])) == [1]  # -inf
    assert RelativeRateOfChangeStrategy(max_rate_increase=2.0).detect([0.0, -5.0]) == []


def test_relative_ratios_never_produce_nan() -> None:
    np = pytest.importorskip("numpy")
    new = np.array([0.0, 0.0, 5.0, -5.0, 5.0, 6.0])
    old = np.array([0.0, 5.0, 0.0, 0.0, -5.0, 3.0])
    assert RelativeRateOfChangeStrategy.ratios(new, old).tolist() == [1.0, 0.0, math.inf, -math.inf, -1.0, 2.0]
    # 0 -> 0 really is ratio 1: a (strange but valid) bound that excludes 1 flags it.
    assert indices(RelativeRateOfChangeStrategy(max_rate_decrease=1.5).detect([0.0, 0.0])) == [1]


def test_rate_of_change_means_what_it_means_in_deequ() -> None:
    """Deequ's RateOfChangeStrategy is the deprecated name of AbsoluteChangeStrategy (differences); the ratio
    strategy is RelativeRateOfChangeStrategy. A ported check must keep its meaning (issue 12)."""
    # By hand, x = 100, 130, 260, 52, 0, 0, 10 with bounds [0.5, 2.0]:
    #   differences +30, +130, -208, -52, 0, +10: every step leaves [0.5, 2.0]  ->  indices 1..6
    #   ratios 1.3, 2.0 (the bound: accepted), 0.2, 0, 0/0 = 1, 10/0 = +inf     ->  indices 3, 4, 6
    series = [100.0, 130.0, 260.0, 52.0, 0.0, 0.0, 10.0]
    assert RateOfChangeStrategy is AbsoluteChangeStrategy
    assert indices(RateOfChangeStrategy(max_rate_decrease=0.5, max_rate_increase=2.0).detect(series)) == [
        1, 2, 3, 4, 5, 6]
    relative = RelativeRateOfChangeStrategy(max_rate_decrease=0.5, max_rate_increase=2.0)
    found = relative.detect(series)
    assert indices(found) == [3, 4, 6] and [a.value for a in found] == [52.0, 0.0, 10.0]
    # A ratio, not a difference: 100 -> 130 is +30 but only 1.3x.
    assert relative.__class__(max_rate_increase=1.5).detect([100.0, 130.0]) == []
    assert indices(RateOfChangeStrategy(max_rate_increase=1.5).detect([100.0, 130.0])) == [1]
    # order is a lag for the ratio: x = 10, 100, 25, 150, 30 gives 25/10 = 2.5 (flagged), 150/100 = 1.5,
    # 30/25 = 1.2; the first 2 points are never judged, although 100/10 = 10 would leave the bounds at lag 1
    lagged = RelativeRateOfChangeStrategy(max_rate_decrease=0.5, max_rate_increase=2.0, order=2)
    assert indices(lagged.detect([10.0, 100.0, 25.0, 150.0, 30.0])) == [2]
    # the JSON name "RateOfChange" builds Deequ's (absolute) strategy; "RelativeRateOfChange" the ratio one
    from_json = strategy_from_dict({"type": "RateOfChange", "max_rate_decrease": 0.5, "max_rate_increase": 2.0})
    assert indices(from_json.detect(series)) == [1, 2, 3, 4, 5, 6]
    ratio_json = strategy_from_dict({"type": "RelativeRateOfChange", "max_rate_decrease": 0.5,
                                     "max_rate_increase": 2.0})
    assert indices(ratio_json.detect(series)) == [3, 4, 6]


# ----------------------------------------------------------------------------------------- OnlineNormal


def reference_online(values: list[float], lower: float | None, upper: float | None, ignore_start: float,
                     ignore_anomalies: bool) -> list[int]:
    """Naive re-computation: mean and population std of the accepted points before i, from scratch."""
    accepted: list[float] = []
    flagged = []
    for i, x in enumerate(values):
        is_anomaly = False
        if len(accepted) >= 2 and i >= len(values) * ignore_start:
            mean, std = statistics.fmean(accepted), statistics.pstdev(accepted)
            is_anomaly = ((lower is not None and x < mean - lower * std)
                          or (upper is not None and x > mean + upper * std))
        if is_anomaly:
            flagged.append(i)
        if not (is_anomaly and ignore_anomalies):
            accepted.append(x)
    return flagged


def test_online_normal_against_hand_computed_running_stats() -> None:
    values = [10.0, 12.0, 11.0, 13.0, 12.0, 30.0, 11.0]
    anomalies = OnlineNormalStrategy(ignore_start_percentage=0.0).detect(values)
    assert indices(anomalies) == [5]
    # Before index 5: mean(10, 12, 11, 13, 12) = 11.6; pstdev = sqrt(5.2 / 5) = 1.0198; 11.6 + 3 * 1.0198 = 14.6594
    assert anomalies[0].detail == "value 30.0 is above the upper bound 14.6594 (mean 11.6 + 3.0 * std 1.0198)"
    # A tighter factor catches 13 at index 3: mean(10, 12, 11) = 11, pstdev = 0.8165, 11 + 2 * 0.8165 = 12.63 < 13
    assert indices(OnlineNormalStrategy(1.0, 2.0, ignore_start_percentage=0.0).detect(values)) == [3, 5]


def test_online_normal_ignore_anomalies_keeps_spikes_out_of_the_estimate() -> None:
    values = [10.0, 11.0, 10.0, 11.0, 10.0, 11.0, 50.0, 10.0, 11.0, 30.0]
    kept_out = OnlineNormalStrategy(ignore_start_percentage=0.0, ignore_anomalies=True).detect(values)
    # Without 50 the estimate before 30 is mean 10.5, std 0.5, so 30 is far above 12.0.
    assert indices(kept_out) == [6, 9]
    assert "upper bound 12.0 (mean 10.5 + 3.0 * std 0.5)" in kept_out[1].detail
    taken_in = OnlineNormalStrategy(ignore_start_percentage=0.0, ignore_anomalies=False).detect(values)
    # With 50 in the estimate: mean 134/9 = 14.89, pstdev 12.59, upper bound 52.7 > 30.
    assert indices(taken_in) == [6]
    prior = values[:9]
    assert statistics.fmean(prior) + 3 * statistics.pstdev(prior) > 30.0


def test_online_normal_ignore_start_percentage() -> None:
    values = [10.0, 11.0, 10.0, 50.0, 10.0, 11.0, 10.0, 11.0, 10.0, 11.0]
    assert indices(OnlineNormalStrategy(ignore_start_percentage=0.0).detect(values)) == [3]
    # 10 points * 0.3 = 3: indices 0..2 are skipped, index 3 is judged.
    assert indices(OnlineNormalStrategy(ignore_start_percentage=0.3).detect(values)) == [3]
    # 10 * 0.4 = 4: the spike is in the warm-up. It trains the estimate even with ignore_anomalies,
    # so the later points fit the wide bounds.
    assert OnlineNormalStrategy(ignore_start_percentage=0.4, ignore_anomalies=True).detect(values) == []
    assert OnlineNormalStrategy(ignore_start_percentage=1.0).detect(values) == []


def test_online_normal_needs_two_points_in_the_estimate() -> None:
    # Index 1 would face a one-point estimate with std 0; it is not judged.
    assert OnlineNormalStrategy(ignore_start_percentage=0.0).detect([10.0, 99.0]) == []
    # Index 2 is judged against (10, 10): std 0, so 11 is flagged.
    assert indices(OnlineNormalStrategy(ignore_start_percentage=0.0).detect([10.0, 10.0, 11.0])) == [2]


def test_online_normal_one_sided_factors() -> None:
    values = [10.0, 11.0, 10.0, 11.0, 10.0, 11.0, 50.0, -30.0]
    assert indices(OnlineNormalStrategy(None, 3.0, ignore_start_percentage=0.0).detect(values)) == [6]
    assert indices(OnlineNormalStrategy(3.0, None, ignore_start_percentage=0.0).detect(values)) == [7]
    with pytest.raises(ValueError, match="at least one"):
        OnlineNormalStrategy(None, None)
    with pytest.raises(ValueError, match="negative"):
        OnlineNormalStrategy(-1.0, 3.0)
    with pytest.raises(ValueError, match="ignore_start_percentage"):
        OnlineNormalStrategy(ignore_start_percentage=1.5)


@pytest.mark.parametrize("seed", range(6))
def test_online_normal_matches_naive_recomputation_and_is_interval_independent(seed: int) -> None:
    rng = random.Random(seed)
    values = [rng.gauss(100.0, 5.0) + (rng.choice([-60.0, 60.0]) if rng.random() < 0.08 else 0.0) for _ in range(80)]
    for lower, upper, ignore_start, ignore_anomalies in [(3.0, 3.0, 0.1, True), (2.0, None, 0.0, False),
                                                         (None, 1.5, 0.25, True)]:
        strategy = OnlineNormalStrategy(lower, upper, ignore_start, ignore_anomalies)
        full = indices(strategy.detect(values))
        assert full == reference_online(values, lower, upper, ignore_start, ignore_anomalies)
        # Judging one point at a time gives the same verdicts as judging the whole series.
        assert [i for i in range(len(values)) if strategy.detect(values, (i, i + 1))] == full
    assert full, "the injected spikes should produce at least one anomaly"


# ----------------------------------------------------------------------------------------- BatchNormal


def test_batch_normal_trains_outside_the_interval() -> None:
    values = [998.0, 1002.0, 1000.0, 1000.0, 1200.0]
    anomalies = BatchNormalStrategy().detect(values, (4, 5))
    # mean 1000, sample std sqrt(8 / 3) = 1.63299, upper bound 1004.9
    assert anomalies == [Anomaly(4, 1200.0, 1.0,
                                 "value 1200.0 is above the upper bound 1004.9 (mean 1000.0 + 3.0 * std 1.63299)")]
    # Training data on both sides of the interval.
    middle = [10.0, 11.0, 10.0, 30.0, 2.0, 11.0, 10.0, 11.0]
    assert indices(BatchNormalStrategy().detect(middle, (3, 5))) == [3, 4]
    assert indices(BatchNormalStrategy(lower_deviation_factor=None).detect(middle, (3, 5))) == [3]


def test_batch_normal_include_interval_lets_a_spike_widen_its_own_bounds() -> None:
    values = [10.0, 11.0, 10.0, 11.0, 10.0, 11.0, 10.0, 11.0, 30.0]
    assert indices(BatchNormalStrategy(include_interval=False).detect(values, (8, 9))) == [8]
    assert BatchNormalStrategy(include_interval=True).detect(values, (8, 9)) == []
    mean, std = statistics.fmean(values), statistics.stdev(values)
    assert mean + 3 * std > 30.0  # why the spike passes when it is part of the training set


def test_batch_normal_needs_two_training_points() -> None:
    with pytest.raises(ValueError, match="at least 2 training points outside the search interval"):
        BatchNormalStrategy().detect([1.0, 2.0, 3.0], (1, 3))
    with pytest.raises(ValueError, match="at least 2 training points"):
        BatchNormalStrategy(include_interval=True).detect([1.0], (0, 1))
    assert indices(BatchNormalStrategy().detect([1.0, 1.0, 3.0], (2, 3))) == [2]


# ----------------------------------------------------------------------------------------- edge cases

ALL_STRATEGIES = [
    SimpleThresholdStrategy(lower_bound=4.0, upper_bound=6.0),
    AbsoluteChangeStrategy(0.0, 0.0),
    AbsoluteChangeStrategy(0.0, 0.0, order=2),
    RelativeRateOfChangeStrategy(1.0, 1.0),
    OnlineNormalStrategy(ignore_start_percentage=0.0),
    BatchNormalStrategy(),
]


@pytest.mark.parametrize("strategy", ALL_STRATEGIES, ids=lambda s: type(s).__name__)
def test_empty_series_has_no_anomalies(strategy) -> None:
    assert strategy.detect([]) == []
    assert strategy.detect([], (0, 0)) == []


@pytest.mark.parametrize("strategy", ALL_STRATEGIES, ids=lambda s: type(s).__name__)
def test_constant_series_repeats_pass_and_a_deviation_is_flagged(strategy) -> None:
    constant = [5.0] * 10
    interval = (9, 10) if isinstance(strategy, BatchNormalStrategy) else None
    assert strategy.detect(constant, interval) == []
    deviated = constant[:9] + [6.5]
    assert indices(strategy.detect(deviated, interval)) == [9]


def test_constant_series_of_inexact_floats_is_not_flagged() -> None:
    values = [0.1] * 37  # numpy's mean of these is 0.10000000000000002, not 0.1
    for factor in (3.0, 0.0):  # factor 0: the bounds collapse onto the mean, so it must be exact
        assert BatchNormalStrategy(factor, factor).detect(values, (36, 37)) == []
        assert BatchNormalStrategy(factor, factor, include_interval=True).detect(values) == []
        assert OnlineNormalStrategy(factor, factor, ignore_start_percentage=0.0).detect(values) == []
    assert indices(BatchNormalStrategy(0.0, 0.0).detect(values[:36] + [0.1000001], (36, 37))) == [36]


@pytest.mark.parametrize("strategy", ALL_STRATEGIES, ids=lambda s: type(s).__name__)
def test_invalid_series_and_intervals_raise(strategy) -> None:
    with pytest.raises(ValueError, match="finite"):
        strategy.detect([1.0, math.nan, 2.0])
    with pytest.raises(ValueError, match="finite"):
        strategy.detect([1.0, math.inf])
    with pytest.raises(ValueError, match="larger than its end"):
        strategy.detect([1.0, 2.0, 3.0], (2, 1))
    with pytest.raises(ValueError, match=">= 0"):
        strategy.detect([1.0, 2.0, 3.0], (-1, 2))
    with pytest.raises(ValueError, match="number"):
        strategy.detect(["a", "b"])  # type: ignore[list-item]


# ----------------------------------------------------------------------------------------- AnomalyDetector


def history_points() -> list[DataPoint]:
    return [DataPoint(t, v) for t, v in [(1, 10.0), (2, 11.0), (3, 10.0), (4, None), (5, 11.0), (6, 10.0)]]


def test_new_point_is_judged_against_sorted_history_without_missing_values() -> None:
    detector = AnomalyDetector(BatchNormalStrategy())
    history = list(reversed(history_points()))  # order does not matter
    result = detector.is_new_point_anomalous(history, DataPoint(9, 25.0))
    assert result.is_anomalous
    assert [p.time for p in result.series] == [1, 2, 3, 5, 6, 9]  # time 4 (None) is dropped
    assert result.search_interval == (5, 6)
    assert result.anomalous_points == [DataPoint(9, 25.0)]
    assert result.anomalies[0].index == 5 and result.anomalies[0].value == 25.0
    assert result.to_dict()["anomalies"][0]["time"] == 9
    assert not detector.is_new_point_anomalous(history, DataPoint(9, 10.5)).is_anomalous


def test_new_point_search_covers_only_the_new_point() -> None:
    history = [DataPoint(t, v) for t, v in enumerate([10.0, 10.0, 99.0, 10.0])]
    detector = AnomalyDetector(SimpleThresholdStrategy(upper_bound=50.0))
    assert len(detector.detect_anomalies_in_series(history).anomalies) == 1  # the old spike, time 2
    assert not detector.is_new_point_anomalous(history, DataPoint(4, 10.0)).is_anomalous
    assert detector.is_new_point_anomalous(history, DataPoint(4, 60.0)).is_anomalous


def test_new_point_validation_errors() -> None:
    detector = AnomalyDetector(SimpleThresholdStrategy(upper_bound=1.0))
    history = history_points()
    with pytest.raises(ValueError, match=r"time 6 is not later than the history, which spans times 1 to 6"):
        detector.is_new_point_anomalous(history, DataPoint(6, 1.0))
    with pytest.raises(ValueError, match=r"time 3 is not later .* times 1 to 6"):
        detector.is_new_point_anomalous(history, DataPoint(3, 1.0))
    # The missing point at time 4 still counts for ordering.
    with pytest.raises(ValueError, match="spans times 1 to 4"):
        detector.is_new_point_anomalous([DataPoint(1, 1.0), DataPoint(4, None)], DataPoint(3, 1.0))
    with pytest.raises(ValueError, match="must not be empty"):
        detector.is_new_point_anomalous([], DataPoint(1, 1.0))
    with pytest.raises(ValueError, match="has no value"):
        detector.is_new_point_anomalous(history, DataPoint(7, None))
    with pytest.raises(ValueError, match="more than one point at time 2"):
        detector.is_new_point_anomalous([DataPoint(2, 1.0), DataPoint(2, 2.0)], DataPoint(7, 1.0))
    with pytest.raises(ValueError, match="DataPoint"):
        detector.is_new_point_anomalous([(1, 1.0)], DataPoint(7, 1.0))  # type: ignore[list-item]
    with pytest.raises(ValueError, match="AnomalyDetectionStrategy"):
        AnomalyDetector("OnlineNormal")  # type: ignore[arg-type]


def test_history_of_missing_values_leaves_the_strategy_without_context() -> None:
    history = [DataPoint(1, None), DataPoint(2, None)]
    assert AnomalyDetector(SimpleThresholdStrategy(upper_bound=1.0)).is_new_point_anomalous(
        history, DataPoint(3, 2.0)).is_anomalous
    with pytest.raises(ValueError, match="at least 2 training points"):
        AnomalyDetector(BatchNormalStrategy()).is_new_point_anomalous(history, DataPoint(3, 2.0))


def test_detect_anomalies_in_series_uses_a_half_open_time_interval() -> None:
    values = {10: 1.0, 20: 1.0, 30: 9.0, 40: 1.0, 50: math.nan, 60: 9.0, 70: 1.0}
    points = [DataPoint(t, v) for t, v in values.items()]
    detector = AnomalyDetector(SimpleThresholdStrategy(upper_bound=5.0))

    def times(interval: tuple[int | None, int | None]) -> list[int]:
        return [p.time for p in detector.detect_anomalies_in_series(points, interval).anomalous_points]

    assert times((None, None)) == [30, 60]
    assert times((30, 60)) == [30]  # the end is exclusive
    assert times((31, 61)) == [60]
    assert times((25, 35)) == [30]  # bounds need not be point times
    assert times((None, 30)) == []
    assert times((61, None)) == []
    result = detector.detect_anomalies_in_series(points)
    assert 50 not in [p.time for p in result.series]  # NaN counts as missing
    with pytest.raises(ValueError, match="later than its end"):
        detector.detect_anomalies_in_series(points, (40, 30))


def test_detector_passes_context_before_the_interval_to_the_strategy() -> None:
    points = [DataPoint(t, v) for t, v in [(1, 10.0), (2, 40.0), (3, 41.0)]]
    detector = AnomalyDetector(AbsoluteChangeStrategy(max_rate_increase=5.0))
    assert [p.time for p in detector.detect_anomalies_in_series(points, (2, None)).anomalous_points] == [2]


# ----------------------------------------------------------------------------------------- dict round trip


@pytest.mark.parametrize("strategy", [
    SimpleThresholdStrategy(upper_bound=10.0),
    SimpleThresholdStrategy(lower_bound=-1.5, upper_bound=2.5),
    AbsoluteChangeStrategy(max_rate_increase=3.0, order=2),
    AbsoluteChangeStrategy(-1.0, 1.0),
    RelativeRateOfChangeStrategy(0.8, 1.25, order=7),
    OnlineNormalStrategy(2.0, None, 0.2, False),
    BatchNormalStrategy(None, 2.5, include_interval=True),
], ids=repr)
def test_strategy_dict_round_trip_through_json(strategy) -> None:
    text = json.dumps(strategy.to_dict(), allow_nan=False)  # strict JSON: no Infinity
    rebuilt = strategy_from_dict(json.loads(text))
    assert rebuilt == strategy and type(rebuilt) is type(strategy)
    series = [1.0, 2.0, 1.5, 30.0, 1.0, 2.0, 1.0, 2.0, 1.5, -20.0]
    assert rebuilt.detect(series, (3, 10)) == strategy.detect(series, (3, 10))


def test_strategy_from_dict_names_and_coercion() -> None:
    online = strategy_from_dict({"type": "OnlineNormal", "lower_deviation_factor": 3, "upper_deviation_factor": 2})
    assert online == OnlineNormalStrategy(3.0, 2.0)
    assert isinstance(online.upper_deviation_factor, float)
    assert online.to_dict() == {"type": "OnlineNormal", "lower_deviation_factor": 3.0, "upper_deviation_factor": 2.0,
                                "ignore_start_percentage": 0.1, "ignore_anomalies": True}
    assert strategy_from_dict({"type": "BatchNormalStrategy"}) == BatchNormalStrategy()
    rate = strategy_from_dict({"type": "RateOfChange", "max_rate_increase": 2})  # Deequ's name of AbsoluteChange
    assert isinstance(rate, AbsoluteChangeStrategy)
    assert rate.to_dict()["type"] == "AbsoluteChange"
    assert SimpleThresholdStrategy(upper_bound=1.0).to_dict() == {"type": "SimpleThreshold", "lower_bound": None,
                                                                  "upper_bound": 1.0}


def test_strategy_from_dict_errors_list_the_valid_choices() -> None:
    with pytest.raises(ValueError, match="unknown anomaly detection strategy type 'Prophet'") as err:
        strategy_from_dict({"type": "Prophet"})
    for name in ("AbsoluteChange", "BatchNormal", "OnlineNormal", "RateOfChange", "RelativeRateOfChange",
                 "SimpleThreshold"):
        assert name in str(err.value)
    with pytest.raises(ValueError, match="'type'"):
        strategy_from_dict({"lower_deviation_factor": 3})
    with pytest.raises(ValueError, match="'lower_factor'.*valid parameters: lower_deviation_factor, "
                                         "upper_deviation_factor, ignore_start_percentage, ignore_anomalies"):
        strategy_from_dict({"type": "OnlineNormal", "lower_factor": 3})
    with pytest.raises(ValueError, match="upper_bound"):
        strategy_from_dict({"type": "SimpleThreshold"})
    with pytest.raises(ValueError, match="number"):
        strategy_from_dict({"type": "BatchNormal", "lower_deviation_factor": "3"})
    with pytest.raises(ValueError, match="true or false"):
        strategy_from_dict({"type": "BatchNormal", "include_interval": "yes"})
    with pytest.raises(ValueError, match="at least one"):
        strategy_from_dict({"type": "AbsoluteChange"})
