"""Priority sampling of a column's distinct values: bounded per-column work with unbiased counts.

Enumeration costs per *distinct* value (tokenizing, shapes, constants). A lake column of millions of
IDs or timestamps would cost millions of analyses to learn what a few hundred show, so the build
enumerates at most ``k`` distinct values per column, chosen by priority sampling (Duffield, Lund and
Thorup, "Priority sampling for estimation of arbitrary subset sums", JACM 2007):

* value v of weight w gets priority w / u(v), with u(v) in (0, 1] a hash of the value (the same value
  gets the same priority in every column, on every executor, in every run: builds are reproducible);
* the ``k`` highest priorities are kept; t is the (k+1)-th priority;
* a kept value stands for max(w, t) values.

For any pattern p, the sum of the estimated weights of the kept values matching p is an unbiased
estimate of count_D(p), with near-minimal variance among samples of k. Values at least as heavy as t
(the column's common values, its constants) are kept with their exact weight, so an ID column's
prefix constant or a status column's codes are exact. The light values' estimates are then scaled
so that they sum to the light values' true weight (a ratio estimator): a pattern that every value
matches keeps impurity exactly 0, which the plain estimate would miss by its sampling error, at the
price of a bias of order 1/k. A column of at most ``k`` distinct values is enumerated exactly. The
column's size |D| is always exact.

Why hash-based priorities and not the heaviest ``k``: a column's heaviest values are its defaults and
sentinels, not a picture of the rest; scaling them up would make an impure column look pure.
"""

from __future__ import annotations

import heapq
import math
import zlib
from collections.abc import Callable, Hashable, Iterable, Mapping
from typing import cast

MAX_DISTINCT = 128  # distinct values enumerated per column (heavier ones exactly, the rest estimated)
_U = float(1 << 32)
# a value's weight: its count, or the estimate (a float) that a priority sample gives it
Weight = int | float


def value_hash(value: str) -> int:
    """A 32-bit hash of a value, the same in every process and run (Python's ``hash`` is salted)."""
    return zlib.crc32(value.encode("utf-8", "surrogatepass"))


def priority_sample(values: list[str], weights: list[int], k: int) -> tuple[list[str], list[Weight]]:
    """The ``k`` values of highest priority w/u(v), each with its estimated weight max(w, t).

    Columns of at most ``k`` values are returned unchanged (exact weights).
    """
    n = len(values)
    if k <= 0 or n <= k:
        return values, cast(list[Weight], weights)  # exact counts, returned as given (no copy)
    # priority w / u(v), u(v) = (value_hash(v) + 1) / 2^32 in (0, 1]: deterministic and pseudo-uniform,
    # built as a list (a wide fit samples a 1,000-value column; a generator fed to nlargest cost more)
    top = heapq.nlargest(k + 1, [(w / ((value_hash(v) + 1) / _U), i)
                                 for i, (v, w) in enumerate(zip(values, weights, strict=True))])
    t = top[k][0]
    kept = [i for _, i in top[:k]]
    heavy = sum(weights[i] for i in kept if weights[i] >= t)
    light = [i for i in kept if weights[i] < t]
    scale = (sum(weights) - heavy) / (t * len(light)) if light else 1.0
    return [values[i] for i in kept], [float(weights[i]) if weights[i] >= t else t * scale for i in kept]


def apportion(values: list[str], estimates: list[Weight], total: int) -> dict[str, int]:
    """Integer weights for estimated ones, summing to ``total``: floors (at least 1), then the units left
    to the largest fractional parts (largest-remainder rounding), or taken back from the heaviest."""
    ints = [max(1, math.floor(e)) for e in estimates]
    left = total - sum(ints)
    if left > 0:
        order = sorted(range(len(values)), key=lambda i: (ints[i] - estimates[i], i))
        for j in range(left):
            ints[order[j % len(order)]] += 1
    for _ in range(-left):  # the floors of 1 took more than the total (float error): heaviest give back
        i = max(range(len(values)), key=lambda i: ints[i])
        ints[i] -= 1
    return dict(zip(values, ints, strict=True))


def stratified_sample(counts: Mapping[str, int], stratum: Callable[[str], Hashable], k: int) -> dict[str, int]:
    """About ``k`` of the values of ``counts`` with integer weights: each stratum (``stratum(value)``)
    gets a share of ``k`` proportional to its distinct values (one at least), priority-sampled within
    it, and its kept values' weights are apportioned to the stratum's exact total. A rare structure
    then weighs in the sample what it weighs in the column: plain priority sampling lets a kept light
    value carry the weight of the light values left out, whatever their structure."""
    groups: dict[Hashable, list[str]] = {}
    for v in counts:
        groups.setdefault(stratum(v), []).append(v)
    return sample_strata(counts, groups.values(), k)


def sample_strata(counts: Mapping[str, int], groups: Iterable[list[str]], k: int) -> dict[str, int]:
    """:func:`stratified_sample` of strata already formed: ``groups`` partition the values of ``counts``."""
    n = len(counts)
    out: dict[str, int] = {}
    for values in groups:
        weights = [counts[v] for v in values]
        kept, estimates = priority_sample(values, weights, max(1, round(k * len(values) / n)))
        if len(kept) == len(values):
            out.update(zip(values, weights, strict=True))
        else:
            out.update(apportion(kept, estimates, sum(weights)))
    return out
