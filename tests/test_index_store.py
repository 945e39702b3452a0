"""Index format, versioned publishing, readers and merging (no Spark)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from lakeindex.index.format import IMPURITY_SCALE, fpr, impurity_units, pack, unpack
from lakeindex.index.merge import merge_indexes, merge_streams
from lakeindex.index.store import IndexReader, IndexUnusable, VersionBuilder, current_version, read_meta, write_sst

LIMITS = {"tau": 8, "max_subruns": 3, "max_constants": 2, "const_share": 16, "max_shapes": 256}


def publish(path: Path, entries: dict[str, tuple[int, int]], **meta) -> None:
    b = VersionBuilder(path)
    write_sst(b.new_sst_path(), ((k.encode(), pack(*v)) for k, v in sorted(entries.items())))
    b.publish({"limits": LIMITS, "min_coverage": 1, "impurity_scale": IMPURITY_SCALE, "lake": str(path), **meta})


@pytest.mark.parametrize("imp,cov", [(0, 1), (1, 1), (127, 128), (10**15, 7_200_000)])
def test_pack_round_trip(imp, cov):
    assert unpack(pack(imp, cov)) == (imp, cov)


def test_impurity_rounds_up_so_tiny_impurity_stays_visible():
    assert impurity_units(10_000_000, 9_999_999) == 1
    assert impurity_units(12, 12) == 0
    assert impurity_units(12, 10) == -(-2 * IMPURITY_SCALE // 12)


def test_example8_fpr_averaging(tmp_path):
    # 5000 columns match h5: 4800 with FPR 0, 200 with FPR 1% -> FPR_T = 0.04% (paper Example 8)
    units = sum(impurity_units(100, 100) for _ in range(4800)) + sum(impurity_units(100, 99) for _ in range(200))
    assert fpr(units, 5000) == pytest.approx(0.0004)
    publish(tmp_path / "ix", {"h5": (units, 5000)})
    with IndexReader(tmp_path / "ix") as ix:
        s = ix.get("h5")
        assert s.coverage == 5000 and s.fpr == pytest.approx(0.0004)
        assert ix.get("absent") is None


def test_new_version_swaps_atomically_and_old_reader_keeps_working(tmp_path):
    path = tmp_path / "ix"
    publish(path, {"a": (0, 3)})
    old = IndexReader(path)
    v1 = current_version(path)
    publish(path, {"a": (0, 5), "b": (1, 1)})
    assert current_version(path) != v1
    assert old.get("a").coverage == 3  # a reader of the previous version is unaffected
    with IndexReader(path) as new:
        assert new.get("a").coverage == 5 and new.get("b").coverage == 1
    old.close()


def test_killed_build_leaves_previous_index_untouched(tmp_path):
    path = tmp_path / "ix"
    publish(path, {"a": (0, 3)})
    before = current_version(path)
    script = f"""
