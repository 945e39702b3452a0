"""Request and response models of the query service."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field


class PatternStatsOut(BaseModel):
    pattern: str
    fpr: float | None = Field(description="FPR_T(p); null when the pattern is not in the index")
    coverage: int


class LookupRequest(BaseModel):
    patterns: list[str] = Field(min_length=1, description="canonical patterns, e.g. <digit>{4}-<digit>{2}")


class LookupResponse(BaseModel):
    index_version: str
    results: list[PatternStatsOut]


class InferRequest(BaseModel):
    values: list[str] = Field(min_length=1, description="training values of the column")
    method: Literal["fmdv", "fmdv-v", "fmdv-h", "fmdv-vh"] = "fmdv-vh"
    r: float = Field(0.1, ge=0, le=1, description="FPR threshold")
    m: int | None = Field(None, ge=1, description="coverage threshold (default: adapts to the index)")
    theta: float = Field(0.1, ge=0, lt=1, description="non-conforming tolerance of -H methods")


class ValidateRequest(BaseModel):
    rule: dict = Field(description="a rule returned by /v1/infer")
    values: list[str] = Field(min_length=1, description="the new batch")
    alpha: float = Field(0.01, gt=0, lt=1)
    test: Literal["fisher", "chi2"] = "fisher"


class TagRequest(BaseModel):
    values: list[str] = Field(min_length=1)
    fnr: float = Field(0.05, ge=0, le=1, description="target false-negative rate")
    m: int | None = Field(None, ge=1)


class ReloadResponse(BaseModel):
    previous_version: str
    index_version: str
    swapped: bool
