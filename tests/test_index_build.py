"""The Spark index build: distributed result equals a local reference, bad input, merge, incremental."""

from __future__ import annotations

import json
import random
import re
import shutil
from collections import Counter
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from lakeindex.cli import main as cli_main
from lakeindex.index import build as job
from lakeindex.index.format import FORMAT_VERSION, impurity_units, unpack
from lakeindex.index.scan import profile_file
from lakeindex.index.store import IndexReader, current_version
from lakeindex.lake.listing import LakeError, lake_uri
from lakeindex.patterns.enumerate import EnumerationLimits
from tests.conftest import write_csv


def _table(rng: random.Random, rows: int) -> dict[str, list[str | None]]:
    return {
        "order_id": [f"ORD-{rng.randint(0, 999999):06d}" for _ in range(rows)],
        "day": [f"2019-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}" for _ in range(rows)],
        "ip": [f"10.{rng.randint(0, 3)}.{rng.randint(0, 255)}.{rng.randint(1, 254)}" for _ in range(rows)],
        "locale": [rng.choice(["en-us", "fr-fr", "de-de"]) if rng.random() > 0.1 else None for _ in range(rows)],
        "amount": [rng.choice([f"{rng.uniform(1, 999):.2f}", "-"]) for _ in range(rows)],
    }


def make_lake(root: Path, tables: range, rows: int = 40) -> Path:
    """Small deterministic lake, one file per table, formats rotating csv/tsv/parquet/jsonl."""
    for t in tables:
        cols = _table(random.Random(t), rows)
        fmt = ["csv", "tsv", "parquet", "jsonl"][t % 4]
        path = root / f"table_{t:03d}.{fmt}"
        path.parent.mkdir(parents=True, exist_ok=True)
        if fmt == "parquet":
            pq.write_table(pa.table({k: pa.array(v, pa.string()) for k, v in cols.items()}), path)
        elif fmt == "jsonl":
            path.write_text("\n".join(json.dumps({k: cols[k][i] for k in cols}) for i in range(rows)) + "\n")
        else:
            sep = "," if fmt == "csv" else "\t"
            write_csv(path, list(cols), [[cols[k][i] or "" for k in cols] for i in range(rows)], sep)
    return root


def reference_index(root: Path, min_coverage: int) -> dict[str, tuple[int, int]]:
    """The index computed locally, file by file, without Spark."""
    acc: dict[str, list[int]] = {}
    for f in sorted(root.rglob("*")):
        if f.is_file():
            profile_file(f.name, f.read_bytes(), EnumerationLimits(), acc)
    return {p: (v[0], v[1]) for p, v in acc.items() if v[1] >= min_coverage}


def index_items(path: Path) -> dict[str, tuple[int, int]]:
    with IndexReader(path) as ix:
        return {k.decode(): unpack(v) for k, v in ix.items()}


@pytest.fixture(scope="module")
def lake(tmp_path_factory) -> Path:
    return make_lake(tmp_path_factory.mktemp("lake"), range(8))


# ---------------------------------------------------------------------------------- brute-force oracle
# An independent statement of what the index of ``make_lake`` must hold, written from the docstrings of
# lakeindex.patterns.hierarchy / templates / enumerate and lakeindex.index.format, with no lakeindex code:
# P(v) by exhaustive recursion over the tokens, count_D(p) by counting values, the evidence floor, the
# fixed-point impurity rounded up, and coverage as a count of columns. It covers only what the lake holds
# (asserted): words of one run (digits, lower or upper case letters), symbol runs "-" and ".", no value
# wider than tau, no column over 128 distinct values (no sampling), no <hex> word, shapes far under the
# template budget (so the exact hierarchy applies).

TOKEN = re.compile(r"[A-Za-z]+|[0-9]+|[^A-Za-z0-9]+")  # maximal runs of letters, digits, other characters
TAU, MAX_CONSTANTS, MIN_SHARE, SCALE = 8, 2, 16, 10**6  # EnumerationLimits() defaults; IMPURITY_SCALE


