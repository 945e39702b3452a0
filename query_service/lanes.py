"""Bounded lanes for slow requests: when one is full, the request is shed with 503 and ``Retry-After``.

Sync endpoints run in one shared thread pool (AnyIO's, 40 threads). Without bounds, a burst of batch
validations (seconds each) takes every thread, and lookups and inference queue behind them until they
time out. Each lane admits at most ``size`` requests at once and refuses the next one immediately, so
the rest of the pool stays free; ``/health`` runs on the event loop and never waits for a thread.
"""

from __future__ import annotations

import threading
from collections.abc import AsyncIterator, Callable, Iterator

from fastapi import HTTPException, Request

RETRY_AFTER_SECONDS = 1


class Lane:
    """At most ``size`` requests of one kind at a time; more are refused, never queued."""

    def __init__(self, name: str, size: int) -> None:
        if size < 1:
            raise ValueError(f"lane {name!r} needs a size >= 1, got {size}")
        self.name = name
        self.size = size
        self._slots = threading.BoundedSemaphore(size)

    def hold(self) -> Iterator[None]:
        """Occupy a slot for the request (a generator for FastAPI's yield dependencies). Never blocks, so
        ``lane`` runs it on the event loop: a sync dependency would cost two thread-pool hops a request."""
        if not self._slots.acquire(blocking=False):
            raise HTTPException(status_code=503, headers={"Retry-After": str(RETRY_AFTER_SECONDS)},
                                detail=f"{self.name}: {self.size} requests already running; retry shortly")
        try:
            yield
        finally:
            self._slots.release()


def lane(name: str) -> Callable[[Request], AsyncIterator[None]]:
    """A FastAPI dependency holding a slot of the app's lane ``name`` for the request."""

    async def dependency(request: Request) -> AsyncIterator[None]:
        slot = request.app.state.lanes[name].hold()
        next(slot)  # a slot, or 503 when the lane is full
        try:
            yield
        finally:
            slot.close()  # frees the slot

    return dependency
