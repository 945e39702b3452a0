"""What routes get from the application, as FastAPI dependencies: the index holder, the settings, the
batch-validation policies and a request's batch validator.

The getters are ``async`` so that FastAPI calls them on the event loop (a plain ``def`` dependency would cost
each request a thread-pool hop to read an attribute).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Annotated, Any

from fastapi import Depends, HTTPException, Request

from lakeindex.validation import BatchValidator
from query_service.models import BatchRequest
from query_service.settings import Settings
from query_service.state import IndexHolder


async def index_holder(request: Request) -> IndexHolder:
    """The holder of the live index version (``with holder.acquire() as loaded`` for a request's use)."""
    return request.app.state.holder


async def settings(request: Request) -> Settings:
    """The service's settings."""
    return request.app.state.settings


async def signal_policies(request: Request) -> dict[str, Any] | None:
    """The batch-validation signal policies of ``--signals-config`` (None: the defaults)."""
    return request.app.state.policies


Holder = Annotated[IndexHolder, Depends(index_holder)]
ServiceSettings = Annotated[Settings, Depends(settings)]
Policies = Annotated[dict[str, Any] | None, Depends(signal_policies)]


def repository(service: Settings) -> str:
    """The metrics repository the service was started with, or 503."""
    if not service.repository:
        raise HTTPException(status_code=503, detail="no metrics repository: start the service with --repo")
    return service.repository


def batch_validator(holder: Holder, policies: Policies, body: BatchRequest) -> Iterator[BatchValidator]:
    """The library's batch validator for this request, with the service's shared index when patterns are
    asked for (held for the whole request, so a hot swap cannot close it underneath)."""
    if not body.patterns:
        yield BatchValidator.default(delta=body.delta, window=body.window, policies=policies)
        return
    with holder.acquire() as loaded:
        yield BatchValidator.default(index=loaded.solver, delta=body.delta, window=body.window, policies=policies)
