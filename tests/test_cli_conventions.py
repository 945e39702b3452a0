"""CLI conventions users of other data tools expect (issue 13 §6): --version, help on every option, a quiet end
when the reader closes stdout, object-store URIs refused where only local paths work, inputs checked before
Spark starts, and Spark settings from --conf / --properties-file."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from lakeindex.cli import build_parser, main
from lakeindex.index.store import IndexReader
from lakeindex.lake.dataset import DatasetError, read_dataset
from lakeindex.lake.listing import LakeError, list_files
from lakeindex.local_paths import LocalPathError, local_path
from lakeindex.metrics.state_store import FileSystemStateStore
from lakeindex.repository import FileSystemMetricsRepository
from lakeindex.spark_session import SessionError, get_spark, session_from_args, spark_settings

ROOT = Path(__file__).resolve().parents[1]


def test_version_is_the_package_version(capsys):
    expected = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    with pytest.raises(SystemExit) as done:
        main(["--version"])
    assert done.value.code == 0
    assert capsys.readouterr().out.strip() == f"lakeindex {expected}"


def _options_without_help(parser: argparse.ArgumentParser, path: str) -> list[str]:
    missing = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {c.dest: c.help for c in action._choices_actions}
            for name, sub in action.choices.items():
                if not helps.get(name):
                    missing.append(f"{path} {name} (the command)")
                missing += _options_without_help(sub, f"{path} {name}")
        elif not isinstance(action, argparse._HelpAction | argparse._VersionAction) and not action.help:
            missing.append(f"{path} {'/'.join(action.option_strings) or action.dest}")
    return missing


def test_every_command_and_option_has_help_text():
    assert _options_without_help(build_parser(), "lakeindex") == []


def test_a_reader_closing_stdout_ends_the_command_quietly():
    """`lakeindex patterns ... | head -1`: 3,000 values print far more than a pipe holds."""
    proc = subprocess.Popen([sys.executable, "-m", "lakeindex.cli", "patterns", *map(str, range(3000))],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT)
    first = proc.stdout.readline()
    proc.stdout.close()  # what `head -1` does after its line
    stderr = proc.stderr.read().decode()
    assert proc.wait(timeout=60) == 0, stderr
    assert json.loads(first)["value"] == "0"
    assert "Traceback" not in stderr and "BrokenPipe" not in stderr, stderr


@pytest.mark.parametrize("uri", ["s3://bucket/repo", "gs://b/x", "abfss://c@acct.dfs.core.windows.net/r"])
def test_object_store_uris_are_refused_where_only_local_paths_work(uri, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    for opener, what in ((FileSystemMetricsRepository, "metrics repository"), (IndexReader, "index"),
                         (FileSystemStateStore, "state store")):
        with pytest.raises(LocalPathError, match=f"{what} {uri}: a {uri.split(':')[0]}:// URI"):
            opener(uri)
    assert main(["metrics", "--repo", uri]) == 2
    assert "mount the store" in json.loads(capsys.readouterr().err.splitlines()[0])["error"]
    assert main(["index", "info", uri]) == 2
    assert list(tmp_path.iterdir()) == []  # no local directory named after the scheme (the old silent reading)


def test_file_uris_are_local_paths(tmp_path):
    assert local_path(f"file://{tmp_path}/a%20b", "index") == tmp_path / "a b"
    assert local_path(tmp_path / "x", "index") == tmp_path / "x"
    assert FileSystemMetricsRepository(f"file://{tmp_path}/repo").path == tmp_path / "repo"


def test_object_stores_without_their_connector_get_advice_not_a_jvm_stack(spark):
    # Spark without hadoop-aws: the real JVM errors ("No FileSystem for scheme", a missing S3AFileSystem class)
    with pytest.raises(LakeError, match=r"no file system for s3:// \(use s3a://.*hadoop-aws:"):
        list_files(spark, "s3://bucket/lake")
    with pytest.raises(DatasetError, match=r"no file system for s3a:// \(add its connector: .*hadoop-aws:"):
        read_dataset(spark, "s3a://bucket/x.csv", "csv")


def _without_java(tmp_path: Path) -> dict[str, str]:
    empty = tmp_path / "bin"
    empty.mkdir(exist_ok=True)
    env = {k: v for k, v in os.environ.items() if k not in ("JAVA_HOME", "PYSPARK_GATEWAY_PORT", "SPARK_REMOTE")}
    return {**env, "PATH": str(empty), "JAVA_HOME": str(tmp_path / "no-java")}


def test_missing_inputs_are_reported_before_spark_starts(tmp_path):
    """With no Java at all, a missing DATA file is still named (the check runs first); an existing file then
    reaches the Spark start, which reports the missing Java: the order is what the test pins."""
    env = _without_java(tmp_path)
    run = [sys.executable, "-m", "lakeindex.cli", "profile", "--quiet"]
    missing = subprocess.run([*run, str(tmp_path / "nope.csv")], env=env, capture_output=True, text=True,
                             cwd=ROOT, timeout=120)
    assert missing.returncode == 2, missing.stderr
    assert f"data {tmp_path / 'nope.csv'}: no such file or directory" in missing.stderr
    (tmp_path / "there.csv").write_text("a\n1\n")
    present = subprocess.run([*run, str(tmp_path / "there.csv")], env=env, capture_output=True, text=True,
                             cwd=ROOT, timeout=120)
    assert present.returncode == 2 and "java not found" in present.stderr, present.stderr
    lake = subprocess.run([sys.executable, "-m", "lakeindex.cli", "index", "build", str(tmp_path / "no-lake"),
                           "--out", str(tmp_path / "ix")], env=env, capture_output=True, text=True, cwd=ROOT,
                          timeout=120)
    assert lake.returncode == 2 and f"lake {tmp_path / 'no-lake'}: no such file" in lake.stderr, lake.stderr


def test_spark_settings_from_a_properties_file_then_conf(tmp_path):
    props = tmp_path / "spark.conf"
    props.write_text("# cluster defaults\n"
                     "spark.executor.memory   8g\n"
                     "spark.sql.shuffle.partitions=64\n"
                     "\n"
                     "spark.driver.memory: 6g\n"
                     "spark.executor.extraJavaOptions  -XX:+UseG1GC -Dx=1\n")
    got = spark_settings(["spark.sql.shuffle.partitions=8", "spark.app.name=a=b"], str(props))
    assert got == {"spark.executor.memory": "8g", "spark.sql.shuffle.partitions": "8", "spark.driver.memory": "6g",
                   "spark.executor.extraJavaOptions": "-XX:+UseG1GC -Dx=1", "spark.app.name": "a=b"}


@pytest.mark.parametrize("conf,text,message", [
    (["shuffle.partitions=8"], None, r"--conf shuffle.partitions=8: 'shuffle.partitions' is not a Spark setting"),
    (["spark.driver.memory"], None, r"--conf 'spark.driver.memory': expected KEY=VALUE"),
    ([], "spark.ok 1\nlonely\n", r"spark.conf:2: 'lonely' is not 'key value'"),
    ([], "executor.memory 8g\n", r"spark.conf:1: 'executor.memory' is not a Spark setting"),
])
def test_bad_spark_settings_name_where_they_are(tmp_path, conf, text, message):
    path = None
    if text is not None:
        path = tmp_path / "spark.conf"
        path.write_text(text)
    with pytest.raises(SessionError, match=message):
        spark_settings(conf, str(path) if path else None)
    with pytest.raises(SessionError, match="No such file"):
        spark_settings([], str(tmp_path / "missing.conf"))


def test_session_options_reach_the_session(monkeypatch, tmp_path):
    seen = {}
    monkeypatch.setattr("lakeindex.spark_session.get_spark",
                        lambda master, app, extra=None, remote=None, ship=True, quiet=False:
                        seen.update(master=master, extra=extra, quiet=quiet))
    args = build_parser().parse_args(["profile", str(ROOT / "pyproject.toml"), "--conf", "spark.driver.memory=9g",
                                      "--master", "local[1]", "--quiet"])
    session_from_args(args)
    assert seen == {"master": "local[1]", "extra": {"spark.driver.memory": "9g"}, "quiet": True}


def test_spark_connect_refuses_settings_it_cannot_apply():
    # checked before any connection attempt: port 1 on loopback has no server, and the error is not about that
    with pytest.raises(SessionError, match="spark.executor.memory: a Spark Connect client can set only spark.sql"):
        get_spark(remote="sc://127.0.0.1:1", extra={"spark.executor.memory": "8g", "spark.sql.ansi.enabled": "true"})


@pytest.mark.parametrize("argv, usage, hint", [
    (["validate-batch", "data.csv", "--repo", "r", "--dataset", "d", "--dryrun"], "usage: lakeindex validate-batch",
     "did you mean --dry-run?"),
    (["index", "build", "lake", "--out", "ix", "--tua", "8"], "usage: lakeindex index build", "did you mean --tau?"),
])
def test_an_unknown_option_is_reported_under_its_command_with_a_close_match(argv, usage, hint, capsys):
    with pytest.raises(SystemExit) as done:
        main(argv)
    assert done.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith(usage), err
    assert f"unrecognized arguments: {next(a for a in argv[::-1] if a.startswith('--'))}" in err
    assert hint in err


def test_an_unknown_option_without_a_close_match_gets_no_guess(capsys):
    with pytest.raises(SystemExit):
        main(["validate-batch", "data.csv", "--repo", "r", "--dataset", "d", "--zzzzzz"])
    err = capsys.readouterr().err
    assert err.startswith("usage: lakeindex validate-batch") and "did you mean" not in err


def _corrupt_parquet(path: Path, keep_footer: bool) -> Path:
    """A Parquet file whose footer is garbage, or (``keep_footer``) whose footer is intact but whose data pages
    are not: Spark reads its schema, then fails in the scan."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    pq.write_table(pa.table({"a": list(range(5000)), "s": [f"value-{i}" for i in range(5000)]}), path)
    data = bytearray(path.read_bytes())
    if keep_footer:
        data[200:2000] = bytes((b * 7 + 13) % 256 for b in data[200:2000])
    else:
        data[4:-8] = bytes(len(data) - 12)  # the magic "PAR1" at both ends, nothing readable between
    path.write_bytes(bytes(data))
    return path


