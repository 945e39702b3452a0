"""The FastAPI application: routers, limits, structured access logs, error mapping, index watch, offline docs."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from pathlib import Path

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse

from lakeindex import __version__
from lakeindex.history.batches import BatchAlreadyRecorded
from lakeindex.index.store import IndexUnusable
from lakeindex.lake.dataset import DatasetError
from lakeindex.patterns.pattern import PatternError
from query_service.access_log import AccessLog
from query_service.docs import add_docs
from query_service.lanes import Lane
from query_service.limits import BodySizeLimit, Settings
from query_service.routers import admin, batches, health, inference, patterns, reports
from query_service.state import IndexHolder

log = logging.getLogger("lakeindex.access")


def _policies(settings: Settings) -> dict | None:
    """The batch-validation signal policies of ``--signals-config`` (a bad file fails the start, not a request)."""
    if not settings.signals_config:
        return None
    from lakeindex.validation.policy import load_policies

    return load_policies(settings.signals_config)


def create_app(index: Path | str, settings: Settings | None = None) -> FastAPI:
    """Build the app serving ``index``; the index is opened read-only once and shared."""
    settings = settings or Settings()
    holder = IndexHolder(index)

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI):  # noqa: ANN202
        task = asyncio.create_task(_watch(holder, settings.watch_interval)) if settings.watch_interval > 0 else None
        yield
        if task:
            task.cancel()
        holder.close()

    app = FastAPI(title="lakeindex query service", version=__version__, lifespan=lifespan,
                  description="Pattern lookups and auto-validation from a lakeindex pattern index.",
                  docs_url=None, redoc_url=None)  # add_docs serves both without a CDN
    add_docs(app)
    app.state.holder = holder
    app.state.settings = settings
    app.state.policies = _policies(settings)
    app.state.lanes = {"slow": Lane("slow lane", settings.slow_lane),
                       "inference": Lane("inference lane", settings.inference_lane)}
    for r in (health.router, patterns.router, inference.router, admin.router, batches.router,
              reports.router):
        app.include_router(r)
    app.add_middleware(BodySizeLimit, max_bytes=settings.max_body_bytes)
    app.add_middleware(AccessLog, version=lambda: holder.version)  # outermost: logs the 413s too

    @app.exception_handler(PatternError)
    async def bad_pattern(request: Request, exc: PatternError) -> JSONResponse:
        return JSONResponse({"detail": f"malformed pattern: {exc}"}, status_code=400)

    # Only errors known to mean bad input become 4xx; any other exception is a bug and answers 500
    # (a blanket ValueError -> 400 would hide bugs as the client's fault).
    @app.exception_handler(DatasetError)
    async def bad_data(request: Request, exc: DatasetError) -> JSONResponse:
        return JSONResponse({"detail": str(exc)}, status_code=422)

    @app.exception_handler(BatchAlreadyRecorded)
    async def duplicate_batch(request: Request, exc: BatchAlreadyRecorded) -> JSONResponse:
        return JSONResponse({"detail": str(exc)}, status_code=409)

    @app.exception_handler(IndexUnusable)
    async def index_gone(request: Request, exc: IndexUnusable) -> JSONResponse:
        return JSONResponse({"detail": str(exc)}, status_code=503)

    return app


def app_from_env() -> FastAPI:
    """App factory for multi-process serving (``uvicorn --factory``): settings from the environment."""
    import os

    env = os.environ
    settings = Settings.from_env(env)
    return create_app(env["LAKEINDEX_INDEX"], settings)


async def _watch(holder: IndexHolder, interval: float) -> None:
    """Swap to a new version when the CURRENT pointer changes (e.g. after a rebuild)."""
    while True:
        await asyncio.sleep(interval)
        try:
            old, new = await asyncio.to_thread(holder.reload)
            if old != new:
                log.info(json.dumps({"event": "index_swapped", "from": old, "to": new}))
        except Exception as exc:  # noqa: BLE001 - keep serving the current version
            log.warning(json.dumps({"event": "index_reload_failed", "error": str(exc)}))
