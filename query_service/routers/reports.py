"""Datasets of the service's metrics repository: where each stands (``GET /v1/datasets``) and its quality
report as one self-contained HTML page (the page ``lakeindex report`` writes).

The page is rendered from the service's metrics repository on each request, in the slow lane (learning
the AVH bounds takes up to seconds), with pattern rules learned from the latest clean batch by the
service's index. It loads nothing: the response carries the same Content-Security-Policy as the page.
"""

from __future__ import annotations

from contextlib import nullcontext
from typing import Literal

from fastapi import APIRouter, Depends, HTTPException, Path, Query, Request
from fastapi.responses import HTMLResponse
from pydantic import BaseModel, ConfigDict, Field

from query_service.lanes import LanedRoute, lane
from query_service.responses import error_responses, json_error_responses

router = APIRouter(prefix="/v1", tags=["reports"], route_class=LanedRoute)


class DatasetStatus(BaseModel):
    """Where one recurring dataset stands."""

    model_config = ConfigDict(extra="forbid")

    dataset: str
    batches: int = Field(description="batches recorded in its history")
    accepted: int
    flagged: int
    latest_batch: str | None
    latest_timestamp_ms: int | None
    latest_verdict: Literal["passed", "flagged"] | None = Field(
        description="of the newest batch recorded by batch validation (none for batches only added)")
    verdict_batch: str | None = Field(description="the batch that verdict is about")
    failing_signals: list[str]
    check_runs: int = Field(description="results of declared-check runs stored for the dataset")
    report: str = Field(description="the dataset's report page")


class DatasetsOut(BaseModel):
    """Every dataset of the service's metrics repository."""

    model_config = ConfigDict(extra="forbid")

    datasets: list[DatasetStatus]


@router.get("/datasets", dependencies=[Depends(lane("slow"))], response_model=DatasetsOut,
            responses=error_responses(503))
def datasets(request: Request) -> DatasetsOut:
    """Every recurring dataset with its batches, latest batch, latest verdict and a link to its report, for
    catalogs and dashboards (read from status metrics only)."""
    from urllib.parse import quote

    from lakeindex.history.status import repository_status

    repo = request.app.state.settings.repository
    if not repo:
        raise HTTPException(status_code=503, detail="no metrics repository: start the service with --repo")
    rows = repository_status(repo)
    return DatasetsOut(datasets=[DatasetStatus(**r, report=f"/v1/datasets/{quote(r['dataset'], safe='')}/report")
                                 for r in rows])


@router.get("/datasets/{name}/report", dependencies=[Depends(lane("slow"))], response_class=HTMLResponse,
            responses={200: {"description": "The report page (text/html, self-contained).",
                             "content": {"text/html": {"schema": {"type": "string"}}}},
                       **json_error_responses(404, 422, 503)})
def dataset_report(request: Request,
                   name: str = Path(min_length=1, max_length=1024, description="dataset name in the repository"),
                   delta: float = Query(0.001, gt=0, lt=1, description="AVH FPR budget per column of the bounds drawn"),
                   window: int | None = Query(None, ge=3, description="learn the bounds from the last N clean batches"),
                   patterns: bool = Query(True, description="learn each text column's pattern rule with the index"),
                   ) -> HTMLResponse:
    """The dataset's latest verdicts with their evidence, metric history with AVH bounds, pattern rules and
    check results."""
    from lakeindex.report import UnknownDataset, build_report
    from lakeindex.report.page import CSP

    repo = request.app.state.settings.repository
    if not repo:
        raise HTTPException(status_code=503, detail="no metrics repository: start the service with --repo")
    held = request.app.state.holder.acquire() if patterns else nullcontext(None)
    with held as loaded:
        try:
            page, _ = build_report(repo, name, index=loaded.solver if loaded is not None else None, delta=delta,
                                   window=window)
        except UnknownDataset as exc:
            raise HTTPException(status_code=404, detail=str(exc)) from exc
    return HTMLResponse(page, headers={"Content-Security-Policy": CSP, "X-Content-Type-Options": "nosniff",
                                       "Cache-Control": "no-store"})
