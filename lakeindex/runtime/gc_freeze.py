"""Keeps a long-running process's lookup caches out of CPython's full garbage collections.

The solver and template caches hold a few hundred thousand small objects. CPython's full (oldest
generation) collection visits all of them, and it runs whenever the survivors have grown by a
quarter, which the caches do as they fill: measured on the 20k-column bench index, each full
collection paused a query for 170-200 ms, the whole p99. ``gc.freeze()`` (meant for exactly this)
moves the objects alive now into a permanent generation that collections skip.

:func:`freeze_survivors` freezes right after a full collection has run, so what it freezes has just
been found reachable. Frozen objects are still freed by reference counting (cache evictions, a
dropped index version); only a *cycle* that becomes garbage after being frozen is never reclaimed,
and nothing in the caches forms cycles. The query service turns this on (``SegmentSolver(...,
freeze_gc=True)``); one-shot commands and library callers who own their process may choose.
"""

from __future__ import annotations

import gc
from threading import Lock

_lock = Lock()
_frozen_after = -1  # full collections counted when we last froze


def full_collections() -> int:
    """Number of oldest-generation collections this process has run."""
    return gc.get_stats()[-1]["collections"]


def freeze_survivors() -> bool:
    """Freeze the survivors of the latest full collection if one ran since the last freeze (the first
    call runs one itself); young garbage is collected first so that no cycle is frozen. True if it
    froze."""
    global _frozen_after
    if full_collections() == _frozen_after:
        return False
    with _lock:
        if full_collections() == _frozen_after:
            return False
        gc.collect(2 if _frozen_after < 0 else 1)
        gc.freeze()
        _frozen_after = full_collections()
    return True
