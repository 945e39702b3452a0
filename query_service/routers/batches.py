"""Validate a small batch of a recurring dataset against its history (the platform's main online use).

The batch arrives as JSON columns and is profiled with pandas, so the service needs no JVM; batches too
big for one request go through ``lakeindex validate-batch`` (Spark). The history lives in the metrics
repository the service was started with (``--repo``); recording is opt-in per request.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Literal

from fastapi import APIRouter, Depends, HTTPException, Request
from pydantic import BaseModel, ConfigDict, Field

from lakeindex.validation import BatchValidator
from query_service.lanes import LanedRoute, lane
from query_service.limits import check_count, check_values
from query_service.responses import documented

router = APIRouter(prefix="/v1", tags=["validation by history"], route_class=LanedRoute)


class BatchRequest(BaseModel):
    dataset: str = Field(min_length=1, description="dataset name in the metrics repository")
    batch: str = Field(min_length=1, description="batch id (must be new to the history)")
    columns: dict[str, list[str | float | int | bool | None]] = Field(
        min_length=1, description="column name -> values (all columns the same length; null for missing)")
    record: bool = Field(False, description="record the batch (accepted if it passes, else flagged)")
    delta: float = Field(0.001, gt=0, lt=1, description="AVH FPR budget per column")
    window: int | None = Field(None, ge=3, description="learn from the last N clean batches")
    patterns: bool = Field(True, description="also validate text columns' patterns with the service's index")


class SignalResult(BaseModel):
    """One signal's judgement of the batch; each signal adds its own evidence (further keys)."""

    model_config = ConfigDict(extra="allow")

    signal: str = Field(description="schema, avh, novelty, patterns or checks")
    status: Literal["passed", "failed", "skipped", "warming_up"]
    severity: Literal["error", "warn"] = Field(description="error: a failure flags the batch; warn: it is reported")
    reason: str | None = Field(None, description="why the signal skipped the batch (only then)")
    would_fail: bool | None = Field(None, description="while warming up: whether the signal failed")
    warming_up: str | None = Field(None, description="while warming up: the history it needs first")


class BatchTiming(BaseModel):
    """Seconds spent."""

    model_config = ConfigDict(extra="forbid")

    signals_s: float
    issue_features_s: float | None = Field(
        None, description="when the batch was recorded as accepted: the wait for its synthetic-issue features after "
                          "the signals (they are computed while the signals run)")


class BatchReport(BaseModel):
    """Every signal's verdict on the batch, with evidence."""

    model_config = ConfigDict(extra="forbid")

    dataset: str
    batch: str
    verdict: Literal["passed", "flagged"]
    failing_signals: list[str]
    warning_signals: list[str]
    warming_up: list[str] = Field(description="signals that need more clean history before they can flag")
    signals: list[SignalResult]
    rows: int | None
    clean_history_batches: int
    timing: BatchTiming
    recorded_as: Literal["accepted", "flagged"] | None = Field(None, description="when record was asked for")


def batch_validator(request: Request, body: BatchRequest) -> Iterator[BatchValidator]:
    """The library's batch validator for this request, with the service's shared index when patterns are
    asked for (held for the whole request, so a hot swap cannot close it underneath)."""
    policies = request.app.state.policies  # the service's --signals-config (None: the defaults)
    if not body.patterns:
        yield BatchValidator.default(delta=body.delta, window=body.window, policies=policies)
        return
    with request.app.state.holder.acquire() as loaded:
        yield BatchValidator.default(index=loaded.solver, delta=body.delta, window=body.window, policies=policies)


@router.post("/batches/validate", dependencies=[Depends(lane("slow"))], response_model=None,
             responses=documented(BatchReport, "The batch's report.", 404, 409, 413, 422, 503))
def validate_batch(request: Request, body: BatchRequest,
                   validator: BatchValidator = Depends(batch_validator)) -> dict:  # noqa: B008 - FastAPI idiom
    """Schema, AVH, kNN and pattern signals for one batch, with their evidence, in one report."""
    import pandas as pd

    from lakeindex.history.batches import BatchAlreadyRecorded, BatchHistory, profile_frame

    repo = request.app.state.settings.repository
    if not repo:
        raise HTTPException(status_code=503, detail="no metrics repository: start the service with --repo")
    lengths = {len(v) for v in body.columns.values()}
    if len(lengths) != 1:
        raise HTTPException(status_code=422, detail=f"columns have different lengths: {sorted(lengths)}")
    check_count(request, lengths.pop() * len(body.columns), "cells")
    for name, values in body.columns.items():
        check_values(request, [v for v in values if isinstance(v, str)])
        if len(name) > 1024:
            raise HTTPException(status_code=422, detail="column name over 1024 characters")
    history = BatchHistory(repo, body.dataset)
    known = history.light_records()  # one repository read for the duplicate-id checks and the clean history
    try:
        history.ensure_new(body.batch, known)
    except BatchAlreadyRecorded as exc:
        raise HTTPException(status_code=409, detail=str(exc)) from exc
    clean = history.with_latest_in_full(history.clean_of(known))
    if not clean:  # the service profiles against the latest clean batch: onboarding goes through the CLI
        raise HTTPException(status_code=404, detail=f"no clean history for dataset {body.dataset!r}")
    pdf = pd.DataFrame({k: pd.Series(v, dtype=object) for k, v in body.columns.items()})
    new = profile_frame(pdf, body.batch, clean[-1], issues=False)  # added by validate() if accepted
    try:
        return validator.validate(history, new, clean, record=body.record, known=known)
    except BatchAlreadyRecorded as exc:  # another request recorded this id meanwhile
        raise HTTPException(status_code=409, detail=str(exc)) from exc
