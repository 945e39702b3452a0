"""Batch history of a recurring dataset, kept in the metrics repository.

Adding a batch costs one Spark summary pass (``summarize_dataframe``: one aggregation plus one grouped
job) and one bounded sample (at most ``SAMPLE_ROWS`` rows reach the driver), or, for a small batch already
in memory, one pandas pass (``summarize_series``) over the same definitions. Everything later steps need
is derived then and stored as metrics of the batch's result key, so learning never re-reads old data:

- ``ColumnSummary(column=…)``: the summary (two-distribution metrics against the next batch need it);
- ``HistoryFeatures(column=…)``: AVH Tables 3-4 metrics against the previous accepted batch (a dict);
- ``IssueFeatures(column=…)``: features of this batch with each synthetic issue injected, computed on the
  sample and scaled to the batch size. AVH learning needs them for the latest accepted batch only, so
  they are computed once, when a batch is recorded as accepted (``history add``, a passing
  ``validate-batch``, the last batch of a backfill), never when a batch is only checked;
- ``NewValues(column=…)``: the values of a text column the clean history's vocabulary lacked, with their
  counts (``new_value_ratio``'s numerator; up to ``NEW_VALUES_KEPT`` of them, else not stored), so that
  learning can tell which of them no other clean batch has (``avh.leave_one_out``) without the summaries;
- ``NoveltyFeatures()``: the kNN detector's feature vector (EDBT 2021 §4);
- ``ValueSample(column=…)``: up to ``VALUE_SAMPLE`` values of each text column, for pattern rules;
- ``BatchStatus()``: accepted or flagged (flagged batches stay out of the clean history until accepted);
- ``Validation()``: for a batch recorded by ``validate-batch``, each signal's verdict and evidence as it was
  decided then (what ``lakeindex report`` shows), without the learned programs.

A batch's result key is ``(timestamp, {"batch": id})``; re-saving it (``accept``) replaces it (the
repository's last write wins).
"""

from __future__ import annotations

import math
import os
import threading
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from lakeindex.history.batch_metrics import features as history_features
from lakeindex.history.batch_metrics import unseen_values
from lakeindex.history.issues import issue_features
from lakeindex.history.kinds import NUMERIC
from lakeindex.history.summary import ColumnSummary
from lakeindex.lake.text_frame import TextFrame, present_text
from lakeindex.metrics.metric import Metric
from lakeindex.novelty.features import novelty_features
from lakeindex.repository import FileSystemMetricsRepository, ResultKey

if TYPE_CHECKING:
    import pandas as pd
    from pyspark.sql import Column, DataFrame

SAMPLE_ROWS = 5000
VALUE_SAMPLE = 1000
ACCEPTED, FLAGGED = "accepted", "flagged"
ISSUE_FEATURES_LOOKBACK = 10  # clean batches searched for synthetic-issue features when the newest has none
NEW_VALUES_KEPT = 100
LIGHT_METRICS = ["BatchStatus", "NoveltyFeatures", "HistoryFeatures", "NewValues"]