def oracle_patterns(value: str) -> dict[str, set[tuple[int, ...]]]:
    """P(v), each pattern with the token positions held as constants by each of its derivations."""
    tokens = TOKEN.findall(value)
    assert 0 < len(tokens) <= TAU, value
    kinds = []
    for t in tokens:
        if t.isdigit():
            kinds.append("digit")
        elif t.isascii() and t.isalpha() and (t.isupper() or t.islower()):
            kinds.append("upper" if t.isupper() else "lower")
        else:
            assert t in ("-", "."), f"the oracle does not cover {t!r} in {value!r}"
            kinds.append("symbol")
    assert all("symbol" in pair for pair in zip(kinds, kinds[1:], strict=False)), "a word of several runs"

    def options(i: int) -> list[tuple[str, bool, int]]:
        """(text, is a constant, tokens consumed) for token i: the hierarchy nodes above it (<all> is no key)."""
        text, kind, k = tokens[i], kinds[i], len(tokens[i])
        if kind == "symbol":
            return [(text, False, 1)]  # symbol runs stay literal
        out = [(text, True, 1)]
        if kind == "digit":
            out += [(f"<digit>{{{k}}}", False, 1), ("<digit>+", False, 1), ("<num>", False, 1)]
            if i + 2 < len(tokens) and tokens[i + 1] == "." and kinds[i + 2] == "digit":
                out.append(("<num>", False, 3))  # a decimal number split by the tokenizer
        else:
            out += [(f"<{kind}>{{{k}}}", False, 1), (f"<{kind}>+", False, 1), (f"<letter>{{{k}}}", False, 1),
                    ("<letter>+", False, 1)]
        return [*out, (f"<alphanum>{{{k}}}", False, 1), ("<alphanum>+", False, 1)]

    out: dict[str, set[tuple[int, ...]]] = {}

    def walk(i: int, prefix: str, constants: tuple[int, ...]) -> None:
        if i == len(tokens):
            out.setdefault(prefix, set()).add(constants)
            return
        for text, constant, used in options(i):
            if len(constants) + constant <= MAX_CONSTANTS:
                walk(i + used, prefix + text, (*constants, i) if constant else constants)

    walk(0, "", ())
    return out


