"""Running on clusters (issue 16): the executors' zip, task counts after retries, shuffles sized by the data.

The cluster recipe itself runs against a real standalone cluster in ``tests/test_cluster.py`` (opt-in) and
``bench/cluster_build.py``; Spark Connect in ``tests/test_spark_connect.py``.
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path
from types import SimpleNamespace

import pytest

import lakeindex
from lakeindex.executor_code import EXECUTOR_PACKAGES, executor_requirements, package_zip, write_package
from lakeindex.progress import Progress, stage_tasks
from lakeindex.shuffle_sizing import local_input_bytes, shuffle_partitions, sized_shuffles
from lakeindex.spark_session import ship_code
from tests.conftest import write_csv

REPO = Path(__file__).resolve().parents[1]
MB = 1 << 20


def test_package_zip_is_importable_by_a_python_that_only_has_the_zip(tmp_path):
    zpath = package_zip(tmp_path)
    assert zpath.name == f"lakeindex-{lakeindex.__version__}.zip"
    names = zipfile.ZipFile(zpath).namelist()
    sources = {p.relative_to(REPO).as_posix() for p in (REPO / "lakeindex").rglob("*.py")}
    assert set(names) == sources  # every module, no bytecode, nothing else
    # the executor side of the index build, imported from the zip first on sys.path (as pyspark puts py-files)
    code = ("import sys; sys.path.insert(0, sys.argv[1]); import lakeindex.index.scan as s, lakeindex.index.build; "
            "print(s.__file__)")
    got = subprocess.run([sys.executable, "-c", code, str(zpath)], capture_output=True, text=True, cwd=tmp_path,
                         timeout=120)
    assert got.returncode == 0, got.stderr
    assert got.stdout.strip().startswith(str(zpath))


@pytest.mark.parametrize(("umask", "mode"), [(0o022, 0o644), (0o027, 0o640)])
def test_package_writes_files_other_accounts_may_read_as_the_umask_allows(tmp_path, umask, mode):
    old = os.umask(umask)
    try:
        written = write_package(tmp_path / "dist")
    finally:
        os.umask(old)
    for name in ("zip", "executor_requirements"):
        assert stat.S_IMODE(os.stat(written[name]).st_mode) == mode, name


def test_package_zip_bytes_do_not_depend_on_when_it_was_built(tmp_path):
    a, b = package_zip(tmp_path / "a"), package_zip(tmp_path / "b")
    assert a.read_bytes() == b.read_bytes()


def test_executor_requirements_carry_the_floors_pyproject_declares():
    declared = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["dependencies"]
    floors = {d.split(">")[0].split("<")[0].strip(): d for d in declared}
    got = executor_requirements()
    assert [r.split(">")[0].split("<")[0].strip() for r in got] == list(EXECUTOR_PACKAGES)
    for req in got:
        name = req.split(">")[0].split("<")[0].strip()
        wanted = {p.strip() for p in floors[name][len(name):].split(",")}
        assert {p.strip() for p in req[len(name):].split(",")} == wanted


def test_a_local_session_ships_nothing(spark):
    assert ship_code(spark) is None


def test_a_retried_task_is_counted_once():
    # stage 1: 11 tasks, 14 completions (3 resubmitted after an executor was lost); stage 2: 2 of 4 done
    assert stage_tasks([(14, 11), (2, 4)]) == (13, 15)
    assert stage_tasks([]) is None


class _Tracker:
    """A status tracker whose active stages the test sets: {stage id: (completed, tasks)}."""

    def __init__(self) -> None:
        self.active: dict[int, tuple[int, int]] = {}

    def getActiveStageIds(self) -> list[int]:  # noqa: N802 - pyspark's name
        return list(self.active)

    def getStageInfo(self, sid: int) -> SimpleNamespace:  # noqa: N802
        done, num = self.active[sid]
        return SimpleNamespace(numCompletedTasks=done, numTasks=num)


def test_task_counts_run_over_the_whole_command_not_per_stage():
    tracker = _Tracker()
    prog = Progress(SimpleNamespace(sparkContext=SimpleNamespace(statusTracker=lambda: tracker)), enabled=False)
    tracker.active = {1: (2, 4)}
    assert prog._tasks() == (2, 4)
    tracker.active = {2: (1, 3)}  # stage 1 finished (4 of 4), stage 2 started: 5 of 7, not 1 of 3
    assert prog._tasks() == (5, 7)
    tracker.active = {2: (3, 3), 3: (0, 10)}
    assert prog._tasks() == (7, 17)
    tracker.active = {}
    assert prog._tasks() == (17, 17)


def test_connect_task_counts_add_up_over_operations():
    seen = []
    prog = Progress(None, enabled=False)
    prog._report = lambda t, force=False: seen.append(t)  # what would be printed
    stage = lambda sid, done, num: SimpleNamespace(stage_id=sid, num_completed_tasks=done, num_tasks=num)  # noqa: E731
    prog._on_connect_progress([stage(0, 1, 2)], 1, "op-a", False)
    prog._on_connect_progress([stage(0, 2, 2), stage(1, 3, 3)], 0, "op-a", True)
    prog._on_connect_progress([stage(0, 1, 4)], 3, "op-b", False)  # a second query: its stage 0 is another stage
    assert seen == [(1, 2), (5, 5), (6, 9)]


@pytest.mark.parametrize(("size", "slots", "expected"), [
    (3 * MB, 200, 1),              # a 3 MB table on a 200-slot cluster: one reduce task, not 200
    (100 * MB, 200, 4),            # one partition per 32 MB
    (1024 * MB, 2, 8),             # two waves of 2 slots = 4 < 1 GB / 128 MB = 8
    (10 * 1024 * MB, 400, 320),    # 10 GB: 320 partitions of 32 MB fit in two waves of 400 slots
    (None, 16, 32),                # unknown size: two waves
    (0, 8, 1),
])
def test_shuffle_partitions_follow_the_data_size(size, slots, expected):
    assert shuffle_partitions(size, slots) == expected


def test_local_input_bytes_is_the_size_of_the_files_read(spark, tmp_path):
    a = write_csv(tmp_path / "t" / "a.csv", ["x"], [[str(i)] for i in range(100)])
    b = write_csv(tmp_path / "t" / "b.csv", ["x"], [[str(i)] for i in range(50)])
    df = spark.read.option("header", True).csv(str(tmp_path / "t"))
    assert local_input_bytes(df) == a.stat().st_size + b.stat().st_size
    assert local_input_bytes(spark.range(3)) is None


def test_sized_shuffles_restore_the_callers_settings(spark):
    key = "spark.sql.shuffle.partitions"
    before = spark.conf.get(key)
    spark.conf.set(key, "173")
    try:
        with sized_shuffles(spark, 5 * MB) as n:
            assert n == 1 and spark.conf.get(key) == "1"
        assert spark.conf.get(key) == "173"
    finally:
        spark.conf.set(key, before)


def test_a_metric_run_on_a_200_partition_session_does_not_run_200_reduce_tasks(spark, tmp_path):
    from lakeindex.metrics import Uniqueness, run_analysis

    path = write_csv(tmp_path / "u.csv", ["k"], [[str(i % 7)] for i in range(70)])
    df = spark.read.option("header", True).csv(str(path))
    sc = spark.sparkContext
    saved = {k: spark.conf.get(k) for k in ("spark.sql.shuffle.partitions", "spark.sql.adaptive.enabled")}
    spark.conf.set("spark.sql.shuffle.partitions", "200")  # a cluster's default
    spark.conf.set("spark.sql.adaptive.enabled", "false")  # and nothing to coalesce it
    sc.setJobGroup("issue16-shuffle", "sized shuffles")
    try:
        ctx = run_analysis(df, [Uniqueness(("k",))])
    finally:
        sc.setLocalProperty("spark.jobGroup.id", None)
        for k, v in saved.items():
            spark.conf.set(k, v)
    assert ctx.metric(Uniqueness(("k",))).value == 0.0  # 7 keys, each 10 times: none unique
    tracker = sc.statusTracker()
    stages = [s for j in tracker.getJobIdsForGroup("issue16-shuffle") for s in tracker.getJobInfo(j).stageIds]
    tasks = [tracker.getStageInfo(s).numTasks for s in stages if tracker.getStageInfo(s)]
    assert tasks and max(tasks) < 200


def test_parallelism_of_a_connect_session_reads_its_masters_cores():
    from lakeindex.spark_session import parallelism

    class Conf:
        def __init__(self, values: dict[str, str]) -> None:
            self.values = values

        def get(self, key: str, default: str | None = None) -> str | None:
            return self.values.get(key, default)

    fake = type("SparkSession", (), {"__module__": "pyspark.sql.connect.session"})
    session = fake()
    session.conf = Conf({"spark.master": "local[3]"})
    assert parallelism(session) == 3  # local[3]: three slots, whatever this machine's CPU count
    session.conf = Conf({"spark.master": "spark://h:7077", "spark.executor.instances": "4",
                         "spark.executor.cores": "2"})
    assert parallelism(session) == 8
