"""Random sources of one table's cells and the value distributions the domains draw from.

:class:`Ctx` carries a table's two generators (numpy and stdlib, both seeded by the lake seed and the
table index) and draws Zipf-skewed picks, weighted picks, per-column subsets and ids. The functions
below draw epoch seconds in a per-column time window inside 2018-2024 and split them into calendar
fields, draw log-normal magnitudes and hex strings, and format floats.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

TS_MIN = 1514764800  # 2018-01-01T00:00:00Z
TS_MAX = 1735689599  # 2024-12-31T23:59:59Z


@dataclass
class Ctx:
    """Random sources for the cells of one table; ``sequential`` marks the table's key column."""

    rng: np.random.Generator
    r: random.Random
    sequential: bool = False

    def pick(self, pool: Sequence[str], n: int, skew: float = 1.0) -> list[str]:
        """``n`` draws from ``pool`` with a Zipf-like skew and a per-column random popularity order."""
        order = self.rng.permutation(len(pool))
        weights = 1.0 / np.arange(1, len(pool) + 1) ** skew
        idx = order[self.rng.choice(len(pool), size=n, p=weights / weights.sum())]
        return [pool[i] for i in idx.tolist()]

    def weighted(self, pool: Sequence[str], weights: Sequence[float], n: int) -> list[str]:
        """``n`` draws from ``pool`` with fixed weights (e.g. HTTP 200 dominates)."""
        w = np.asarray(weights, dtype=float)
        idx = self.rng.choice(len(pool), size=n, p=w / w.sum())
        return [pool[i] for i in idx.tolist()]

    def subset(self, pool: Sequence[str], lo: int, hi: int) -> list[str]:
        """A per-column random subset of ``pool`` (size between ``lo`` and ``hi``)."""
        return self.r.sample(list(pool), min(len(pool), self.r.randint(lo, hi)))

    def ids(self, lo: int, hi: int, n: int) -> np.ndarray:
        """Integer identifiers in ``[lo, hi)``; ascending and unique-ish for key columns."""
        if self.sequential:
            steps = self.rng.integers(1, 4, n)
            start = self.rng.integers(lo, max(lo + 1, hi - int(steps.sum()) - 1))
            return start + np.cumsum(steps)
        return self.rng.integers(lo, hi, n)


def hex_strings(g: Ctx, n: int, nchars: int) -> list[str]:
    nbytes = (nchars + 1) // 2
    blob = g.rng.bytes(n * nbytes).hex()
    step = 2 * nbytes
    return [blob[i : i + nchars] for i in range(0, n * step, step)]


def epochs(g: Ctx, n: int) -> np.ndarray:
    """Epoch seconds inside a per-column window somewhere in 2018-2024; sometimes sorted (log order)."""
    span = g.r.choice((86_400, 7 * 86_400, 30 * 86_400, 365 * 86_400, TS_MAX - TS_MIN))
    start = g.r.randint(TS_MIN, TS_MAX - span)
    ep = g.rng.integers(start, start + span, n, dtype=np.int64)
    if g.sequential or g.r.random() < 0.25:
        ep.sort()
    return ep


def split_epochs(ep: np.ndarray) -> tuple[list[int], ...]:
    """Vectorised calendar split: (year, month, day, hour, minute, second, weekday Mon=0)."""
    days = ep // 86_400
    day = days.astype("datetime64[D]")
    month = day.astype("datetime64[M]")
    years = month.astype("datetime64[Y]").astype(np.int64) + 1970
    months = month.astype(np.int64) % 12 + 1
    mdays = (day - month).astype(np.int64) + 1
    sod = ep % 86_400
    return (years.tolist(), months.tolist(), mdays.tolist(), (sod // 3600).tolist(),
            (sod // 60 % 60).tolist(), (sod % 60).tolist(), ((days + 3) % 7).tolist())


def lognormal(g: Ctx, n: int, median_lo: float, median_hi: float, sigma: float = 1.0) -> np.ndarray:
    median = float(np.exp(g.r.uniform(np.log(median_lo), np.log(median_hi))))
    return g.rng.lognormal(np.log(median), sigma, n)


def fmt_floats(values: np.ndarray, spec: str) -> list[str]:
    fmt = ("{:" + spec + "}").format
    return [fmt(v) for v in values.tolist()]
