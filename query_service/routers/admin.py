"""Administration: swap to the index version named by CURRENT (token required)."""

from __future__ import annotations

import hmac

from fastapi import APIRouter, Header, HTTPException, Request

from query_service.models import ReloadResponse

router = APIRouter(prefix="/admin", tags=["admin"])


@router.post("/reload", response_model=ReloadResponse)
def reload(request: Request, x_admin_token: str | None = Header(None)) -> ReloadResponse:
    """Open the index version CURRENT points to; in-flight requests finish on the old one."""
    expected = request.app.state.settings.admin_token
    if not expected:
        raise HTTPException(status_code=403, detail="admin endpoints are disabled: set LAKEINDEX_ADMIN_TOKEN")
    if not x_admin_token or not hmac.compare_digest(x_admin_token.encode(), expected.encode()):
        raise HTTPException(status_code=401, detail="missing or wrong X-Admin-Token")
    old, new = request.app.state.holder.reload()
    return ReloadResponse(previous_version=old, index_version=new, swapped=old != new)
