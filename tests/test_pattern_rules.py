"""Pattern rules in the checks world (issue 13 §2): FMDV-VH rules learned against a lake's index become
has_pattern suggestions with their evidence, profile shows each text column's pattern, and infer reads a
column of a dataset with Spark."""

from __future__ import annotations

import json
import math
import os
import random
import re
import subprocess
import sys
from pathlib import Path

import pytest

from lakeindex.checks import VerificationSuite, checks_from_dict
from lakeindex.cli import main
from lakeindex.index import build as job
from lakeindex.index.store import read_meta
from lakeindex.lake.dataset import read_dataset
from lakeindex.suggestions.suggest import ConstraintSuggestionRunner
from tests.conftest import write_csv
from tests.test_index_build import make_lake

ROWS = 60


@pytest.fixture(scope="module")
def indexed(spark, tmp_path_factory):
    """An index over 8 tables of order ids, dates, IPs..., and a new dataset with an order id and a note."""
    root = tmp_path_factory.mktemp("patterns")
    job.build_index(spark, str(make_lake(root / "lake", range(8))), root / "ix", min_coverage=1, progress=False)
    rng = random.Random(99)
    ids = [f"ORD-{rng.randint(0, 999999):06d}" for _ in range(ROWS)]
    notes = [rng.choice(["call back", "gift wrap please", "leave at door", ""]) for _ in range(ROWS)]
    write_csv(root / "orders.csv", ["order_id", "note"], [[i, n] for i, n in zip(ids, notes, strict=True)])
    return {"root": root, "ix": str(root / "ix"), "data": str(root / "orders.csv"), "ids": ids}


def test_suggest_with_an_index_adds_has_pattern_with_its_evidence(spark, indexed):
    df = read_dataset(spark, indexed["data"], infer_schema=False)
    result = ConstraintSuggestionRunner().on_data(df).with_pattern_index(indexed["ix"]).run()
    found = [s for s in result.suggestions if s.rule == "PatternRule" and s.column == "order_id"]
    assert len(found) == 1
    s = found[0]
    regex = s.constraint["pattern"]
    assert all(re.fullmatch(regex, v) for v in indexed["ids"])  # every generated id conforms
    for other in ("ORD-12345", "ord-123456", "2019-01-02", "10.0.0.1"):  # other formats do not
        assert not re.fullmatch(regex, other), other
    assert s.current_value["index_version"] == read_meta(indexed["ix"])["version"]
    assert s.current_value["sample_values"] == ROWS and s.current_value["nonconforming_in_sample"] == 0
    assert 0 <= s.current_value["fpr"] <= 1 and s.current_value["coverage"] >= 1
    # no value out of 60 failed: allowance 3/60 (rule of three), bound floor((1 - 0.05) * 1e4) / 1e4
    assert s.constraint["assertion"] == f">= {math.floor((1 - 3 / ROWS) * 10_000) / 10_000:g}" == ">= 0.95"
    plain = ConstraintSuggestionRunner().on_data(df).run()
    assert not any(x.rule == "PatternRule" for x in plain.suggestions)
    assert result.profile.passes == plain.profile.passes + 1  # the bounded sample is one more job
    assert result.profile["order_id"].pattern["pattern"] is not None


def test_suggested_pattern_checks_pass_on_the_data_and_catch_a_drift(spark, indexed, tmp_path):
    df = read_dataset(spark, indexed["data"], infer_schema=False)
    doc = ConstraintSuggestionRunner().on_data(df).with_pattern_index(indexed["ix"]).run().to_check_json()
    pattern_only = {"checks": [{**doc["checks"][0], "constraints": [
        c for c in doc["checks"][0]["constraints"] if c["type"] == "has_pattern" and c["column"] == "order_id"]}]}
    checks = checks_from_dict(json.loads(json.dumps(pattern_only)))
    assert VerificationSuite().on_data(df).add_checks(checks).run().status == "Success"
    # upstream switches 10 of 60 ids (17%) to a 5-digit format: beyond the 5% allowance
    drifted = [[i if k >= 10 else i[:-1], ""] for k, i in enumerate(indexed["ids"])]
    write_csv(tmp_path / "drifted.csv", ["order_id", "note"], drifted)
    bad = read_dataset(spark, str(tmp_path / "drifted.csv"), infer_schema=False)
    assert VerificationSuite().on_data(bad).add_checks(checks).run().status == "Error"


def test_profile_and_infer_commands_learn_from_the_dataset(indexed, capsys):
    assert main(["profile", indexed["data"], "--index", indexed["ix"], "--quiet"]) == 0
    columns = {c["column"]: c for c in json.loads(capsys.readouterr().out)["columns"]}
    profiled = columns["order_id"]["pattern"]
    assert profiled["index_version"] == read_meta(indexed["ix"])["version"]
    assert main(["infer", "--index", indexed["ix"], "--data", indexed["data"], "--column", "order_id"]) == 0
    rule = json.loads(capsys.readouterr().out)
    assert rule["feasible"] and rule["train_size"] == ROWS
    pattern = "".join(seg["pattern"] for seg in rule["segments"])
    assert pattern == profiled["pattern"]  # the same sample, the same rule
    assert main(["infer", "--index", indexed["ix"], "--data", indexed["data"], "--column", "nope"]) == 2
    assert "no column 'nope'" in capsys.readouterr().err


def test_infer_on_one_small_local_file_needs_no_java_and_learns_what_spark_reading_gives(indexed, tmp_path, capsys):
    args = ["infer", "--index", indexed["ix"], "--data", indexed["data"], "--column", "note", "--sample", "25"]
    no_java = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1]),
               "JAVA_HOME": str(tmp_path / "no-java"), "PATH": os.path.dirname(sys.executable)}
    local = subprocess.run([sys.executable, "-m", "lakeindex", *args], env=no_java, capture_output=True, text=True,
                           timeout=300)
    assert local.returncode == 0, local.stderr[-2000:]
    assert main([*args, "--master", "local[2]"]) == 0  # --master asks for Spark's reader
    rule = json.loads(local.stdout)
    assert rule == json.loads(capsys.readouterr().out)
    # the first 25 non-empty notes of the file, as written
    with open(indexed["data"], encoding="utf-8") as fh:
        notes = [line.rstrip("\n").split(",")[1] for line in fh.readlines()[1:]]
    assert rule["train_size"] == 25 == len([n for n in notes if n][:25])


def test_suggest_restricted_to_columns_runs(indexed, capsys):
    """`suggest --columns` called a method that did not exist (exit 3)."""
    assert main(["suggest", indexed["data"], "--columns", "order_id", "--index", indexed["ix"], "--quiet"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert {s["column"] for s in out["suggestions"]} == {"order_id"}
    assert any(s["rule"] == "PatternRule" for s in out["suggestions"])
