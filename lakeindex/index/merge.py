"""Merging indexes: key-wise sums of (impurity units, coverage), streamed in key order.

Merging is exact when every input keeps its tail (the patterns under its coverage floor, which builds
keep: ``tail_patterns`` in its metadata) or was built with ``--min-coverage 1``: every statistic is an integer
sum over columns. An input that dropped what was under its floor contributes nothing for those patterns,
so merged statistics are lower bounds for them (and the result keeps no tail); the merged floor is the
larger one.
"""

from __future__ import annotations

import heapq
import time
from collections.abc import Iterator
from pathlib import Path

from lakeindex.index.format import IMPURITY_SCALE, unpack
from lakeindex.index.store import IndexReader, IndexUnusable, VersionBuilder, read_meta, write_split_ssts
from lakeindex.patterns.enumerate import EnumerationLimits

SST_KEYS = 2_000_000


def merge_streams(*streams: Iterator[tuple[bytes, bytes]],
                  minus: tuple[Iterator[tuple[bytes, bytes]], ...] = ()) -> Iterator[tuple[bytes, int, int]]:
    """Merge sorted (key, packed) streams into sorted (key, impurity units, coverage) sums; the ``minus``
    streams are taken out. A key whose coverage comes to 0 is gone; a negative sum is an error."""
    signed = [((k, v, 1) for k, v in s) for s in streams] + [((k, v, -1) for k, v in s) for s in minus]
    merged = heapq.merge(*signed, key=lambda kv: kv[0])
    cur_key: bytes | None = None
    imp = cov = 0
    for key, value, sign in merged:
        i, c = unpack(value)
        if key == cur_key:
            imp += sign * i
            cov += sign * c
            continue
        if cur_key is not None and cov:
            yield _checked(cur_key, imp, cov)
        cur_key, imp, cov = key, sign * i, sign * c
    if cur_key is not None and cov:
        yield _checked(cur_key, imp, cov)


def _checked(key: bytes, imp: int, cov: int) -> tuple[bytes, int, int]:
    if imp < 0 or cov < 0 or imp > cov * IMPURITY_SCALE:
        raise IndexUnusable(f"taking tables out of the index left impossible sums for {key.decode(errors='replace')!r} "
                          f"({imp} impurity units over {cov} columns): the tables were not in it as recorded")
    return key, imp, cov


def merged_meta(metas: list[dict], min_coverage: int, minus: list[dict] = ()) -> dict:
    """Metadata of a merged index: sums of scan counters (less those of the ``minus`` indexes' tables),
    union of skips, list of sources."""
    # limits written before a knob existed read as the values they were built with
    full = [EnumerationLimits.complete(m["limits"]) for m in metas]
    limits = {json_key(d) for d in full}
    if len(limits) > 1:
        raise IndexUnusable("cannot merge indexes built with different enumeration limits: "
                          + "; ".join(sorted(limits)) + " — rebuild them with the same --tau/limits")
    out: dict = {"limits": full[0], "min_coverage": min_coverage,
                 "impurity_scale": metas[0]["impurity_scale"], "built_at": _now(), "sources": []}
    for key in ("tables_scanned", "columns_scanned", "cells_scanned", "values_scanned", "rows_scanned",
                "bytes_scanned", "files_skipped", "issues_total"):
        out[key] = sum(m.get(key, 0) for m in metas) - sum(m.get(key, 0) for m in minus)
    # an incremental build lists the lake again: its skips repeat the index's
    out["skipped_files"] = list({(s["file"], s["reason"]): s for m in metas for s in m.get("skipped_files", [])}
                                .values())
    out["files_skipped"] = len(out["skipped_files"])
    out["issues"] = [s for m in metas for s in m.get("issues", [])][:1000]
    for m in metas:
        out["sources"].extend(m.get("sources") or [{"lake": m.get("lake"), "version": m.get("version"),
                                                   "built_at": m.get("built_at")}])
    out["lake"] = ", ".join(dict.fromkeys(str(m.get("lake")) for m in metas))
    return out


def json_key(d: dict) -> str:
    return ",".join(f"{k}={d[k]}" for k in sorted(d))


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def merge_indexes(inputs: list[Path | str], out: Path | str, min_coverage: int | None = None,
                  subtract: list[Path | str] = ()) -> dict:
    """Merge indexes into a new version of ``out`` (published atomically); return its metadata. The
    ``subtract`` indexes are taken out of the first input: they hold old states of some of its tables (an
    incremental build's), whose names then belong to the other inputs."""
    t0 = time.time()
    readers = [IndexReader(p) for p in inputs]
    minus = [IndexReader(p) for p in subtract]
    try:
        gone = {str(t["table"]) for r in minus for t in r.tables()}
        # each table keeps the lake it came from, so a later merge can still tell overlapping inputs apart
        tables = [{**t, "lake": t.get("lake", r.meta.get("lake"))} for i, r in enumerate(readers) for t in r.tables()
                  if i or str(t["table"]) not in gone]
        refuse_double_counting(inputs, readers, gone)
        floor = min_coverage if min_coverage is not None else max(r.meta["min_coverage"] for r in readers)
        meta = merged_meta([r.meta for r in readers], floor, [r.meta for r in minus])
        # sums are exact when every input kept what is under its floor (its tail), or had no floor
        exact = all(r.keeps_tail or r.meta["min_coverage"] <= 1 for r in readers + minus)
        builder = VersionBuilder(out)
        try:
            stream = merge_streams(*(r.items() for r in readers), *(r.tail_items() for r in readers),
                                   minus=tuple(s for r in minus for s in (r.items(), r.tail_items())))
            while True:
                chunk = _take(stream, SST_KEYS)
                if not chunk:
                    break
                write_split_ssts(builder.new_sst_path(), builder.new_sst_path(tail=True), chunk, floor)
            meta["build_seconds"] = round(time.time() - t0, 3)
            builder.publish(meta, tables, keeps_tail=exact)
        except BaseException:
            builder.abort()
            raise
    finally:
        for r in readers + minus:
            r.close()
    return read_meta(out)


def refuse_double_counting(inputs: list[Path | str], readers: list[IndexReader], gone: set[str] = frozenset()) -> None:
    """Refuse inputs that are the same index or share an indexed table: a merge adds statistics, so the
    shared columns would count twice and every FPR and coverage would be wrong without any sign of it."""
    where: dict[str, int] = {}
    for i, p in enumerate(inputs):
        real = str(Path(p).resolve())
        if real in where:
            raise IndexUnusable(f"index {p} is given twice (inputs {where[real] + 1} and {i + 1}): a merge adds "
                              "statistics, so its columns would count twice")
        where[real] = i
    owner: dict[tuple[str, str], int] = {}
    for i, r in enumerate(readers):
        lake = str(r.meta.get("lake"))
        shared = []
        for t in r.tables():
            if i == 0 and str(t["table"]) in gone:  # taken out of the first input by the merge
                continue
            key = (str(t.get("lake", lake)), str(t["table"]))
            if owner.setdefault(key, i) != i:
                shared.append(key)
        if shared:
            first = owner[shared[0]]
            raise IndexUnusable(f"indexes {inputs[first]} and {inputs[i]} both index {len(shared)} of the same "
                              f"tables (e.g. {shared[0][1]} of lake {shared[0][0]}): a merge adds statistics, "
                              "so their columns would count twice. Merge indexes of disjoint lakes or tables "
                              "(index build --incremental extends an index with new tables only)")


def _take(it: Iterator, n: int) -> list:
    out = []
    for x in it:
        out.append(x)
        if len(out) >= n:
            break
    return out
