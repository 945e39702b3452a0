"""Request limits: body size, number of values, value length."""

from __future__ import annotations

from dataclasses import dataclass

from fastapi import HTTPException, Request


@dataclass(frozen=True)
class Settings:
    """Service settings (limits default to what a column sample needs)."""

    max_body_bytes: int = 16 * 1024 * 1024
    max_values: int = 100_000
    max_value_length: int = 4096
    admin_token: str | None = None
    watch_interval: float = 0.0
    repository: str | None = None  # metrics repository for /v1/batches/validate


def check_count(request: Request, n: int, what: str) -> None:
    limit = request.app.state.settings.max_values
    if n > limit:
        raise HTTPException(status_code=413, detail=f"{n} {what} in one request; the limit is {limit}")


def check_values(request: Request, values: list[str]) -> None:
    """413 for too many values, 422 naming the first value that is too long."""
    check_count(request, len(values), "values")
    limit = request.app.state.settings.max_value_length
    for i, v in enumerate(values):
        if len(v) > limit:
            raise HTTPException(status_code=422,
                                detail=f"value {i} is {len(v)} characters long; the limit is {limit}")
