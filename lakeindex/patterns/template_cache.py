"""A thread-safe LRU cache bounded by the total *weight* of its entries, not their number.

Shape templates differ in size by four orders of magnitude (a two-token shape has a handful, a
wide one up to the template budget), so an entry-count bound (``functools.lru_cache``) bounds
nothing: 16k cached shapes of 8k templates each is 10+ GB. Weight here is the number of pattern
strings an entry holds, so the cache's memory is bounded by ``max_weight`` strings.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Hashable
from threading import Lock
from typing import Any


class WeightedLRU:
    """Least-recently-used cache holding at most ``max_weight`` units in total."""

    def __init__(self, max_weight: int) -> None:
        if max_weight < 1:
            raise ValueError("max_weight must be >= 1")
        self.max_weight = max_weight
        self.weight = 0
        self._data: OrderedDict[Hashable, tuple[Any, int]] = OrderedDict()
        self._lock = Lock()

    def get(self, key: Hashable) -> Any | None:
        """The cached value (marked recently used), or None. Without the lock: each dictionary operation
        is atomic, and an entry evicted by another thread between the two is no longer marked (the
        lock cost a third of a lookup, and the query path looks up every new shape)."""
        data = self._data
        hit = data.get(key)
        if hit is None:
            return None
        try:
            data.move_to_end(key)
        except KeyError:
            pass  # evicted meanwhile by a put in another thread: the value read stands
        return hit[0]

    def put(self, key: Hashable, value: Any, weight: int) -> None:
        """Cache ``value``; evict least recently used entries until the total fits (an entry heavier
        than the whole cache is not kept)."""
        weight = max(1, weight)
        if weight > self.max_weight:
            return
        with self._lock:
            old = self._data.pop(key, None)
            if old is not None:
                self.weight -= old[1]
            self._data[key] = (value, weight)
            self.weight += weight
            while self.weight > self.max_weight:
                _, (_, w) = self._data.popitem(last=False)
                self.weight -= w

    def clear(self) -> None:
        with self._lock:
            self._data.clear()
            self.weight = 0

    def __len__(self) -> int:
        return len(self._data)
