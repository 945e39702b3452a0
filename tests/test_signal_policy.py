"""validate-batch signal policies (issue 13 §4): a signal warms up until its minimum history, and a warn-severity
failure is reported without flagging the batch."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from lakeindex.cli import main
from lakeindex.validation.policy import DEFAULT_POLICIES, PolicyError, SignalPolicy, load_policies, policies_from_dict
from lakeindex.validation.validator import BatchValidator


class Fixed:
    """A signal whose verdict the test decides."""

    def __init__(self, name: str, status: str) -> None:
        self.name, self.status = name, status

    def evaluate(self, batch) -> dict:
        return {"signal": self.name, "status": self.status, "evidence": 42}


def _report(signals, policies, clean: int) -> dict:
    history = SimpleNamespace(dataset="orders")
    new = SimpleNamespace(batch_id="b", notes={"rows": 3})
    return BatchValidator(signals, policies).validate(history, new, [object()] * clean, record=False)


def test_a_signal_under_its_minimum_history_warms_up_and_cannot_flag():
    policies = {"novelty": SignalPolicy("error", 5), "avh": SignalPolicy("error", 0)}
    report = _report([Fixed("novelty", "failed"), Fixed("avh", "passed")], policies, clean=4)
    novelty = report["signals"][0]
    assert novelty["status"] == "warming_up" and novelty["would_fail"] is True and novelty["evidence"] == 42
    assert "4 clean batches; this signal may fail batches from 5 on" == novelty["warming_up"]
    assert report["verdict"] == "passed" and report["failing_signals"] == [] and report["warming_up"] == ["novelty"]
    armed = _report([Fixed("novelty", "failed")], policies, clean=5)  # the 5th clean batch arms it
    assert armed["verdict"] == "flagged" and armed["failing_signals"] == ["novelty"]
    skipped = _report([Fixed("novelty", "skipped")], policies, clean=1)  # a skip stays a skip
    assert skipped["signals"][0]["status"] == "skipped"


def test_warn_severity_reports_without_flagging():
    policies = {"novelty": SignalPolicy("warn", 0), "avh": SignalPolicy("error", 0)}
    report = _report([Fixed("novelty", "failed"), Fixed("avh", "passed")], policies, clean=10)
    assert report["verdict"] == "passed" and report["warning_signals"] == ["novelty"]
    assert [s["severity"] for s in report["signals"]] == ["warn", "error"]
    both = _report([Fixed("novelty", "failed"), Fixed("avh", "failed")], policies, clean=10)
    assert both["verdict"] == "flagged" and both["failing_signals"] == ["avh"]
    assert both["warning_signals"] == ["novelty"]


def test_policy_files_override_defaults_and_name_what_is_valid(tmp_path):
    path = tmp_path / "signals.yaml"
    path.write_text("signals:\n  novelty: {severity: warn}\n  avh:\n    min_history: 9\n")
    got = load_policies(path)
    assert got["novelty"] == SignalPolicy("warn", DEFAULT_POLICIES["novelty"].min_history)
    assert got["avh"] == SignalPolicy(DEFAULT_POLICIES["avh"].severity, 9)
    assert got["schema"] == DEFAULT_POLICIES["schema"]
    for doc, message in [
        ({"signals": {"knn": {}}}, r"unknown signal 'knn'; signals are schema, avh, novelty, patterns, checks"),
        ({"signals": {"avh": {"min_hist": 3}}}, r"unknown setting\(s\) min_hist; valid: severity, min_history"),
        ({"signals": {"avh": {"severity": "fatal"}}}, r"signals.avh: severity 'fatal': expected one of error, warn"),
        ({"signals": {"avh": {"min_history": -1}}}, r"min_history -1: expected a whole number >= 0"),
        ({"signal": {}}, r"expected a mapping with one key 'signals'"),
    ]:
        with pytest.raises(PolicyError, match=message):
            policies_from_dict(doc)


def test_validate_batch_refuses_a_bad_policy_file_with_exit_2(tmp_path, capsys):
    (tmp_path / "p.json").write_text('{"signals": {"novelty": {"severity": "loud"}}}')
    (tmp_path / "b.csv").write_text("a\n1\n")
    code = main(["validate-batch", "--repo", str(tmp_path / "repo"), "--dataset", "d", str(tmp_path / "b.csv"),
                 "--signals-config", str(tmp_path / "p.json"), "--quiet", "--engine", "local"])
    assert code == 2
    assert "severity 'loud'" in capsys.readouterr().err


def test_the_service_applies_its_signals_config(tmp_path):
    """`lakeindex serve --signals-config F`: the service's batch validation uses the file's policies."""
    import random
    import string

    from fastapi.testclient import TestClient

    from lakeindex.history.batches import BatchHistory
    from lakeindex.index.local_build import build_from_columns
    from query_service.app import create_app
    from query_service.settings import Settings
    from tests.test_report import DAY, T0, batch

    rnd = random.Random(1)
    index = tmp_path / "ix"
    build_from_columns([["".join(rnd.choices(string.ascii_uppercase, k=4)) for _ in range(30)] for _ in range(10)],
                       index)
    repo = str(tmp_path / "repo")
    h = BatchHistory(repo, "orders")
    for day in range(12):
        h.add(batch(day, day, rows=200), f"d{day}", timestamp_ms=T0 + day * DAY)
    bad = batch(12, 12, rows=200)
    bad["amount"] = bad["amount"] * 1000  # a unit change: AVH's mean clause fails
    body = {"dataset": "orders", "batch": "new", "patterns": False,
            "columns": {c: [str(v) for v in bad[c]] for c in bad.columns}}
    with TestClient(create_app(index, Settings(repository=repo))) as client:
        r = client.post("/v1/batches/validate", json=body).json()
        assert r["verdict"] == "flagged" and "avh" in r["failing_signals"]
    policy = tmp_path / "signals.yaml"
    policy.write_text("signals:\n  avh: {severity: warn}\n", encoding="utf-8")
    with TestClient(create_app(index, Settings(repository=repo, signals_config=str(policy)))) as client:
        r = client.post("/v1/batches/validate", json=body).json()
        assert r["verdict"] == "passed" and "avh" in r["warning_signals"] and r["failing_signals"] == []
    policy.write_text("signals:\n  avh: {severity: fatal}\n", encoding="utf-8")
    with pytest.raises(ValueError, match="severity 'fatal'"):
        create_app(index, Settings(repository=repo, signals_config=str(policy)))
