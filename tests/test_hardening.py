"""Hostile input to the service and the library (issue 11): each test reproduces a reported failure."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from lakeindex.fmdv.rule import MAX_TRAIN_SIZE, Rule
from lakeindex.index.local_build import build_from_columns
from query_service.app import create_app
from query_service.limits import Settings

REDOS_PATTERN = "<alphanum>+" * 12 + "!"


def _rule(pattern: str, size: int = 100, bad: int = 0) -> dict:
    return {"method": "fmdv-vh", "params": {}, "feasible": True, "validation": "homogeneity",
            "segments": [{"pattern": pattern, "fpr": 0.0, "coverage": 5}], "train_size": size,
            "train_nonconforming": bad}


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    path = tmp_path_factory.mktemp("hardening") / "ix"
    build_from_columns([[f"{i:04d}-{j:02d}" for j in range(30)] for i in range(20)], path, min_coverage=2)
    with TestClient(create_app(path, Settings(max_values=1000, max_value_length=512))) as c:
        yield c


def test_a_posted_rule_cannot_backtrack_for_ever():
    """Twelve adjacent <alphanum>+ then "!" against "a" * 300 has exponentially many ways to fail in a
    backtracking engine (Python's re never returned); a rule read from outside is matched in linear time.
    Run in a child process so that a regression fails by timeout instead of hanging the suite."""
    code = ("import json, sys\n"
            "from lakeindex.fmdv.rule import Rule\n"
            "from lakeindex.fmdv.drift import validate\n"
            "rule = Rule.from_dict(json.loads(sys.argv[1]))\n"
            "print(json.dumps(validate(rule, ['a' * 300] * 3 + ['a!'] * 2)))\n")
    proc = subprocess.run([sys.executable, "-c", code, json.dumps(_rule(REDOS_PATTERN))], capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    # "a" * 300 has no "!": all 3 fail; "a!" needs 12 alphanumerics before "!": fails too
    assert result["batch_nonconforming"] == 5


def test_linear_matching_agrees_with_the_pattern_language():
    """RE2 and Python's re give the same verdicts on our patterns (a hand-picked accept/reject set)."""
    from lakeindex.patterns.pattern import compiled, compiled_linear

    cases = {"<digit>{4}-<digit>{2}": (["2024-01"], ["2024-1", "a024-01"]),
             "<digit>+<rep>|<digit>+</rep>{2,}": (["1|2|3", "10|20|30|40"], ["1|2", "1||2|3"]),
             "<opt><lower>+-</opt><digit>+": (["ab-12", "12"], ["-12", "AB-12"]),
             "<hex>{4}": (["00aF"], ["00ag"])}
    for pattern, (accept, reject) in cases.items():
        for v in accept + reject:
            assert (compiled_linear(pattern).fullmatch(v) is None) == (compiled(pattern).fullmatch(v) is None)
        assert all(compiled_linear(pattern).fullmatch(v) for v in accept)
        assert not any(compiled_linear(pattern).fullmatch(v) for v in reject)


@pytest.mark.parametrize("size,bad,what", [
    (10**18, 5 * 10**17, "train_size"),  # Fisher's exact test would run for ever
    (-5, 0, "train_size"),  # failed deep in scipy
    (100, -1, "train_nonconforming"),
    (100, 101, "train_nonconforming"),
])
def test_rule_counts_are_bounded(client, size, bad, what):
    with pytest.raises(ValueError, match=what):
        Rule.from_dict(_rule("<digit>+", size, bad))
    r = client.post("/v1/validate", json={"rule": _rule("<digit>+", size, bad), "values": ["1", "2"]})
    assert r.status_code == 422 and what in r.json()["detail"]


def test_the_largest_allowed_counts_still_validate(client):
    r = client.post("/v1/validate", json={"rule": _rule("<digit>+", MAX_TRAIN_SIZE, MAX_TRAIN_SIZE // 2),
                                          "values": ["1", "x"]})
    assert r.status_code == 200 and r.json()["batch_nonconforming"] == 1


def test_a_chunked_body_cannot_bypass_the_size_limit(tmp_path_factory):
    """Without Content-Length (Transfer-Encoding: chunked) the body is counted as it arrives."""
    path = tmp_path_factory.mktemp("chunked") / "ix"
    build_from_columns([[f"{i:04d}-{j:02d}" for j in range(30)] for i in range(20)], path, min_coverage=2)
    app = create_app(path, Settings(max_body_bytes=10_000, max_value_length=100_000, max_values=100_000))

    def chunks(total: int):  # a generator body: httpx sends it chunked, with no Content-Length
        payload = json.dumps({"patterns": ["<digit>{4}"] * (total // 14)}).encode()
        for i in range(0, len(payload), 4096):
            yield payload[i:i + 4096]

    with TestClient(app) as c:
        big = c.post("/v1/patterns/lookup", content=chunks(50_000), headers={"content-type": "application/json"})
        assert big.status_code == 413 and "10000 bytes" in big.json()["detail"]
        small = c.post("/v1/patterns/lookup", content=chunks(2_000), headers={"content-type": "application/json"})
        assert small.status_code == 200, small.text


def test_local_spark_workers_default_to_the_running_interpreter():
    """A venv's lakeindex started without the venv on PATH must not hand Spark's workers another Python."""
    from lakeindex.spark_session import local_python

    env: dict[str, str] = {}
    local_python(env)
    assert env == {"PYSPARK_PYTHON": sys.executable, "PYSPARK_DRIVER_PYTHON": sys.executable}
    mine = {"PYSPARK_PYTHON": "/opt/cluster/python"}
    local_python(mine)
    assert mine["PYSPARK_PYTHON"] == "/opt/cluster/python"  # an explicit choice wins


@pytest.mark.parametrize("argv,message", [
    (["validate", "--rule", "{dir}", "--values", "{file}"], "Is a directory"),
    (["infer", "--index", "{index}", "--values", "{dir}"], "Is a directory"),
    (["index", "info", "{file}"], "is a file, not an index directory"),
    (["history", "list", "--repo", "{file}", "--dataset", "d"], "is a file; pass a directory"),
])
def test_paths_of_the_wrong_kind_exit_2_with_a_json_error(tmp_path, capsys, argv, message):
    """Formerly tracebacks (exit 1, read as "flagged") or, for a repository that is a file, an empty success."""
    from lakeindex.cli import main

    (tmp_path / "dir").mkdir()
    (tmp_path / "file").write_text("x\n")
    build_from_columns([[f"{i:04d}" for i in range(30)] for _ in range(3)], tmp_path / "ix", min_coverage=2)
    paths = {"dir": tmp_path / "dir", "file": tmp_path / "file", "index": tmp_path / "ix"}
    assert main([a.format(**paths) for a in argv]) == 2
    error = json.loads(capsys.readouterr().err.splitlines()[0])["error"]
    assert message in error


def test_spark_submit_jobs_use_the_same_exit_codes(spark, tmp_path, monkeypatch, capsys):
    """2 for bad input with a JSON error, 3 for a bug: an orchestrator can tell bad data from a crash."""
    from indexer_jobs.build_index import main as build_job

    assert build_job([str(tmp_path / "nope"), "--out", str(tmp_path / "ix"), "--quiet"]) == 2
    # checked before Spark starts (issue 13 §6)
    assert "no such file or directory" in json.loads(capsys.readouterr().err.splitlines()[0])["error"]

    def crash(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        raise RuntimeError("executor lost")

    monkeypatch.setattr("lakeindex.index.build.build_index", crash)
    (tmp_path / "lake").mkdir()
    assert build_job([str(tmp_path / "lake"), "--out", str(tmp_path / "ix"), "--quiet"]) == 3
    assert "internal error: RuntimeError: executor lost" in capsys.readouterr().err


def test_a_batch_id_is_recorded_once_under_concurrent_requests(tmp_path):
    """8 concurrent POST /v1/batches/validate with record=true and one batch id: one records it, the
    others get 409 (formerly all 8 were recorded). The history is built with the pandas path, no Spark."""
    from concurrent.futures import ThreadPoolExecutor

    import pandas as pd

    from lakeindex.history.batches import ACCEPTED, BatchHistory, profile_frame

    repo = tmp_path / "repo"
    history = BatchHistory(str(repo), "orders")
    prev = None
    for day in range(4):
        frame = pd.DataFrame({"amount": [str(10 + day + i % 7) for i in range(50)],
                              "country": [["de", "fr", "us"][i % 3] for i in range(50)]}, dtype=object)
        prev = profile_frame(frame, f"d{day}", prev)
        prev.status, prev.timestamp_ms = ACCEPTED, 1000 + day
        history.save(prev)
    build_from_columns([[f"{i:04d}" for i in range(30)] for _ in range(3)], tmp_path / "ix", min_coverage=2)
    body = {"dataset": "orders", "batch": "same", "record": True, "patterns": False,
            "columns": {"amount": [str(12 + i % 7) for i in range(50)],
                        "country": [["de", "fr", "us"][i % 3] for i in range(50)]}}
    with TestClient(create_app(tmp_path / "ix", Settings(repository=str(repo), slow_lane=8))) as client:
        with ThreadPoolExecutor(8) as pool:
            codes = sorted(r.status_code for r in pool.map(lambda _: client.post("/v1/batches/validate", json=body),
                                                           range(8)))
    assert codes == [200] + [409] * 7, codes
    assert [r.batch_id for r in history.records(None)].count("same") == 1


def test_a_header_only_batch_is_refused_as_history_and_flagged_by_validation(spark, tmp_path, capsys):
    """A header-only CSV was accepted as a clean 0-row batch."""
    from lakeindex.cli import main

    ok, empty = tmp_path / "ok.csv", tmp_path / "empty.csv"
    ok.write_text("id,amount\n" + "".join(f"{i},{i * 1.5}\n" for i in range(20)))
    empty.write_text("id,amount\n")
    repo = str(tmp_path / "repo")
    assert main(["history", "add", str(ok), "--repo", repo, "--dataset", "d", "--batch", "b1"]) == 0
    capsys.readouterr()
    assert main(["history", "add", str(empty), "--repo", repo, "--dataset", "d", "--batch", "b2"]) == 2
    assert "has no rows" in json.loads(capsys.readouterr().err.splitlines()[-1])["error"]
    assert main(["history", "add", str(empty), "--repo", repo, "--dataset", "d", "--batch", "b2"]) == 2  # retry ok
    capsys.readouterr()
    assert main(["validate-batch", str(empty), "--repo", repo, "--dataset", "d", "--batch", "b3", "--dry-run"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["verdict"] == "flagged" and "schema" in report["failing_signals"]


def test_a_rule_too_long_to_read_back_is_reported_not_raised(monkeypatch, tmp_path):
    """The server must not answer 400 "pattern longer than ..." for a rule it built itself: over the limit,
    the column gets no rule and the reason says why."""
    import lakeindex.patterns.pattern as pattern_module
    from lakeindex.fmdv.infer import AutoValidator
    from lakeindex.index.store import IndexReader

    build_from_columns([[f"{i:04d}-{j:02d}" for j in range(30)] for i in range(20)], tmp_path / "ix", min_coverage=2)
    values = [f"{1000 + i:04d}-{i % 60:02d}" for i in range(40)]
    with IndexReader(tmp_path / "ix") as ix:
        full = AutoValidator(ix, m=2).fit(values).rule_
        assert full.feasible and len(full.pattern) > 10
        monkeypatch.setattr(pattern_module, "MAX_PATTERN_LENGTH", len(full.pattern) - 1)
        short = AutoValidator(ix, m=2).fit(values).rule_
    assert not short.feasible and f"the rule would be {len(full.pattern)} characters long" in short.reason


def test_solver_caches_stay_within_their_byte_budget_and_answer_the_same(tmp_path):
    from lakeindex.fmdv.infer import AutoValidator
    from lakeindex.fmdv.search import SegmentSolver
    from lakeindex.index.store import IndexReader

    build_from_columns([[f"{i:04d}-{j:02d}" for j in range(30)] for i in range(20)], tmp_path / "ix", min_coverage=2)
    columns = [[f"{1000 + i:04d}-{(i * k) % 60:02d}" for i in range(40)] for k in range(1, 6)]
    columns += [[f"v{i}.{k}" for i in range(30)] for k in range(5)]
    with IndexReader(tmp_path / "ix") as ix:
        roomy, tight = SegmentSolver(ix), SegmentSolver(ix, cache_bytes=4096)
        for col in columns:
            a = AutoValidator(roomy, m=2).fit(col).rule_.to_dict()
            b = AutoValidator(tight, m=2).fit(col).rule_.to_dict()
            assert a == b
            assert tight._stats_bytes <= 1024 and tight._feasible_bytes <= 3072
        got = tight.lookup([f"<digit>{{{k}}}" for k in range(1, 500)])  # more than the whole budget at once
        assert tight._stats_bytes <= 1024 and got == roomy.lookup([f"<digit>{{{k}}}" for k in range(1, 500)])


def test_a_lookup_that_empties_the_full_cache_still_answers_for_the_patterns_it_held(tmp_path):
    """The lookup cache is emptied when new patterns would overflow it; a pattern it held before, asked
    again in that same lookup, keeps its statistics (it was reported absent, so infeasible)."""
    from lakeindex.fmdv.search import ENTRY_OVERHEAD, SegmentSolver
    from lakeindex.index.store import IndexReader

    build_from_columns([[f"{i:04d}-{j:02d}" for j in range(30)] for i in range(20)], tmp_path / "ix", min_coverage=2)
    known = "<digit>{4}-<digit>{2}"
    with IndexReader(tmp_path / "ix") as ix:
        expected = ix.get(known)
        assert expected is not None and expected.coverage == 20  # every column holds it
        tight = SegmentSolver(ix, cache_bytes=4 * 1024)  # 1,024 bytes for lookups
        assert tight.lookup([known]) == [expected]
        # new patterns that fit the cache alone but not beside what it holds: it is emptied for them
        fillers: list[str] = []
        while sum(len(p) + ENTRY_OVERHEAD for p in fillers) + len("<upper>{99}") + ENTRY_OVERHEAD <= 1024:
            fillers.append(f"<upper>{{{len(fillers) + 1}}}")
        assert tight._stats_bytes + sum(len(p) + ENTRY_OVERHEAD for p in fillers) > 1024
        got = tight.lookup([known, *fillers])
    assert got[0] == expected and got[1:] == [None] * len(fillers)


def test_a_preloaded_index_answers_from_memory_as_the_index_does(tmp_path, monkeypatch):
    """A solver that preloads an index within its budget answers every lookup, absent patterns
    included, as the index itself does, without reading RocksDB again; one over budget keeps reading."""
    from lakeindex.fmdv.search import SegmentSolver
    from lakeindex.index.store import IndexReader

    build_from_columns([[f"{i:04d}-{j:02d}" for j in range(30)] for i in range(20)], tmp_path / "ix", min_coverage=2)
    asked = ["<digit>{4}-<digit>{2}", "<digit>+-<digit>+", "<num>", "<upper>{7}", "nothing-like-it"]
    with IndexReader(tmp_path / "ix") as ix:
        expected = [ix.get(p) for p in asked]
        assert expected[0] is not None and expected[-1] is None
        keys = sum(1 for _ in ix.items())
        loaded = SegmentSolver(ix, preload=True)
        assert loaded.preloaded and len(loaded._stats) == keys
        small = SegmentSolver(ix, cache_bytes=4 * 1024, preload=True)  # 1,024 bytes: not the whole index
        assert not small.preloaded

        def no_reads(patterns):
            raise AssertionError(f"read RocksDB for {patterns[:3]}")

        monkeypatch.setattr(ix, "lookup_raw", no_reads)
        assert loaded.lookup(asked) == expected
        monkeypatch.undo()
        assert small.lookup(asked) == expected


def test_a_preloaded_solver_prunes_by_key_prefixes_and_learns_the_same_rules(tmp_path):
    """Preloading also keeps every key's part prefixes, by which hypotheses are pruned; rules are those of
    a solver that reads RocksDB. Where the prefixes do not fit the lookup budget beside the keys, the
    index is still preloaded, without them."""
    import random

    from lakeindex.fmdv.infer import AutoValidator
    from lakeindex.fmdv.search import ENTRY_OVERHEAD, SegmentSolver
    from lakeindex.index.store import IndexReader
    from lakeindex.patterns.pattern import part_prefixes

    rng = random.Random(5)
    lake = [[f"{i:04d}-{j:02d}" for j in range(30)] for i in range(20)]
    lake += [[f"REQ-{rng.randint(0, 99999):05d}|{rng.choice(['ab', 'cd'])}.{rng.randint(0, 9)}" for _ in range(30)]
             for _ in range(20)]
    lake += [[f"{rng.randint(0, 99)}.{rng.randint(0, 99)}+{rng.choice(['x', 'y'])}" for _ in range(30)]
             for _ in range(20)]
    build_from_columns(lake, tmp_path / "ix", min_coverage=2)
    queries = [[f"{rng.randint(0, 9999):04d}-{rng.randint(0, 99):02d}" for _ in range(50)],
               [f"REQ-{rng.randint(0, 99999):05d}|cd.{rng.randint(0, 9)}" for _ in range(50)],
               [f"{rng.randint(0, 99)}.{rng.randint(0, 99)}+x" for _ in range(50)],
               [f"{rng.randint(0, 9999):04d}-{rng.randint(0, 99):02d}|{rng.randint(0, 99)}.{rng.randint(0, 99)}+y"
                for _ in range(50)]]
    with IndexReader(tmp_path / "ix") as ix:
        keys = [k.decode() for k, _ in ix.items()]
        loaded = SegmentSolver(ix, preload=True)
        assert loaded.preloaded and loaded._viable is not None
        assert set(keys) <= loaded._viable and {"REQ", "REQ-", "<digit>{4}"} <= loaded._viable
        assert all(p in loaded._viable for k in keys for p in part_prefixes(k))
        keys_only = 4 * (sum(len(k) + ENTRY_OVERHEAD for k in keys) + 1)  # the keys fit, the prefixes not
        lean = SegmentSolver(ix, cache_bytes=keys_only, preload=True)
        assert lean.preloaded and lean._viable is None
        reading = SegmentSolver(ix)
        for values in queries:
            rules = [AutoValidator(s, method="fmdv-vh").fit(values).rule_.to_dict() for s in (loaded, lean, reading)]
            assert rules[0] == rules[1] == rules[2]
        assert sum(AutoValidator(loaded).fit(v).rule_.feasible for v in queries) >= 3  # rules, not only misses


def test_client_lookups_do_not_grow_the_inference_cache(client):
    solver = client.app.state.holder._current.solver
    before = len(solver._stats)
    r = client.post("/v1/patterns/lookup", json={"patterns": [f"<digit>{{{k}}}-x{k}" for k in range(1, 900)]})
    assert r.status_code == 200 and len(r.json()["results"]) == 899
    assert len(solver._stats) == before


def _damaged_index(tmp_path, how: str):
    import random

    rng = random.Random(1)
    cols = [[f"{rng.randint(0, 9999):04d}-{rng.choice(['ab', 'cd', 'ef'])}" for _ in range(50)] for _ in range(300)]
    build_from_columns(cols, tmp_path / "ix", min_coverage=2)
    sst = sorted((tmp_path / "ix").glob("v-*/db/*.sst"))[0]
    data = bytearray(sst.read_bytes())
    if how == "truncated":
        sst.write_bytes(bytes(data[: len(data) // 2]))
    else:  # 200 bytes overwritten inside a data block: same size, wrong checksum
        for i in range(len(data) // 4, len(data) // 4 + 200):
            data[i] ^= 0xFF
        sst.write_bytes(bytes(data))
    return tmp_path / "ix"


@pytest.mark.parametrize("how", ["truncated", "overwritten"])
def test_a_damaged_index_is_a_clear_error_never_a_partial_answer(tmp_path, capsys, how):
    """Formerly a traceback, or `index head` exiting 0 with part (here none) of the domains."""
    from lakeindex.cli import main

    ix = _damaged_index(tmp_path, how)
    for argv in (["index", "lookup", str(ix), "<digit>{4}-<lower>{2}"], ["index", "head", str(ix)]):
        assert main(argv) == 2, argv
        out = capsys.readouterr()
        assert out.out == "" and "is damaged" in json.loads(out.err.splitlines()[0])["error"]


def test_an_index_whose_scan_meets_damage_is_not_preloaded_and_is_read_as_before(tmp_path, monkeypatch):
    """Preloading reads every block; one found damaged on the way leaves the solver reading RocksDB (where
    a lookup meeting the damage gets the clear error), never holding a part of the index as if whole."""
    from lakeindex.fmdv.search import SegmentSolver
    from lakeindex.index.store import IndexReader, IndexUnusable

    build_from_columns([[f"{i:04d}-{j:02d}" for j in range(30)] for i in range(20)], tmp_path / "ix", min_coverage=2)
    asked = ["<digit>{4}-<digit>{2}", "<digit>+-<digit>+", "nothing-like-it"]
    with IndexReader(tmp_path / "ix") as ix:
        expected = [ix.get(p) for p in asked]
        whole = list(ix.items())

        def damaged_scan():
            yield from whole[:3]
            raise IndexUnusable(f"index {tmp_path / 'ix'} is damaged (Corruption: block checksum mismatch)")

        monkeypatch.setattr(ix, "items", damaged_scan)
        solver = SegmentSolver(ix, preload=True)
        assert not solver.preloaded and solver._stats == {}
        assert solver.lookup(asked) == expected


def test_symlinks_in_a_lake_never_count_a_file_twice(spark, tmp_path):
    """A file link, a dangling link, a link loop and a directory link back to the root (which Spark's
    recursive listing follows): every table is indexed once, the rest skipped with a reason."""
    import os

    from lakeindex.index.build import build_index
    from lakeindex.index.store import IndexReader

    lake = tmp_path / "lake"
    (lake / "sub").mkdir(parents=True)
    for t in range(4):
        (lake / f"t{t}.csv").write_text("code\n" + "".join(f"ORD-{(t * 1000 + i) * 7 % 999999:06d}\n"
                                                             for i in range(50)))
    os.symlink(lake / "t0.csv", lake / "sub" / "alias.csv")
    os.symlink(lake / "nowhere.csv", lake / "dangling.csv")
    os.symlink("loop2.csv", lake / "loop1.csv")
    os.symlink("loop1.csv", lake / "loop2.csv")
    os.symlink(lake, lake / "sub" / "back")
    meta = build_index(spark, str(lake), tmp_path / "ix", min_coverage=1, progress=False)
    assert meta["tables_scanned"] == 4 and meta["columns_scanned"] == 4
    reasons = {s["file"]: s["reason"] for s in meta["skipped_files"]}
    assert set(reasons) == {"dangling.csv", "loop1.csv", "loop2.csv", "sub/alias.csv"}
    assert "t0.csv" in reasons["sub/alias.csv"]
    with IndexReader(tmp_path / "ix") as ix:
        assert ix.get("ORD-<digit>{6}").coverage == 4  # not 5 (the alias) nor dozens (the loop)


def test_a_full_slow_lane_sheds_load_and_never_stalls_health_or_lookups(tmp_path, monkeypatch):
    """With the slow lane full, another batch validation gets 503 + Retry-After at once, before its body
    is read (a refusal costs no parsing), while /health and lookups still answer; formerly every request
    queued until it timed out."""
    import threading

    import pandas as pd

    from lakeindex.history.batches import ACCEPTED, BatchHistory, profile_frame
    from lakeindex.validation import BatchValidator

    repo = tmp_path / "repo"
    history = BatchHistory(str(repo), "orders")
    prev = None
    for day in range(3):
        prev = profile_frame(pd.DataFrame({"n": [str(i + day) for i in range(20)]}, dtype=object), f"d{day}", prev)
        prev.status, prev.timestamp_ms = ACCEPTED, 1000 + day
        history.save(prev)
    build_from_columns([[f"{i:04d}" for i in range(30)] for _ in range(3)], tmp_path / "ix", min_coverage=2)
    started, release = threading.Event(), threading.Event()
    real = BatchValidator.validate

    def slow(self, *args, **kwargs):  # noqa: ANN001, ANN002, ANN003, ANN202
        started.set()
        release.wait(30)
        return real(self, *args, **kwargs)

    monkeypatch.setattr(BatchValidator, "validate", slow)
    body = {"dataset": "orders", "batch": "b", "patterns": False, "columns": {"n": [str(i) for i in range(20)]}}
    with TestClient(create_app(tmp_path / "ix", Settings(repository=str(repo), slow_lane=1))) as client:
        first: dict = {}
        worker = threading.Thread(target=lambda: first.update(r=client.post("/v1/batches/validate", json=body)))
        worker.start()
        try:
            assert started.wait(30)
            shed = client.post("/v1/batches/validate", json={**body, "batch": "c"})
            assert shed.status_code == 503 and shed.headers["retry-after"] == "1"
            # refused before its body is read: a parsed body "{not json" would answer 422
            junk = client.post("/v1/batches/validate", content=b"{not json",
                               headers={"content-type": "application/json"})
            assert junk.status_code == 503 and junk.headers["retry-after"] == "1"
            assert client.get("/health").status_code == 200
            assert client.get("/v1/patterns/lookup", params={"pattern": "<digit>{4}"}).status_code == 200
        finally:
            release.set()  # a failed assertion must not leave the first request waiting
        worker.join(30)
        assert first["r"].status_code == 200
        assert client.post("/v1/batches/validate", json={**body, "batch": "c"}).status_code == 200  # slot freed


def test_an_invalid_regex_in_a_check_is_bad_input_not_a_java_trace(spark, tmp_path, capsys):
    from lakeindex.checks import Check, VerificationSuite
    from lakeindex.cli import main

    data = tmp_path / "d.csv"
    data.write_text("id,code\n1,AB\n2,CD\n")

    def checks(pattern: str) -> str:
        path = tmp_path / f"c{abs(hash(pattern))}.json"
        path.write_text(json.dumps({"checks": [{"level": "error", "description": "codes", "constraints": [
            {"type": "has_pattern", "column": "code", "pattern": pattern}]}]}))
        return str(path)

    assert main(["check", str(data), "--checks", checks("[A-"), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "invalid regular expression: Illegal character range" in err and "\tat java." not in err
    assert main(["check", str(data), "--checks", checks(r"^\p{Upper}+$"), "--quiet"]) == 0  # Java-only syntax
    capsys.readouterr()
    # the library: the metric fails on the driver with the reason (Deequ's semantics), nothing raises
    result = VerificationSuite().on_data(spark.read.csv(str(data), header=True)) \
        .add_check(Check("error", "x").has_pattern("code", "[A-")).run()
    message = result.check_results[0].constraint_results[0].message
    assert result.status == "Error" and "invalid regular expression" in message


def test_a_garbage_jsonl_batch_is_bad_input(spark, tmp_path, capsys):
    from lakeindex.cli import main

    garbage = tmp_path / "g.jsonl"
    garbage.write_text("not json\n{\"a\":\n")
    assert main(["history", "add", str(garbage), "--repo", str(tmp_path / "r"), "--dataset", "d", "--batch", "b"]) == 2
    assert "no line is a JSON object" in json.loads(capsys.readouterr().err.splitlines()[-1])["error"]


def test_an_index_on_a_read_only_mount_serves(tmp_path):
    """rocksdict rewrites its config file on every open; an index on a read-only mount must still serve.
    Needs a read-only bind mount (root with CAP_SYS_ADMIN, as in CI); skipped where mounting is refused."""
    from lakeindex.index.store import IndexReader

    build_from_columns([[f"{i:04d}-ab" for i in range(30)] for _ in range(3)], tmp_path / "ix", min_coverage=2)
    mnt = tmp_path / "ro"
    mnt.mkdir()
    if subprocess.run(["mount", "--bind", str(tmp_path / "ix"), str(mnt)], capture_output=True).returncode:
        pytest.skip("no bind mounts here")
    try:
        if subprocess.run(["mount", "-o", "remount,bind,ro", str(mnt)], capture_output=True).returncode:
            pytest.skip("no read-only remounts here")
        with pytest.raises(OSError):
            (mnt / "probe").write_text("x")  # the mount really is read-only
        with IndexReader(mnt) as ix:
            assert ix.get("<digit>{4}-ab").coverage == 3
            assert sum(1 for _ in ix.items()) > 0
            shadow = ix._shadow
        assert shadow is not None and not Path(shadow).exists()  # the private links are cleaned up
    finally:
        subprocess.run(["umount", str(mnt)], capture_output=True)


def test_a_bug_is_a_500_not_the_clients_fault(client, monkeypatch):
    """Only known input errors map to 4xx: a ValueError from a bug used to answer 400 (blamed the client)."""
    import query_service.routers.inference as inference

    def broken(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        raise ValueError("a bug")

    monkeypatch.setattr(inference, "catalog_tag", broken)
    with TestClient(client.app, raise_server_exceptions=False) as c:
        assert c.post("/v1/tag", json={"values": ["1234-56"]}).status_code == 500
    assert client.post("/v1/patterns/lookup", json={"patterns": ["<bad"]}).status_code == 400  # input: still 4xx


def test_a_segment_keys_size_estimate_is_close_to_its_written_size():
    """The solver's cache bounds bytes by an estimate of each key: for a key of 300 like-sized group
    entries (a GUID segment), 300 times one entry's ``repr`` is within 5% of the whole key's ``repr``."""
    from lakeindex.fmdv.search import _key_bytes

    key = frozenset(((("w", "A"), "-", ("w", "N")), (f"{i:08X}", None, "-"), (True, False, True)) for i in range(300))
    assert abs(_key_bytes(key) - len(repr(key))) <= 0.05 * len(repr(key))
    assert _key_bytes(("x", 1)) == len(repr(("x", 1)))
