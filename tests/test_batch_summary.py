"""validate-batch's output for people and for pipes: a few lines on a terminal, JSON otherwise or with --json,
learned AVH programs only with --programs (pandas batches, no Spark)."""

from __future__ import annotations

import json
import sys

import pytest

from lakeindex.cli import main
from lakeindex.history.batches import BatchHistory
from tests.test_report import DAY, T0, batch

CLEAN = 12


@pytest.fixture(scope="module")
def history(tmp_path_factory):
    """12 clean daily batches of orders, and a next batch with half its amounts missing."""
    base = tmp_path_factory.mktemp("summary")
    h = BatchHistory(str(base / "repo"), "orders")
    for day in range(CLEAN):
        h.add(batch(day, day), f"b{day:02d}", timestamp_ms=T0 + day * DAY)
    bad = batch(CLEAN, 99)
    bad.loc[bad.index % 2 == 0, "amount"] = None
    bad.to_csv(base / "bad.csv", index=False)
    return base


def _validate(history, *extra: str) -> int:
    return main(["validate-batch", str(history / "bad.csv"), "--repo", str(history / "repo"), "--dataset", "orders",
                 "--batch", "b12", "--dry-run", "--quiet", "--engine", "local", *extra])


def test_a_terminal_gets_a_short_summary_naming_what_failed_and_why(history, capsys, monkeypatch):
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    assert _validate(history) == 1
    out = capsys.readouterr().out
    lines = out.strip().splitlines()
    assert lines[0] == "orders batch b12: FLAGGED (not recorded)"
    assert len(lines) <= 15 and len(out) < 2000, out
    avh = next(i for i, line in enumerate(lines) if line.split()[0] == "avh")
    assert "FAILED" in lines[avh]
    # the evidence: the column and the clause it broke, with the batch's value (half the amounts missing)
    assert any("amount" in line and "complete_ratio" in line and "value 0.5" in line for line in lines[avh + 1:])
    passed = [line.split()[0] for line in lines[2:] if line.startswith("  ") and ": " in line and " passed" in line]
    assert "schema" in passed
    assert "{" not in out  # no JSON


def test_pipes_and_json_get_the_report_without_programs_unless_asked(history, capsys, monkeypatch):
    assert _validate(history) == 1  # captured stdout is no terminal
    report = json.loads(capsys.readouterr().out)
    avh = next(s for s in report["signals"] if s["signal"] == "avh")
    assert avh["status"] == "failed" and "amount" in avh["failing_columns"] and "programs" not in avh
    assert _validate(history, "--programs") == 1
    avh = next(s for s in json.loads(capsys.readouterr().out)["signals"] if s["signal"] == "avh")
    assert set(avh["programs"]) == {"amount", "country", "order_id"}
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    assert _validate(history, "--json") == 1
    assert json.loads(capsys.readouterr().out)["verdict"] == "flagged"


def test_avh_check_leaves_the_programs_out_unless_asked(history, capsys):
    argv = ["avh", "check", str(history / "bad.csv"), "--repo", str(history / "repo"), "--dataset", "orders",
            "--quiet", "--engine", "local"]
    assert main(argv) == 1
    out = json.loads(capsys.readouterr().out)
    assert "amount" in out["failing_columns"] and "programs" not in out
    assert main([*argv, "--programs"]) == 1
    assert set(json.loads(capsys.readouterr().out)["programs"]) == {"amount", "country", "order_id"}
