"""Anomaly detection on data-quality metric time series (Deequ VLDB 2018 §3.4), in numpy (Holt-Winters: statsmodels).

Strategies judge a plain series of values (``strategy.detect(values, (start, end))``), and
``AnomalyDetector`` applies one to a timestamped history. An example::

    detector = AnomalyDetector(OnlineNormalStrategy(upper_deviation_factor=3.0))
    result = detector.is_new_point_anomalous(history, DataPoint(time=20240601, value=0.12))
    result.is_anomalous, [a.detail for a in result.anomalies]

``strategy_from_dict`` and ``strategy.to_dict()`` let checks and JSON configs name strategies.
"""

from lakeindex.anomaly.base import Anomaly, AnomalyDetectionStrategy
from lakeindex.anomaly.detector import AnomalyDetector, DataPoint, DetectionResult
from lakeindex.anomaly.holt_winters import HoltWintersStrategy
from lakeindex.anomaly.strategies import (
    AbsoluteChangeStrategy,
    BatchNormalStrategy,
    OnlineNormalStrategy,
    RateOfChangeStrategy,
    RelativeRateOfChangeStrategy,
    SimpleThresholdStrategy,
    strategy_from_dict,
)

__all__ = [
    "AbsoluteChangeStrategy",
    "Anomaly",
    "AnomalyDetectionStrategy",
    "AnomalyDetector",
    "BatchNormalStrategy",
    "DataPoint",
    "DetectionResult",
    "HoltWintersStrategy",
    "OnlineNormalStrategy",
    "RateOfChangeStrategy",
    "RelativeRateOfChangeStrategy",
    "SimpleThresholdStrategy",
    "strategy_from_dict",
]
