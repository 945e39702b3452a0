"""CLI behaviour that needs no Spark: errors, infer on a small published index, P(v) listing."""

from __future__ import annotations

import json
import re

import pytest

from lakeindex import spark_defaults, spark_session
from lakeindex.cli import main
from lakeindex.index.format import IMPURITY_SCALE, pack
from lakeindex.index.store import VersionBuilder, write_sst
from lakeindex.patterns import value_patterns

LIMITS = {"tau": 8, "max_subruns": 3, "max_constants": 2, "const_share": 16, "max_shapes": 256}


@pytest.fixture()
def locale_index(tmp_path):
    """An index where lower-case locale columns are pure and en-US columns make <letter> impure."""
    entries = {}
    for p in value_patterns("en-us"):
        entries[p] = (0, 40)
    entries["<letter>{2}-<letter>{2}"] = (0, 60)
    entries["en-<lower>{2}"] = (30 * IMPURITY_SCALE // 2, 30)  # half impure in 30 columns
    b = VersionBuilder(tmp_path / "ix")
    write_sst(b.new_sst_path(), ((k.encode(), pack(*v)) for k, v in sorted(entries.items())))
    b.publish({"limits": LIMITS, "min_coverage": 2, "impurity_scale": IMPURITY_SCALE, "columns_scanned": 1000})
    return tmp_path / "ix"


def test_infer_prefers_specific_zero_fpr_pattern(locale_index, tmp_path, capsys):
    values = tmp_path / "v.txt"
    values.write_text("en-us\nde-de\nfr-fr\n")
    assert main(["infer", "--index", str(locale_index), "--values", str(values), "--method", "fmdv"]) == 0
    rule = json.loads(capsys.readouterr().out)
    assert rule["feasible"] and rule["fpr"] == 0.0 and rule["params"]["m"] == 2  # 0.1% of 1000, floor 2
    assert rule["pattern"] == "<lower>{2}-<lower>{2}"
    assert rule["regex"] == "^[a-z]{2}\\-[a-z]{2}$"


def test_infer_reports_infeasible_instead_of_dot_star(locale_index, tmp_path, capsys):
    values = tmp_path / "v.json"
    values.write_text(json.dumps(["the quick brown fox jumps over the lazy dog", "hello"]))
    assert main(["infer", "--index", str(locale_index), "--values-json", str(values)]) == 0
    rule = json.loads(capsys.readouterr().out)
    assert rule["feasible"] is False and rule["pattern"] is None and rule["reason"]


def test_bad_values_json_is_exit_2(locale_index, tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text('{"not": "a list"}')
    assert main(["infer", "--index", str(locale_index), "--values-json", str(bad)]) == 2
    assert "JSON array of strings" in json.loads(capsys.readouterr().err)["error"]


def test_patterns_command_lists_regexes(capsys):
    # P("9:07") by hand (hierarchy of lakeindex.patterns.hierarchy): each digit word has 6 nodes (itself,
    # <digit>{k}, <digit>+, <num>, <alphanum>{k}, <alphanum>+; <all> is not a key) and ":" stays literal.
    # With up to 2 constants every combination counts: 6 * 6 = 36. Sorted, "9" (0x39) sorts before "<"
    # (0x3c), "07" before "<", and "+" (0x2b) before "{" (0x7b).
    nine = ["9", "<digit>{1}", "<digit>+", "<num>", "<alphanum>{1}", "<alphanum>+"]
    seven = ["07", "<digit>{2}", "<digit>+", "<num>", "<alphanum>{2}", "<alphanum>+"]
    by_hand = sorted(f"{a}:{b}" for a in nine for b in seven)
    assert len(by_hand) == 36 and by_hand[:3] == ["9:07", "9:<alphanum>+", "9:<alphanum>{2}"]
    assert main(["patterns", "9:07", "--limit", "3"]) == 0
    row = json.loads(capsys.readouterr().out)
    assert row["value"] == "9:07" and row["tokens"] == 3 and row["patterns"] == 36
    assert [s["pattern"] for s in row["sample"]] == by_hand[:3]
    # each regex is anchored and means its pattern: the constant only itself, <alphanum> an ASCII letter or
    # digit, + one or more, {2} exactly two
    exact, alnum_plus, alnum_two = (re.compile(s["regex"]) for s in row["sample"])
    assert all(s["regex"].startswith("^") and s["regex"].endswith("$") for s in row["sample"])
    assert all(r.fullmatch("9:07") for r in (exact, alnum_plus, alnum_two))
    assert not exact.fullmatch("9:08") and not exact.fullmatch("9x07")
    assert alnum_plus.fullmatch("9:aZ5") and not alnum_plus.fullmatch("9:") and not alnum_plus.fullmatch("9:0-7")
    assert alnum_two.fullmatch("9:aZ") and not alnum_two.fullmatch("9:007") and not alnum_two.fullmatch("8:07")
    # one JSON line per value; a value wider than tau (3 tokens > 2) has no patterns at all
    assert main(["patterns", "9:07", "en-us", "--tau", "2", "--limit", "1"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [(r["value"], r["tokens"], r["patterns"], r["sample"]) for r in rows] == [
        ("9:07", 3, 0, []), ("en-us", 3, 0, [])]


def test_missing_java_is_a_clear_error(monkeypatch):
    from pyspark.sql import SparkSession

    monkeypatch.setattr(SparkSession, "getActiveSession", staticmethod(lambda: None))
    monkeypatch.setenv("JAVA_HOME", "/nonexistent")
    monkeypatch.setattr(spark_defaults.shutil, "which", lambda name: None)
    with pytest.raises(spark_session.SparkUnavailable, match="Java 17"):
        spark_session.get_spark("local[1]")


def test_validate_exit_codes(locale_index, tmp_path, capsys):
    values = tmp_path / "v.txt"
    values.write_text("en-us\nde-de\nfr-fr\n" * 20)
    assert main(["infer", "--index", str(locale_index), "--values", str(values)]) == 0
    rule = tmp_path / "rule.json"
    rule.write_text(capsys.readouterr().out)
    assert main(["validate", "--rule", str(rule), "--values", str(values)]) == 0
    assert json.loads(capsys.readouterr().out)["passed"] is True
    drift = tmp_path / "drift.json"
    drift.write_text(json.dumps(["en-US", "de-DE"] * 30))
    assert main(["validate", "--rule", str(rule), "--values-json", str(drift)]) == 1
    out = json.loads(capsys.readouterr().out)
    assert out["flagged"] and out["offending_sample"][0]["value"] in ("en-US", "de-DE")
    (tmp_path / "bad.json").write_text("{")
    assert main(["validate", "--rule", str(tmp_path / "bad.json"), "--values", str(values)]) == 2
    # an empty batch is not a pass, and a significance level must lie strictly between 0 and 1
    capsys.readouterr()
    (tmp_path / "empty.txt").write_text("\n\n")
    assert main(["validate", "--rule", str(rule), "--values", str(tmp_path / "empty.txt")]) == 2
    assert "no non-empty value" in capsys.readouterr().err
    for alpha in ("0", "1", "-0.5"):
        assert main(["validate", "--rule", str(rule), "--values", str(values), "--alpha", alpha]) == 2
        assert "between 0 and 1" in capsys.readouterr().err


def test_a_directory_given_as_checks_says_so(tmp_path):
    from lakeindex.checks.checks_file import ChecksFileError, load_checks

    with pytest.raises(ChecksFileError, match="a directory, not a checks file"):
        load_checks(tmp_path)
    with pytest.raises(ChecksFileError, match="no such file"):
        load_checks(tmp_path / "missing.json")


def test_serve_runs_with_the_interpreters_collector(monkeypatch, index):
    """The console script tunes the collector for one-shot commands; ``serve`` stays up, so it runs with
    CPython's documented default thresholds (700, 10, 10), under which its latency was measured."""
    import gc
    import logging.config

    import uvicorn

    from lakeindex.cli import CONSOLE_GC_THRESHOLD

    seen = {}
    monkeypatch.setattr(uvicorn, "run", lambda *a, **k: seen.setdefault("threshold", gc.get_threshold()))
    # serve configures the process's logging: keep the test process's (pytest's streams close after the test)
    monkeypatch.setattr(logging.config, "dictConfig", lambda config: None)
    monkeypatch.setattr(logging, "captureWarnings", lambda capture: None)
    before = gc.get_threshold()
    gc.set_threshold(*CONSOLE_GC_THRESHOLD)  # as console_main leaves it
    try:
        assert main(["serve", "--index", str(index)]) == 0
    finally:
        gc.set_threshold(*before)
    assert seen["threshold"] == (700, 10, 10)


def test_serve_says_where_it_listens_and_which_index_version(monkeypatch, index, caplog):
    import logging.config

    import uvicorn

    from lakeindex.index.store import current_version

    monkeypatch.setattr(uvicorn, "run", lambda *a, **k: None)
    monkeypatch.setattr(logging.config, "dictConfig", lambda config: None)
    monkeypatch.setattr(logging, "captureWarnings", lambda capture: None)
    with caplog.at_level(logging.INFO, logger="lakeindex.serve"):  # a timestamped log line, as every other
        assert main(["serve", "--index", str(index), "--port", "8123"]) == 0
    err = caplog.text
    assert "http://127.0.0.1:8123" in err and f"version {current_version(index)}" in err, err
