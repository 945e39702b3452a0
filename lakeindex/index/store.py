"""Index directories: versioned RocksDB databases behind an atomically swapped ``CURRENT`` pointer.

Layout of an index path::

    INDEX/CURRENT            name of the live version (replaced atomically with os.replace)
    INDEX/v-<id>/meta.json   build metadata
    INDEX/v-<id>/tables.jsonl  tables indexed (for incremental builds)
    INDEX/v-<id>/db/         RocksDB database (keys: canonical patterns)
    INDEX/v-<id>/tail/       the patterns under the coverage floor, so that added indexes sum exactly
    INDEX/.tmp-<id>/         a build in progress: never read; removed when its builder is gone

A reader never sees a half-built index and a failed build leaves ``CURRENT`` untouched. The
previous version is kept so that readers holding it (the query service) can finish.
"""

from __future__ import annotations

import errno
import json
import os
import re
import shutil
import tempfile
import time
import uuid
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import cast

from rocksdict import AccessType, IngestExternalFileOptions, Rdict, SstFileWriter

from lakeindex.atomic_publish import publish_directory, write_atomically
from lakeindex.index.format import BLOCK_CACHE_BYTES, FORMAT_VERSION, fpr, pack, rocksdb_options, unpack
from lakeindex.local_paths import local_path

CURRENT = "CURRENT"
TAIL = "tail"  # a version's database of the patterns under its coverage floor
KEEP_VERSIONS = 2


class IndexUnusable(RuntimeError):
    """An index path that is missing, unreadable or of another format."""


@dataclass(frozen=True)
class PatternStats:
    """Index entry of one pattern: FPR_T(p) and Cov_T(p), plus the raw impurity units."""

    pattern: str
    fpr: float
    coverage: int
    impurity_units: int

    def to_dict(self) -> dict:
        return {"pattern": self.pattern, "fpr": self.fpr, "coverage": self.coverage}


def decode_stats(pattern: str, packed: bytes | None) -> PatternStats | None:
    """The statistics a packed index value holds (None for an absent pattern)."""
    if packed is None:
        return None
    imp, cov = unpack(packed)
    return PatternStats(pattern, fpr(imp, cov), cov, imp)


class SstSink:
    """An SST file written key by key in ascending order, created on the first key."""

    def __init__(self, path: Path | str) -> None:
        self.path = str(path)
        self.keys = 0
        self._writer: SstFileWriter | None = None
        self._prev: bytes | None = None

    def add(self, key: bytes, value: bytes) -> None:
        if self._writer is None:
            self._writer = SstFileWriter(options=rocksdb_options())
            self._writer.open(self.path)
        elif key <= cast(bytes, self._prev):
            raise ValueError(f"SST keys out of order: {self._prev!r} then {key!r}")
        self._writer[key] = value
        self._prev = key
        self.keys += 1

    def finish(self) -> int:
        """Close the file; return its number of keys (0: no file was written)."""
        if self._writer is not None:
            self._writer.finish()
        return self.keys


def write_sst(path: Path | str, items: Iterable[tuple[bytes, bytes]]) -> int:
    """Write ascending (key, value) pairs to an SST file; return the number of keys (0: no file)."""
    sink = SstSink(path)
    for key, value in items:
        sink.add(key, value)
    return sink.finish()


def write_split_ssts(index_path: Path | str, tail_path: Path | str, sums: Iterable[tuple[bytes, int, int]],
                     floor: int) -> tuple[int, int]:
    """Write ascending (key, impurity units, coverage) sums to two SST files: the patterns at or above the
    coverage floor (the index) and those under it (the tail, kept so that sums stay exact when indexes
    are added together); return the key counts of each."""
    index, tail = SstSink(index_path), SstSink(tail_path)
    for key, imp, cov in sums:
        (index if cov >= floor else tail).add(key, pack(imp, cov))
    return index.finish(), tail.finish()