@dataclass
class BatchRecord:
    """Everything stored about one batch (see the module docstring)."""

    batch_id: str
    summaries: dict[str, ColumnSummary]
    features: dict[str, dict[str, float]]
    issue_features: dict[str, dict[str, dict[str, float]]]
    novelty: dict[str, float]
    value_samples: dict[str, list[str]]
    status: str = ACCEPTED
    timestamp_ms: int = 0
    notes: dict[str, Any] = field(default_factory=dict)
    validation: dict[str, Any] | None = None
    # per text column, its values the previous clean batch's vocabulary lacked, with their counts
    new_values: dict[str, dict[str, float]] = field(default_factory=dict)
    # the bounded sample the record was profiled on: kept in memory (never stored) so that the
    # synthetic-issue features can be added once the batch is known to be accepted
    sample: pd.DataFrame | TextFrame | None = field(default=None, repr=False, compare=False)
    previous: BatchRecord | None = field(default=None, repr=False, compare=False)

    def key(self) -> ResultKey:
        return ResultKey(self.timestamp_ms, {"batch": self.batch_id})

    def to_metrics(self) -> list[Metric]:
        out = [Metric("BatchStatus()", "BatchStatus", "*", "Dataset",
                      {"status": self.status, "batch": self.batch_id, **self.notes}),
               Metric("NoveltyFeatures()", "NoveltyFeatures", "*", "Dataset", _json_floats(self.novelty))]
        if self.validation is not None:
            out.append(Metric("Validation()", "Validation", "*", "Dataset", self.validation))
        for c, s in self.summaries.items():
            out.append(Metric(f"ColumnSummary(column={c!r})", "ColumnSummary", c, "Column", s.to_dict()))
            out.append(Metric(f"HistoryFeatures(column={c!r})", "HistoryFeatures", c, "Column",
                              _json_floats(self.features.get(c, {}))))
            if c in self.new_values:
                out.append(Metric(f"NewValues(column={c!r})", "NewValues", c, "Column", dict(self.new_values[c])))
            if c in self.issue_features:
                out.append(Metric(f"IssueFeatures(column={c!r})", "IssueFeatures", c, "Column",
                                  {k: _json_floats(v) for k, v in self.issue_features[c].items()}))
            if c in self.value_samples:
                out.append(Metric(f"ValueSample(column={c!r})", "ValueSample", c, "Column",
                                  {"values": self.value_samples[c]}))
        return out

    @classmethod
    def from_metrics(cls, key: ResultKey, metrics: list[Metric]) -> BatchRecord:
        rec = cls(key.tags.get("batch", ""), {}, {}, {}, {}, {}, ACCEPTED, key.timestamp_ms)
        for m in metrics:
            if m.name == "BatchStatus" and isinstance(m.value, dict):
                rec.status = m.value.get("status", ACCEPTED)
                rec.notes = {k: v for k, v in m.value.items() if k not in ("status", "batch")}
            elif m.name == "NoveltyFeatures" and isinstance(m.value, dict):
                rec.novelty = _float_values(m.value)
            elif m.name == "Validation" and isinstance(m.value, dict):
                rec.validation = m.value
            elif m.name == "ColumnSummary":
                rec.summaries[m.instance] = ColumnSummary.from_dict(m.value)
            elif m.name == "NewValues" and isinstance(m.value, dict):
                rec.new_values[m.instance] = {k: float(v) for k, v in m.value.items()}
            elif m.name == "IssueFeatures":
                rec.issue_features[m.instance] = {k: _float_values(v) for k, v in m.value.items()}
            elif m.name == "ValueSample":
                rec.value_samples[m.instance] = list(m.value.get("values", []))
            elif m.name == "HistoryFeatures" and isinstance(m.value, dict):
                rec.features[m.instance] = {k: float(v) for k, v in m.value.items() if v is not None}
        return rec


def _json_floats(d: Mapping[str, float]) -> dict[str, float | None]:
    return {k: (None if v is None or (isinstance(v, float) and not math.isfinite(v)) else float(v))
            for k, v in d.items()}


def _float_values(d: Mapping[str, Any]) -> dict[str, float]:
    return {k: (math.nan if v is None else float(v)) for k, v in d.items()}


def bounded_sample(df: DataFrame, rows: int, n: int = SAMPLE_ROWS, seed: int = 7) -> pd.DataFrame:
    """A uniform sample of at most ``n`` rows as pandas (the only data that reaches the driver)."""
    if rows <= n:
        return df.limit(n).toPandas()
    return df.sample(fraction=min(1.0, 1.2 * n / rows), seed=seed).limit(n).toPandas()


def _previous_kinds(previous: BatchRecord | None) -> dict[str, str]:
    """Column kinds stay those of the history, so features of consecutive batches compare."""
    return {c: s.kind for c, s in previous.summaries.items()} if previous is not None else {}


