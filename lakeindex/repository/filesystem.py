"""The embedded metrics repository: immutable Parquet files under a directory, one file per saved result.

Layout: ``<root>/dataset=<quoted name>/<timestamp_ms>-<uuid4hex>.parquet`` (rows: see ``rows.py``).

Why immutable Parquet files and no server:

* Spark reads the directory natively (``spark.read.parquet``) when a history is too large for one process.
* Writers never contend: each save writes its own uniquely named file, first to a dot-named temp file in
  the same directory, then ``os.replace`` publishes it (atomic on POSIX). Readers skip dot-files, so a
  crashed writer never exposes half-written data; ``gc_temp`` removes its leftovers.
* It works on shared filesystems (NFS and the like), where SQLite's locking is unreliable, and it lets many
  processes write at once, which RocksDB (one writer process) does not.

Last write wins: saving the same (dataset, key) twice keeps both files; reads return only the rows of the
latest save of that key, by ``written_at_ns`` and then by ``write_id`` (``<timestamp_ms>-<uuid>``, the name
of the save's original file, which compaction keeps). An older save never shows through, not even for an
analyzer the latest save lacks. ``written_at_ns`` is the writer's wall clock (strictly increasing within
one process): across hosts, "latest" is only as good as their clock sync.

``compact`` rewrites a dataset's files into one file before deleting the old ones. Each save's rows carry
their ``write_id``, and a reader takes each save from a single file, so a reader that sees the old files
and the compacted file at once gets neither duplicates nor gaps, and one that lists the old files just
before they vanish lists again. (A Spark job that lists files just before a compaction deletes them fails
with a missing-file error rather than reading a partial history; rerun it.)
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import threading
import time
import uuid
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote, unquote

import pyarrow as pa
import pyarrow.parquet as pq

from lakeindex.atomic_publish import fsync_dir, write_atomically
from lakeindex.local_paths import local_path
from lakeindex.metrics.metric import Metric
from lakeindex.repository.query import AnalysisResult, MetricsQuery, QueryFilter, analyzer_spec
from lakeindex.repository.result_key import ResultKey
from lakeindex.repository.rows import SCHEMA, metric_rows

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

PARTITION_PREFIX = "dataset="
TEMP_PREFIX = ".tmp-"
RESERVED_PREFIX = "_reserved-"  # unique names (reserve()); "_" keeps them out of every listing
_SAVE_NAME = re.compile(r"^(\d+)-[0-9a-f]{32}\.parquet$")
_COMPACT_NAME = re.compile(r"^compact-(\d+)-(\d+)-[0-9a-f]{32}\.parquet$")
_MAX_DIR_NAME = 255 - len(PARTITION_PREFIX)
_LIST_ATTEMPTS = 5
_KEY_COLUMNS = ["dataset", "timestamp_ms", "tags_json"]

_clock_lock = threading.Lock()
_last_ns = 0


class RepositoryError(Exception):
    """A repository file cannot be read (corrupt, truncated or not in the repository's format)."""


def _written_at_ns() -> int:
    """Wall-clock ns, strictly increasing within the process so back-to-back saves order correctly."""
    global _last_ns
    with _clock_lock:
        _last_ns = max(time.time_ns(), _last_ns + 1)
        return _last_ns


def quote_dataset(dataset: str) -> str:
    """The directory name of a dataset: ``dataset=`` plus the percent-quoted name (no separators survive)."""
    if not isinstance(dataset, str) or not dataset:
        raise ValueError(f"dataset name must be a non-empty string, got {dataset!r}")
    quoted = quote(dataset, safe="")
    if len(quoted) > _MAX_DIR_NAME:
        raise ValueError(f"dataset name too long for a directory name once quoted ({len(quoted)} > {_MAX_DIR_NAME} "
                         f"characters): {dataset[:60]!r}...")
    return PARTITION_PREFIX + quoted


def _time_range(file_name: str) -> tuple[int, int] | None:
    """The timestamps a data file can hold, from its name (None when the name does not say)."""
    if m := _SAVE_NAME.match(file_name):
        return int(m.group(1)), int(m.group(1))
    if m := _COMPACT_NAME.match(file_name):
        return int(m.group(1)), int(m.group(2))
    return None


class FileSystemMetricsRepository:
    """Metric results per dataset and ResultKey, stored as immutable Parquet files under ``path``."""

    def __init__(self, path: str | os.PathLike[str], fsync: bool = True) -> None:
        self.path = local_path(path, "metrics repository")
        if self.path.exists() and not self.path.is_dir():
            raise RepositoryError(f"metrics repository {self.path} is a file; pass a directory (it is created "
                                  "on first save)")
        self.fsync = fsync  # flush each file (and its directory entry) to disk before save() returns

    def __repr__(self) -> str:
        return f"FileSystemMetricsRepository({str(self.path)!r})"

    # ---- writing -------------------------------------------------------------------------------------
    def save(self, dataset: str, key: ResultKey, metrics: Iterable[Metric]) -> str:
        """Store one result as a new Parquet file and return its path; an earlier save of the key is superseded."""
        directory = self.path / quote_dataset(dataset)
        if not isinstance(key, ResultKey):
            raise TypeError(f"save() takes a ResultKey, got {type(key).__name__}")
        write_id = f"{key.timestamp_ms}-{uuid.uuid4().hex}"
        table = metric_rows(dataset, key, list(metrics), _written_at_ns(), write_id)
        return str(self._publish(directory, write_id + ".parquet", table))

    def _publish(self, directory: Path, name: str, table: pa.Table) -> Path:
        """Write ``table`` to a dot-named temp file, then atomically rename it to ``name``."""
        directory.mkdir(parents=True, exist_ok=True)
        return write_atomically(directory / name, lambda fh: pq.write_table(table, fh, compression="zstd"),
                                temp_name=f"{TEMP_PREFIX}{uuid.uuid4().hex}.parquet", fsync=self.fsync)

    # ---- unique names (a key a caller must be the only one to use) -------------------------------------
    def _reservation(self, dataset: str, name: str) -> Path:
        digest = hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()[:40]
        return self.path / quote_dataset(dataset) / f"{RESERVED_PREFIX}{digest}"

    def reserve(self, dataset: str, name: str) -> bool:
        """Reserve ``name`` within ``dataset`` with an exclusive create (Postgres-style unique key: of any
        number of concurrent callers, one gets True); False if it was reserved already. Readers skip it."""
        path = self._reservation(dataset, name)
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
        except FileExistsError:
            return False
        try:
            os.write(fd, name.encode("utf-8", "surrogatepass"))
            if self.fsync:
                os.fsync(fd)
        finally:
            os.close(fd)
        if self.fsync:
            fsync_dir(path.parent)
        return True

    def release(self, dataset: str, name: str) -> None:
        """Give a reservation back (its holder failed before using it)."""
        self._reservation(dataset, name).unlink(missing_ok=True)

    # ---- reading -------------------------------------------------------------------------------------
    def load(self) -> MetricsQuery:
        """A query over the whole repository; narrow it with for_dataset, with_tag_values, after, before."""
        return MetricsQuery(self)

    def get(self, dataset: str, key: ResultKey) -> AnalysisResult | None:
        """The latest save of exactly this (dataset, key), or None."""
        f = QueryFilter(dataset=dataset, tags=key.tag_items, exact_tags=True, after=key.timestamp_ms,
                        before=key.timestamp_ms)
        results = MetricsQuery(self, f).get()
        return results[0] if results else None

    def series(self, dataset: str, analyzer: Any, tags: Mapping[str, str] | None = None, after: int | None = None,
               before: int | None = None, include_failed: bool = False,
               include_non_scalar: bool = False) -> list[tuple[ResultKey, Metric]]:
        """One analyzer's metric over time (the input of anomaly detection), one entry per result key.

        By default only successful scalar metrics; results whose tags include ``tags`` all count, so pass
        the full tag set when parallel series share a dataset.
        """
        spec = analyzer_spec(analyzer)
        query = self.load().for_dataset(dataset).for_analyzers([spec])
        if tags:
            query = query.with_tag_values(tags)
        if after is not None:
            query = query.after(after)
        if before is not None:
            query = query.before(before)
        out: list[tuple[ResultKey, Metric]] = []
        for result in query.get():
            metric = result.metric(spec)
            if metric is None:
                continue
            scalar = isinstance(metric.value, float)
            if (include_failed if not metric.ok else (scalar or include_non_scalar)):
                out.append((result.key, metric))
        return out

    def datasets(self) -> list[str]:
        """Names of the datasets that have at least one saved result."""
        return sorted(unquote(d.name[len(PARTITION_PREFIX):]) for d in self._dataset_dirs() if self._files(d))

    def read_rows(self, f: QueryFilter) -> list[dict[str, Any]]:
        """Rows matching ``f`` as dicts, latest save per key only (used by MetricsQuery; marker rows included).

        Filtered and deduplicated in Python on each file's rows: the repository is small (one row per metric),
        and building Arrow arrays or scalars from Python values imports pandas (0.5 s), a quarter of a history
        command's budget."""
        names = [f.dataset] if f.dataset is not None else self.datasets()
        return [row for n in names for row in self._read_dir(self.path / quote_dataset(n), f, n)[0]]

    def read_table(self, f: QueryFilter) -> pa.Table:
        """``read_rows`` as an Arrow table of ``SCHEMA``."""
        return pa.Table.from_pylist(self.read_rows(f), schema=SCHEMA)

    def spark_dataframe(self, spark: SparkSession, f: QueryFilter) -> DataFrame:
        """Rows matching ``f`` read by Spark, only from the selected datasets' directories."""
        from lakeindex.repository.spark_read import read_latest

        names = [f.dataset] if f.dataset is not None else self.datasets()
        dirs = [d for d in (self.path / quote_dataset(n) for n in names) if d.is_dir()]
        return read_latest(spark, dirs, names, f)

    def _dataset_dirs(self) -> list[Path]:
        try:
            entries = list(os.scandir(self.path))
        except FileNotFoundError:
            return []
        return [Path(e.path) for e in entries if e.name.startswith(PARTITION_PREFIX) and e.is_dir()]

    @staticmethod
    def _files(directory: Path, after: int | None = None, before: int | None = None) -> list[Path]:
        """Published data files of a dataset directory that may hold timestamps in [after, before]."""
        try:
            entries = list(os.scandir(directory))
        except (FileNotFoundError, NotADirectoryError):
            return []
        out = []
        for e in entries:
            if e.name.startswith((".", "_")) or not e.name.endswith(".parquet") or not e.is_file():
                continue
            span = _time_range(e.name)
            if span and ((after is not None and span[1] < after) or (before is not None and span[0] > before)):
                continue
            out.append(Path(e.path))
        return sorted(out)

    def _read_dir(self, directory: Path, f: QueryFilter,
                  dataset: str | None) -> tuple[list[dict[str, Any]], list[Path]]:
        """Latest-save rows of one directory (``dataset=None``: every dataset in it) and the files read.

        A file listed but gone when opened was compacted away meanwhile: list again.
        """
        def keep(row: dict[str, Any]) -> bool:
            ts = row["timestamp_ms"]
            return ((dataset is None or row["dataset"] == dataset)  # also guards against case-insensitive names
                    and (f.after is None or ts >= f.after) and (f.before is None or ts <= f.before))

        for _ in range(_LIST_ATTEMPTS):
            files = self._files(directory, f.after, f.before)
            if not files:
                return [], []
            try:
                rows = self._scan(files, keep)
            except FileNotFoundError:
                if all(p.exists() for p in files):
                    raise
                continue
            return _latest(rows, f), files
        raise RepositoryError(f"files under {directory} kept disappearing while being read "
                              f"({_LIST_ATTEMPTS} attempts); is a compaction looping?")

    @staticmethod
    def _scan(files: list[Path], keep: Callable[[dict[str, Any]], bool]) -> list[dict[str, Any]]:
        """The rows of the files for which ``keep`` is true, in file order, each with a ``_file`` key naming
        its source file."""
        rows = []
        try:
            for p in files:
                source = str(p)
                for row in _read_file(p).to_pylist():
                    if keep(row):
                        row["_file"] = source
                        rows.append(row)
        except FileNotFoundError:
            raise
        except (pa.ArrowException, OSError) as exc:
            raise _unreadable(files, exc) from exc
        return rows

    # ---- maintenance ---------------------------------------------------------------------------------
    def gc_temp(self, older_than_s: float = 3600) -> list[str]:
        """Delete temp files of crashed writers older than ``older_than_s`` seconds; return their paths."""
        if older_than_s < 0:
            raise ValueError(f"older_than_s must be >= 0, got {older_than_s}")
        cutoff = time.time() - older_than_s
        removed = []
        for directory in self._dataset_dirs():
            for e in os.scandir(directory):
                try:
                    if e.name.startswith(TEMP_PREFIX) and e.is_file() and e.stat().st_mtime <= cutoff:
                        os.unlink(e.path)
                        removed.append(e.path)
                except FileNotFoundError:  # its writer published or removed it meanwhile
                    continue
        return sorted(removed)

    def compact(self, dataset: str) -> str | None:
        """Rewrite a dataset's files as one file (latest saves only, original write times kept).

        Returns the new file's path, or None when there was at most one file. Safe with concurrent writers
        (files published meanwhile are kept) and readers (see the module docstring).
        """
        directory = self.path / quote_dataset(dataset)
        rows, files = self._read_dir(directory, QueryFilter(), None)  # every dataset sharing the directory
        if len(files) <= 1:
            return None
        rows.sort(key=lambda r: r["timestamp_ms"])  # stable: save order kept
        table = pa.Table.from_pylist(rows, schema=SCHEMA)
        lo, hi = rows[0]["timestamp_ms"], rows[-1]["timestamp_ms"]
        new = self._publish(directory, f"compact-{lo}-{hi}-{uuid.uuid4().hex}.parquet", table)
        for p in files:
            p.unlink(missing_ok=True)
        if self.fsync:
            fsync_dir(directory)
        return str(new)


def _latest(rows: list[dict[str, Any]], f: QueryFilter) -> list[dict[str, Any]]:
    """Keep the rows of the latest save of each key passing the tag filter, each save from one file only
    (``_file`` dropped)."""
    tags_ok: dict[str, bool] = {}
    best: dict[tuple[str, int, str], tuple[int, str, str]] = {}
    for r in rows:
        tj = r["tags_json"]
        if tj not in tags_ok:
            tags_ok[tj] = f.matches_tags(json.loads(tj))
        if not tags_ok[tj]:
            continue
        key, cand = (r["dataset"], r["timestamp_ms"], tj), (r["written_at_ns"], r["write_id"], r["_file"])
        if key not in best or cand > best[key]:
            best[key] = cand
    winners = {(w, p) for _, w, p in best.values()}
    wanted = f.analyzers
    out = []
    for r in rows:
        if (r["write_id"], r.pop("_file")) in winners and (
                wanted is None or r["analyzer"] in wanted or r["name"] in wanted):
            out.append(r)
    return out


def _read_file(path: Path) -> pa.Table:
    """One metrics file in ``SCHEMA`` (a column a file lacks is null, as a dataset scan with the schema gives)."""
    with pq.ParquetFile(str(path)) as pf:
        table = pf.read()
    if table.schema.equals(SCHEMA, check_metadata=False):
        return table
    n = table.num_rows
    return pa.Table.from_arrays([table[f.name].cast(f.type) if f.name in table.column_names else pa.nulls(n, f.type)
                                 for f in SCHEMA], schema=SCHEMA)


def _unreadable(files: list[Path], exc: Exception) -> RepositoryError:
    """An error naming the first file that cannot be read on its own (or all files, if none fails alone)."""
    for p in files:
        try:
            _read_file(p)
        except FileNotFoundError:
            continue
        except (pa.ArrowException, OSError) as file_exc:
            return RepositoryError(f"cannot read metrics file {p}: {file_exc}")
    return RepositoryError(f"cannot read metrics files under {files[0].parent}: {exc}")
