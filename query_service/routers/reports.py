"""Datasets of the service's metrics repository: where each stands (``GET /v1/datasets``) and its quality
report as one self-contained HTML page (the page ``lakeindex report`` writes).

The page is rendered from the service's metrics repository on each request, in the slow lane (learning
the AVH bounds takes up to seconds), with pattern rules learned from the latest clean batch by the
service's index. It loads nothing: the response carries the same Content-Security-Policy as the page.
"""

from __future__ import annotations

from contextlib import nullcontext

from fastapi import APIRouter, Depends, HTTPException, Path, Query
from fastapi.responses import HTMLResponse

from query_service.dependencies import Holder, ServiceSettings, repository
from query_service.lanes import LanedRoute, lane
from query_service.models import DatasetsOut, DatasetStatus
from query_service.responses import error_responses, json_error_responses

router = APIRouter(prefix="/v1", tags=["reports"], route_class=LanedRoute)


@router.get("/datasets", dependencies=[Depends(lane("slow"))], response_model=DatasetsOut,
            responses=error_responses(503))
def datasets(service: ServiceSettings) -> DatasetsOut:
    """Every recurring dataset with its batches, latest batch, latest verdict and a link to its report, for
    catalogs and dashboards (read from status metrics only)."""
    from urllib.parse import quote

    from lakeindex.history.status import repository_status

    rows = repository_status(repository(service))
    return DatasetsOut(datasets=[DatasetStatus(**r, report=f"/v1/datasets/{quote(r['dataset'], safe='')}/report")
                                 for r in rows])


@router.get("/datasets/{name}/report", dependencies=[Depends(lane("slow"))], response_class=HTMLResponse,
            responses={200: {"description": "The report page (text/html, self-contained).",
                             "content": {"text/html": {"schema": {"type": "string"}}}},
                       **json_error_responses(404, 422, 503)})
def dataset_report(service: ServiceSettings, holder: Holder,
                   name: str = Path(min_length=1, max_length=1024, description="dataset name in the repository"),
                   delta: float = Query(0.001, gt=0, lt=1, description="AVH FPR budget per column of the bounds drawn"),
                   window: int | None = Query(None, ge=3, description="learn the bounds from the last N clean batches"),
                   patterns: bool = Query(True, description="learn each text column's pattern rule with the index"),
                   ) -> HTMLResponse:
    """The dataset's latest verdicts with their evidence, metric history with AVH bounds, pattern rules and
    check results."""
    from lakeindex.report import UnknownDataset, build_report
    from lakeindex.report.page import CSP

    repo = repository(service)
    held = holder.acquire() if patterns else nullcontext(None)
    with held as loaded:
        try:
            page, _ = build_report(repo, name, index=loaded.solver if loaded is not None else None, delta=delta,
                                   window=window)
        except UnknownDataset as exc:
            raise HTTPException(status_code=404, detail=str(exc)) from exc
    return HTMLResponse(page, headers={"Content-Security-Policy": CSP, "X-Content-Type-Options": "nosniff",
                                       "Cache-Control": "no-store"})
