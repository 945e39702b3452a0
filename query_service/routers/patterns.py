"""Pattern lookups, index metadata and the lake's common domains."""

from __future__ import annotations

from fastapi import APIRouter, Depends, Query

from lakeindex.patterns.pattern import parse
from query_service.dependencies import Holder, ServiceSettings
from query_service.lanes import LanedRoute, lane
from query_service.limits import check_count
from query_service.models import DomainsOut, IndexMeta, LookupRequest, LookupResponse, PatternStatsOut
from query_service.responses import documented, error_responses
from query_service.state import IndexHolder

router = APIRouter(prefix="/v1", tags=["index"], route_class=LanedRoute)


def _lookup(holder: IndexHolder, patterns: list[str]) -> LookupResponse:
    for p in patterns:
        parse(p)  # PatternError -> 400 with the reason
    with holder.acquire() as loaded:
        # straight from RocksDB (its block cache is bounded): clients' patterns do not fill the solver cache
        stats = loaded.reader.lookup(patterns)
        results = [PatternStatsOut(**s.to_dict()) if s else PatternStatsOut(pattern=p, fpr=None, coverage=0)
                   for p, s in zip(patterns, stats, strict=True)]
        return LookupResponse(index_version=loaded.version, results=results)


@router.get("/patterns/lookup", response_model=LookupResponse, responses=error_responses(400, 422, 503))
def lookup_one(holder: Holder, pattern: str = Query(..., max_length=4096)) -> LookupResponse:
    """FPR and coverage of one pattern."""
    return _lookup(holder, [pattern])


@router.post("/patterns/lookup", response_model=LookupResponse, responses=error_responses(400, 413, 422, 503))
def lookup_many(service: ServiceSettings, holder: Holder, body: LookupRequest) -> LookupResponse:
    """FPR and coverage of many patterns (one multi-get)."""
    check_count(service, len(body.patterns), "patterns")
    return _lookup(holder, body.patterns)


@router.get("/index", response_model=None, responses=documented(IndexMeta, "The index's build metadata.", 503))
def index_meta(holder: Holder) -> dict:
    """Metadata of the live index version."""
    with holder.acquire() as loaded:
        return loaded.reader.meta


@router.get("/domains", dependencies=[Depends(lane("slow"))], response_model=None,
            responses=documented(DomainsOut, "Patterns with high coverage and low FPR.", 422, 503))
def domains(holder: Holder, min_coverage: int | None = Query(None, ge=1), max_fpr: float = Query(0.01, ge=0, le=1),
            limit: int = Query(50, ge=1, le=1000)) -> dict:
    """Common domains of the lake: high coverage, low FPR (cached per index version)."""
    from lakeindex.tagging.tag import head

    with holder.acquire() as loaded:
        floor = min_coverage or max(2, loaded.reader.meta.get("columns_scanned", 0) // 100)
        key = (floor, max_fpr, limit)
        rows = loaded.domains_cache.get(key)
        if rows is None:
            rows = head(loaded.reader.items(), floor, max_fpr, limit)
            loaded.domains_cache.put(key, rows, len(rows) + 1)
        return {"index_version": loaded.version, "domains": rows}
