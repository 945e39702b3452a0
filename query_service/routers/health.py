"""Liveness and readiness."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from lakeindex.runtime.compiled_build import search_compiled
from query_service.dependencies import Holder
from query_service.models import HealthOut, NotReadyOut, ReadyOut

router = APIRouter(tags=["health"])


@router.get("/health", response_model=HealthOut)
async def health() -> dict:
    """The process is up (answered on the event loop: never waits for a busy thread pool)."""
    return {"status": "ok"}


@router.get("/ready", response_model=ReadyOut,
            responses={503: {"model": NotReadyOut, "description": "No index answers lookups: the reason."}})
def ready(holder: Holder) -> JSONResponse:
    """An index is open and answering lookups."""
    try:
        with holder.acquire() as loaded:
            loaded.reader.lookup(["<digit>+"])
            return JSONResponse({"status": "ready", "index_version": loaded.version,
                                 "index_in_memory": loaded.solver.preloaded,
                                 "inference_compiled": search_compiled()})
    except Exception as exc:  # noqa: BLE001 - readiness reports any failure
        return JSONResponse({"status": "not ready", "error": str(exc)}, status_code=503)
