"""Progress reporting for long jobs: phase messages, and Spark task counts while Spark jobs run, on stderr.

Task counts come from the SparkContext's status tracker (polled) on a classic session, and from the
server's execution-progress messages (a registered handler) on Spark Connect. They count over the whole
command, not per stage: every stage seen since the command started stays in the sum (a finished stage with
all its tasks), so the count never falls back to 0 when a new stage starts; the total grows as Spark plans
new stages. A stage counts a task once however often it ran: a retried or resubmitted task (an executor
lost after its tasks finished) must not show ``14/11``, so a stage's finished count is capped at its task count.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Iterable
from types import TracebackType
from typing import Any


def stage_tasks(stages: Iterable[tuple[int, int]]) -> tuple[int, int] | None:
    """(finished, total) tasks over ``(completed, num_tasks)`` pairs of stages, each stage's finished count
    capped at its total (retries and resubmissions re-count tasks); None when there is no task."""
    done = total = 0
    for completed, num in stages:
        done += min(max(completed, 0), num)
        total += num
    return (done, total) if total else None


class Progress:
    """Prints ``[lakeindex] phase: done/total tasks`` lines while Spark jobs run (stderr).

    ``spark`` is a SparkSession (classic or Connect), or None for work without Spark.
    """

    def __init__(self, spark: Any, enabled: bool = True, interval: float = 2.0) -> None:
        self.spark = spark
        self.enabled = enabled
        self.interval = interval
        self.phase = "starting"
        self.t0 = time.time()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._last = ""
        self._last_at = 0.0
        self._handler: Any = None
        self._entered = False
        self._stages: dict[Any, tuple[int, int]] = {}  # every stage seen: (finished, tasks)

    def say(self, message: str) -> None:
        """Start a new phase and print it."""
        self.phase = message
        if self.enabled:
            print(f"[lakeindex {time.time() - self.t0:7.1f}s] {message}", file=sys.stderr, flush=True)

    def _report(self, t: tuple[int, int] | None, force: bool = False) -> None:
        if not t:
            return
        line = f"{self.phase}: {t[0]}/{t[1]} tasks"
        now = time.time()
        if line != self._last and (force or now - self._last_at >= self.interval):
            self._last, self._last_at = line, now
            print(f"[lakeindex {now - self.t0:7.1f}s]   {line}", file=sys.stderr, flush=True)

    def _tasks(self) -> tuple[int, int] | None:
        tracker = self.spark.sparkContext.statusTracker()
        active = set(tracker.getActiveStageIds())
        for sid, (_, num) in list(self._stages.items()):
            if sid not in active:  # left the active set: finished (a failed stage fails the command anyway)
                self._stages[sid] = (num, num)
        for sid in active:
            info = tracker.getStageInfo(sid)
            if info:
                self._stages[sid] = (info.numCompletedTasks, info.numTasks)
        return stage_tasks(self._stages.values())

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            try:
                self._report(self._tasks(), force=True)
            except Exception:  # noqa: BLE001 - reporting must never break the job
                continue

    def _on_connect_progress(self, stages: Iterable[Any] | None, inflight_tasks: int, operation_id: str | None,
                             done: bool) -> None:
        """Spark Connect progress handler: the operation's stages so far (finished ones included)."""
        try:
            for s in stages or []:  # this operation's stages so far; earlier operations' stay in the sum
                self._stages[(operation_id, s.stage_id)] = (s.num_completed_tasks, s.num_tasks)
            self._report(stage_tasks(self._stages.values()), force=done)
        except Exception:  # noqa: BLE001 - reporting must never break the job
            pass

    def attach(self, spark: Any) -> None:
        """Report the task counts of a session that started after this Progress: commands that choose Spark
        or pandas only once they have looked at their input (history commands on small local batches)."""
        if self.spark is None and spark is not None:
            self.spark = spark
            if self._entered:
                self._start()

    def __enter__(self) -> Progress:
        self._entered = True
        self._start()
        return self

    def _start(self) -> None:
        if not self.enabled or self.spark is None:
            return
        from lakeindex.spark_session import is_connect

        if is_connect(self.spark):
            self._handler = self._on_connect_progress
            self.spark.registerProgressHandler(self._handler)
        else:
            self._thread = threading.Thread(target=self._run, name="lakeindex-progress", daemon=True)
            self._thread.start()

    def __exit__(self, et: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None) -> None:
        self._stop.set()
        if self._thread:
            self._thread.join(timeout=1)
        if self._handler is not None:
            self.spark.removeProgressHandler(self._handler)
            self._handler = None