def oracle_index(columns: list[list[str | None]], min_coverage: int) -> tuple[dict[str, tuple[int, int]], set[str]]:
    """The index of these columns, and the patterns that some value reaches through constants at two
    different positions (the only case where "a value matches p" and "a derivation of p" differ)."""
    acc: dict[str, list[int]] = {}
    ambiguous: set[str] = set()
    for values in columns:
        present = [v for v in values if v]  # nulls and empty cells are not values of D
        n = len(present)
        distinct = Counter(present)
        assert 0 < len(distinct) <= 128
        count: Counter[str] = Counter()
        for v, w in distinct.items():
            for p, derivations in oracle_patterns(v).items():
                count[p] += w  # count_D(p): values whose P(v) holds p, each value once
                if len(derivations) > 1 and any(derivations):
                    ambiguous.add(p)
        for p, c in count.items():
            if c * MIN_SHARE >= n:  # evidence share and constant share: at least |D|/16 values
                stats = acc.setdefault(p, [0, 0])
                stats[0] += -(-(n - c) * SCALE // n)  # Imp_D(p) = (n - c)/n in units, rounded up
                stats[1] += 1
    return {p: (i, c) for p, (i, c) in acc.items() if c >= min_coverage}, ambiguous


def lake_columns(tables: range, rows: int = 40) -> list[list[str | None]]:
    """The values ``make_lake`` writes, straight from the generator (readers keep text as written)."""
    return [col for t in tables for col in _table(random.Random(t), rows).values()]


@pytest.fixture(scope="module")
def built(spark, lake, tmp_path_factory) -> tuple[dict, dict[str, tuple[int, int]]]:
    """The Spark build of the 8-table lake at min coverage 2: metadata and every key."""
    out = tmp_path_factory.mktemp("built") / "ix"
    meta = job.build_index(spark, str(lake), out, min_coverage=2, progress=False)
    return meta, index_items(out)


def test_oracle_agrees_with_hand_counts():
    """The oracle itself, on values small enough to enumerate by hand."""
    # "en-us": each 2-letter lower word has 7 nodes (itself, <lower>{2}, <lower>+, <letter>{2}, <letter>+,
    # <alphanum>{2}, <alphanum>+): 49 templates, all with <= 2 constants
    assert len(oracle_patterns("en-us")) == 49 and "<lower>{2}-<lower>{2}" in oracle_patterns("en-us")
    # "1.5": 6 x 6 word combinations, plus <num> over the whole decimal
    assert len(oracle_patterns("1.5")) == 37 and "<num>" in oracle_patterns("1.5")
    assert set(oracle_patterns("-")) == {"-"}
    # a column of 3 "a" and 1 "-" (|D| = 4, floor 4/16): <lower>{1} has Imp 1/4 = 250,000 units
    stats, _ = oracle_index([["a", "a", "a", "-", None, ""]], 1)
    assert stats["<lower>{1}"] == (250_000, 1) and stats["-"] == (750_000, 1) and stats["a"] == (250_000, 1)
    # two derivations of one pattern with constants at different positions: the value still counts once
    stats, ambiguous = oracle_index([["10.2.2.7"]], 1)
    assert stats["<num>.2.<num>"] == (0, 1) and "<num>.2.<num>" in ambiguous


def test_build_equals_local_reference(built):
    """The Spark build against the brute-force oracle above (independent of lakeindex), on every key.

    Keys that a value reaches through constants at two different positions are compared in
    ``test_build_counts_each_value_once_per_pattern`` (a known defect); every other key must be equal.
    """
    meta, got = built
    assert meta["tables_scanned"] == 8 and meta["columns_scanned"] == 40
    assert meta["cells_scanned"] == 8 * 5 * 40 and meta["files_skipped"] == 0
    assert meta["limits"]["tau"] == 8 and meta["format_version"] == FORMAT_VERSION and meta["build_seconds"] > 0
    expected, ambiguous = oracle_index(lake_columns(range(8)), 2)
    assert set(got) == set(expected)
    assert meta["patterns"] == len(expected)
    differing = sorted(p for p in expected if got[p] != expected[p] and p not in ambiguous)
    assert differing == [], [(p, got[p], expected[p]) for p in differing[:10]]
    assert ambiguous & set(expected) == {"<num>.2.<num>"}  # IPs 10.2.2.x: the only such key of this lake

    # a few keys by hand, with a plain counter over the generated values:
    # a domain present in every table: no impurity, full coverage
    assert got["ORD-<digit>{6}"] == (0, 8)
    # locales: nulls are not values, so the non-null ones are a pure domain
    assert got["<lower>{2}-<lower>{2}"] == (0, 8)
    # amounts carry "-" special values: Imp = dashes/40 per table, rounded up in units of 1e-6
    tables = [_table(random.Random(t), 40)["amount"] for t in range(8)]
    dashes = [col.count("-") for col in tables]
    assert all(0 < d < 40 - 40 / 16 for d in dashes)  # each table has some "-" and enough numbers
    assert got["<digit>+.<digit>{2}"] == (sum(-(-d * SCALE // 40) for d in dashes), 8)
    assert got["<digit>+.<digit>{2}"][0] > 0
    # "-" itself is a pattern of the tables where it reaches the evidence floor of 40/16 = 2.5 values
    kept = [d for d in dashes if d >= 3]
    assert got["-"] == (sum(-(-(40 - d) * SCALE // 40) for d in kept), len(kept))


def test_build_counts_each_value_once_per_pattern(built):
    """The keys excluded above: a value with two derivations of p still counts once in count_D(p)."""
    _, got = built
    expected, ambiguous = oracle_index(lake_columns(range(8)), 2)
    keys = sorted(ambiguous & set(expected))
    assert keys, "the lake should hold such keys (IPs 10.a.b.c with a == b)"
    assert {p: got[p] for p in keys} == {p: expected[p] for p in keys}


def test_cli_info_and_lookup(spark, lake, tmp_path, capsys):
    job.build_index(spark, str(lake), tmp_path / "ix", progress=False)
    capsys.readouterr()
    assert cli_main(["index", "info", str(tmp_path / "ix")]) == 0
    assert json.loads(capsys.readouterr().out)["tables_scanned"] == 8
    assert cli_main(["index", "lookup", str(tmp_path / "ix"), "ORD-<digit>{6}", "<upper>{9}"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert rows[0] == {"pattern": "ORD-<digit>{6}", "fpr": 0.0, "coverage": 8}
    assert rows[1] == {"pattern": "<upper>{9}", "fpr": None, "coverage": 0}
    assert cli_main(["index", "lookup", str(tmp_path / "ix"), "<bad"]) == 2


def test_bad_input_is_skipped_with_reasons(spark, tmp_path):
    root = make_lake(tmp_path / "lake", range(2))
    (root / "empty.csv").write_bytes(b"")
    (root / "header_only.csv").write_text("a,b\n")
    (root / "corrupt.parquet").write_bytes(b"PAR1 not really")
    (root / "notes.txt").write_text("not a table")
    (root / "latin1.csv").write_bytes("city\nS\xe3o Paulo\nZ\xfcrich\n".encode("latin-1"))
    write_csv(root / "dupes.csv", ["id", "id", "name"], [["1", "2", "x"], ["3", "4", "y"]])
    (root / "ragged.csv").write_text("a,b\n1,2\n3\n4,5,6\n7,8\n")
    (root / "huge.tsv").write_text("blob\tk\n" + "x" * 70_000 + "\t1\nshort\t2\n")
    (root / "broken.jsonl").write_text('{"a": "1"}\n{oops\n{"a": "2"}\n')
    meta = job.build_index(spark, str(root), tmp_path / "ix", progress=False)
    reasons = {s["file"]: s["reason"] for s in meta["skipped_files"]}
    assert reasons["empty.csv"] == "empty file"
    assert reasons["header_only.csv"].startswith("empty table")
    assert reasons["corrupt.parquet"].startswith("unreadable parquet")
    assert reasons["notes.txt"].startswith("unsupported format")
    issues = {(i["file"], i.get("column")): i["issue"] for i in meta["issues"]}
    assert "undecodable" in issues[("latin1.csv", None)]
    assert "duplicate column name 'id'" in issues[("dupes.csv", "id~2")]
    assert "malformed row" in issues[("ragged.csv", None)]
    assert "64 KB" in issues[("huge.tsv", "blob")]
    assert "malformed JSON" in issues[("broken.jsonl", None)]
    # the readable files (2 generated tables + latin1, dupes, ragged, huge, broken) were indexed
    assert meta["tables_scanned"] == 7
    with IndexReader(tmp_path / "ix") as ix:
        assert ix.get("ORD-<digit>{6}").coverage == 2


def test_merge_equals_build_on_union(spark, tmp_path):
    a = make_lake(tmp_path / "a", range(0, 4))
    b = make_lake(tmp_path / "b", range(4, 8))
    union = tmp_path / "union"
    for src in (a, b):
        for f in src.iterdir():
            union.mkdir(exist_ok=True)
            shutil.copy(f, union / f.name)
    for name, src in (("ia", a), ("ib", b), ("iu", union)):
        job.build_index(spark, str(src), tmp_path / name, min_coverage=1, progress=False)
    assert cli_main(["index", "merge", str(tmp_path / "ia"), str(tmp_path / "ib"),
                     "--out", str(tmp_path / "im"), "--min-coverage", "1"]) == 0
    assert index_items(tmp_path / "im") == index_items(tmp_path / "iu")


def test_incremental_build_adds_only_new_tables(spark, tmp_path):
    root = make_lake(tmp_path / "lake", range(0, 4))
    job.build_index(spark, str(root), tmp_path / "ix", min_coverage=1, progress=False)
    make_lake(root, range(4, 8))
    meta = job.build_index(spark, str(root), tmp_path / "ix", min_coverage=1, incremental=True, progress=False)
    assert meta["tables_scanned"] == 8 and meta["incremental"]["new_tables"] == 4
    job.build_index(spark, str(root), tmp_path / "full", min_coverage=1, progress=False)
    assert index_items(tmp_path / "ix") == index_items(tmp_path / "full")
    # a changed table is not silently double-counted: its old sums cannot be taken out, so the build is a
    # full one, said so, and equals a full build of the lake as it is now
    (root / "table_000.csv").write_text("order_id\nORD-000001\n")
    meta = job.build_index(spark, str(root), tmp_path / "ix", min_coverage=1, incremental=True, progress=False)
    assert "table_000.csv" in meta["incremental"]["full_build"] and "no longer" in meta["incremental"]["full_build"]
    job.build_index(spark, str(root), tmp_path / "full2", min_coverage=1, progress=False)
    assert index_items(tmp_path / "ix") == index_items(tmp_path / "full2")


def test_failed_build_leaves_previous_index_untouched(spark, lake, tmp_path, monkeypatch):
    job.build_index(spark, str(lake), tmp_path / "ix", progress=False)
    before = current_version(tmp_path / "ix")
    expected = index_items(tmp_path / "ix")

    def boom(*a, **k):
        raise RuntimeError("executor lost")

    monkeypatch.setattr(job, "_receive_ssts", boom)
    with pytest.raises(RuntimeError, match="executor lost"):
        job.build_index(spark, str(lake), tmp_path / "ix", progress=False)
    assert current_version(tmp_path / "ix") == before
    assert not list((tmp_path / "ix").glob(".tmp-*"))
    assert index_items(tmp_path / "ix") == expected


def test_missing_lake_is_a_clear_error(tmp_path):
    with pytest.raises(LakeError, match="does not exist"):
        lake_uri(str(tmp_path / "nope"))


def test_impurity_units_match_definition3():
    assert impurity_units(40, 36) == 100_000


def test_cli_build_prints_metadata_and_rejects_missing_lake(spark, lake, tmp_path, capsys):
    assert cli_main(["index", "build", str(lake), "--out", str(tmp_path / "ix"), "--quiet",
                     "--min-coverage", "3"]) == 0
    meta = json.loads(capsys.readouterr().out)
    assert meta["min_coverage"] == 3 and meta["tables_scanned"] == 8
    assert all(cov >= 3 for _, cov in index_items(tmp_path / "ix").values())
    assert cli_main(["index", "build", str(tmp_path / "nolake"), "--out", str(tmp_path / "ix2"), "--quiet"]) == 2
    # checked before Spark starts (issue 13 §6)
    assert "nolake: no such file or directory" in json.loads(capsys.readouterr().err)["error"]
    assert not (tmp_path / "ix2").exists()


def test_runs_unchanged_under_spark_submit(tmp_path):
    """The job file is a spark-submit application that keeps the master it is given; its progress goes to
    spark-submit's stderr (which merges the Python driver's stderr into its stdout), its JSON alone to stdout."""
    import os
    import subprocess
    import sys

    submit = shutil.which("spark-submit")
    if submit is None:
        pytest.skip("spark-submit not on PATH")
    lake = make_lake(tmp_path / "lake", range(3))
    env = {**os.environ, "LAKEINDEX_DRIVER_MEMORY": "1g", "PYSPARK_PYTHON": sys.executable}
    proc = subprocess.run([submit, "--master", "local[1]", "indexer_jobs/build_index.py", str(lake),
                           "--out", str(tmp_path / "ix")],
                          capture_output=True, text=True, cwd=Path(__file__).resolve().parents[1], env=env,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    meta = json.loads(proc.stdout)  # nothing else on stdout
    assert "[lakeindex" in proc.stderr and "scanning 3 tables" in proc.stderr
    assert meta["spark"]["master"] == "local[1]" and meta["tables_scanned"] == 3
    assert index_items(tmp_path / "ix") == reference_index(lake, 2)


def test_tag_lake_groups_columns_by_domain(spark, lake, tmp_path):
    from lakeindex.tagging.tag_lake import tag_lake

    job.build_index(spark, str(lake), tmp_path / "ix", progress=False)
    out = tag_lake(spark, str(lake), str(tmp_path / "ix"), sample=100, m=2)
    by_col = {(c["table"], c["column"]): c["tag"] for c in out["columns"]}
    assert len(by_col) == 40
    assert by_col[("table_000.csv", "order_id")] == "ORD-<digit>{6}"
    assert by_col[("table_002.parquet", "locale")] == "<lower>{2}-<lower>{2}"
    domains = {d["tag"]: d["columns"] for d in out["domains"]}
    assert len(domains["ORD-<digit>{6}"]) == 8
