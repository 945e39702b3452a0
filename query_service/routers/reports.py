"""A dataset's quality report as one self-contained HTML page (the page ``lakeindex report`` writes).

The page is rendered from the service's metrics repository on each request, in the slow lane (learning
the AVH bounds takes up to seconds), with pattern rules learned from the latest clean batch by the
service's index. It loads nothing: the response carries the same Content-Security-Policy as the page.
"""

from __future__ import annotations

from contextlib import nullcontext

from fastapi import APIRouter, Depends, HTTPException, Path, Query, Request
from fastapi.responses import HTMLResponse

from query_service.lanes import lane
from query_service.responses import json_error_responses

router = APIRouter(prefix="/v1", tags=["reports"])


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
