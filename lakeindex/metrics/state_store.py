"""A filesystem store of analyzer states, for incremental metrics (Deequ's StateProvider, §4.1).

Layout: ``<root>/<sha1 of the analyzer spec>/CURRENT`` names the live version directory, which holds
``state.json`` and, for grouping analyzers, ``frequencies.parquet`` written by Spark. A save writes a new
version and then swaps ``CURRENT`` with an atomic rename (``lakeindex.atomic_publish``: ``state.json``,
``CURRENT`` and its directory entry are fsynced), so a reader or a crash never sees a half state. The
previous version is kept (a merged table read from it may still be evaluated lazily); older ones are
removed. The root must be a filesystem path the driver and executors share (local disk in local mode, a
shared mount on a cluster).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import uuid
from pathlib import Path
from typing import TYPE_CHECKING

from lakeindex.atomic_publish import write_atomically
from lakeindex.local_paths import local_path
from lakeindex.metrics.frequencies import FrequencyState
from lakeindex.metrics.states import State, state_from_dict

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

KEEP_VERSIONS = 2


class StateStoreError(RuntimeError):
    """A stored state is missing pieces or belongs to another analyzer."""


class FileSystemStateStore:
    """Persist and load analyzer states under a directory; saves are atomic per analyzer."""

    def __init__(self, root: str | os.PathLike[str]) -> None:
        self.root = local_path(root, "state store").absolute()

    def _dir(self, key: str) -> Path:
        return self.root / hashlib.sha1(key.encode("utf-8")).hexdigest()[:20]

    def save(self, key: str, state: State) -> None:
        """Store ``state`` under ``key`` (an analyzer spec, or a frequency-table spec shared by analyzers)."""
        base = self._dir(key)
        base.mkdir(parents=True, exist_ok=True)
        version = f"v-{uuid.uuid4().hex}"
        vdir = base / version
        vdir.mkdir()
        meta: dict = {"key": key}
        if isinstance(state, FrequencyState):
            state.table.write.parquet((vdir / "frequencies.parquet").as_uri())
            meta.update(kind="frequencies", group_names=list(state.group_names))
        else:
            meta["state"] = state.to_dict()
        write_atomically(vdir / "state.json", json.dumps(meta))
        write_atomically(base / "CURRENT", version, temp_name=f".CURRENT.{version}")
        self._collect(base, version)

    def _collect(self, base: Path, live: str) -> None:
        versions = sorted((p for p in base.iterdir() if p.name.startswith("v-") and p.name != live),
                          key=lambda p: p.stat().st_mtime, reverse=True)
        for old in versions[KEEP_VERSIONS - 1:]:
            shutil.rmtree(old, ignore_errors=True)

    def load(self, key: str, spark: SparkSession | None = None) -> State | None:
        """The state stored under ``key``, or None if there is none yet."""
        base = self._dir(key)
        try:
            version = (base / "CURRENT").read_text(encoding="utf-8").strip()
        except FileNotFoundError:
            return None
        vdir = base / version
        try:
            meta = json.loads((vdir / "state.json").read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise StateStoreError(f"state of {key} at {vdir} is unreadable: {exc}") from exc
        if meta.get("key") != key:
            raise StateStoreError(f"{vdir} holds the state of {meta.get('key')}, not {key}")
        if meta.get("kind") == "frequencies":
            if spark is None:
                from lakeindex.spark_session import get_spark

                spark = get_spark()
            table = spark.read.parquet((vdir / "frequencies.parquet").as_uri())
            return FrequencyState(table, tuple(meta["group_names"]))
        return state_from_dict(meta["state"])