def _record(batch_id: str, summaries: dict[str, ColumnSummary], sample: pd.DataFrame | TextFrame, rows: int,
            previous: BatchRecord | None, seed: int, issues: bool) -> BatchRecord:
    """Features against ``previous``, value samples and, with ``issues``, the synthetic-issue features."""
    feats, values, new = {}, {}, {}
    for c, s in list(summaries.items()):
        prev = previous.summaries.get(c) if previous is not None else None
        feats[c] = history_features(prev, s)
        if prev is not None and "new_value_ratio" in feats[c]:
            unseen = unseen_values(prev, s)
            if len(unseen) <= NEW_VALUES_KEPT:
                new[c] = unseen
        summaries[c] = s.with_history(prev)  # the vocabulary the next batch's new values are told by
        if len(sample) and c in sample.columns and s.kind != NUMERIC:
            values[c] = present_text(sample, c)[:VALUE_SAMPLE]
    record = BatchRecord(batch_id, summaries, feats, {}, novelty_features(summaries, sample), values,
                         notes={"rows": rows, "sample_rows": len(sample)}, new_values=new, sample=sample,
                         previous=previous)
    if issues:
        add_issue_features(record, seed)
    return record


def add_issue_features(record: BatchRecord, seed: int = 0, workers: int | None = None) -> BatchRecord:
    """The synthetic-issue features of a profiled batch (on its sample, scaled to its rows), in place; a
    no-op when they are there already or the sample is gone (a record read back from the repository).
    See :class:`IssueFeatureJob` for the workers."""
    return IssueFeatureJob(record, seed, workers).finish()


class IssueFeatureJob:
    """The synthetic-issue features of a profiled batch, computed from the moment it is created.

    Columns are independent, so they are spread over ``workers`` forked processes (default: one per core
    when the calling process is single-threaded; forking a threaded process, such as the service or a
    Spark driver, could copy a held lock, so those compute in process, in ``finish``). Results do not
    depend on it: each variant draws from its own seeded generator. Started before a batch's verdict is
    known (``validate-batch``), the workers run while the signals are evaluated; ``cancel`` drops them
    when the batch is flagged (a flagged batch is never learned from)."""

    def __init__(self, record: BatchRecord, seed: int = 0, workers: int | None = None) -> None:
        self.record, self.seed = record, seed
        sample = record.sample
        self.jobs: list[tuple[ColumnSummary | None, str, str]] = []
        if not record.issue_features and sample is not None and len(sample):
            previous = record.previous
            self.jobs = [(previous.summaries.get(c) if previous is not None else None, c, s.kind)
                         for c, s in record.summaries.items() if c in sample.columns]
        self.scale = (record.notes.get("rows") or len(sample)) / len(sample) if self.jobs else 1.0
        if workers is None:
            workers = min(len(self.jobs), os.cpu_count() or 1) \
                if threading.active_count() == 1 and _can_fork() else 1
        self._pool: Any = None
        self._pending: dict[str, Any] = {}
        if workers > 1 and len(self.jobs) > 1:
            import multiprocessing

            self._pool = multiprocessing.get_context("fork").Pool(workers)
            self._pending = {c: self._pool.apply_async(issue_features, (prev, sample, c),
                                                       {"seed": seed, "scale": self.scale, "kind": kind})
                             for prev, c, kind in self.jobs}

    def finish(self) -> BatchRecord:
        """Wait for the features and set them on the record (in place); returns the record."""
        if not self.jobs:
            return self.record
        if self._pool is not None:
            try:
                self.record.issue_features = {c: p.get() for c, p in self._pending.items()}
            finally:
                self.cancel()
        else:
            self.record.issue_features = {
                c: issue_features(prev, self.record.sample, c, seed=self.seed, scale=self.scale, kind=kind)
                for prev, c, kind in self.jobs}
        return self.record

    def cancel(self) -> None:
        """Stop the workers (their results are not needed); safe to call twice."""
        if self._pool is not None:
            self._pool.terminate()
            self._pool.join()
            self._pool = None


