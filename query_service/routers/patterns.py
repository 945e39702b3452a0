"""Pattern lookups, index metadata and the lake's common domains."""

from __future__ import annotations

from fastapi import APIRouter, Depends, Query, Request

from lakeindex.patterns.pattern import parse
from query_service.lanes import LanedRoute, lane
from query_service.limits import check_count
from query_service.models import DomainsOut, IndexMeta, LookupRequest, LookupResponse, PatternStatsOut
from query_service.responses import documented, error_responses

router = APIRouter(prefix="/v1", tags=["index"], route_class=LanedRoute)


def _lookup(request: Request, patterns: list[str]) -> LookupResponse:
    for p in patterns:
        parse(p)  # PatternError -> 400 with the reason
    with request.app.state.holder.acquire() as loaded:
        # straight from RocksDB (its block cache is bounded): clients' patterns do not fill the solver cache
        stats = loaded.reader.lookup(patterns)
        results = [PatternStatsOut(**s.to_dict()) if s else PatternStatsOut(pattern=p, fpr=None, coverage=0)
                   for p, s in zip(patterns, stats, strict=True)]
        return LookupResponse(index_version=loaded.version, results=results)


@router.get("/patterns/lookup", response_model=LookupResponse, responses=error_responses(400, 422, 503))
def lookup_one(request: Request, pattern: str = Query(..., max_length=4096)) -> LookupResponse:
    """FPR and coverage of one pattern."""
    return _lookup(request, [pattern])


@router.post("/patterns/lookup", response_model=LookupResponse, responses=error_responses(400, 413, 422, 503))
def lookup_many(request: Request, body: LookupRequest) -> LookupResponse:
    """FPR and coverage of many patterns (one multi-get)."""
    check_count(request, len(body.patterns), "patterns")
    return _lookup(request, body.patterns)


@router.get("/index", response_model=None, responses=documented(IndexMeta, "The index's build metadata.", 503))
def index_meta(request: Request) -> dict:
    """Metadata of the live index version."""
    with request.app.state.holder.acquire() as loaded:
        return loaded.reader.meta


@router.get("/domains", dependencies=[Depends(lane("slow"))], response_model=None,
            responses=documented(DomainsOut, "Patterns with high coverage and low FPR.", 422, 503))
def domains(request: Request, min_coverage: int | None = Query(None, ge=1), max_fpr: float = Query(0.01, ge=0, le=1),
            limit: int = Query(50, ge=1, le=1000)) -> dict:
    """Common domains of the lake: high coverage, low FPR (cached per index version)."""
    from lakeindex.tagging.tag import head

    with request.app.state.holder.acquire() as loaded:
        floor = min_coverage or max(2, loaded.reader.meta.get("columns_scanned", 0) // 100)
        key = (floor, max_fpr, limit)
        rows = loaded.domains_cache.get(key)
        if rows is None:
            rows = head(loaded.reader.items(), floor, max_fpr, limit)
            loaded.domains_cache.put(key, rows, len(rows) + 1)
        return {"index_version": loaded.version, "domains": rows}