import os, signal
from lakeindex.index.store import VersionBuilder, write_sst
from lakeindex.index.format import pack
b = VersionBuilder({str(path)!r})
write_sst(b.new_sst_path(), [(b"a", pack(0, 99))])
os.kill(os.getpid(), signal.SIGKILL)
"""
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True)
    assert proc.returncode == -9
    assert list(path.glob(".tmp-*")), "the killed build's temporary directory should be left behind"
    assert current_version(path) == before
    with IndexReader(path) as ix:
        assert ix.get("a").coverage == 3
    publish(path, {"a": (0, 4)})  # the next build removes the dead builder's leftovers
    assert not list(path.glob(".tmp-*"))


def test_reader_errors_are_clear(tmp_path):
    with pytest.raises(IndexUnusable, match="does not exist"):
        IndexReader(tmp_path / "nope")
    (tmp_path / "empty").mkdir()
    with pytest.raises(IndexUnusable, match="not a lakeindex index"):
        IndexReader(tmp_path / "empty")


def test_index_of_an_older_format_is_refused_with_advice(tmp_path):
    from lakeindex.index.format import FORMAT_VERSION

    publish(tmp_path / "ix", {"<digit>+": (0, 2)})
    meta_path = tmp_path / "ix" / current_version(tmp_path / "ix") / "meta.json"
    meta = json.loads(meta_path.read_text())
    # 2: <hex> keys; 3: segment windows of wide values; 4: windows of 2-3 words, hex-compatible words
    assert meta["format_version"] == FORMAT_VERSION == 4
    meta_path.write_text(json.dumps({**meta, "format_version": 3}))
    with pytest.raises(IndexUnusable, match="has format 3; this lakeindex reads format 4: rebuild it"):
        IndexReader(tmp_path / "ix")


def test_merge_adds_keywise(tmp_path):
    publish(tmp_path / "a", {"p": (10, 2), "q": (0, 1)}, tables_scanned=2)
    publish(tmp_path / "b", {"p": (5, 1), "r": (3, 3)}, tables_scanned=3)
    meta = merge_indexes([tmp_path / "a", tmp_path / "b"], tmp_path / "c", min_coverage=1)
    assert meta["tables_scanned"] == 5 and len(meta["sources"]) == 2
    with IndexReader(tmp_path / "c") as c:
        got = {k.decode(): unpack(v) for k, v in c.items()}
    assert got == {"p": (15, 3), "q": (0, 1), "r": (3, 3)}
    merge_indexes([tmp_path / "a", tmp_path / "b"], tmp_path / "d", min_coverage=2)
    with IndexReader(tmp_path / "d") as d:
        assert {k.decode() for k, _ in d.items()} == {"p", "r"}


def test_merge_streams_is_sorted_and_summed():
    a = [(b"a", pack(1, 1)), (b"c", pack(2, 2))]
    b = [(b"b", pack(3, 3)), (b"c", pack(4, 4))]
    assert list(merge_streams(iter(a), iter(b))) == [(b"a", 1, 1), (b"b", 3, 3), (b"c", 6, 6)]


def test_merge_refuses_different_limits(tmp_path):
    publish(tmp_path / "a", {"p": (0, 1)})
    a_version = current_version(tmp_path / "a")
    b = VersionBuilder(tmp_path / "b")
    write_sst(b.new_sst_path(), [(b"p", pack(0, 1))])
    b.publish({"limits": {**LIMITS, "tau": 13}, "min_coverage": 1, "impurity_scale": IMPURITY_SCALE})
    with pytest.raises(IndexUnusable, match="different enumeration limits") as err:
        merge_indexes([tmp_path / "a", tmp_path / "b"], tmp_path / "c")
    # the message names both limit sets (keys sorted, as written out by hand here) and the fix
    message = str(err.value)
    assert "const_share=16,max_constants=2,max_shapes=256,max_subruns=3,tau=8" in message
    assert "const_share=16,max_constants=2,max_shapes=256,max_subruns=3,tau=13" in message
    assert "rebuild them with the same --tau/limits" in message
    # nothing was published at the output, and the inputs are untouched
    assert current_version(tmp_path / "c") is None
    assert not (tmp_path / "c").exists() or not any((tmp_path / "c").iterdir())
    assert current_version(tmp_path / "a") == a_version
    assert read_meta(tmp_path / "a")["limits"] == LIMITS
    assert read_meta(tmp_path / "b")["limits"]["tau"] == 13
    with IndexReader(tmp_path / "a") as ix:
        assert ix.get("p").coverage == 1
    # control: the same inputs with equal limits do merge, so the refusal above is about the limits
    publish(tmp_path / "b8", {"p": (0, 1)})
    merged = merge_indexes([tmp_path / "a", tmp_path / "b8"], tmp_path / "c")
    # inputs written before ``wide_templates`` existed were built with the whole budget (8,192) for
    # every shape, and before ``window_share``/``window_lead`` with windows at the column's evidence share
    # (min_share, 16 by default) and none led by a delimiter; the merged index says so
    assert merged["limits"] == {**LIMITS, "wide_templates": 8192, "window_share": 16, "window_lead": 0}
    with IndexReader(tmp_path / "c") as ix:
        assert ix.get("p").coverage == 2


def publish_tables(path: Path, lake: str, tables: list[str]) -> None:
    b = VersionBuilder(path)
    write_sst(b.new_sst_path(), [(b"p", pack(0, len(tables)))])
    b.publish({"limits": LIMITS, "min_coverage": 1, "impurity_scale": IMPURITY_SCALE, "lake": lake},
              [{"table": t, "bytes": 1} for t in tables])


def test_merge_refuses_to_count_an_index_twice(tmp_path):
    publish_tables(tmp_path / "a", "/lakes/one", ["t1.csv", "t2.csv"])
    publish_tables(tmp_path / "b", "/lakes/two", ["t1.csv"])  # same table name, another lake: disjoint
    publish_tables(tmp_path / "b2", "/lakes/one", ["t3.csv"])  # the same lake, other tables: disjoint
    with pytest.raises(IndexUnusable, match="given twice"):
        merge_indexes([tmp_path / "a", tmp_path / "a"], tmp_path / "out")
    shutil.copytree(tmp_path / "a", tmp_path / "copy")
    with pytest.raises(IndexUnusable, match=r"both index 2 of the same tables \(e.g. t1.csv of lake /lakes/one\)"):
        merge_indexes([tmp_path / "a", tmp_path / "copy"], tmp_path / "out")
    merge_indexes([tmp_path / "a", tmp_path / "b", tmp_path / "b2"], tmp_path / "ab")
    with IndexReader(tmp_path / "ab") as ab:  # p's coverage: 2 + 1 + 1 tables, each counted once
        assert ab.get("p").coverage == 4
    # the merged index remembers each table's lake: merging it with one of its parts again is refused too
    with pytest.raises(IndexUnusable, match=r"both index 1 of the same tables \(e.g. t1.csv of lake /lakes/two\)"):
        merge_indexes([tmp_path / "ab", tmp_path / "b"], tmp_path / "out")
    assert current_version(tmp_path / "out") is None  # nothing published by the refused merges
