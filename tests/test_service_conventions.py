"""The query service's API conventions: /docs and /redoc load nothing from off the server, every response is
documented with a typed schema that the real answers conform to, the admin token is a security scheme, and
`lakeindex serve` writes log lines that start with an ISO-8601 UTC timestamp."""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import time
from datetime import datetime, timedelta
from html.parser import HTMLParser
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import pandas as pd
import pytest
from fastapi.testclient import TestClient

from lakeindex.history.batches import ACCEPTED, BatchHistory, profile_frame
from lakeindex.index.local_build import build_from_columns
from query_service.app import create_app
from query_service.limits import Settings
from tests.test_fmdv import corpus

ROOT = Path(__file__).resolve().parent.parent
TOKEN = "s3cret"
ADMIN_HEADER = "X-Admin-Token"  # the header the README and tests/test_service.py give for admin requests
TRAIN = ["en-us", "de-fr", "fr-fr"] * 20
COLUMNS = {"amount": [str(12 + i % 7) for i in range(50)], "country": [["de", "fr", "us"][i % 3] for i in range(50)]}


@pytest.fixture(scope="module")
def index_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("conv") / "ix"
    build_from_columns(corpus(), path)
    return path


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A metrics repository with 4 clean batches of 'orders' (pandas profiles, no Spark)."""
    path = tmp_path_factory.mktemp("conv-repo")
    history = BatchHistory(str(path), "orders")
    prev = None
    for day in range(4):
        frame = pd.DataFrame({"amount": [str(10 + day + i % 7) for i in range(50)], "country": COLUMNS["country"]},
                             dtype=object)
        prev = profile_frame(frame, f"d{day}", prev)
        prev.status, prev.timestamp_ms = ACCEPTED, 1000 + day
        history.save(prev)
    return str(path)


@pytest.fixture()
def client(index_path: Path, repo: str) -> TestClient:
    app = create_app(index_path, Settings(max_values=1000, max_value_length=64, max_body_bytes=200_000,
                                          admin_token=TOKEN, repository=repo))
    with TestClient(app) as c:
        yield c


@pytest.fixture()
def spec(client: TestClient) -> dict:
    return client.get("/openapi.json").json()


# --- a JSON Schema check of the subset FastAPI publishes (OpenAPI 3.1 is JSON Schema 2020-12) -----------------

KNOWN_KEYWORDS = {"$ref", "anyOf", "type", "properties", "required", "additionalProperties", "items", "enum", "const",
                  "title", "description", "default", "examples", "minLength", "maxLength", "minItems", "minimum",
                  "maximum", "exclusiveMinimum", "exclusiveMaximum"}
TYPES = {"object": lambda v: isinstance(v, dict), "array": lambda v: isinstance(v, list),
         "string": lambda v: isinstance(v, str), "boolean": lambda v: isinstance(v, bool), "null": lambda v: v is None,
         "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
         "number": lambda v: isinstance(v, int | float) and not isinstance(v, bool)}


def violations(value: Any, schema: dict, spec: dict, at: str = "$") -> list[str]:
    """Where ``value`` breaks ``schema``; a keyword this check does not know fails rather than passing silently."""
    unknown = set(schema) - KNOWN_KEYWORDS
    if unknown:
        return [f"{at}: schema keywords this test cannot check: {sorted(unknown)}"]
    if "$ref" in schema:
        return violations(value, spec["components"]["schemas"][schema["$ref"].split("/")[-1]], spec, at)
    if "anyOf" in schema:
        branches = [violations(value, s, spec, at) for s in schema["anyOf"]]
        return [] if any(not b for b in branches) else [f"{at}: no anyOf branch matches: {branches}"]
    if "const" in schema and value != schema["const"]:
        return [f"{at}: {value!r} is not {schema['const']!r}"]
    if "enum" in schema and value not in schema["enum"]:
        return [f"{at}: {value!r} not in {schema['enum']}"]
    if "type" in schema:
        types = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        if not any(TYPES[t](value) for t in types):
            return [f"{at}: {value!r} is not {schema['type']}"]
    out: list[str] = []
    if isinstance(value, dict):
        props = schema.get("properties", {})
        out += [f"{at}: missing required {k!r}" for k in schema.get("required", []) if k not in value]
        for k, v in value.items():
            extra = schema.get("additionalProperties", True)
            if k in props:
                out += violations(v, props[k], spec, f"{at}.{k}")
            elif extra is False:
                out.append(f"{at}: key {k!r} is not documented")
            elif isinstance(extra, dict):
                out += violations(v, extra, spec, f"{at}.{k}")
    if isinstance(value, list) and "items" in schema:
        for i, v in enumerate(value):
            out += violations(v, schema["items"], spec, f"{at}[{i}]")
    return out


def documented_schema(spec: dict, path: str, method: str, status: int) -> dict:
    responses = spec["paths"][path][method]["responses"]
    assert str(status) in responses, f"{method.upper()} {path} answers {status}, undocumented: {sorted(responses)}"
    return responses[str(status)]["content"]["application/json"]["schema"]


def template(spec: dict, path: str) -> str:
    """The documented path a concrete one answers to (``/v1/datasets/orders/report`` -> ``.../{name}/report``)."""
    for documented in spec["paths"]:
        if re.fullmatch(re.sub(r"\\\{[^/]+?\\\}", "[^/]+", re.escape(documented)), path):
            return documented
    raise AssertionError(f"{path}: not a documented path")


def assert_conforms(spec: dict, path: str, method: str, resp: httpx.Response) -> None:
    path = template(spec, path)
    content = spec["paths"][path][method]["responses"].get(str(resp.status_code), {}).get("content", {})
    if "text/html" in content:  # a page: answered as HTML, a string
        assert resp.headers["content-type"].startswith("text/html") and resp.text.startswith("<!DOCTYPE html>")
        return
    assert resp.headers["content-type"].startswith("application/json"), (path, resp.headers["content-type"])
    problems = violations(resp.json(), documented_schema(spec, path, method, resp.status_code), spec)
    assert not problems, f"{method.upper()} {path} -> {resp.status_code}: {problems}"


def test_the_schema_check_finds_what_is_wrong(spec):
    """The check above must be able to fail: wrong type, missing field, undocumented key, no anyOf branch."""
    error = {"$ref": "#/components/schemas/ErrorOut"}
    assert not violations({"detail": "x"}, error, spec)
    assert violations({"detail": 1}, error, spec)
    assert violations({}, error, spec)
    assert violations({"detail": "x", "extra": 1}, error, spec)
    assert violations({"status": "ready", "index_version": None}, {"$ref": "#/components/schemas/ReadyOut"}, spec)
    assert violations(True, {"type": "integer"}, spec) and violations(2.5, {"type": "integer"}, spec)
    assert violations({"a": 1}, {"oneOf": []}, spec)


# --- 1. offline docs ---------------------------------------------------------------------------------------------


class _Links(HTMLParser):
    """Every src and href of a page."""

    def __init__(self) -> None:
        super().__init__()
        self.links: list[tuple[str, str, str]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.links += [(tag, name, value or "") for name, value in attrs if name in ("src", "href")]


def _same_origin(url: str) -> bool:
    parts = urlsplit(url)
    return (not parts.scheme and not parts.netloc) or parts.netloc == "testserver"


@pytest.mark.parametrize("page,kinds", [
    ("/docs", {"script": ".js", "link": ".css"}),
    ("/redoc", {"script": ".js"}),
])
def test_docs_pages_load_everything_from_this_server(client, page, kinds):
    resp = client.get(page)
    assert resp.status_code == 200 and resp.headers["content-type"].startswith("text/html")
    html = resp.text
    parser = _Links()
    parser.feed(html)
    assert parser.links, "no asset links: the page cannot be what Swagger UI / ReDoc need"
    for tag, ext in kinds.items():
        assert any(t == tag and v.endswith(ext) for t, _, v in parser.links), (tag, ext, parser.links)
    off_server = [link for link in parser.links if not _same_origin(link[2])]
    assert not off_server, off_server
    # nor anywhere else in the page (inline script, comments): no absolute or protocol-relative URL
    assert not re.findall(r"https?://|[\"'(=]\s*//", html), re.findall(r".{30}(?:https?:)?//.{30}", html)
    for _, _, url in parser.links:
        asset = client.get(url)
        assert asset.status_code == 200 and len(asset.content) > 100, (url, asset.status_code)
        expected = {".js": "javascript", ".css": "text/css", ".png": "image/png"}[Path(urlsplit(url).path).suffix]
        assert expected in asset.headers["content-type"], (url, asset.headers["content-type"])
    spec_urls = re.findall(r"url: '([^']+)'|spec-url=\"([^\"]+)\"", html)
    assert spec_urls, "the page names no OpenAPI document"
    for url in (u for pair in spec_urls for u in pair if u):
        assert _same_origin(url) and client.get(url).json()["openapi"].startswith("3.")


def test_the_bundled_swagger_ui_renders_the_openapi_version_the_app_publishes(client):
    """Swagger UI renders OpenAPI 3.1 from its 5.0.0 on (before: 'Unable to render this definition')."""
    parser = _Links()
    parser.feed(client.get("/docs").text)
    js_url = next(v for t, _, v in parser.links if t == "script" and v.endswith(".js"))
    found = re.search(r'PACKAGE_VERSION:\s*"(\d+)\.(\d+)\.(\d+)"', client.get(js_url).text)
    assert found, "no version in the served Swagger UI bundle"
    openapi = client.get("/openapi.json").json()["openapi"]
    if openapi.startswith("3.1"):
        assert int(found.group(1)) >= 5, (openapi, found.group(0))
    else:
        assert openapi.startswith("3.0"), openapi


# --- 2. typed responses ------------------------------------------------------------------------------------------


def _operations(spec: dict) -> list[tuple[str, str, dict]]:
    return [(path, method, op) for path, ops in spec["paths"].items() for method, op in ops.items()]


def test_every_response_of_every_operation_has_a_named_or_typed_schema(spec):
    assert len(_operations(spec)) >= 11  # the endpoints the README lists, and batch validation
    for path, method, op in _operations(spec):
        responses = op["responses"]
        assert "200" in responses, (method, path)
        for status, response in responses.items():
            where = f"{method.upper()} {path} {status}"
            html = response.get("content", {}).get("text/html")
            if status == "200" and html is not None:  # a page (the report): typed as a string, and only HTML
                assert html.get("schema") == {"type": "string"} and set(response["content"]) == {"text/html"}, where
                continue
            schema = response.get("content", {}).get("application/json", {}).get("schema")
            assert schema, f"{where}: no schema"
            if "$ref" in schema:
                assert set(schema) == {"$ref"}, f"{where}: a model mixed with another schema: {schema}"
                named = spec["components"]["schemas"][schema["$ref"].split("/")[-1]]
                assert named.get("type") == "object" and named.get("properties"), f"{where}: {named}"
            else:
                assert schema.get("type") or schema.get("anyOf"), f"{where}: untyped {schema}"
            if status == "200":
                assert "$ref" in schema, f"{where}: 200 is not a named model: {schema}"


def test_operations_that_validate_input_document_422_and_bodies_document_413(client, spec):
    """FastAPI answers 422 for any operation with parameters or a body; the body-size limit answers 413 to any
    request with a body: both are real answers, so both must be documented (checked against the server)."""
    for path, method, op in _operations(spec):
        if op.get("parameters") or op.get("requestBody"):
            assert "422" in op["responses"], (method, path)
        if op.get("requestBody"):
            resp = client.request(method, path, content=b" " * 300_000, headers={"content-type": "application/json"})
            assert resp.status_code == 413, (method, path, resp.status_code)
            assert_conforms(spec, path, method, resp)


def _requests() -> list[tuple[str, str, dict[str, Any], int]]:
    """(method, path, request arguments, expected status): a 200 for every operation, and every error kind."""
    admin = {"headers": {ADMIN_HEADER: TOKEN}}
    batch = {"dataset": "orders", "batch": "b-new", "patterns": False, "columns": COLUMNS}
    return [
        ("get", "/health", {}, 200),
        ("get", "/ready", {}, 200),
        ("get", "/v1/index", {}, 200),
        ("get", "/v1/patterns/lookup", {"params": {"pattern": "ORD-<digit>{6}"}}, 200),
        ("post", "/v1/patterns/lookup", {"json": {"patterns": ["<lower>{2}-<lower>{2}", "<upper>{20}"]}}, 200),
        ("get", "/v1/domains", {"params": {"min_coverage": 20}}, 200),
        ("post", "/v1/infer", {"json": {"values": TRAIN, "m": 10}}, 200),
        ("post", "/v1/infer", {"json": {"values": ["x"], "m": 100000}}, 200),  # infeasible: with a reason
        ("post", "/v1/tag", {"json": {"values": [f"ORD-{i:06d}" for i in range(30)], "m": 10}}, 200),
        ("post", "/v1/tag", {"json": {"values": ["a!b"], "m": 100000}}, 200),  # no tag: with a reason
        ("post", "/admin/reload", admin, 200),
        ("post", "/v1/batches/validate", {"json": batch}, 200),
        ("post", "/v1/batches/validate", {"json": {**batch, "batch": "b-rec", "record": True}}, 200),
        ("post", "/v1/batches/validate", {"json": {**batch, "batch": "d1"}}, 409),
        ("post", "/v1/batches/validate", {"json": {**batch, "dataset": "nope"}}, 404),
        ("post", "/v1/batches/validate", {"json": {**batch, "columns": {"a": ["1"], "b": []}}}, 422),
        ("post", "/v1/patterns/lookup", {"json": {"patterns": ["<bad"]}}, 400),
        ("get", "/v1/patterns/lookup", {}, 422),
        ("post", "/v1/infer", {"json": {"values": []}}, 422),
        ("post", "/v1/infer", {"json": {"values": ["a" * 65]}}, 422),
        ("post", "/v1/infer", {"json": {"values": ["1"] * 1001}}, 413),
        ("post", "/v1/validate", {"json": {"rule": {"method": "fmdv"}, "values": ["x"]}}, 422),
        ("post", "/admin/reload", {}, 401),
        ("post", "/admin/reload", {"headers": {ADMIN_HEADER: "wrong"}}, 401),
        ("get", "/v1/datasets/orders/report", {}, 200),
        ("get", "/v1/datasets", {}, 200),
        ("get", "/v1/datasets/nope/report", {}, 404),
        ("get", "/v1/datasets/orders/report", {"params": {"delta": 2}}, 422),
    ]


def test_real_answers_conform_to_their_documented_schemas(client, spec):
    answered_200: set[tuple[str, str]] = set()
    rules = []
    for method, path, kwargs, status in _requests():
        resp = client.request(method, path, **kwargs)
        assert resp.status_code == status, (method, path, resp.text)
        assert_conforms(spec, path, method, resp)
        if status == 200:
            answered_200.add((template(spec, path), method))
            if path == "/v1/infer":
                rules.append(resp.json())
    for rule in rules:  # feasible (a test) and infeasible (skipped) verdicts
        for values in (TRAIN, ["en-US"] * 40 + [""]):
            resp = client.post("/v1/validate", json={"rule": rule, "values": values})
            assert resp.status_code == 200, resp.text
            assert_conforms(spec, "/v1/validate", "post", resp)
            answered_200.add(("/v1/validate", "post"))
    assert answered_200 == {(path, method) for path, method, _ in _operations(spec)}


def test_answers_of_a_service_without_admin_token_or_repository_conform(index_path, spec):
    with TestClient(create_app(index_path)) as c:
        resp = c.post("/admin/reload", headers={ADMIN_HEADER: TOKEN})
        assert resp.status_code == 403
        assert_conforms(spec, "/admin/reload", "post", resp)
        resp = c.post("/v1/batches/validate", json={"dataset": "orders", "batch": "x", "columns": {"a": ["1"]}})
        assert resp.status_code == 503
        assert_conforms(spec, "/v1/batches/validate", "post", resp)


def test_a_full_lane_and_an_unready_index_answer_as_documented(client, spec, monkeypatch):
    lane = client.app.state.lanes["inference"]
    held = [lane.hold() for _ in range(lane.size)]
    for slot in held:
        next(slot)
    try:
        resp = client.post("/v1/infer", json={"values": TRAIN})
    finally:
        for slot in held:
            slot.close()
    assert resp.status_code == 503
    assert_conforms(spec, "/v1/infer", "post", resp)
    header = spec["paths"]["/v1/infer"]["post"]["responses"]["503"]["headers"]["Retry-After"]
    assert header["schema"]["type"] == "integer" and resp.headers["Retry-After"].isdigit()

    def broken(patterns: list[str]) -> list:
        raise OSError("Corruption: block checksum mismatch")

    with client.app.state.holder.acquire() as loaded:
        monkeypatch.setattr(loaded.reader, "lookup", broken)
    resp = client.get("/ready")
    assert resp.status_code == 503 and "checksum" in resp.json()["error"]
    assert_conforms(spec, "/ready", "get", resp)


# --- 3. the admin token as a security scheme ------------------------------------------------------------------


def test_the_admin_token_is_a_security_scheme_of_the_admin_operations_only(client, spec):
    schemes = spec["components"]["securitySchemes"]
    headers = {name: s for name, s in schemes.items() if s["type"] == "apiKey" and s["in"] == "header"}
    assert [s["name"] for s in headers.values()] == [ADMIN_HEADER], schemes
    (scheme,) = headers
    for path, method, op in _operations(spec):
        if path.startswith("/admin/"):
            assert op.get("security") == [{scheme: []}], (method, path)
            assert {"401", "403"} <= set(op["responses"]), (method, path)
        else:
            assert not op.get("security"), (method, path)
    # the declared header is the one the server reads: a client built from the spec gets in
    resp = client.post("/admin/reload", headers={headers[scheme]["name"]: TOKEN})
    assert resp.status_code == 200 and resp.json()["swapped"] is False
    assert client.post("/admin/reload", headers={headers[scheme]["name"]: ""}).status_code == 401


# --- 4. timestamped logs of the real server ---------------------------------------------------------------------

ISO_UTC = re.compile(r"^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]00:00)) ")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.parametrize("workers", [1, 2])
def test_serve_log_lines_start_with_an_iso_utc_timestamp(index_path, workers):
    """The real `lakeindex serve`, in a time zone far from UTC: one request, one malformed request (uvicorn's
    error logger reports it), then every stderr line must start with the UTC time it was written at."""
    port = _free_port()
    # a POSIX zone 5:30 east of UTC (no tz database needed): local time would be off by hours
    env = {k: v for k, v in os.environ.items() if not k.startswith("LAKEINDEX_")} | {"TZ": "XYZ-5:30"}
    started = datetime.now().astimezone()
    proc = subprocess.Popen([sys.executable, "-m", "lakeindex.cli", "serve", "--index", str(index_path), "--port",
                             str(port), "--watch-interval", "0", "--workers", str(workers)],
                            cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 120
        while True:
            assert proc.poll() is None and time.monotonic() < deadline, "the server did not start"
            try:
                if httpx.get(f"{base}/health", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                time.sleep(0.3)
        resp = httpx.get(f"{base}/v1/patterns/lookup", params={"pattern": "ORD-<digit>{6}"}, timeout=10)
        assert resp.status_code == 200
        with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
            s.sendall(b"NOT HTTP\r\n\r\n")
            assert b"400" in s.recv(100)
        time.sleep(0.5)  # let the workers write
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=60)
    ended = datetime.now().astimezone()
    lines = [line for line in err.splitlines() if line.strip()]
    assert lines, "no log lines"
    for line in lines:
        stamp = ISO_UTC.match(line)
        assert stamp, f"no ISO-8601 UTC timestamp first: {line!r}"
        when = datetime.fromisoformat(stamp.group(1))
        assert when.utcoffset() == timedelta(0)
        assert started - timedelta(seconds=2) <= when <= ended + timedelta(seconds=2), (line, started, ended)
    access = [json.loads(line.split(" ", 3)[3]) for line in lines if " lakeindex.access {" in line]
    lookup = [a for a in access if a.get("path") == "/v1/patterns/lookup"]
    assert len(lookup) == 1, access
    (entry,) = lookup
    host, _, client_port = entry["client"].rpartition(":")
    assert host == "127.0.0.1" and client_port.isdigit()
    assert (entry["method"], entry["status"]) == ("GET", 200)
    assert any(" WARNING uvicorn.error " in line and "Invalid HTTP request" in line for line in lines), lines


def test_lane_slots_come_back_after_refused_and_failed_requests(client):
    """The lane dependency runs on the event loop and frees its slot in a ``finally``: more requests than
    the lane has slots, each refused inside the endpoint (422, 413) or failing validation, must leave every
    slot free, so the next request is served instead of shed with 503."""
    lane = client.app.state.lanes["inference"]
    too_long = "x" * (client.app.state.settings.max_value_length + 1)
    for k in range(lane.size + 3):
        bad = {"values": [too_long]} if k % 2 else {"values": ["1"] * (client.app.state.settings.max_values + 1)}
        assert client.post("/v1/infer", json=bad).status_code in (413, 422)
    assert client.post("/v1/infer", json={"values": TRAIN}).status_code == 200
    assert lane.running == 0  # every slot back
