"""What each batch metric (:mod:`lakeindex.history.batch_metrics`) means, in a phrase a reader of a report or
summary needs, and the range its values can take (a bound beyond that range admits every value)."""

from __future__ import annotations

import math
from dataclasses import dataclass

from lakeindex.history.batch_metrics import BatchMetric


@dataclass(frozen=True)
class MetricInfo:
    """A metric's one-line description and the lowest and highest values it can take."""

    description: str
    lowest: float = -math.inf
    highest: float = math.inf


_COUNT, _RATIO, _HALF = (0.0, math.inf), (0.0, 1.0), (0.0, 2.0)
_DISTANCES = {
    "l1": ("sum of absolute differences of the value frequencies to the previous batch's", _HALF),
    "linf": ("largest difference of one value frequency to the previous batch's", _RATIO),
    "cosine": ("cosine distance (1 - cosine similarity) of the value frequencies to the previous batch's", _RATIO),
    "chisquare": ("chi-squared statistic of the value counts against the previous batch's (0 when alike)", _COUNT),
    "chisquare_pvalue": ("p-value of the chi-squared test of the value counts against the previous batch's "
                         "(small: the frequencies differ)", _RATIO),
    "js_div": ("Jensen-Shannon divergence of the value distribution from the previous batch's, in bits", _RATIO),
    "kl_div": ("Kullback-Leibler divergence of the value distribution from the previous batch's, in bits", _COUNT),
}
_ENTRIES: dict[str, tuple[str, tuple[float, float]]] = {
    "row_count": ("rows in the batch, nulls included", _COUNT),
    "complete_ratio": ("share of rows holding a value (not null, not empty, a finite number if numeric)", _RATIO),
    "unique_ratio": ("distinct values / values (1: every value differs)", _RATIO),
    "min": ("smallest value", (-math.inf, math.inf)),
    "max": ("largest value", (-math.inf, math.inf)),
    "mean": ("mean of the values", (-math.inf, math.inf)),
    "median": ("median of the values", (-math.inf, math.inf)),
    "sum": ("sum of the values", (-math.inf, math.inf)),
    "range": ("largest minus smallest value", _COUNT),
    "dist_val_count": ("number of distinct values", _COUNT),
    "new_value_ratio": ("share of the values that the clean history's vocabulary lacks (a new category)", _RATIO),
    "str_len": ("mean characters per value", _COUNT),
    "char_len": ("mean letters per value", _COUNT),
    "digit_len": ("mean digits per value", _COUNT),
    "punc_len": ("mean punctuation and symbol characters per value", _COUNT),
    "emd": ("earth mover's distance of the value distribution to the previous batch's, in data units", _COUNT),
    "ks_dist": ("Kolmogorov-Smirnov distance (largest CDF gap) to the previous batch's values", _RATIO),
    "cohen_d": ("Cohen's d: difference of the means to the previous batch's, in pooled standard deviations",
                _COUNT),
    **_DISTANCES,
    **{f"pat_{name}": (text.replace("value frequencies", "frequencies of the values' patterns")
                       .replace("one value frequency", "one pattern's frequency")
                       .replace("value counts", "counts of the values' patterns")
                       .replace("value distribution", "distribution of the values' patterns"), domain)
       for name, (text, domain) in _DISTANCES.items()},
}
GLOSSARY: dict[str, MetricInfo] = {str(m): MetricInfo(_ENTRIES[str(m)][0], *_ENTRIES[str(m)][1]) for m in BatchMetric}


def metric_range(metric: str) -> tuple[float, float]:
    """The lowest and highest value ``metric`` can take (unbounded for a name this module does not know)."""
    info = GLOSSARY.get(metric)
    return (info.lowest, info.highest) if info else (-math.inf, math.inf)