def _can_fork() -> bool:
    import multiprocessing

    return "fork" in multiprocessing.get_all_start_methods()


def profile_batch(df: DataFrame, batch_id: str, previous: BatchRecord | None, seed: int = 0,
                  issues: bool = True) -> BatchRecord:
    """Summaries (one Spark pass), features against ``previous``, samples and (``issues``) issue features."""
    from lakeindex.history.spark_summary import summarize_dataframe

    summaries = summarize_dataframe(df, _previous_kinds(previous))
    rows = int(next(iter(summaries.values())).row_count) if summaries else 0
    return _record(batch_id, summaries, bounded_sample(df, rows), rows, previous, seed, issues)


BATCH_INDEX = "__lakeindex_batch"  # the column that tells apart the batches of a run read by one scan


def profile_run(df: DataFrame, batch_of: Column, batch_ids: list[str], previous: BatchRecord | None,
                seed: int = 0) -> Iterator[BatchRecord]:
    """``profile_batch`` for consecutive batches read together as ``df`` (``batch_of`` gives a row's
    batch: its index in ``batch_ids``), in three Spark jobs for all of them (the summaries' two, one
    sample), yielded in order, each profiled against the one before. Summaries are those of one batch
    alone; kinds are ``previous``'s, else decided by the first batch, as one by one. A batch without rows
    yields a record of 0 rows (the caller refuses it). Samples: a batch of at most ``SAMPLE_ROWS`` rows
    whole, in order; a larger one a uniform sample (not the rows ``bounded_sample`` draws)."""
    from lakeindex.history.spark_summary import summarize_batches

    tagged = df.withColumn(BATCH_INDEX, batch_of)
    summaries = summarize_batches(tagged, BATCH_INDEX, _previous_kinds(previous), kinds_from=0)
    rows = {k: int(next(iter(s.values())).row_count) if s else 0 for k, s in summaries.items()}
    fractions = {k: 1.0 if rows.get(k, 0) <= SAMPLE_ROWS else min(1.0, 1.2 * SAMPLE_ROWS / rows[k])
                 for k in range(len(batch_ids))}
    drawn = tagged.sampleBy(BATCH_INDEX, fractions, seed=7).toPandas()
    by_batch = dict(iter(drawn.groupby(BATCH_INDEX, sort=False)))
    empty = drawn.drop(columns=[BATCH_INDEX]).head(0)
    for k, batch_id in enumerate(batch_ids):
        part = by_batch.get(k)
        sample = empty if part is None else part.drop(columns=[BATCH_INDEX]).head(SAMPLE_ROWS).reset_index(drop=True)
        record = _record(batch_id, summaries.get(k, {}), sample, rows.get(k, 0), previous, seed, False)
        yield record
        previous = record


def frame_sample(pdf: pd.DataFrame | TextFrame, n: int = SAMPLE_ROWS, seed: int = 7) -> pd.DataFrame | TextFrame:
    """The in-memory twin of ``bounded_sample``: the whole batch up to ``n`` rows (in order, as Spark's
    ``limit`` gives a single file), else a uniform sample of ``n`` rows (other rows than Spark's
    Bernoulli sample draws; both are uniform). A TextFrame draws the rows its pandas frame would."""
    if isinstance(pdf, TextFrame):
        return pdf if len(pdf) <= n else pdf.sample(n, seed)
    if len(pdf) <= n:
        return pdf.reset_index(drop=True)
    return pdf.sample(n=n, random_state=seed).sort_index().reset_index(drop=True)


def profile_frame(pdf: pd.DataFrame, batch_id: str, previous: BatchRecord | None, seed: int = 0,
                  issues: bool = True) -> BatchRecord:
    """``profile_batch`` for a small batch already in memory (local files, the service): pandas, no Spark."""
    from lakeindex.history.summary import summarize_series

    kinds = _previous_kinds(previous)
    summaries = {str(c): summarize_series(pdf[c], kinds.get(str(c))) for c in pdf.columns}
    return _record(batch_id, summaries, frame_sample(pdf), len(pdf), previous, seed, issues)


