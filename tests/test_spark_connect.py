"""The index build and a check through a real local Spark Connect server (issue 16).

A Connect server is started once for the module (``SparkConnectServer`` through pyspark's own
``spark-submit``, ``local[2]``, on a free loopback port, working directory elsewhere). The commands run as
``lakeindex`` processes, as users run them: pyspark switches its functions to Connect process-wide, so a
Connect client cannot share the test process with the suite's classic session. Oracles: the classic
build of the same lake (key by key), and counts made by hand from the files written.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from lakeindex.index.build import build_index
from lakeindex.index.store import IndexReader
from tests.conftest import write_csv

REPO = Path(__file__).resolve().parents[1]
LAKEINDEX = [sys.executable, "-m", "lakeindex.cli"]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def connect_url(tmp_path_factory):
    import pyspark

    pytest.importorskip("grpc", reason="the Spark Connect client needs pip install 'lakeindex[connect]'")
    home = os.path.dirname(pyspark.__file__)
    port = _free_port()
    cwd = tmp_path_factory.mktemp("connect-server-cwd")  # relative client paths must not resolve here
    env = {**os.environ, "SPARK_HOME": home, "SPARK_LOCAL_IP": "127.0.0.1", "PYSPARK_PYTHON": sys.executable}
    log = open(cwd / "server.log", "wb")  # noqa: SIM115 - closed at teardown
    proc = subprocess.Popen(
        [os.path.join(home, "bin", "spark-submit"),
         "--class", "org.apache.spark.sql.connect.service.SparkConnectServer",
         "--master", "local[2]", "--conf", f"spark.connect.grpc.binding.port={port}",
         "--conf", "spark.connect.grpc.binding.address=127.0.0.1", "--conf", "spark.ui.enabled=false",
         "--conf", "spark.driver.memory=1g"],
        cwd=cwd, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        deadline = time.time() + 180
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if proc.poll() is not None or time.time() > deadline:
                    pytest.fail(f"Spark Connect server did not start: {(cwd / 'server.log').read_text()[-2000:]}")
                time.sleep(0.5)
        yield f"sc://127.0.0.1:{port}"
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
        log.close()


def _run(args: list[str], cwd: Path, env: dict[str, str] | None = None,
         timeout: float = 600) -> subprocess.CompletedProcess:
    """``lakeindex ARGS`` in ``cwd``; SPARK_REMOTE only when ``env`` sets it."""
    full_env = {k: v for k, v in os.environ.items() if k != "SPARK_REMOTE"}
    full_env.update({"PYTHONPATH": str(REPO), **(env or {})})
    return subprocess.run(LAKEINDEX + args, cwd=cwd, env=full_env, capture_output=True, text=True, timeout=timeout)


def _keys(index: Path) -> dict[bytes, bytes]:
    with IndexReader(index) as r:
        return dict(r.items())


def test_index_build_through_connect_equals_the_classic_build(spark, connect_url, tmp_path):
    lake = tmp_path / "lake"
    (lake / "parted").mkdir(parents=True)
    files = sorted(p for p in (REPO / "sample_lake" / "tables").iterdir() if p.is_file())[:5]
    for f in files[:3]:
        shutil.copy(f, lake / f.name)
    for i, f in enumerate(files[3:]):  # two part files of one table: the grouped scan, through Connect too
        shutil.copy(f, lake / "parted" / f"part-{i:05d}-x.c000{f.suffix}")
    build_index(spark, str(lake), tmp_path / "classic", progress=False)
    # a relative lake path, from a directory the server does not run in
    got = _run(["index", "build", "lake", "--out", "via-connect", "--remote", connect_url], cwd=tmp_path)
    assert got.returncode == 0, got.stderr[-3000:]
    meta = json.loads(got.stdout)
    assert meta["spark"]["connect"] is True and meta["spark"]["master"] == "local[2]"
    assert meta["tables_scanned"] == 4
    classic = _keys(tmp_path / "classic")
    assert len(classic) > 1000
    assert _keys(tmp_path / "via-connect") == classic
    # progress came through Connect's progress messages; a stage never shows more finished tasks than it has
    counts = [tuple(map(int, m)) for m in re.findall(r": (\d+)/(\d+) tasks", got.stderr)]
    assert counts, got.stderr[-2000:]
    assert all(done <= total for done, total in counts)


def test_check_through_spark_remote(connect_url, tmp_path):
    rows = [[str(i), "" if i % 4 == 0 else f"u{i}@example.com"] for i in range(1, 41)]
    write_csv(tmp_path / "users.csv", ["id", "email"], rows)
    (tmp_path / "checks.json").write_text(json.dumps({"checks": [{"level": "error", "description": "users",
        "constraints": [{"type": "has_size", "assertion": "== 40"}, {"type": "is_complete", "column": "id"},
                        {"type": "has_completeness", "column": "email", "assertion": ">= 0.9"}]}]}))
    got = _run(["check", "users.csv", "--checks", "checks.json", "--quiet"], cwd=tmp_path,
               env={"SPARK_REMOTE": connect_url})
    assert got.returncode == 1, got.stdout[-2000:] + got.stderr[-2000:]  # email is 30/40 complete: error level
    report = json.loads(got.stdout)
    status = {c["constraint"]: c["status"] for c in report["checks"][0]["constraints"]}
    assert status == {"has_size == 40": "Success", "is_complete(id)": "Success",
                      "has_completeness(email) >= 0.9": "Failure"}
    values = {(m["name"], m["instance"]): m["value"] for m in report["metrics"]}
    assert values[("Size", "*")] == 40
    assert values[("Completeness", "email")] == pytest.approx(30 / 40)  # every 4th of 40 emails is empty


def test_master_with_remote_is_bad_input(tmp_path):
    write_csv(tmp_path / "t.csv", ["a"], [["1"]])
    got = _run(["profile", "t.csv", "--master", "local[1]", "--remote", "sc://127.0.0.1:1"], cwd=tmp_path)
    assert got.returncode == 2
    assert "cannot be combined" in json.loads(got.stderr.strip().splitlines()[-1])["error"]


def test_unreachable_connect_server_fails_fast_with_exit_2(tmp_path):
    write_csv(tmp_path / "t.csv", ["a"], [["1"]])
    # the client's own retries would take minutes (TimeoutExpired fails the test): the probe answers at once
    got = _run(["profile", "t.csv", "--remote", f"sc://127.0.0.1:{_free_port()}"], cwd=tmp_path, timeout=90)
    assert got.returncode == 2
    assert "cannot reach the Spark Connect server" in json.loads(got.stderr.strip().splitlines()[-1])["error"]
