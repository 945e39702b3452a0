"""The code Spark executors run: lakeindex as a ``.zip`` they can import, and the few packages they need.

Executors unpickle the index build's scan and SST writer (``mapInArrow`` bodies) and the lake tagger, so
their Python must import ``lakeindex``. pyspark puts only ``.zip``, ``.egg`` and ``.jar`` py-files on an
executor's ``sys.path`` (a wheel given to ``--py-files`` is copied but never importable), so the package
ships as a zip of its sources: ``lakeindex package --out dist`` writes it, ``spark-submit --py-files`` takes
it, and a session the library starts against a cluster or a Spark Connect server ships it by itself
(:func:`lakeindex.spark_session.ship_code`, from :func:`cached_zip`). Beside pyspark, which the Spark
distribution provides, executors need only :data:`EXECUTOR_PACKAGES`; their version floors come from this
package's own metadata (one place: ``pyproject.toml``).
"""

from __future__ import annotations

import hashlib
import os
import tempfile
import zipfile
from importlib.metadata import PackageNotFoundError, requires
from pathlib import Path
from typing import Any, BinaryIO

import lakeindex
from lakeindex.atomic_publish import write_atomically

# what the executor-side code imports (measured: a cluster whose executors' venv holds exactly these
# builds the index identically; see bench/cluster_build.py)
EXECUTOR_PACKAGES = ("pyarrow", "rocksdict", "numpy", "pandas")
FIXED_TIME = (1980, 1, 1, 0, 0, 0)  # zip entries carry no build time: the same sources give the same bytes


def _sources() -> list[tuple[Path, str]]:
    root = Path(lakeindex.__file__).resolve().parent
    out = []
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root.parent).as_posix()
        if "__pycache__" not in rel:
            out.append((path, rel))
    return out


def package_zip(out_dir: str | Path) -> Path:
    """Write ``lakeindex-<version>.zip`` (the package's sources, reproducible bytes) into ``out_dir``.

    Published atomically (a reader never sees half a zip), with the mode of any new file (0666 less the
    umask: 0644 usually), so the other accounts a cluster runs under can read it.
    """
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)

    def write(fh: BinaryIO) -> None:
        with zipfile.ZipFile(fh, "w", zipfile.ZIP_DEFLATED) as zf:
            for path, rel in _sources():
                info = zipfile.ZipInfo(rel, FIXED_TIME)
                info.compress_type = zipfile.ZIP_DEFLATED
                info.external_attr = 0o644 << 16
                zf.writestr(info, path.read_bytes())

    return write_atomically(out_dir / f"lakeindex-{lakeindex.__version__}.zip", write)


def executor_requirements() -> list[str]:
    """Requirement lines for the executors' Python (``pip install -r``): :data:`EXECUTOR_PACKAGES` with the
    floors this installation of lakeindex declares."""
    try:
        declared = requires("lakeindex") or []
    except PackageNotFoundError:  # running from a source tree that is not installed
        declared = []
    lines = []
    for name in EXECUTOR_PACKAGES:
        spec = next((r.split(";")[0].strip() for r in declared
                     if r.split(";")[0].strip().lower().startswith(name) and "extra ==" not in r), name)
        lines.append(spec)
    return lines


def write_package(out_dir: str | Path) -> dict[str, Any]:
    """The zip and an ``executor-requirements.txt`` beside it; what ``lakeindex package`` prints."""
    zpath = package_zip(out_dir)
    needs = executor_requirements()
    req = write_atomically(Path(out_dir) / "executor-requirements.txt", "\n".join(needs) + "\n")
    with zipfile.ZipFile(zpath) as zf:
        files = len(zf.namelist())
    return {"zip": str(zpath), "executor_requirements": str(req), "files": files, "bytes": zpath.stat().st_size,
            "spark_submit": f"spark-submit --py-files {zpath} indexer_jobs/build_index.py LAKE --out INDEX",
            "executors_need": needs}


def code_digest() -> str:
    """A digest of this installation's sources (names and bytes): equal digests mean the same code."""
    digest = hashlib.sha256()
    for path, rel in _sources():
        digest.update(rel.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def code_root() -> Path:
    """The directory holding the ``lakeindex`` package: on a Python worker's path, it imports this code."""
    return Path(lakeindex.__file__).resolve().parent.parent


def cached_zip() -> Path:
    """This installation's zip in a per-user cache, keyed by the sources' digest (rebuilt when they change)."""
    cache = Path(os.environ.get("LAKEINDEX_CACHE", Path(tempfile.gettempdir()) / f"lakeindex-{os.getuid()}"))
    target_dir = cache / f"code-{code_digest()[:16]}"
    target = target_dir / f"lakeindex-{lakeindex.__version__}.zip"
    return target if target.exists() else package_zip(target_dir)