def test_a_corrupt_file_is_one_line_and_quiet_leaves_only_it(tmp_path):
    """`check --quiet` of a corrupt Parquet file: exit 2 and its error as the only line on stderr (no Java stack
    from the executor's log, no log4j banner, no NativeCodeLoader warning)."""
    bad = _corrupt_parquet(tmp_path / "bad.parquet", keep_footer=False)
    checks = tmp_path / "checks.json"
    checks.write_text(json.dumps({"checks": [{"description": "rows", "level": "error",
                                              "constraints": [{"type": "has_size", "assertion": "> 0"}]}]}))
    env = {k: v for k, v in os.environ.items() if k not in ("PYSPARK_GATEWAY_PORT", "SPARK_REMOTE")}
    done = subprocess.run([sys.executable, "-m", "lakeindex.cli", "check", str(bad), "--checks", str(checks),
                           "--quiet"], env={**env, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True,
                          cwd=ROOT, timeout=600)
    assert done.returncode == 2, done.stderr
    lines = done.stderr.splitlines()  # not even the JVM's incubator-module notice
    assert len(lines) == 1, done.stderr
    message = json.loads(lines[0])["error"]
    assert str(bad) in message and "Parquet" in message


def test_the_notice_filter_drops_the_two_jvm_notices_only():
    """What the JVM writes to stderr under --quiet reaches stderr but for exactly the two notices no log setting
    reaches; a line merely containing one, and a last line without a newline, pass."""
    script = ("import sys\n"
              "from lakeindex.jvm_notice_filter import notice_filter\n"
              "f = notice_filter()\n"
              "f.stdin.write(sys.stdin.buffer.read())\n"
              "f.stdin.close()\n"
              "sys.exit(f.wait() > 1)\n")
    jvm_says = ("WARNING: Using incubator modules: jdk.incubator.vector\n"
                "ERROR Executor: Exception in task 0.0\n"
                "Warning: Java versions > Java 11 can only operate in restricted mode where no off-heap operations are "
                "allowed!\n"
                "  at WARNING: Using incubator modules: jdk.incubator.vector\n"
                "java.lang.OutOfMemoryError: Java heap space")
    done = subprocess.run([sys.executable, "-c", script], input=jvm_says.encode(), capture_output=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stderr.decode().splitlines() == ["ERROR Executor: Exception in task 0.0",
                                                 "  at WARNING: Using incubator modules: jdk.incubator.vector",
                                                 "java.lang.OutOfMemoryError: Java heap space"]


def test_a_file_failing_in_the_scan_is_bad_input_in_one_line(spark, tmp_path, capsys):
    """Not a failed check or a profile with holes: the data cannot be read (exit 2), said in one line."""
    bad = _corrupt_parquet(tmp_path / "pages.parquet", keep_footer=True)
    checks = tmp_path / "checks.json"
    checks.write_text(json.dumps({"checks": [{"description": "a", "level": "error",
                                              "constraints": [{"type": "is_complete", "column": "a"}]}]}))
    for argv in (["check", str(bad), "--checks", str(checks)], ["profile", str(bad)]):
        assert main([*argv, "--quiet"]) == 2, argv
        err = capsys.readouterr().err
        assert len(err.strip().splitlines()) == 1, err
        message = json.loads(err)["error"]
        assert "pages.parquet" in message and "FAILED_READ_FILE" in message and "fix or remove" in message


def test_the_driver_logs_through_the_packaged_log4j2_file_unless_told_otherwise():
    from lakeindex.spark_session import LOG_CONFIG, with_log_config

    assert LOG_CONFIG.is_file() and "rootLogger.level" in LOG_CONFIG.read_text()
    assert with_log_config("") == f"-Dlog4j2.configurationFile={LOG_CONFIG.as_uri()}"
    assert with_log_config("-Xss4m").split() == ["-Xss4m", f"-Dlog4j2.configurationFile={LOG_CONFIG.as_uri()}"]
    own = "-Xss4m -Dlog4j2.configurationFile=file:/etc/spark/log4j2.properties"
    assert with_log_config(own) == own


def test_a_local_driver_compiles_with_c1_alone_unless_told_otherwise(spark):
    from lakeindex.spark_session import with_quick_jit

    assert with_quick_jit("") == "-XX:TieredStopAtLevel=1"
    assert with_quick_jit("-Xss4m").split() == ["-Xss4m", "-XX:TieredStopAtLevel=1"]
    for own in ("-XX:TieredStopAtLevel=4", "-Xss4m -XX:-TieredCompilation"):
        assert with_quick_jit(own) == own
    # the suite's session is a local one this process started: its JVM runs with the flag
    args = spark.sparkContext._jvm.java.lang.management.ManagementFactory.getRuntimeMXBean().getInputArguments()
    assert "-XX:TieredStopAtLevel=1" in list(args)
