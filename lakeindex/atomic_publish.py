"""Atomic, durable publication of files and directories: write under a temporary name, then rename.

A file is written to a dot-named temporary file in its final directory (so the rename never crosses a
filesystem), flushed and fsynced, then ``os.replace`` publishes it: a reader sees the old file or the
whole new one, never a partial write. The directory is fsynced afterwards so the new entry survives a
crash. Used by the metrics repository, the analyzer state store and the pattern index's ``CURRENT``
pointer and version directories.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO

Content = bytes | str | Callable[[BinaryIO], object]


def fsync_dir(path: str | os.PathLike[str]) -> None:
    """Flush a directory's entries to disk; best effort: skipped where directories cannot be opened or synced."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:  # not supported on this platform (Windows)
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def write_atomically(path: str | os.PathLike[str], content: Content, *, temp_name: str | None = None,
                     fsync: bool = True, encoding: str = "utf-8") -> Path:
    """Write ``content`` (bytes, text, or a callable writing to a binary file) to ``path`` all-or-nothing.

    The temporary file is ``temp_name`` (default ``.tmp-<uuid>-<name>``) in ``path``'s directory, which must
    exist; it is removed when writing fails. ``fsync=False`` skips both fsyncs (atomic, not durable).
    """
    final = Path(path)
    tmp = final.with_name(temp_name or f".tmp-{uuid.uuid4().hex}-{final.name}")
    try:
        with open(tmp, "wb") as fh:
            if isinstance(content, str):
                fh.write(content.encode(encoding))
            elif isinstance(content, bytes | bytearray | memoryview):
                fh.write(content)
            else:
                content(fh)
            fh.flush()
            if fsync:
                os.fsync(fh.fileno())
        os.replace(tmp, final)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    if fsync:
        fsync_dir(final.parent)
    return final


def publish_directory(tmp_dir: str | os.PathLike[str], final: str | os.PathLike[str], *, fsync: bool = True) -> Path:
    """Rename a fully written directory to its final name (same parent) and fsync the parent directory."""
    final = Path(final)
    os.rename(tmp_dir, final)
    if fsync:
        fsync_dir(final.parent)
    return final
