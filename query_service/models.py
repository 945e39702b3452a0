"""Request and response models of the query service, the error payloads included.

Response models of dicts the library builds are closed (``extra="forbid"``, so OpenAPI says
``additionalProperties: false``) unless the payload is open by design (index metadata, signal evidence).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

Method = Literal["fmdv", "fmdv-v", "fmdv-h", "fmdv-vh"]
Validation = Literal["strict", "homogeneity"]
Test = Literal["betabinom", "fisher", "chi2"]


class HealthOut(BaseModel):
    """The process is up."""

    model_config = ConfigDict(extra="forbid")

    status: Literal["ok"]


class ReadyOut(BaseModel):
    """An index is open and answers lookups."""

    model_config = ConfigDict(extra="forbid")

    status: Literal["ready"]
    index_version: str
    # the index's keys are held in memory (it fits the inference lookup cache), so inference never
    # reads RocksDB; false for an index too big for it, served from RocksDB and its block cache
    index_in_memory: bool
    # the inference search runs compiled (installed with LAKEINDEX_COMPILE=1): wide fits about 30% faster
    inference_compiled: bool


class NotReadyOut(BaseModel):
    """No index answers: the reason (503 from /ready)."""

    model_config = ConfigDict(extra="forbid")

    status: Literal["not ready"]
    error: str


class IndexMeta(BaseModel):
    """Build metadata of the live index version (``meta.json``); builds and merges add their own keys."""

    model_config = ConfigDict(extra="allow")

    version: str = Field(description="the version directory, e.g. v-20260101T120000-1a2b3c4d")
    format_version: int
    patterns: int = Field(description="patterns in the index")
    index_bytes: int
    limits: dict[str, int] = Field(description="pattern enumeration limits of the build")
    min_coverage: int = Field(description="patterns seen in fewer columns were not kept")
    built_at: str = Field(description="ISO-8601 UTC time of the build")
    lakeindex_version: str | None = None
    lake: str | None = Field(None, description="what was indexed")
    tables_scanned: int | None = None
    columns_scanned: int | None = None
    cells_scanned: int | None = None
    impurity_scale: int | None = None
    build_seconds: float | None = None
    skipped_files: list[dict[str, Any]] | None = None
    issues: list[dict[str, Any]] | None = None


class PatternStatsOut(BaseModel):
    """A pattern's statistics in the index."""

    pattern: str
    fpr: float | None = Field(description="FPR_T(p); null when the pattern is not in the index")
    coverage: int


class LookupRequest(BaseModel):
    """Patterns to look up in one multi-get."""

    patterns: list[str] = Field(min_length=1, description="canonical patterns, e.g. <digit>{4}-<digit>{2}")


class LookupResponse(BaseModel):
    """The patterns' statistics, in the order asked, from one index version."""

    index_version: str
    results: list[PatternStatsOut]


class Domain(BaseModel):
    """A pattern of the index with its statistics."""

    model_config = ConfigDict(extra="forbid")

    pattern: str
    fpr: float = Field(description="FPR_T(p)")
    coverage: int = Field(description="columns of the lake the pattern describes")


class DomainsOut(BaseModel):
    """Common domains of the lake, by coverage then FPR."""

    model_config = ConfigDict(extra="forbid")

    index_version: str
    domains: list[Domain]


class InferRequest(BaseModel):
    values: list[str] = Field(min_length=1, description="training values of the column")
    method: Method = "fmdv-vh"
    r: float = Field(0.1, ge=0, le=1, description="FPR threshold")
    m: int | None = Field(None, ge=1, description="coverage threshold (default: adapts to the index)")
    theta: float = Field(0.1, ge=0, lt=1, description="non-conforming tolerance of -H methods")


class ValidateRequest(BaseModel):
    rule: dict = Field(description="a rule returned by /v1/infer")
    values: list[str] = Field(min_length=1, description="the new batch")
    alpha: float = Field(0.01, gt=0, lt=1)
    test: Test = Field("betabinom", description="betabinom: the training counts and the index's FPR for the "
                                                "pattern, one-sided; fisher / chi2: the paper's two-sample tests")


class RuleParams(BaseModel):
    """The parameters inference ran with."""

    model_config = ConfigDict(extra="forbid")

    r: float = Field(description="FPR threshold")
    m: int = Field(description="coverage threshold")
    theta: float = Field(description="non-conforming tolerance of -H methods")
    tau: int = Field(description="the index's token limit")
    alpha: float = Field(description="significance of the homogeneity test")


class SegmentOut(BaseModel):
    """One vertical segment of a rule."""

    model_config = ConfigDict(extra="forbid")

    pattern: str
    fpr: float
    coverage: int
    literal: bool = Field(description="a delimiter validated literally, not from the index")
    regex: str


