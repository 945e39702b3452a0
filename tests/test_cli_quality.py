"""``lakeindex check`` and ``lakeindex metrics`` run in-process on small files (exit 0 pass, 1 error, 2 bad input).

The in-process CLI uses the session-scoped SparkSession of the ``spark`` fixture (get_spark returns the
active session), so every test that reaches Spark requests the fixture.
"""

from __future__ import annotations

import json

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from lakeindex.cli import main
from tests.conftest import write_csv

# amounts 10.5, 0, -4 and one empty cell (null): mean (10.5 + 0 - 4) / 3 = 2.1667
ORDERS = [["1", "10.5", "new"], ["2", "0", "paid"], ["3", "-4", "paid"], ["4", "", "new"]]
T1, T2 = 1_700_000_000_000, 1_700_000_100_000


@pytest.fixture()
def orders_csv(tmp_path):
    return write_csv(tmp_path / "orders.csv", ["id", "amount", "status"], ORDERS)


def _json_file(path, doc):
    path.write_text(json.dumps(doc), encoding="utf-8")
    return str(path)


def _error(capsys):
    captured = capsys.readouterr()
    assert captured.out == ""
    return json.loads(captured.err.strip().splitlines()[-1])["error"]


def test_check_passes_with_a_failing_warning_and_stores_metrics(spark, orders_csv, tmp_path, capsys):
    checks = _json_file(tmp_path / "checks.json", {"checks": [
        {"level": "error", "description": "hard", "constraints": [
            {"type": "is_complete", "column": "id"}, {"type": "is_unique", "column": "id"},
            {"type": "has_size", "assertion": "== 4"},
            {"type": "has_mean", "column": "amount", "assertion": "between 2.16 and 2.17"},  # numbers inferred
            {"type": "is_non_negative", "column": "amount", "assertion": ">= 0.5"}]},
        {"level": "warning", "description": "soft", "constraints": [
            {"type": "is_non_negative", "column": "amount"}]}]})
    repo = tmp_path / "repo"
    argv = ["check", str(orders_csv), "--checks", checks, "--repo", str(repo), "--dataset", "orders",
            "--tag", "env=test", "--timestamp", str(T1)]
    assert main(argv) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["status"] == "Warning" and [c["status"] for c in out["checks"]] == ["Success", "Warning"]
    assert all("offending_samples" not in c for c in out["checks"][0]["constraints"])
    soft = out["checks"][1]["constraints"][0]
    # 3 of 4 rows comply (the null amount passes); the -4 row is the offender
    assert soft["status"] == "Failure" and soft["metric"]["value"] == 0.75
    assert soft["offending_samples"] == [{"id": 3, "amount": -4.0, "status": "paid"}]
    assert out["saved_to"].startswith(str(repo))

    # a second result under another tag and time: exit 1, and it must not show under env=test
    py = tmp_path / "checks.py"
    py.write_text("from lakeindex.checks import Check\n"
                  "checks = [Check('error', 'statuses').is_contained_in('status', ['new'])]\n")
    assert main(["check", str(orders_csv), "--checks", str(py), "--repo", str(repo), "--dataset", "orders",
                 "--tag", "env=other", "--timestamp", str(T2), "--samples", "1"]) == 1
    out = json.loads(capsys.readouterr().out)
    c = out["checks"][0]["constraints"][0]
    # statuses new, paid, paid, new: half allowed; the offending value with its count
    assert out["status"] == "Error" and c["metric"]["value"] == 0.5
    assert c["offending_samples"] == [{"value": "paid", "count": 2}]

    assert main(["metrics", "--repo", str(repo), "--dataset", "orders", "--tag", "env=test"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    # the first run's distinct analyzers: Completeness(id), Uniqueness(id), Size, Mean(amount), two Compliance
    # (the assertions differ but is_non_negative(amount) is one analyzer for both checks)
    assert sorted(r["name"] for r in lines) == ["Completeness", "Compliance", "Mean", "Size", "Uniqueness"]
    assert {(r["dataset"], r["timestamp_ms"]) for r in lines} == {("orders", T1)}
    assert all(r["tags"] == {"env": "test"} for r in lines)
    assert next(r for r in lines if r["name"] == "Size")["value"] == 4.0
    assert main(["metrics", "--repo", str(repo), "--dataset", "orders", "--analyzer", "Compliance"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [(r["timestamp_ms"], r["tags"], r["instance"], r["value"]) for r in rows] == [
        (T1, {"env": "test"}, "is_non_negative(amount)", 0.75),
        (T2, {"env": "other"}, "is_contained_in(status, ['new'])", 0.5)]
    assert main(["metrics", "--repo", str(repo), "--dataset", "orders", "--after", str(T1 + 1)]) == 0
    later = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert {r["timestamp_ms"] for r in later} == {T2}


def test_check_parquet_file(spark, tmp_path, capsys):
    path = tmp_path / "events.parquet"
    pq.write_table(pa.table({"user": ["a", "b", None], "n": pa.array([1, 2, 3], pa.int64())}), path)
    checks = _json_file(tmp_path / "c.json", {"checks": [{"constraints": [
        {"type": "has_size", "assertion": "== 3"}, {"type": "has_completeness", "column": "user", "assertion": "> 0.6"},
        {"type": "has_sum", "column": "n", "assertion": "== 6"}, {"type": "is_complete", "column": "user"}]}]})
    assert main(["check", str(path), "--checks", checks]) == 1
    out = json.loads(capsys.readouterr().out)
    got = [(c["constraint"], c["status"]) for c in out["checks"][0]["constraints"]]
    assert got == [("has_size == 3", "Success"), ("has_completeness(user) > 0.6", "Success"),
                   ("has_sum(n) == 6", "Success"), ("is_complete(user)", "Failure")]
    assert out["checks"][0]["constraints"][3]["offending_samples"] == [{"user": None, "n": 3}]


def test_check_reads_only_the_data_files_of_a_directory(spark, tmp_path, capsys):
    table = tmp_path / "table"
    write_csv(table / "part[1].csv", ["id", "v"], [["1", "a"], ["2", "b"]])
    write_csv(table / "sub" / "part-2.csv", ["id", "v"], [["3", "c"]])
    (table / "README.md").write_text("not,data\nat,all\n")
    (table / "_SUCCESS").write_text("")
    pq.write_table(pa.table({"id": [9]}), table / "stray.parquet")
    checks = _json_file(tmp_path / "c.json", {"checks": [{"constraints": [
        {"type": "has_size", "assertion": "== 3"}, {"type": "is_unique", "column": "id"},
        {"type": "is_contained_in", "column": "v", "values": ["a", "b", "c"]}]}]})
    assert main(["check", str(table), "--checks", checks]) == 2  # csv and parquet files: which table?
    assert "mixed formats ['csv', 'parquet']" in _error(capsys)
    # --format picks the CSV files, in sub-directories too (names with glob characters are read literally);
    # README.md is not a CSV file of the table
    assert main(["check", str(table), "--checks", checks, "--format", "csv"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["status"] == "Success", out
    size = next(m for m in out["metrics"] if m["name"] == "Size")
    assert size["value"] == 3


def test_check_with_a_declared_schema(spark, orders_csv, tmp_path, capsys):
    # --schema types the CSV without an inference pass; "x" is no DOUBLE and becomes null (missing)
    bad = write_csv(tmp_path / "bad.csv", ["id", "amount", "status"], ORDERS + [["5", "x", "new"]])
    checks = _json_file(tmp_path / "c.json", {"checks": [{"constraints": [
        {"type": "has_mean", "column": "amount", "assertion": "between 2.16 and 2.17"},
        {"type": "has_completeness", "column": "amount", "assertion": "== 0.6"}]}]})
    schema = "id BIGINT, amount DOUBLE, status STRING"
    assert main(["check", str(bad), "--checks", checks, "--schema", schema]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [c["status"] for c in out["checks"][0]["constraints"]] == ["Success", "Success"], out
    # strings (no inference, no schema): Mean refuses the string column
    assert main(["check", str(bad), "--checks", checks, "--no-infer-schema"]) == 1
    assert "string" in json.loads(capsys.readouterr().out)["checks"][0]["constraints"][0]["message"]
    assert main(["check", str(bad), "--checks", checks, "--schema", "id BIGINT, amount DOUBLE,"]) == 2
    assert "not a valid DDL schema" in _error(capsys)
    pq.write_table(pa.table({"id": [1]}), tmp_path / "t.parquet")
    assert main(["check", str(tmp_path / "t.parquet"), "--checks", checks, "--schema", schema]) == 2
    assert "Parquet files carry their own types" in _error(capsys)
    # a schema whose names differ from the header is refused, not applied by position
    assert main(["check", str(bad), "--checks", checks, "--schema", "id BIGINT, price DOUBLE, status STRING"]) == 2
    assert "header has columns ['id', 'amount', 'status'] but --schema declares ['id', 'price', 'status']" \
        in _error(capsys)
    assert main(["profile", str(bad), "--schema", schema]) == 0
    profile = json.loads(capsys.readouterr().out)
    amount = next(c for c in profile["columns"] if c["column"] == "amount")
    assert amount["completeness"] == pytest.approx(0.6), amount


def test_progress_lines_on_stderr_unless_quiet(spark, orders_csv, tmp_path, capsys):
    checks = _json_file(tmp_path / "c.json", {"checks": [{"constraints": [{"type": "has_size", "assertion": "== 4"},
                                                                          {"type": "is_complete", "column": "id"}]}]})
    assert main(["check", str(orders_csv), "--checks", checks]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["status"] == "Success"  # stdout stays pure JSON
    assert "checking 2 constraints (shared passes): " in captured.err and "orders.csv (3 columns)" in captured.err
    assert captured.err.strip().splitlines()[-1].endswith("checking 2 constraints (shared passes): done")
    assert main(["check", str(orders_csv), "--checks", checks, "--quiet"]) == 0
    assert capsys.readouterr().err == ""
    assert main(["profile", str(orders_csv)]) == 0
    assert "profiling (3 passes): done" in capsys.readouterr().err


def test_spark_submit_job_runs_the_quality_commands(spark, orders_csv, tmp_path, capsys):
    from indexer_jobs.check_dataset import main as job

    checks = _json_file(tmp_path / "c.json", {"checks": [{"constraints": [{"type": "has_size", "assertion": "== 5"}]}]})
    assert job(["check", str(orders_csv), "--checks", checks, "--quiet"]) == 1  # 4 rows: the error check fails
    assert json.loads(capsys.readouterr().out)["checks"][0]["constraints"][0]["metric"]["value"] == 4
    assert job(["serve"]) == 2
    assert "runs one of check, profile, suggest, got 'serve'" in _error(capsys)
    out = tmp_path / "result.json"
    assert job(["--output", str(out), "check", str(orders_csv), "--checks", checks]) == 1
    captured = capsys.readouterr()
    assert captured.out == "" and "checking 1 constraints" in captured.err  # progress only; the JSON is in the file
    assert json.loads(out.read_text())["status"] == "Error"
    none = tmp_path / "none.json"
    assert job(["--output", str(none), "check", str(tmp_path / "missing.csv"), "--checks", checks]) == 2
    assert "no such file" in _error(capsys) and not none.exists()


def test_check_bad_input_exits_2_with_a_json_error(spark, orders_csv, tmp_path, capsys):
    good = _json_file(tmp_path / "good.json", {"checks": [{"constraints": [{"type": "has_size", "assertion": "> 0"}]}]})
    assert main(["check", str(tmp_path / "missing.csv"), "--checks", good]) == 2
    assert "no such file or directory" in _error(capsys)

    malformed = tmp_path / "malformed.json"
    malformed.write_text('{"checks": [{"constraints": [}]}')
    assert main(["check", str(orders_csv), "--checks", str(malformed)]) == 2
    assert "malformed.json: not valid JSON" in _error(capsys)

    unknown = _json_file(tmp_path / "unknown.json", {"checks": [
        {"constraints": [{"type": "has_size", "assertion": "> 0"}, {"type": "is_awesome", "column": "id"}]}]})
    assert main(["check", str(orders_csv), "--checks", unknown]) == 2
    msg = _error(capsys)
    assert "checks[0].constraints[1]" in msg and "'is_awesome'" in msg and "is_complete" in msg

    broken_py = tmp_path / "broken.py"
    broken_py.write_text("checks = [\n")
    assert main(["check", str(orders_csv), "--checks", str(broken_py)]) == 2
    assert "broken.py: SyntaxError" in _error(capsys)

    assert main(["check", str(orders_csv), "--checks", str(tmp_path / "nope.json")]) == 2
    assert "no such file" in _error(capsys)

    assert main(["check", str(orders_csv), "--checks", good, "--repo", str(tmp_path / "r")]) == 2
    assert "--repo and --dataset go together" in _error(capsys)

    assert main(["check", str(orders_csv), "--checks", good, "--repo", str(tmp_path / "r"), "--dataset", "d",
                 "--tag", "novalue"]) == 2
    assert "expected key=value" in _error(capsys)

    mixed = tmp_path / "mixed"
    write_csv(mixed / "a.csv", ["id"], [["1"]])
    (mixed / "b.jsonl").write_text('{"id": 2}\n')
    assert main(["check", str(mixed), "--checks", good]) == 2
    assert "mixed formats ['csv', 'jsonl']" in _error(capsys)

    corrupt = tmp_path / "corrupt.parquet"
    corrupt.write_bytes(b"PAR1 this is not a parquet file")
    assert main(["check", str(corrupt), "--checks", good]) == 2
    assert "corrupt.parquet: cannot read as parquet" in _error(capsys)

    unsupported = tmp_path / "notes.txt"
    unsupported.write_text("id\n1\n")
    assert main(["check", str(unsupported), "--checks", good]) == 2
    assert "unsupported file type" in _error(capsys)
