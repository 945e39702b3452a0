"""Request limits: body size, number of values, value length."""

from __future__ import annotations

from collections.abc import Callable

from fastapi import HTTPException

from query_service.settings import SERVE_WATCH_INTERVAL, Settings

__all__ = ["SERVE_WATCH_INTERVAL", "BodySizeLimit", "Settings", "check_count", "check_values"]


class BodySizeLimit:
    """ASGI middleware refusing a body over ``max_bytes`` with 413: at once when its Content-Length says so
    (or is not a number), else by counting the bytes it actually delivers, whatever its framing: a
    ``Transfer-Encoding: chunked`` body has no Content-Length to check up front (past the limit the read
    fails, and Starlette turns the HTTPException into the response)."""

    def __init__(self, app: Callable, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: dict, receive: Callable, send: Callable) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        length = next((v for k, v in scope["headers"] if k == b"content-length"), None)
        if length is not None and (not length.isdigit() or int(length) > self.max_bytes):
            from fastapi.responses import JSONResponse

            await JSONResponse({"detail": f"request body over {self.max_bytes} bytes"}, status_code=413)(
                scope, receive, send)
            return
        seen = 0

        async def counted() -> dict:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.max_bytes:
                    raise HTTPException(status_code=413, detail=f"request body over {self.max_bytes} bytes")
            return message

        await self.app(scope, counted, send)


def check_count(settings: Settings, n: int, what: str) -> None:
    """413 for more than ``max_values`` items of a kind in one request."""
    limit = settings.max_values
    if n > limit:
        raise HTTPException(status_code=413, detail=f"{n} {what} in one request; the limit is {limit}")


def check_values(settings: Settings, values: list[str]) -> None:
    """413 for too many values, 422 naming the first value that is too long."""
    check_count(settings, len(values), "values")
    limit = settings.max_value_length
    for i, v in enumerate(values):
        if len(v) > limit:
            raise HTTPException(status_code=422,
                                detail=f"value {i} is {len(v)} characters long; the limit is {limit}")