class VersionBuilder:
    """A new index version being built in a private temporary directory."""

    def __init__(self, index_path: Path | str) -> None:
        self.index_path = local_path(index_path, "index")
        self.index_path.mkdir(parents=True, exist_ok=True)
        collect_garbage(self.index_path)
        self.version = "v-" + time.strftime("%Y%m%dT%H%M%S") + "-" + uuid.uuid4().hex[:8]
        self.tmp = self.index_path / (".tmp-" + self.version[2:])
        self.tmp.mkdir()
        (self.tmp / "builder.pid").write_text(str(os.getpid()))
        self.sst_dir = self.tmp / "sst"
        self.sst_dir.mkdir()
        self._sst_files: list[Path] = []
        self._tail_files: list[Path] = []

    def new_sst_path(self, tail: bool = False) -> Path:
        """Path for the next SST file of the index, or of its tail (patterns under the coverage floor),
        ingested by :meth:`publish`."""
        files = self._tail_files if tail else self._sst_files
        p = self.sst_dir / f"{'t' if tail else ''}{len(files):06d}.sst"
        files.append(p)
        return p

    def publish(self, meta: dict, tables: Iterable[dict] = (), keeps_tail: bool = False) -> Path:
        """Ingest the SST files, write metadata, then atomically make this version current. ``keeps_tail``:
        the tail SST files hold every pattern under the floor (``tail_patterns`` in the metadata), so
        indexes added to this one (incremental builds, merges) keep exact sums."""
        db_path = self.tmp / "db"
        meta = dict(meta, format_version=FORMAT_VERSION, version=self.version,
                    patterns=_ingest(db_path, self._sst_files))
        meta.pop("tail_patterns", None)
        if keeps_tail:
            meta["tail_patterns"] = _ingest(self.tmp / TAIL, self._tail_files) if self._tail_files else 0
        shutil.rmtree(self.sst_dir, ignore_errors=True)
        meta["index_bytes"] = _dir_size(db_path)
        with open(self.tmp / "tables.jsonl", "w") as f:
            for t in tables:
                f.write(json.dumps(t, sort_keys=True) + "\n")
        (self.tmp / "meta.json").write_text(json.dumps(meta, indent=2, sort_keys=True))
        (self.tmp / "builder.pid").unlink()
        final = self.index_path / self.version
        publish_directory(self.tmp, final)
        write_atomically(self.index_path / CURRENT, self.version + "\n", temp_name=f".{CURRENT}.{self.version}")
        collect_garbage(self.index_path)
        return final

    def abort(self) -> None:
        """Remove the temporary directory; the current version is untouched."""
        shutil.rmtree(self.tmp, ignore_errors=True)


def _pairs(db: Rdict) -> Iterator[tuple[bytes, bytes]]:
    """A database's (key, value) pairs in key order."""
    it = db.iter()
    it.seek_to_first()
    while it.valid():
        yield it.key(), it.value()
        it.next()
    it.status()  # an iteration that stopped on a bad block is an error, not the end of the index


def _ingest(db_path: Path, sst_files: list[Path]) -> int:
    """Create the RocksDB database at ``db_path`` from SST files (moved in); return its key count."""
    db = Rdict(str(db_path), options=rocksdb_options())
    try:
        files = [str(p) for p in sst_files if p.exists() and p.stat().st_size > 0]
        if files:
            ingest = IngestExternalFileOptions()
            ingest.set_move_files(True)
            db.ingest_external_file(files, ingest)
        return _count_keys(db)
    finally:
        db.close()


def _count_keys(db: Rdict) -> int:
    n = 0
    it = db.iter()
    it.seek_to_first()
    while it.valid():
        n += 1
        it.next()
    return n


