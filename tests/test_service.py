"""The query service through FastAPI's TestClient (httpx): endpoints, limits, auth, hot swap."""

from __future__ import annotations

import json
import re
import threading

import pytest
from fastapi.testclient import TestClient

from lakeindex.index.local_build import build_from_columns
from lakeindex.patterns.pattern import to_regex
from query_service.app import create_app
from query_service.limits import Settings
from query_service.models import UnprocessableOut
from tests.test_fmdv import corpus


@pytest.fixture(scope="module")
def index_path(tmp_path_factory):
    path = tmp_path_factory.mktemp("svc") / "ix"
    build_from_columns(corpus(), path)
    return path


@pytest.fixture()
def client(index_path):
    app = create_app(index_path, Settings(max_values=1000, max_value_length=64, max_body_bytes=200_000,
                                          admin_token="s3cret"))
    with TestClient(app) as c:
        yield c


def test_health_ready_meta_docs(client):
    assert client.get("/health").json() == {"status": "ok"}
    ready = client.get("/ready").json()
    assert ready["status"] == "ready" and ready["index_version"].startswith("v-")
    assert ready["index_in_memory"] is True  # a test index fits the lookup cache many times over
    # the suite runs against the sources (a compiled copy is tested in test_compiled_build)
    assert ready["inference_compiled"] is False
    assert client.get("/v1/index").json()["columns_scanned"] == len(corpus())
    assert "/v1/infer" in client.get("/openapi.json").json()["paths"]
    assert client.get("/docs").status_code == 200


def test_lookup_one_and_batch(client):
    one = client.get("/v1/patterns/lookup", params={"pattern": "ORD-<digit>{6}"}).json()
    assert one["results"] == [{"pattern": "ORD-<digit>{6}", "fpr": 0.0, "coverage": 30}]
    many = client.post("/v1/patterns/lookup", json={"patterns": ["<lower>{2}-<lower>{2}", "<upper>{20}"]}).json()
    assert many["results"][0]["coverage"] == 30 and many["results"][1] == {
        "pattern": "<upper>{20}", "fpr": None, "coverage": 0}


def test_infer_validate_tag_round_trip(client):
    train = ["en-us", "de-fr", "fr-fr"] * 20
    rule = client.post("/v1/infer", json={"values": train, "m": 10}).json()
    assert rule["pattern"] == "<lower>{2}-<lower>{2}" and rule["method"] == "fmdv-vh"
    ok = client.post("/v1/validate", json={"rule": rule, "values": train}).json()
    assert ok["passed"] is True
    bad = client.post("/v1/validate", json={"rule": rule, "values": ["en-US"] * 40}).json()
    assert bad["flagged"] is True and bad["offending_sample"] == [{"value": "en-US", "count": 40}]
    tag = client.post("/v1/tag", json={"values": [f"ORD-{i:06d}" for i in range(30)], "m": 10}).json()
    assert tag["tag"] == "ORD-<digit>{6}"
    # no common domain; confidence = share 1 x (1 - fpr 0) x coverage 30 / 31
    assert tag["domain"] is None and tag["method"] == "tag" and tag["confidence"] == pytest.approx(30 / 31, abs=1e-3)
    days = [f"2021-{m:02d}-{d:02d}" for m in range(1, 13) for d in (3, 17)]
    dates = client.post("/v1/tag", json={"values": days, "m": 10}).json()
    assert dates["domain"] == "iso-date" and dates["share"] == 1.0
    assert all(re.fullmatch(to_regex(dates["tag"]), d) for d in days)
    domains = client.get("/v1/domains", params={"min_coverage": 20}).json()["domains"]
    assert {"pattern": "ORD-<digit>{6}", "fpr": 0.0, "coverage": 30} in domains


@pytest.mark.parametrize("method,path,body,status", [
    ("post", "/v1/infer", {"values": []}, 422),
    ("post", "/v1/infer", {"values": "not a list"}, 422),
    ("post", "/v1/infer", {"values": ["x"], "method": "magic"}, 422),
    ("post", "/v1/infer", {"values": ["x"], "r": 7}, 422),
    ("post", "/v1/infer", {"values": ["a" * 65]}, 422),
    ("post", "/v1/infer", {"values": ["1"] * 1001}, 413),
    ("post", "/v1/validate", {"rule": {"method": "fmdv"}, "values": ["x"]}, 422),
    ("post", "/v1/patterns/lookup", {"patterns": ["<bad"]}, 400),
    ("get", "/v1/patterns/lookup", None, 422),
])
def test_malformed_requests_are_4xx_with_a_message(client, method, path, body, status):
    resp = client.post(path, json=body) if method == "post" else client.get(path)
    assert resp.status_code == status, resp.text
    assert resp.json()["detail"]


def test_body_size_and_invalid_json(client):
    resp = client.post("/v1/infer", content=b"x" * 300_000, headers={"content-type": "application/json"})
    assert resp.status_code == 413
    resp = client.post("/v1/infer", content=b"{not json", headers={"content-type": "application/json"})
    assert resp.status_code == 422


