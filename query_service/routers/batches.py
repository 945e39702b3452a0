"""Validate a small batch of a recurring dataset against its history (the platform's main online use).

The batch arrives as JSON columns and is profiled with pandas, so the service needs no JVM; batches too
big for one request go through ``lakeindex validate-batch`` (Spark). The history lives in the metrics
repository the service was started with (``--repo``); recording is opt-in per request. The flow is the
library's (:meth:`lakeindex.validation.BatchValidator.validate_columns`); this route checks the request's
limits and maps the library's errors to statuses.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, HTTPException

from lakeindex.history.batches import BatchAlreadyRecorded, BatchHistory
from lakeindex.validation import BatchValidator, NoCleanHistory
from query_service.dependencies import ServiceSettings, batch_validator, repository
from query_service.lanes import LanedRoute, lane
from query_service.limits import check_count, check_values
from query_service.models import BatchReport, BatchRequest
from query_service.responses import documented

router = APIRouter(prefix="/v1", tags=["validation by history"], route_class=LanedRoute)


@router.post("/batches/validate", dependencies=[Depends(lane("slow"))], response_model=None,
             responses=documented(BatchReport, "The batch's report.", 404, 409, 413, 422, 503))
def validate_batch(service: ServiceSettings, body: BatchRequest,
                   validator: Annotated[BatchValidator, Depends(batch_validator)]) -> dict:
    """Schema, AVH, kNN and pattern signals for one batch, with their evidence, in one report."""
    repo = repository(service)
    lengths = {len(v) for v in body.columns.values()}
    if len(lengths) != 1:
        raise HTTPException(status_code=422, detail=f"columns have different lengths: {sorted(lengths)}")
    check_count(service, lengths.pop() * len(body.columns), "cells")
    for name, values in body.columns.items():
        check_values(service, [v for v in values if isinstance(v, str)])
        if len(name) > 1024:
            raise HTTPException(status_code=422, detail="column name over 1024 characters")
    try:
        return validator.validate_columns(BatchHistory(repo, body.dataset), body.batch, body.columns,
                                          record=body.record)
    except BatchAlreadyRecorded as exc:  # known already, or recorded by another request meanwhile
        raise HTTPException(status_code=409, detail=str(exc)) from exc
    except NoCleanHistory as exc:  # the service profiles against the latest clean batch
        raise HTTPException(status_code=404, detail=str(exc)) from exc
