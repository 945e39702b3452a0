"""The index shared by all requests, swapped atomically to a new version without failing requests.

A request *acquires* the current version for its whole duration. A swap opens the new version,
makes it current, and closes the old one only when its last in-flight request releases it.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from lakeindex.caches import WeightedLRU
from lakeindex.fmdv.search import SegmentSolver
from lakeindex.index.store import IndexReader, current_version

DOMAINS_CACHED = 20_000


@dataclass
class Loaded:
    """One open index version with its solver caches."""

    reader: IndexReader
    solver: SegmentSolver
    refs: int = 0
    retired: bool = False
    # /v1/domains answers per (floor, max_fpr, limit): a client can ask for many, so the most recent
    # DOMAINS_CACHED rows are kept (each answer is at most 1,000 rows)
    domains_cache: WeightedLRU = field(default_factory=lambda: WeightedLRU(DOMAINS_CACHED))

    @property
    def version(self) -> str:
        return self.reader.version


class IndexHolder:
    """Owns the live index version of one index path."""

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()
        self._current = self._open()

    def _open(self) -> Loaded:
        reader = IndexReader(self.path)
        return Loaded(reader, SegmentSolver(reader, freeze_gc=True, preload=True))

    @property
    def version(self) -> str:
        return self._current.version

    @contextmanager
    def acquire(self) -> Iterator[Loaded]:
        """Use the current version for the duration of a request."""
        with self._lock:
            loaded = self._current
            loaded.refs += 1
        try:
            yield loaded
        finally:
            with self._lock:
                loaded.refs -= 1
                close = loaded.retired and loaded.refs == 0
            if close:
                loaded.reader.close()

    def reload(self) -> tuple[str, str]:
        """Open the version named by CURRENT if it changed; return (old, new) versions."""
        target = current_version(self.path)
        old = self._current.version
        if target is None or target == old:
            return old, old
        new = self._open()
        with self._lock:
            prev, self._current = self._current, new
            prev.retired = True
            close = prev.refs == 0
        if close:
            prev.reader.close()
        return old, new.version

    def close(self) -> None:
        with self._lock:
            self._current.retired = True
            close = self._current.refs == 0
        if close:
            self._current.reader.close()