def profile_text(frame: TextFrame, batch_id: str, previous: BatchRecord | None, seed: int = 0,
                 issues: bool = True) -> BatchRecord:
    """``profile_frame`` of a batch of text columns without pandas: the same record as for its pandas frame
    (``tests/test_text_frame.py``), for local files read as text (``lakeindex.lake.text_frame``)."""
    from lakeindex.history.summary import summarize_text

    kinds = _previous_kinds(previous)
    summaries = {c: summarize_text(frame[c], kinds.get(c)) for c in frame.columns}
    return _record(batch_id, summaries, frame_sample(frame), len(frame), previous, seed, issues)


def profile(data: Any, batch_id: str, previous: BatchRecord | None, seed: int = 0,
            issues: bool = True) -> BatchRecord:
    """``profile_text`` for a TextFrame, ``profile_frame`` for a pandas DataFrame, ``profile_batch`` for a
    Spark one (pandas is imported only for a pandas frame: a Spark DataFrame is told by its session)."""
    if isinstance(data, TextFrame):
        return profile_text(data, batch_id, previous, seed, issues)
    if hasattr(data, "sparkSession"):
        return profile_batch(data, batch_id, previous, seed, issues)
    import pandas as pd

    if isinstance(data, pd.DataFrame):
        return profile_frame(data, batch_id, previous, seed, issues)
    raise TypeError(f"a batch is a pandas, Spark or text frame, not {type(data).__name__}")


class EmptyBatch(ValueError):
    """A batch without rows offered as clean history."""


class BatchAlreadyRecorded(ValueError):
    """A batch id that the dataset's history already holds (ids are added once)."""


