"""Wide/composite column generator (sample_lake/wide.py) and the lake's --wide-share extension; no Spark."""

from __future__ import annotations

import csv
import json
import random
import re
from datetime import datetime
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from sample_lake.generate import SPECIAL_TOKENS, generate_lake, main, plan_wide_tables, wide_answer_key
from sample_lake.wide import (
    BASE_SINGLES,
    KINDS,
    LAKE_POOL,
    Grammar,
    draw_grammars,
    held_out_grammars,
    lake_grammar_keys,
    lake_grammars,
)

COMMITTED = Path(__file__).resolve().parents[1] / "sample_lake" / "tables"

# Hand-written regexes of every piece, independent of the generator's code.
HEX_UUID = r"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}"
UP_UUID = HEX_UUID.replace("a-f", "A-F").replace("[89ab]", "[89AB]")
DATE_TIME = r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}"
OFFSET = r"[+-]\d{2}:\d{2}"
SEG = r"[A-Za-z0-9._-]+"
QUERY = r"(\?[a-z]+=[a-z0-9]+(&[a-z]+=[a-z0-9]+)*)?"
PIECE_RE = {
    "uuid.lower": HEX_UUID,
    "uuid.upper": UP_UUID,
    "uuid.braced": r"\{" + UP_UUID + r"\}",
    "ts.ms_z": DATE_TIME + r"\.\d{3}Z",
    "ts.ms_off": DATE_TIME + r"\.\d{3}" + OFFSET,
    "ts.us_z": DATE_TIME + r"\.\d{6}Z",
    "ts.us_off": DATE_TIME + r"\.\d{6}" + OFFSET,
    "url.plain": rf"https?://[a-z0-9.-]+(/{SEG}){{3,8}}",
    "url.query": rf"https?://[a-z0-9.-]+(/{SEG}){{3,8}}{QUERY}",
    "url.port": rf"https?://[a-z0-9.-]+:\d+(/{SEG}){{3,8}}",
    "url.frag": rf"https?://[a-z0-9.-]+(/{SEG}){{3,8}}(#[a-z]+)?",
    "upath.file": rf"(/{SEG}){{2,7}}/{SEG}\.[a-z]+",
    "upath.dir": rf"(/{SEG}){{3,8}}",
    "winpath.file": rf"[A-Z]:(\\{SEG}){{2,7}}\\{SEG}\.[a-z]+",
    "winpath.dir": rf"[A-Z]:(\\{SEG}){{3,8}}",
    "unc.file": rf"\\\\[a-z]+\d{{2}}\\[a-z]+\$?(\\{SEG}){{2,7}}\.[a-z]+",
    "unc.dir": rf"\\\\[a-z]+\d{{2}}\\[a-z]+\$?(\\{SEG}){{2,7}}",
    "int.unsigned": r"\d+",
    "int.signed": r"-?\d+",
    "dec.2dp": r"\d+\.\d{2}",
    "dec.4dp": r"\d+\.\d{4}",
    "dec.s2dp": r"-?\d+\.\d{2}",
    "dec.s4dp": r"-?\d+\.\d{4}",
    "date.iso": r"\d{4}-\d{2}-\d{2}",
    "date.dmy": r"\d{2}/\d{2}/\d{4}",
    "word.lower": r"[a-z]+",
    "word.upper": r"[A-Z]+",
    "kv.int": r"[a-z]+:\d+",
    "kv.word": r"[a-z]+:[a-z]+",
    "kv.eq": r"[a-z]+=\d+",
    **{f"hex.{k}": rf"[0-9a-f]{{{k}}}" for k in (8, 12, 32, 40)},
}


def piece_re(key: str) -> str:
    kind, variant = key.split(".", 1)
    if kind == "id":
        return re.escape(variant) + r"-\d{4,8}"
    return PIECE_RE[key]


def path_depth(kind: str, value: str) -> int:
    """Segments of a URL's path, a Unix/Windows path, or a UNC path after the server."""
    if kind == "url":
        return len(re.sub(r"[?#].*$", "", value).split("/")) - 3
    if kind == "upath":
        return len(value.split("/")) - 1
    if kind == "winpath":
        return len(value[3:].split("\\"))
    return len(value[2:].split("\\")) - 1


