"""Atomic publication of files and directories: all or nothing, fsynced unless asked not to."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from lakeindex import atomic_publish
from lakeindex.atomic_publish import publish_directory, write_atomically
from lakeindex.metrics import FileSystemStateStore
from lakeindex.metrics.states import SumCount


@pytest.fixture
def fsyncs(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Record every os.fsync call (and still perform it)."""
    calls: list[int] = []
    real = os.fsync

    def spy(fd: int) -> None:
        calls.append(fd)
        real(fd)

    monkeypatch.setattr(atomic_publish.os, "fsync", spy)
    return calls


def test_bytes_text_and_writer_callables_are_published(tmp_path: Path, fsyncs: list[int]) -> None:
    assert write_atomically(tmp_path / "a.bin", b"\x00\x01") == tmp_path / "a.bin"
    write_atomically(tmp_path / "b.txt", "größe\n")
    write_atomically(tmp_path / "c.bin", lambda fh: fh.write(b"streamed"))
    assert (tmp_path / "a.bin").read_bytes() == b"\x00\x01"
    assert (tmp_path / "b.txt").read_bytes() == "größe\n".encode()
    assert (tmp_path / "c.bin").read_bytes() == b"streamed"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.bin", "b.txt", "c.bin"]  # no temp file left
    assert len(fsyncs) == 6  # each file and its directory


def test_a_failed_write_keeps_the_old_file_and_leaves_no_temp(tmp_path: Path) -> None:
    target = tmp_path / "CURRENT"
    write_atomically(target, "v-1")

    def fail(fh: object) -> None:
        fh.write(b"half")  # type: ignore[attr-defined]
        raise RuntimeError("disk full")

    with pytest.raises(RuntimeError, match="disk full"):
        write_atomically(target, fail, temp_name=".CURRENT.v-2")
    assert target.read_text() == "v-1"
    assert [p.name for p in tmp_path.iterdir()] == ["CURRENT"]


def test_fsync_can_be_turned_off(tmp_path: Path, fsyncs: list[int]) -> None:
    write_atomically(tmp_path / "x", b"1", fsync=False)
    assert fsyncs == [] and (tmp_path / "x").read_bytes() == b"1"


def test_publish_directory_renames_and_syncs_the_parent(tmp_path: Path, fsyncs: list[int]) -> None:
    (tmp_path / ".tmp-1").mkdir()
    (tmp_path / ".tmp-1" / "meta.json").write_text("{}")
    assert publish_directory(tmp_path / ".tmp-1", tmp_path / "v-1") == tmp_path / "v-1"
    assert (tmp_path / "v-1" / "meta.json").read_text() == "{}" and not (tmp_path / ".tmp-1").exists()
    assert len(fsyncs) == 1


def test_state_store_saves_are_fsynced(tmp_path: Path, fsyncs: list[int]) -> None:
    store = FileSystemStateStore(tmp_path)
    store.save("Sum(column='x')", SumCount(3.0, 2))
    assert len(fsyncs) == 4  # state.json and CURRENT, each with its directory
    assert store.load("Sum(column='x')") == SumCount(3.0, 2)
    assert not [p for p in tmp_path.rglob(".*")]  # no temp files left
