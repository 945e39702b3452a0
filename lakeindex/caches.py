"""The library's bounded in-process caches, and one way to empty them all (:func:`clear_all`).

Two kinds, each bounded by the total *weight* of what it holds (a count of strings, parts or characters
chosen per cache), not by its number of entries:

- :class:`WeightedLRU`, thread-safe, evicts least recently used entries. Shape templates differ in size by
  four orders of magnitude (a two-token shape has a handful, a wide one up to the template budget), so an
  entry-count bound (``functools.lru_cache``) would bound nothing: 16k cached shapes of 8k templates each
  is 10+ GB.
- :class:`ClearWhenFull`, a plain dict emptied whole when a put would pass the bound. A lookup is a bare
  ``cache.data.get(key)`` (no lock, no reordering, no call), for memos looked up in inner loops. Its puts
  take no lock either: racing puts may count a key twice or pass the bound by one entry until the next put
  empties the cache, which costs recomputation, never a wrong answer.

A cache created with a ``name`` is registered; :func:`clear_all` empties every registered cache (and the
``functools.lru_cache`` functions registered with :func:`register`). Cached values are pure functions of
their keys, so emptying a cache changes what a call costs, never what it returns.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Hashable
from threading import Lock
from typing import Any

_CLEARERS: dict[str, Callable[[], None]] = {}


def register(name: str, clear: Callable[[], None]) -> None:
    """Have :func:`clear_all` call ``clear`` (a cache's ``clear``, an ``lru_cache`` function's ``cache_clear``)."""
    _CLEARERS[name] = clear


def registered() -> list[str]:
    """Names of the registered caches."""
    return sorted(_CLEARERS)


def clear_all() -> None:
    """Empty every registered cache."""
    for clear in list(_CLEARERS.values()):
        clear()


class WeightedLRU:
    """Least-recently-used cache holding at most ``max_weight`` units in total."""

    def __init__(self, max_weight: int, name: str | None = None) -> None:
        if max_weight < 1:
            raise ValueError("max_weight must be >= 1")
        self.max_weight = max_weight
        self.weight = 0
        self._data: OrderedDict[Hashable, tuple[Any, int]] = OrderedDict()
        self._lock = Lock()
        if name is not None:
            register(name, self.clear)

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


class ClearWhenFull:
    """A dict (``data``: look up with ``data.get``) emptied whole when a put would take it past ``max_weight``."""

    def __init__(self, max_weight: int, name: str | None = None) -> None:
        if max_weight < 1:
            raise ValueError("max_weight must be >= 1")
        self.data: dict[Any, Any] = {}
        self.max_weight = max_weight
        self.weight = 0
        if name is not None:
            register(name, self.clear)

    def put(self, key: Hashable, value: Any, weight: int = 1) -> None:
        """Store ``value`` at ``key``, after emptying the cache if ``weight`` more would pass the bound."""
        if self.weight + weight > self.max_weight:
            self.data.clear()
            self.weight = 0
        self.weight += weight
        self.data[key] = value

    def put_all(self, items: dict[Any, Any]) -> None:
        """Store new ``items`` (keys not held), each of weight 1, after emptying the cache if they would not fit."""
        if self.weight + len(items) > self.max_weight:
            self.data.clear()
            self.weight = 0
        self.weight += len(items)
        self.data.update(items)

    def clear(self) -> None:
        self.data.clear()
        self.weight = 0

    def __len__(self) -> int:
        return len(self.data)
