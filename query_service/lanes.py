"""Bounded lanes for slow requests: when one is full, the request is shed with 503 and ``Retry-After``.

Sync endpoints run in one shared thread pool (AnyIO's, 40 threads). Without bounds, a burst of batch
validations (seconds each) takes every thread, and lookups and inference queue behind them until they
time out. Each lane admits at most ``size`` requests at once and refuses the next one immediately, so
the rest of the pool stays free; ``/health`` runs on the event loop and never waits for a thread.

A route joins a lane with the dependency ``lane(name)``, which holds a slot while the endpoint runs.
FastAPI reads and parses a JSON body before it runs any dependency, so routers of laned routes use
``LanedRoute``, whose handler refuses a request whose lane is full before the body is read: refused
bodies used to be parsed all the same, and 32 clients retrying a 130 KB batch at once (about 1,000
refusals a second) kept a core busy, slowing the accepted requests 4x and ``/health`` to 38 ms
(``bench/load_shedding.py``). A request gets no slot before its body has arrived, so a slow upload
never holds one.
"""

from __future__ import annotations

import threading
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator

from fastapi import HTTPException, Request
from fastapi.responses import JSONResponse, Response
from fastapi.routing import APIRoute

from query_service.unicode_body import TextRoute

RETRY_AFTER_SECONDS = 1


class Lane:
    """At most ``size`` requests of one kind at a time; more are refused, never queued."""

    def __init__(self, name: str, size: int) -> None:
        if size < 1:
            raise ValueError(f"lane {name!r} needs a size >= 1, got {size}")
        self.name = name
        self.size = size
        self._lock = threading.Lock()
        self._running = 0

    @property
    def running(self) -> int:
        """Requests holding a slot now."""
        return self._running

    def full(self) -> bool:
        """Every slot is taken (a hint for refusing early: ``hold`` decides)."""
        return self._running >= self.size

    def refusal(self) -> HTTPException:
        return HTTPException(status_code=503, headers={"Retry-After": str(RETRY_AFTER_SECONDS)},
                             detail=f"{self.name}: {self.size} requests already running; retry shortly")

    def hold(self) -> Iterator[None]:
        """Occupy a slot for the request (a generator: taken by ``next``, freed by ``close``). Never blocks,
        so ``lane`` runs it on the event loop: a sync dependency would cost two thread-pool hops a request."""
        with self._lock:
            if self._running >= self.size:
                raise self.refusal()
            self._running += 1
        try:
            yield
        finally:
            with self._lock:
                self._running -= 1


def lane(name: str) -> Callable[[Request], AsyncIterator[None]]:
    """A FastAPI dependency holding a slot of the app's lane ``name`` for the request."""

    async def dependency(request: Request) -> AsyncIterator[None]:
        slot = request.app.state.lanes[name].hold()
        next(slot)  # a slot, or 503 when the lane is full
        try:
            yield
        finally:
            slot.close()  # frees the slot

    dependency.lane_name = name  # type: ignore[attr-defined]  # read by LanedRoute
    return dependency


def lane_of(route: APIRoute) -> str | None:
    """The lane a route joins with ``lane(name)``, if any."""
    for dep in route.dependencies:
        name = getattr(dep.dependency, "lane_name", None)
        if name is not None:
            return name
    return None


class LanedRoute(TextRoute):
    """A route (FastAPI's documented ``route_class`` hook) that answers 503 with ``Retry-After`` at once,
    without reading or parsing the body, when the lane it joins with ``lane(name)`` is full (and reads a JSON
    body as Unicode text, :class:`~query_service.unicode_body.TextRoute`)."""

    def get_route_handler(self) -> Callable[[Request], Awaitable[Response]]:
        handler = super().get_route_handler()
        name = lane_of(self)
        if name is None:
            return handler

        async def laned(request: Request) -> Response:
            chosen = request.app.state.lanes[name]
            if chosen.full():
                exc = chosen.refusal()
                return JSONResponse({"detail": exc.detail}, status_code=503, headers=exc.headers)
            return await handler(request)

        return laned
