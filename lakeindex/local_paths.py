"""Paths the library reads and writes with Python's own file operations must be local (or mounted).

Pattern indexes (RocksDB), metrics repositories, state stores and checks files are opened with local file
operations; ``Path("s3://bucket/repo")`` would silently be a local directory named ``s3:``. Such a URI is
refused with advice instead. Lakes and datasets are different: Spark reads them, through Hadoop's file
systems (``s3a://``, ``abfss://``, ``gs://`` with their connectors on the classpath).
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from urllib.parse import unquote, urlparse

URI = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*)://")


class LocalPathError(ValueError):
    """A URI given where a local path is needed."""


def local_path(value: str | os.PathLike[str], what: str) -> Path:
    """``value`` as a local Path (``file://`` URIs unwrapped); a URI of another scheme raises LocalPathError."""
    text = os.fspath(value)
    m = URI.match(text)
    if m is None:
        return Path(text)
    scheme = m.group(1).lower()
    if scheme == "file":
        return Path(unquote(urlparse(text).path))
    raise LocalPathError(f"{what} {text}: a {scheme}:// URI, but a {what} is read and written with local file "
                         "operations. Give a local directory, or mount the store (s3fs, gcsfuse, blobfuse2) and "
                         "give the mount's path")
