"""The bounded caches of :mod:`lakeindex.caches`: clear-when-full bounds, and :func:`clear_all`."""

from __future__ import annotations

import pytest

from lakeindex import caches
from lakeindex.caches import ClearWhenFull, WeightedLRU


def test_clear_when_full_empties_itself_whole_when_a_put_would_pass_the_bound():
    cache = ClearWhenFull(10)
    cache.put("a", 1, 4)
    cache.put("b", 2, 6)
    assert cache.data == {"a": 1, "b": 2} and cache.weight == 10
    cache.put("c", 3, 1)  # 11 > 10: emptied first, then stored
    assert cache.data == {"c": 3} and cache.weight == 1
    cache.put_all({"d": 4, "e": 5})
    assert cache.data == {"c": 3, "d": 4, "e": 5} and cache.weight == 3 and len(cache) == 3
    cache.put_all({str(i): i for i in range(8)})  # 3 + 8 > 10
    assert len(cache) == 8 and cache.weight == 8
    with pytest.raises(ValueError):
        ClearWhenFull(0)


def test_clear_all_empties_every_registered_cache():
    from lakeindex.fmdv.split import split_items
    from lakeindex.patterns import pattern, tokens

    tokens.analyze("ab-12")
    split_items("a|b", "|")
    pattern.parse("<digit>+")
    lru, clearing = WeightedLRU(10, "test.lru"), ClearWhenFull(10, "test.clearing")
    lru.put("k", "v", 1)
    clearing.put("k", "v")
    assert {"test.lru", "test.clearing", "fmdv.split.splits", "patterns.tokens.layouts",
            "patterns.pattern.parse"} <= set(caches.registered())
    try:
        caches.clear_all()
        assert len(lru) == len(clearing) == 0 and lru.weight == clearing.weight == 0
        assert len(tokens._LAYOUT_CACHE) == 0 and pattern.parse.cache_info().currsize == 0
        from lakeindex.fmdv import split
        assert len(split._SPLITS) == 0
    finally:
        caches._CLEARERS.pop("test.lru")
        caches._CLEARERS.pop("test.clearing")
