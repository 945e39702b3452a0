"""Inference of rules, validation of batches and tagging of columns."""

from __future__ import annotations

from fastapi import APIRouter, Depends, HTTPException

from lakeindex.fmdv.drift import validate
from lakeindex.fmdv.infer import AutoValidator
from lakeindex.fmdv.rule import Rule
from lakeindex.tagging.domains import catalog_tag
from query_service.dependencies import Holder, ServiceSettings
from query_service.lanes import LanedRoute, lane
from query_service.limits import check_values
from query_service.models import InferRequest, RuleOut, TagOut, TagRequest, ValidateRequest, ValidationOut
from query_service.responses import documented

router = APIRouter(prefix="/v1", tags=["auto-validate"], route_class=LanedRoute)


@router.post("/infer", dependencies=[Depends(lane("inference"))], response_model=None,
             responses=documented(RuleOut, "The learned rule (feasible or not).", 413, 422, 503))
def infer(service: ServiceSettings, holder: Holder, body: InferRequest) -> dict:
    """Learn a validation rule for a column (FMDV, FMDV-V, FMDV-H or FMDV-VH)."""
    check_values(service, body.values)
    with holder.acquire() as loaded:
        av = AutoValidator(loaded.solver, method=body.method, r=body.r, m=body.m, theta=body.theta)
        return av.fit(body.values).rule_.to_dict()


@router.post("/validate", dependencies=[Depends(lane("inference"))], response_model=None,
             responses=documented(ValidationOut, "The verdict on the batch.", 413, 422, 503))
def validate_batch(service: ServiceSettings, body: ValidateRequest) -> dict:
    """Validate a batch against a rule: pass/fail, p-values, fractions and offending values."""
    check_values(service, body.values)
    try:
        rule = Rule.from_dict(body.rule)
    except ValueError as exc:
        raise HTTPException(status_code=422, detail=f"bad rule: {exc}") from exc
    return validate(rule, body.values, alpha=body.alpha, test=body.test)


@router.post("/tag", dependencies=[Depends(lane("inference"))], response_model=None,
             responses=documented(TagOut, "The column's tag, or none with the reason.", 413, 422, 503))
def tag(service: ServiceSettings, holder: Holder, body: TagRequest) -> dict:
    """Tag a column for a catalog: its domain pattern (the dual of FMDV) and, for common domains, the domain's
    name (uuid, email, iso-date, ...) with a confidence, as ``lakeindex tag`` does."""
    check_values(service, body.values)
    with holder.acquire() as loaded:
        return {"index_version": loaded.version, **catalog_tag(body.values, loaded.solver, fnr=body.fnr, m=body.m)}
