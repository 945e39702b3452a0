"""Progress reporting for long jobs: phase messages, and Spark task counts when there is a SparkContext, on stderr."""

from __future__ import annotations

import sys
import threading
import time
from types import TracebackType
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # a Progress without a SparkContext (local work) must not load pyspark
    from pyspark import SparkContext


class Progress:
    """Prints ``[lakeindex] phase: done/total tasks`` lines while Spark jobs run (stderr)."""

    def __init__(self, sc: SparkContext | None, enabled: bool = True, interval: float = 2.0) -> None:
        self.sc = sc
        self.enabled = enabled
        self.interval = interval
        self.phase = "starting"
        self.t0 = time.time()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._last = ""

    def say(self, message: str) -> None:
        """Start a new phase and print it."""
        self.phase = message
        if self.enabled:
            print(f"[lakeindex {time.time() - self.t0:7.1f}s] {message}", file=sys.stderr, flush=True)

    def _tasks(self) -> tuple[int, int] | None:
        tracker = self.sc.statusTracker()
        done = total = 0
        for stage_id in tracker.getActiveStageIds():
            info = tracker.getStageInfo(stage_id)
            if info:
                done += info.numCompletedTasks
                total += info.numTasks
        return (done, total) if total else None

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            try:
                t = self._tasks()
            except Exception:  # noqa: BLE001 - reporting must never break the job
                continue
            if t:
                line = f"{self.phase}: {t[0]}/{t[1]} tasks"
                if line != self._last:
                    self._last = line
                    print(f"[lakeindex {time.time() - self.t0:7.1f}s]   {line}", file=sys.stderr, flush=True)

    def __enter__(self) -> Progress:
        if self.enabled and self.sc is not None:
            self._thread = threading.Thread(target=self._run, name="lakeindex-progress", daemon=True)
            self._thread.start()
        return self

    def __exit__(self, et: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None) -> None:
        self._stop.set()
        if self._thread:
            self._thread.join(timeout=1)
