"""Backfill: record the past partitions of a recurring dataset as clean batches, in order, in one run.

Onboarding a dataset means turning its last months of partitions into history before the first check.
One ``history add`` per partition pays a process start each time; a backfill lists the partitions once,
profiles each against the one before (pandas for small local partitions, one Spark application for the
rest), and records them in batch order. Choices:

* **Order and ids.** A partition is a data file or a sub-directory of the given directory. Its batch id
  is its name without the data extension, or what ``batch_from`` (a regex searched in the path relative
  to the directory) captures: the group named ``batch``, else group 1, else the whole match. Batches are
  recorded in the order of their ids as text, which is time order for ISO dates and zero-padded numbers.
* **Timestamps.** When every id is an ISO date or date-time, the batch's timestamp is that time (UTC);
  otherwise the batches get consecutive milliseconds ending now, so they sort before later live batches.
* **Resuming.** Batches already in the history are skipped (a run that stopped half-way continues where
  it stopped); the next new batch is profiled against the newest accepted one before it.
* **Synthetic-issue features** (the costly part of a batch) are computed for the last batch only: AVH
  learns from those of the latest clean batch, and every other backfilled batch is followed by another.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from lakeindex.history.batches import ACCEPTED, BatchHistory, BatchRecord, EmptyBatch, add_issue_features, profile
from lakeindex.lake.readers import FORMATS, file_format


class PartitionError(ValueError):
    """The partitions cannot be listed or named as asked (the message names the path and the fix)."""


@dataclass(frozen=True)
class Partition:
    """One partition to record: its batch id and its path (a file or a directory)."""

    batch_id: str
    path: str


def _stem(name: str) -> str:
    lower = name.lower()
    for ext in sorted(FORMATS, key=len, reverse=True):
        if lower.endswith(ext):
            return name[: -len(ext)]
    return name


def list_partitions(root: str, batch_from: str | None = None) -> tuple[list[Partition], list[dict[str, str]]]:
    """The partitions under ``root`` in batch order, and the entries left out with the reason."""
    if not os.path.isdir(root):
        raise PartitionError(f"{root}: not a directory of partitions (data files or sub-directories)")
    pattern = None
    if batch_from is not None:
        try:
            pattern = re.compile(batch_from)
        except re.error as exc:
            raise PartitionError(f"--batch-from {batch_from!r} is not a valid regular expression: {exc}") from exc
    parts, skipped = [], []
    for entry in sorted(os.scandir(root), key=lambda e: e.name):
        if entry.name.startswith((".", "_")):
            continue
        if not entry.is_dir() and file_format(entry.name) is None:
            skipped.append({"entry": entry.name, "reason": "not a data file or directory"})
            continue
        name = entry.name if entry.is_dir() else _stem(entry.name)
        if pattern is not None:
            m = pattern.search(os.path.relpath(entry.path, root))
            if m is None:
                skipped.append({"entry": entry.name, "reason": f"--batch-from {batch_from!r} does not match"})
                continue
            name = m.group("batch") if "batch" in pattern.groupindex else (m.group(1) if pattern.groups else m.group(0))
        parts.append(Partition(name, entry.path))
    parts.sort(key=lambda p: p.batch_id)
    seen: dict[str, str] = {}
    for p in parts:
        if p.batch_id in seen:
            raise PartitionError(f"{seen[p.batch_id]} and {p.path} both give batch id {p.batch_id!r}; "
                                 "pass a --batch-from regex that tells them apart")
        seen[p.batch_id] = p.path
    if not parts:
        raise PartitionError(f"{root}: no partitions (data files or sub-directories)"
                             + (f" matching --batch-from {batch_from!r}" if batch_from else ""))
    return parts, skipped


def batch_timestamps(ids: list[str], now_ms: int | None = None) -> list[int]:
    """Each batch's timestamp (ms): its id read as an ISO date/date-time (UTC) when every id is one and
    they increase, else consecutive milliseconds ending at ``now_ms``."""
    try:
        times = []
        for i in ids:
            dt = datetime.fromisoformat(i)
            times.append(int((dt if dt.tzinfo else dt.replace(tzinfo=UTC)).timestamp() * 1000))
        if all(a < b for a, b in zip(times, times[1:], strict=False)):
            return times
    except ValueError:
        pass
    now = now_ms if now_ms is not None else int(time.time() * 1000)
    return [now - len(ids) + 1 + k for k in range(len(ids))]


def backfill(history: BatchHistory, partitions: list[Partition], read: Callable[[str], Any], *,
             say: Callable[[str], None] | None = None, seed: int = 0) -> dict[str, Any]:
    """Record ``partitions`` (in their order) as clean batches; ``read`` gives a partition's data
    (pandas or Spark). Returns what was recorded and skipped."""
    stored = {r.batch_id: r for r in history.records(None, light=True)}
    stamps = batch_timestamps([p.batch_id for p in partitions])
    previous: BatchRecord | None = None
    previous_id: str | None = None  # an accepted batch already stored: loaded in full only when needed
    recorded, already, engines = [], [], {"local": 0, "spark": 0}
    last_new = max((k for k, p in enumerate(partitions) if p.batch_id not in stored), default=-1)
    total_new = sum(1 for p in partitions if p.batch_id not in stored)
    for k, part in enumerate(partitions):
        if part.batch_id in stored:
            already.append(part.batch_id)
            if stored[part.batch_id].status == ACCEPTED:
                previous, previous_id = None, part.batch_id
            continue
        if previous is None and previous_id is not None:
            previous = history.find(previous_id)
        data = read(part.path)
        engines["spark" if hasattr(data, "sparkSession") else "local"] += 1
        history.claim(part.batch_id)
        try:
            record = profile(data, part.batch_id, previous, seed=seed, issues=False)
            if not record.notes.get("rows"):
                raise EmptyBatch(f"partition {part.path} (batch {part.batch_id!r}) has no rows: remove it or "
                                 "exclude it with --batch-from; the batches before it are recorded")
            if k == last_new:
                add_issue_features(record, seed)
            record.status, record.timestamp_ms = ACCEPTED, stamps[k]
            history.save(record)
        except BaseException:
            history.unclaim(part.batch_id)
            raise
        record.sample = record.previous = None  # keep one batch in memory, not the chain
        previous, previous_id = record, record.batch_id
        recorded.append(part.batch_id)
        if say is not None:
            say(f"backfill: {len(recorded)}/{total_new} new batches (batch {part.batch_id}, "
                f"{record.notes.get('rows')} rows)")
    return {"dataset": history.dataset, "partitions": len(partitions), "recorded": recorded,
            "already_recorded": already, "engines": engines,
            "issue_features_for": partitions[last_new].batch_id if last_new >= 0 else None}