def check_structure(g: Grammar, values: list[str]) -> None:
    """Assert that every value has the structure ``g`` claims."""
    left, right = (re.escape(w) for w in g.wrap)
    pieces = [p.kind + "." + p.variant for p in g.pieces]
    if g.form == "record":
        assert 2 <= len(pieces) <= 5
        rx = re.compile(left + re.escape(g.sep).join(f"(?:{piece_re(k)})" for k in pieces) + right)
        for v in values:
            assert rx.fullmatch(v), (g.key, v)
    elif g.form == "list":
        assert 3 <= g.k[0] <= g.k[1] <= 24
        item = re.compile(piece_re(pieces[0]))
        for v in values:
            body = v[len(g.wrap[0]): len(v) - len(g.wrap[1])]
            assert v.startswith(g.wrap[0]) and v.endswith(g.wrap[1])
            items = body.split(g.sep)
            assert g.k[0] <= len(items) <= g.k[1], (g.key, v)
            assert all(item.fullmatch(x) for x in items), (g.key, v)
    else:
        assert g.form == "single" and len(pieces) == 1
        rx = re.compile(left + re.escape(g.prefix) + f"(?:{piece_re(pieces[0])})" + right)
        for v in values:
            assert rx.fullmatch(v), (g.key, v)
            inner = v[len(g.wrap[0]) + len(g.prefix): len(v) - len(g.wrap[1])]
            if g.pieces[0].kind == "ts":
                datetime.fromisoformat(inner)  # a real ISO-8601 instant
            if g.k != (0, 0):
                assert g.k[0] <= path_depth(g.pieces[0].kind, inner) <= g.k[1], (g.key, v)


def test_draws_are_deterministic_and_prefix_stable():
    a, b = draw_grammars(7, 60), draw_grammars(7, 60)
    assert [g.key for g in a] == [g.key for g in b]
    assert [g.key for g in draw_grammars(7, 20)] == [g.key for g in a[:20]]
    for g in a[:15]:
        assert g.generate(25, random.Random(3)) == g.generate(25, random.Random(3))
    assert a[0].generate(25, random.Random(3)) != a[0].generate(25, random.Random(4))


def test_different_seeds_give_mostly_different_grammars():
    seven = {g.key for g in draw_grammars(7, 200) if g.form != "single"}
    eleven = [g.key for g in draw_grammars(11, 200) if g.form != "single"]
    assert sum(k in seven for k in eleven) < 0.1 * len(eleven)


@pytest.mark.parametrize("seed", [7, 11])
def test_every_grammar_has_the_structure_it_claims(seed):
    grammars = draw_grammars(seed, 200) + list(BASE_SINGLES)
    assert {g.form for g in grammars} == {"record", "list", "single"}
    for i, g in enumerate(grammars):
        assert g.kind in KINDS
        check_structure(g, g.generate(40, random.Random(i)))


def test_kinds_and_wide_features_are_covered():
    grammars = draw_grammars(7, LAKE_POOL)
    assert set(KINDS) <= {g.kind for g in grammars}
    keys = " ".join(g.key for g in grammars)
    for feature in ("ts.ms_off", "ts.us_z", "unc.file", "kv.int", "int.signed", "wrap='[]'", "sep='|'", "sep='#'"):
        assert feature in keys
    assert any(g.form == "list" and g.k[0] >= 8 and g.pieces[0].kind == "int" for g in grammars)
    assert any(g.form == "list" and g.k[0] < g.k[1] for g in grammars)


def test_held_out_grammars_are_not_in_the_lake():
    lake = lake_grammar_keys(7)
    assert {g.key for g in lake_grammars(7)} | {g.key for g in BASE_SINGLES} == lake
    held = held_out_grammars(7, 11, 200)
    assert len(held) == 200
    assert not {g.key for g in held} & lake
    assert {g.kind for g in held} >= {"uuid", "uuid-joined", "iso-ts", "url", "path/unc", "kv-list", "number-list",
                                      "bracketed record", "other record"}
    assert [g.key for g in held_out_grammars(7, 11, 50)] == [g.key for g in held[:50]]
    # the wide tables of a seed-7 lake only use grammars held-out draws avoid
    used = {domain for (kind, domain) in wide_answer_key(7, 40).values() if kind == "composite"}
    assert used and used <= lake