def test_admin_reload_needs_the_token(client):
    for headers in ({}, {"X-Admin-Token": "wrong"}):
        denied = client.post("/admin/reload", headers=headers)
        # RFC 9110 §15.5.2: a 401 carries a WWW-Authenticate challenge
        assert denied.status_code == 401 and 'header="X-Admin-Token"' in denied.headers["www-authenticate"]
    resp = client.post("/admin/reload", headers={"X-Admin-Token": "s3cret"})
    assert resp.status_code == 200 and resp.json()["swapped"] is False


def test_admin_disabled_without_configured_token(index_path):
    with TestClient(create_app(index_path)) as c:
        assert c.post("/admin/reload", headers={"X-Admin-Token": ""}).status_code == 403


def test_hot_swap_under_concurrent_requests(tmp_path):
    path = tmp_path / "ix"
    build_from_columns(corpus(seed=1), path)
    app = create_app(path, Settings(admin_token="t"))
    errors: list[str] = []
    versions: set[str] = set()
    stop = threading.Event()
    with TestClient(app) as c:
        first = c.get("/ready").json()["index_version"]

        def hammer() -> None:
            while not stop.is_set():
                r = c.post("/v1/infer", json={"values": ["en-us", "de-fr"] * 50, "m": 10})
                if r.status_code != 200:
                    errors.append(r.text)
                else:
                    versions.add(r.json()["index_version"])

        threads = [threading.Thread(target=hammer) for _ in range(4)]
        for t in threads:
            t.start()
        for seed in (2, 3):
            build_from_columns(corpus(seed=seed), path)  # publish a new version
            r = c.post("/admin/reload", headers={"X-Admin-Token": "t"})
            assert r.status_code == 200 and r.json()["swapped"]
        last = c.get("/ready").json()["index_version"]
        stop.set()
        for t in threads:
            t.join()
    assert not errors
    assert first != last and last in versions


def test_app_factory_for_worker_processes_reads_the_environment(index_path, monkeypatch):
    from query_service.app import app_from_env

    monkeypatch.setenv("LAKEINDEX_INDEX", str(index_path))
    monkeypatch.setenv("LAKEINDEX_MAX_VALUES", "5")
    monkeypatch.setenv("LAKEINDEX_WATCH_INTERVAL", "0")
    with TestClient(app_from_env()) as c:
        assert c.get("/ready").status_code == 200
        assert c.post("/v1/infer", json={"values": ["1"] * 6}).status_code == 413


RULE = {"pattern": "<lower>{2}", "regex": "[a-z]{2}", "method": "fmdv", "feasible": True}


@pytest.mark.parametrize("path, body, field", [
    ("/v1/patterns/lookup", rb'{"patterns": ["<digit>+", "\ud800"]}', ["body", "patterns", 1]),
    ("/v1/infer", rb'{"values": ["ab", "x\udfffy"]}', ["body", "values", 1]),
    ("/v1/tag", rb'{"values": ["\udc00"]}', ["body", "values", 0]),
    ("/v1/validate", rb'{"rule": {"pattern": "\ud800"}, "values": ["ab"]}', ["body", "rule", "pattern"]),
    ("/v1/validate", b'{"rule": ' + json.dumps(RULE).encode() + rb', "values": ["ab", "\ud800"]}',
     ["body", "values", 1]),
    ("/v1/batches/validate", rb'{"dataset": "d", "batch": "b", "columns": {"c\ud800": ["x"]}}',
     ["body", "columns", "c\\ud800"]),
])
def test_a_lone_surrogate_in_a_json_string_is_a_4xx_naming_the_field(client, path, body, field):
    """JSON may escape a UTF-16 surrogate that is not half of a pair ("\\ud800"), which is no Unicode text:
    the service must refuse it as bad input, never fail on it."""
    resp = client.post(path, content=body, headers={"content-type": "application/json"})
    assert resp.status_code == 422, resp.text
    UnprocessableOut.model_validate(resp.json())  # the documented 422 schema
    (issue,) = resp.json()["detail"]
    assert issue["loc"] == field and "surrogate" in issue["msg"]


def test_a_surrogate_pair_is_an_ordinary_character(client):
    """"\\ud83d\\ude00" is JSON's escape of one emoji (U+1F600): valid text."""
    resp = client.post("/v1/infer", content=rb'{"values": ["\ud83d\ude00", "\ud83d\ude00"], "m": 10}',
                       headers={"content-type": "application/json"})
    assert resp.status_code == 200, resp.text


def test_every_route_taking_a_json_body_refuses_a_lone_surrogate(client):
    paths = client.get("/openapi.json").json()["paths"]
    posts = [p for p, ops in paths.items() if "requestBody" in ops.get("post", {})]
    assert "/v1/batches/validate" in posts
    for path in posts:
        resp = client.post(path.replace("{name}", "d"), content=rb'{"x\udbff": 1}',
                           headers={"content-type": "application/json"})
        assert resp.status_code == 422 and resp.json()["detail"][0]["loc"] == ["body", "x\\udbff"], (path, resp.text)
