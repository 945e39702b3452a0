"""Administration: swap to the index version named by CURRENT (token required)."""

from __future__ import annotations

import hmac
from typing import Annotated

from fastapi import APIRouter, Depends, HTTPException, Security
from fastapi.security import APIKeyHeader

from query_service.dependencies import Holder, ServiceSettings
from query_service.models import ReloadResponse
from query_service.responses import error_responses

# Declared as a security scheme so OpenAPI (and the docs' Authorize button) knows the header. auto_error=False:
# the service answers itself, 403 when admin is disabled and 401 for a missing or wrong token, as before.
admin_token = APIKeyHeader(name="X-Admin-Token", scheme_name="AdminToken", auto_error=False,
                           description="The value of the service's LAKEINDEX_ADMIN_TOKEN environment variable "
                                       "(admin endpoints are disabled without it).")


# RFC 9110 §11.6.1: a 401 must carry a challenge; this one names the header to send
CHALLENGE = 'AdminToken header="X-Admin-Token", realm="lakeindex admin"'


def require_admin(service: ServiceSettings, token: Annotated[str | None, Security(admin_token)]) -> None:
    """Let the request through only with the configured admin token (compared in constant time)."""
    expected = service.admin_token
    if not expected:
        raise HTTPException(status_code=403, detail="admin endpoints are disabled: set LAKEINDEX_ADMIN_TOKEN")
    if not token or not hmac.compare_digest(token.encode(), expected.encode()):
        raise HTTPException(status_code=401, detail="missing or wrong X-Admin-Token",
                            headers={"WWW-Authenticate": CHALLENGE})


router = APIRouter(prefix="/admin", tags=["admin"], dependencies=[Depends(require_admin)],
                   responses=error_responses(401, 403))


@router.post("/reload", response_model=ReloadResponse, responses=error_responses(503))
def reload(holder: Holder) -> ReloadResponse:
    """Open the index version CURRENT points to; in-flight requests finish on the old one."""
    old, new = holder.reload()
    return ReloadResponse(previous_version=old, index_version=new, swapped=old != new)
