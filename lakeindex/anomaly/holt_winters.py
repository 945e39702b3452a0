"""Holt-Winters anomaly strategy (Deequ's ``seasonal.HoltWinters``): flag values far from a seasonal forecast.

An additive-trend, additive-season exponential smoothing model (ETS(A, A, A), statsmodels'
``ExponentialSmoothing``) is fitted on the points before the search interval and forecasts every
point of the interval. A point is anomalous when it lies outside ``forecast -/+ 1.96 * std`` of the
fit's one-step residuals, as in Deequ. statsmodels is imported only when a strategy detects, since
its import alone costs about a second.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from lakeindex.anomaly.base import Anomaly, AnomalyDetectionStrategy, fmt, prepare_series

__all__ = ["HoltWintersStrategy", "seasonal_period"]

#: Deequ's ``(MetricInterval, SeriesSeasonality)`` pairs and the season length they give, in points.
PERIODS: dict[tuple[str, str], int] = {("Hourly", "Daily"): 24, ("Daily", "Weekly"): 7, ("Monthly", "Yearly"): 12}
Z_95 = 1.96  # Deequ's band: forecast -/+ 1.96 residual standard deviations
#: Deviations below this fraction of the history's largest magnitude are the optimiser's noise, not anomalies:
#: a noiseless seasonal series with a trend is fitted to about 1e-8 relative, and its residual std is as small.
FIT_TOLERANCE = 1e-6


def seasonal_period(metrics_interval: str, seasonality: str) -> int:
    """The season length of Deequ's enum pair: Hourly metrics with Daily seasonality give 24, Daily+Weekly 7,
    Monthly+Yearly 12."""
    period = PERIODS.get((metrics_interval, seasonality))
    if period is None:
        valid = ", ".join(f"{i}+{s}" for i, s in PERIODS)
        raise ValueError(f"HoltWinters supports the metrics_interval+seasonality pairs {valid} (as Deequ), "
                         f"got {metrics_interval!r}+{seasonality!r}")
    return period


@dataclass(frozen=True)
class HoltWintersStrategy(AnomalyDetectionStrategy):
    """Flag points outside ``forecast -/+ 1.96 * residual std`` of a Holt-Winters model fitted on the points before.

    The model is fitted once on every point before the search interval and forecasts all points of the
    interval (Deequ's semantics: no refit inside the interval). Fitting needs at least two full seasons
    before the interval (14 daily points for a weekly season); with fewer, ``detect`` raises ``ValueError``
    as Deequ's ``require`` does, so a ``has_no_anomalies`` constraint fails with that message instead of
    passing unjudged.

    Differences from Deequ, on purpose: the band uses the sample std of the residuals (Deequ takes the std of
    their absolute values, a band about 40% narrower that flags a quarter of the points of Gaussian noise), the
    smoothing parameters and initial states come from statsmodels' optimiser (Deequ: L-BFGS-B on the
    smoothing parameters with a heuristic start), and deviations below ``FIT_TOLERANCE`` of the history's
    scale count as exact, so a perfectly predictable series is not flagged for floating-point noise.

    As Deequ's ``detect``, an empty series and an empty search interval (``start >= end``) raise ``ValueError``:
    there is nothing to fit or nothing to judge, and a check must not pass on that.

    Parameters:
        metrics_interval: how often the metric is computed, ``"Hourly"``, ``"Daily"`` or ``"Monthly"``.
        seasonality: the cycle of the metric, ``"Daily"`` (with Hourly), ``"Weekly"`` (with Daily) or ``"Yearly"``
            (with Monthly).
        series_periodicity: a season length in points of its own (Deequ's ``HoltWinters(seriesPeriodicity)``),
            instead of the pair above, e.g. 4 for quarterly metrics with a yearly cycle.
    """

    type_name: ClassVar[str] = "HoltWinters"

    metrics_interval: str = "Daily"
    seasonality: str = "Weekly"
    series_periodicity: int | None = None

    def __post_init__(self) -> None:
        n = self.series_periodicity
        if n is None:
            seasonal_period(self.metrics_interval, self.seasonality)  # validates the pair
            return
        if isinstance(n, bool) or not isinstance(n, int) or n < 2:
            raise ValueError(f"HoltWinters series_periodicity must be an integer season length >= 2, got {n!r}")
        if (self.metrics_interval, self.seasonality) != ("Daily", "Weekly"):
            raise ValueError("HoltWinters: give series_periodicity or a metrics_interval+seasonality pair, not both")

    @property
    def period(self) -> int:
        """Season length in points (24, 7, 12, or ``series_periodicity``)."""
        if self.series_periodicity is not None:
            return self.series_periodicity
        return seasonal_period(self.metrics_interval, self.seasonality)

    def to_dict(self) -> dict[str, Any]:
        out = super().to_dict()
        if self.series_periodicity is None:  # configs written before the parameter existed read back equal
            del out["series_periodicity"]
        else:
            del out["metrics_interval"], out["seasonality"]
        return out

    def forecast(self, history: Sequence[float], steps: int) -> tuple[np.ndarray, float]:
        """Fit on ``history`` and forecast ``steps`` points after it; returns ``(forecasts, residual std)``."""
        array = np.asarray(history, dtype=float)
        needed = 2 * self.period
        if len(array) < needed:
            raise ValueError(f"HoltWintersStrategy needs at least 2 seasons ({needed} points) of history before "
                             f"the points it judges, got {len(array)}")
        from statsmodels.tsa.holtwinters import ExponentialSmoothing

        with warnings.catch_warnings(), np.errstate(all="ignore"):
            # convergence chatter, and log(0) in the information criteria of an exact fit
            warnings.simplefilter("ignore")
            fit = ExponentialSmoothing(array, trend="add", seasonal="add", seasonal_periods=self.period,
                                       initialization_method="estimated").fit()
            forecasts = np.asarray(fit.forecast(steps), dtype=float)
        residual_std = float(np.std(np.asarray(fit.resid, dtype=float), ddof=1))
        if not (np.all(np.isfinite(forecasts)) and math.isfinite(residual_std)):
            raise ValueError("HoltWintersStrategy: the model fit gave no finite forecast")
        return forecasts, residual_std

    def detect(self, values: Sequence[float], search_interval: tuple[int, int] | None = None) -> list[Anomaly]:
        """Forecast the interval from the points before it and flag the points outside the band."""
        if len(values) == 0:
            raise ValueError("HoltWintersStrategy: the series is empty, so there is no model to fit")
        array, start, end = prepare_series(values, search_interval)
        if search_interval is not None and search_interval[0] >= search_interval[1]:
            raise ValueError(f"HoltWintersStrategy: the search interval {tuple(search_interval)} is empty; its start "
                             "must be before its end")
        if start == end:  # an interval beyond the series' end judges no point (Deequ)
            return []
        history = array[:start]
        forecasts, std = self.forecast(history, end - start)
        threshold = max(Z_95 * std, FIT_TOLERANCE * float(np.max(np.abs(history))))
        anomalies = []
        for i, forecast in zip(range(start, end), forecasts, strict=True):
            value, forecast = float(array[i]), float(forecast)
            if abs(value - forecast) > threshold:
                detail = (f"value {fmt(value)} is outside the forecast {fmt(forecast)} -/+ {Z_95} * residual std "
                          f"{fmt(std)} ([{fmt(forecast - threshold)}, {fmt(forecast + threshold)}])")
                anomalies.append(Anomaly(i, value, 1.0, detail))
        return anomalies