class BatchHistory:
    """The batches of one dataset in a metrics repository, oldest first."""

    def __init__(self, repository: FileSystemMetricsRepository | str, dataset: str) -> None:
        self.repo = FileSystemMetricsRepository(repository) if isinstance(repository, str) else repository
        self.dataset = dataset
        self.clean_batches: int | None = None  # the clean history's length after this object's last ``add``

    def records(self, status: str | None = ACCEPTED, light: bool = False) -> list[BatchRecord]:
        """Stored batches, oldest first. ``light`` reads only status, features, new values and kNN vectors
        (what learning needs from older batches) and loads the newest one in full: summaries, issue features,
        samples."""
        if light:
            return self.with_latest_in_full(self.light_records(status))
        q = self.repo.load().for_dataset(self.dataset)
        recs = [BatchRecord.from_metrics(r.key, r.metrics) for r in q.get() if "batch" in r.key.tags]
        return [r for r in recs if status is None or r.status == status]

    def light_records(self, status: str | None = None) -> list[BatchRecord]:
        """Stored batches (of ``status``, None: all), oldest first, with status, features, new values and kNN vectors
        only: one repository read, which a command shares between its duplicate-id check and its history."""
        q = self.repo.load().for_dataset(self.dataset).for_analyzers(LIGHT_METRICS)
        recs = [BatchRecord.from_metrics(r.key, r.metrics) for r in q.get() if "batch" in r.key.tags]
        return [r for r in recs if status is None or r.status == status]

    @staticmethod
    def clean_of(recs: list[BatchRecord]) -> list[BatchRecord]:
        """The accepted ones of ``recs``, oldest first."""
        return [r for r in recs if r.status == ACCEPTED]

    def with_latest_in_full(self, recs: list[BatchRecord]) -> list[BatchRecord]:
        """``recs`` (light records, oldest first) with the newest loaded in full; when it has no issue
        features (a batch accepted after being flagged), also the ones before it, back to the newest that
        has them: learning uses those. In place; returns ``recs``."""
        for i in range(len(recs) - 1, max(-1, len(recs) - 1 - ISSUE_FEATURES_LOOKBACK), -1):
            full = self.repo.get(self.dataset, recs[i].key())
            if full is not None:
                recs[i] = BatchRecord.from_metrics(full.key, full.metrics)
            if recs[i].issue_features:
                break
        return recs

    def latest(self, status: str | None = ACCEPTED) -> BatchRecord | None:
        recs = self.records(status, light=True)  # the newest one is loaded in full
        return recs[-1] if recs else None

    def find(self, batch_id: str) -> BatchRecord | None:
        """The stored batch in full, or None; the lookup itself reads only the status metrics."""
        for r in self.repo.load().for_dataset(self.dataset).for_analyzers(["BatchStatus"]).get():
            if r.key.tags.get("batch") == batch_id:
                full = self.repo.get(self.dataset, r.key)
                return BatchRecord.from_metrics(full.key, full.metrics) if full is not None else None
        return None

    def save(self, record: BatchRecord) -> str:
        if not record.timestamp_ms:
            record.timestamp_ms = int(time.time() * 1000)
        return self.repo.save(self.dataset, record.key(), record.to_metrics())

    def ensure_new(self, batch_id: str, known: list[BatchRecord] | None = None) -> None:
        """Raise :class:`BatchAlreadyRecorded` if ``batch_id`` is in the history: a batch id is added once.
        ``known``: every stored batch as ``light_records()`` read it (saves a repository read)."""
        present = (self.find(batch_id) is not None if known is None
                   else any(r.batch_id == batch_id for r in known))
        if present:
            raise BatchAlreadyRecorded(f"batch {batch_id!r} is already in the history of {self.dataset!r}")

    def claim(self, batch_id: str, known: list[BatchRecord] | None = None) -> None:
        """Make ``batch_id`` this caller's, once and for all: of concurrent callers only one succeeds (an
        exclusive create in the repository), the others get :class:`BatchAlreadyRecorded`. Batches stored
        before claims existed are found by their records (``known``: as ``ensure_new``); a batch recorded
        since ``known`` was read holds the claim, so the exclusive create still refuses it."""
        self.ensure_new(batch_id, known)
        if not self.repo.reserve(self.dataset, f"batch:{batch_id}"):
            raise BatchAlreadyRecorded(f"batch {batch_id!r} is already in the history of {self.dataset!r} "
                                       "(or being recorded right now)")

    def unclaim(self, batch_id: str) -> None:
        """Release a claim whose batch could not be recorded, so that the id can be retried."""
        self.repo.release(self.dataset, f"batch:{batch_id}")

    def add(self, df: DataFrame | pd.DataFrame | TextFrame, batch_id: str, status: str = ACCEPTED,
            timestamp_ms: int | None = None, seed: int = 0, issues: bool = True) -> BatchRecord:
        """Profile ``df`` (Spark, pandas or a TextFrame) against the latest accepted batch and store it; a
        batch id may be added once. ``issues=False`` skips the synthetic-issue features (a backfill's batches
        that will not be the latest)."""
        known = self.light_records()
        self.claim(batch_id, known)
        try:
            clean = self.with_latest_in_full(self.clean_of(known))
            record = profile(df, batch_id, clean[-1] if clean else None, seed=seed,
                             issues=issues and status == ACCEPTED)
            if not record.notes.get("rows"):
                raise EmptyBatch(f"batch {batch_id!r} has no rows (a header-only file?): a clean batch needs data")
            record.status, record.timestamp_ms = status, timestamp_ms or int(time.time() * 1000)
            self.save(record)
        except BaseException:
            self.unclaim(batch_id)
            raise
        self.clean_batches = len(clean) + (status == ACCEPTED)
        return record

    def set_status(self, batch_id: str, status: str) -> BatchRecord:
        """Accept (or flag) a stored batch: it joins (or leaves) the clean history."""
        record = self.find(batch_id)
        if record is None:
            raise ValueError(f"no batch {batch_id!r} in the history of {self.dataset!r}")
        record.status = status
        self.save(record)
        return record