def _files(root: Path) -> dict[str, Path]:
    return {p.name: p for p in root.iterdir() if p.is_file() and p.suffix in (".csv", ".tsv", ".parquet", ".jsonl")}


def test_default_lake_is_unchanged(tmp_path):
    """Regenerating with the default arguments (wide share 0) and the bundled layouts gives the committed
    lake: its single files byte for byte, its laid-out tables (a Delta log holds commit times) by their data."""
    from collections import Counter

    from lakeindex.lake.listing import lake_uri
    from lakeindex.lake.table_files import read_local_table
    from lakeindex.lake.tables import list_tables

    summary = generate_lake(tmp_path, tables=120, rows=150, seed=7, layouts=True)
    assert "wide" not in summary and summary["tables"] == 120
    new, old = _files(tmp_path), _files(COMMITTED)
    assert new.keys() == old.keys()
    for name, path in new.items():
        if path.suffix == ".parquet":  # bytes depend on the pyarrow version: compare the data
            assert pq.read_table(path).equals(pq.read_table(old[name])), name
        else:
            assert path.read_bytes() == old[name].read_bytes(), name
    laid_out = sorted(summary["laid_out"])
    assert laid_out == ["audit_log_001", "service_logs_001"]
    tables = [{t.name: t for t in list_tables(None, lake_uri(str(root))).tables} for root in (tmp_path, COMMITTED)]
    for name in laid_out:
        got, want = (read_local_table(t[name]) for t in tables)
        assert ({n: Counter(a.to_pylist()) for n, a in got.columns}
                == {n: Counter(a.to_pylist()) for n, a in want.columns})


def test_wide_lake(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    summary = generate_lake(a, tables=6, rows=40, seed=7, wide_share=0.3)
    assert main(["--out", str(b), "--tables", "6", "--rows", "40", "--seed", "7", "--wide-share", "0.3"]) == 0
    wide = summary["wide"]
    assert wide["tables"] >= 1 and summary["tables"] == 6 + wide["tables"]
    assert wide["wide_values"] >= 0.3 * summary["values"]
    assert summary["wide_values"] == summary["base"]["wide_values"] + wide["wide_values"]
    files_a, files_b = _files(a), _files(b)
    assert files_a.keys() == files_b.keys()
    for name, path in files_a.items():  # deterministic
        if path.suffix != ".parquet":
            assert path.read_bytes() == files_b[name].read_bytes(), name
    plans = plan_wide_tables(7, wide["tables"])
    key = wide_answer_key(7, wide["tables"])
    assert sorted(p.file_name for p in plans) == sorted(n for n in files_a if "_wide_" in n)
    assert all(re.fullmatch(r"[a-z_]+_wide_\d{4}\.(csv|tsv|parquet|jsonl)", p.file_name) for p in plans)
    for plan in plans:
        path = files_a[plan.file_name]
        if path.suffix in (".csv", ".tsv"):
            with path.open(newline="", encoding="utf-8") as fh:
                rows = list(csv.reader(fh, delimiter="," if path.suffix == ".csv" else "\t"))
            header, data = rows[0], rows[1:]
        elif path.suffix == ".jsonl":
            records = [json.loads(line) for line in path.read_text().splitlines()]
            header, data = list(records[0]), [[r[c] or "" for c in records[0]] for r in records]
        else:
            table = pq.read_table(path)
            header, data = table.column_names, [[v or "" for v in r.values()] for r in table.to_pylist()]
        assert header == [c.name for c in plan.columns]
        for j, (col, grammar) in enumerate(zip(plan.columns, plan.grammars, strict=True)):
            assert key[(plan.name, col.name)][1] == (grammar.key if grammar else key[(plan.name, col.name)][1])
            if grammar is not None:
                values = [r[j] for r in data if r[j] and r[j] not in SPECIAL_TOKENS]
                check_structure(grammar, values)