class RuleOut(BaseModel):
    """A learned validation rule; post it back to /v1/validate as ``rule``."""

    model_config = ConfigDict(extra="forbid")

    method: Method
    params: RuleParams
    feasible: bool = Field(description="false: no pattern meets the thresholds (see reason)")
    pattern: str | None
    regex: str | None
    fpr: float | None
    coverage: int | None = Field(description="smallest coverage of an indexed segment")
    segments: list[SegmentOut]
    train_size: int = Field(description="non-empty training values")
    train_nonconforming: int
    train_nonconforming_fraction: float
    index_version: str | None
    validation: Validation = Field(description="strict: any non-conforming value fails; homogeneity: a test")
    reason: str | None = Field(None, description="why the rule is infeasible (only then)")


class LakePriorOut(BaseModel):
    """The Beta(a, b) prior of the column's non-conforming rate, from the index's evidence for the pattern."""

    model_config = ConfigDict(extra="forbid")

    mean: float = Field(description="FPR_T of the rule (sum of its segments' FPRs)")
    strength: float = Field(description="pseudo-values the lake's evidence counts as")
    tolerance: float = Field(description="θ: the prior puts at most alpha above it")
    a: float
    b: float


class OffendingValue(BaseModel):
    """A non-conforming value of the batch and how often it occurs."""

    model_config = ConfigDict(extra="forbid")

    value: str
    count: int


class ValidationOut(BaseModel):
    """The verdict on a batch. An infeasible rule gives ``skipped`` instead of the test's fields."""

    model_config = ConfigDict(extra="forbid")

    method: Method
    pattern: str | None
    mode: Validation
    test: Test
    alpha: float
    train_size: int
    train_nonconforming_fraction: float
    batch_size: int = Field(description="non-empty values of the batch")
    empty_values_ignored: int
    passed: bool
    flagged: bool
    skipped: str | None = Field(None, description="why the batch was not tested (infeasible rule; only then)")
    changed: bool | None = Field(None, description="the non-conforming fraction changed significantly")
    p_value: float | None = Field(None, description="of the chosen test")
    betabinom_p: float | None = Field(None, description="P(batch count >= observed) under the posterior predictive")
    fisher_p: float | None = None
    chi2_p: float | None = None
    prior: LakePriorOut | None = None
    expected_nonconforming_fraction: float | None = Field(
        None, description="the posterior mean rate: the prior updated by the training counts")
    training_p_at_batch_rate: float | None = Field(
        None, description="P(training counts this low | the column always at the batch's fraction): above alpha "
                          "the training sample alone cannot tell the batch's rate from the column's usual one")
    batch_nonconforming: int | None = None
    batch_nonconforming_fraction: float | None = None
    offending_sample: list[OffendingValue] | None = Field(None, description="the most frequent, at most 20")


class TagOut(BaseModel):
    """A column's domain pattern, or ``tag: null`` with the reason."""

    model_config = ConfigDict(extra="forbid")

    index_version: str
    values: int = Field(description="values of the column")
    fnr: float
    m: int
    tag: str | None
    fpr: float | None = Field(None, description="of the tag (when there is one)")
    coverage: int | None = Field(None, description="of the tag (when there is one)")
    reason: str | None = Field(None, description="why there is no tag (only then)")
    method: Literal["tag", "fmdv-vh"] | None = Field(
        description="how the pattern was found: the tag search, or FMDV-VH for values wider than the index's tau")
    domain: str | None = Field(description="the common domain the column holds (uuid, email, iso-date, ...), if any")
    description: str | None = Field(description="what the domain is")
    share: float | None = Field(description="fraction of values in the domain (or matching the pattern, if none)")
    confidence: float | None = Field(description="share x (1 - fpr) x coverage / (coverage + 1)")


class TagRequest(BaseModel):
    values: list[str] = Field(min_length=1)
    fnr: float = Field(0.05, ge=0, le=1, description="target false-negative rate")
    m: int | None = Field(None, ge=1)


class ReloadResponse(BaseModel):
    """The versions before and after the reload."""

    previous_version: str
    index_version: str
    swapped: bool


# -- errors (query_service.responses documents which route answers which)


class ErrorOut(BaseModel):
    """An error the service raised: a message saying what is wrong."""

    model_config = ConfigDict(extra="forbid")

    detail: str = Field(description="what is wrong, e.g. 'request body over 16777216 bytes'")


class ValidationIssue(BaseModel):
    """One problem FastAPI found validating the request (its own format)."""

    type: str = Field(description="error type, e.g. missing, too_short, json_invalid")
    loc: list[str | int] = Field(description="where: body, query or header, then the field path")
    msg: str
    input: Any = Field(None, description="the offending input")
    ctx: dict[str, Any] | None = Field(None, description="the constraint, e.g. {'ge': 1}")


class UnprocessableOut(BaseModel):
    """422: the request failed validation (a list of issues) or the service refused a value (a message)."""

    model_config = ConfigDict(extra="forbid")

    detail: str | list[ValidationIssue]


# -- batch validation (/v1/batches/validate)


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


# -- datasets of the metrics repository (/v1/datasets)


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
