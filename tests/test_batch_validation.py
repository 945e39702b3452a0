"""End to end: batch history in a repository, AVH + kNN + patterns in validate-batch, and the CLI.

A recurring dataset of 24 clean daily batches (trend and noise) is added to the history; a clean next
batch must pass, and the same batch with a schema swap, a unit change, a null surge or a casing change
must be flagged, each by the signal that should see it.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from lakeindex.history.batches import ACCEPTED, FLAGGED, BatchHistory
from lakeindex.validation.policy import SignalPolicy

N_BATCHES = 24
ROWS = 300
COUNTRIES = ["us", "de", "fr", "jp", "br"]


def batch(day: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    n = ROWS + int(rng.integers(-15, 16))
    return pd.DataFrame({
        "amount": np.round(rng.normal(100 + 0.5 * day, 8, n), 2).astype(str),
        "country": rng.choice(COUNTRIES, n, p=[.4, .25, .15, .12, .08]),
        "order_id": [f"ORD-{day:03d}{i:05d}" for i in range(n)],
    })


@pytest.fixture(scope="module")
def history(spark, tmp_path_factory):
    repo = tmp_path_factory.mktemp("repo")
    h = BatchHistory(str(repo), "orders")
    for day in range(N_BATCHES):
        h.add(spark.createDataFrame(batch(day, seed=day)), f"d{day:02d}", timestamp_ms=1_000 + day)
    return h


def test_history_records_round_trip(history):
    recs = history.records()
    assert [r.batch_id for r in recs] == [f"d{d:02d}" for d in range(N_BATCHES)]
    first, last = recs[0], recs[-1]
    assert set(last.summaries) == {"amount", "country", "order_id"}
    assert last.summaries["amount"].kind == "numeric" and last.summaries["country"].kind == "categorical"
    assert "l1" not in first.features["country"] and "l1" in last.features["country"]  # two-distribution from #2
    assert last.features["amount"]["row_count"] == pytest.approx(last.notes["rows"])
    assert "unit_change_x100" in last.issue_features["amount"]
    assert "unit_change_x100" not in last.issue_features["country"]
    assert len(last.value_samples["country"]) == last.notes["rows"]  # small batch: the sample is the batch
    assert last.novelty["amount.completeness"] == 1.0


def corrupted(kind: str) -> pd.DataFrame:
    df = batch(N_BATCHES, seed=999)
    if kind == "schema_swap":
        df = df.rename(columns={"amount": "country", "country": "amount"})[["amount", "country", "order_id"]]
    elif kind == "dropped_column":
        df = df.drop(columns=["order_id"])
    elif kind == "unit_change":
        df["amount"] = (df["amount"].astype(float) * 100).round(2).astype(str)
    elif kind == "null_surge":
        df.loc[df.sample(frac=0.5, random_state=1).index, "country"] = None
    elif kind == "casing":
        df["country"] = df["country"].str.upper()
    return df


@pytest.mark.parametrize("kind,signal,column", [
    ("clean", None, None),
    ("schema_swap", "avh", "amount"),
    ("dropped_column", "schema", None),
    ("unit_change", "avh", "amount"),
    ("null_surge", "avh", "country"),
    ("casing", "patterns", "country"),
])
def test_validate_batch(spark, history, index, kind, signal, column):
    from lakeindex.validation import BatchValidator

    report = BatchValidator.default(index=index).validate_frame(spark.createDataFrame(corrupted(kind)), history,
                                                                f"candidate-{kind}", record=False)
    json.dumps(report)  # the report is JSON
    by_signal = {s["signal"]: s for s in report["signals"]}
    if signal is None:
        assert report["verdict"] == "passed", report["failing_signals"]
        assert by_signal["avh"]["status"] == "passed" and by_signal["patterns"]["status"] == "passed"
        return
    assert report["verdict"] == "flagged"
    assert signal in report["failing_signals"]
    if signal == "schema":
        assert by_signal["schema"]["missing_columns"] == ["order_id"]
    else:
        assert column in by_signal[signal]["failing_columns"]
    if signal == "avh":
        violations = by_signal["avh"]["failing_columns"][column]["violations"]
        assert violations and all("metric" in v for v in violations)


def test_flagged_batches_stay_out_until_accepted(spark, tmp_path):
    from lakeindex.validation import BatchValidator

    h = BatchHistory(str(tmp_path / "repo"), "orders")
    for day in range(4):
        h.add(spark.createDataFrame(batch(day, seed=day)), f"d{day}", timestamp_ms=10 + day)
    armed = {"avh": SignalPolicy("error", 3)}  # AVH may flag from 3 clean batches (the default waits for 10)
    report = BatchValidator.default(policies=armed).validate_frame(spark.createDataFrame(corrupted("schema_swap")),
                                                                   h, "bad", timestamp_ms=100)
    assert report["recorded_as"] == FLAGGED
    assert [r.batch_id for r in h.records()] == ["d0", "d1", "d2", "d3"]
    assert h.find("bad").status == FLAGGED
    h.set_status("bad", ACCEPTED)
    assert [r.batch_id for r in h.records()][-1] == "bad"
    with pytest.raises(ValueError, match="already"):
        h.add(spark.createDataFrame(batch(9, seed=9)), "d1")


def test_cli_history_and_avh(spark, tmp_path, capsys):
    from lakeindex.cli import main

    repo = str(tmp_path / "repo")
    for day in range(4):
        path = tmp_path / f"b{day}.csv"
        batch(day, seed=day).to_csv(path, index=False)
        assert main(["history", "add", "--repo", repo, "--dataset", "o", "--batch", f"d{day}",
                     "--timestamp", str(day + 1), str(path)]) == 0
    capsys.readouterr()
    assert main(["avh", "learn", "--repo", repo, "--dataset", "o"]) == 0
    learned = json.loads(capsys.readouterr().out)
    assert set(learned["programs"]) == {"amount", "country", "order_id"}
    assert learned["history_batches"] == ["d0", "d1", "d2", "d3"]
    bad = tmp_path / "bad.csv"
    df = batch(4, seed=4)
    df["amount"] = (df["amount"].astype(float) * 1000).astype(str)
    df.to_csv(bad, index=False)
    assert main(["avh", "check", "--repo", repo, "--dataset", "o", str(bad)]) == 1
    out = json.loads(capsys.readouterr().out)
    assert "amount" in out["failing_columns"]
    assert main(["history", "accept", "--repo", repo, "--dataset", "o", "--batch", "nope"]) == 2


def test_service_validates_posted_batches(history, index):
    from fastapi.testclient import TestClient

    from query_service.app import create_app
    from query_service.limits import Settings

    repo = str(history.repo.path)
    with TestClient(create_app(index, Settings(repository=repo))) as client:
        def post(df: pd.DataFrame, **kw: object) -> object:
            cols = {c: [None if pd.isna(v) else str(v) for v in df[c]] for c in df.columns}
            body = {"dataset": "orders", "batch": "svc", "columns": cols, **kw}
            return client.post("/v1/batches/validate", json=body)

        ok = post(corrupted("clean"))
        assert ok.status_code == 200, ok.text
        assert ok.json()["verdict"] == "passed"
        bad = post(corrupted("unit_change")).json()
        assert bad["verdict"] == "flagged" and "amount" in bad["signals"][1]["failing_columns"]
        assert client.post("/v1/batches/validate", json={"dataset": "nope", "batch": "b",
                                                         "columns": {"a": ["1"]}}).status_code == 404
        assert client.post("/v1/batches/validate", json={"dataset": "orders", "batch": "d03",
                                                         "columns": {"a": ["1"]}}).status_code == 409
        assert client.post("/v1/batches/validate", json={"dataset": "orders", "batch": "x",
                                                         "columns": {"a": ["1"], "b": []}}).status_code == 422
    with TestClient(create_app(index)) as client:
        assert client.post("/v1/batches/validate", json={"dataset": "orders", "batch": "x",
                                                         "columns": {"a": ["1"]}}).status_code == 503