def _dir_size(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def collect_garbage(index_path: Path) -> None:
    """Remove temp dirs of dead builders and versions older than the last ``KEEP_VERSIONS``."""
    for tmp in index_path.glob(".tmp-*"):
        pid_file = tmp / "builder.pid"
        try:
            pid = int(pid_file.read_text())
        except (OSError, ValueError):
            pid = -1
        if pid != os.getpid() and not (pid > 0 and _pid_alive(pid)):
            shutil.rmtree(tmp, ignore_errors=True)
    current = current_version(index_path)
    versions = sorted(p.name for p in index_path.glob("v-*") if p.is_dir())
    keep = set(versions[-KEEP_VERSIONS:]) | ({current} if current else set())
    for name in versions:
        if name not in keep:
            shutil.rmtree(index_path / name, ignore_errors=True)


def current_version(index_path: Path | str) -> str | None:
    """Name of the live version of an index, or None if it has none."""
    try:
        return (Path(index_path) / CURRENT).read_text().strip() or None
    except FileNotFoundError:
        return None


def resolve(index_path: Path | str) -> Path:
    """Directory of the live version; raise IndexUnusable with advice when there is none."""
    p = local_path(index_path, "index")
    if not p.exists():
        raise IndexUnusable(f"index {p} does not exist; build one with `lakeindex index build LAKE --out {p}`")
    if not p.is_dir():
        raise IndexUnusable(f"index {p} is a file, not an index directory; pass the directory given to "
                          "`lakeindex index build --out`")
    version = current_version(p)
    if version is None:
        raise IndexUnusable(f"{p} is not a lakeindex index (no {CURRENT} file); build one with "
                          f"`lakeindex index build LAKE --out {p}`")
    vdir = p / version
    if not (vdir / "meta.json").exists():
        raise IndexUnusable(f"index {p}: version {version} named in {CURRENT} is missing")
    return vdir


def read_meta(index_path: Path | str) -> dict:
    """Metadata of the live version of an index (no database is opened)."""
    return json.loads((resolve(index_path) / "meta.json").read_text())


_NOT_LINKED = frozenset({"LOCK", "LOG", "rocksdict-config.json"})  # written on open: private copies


def _shadow_dir(db_dir: Path) -> str:
    """A private directory of symlinks to a read-only database's files (written files copied)."""
    shadow = tempfile.mkdtemp(prefix="lakeindex-ro-")
    for entry in os.scandir(db_dir):
        target = Path(shadow) / entry.name
        if entry.name == "rocksdict-config.json":
            shutil.copyfile(entry.path, target)
        elif entry.name not in _NOT_LINKED and not entry.name.startswith("LOG.old"):
            os.symlink(entry.path, target)
    return shadow


class IndexReader:
    """Read-only view of one index version; safe to share across threads."""

    def __init__(self, index_path: Path | str) -> None:
        self.path = local_path(index_path, "index")
        self.version_dir = resolve(self.path)
        self.meta = json.loads((self.version_dir / "meta.json").read_text())
        if self.meta.get("format_version") != FORMAT_VERSION:
            raise IndexUnusable(f"index {self.path} has format {self.meta.get('format_version')}; "
                              f"this lakeindex reads format {FORMAT_VERSION}: rebuild it")
        options = rocksdb_options(BLOCK_CACHE_BYTES)
        options.set_paranoid_checks(True)  # file sizes and the manifest checked on open, as RocksDB's paranoid mode
        self._shadow: str | None = None
        db_dir = self.version_dir / "db"
        with self._damage():
            try:
                self.db = Rdict(str(db_dir), options=options, access_type=AccessType.read_only())
            except OSError as exc:
                code = exc.errno or int((re.search(r"os error (\d+)", str(exc)) or [0, 0])[1])
                if code not in (errno.EROFS, errno.EACCES, errno.EPERM):
                    raise
                # rocksdict rewrites its config file on every open, even read-only: on a read-only mount
                # open a private directory of links to the database files instead
                self._shadow = _shadow_dir(db_dir)
                self.db = Rdict(self._shadow, options=options, access_type=AccessType.read_only())

    @contextmanager
    def _damage(self) -> Iterator[None]:
        """Turn RocksDB's corruption and I/O errors (a truncated or overwritten SST: block checksums are
        verified on every read) into a clear IndexUnusable naming the index and what to do."""
        try:
            yield
        except IndexUnusable:
            raise
        except Exception as exc:  # noqa: BLE001 - rocksdict raises plain Exception with RocksDB's status text
            text = str(exc)
            if not text.startswith(("Corruption", "IO error", "Invalid argument", "Not implemented")):
                raise
            raise IndexUnusable(f"index {self.path} is damaged ({text.splitlines()[0][:300]}); rebuild it with "
                              "`lakeindex index build`, or point CURRENT back at the previous version") from exc

    @property
    def version(self) -> str:
        return self.version_dir.name

    def lookup(self, patterns: list[str]) -> list[PatternStats | None]:
        """Stats of many patterns with one multi-get (None for patterns not in the index)."""
        return [decode_stats(p, v) for p, v in zip(patterns, self.lookup_raw(patterns), strict=True)]

    def lookup_raw(self, patterns: list[str]) -> list[bytes | None]:
        """Packed index values of many patterns (None where absent): what a cache can hold as bytes."""
        if not patterns:
            return []
        with self._damage():
            return cast(list[bytes | None], self.db[[p.encode() for p in patterns]])

    def get(self, pattern: str) -> PatternStats | None:
        return self.lookup([pattern])[0]

    def items(self) -> Iterator[tuple[bytes, bytes]]:
        """All (key, packed value) pairs in key order."""
        with self._damage():
            yield from _pairs(self.db)

    @property
    def keeps_tail(self) -> bool:
        """This version holds its patterns under the coverage floor too (its sums add exactly)."""
        return "tail_patterns" in self.meta

    def tail_items(self) -> Iterator[tuple[bytes, bytes]]:
        """The (key, packed value) pairs under the coverage floor, in key order (none if not kept)."""
        path = self.version_dir / TAIL
        if not path.exists():
            return
        with self._damage():
            db = Rdict(str(path), options=rocksdb_options(), access_type=AccessType.read_only())
            try:
                yield from _pairs(db)
            finally:
                db.close()

    def tables(self) -> list[dict]:
        """Tables indexed by this version (for incremental builds)."""
        path = self.version_dir / "tables.jsonl"
        if not path.exists():
            return []
        return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]

    def close(self) -> None:
        self.db.close()
        if self._shadow:
            shutil.rmtree(self._shadow, ignore_errors=True)

    def __enter__(self) -> IndexReader:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

