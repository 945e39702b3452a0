"""The dataset report (issue 13 §1): what it gathers from the repository, the ranges it draws (hand-computed),
the page it renders (self-contained, escaped), the ``lakeindex report`` command and the service's page.

The history is built with pandas batches (no Spark): 14 clean daily batches, one clean batch and one with
half of ``amount`` missing validated and recorded, and 20 check runs' metrics stored beside them.
"""

from __future__ import annotations

import json
import math
import os
import re
import shutil
from html.parser import HTMLParser

import numpy as np
import pandas as pd
import pytest

from lakeindex.avh.bounds import BoundKind
from lakeindex.avh.constraints import RangeConstraint
from lakeindex.avh.stationarity import Transform
from lakeindex.history.batches import BatchHistory
from lakeindex.metrics.metric import Metric
from lakeindex.report.charts import chart, fitted_constraint, raw_range
from lakeindex.report.svg import chart_svg, nice_ticks
from lakeindex.repository import ResultKey

DAY = 86_400_000
T0 = 1_760_000_000_000
CLEAN = 14
COUNTRIES = ["us", "de", "fr", "jp", "br"]
HOSTILE = '"><img src=x onerror=alert(1)>'


def batch(day: int, seed: int, rows: int = 300) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame({
        "amount": np.round(rng.normal(100 + 0.2 * day, 5, rows), 2),
        "country": rng.choice(COUNTRIES, rows, p=[.4, .25, .15, .12, .08]),
        "order_id": [f"ORD-{day:03d}{i:05d}" for i in range(rows)],
    })


@pytest.fixture(scope="module")
def repo(tmp_path_factory, index):
    """14 clean batches, b14 validated clean, b15 (half the amounts missing) validated and flagged, plus the
    metrics of 20 check runs (Completeness and Mean of amount) and a dataset whose names are hostile HTML."""
    from lakeindex.validation import BatchValidator

    path = str(tmp_path_factory.mktemp("repo"))
    h = BatchHistory(path, "orders")
    for day in range(CLEAN):
        h.add(batch(day, day), f"b{day:02d}", timestamp_ms=T0 + day * DAY)
    v = BatchValidator.default(index=index)
    first = v.validate_frame(batch(CLEAN, 99), h, "b14", timestamp_ms=T0 + CLEAN * DAY)
    bad = batch(CLEAN + 1, 100)
    bad.loc[bad.index % 2 == 0, "amount"] = None
    second = v.validate_frame(bad, h, "b15", timestamp_ms=T0 + (CLEAN + 1) * DAY)
    assert second["verdict"] == "flagged" and "avh" in second["failing_signals"]
    rng = np.random.default_rng(11)
    for run in range(20):
        h.repo.save("orders", ResultKey(T0 + run * DAY + 1, {"run": str(run)}), [
            Metric("Completeness(column='amount')", "Completeness", "amount", "Column",
                   float(rng.normal(0.97, 0.01))),
            Metric("Mean(column='amount')", "Mean", "amount", "Column", float(rng.normal(100, 2)))])
    odd = BatchHistory(path, "odd")
    for day in range(4):
        odd.add(pd.DataFrame({"<script>alert(1)</script>": [f"v{day}{i}" for i in range(40)]}),
                f"{HOSTILE}{day}", timestamp_ms=T0 + day * DAY)
    return {"path": path, "reports": (first, second)}


# ---- ranges, hand-computed ------------------------------------------------------------------------------

def _c(lower: float, upper: float, kind: str = "identity", lag: int = 0) -> RangeConstraint:
    return RangeConstraint("c", "m", Transform(kind, lag), lower, upper, 0.001, BoundKind.CHEBYSHEV)


def test_raw_range_follows_the_transform():
    assert raw_range(_c(1, 3), []) == (1, 3)
    assert raw_range(_c(-math.inf, 3), [5.0]) == (None, 3)
    assert raw_range(_c(-2, 2, "lag", 1), [10.0, 12.0]) == (10, 14)   # 12 - 2, 12 + 2
    assert raw_range(_c(-2, 2, "lag", 2), [10.0, 12.0]) == (8, 12)    # two batches back: 10
    lo, hi = raw_range(_c(math.log(0.5), math.log(2), "log_lag", 1), [8.0])
    assert lo == pytest.approx(4) and hi == pytest.approx(16)          # 8 / 2, 8 * 2
    assert raw_range(_c(-2, 2, "lag", 1), []) is None                  # no reference yet
    assert raw_range(_c(-1, 1, "log_lag", 1), [0.0]) is None           # log of 0


def test_chart_ranges_use_only_clean_batches_as_references():
    # lag-1 clause [-2, 2]; batch 2 (30) was flagged, so batch 3 is compared with batch 1 (11), as the check does
    ch = chart("k", "t", ["a", "b", "c", "d"], [10.0, 11.0, 30.0, 12.0], [True, True, False, True],
               _c(-2, 2, "lag", 1))
    assert ch.lower == [None, 8, 9, 9] and ch.upper == [None, 12, 13, 13]
    assert ch.outside == [False, False, True, False]
    assert ch.flagged == [False, False, True, False]
    assert ch.next_range == (10, 14)                                   # 12 +- 2
    flat = chart("k", "t", ["a", "b", "c"], [1.0, None, 9.0], [True, True, True], _c(0, 5))
    assert flat.outside == [False, True, True]                         # a missing value violates, as in checks


def test_fitted_constraint_is_chebyshev_at_the_budget():
    values = list(np.random.default_rng(3).normal(50, 2, 30))
    c = fitted_constraint("Mean", "amount", values, delta=0.01)
    x = np.asarray(values)
    sigma = x.std(ddof=1) * math.sqrt(1 + 1 / len(x))                  # predictive sigma (AVH §4.2)
    beta = sigma / math.sqrt(0.01)                                     # Chebyshev: (sigma / beta)^2 = delta
    assert c is not None and c.transform.kind == "identity"
    assert c.lower == pytest.approx(x.mean() - beta) and c.upper == pytest.approx(x.mean() + beta)
    assert fitted_constraint("Mean", "amount", [1.0, 2.0], 0.01) is None   # too short to bound


def test_nice_ticks():
    assert nice_ticks(0, 10) == [0, 5, 10]
    assert nice_ticks(0.13, 0.87) == pytest.approx([0.2, 0.4, 0.6, 0.8])
    assert nice_ticks(3, 3) == [3]


def test_svg_marks_flagged_and_outside_points():
    ch = chart("k1", "t", ["a", "b", "c", "d"], [10.0, 11.0, 30.0, 12.0], [True, True, False, True],
               _c(-2, 2, "lag", 1))
    svg = chart_svg(ch)
    tags = _Tags()
    tags.feed(svg)
    by_id = {a.get("id"): (t, a) for t, a in tags.starts if a.get("id")}
    assert {"k1-band", "k1-values", "k1-flagged", "k1-outside", "k1-next"} <= set(by_id)
    assert svg.count("<rect") == 3                                     # a range for b, c and d; none for a
    assert len(re.findall(r"<circle", svg)) == 4 + 1                   # 4 values, 1 ring (c is outside)


# ---- gathered contents ------------------------------------------------------------------------------------

def test_report_shows_the_recorded_verdicts(repo, index):
    from lakeindex.report import gather

    c = gather(repo["path"], "orders", index=index)
    assert [b["batch"] for b in c.batches] == [f"b{d:02d}" for d in range(CLEAN + 2)]
    assert [b["status"] for b in c.batches][-1] == "flagged"
    second = repo["reports"][1]
    assert c.latest_validation["batch"] == "b15" and c.latest_validation["verdict"] == "flagged"
    stored = {s["signal"]: s["status"] for s in c.latest_validation["signals"]}
    assert stored == {s["signal"]: s["status"] for s in second["signals"]}
    avh = next(s for s in c.latest_validation["signals"] if s["signal"] == "avh")
    assert "amount" in avh["failing_columns"] and "programs" not in avh   # programs are not stored
    # the flagged batch sits outside the range of at least one amount clause, and is marked flagged
    amount = c.avh_charts["amount"]
    assert any(ch.outside[-1] and ch.flagged[-1] for ch in amount)
    # every chart has one point per batch and ranges where the clause is defined
    for charts in c.avh_charts.values():
        for ch in charts:
            assert len(ch.values) == len(ch.lower) == CLEAN + 2 and ch.bounded
    # declared metrics: one chart per analyzer, one point per check run
    assert sorted(ch.title for ch in c.declared_charts) == ["Completeness(column='amount')",
                                                            "Mean(column='amount')"]
    assert all(len(ch.values) == 20 for ch in c.declared_charts)
    # pattern rules learned with the index from the latest clean batch's sample: the rule matches its ids
    rule = c.patterns["order_id"]["pattern"]
    from lakeindex.patterns.pattern import to_regex

    assert all(re.fullmatch(to_regex(rule), f"ORD-{CLEAN:03d}{i:05d}") for i in range(300))


def test_report_without_validations_or_programs(tmp_path):
    from lakeindex.report import gather, render

    h = BatchHistory(str(tmp_path), "young")
    for day in range(2):
        h.add(batch(day, day, rows=50), f"d{day}", timestamp_ms=T0 + day * DAY)
    c = gather(str(tmp_path), "young")
    assert c.latest_validation is None and c.avh_charts == {} and "need 3" in c.avh_note
    page = render(c)
    assert "No batch of this dataset was recorded by" in page and "AVH programs need 3" in page


def test_unknown_dataset_names_what_is_there(repo):
    from lakeindex.report import UnknownDataset, gather

    with pytest.raises(UnknownDataset, match="no dataset 'nope'.*orders"):
        gather(repo["path"], "nope")


# ---- the page -------------------------------------------------------------------------------------------

class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.starts: list[tuple[str, dict[str, str]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.starts.append((tag, {k: v or "" for k, v in attrs}))


def _tags(page: str) -> list[tuple[str, dict[str, str]]]:
    p = _Tags()
    p.feed(page)
    return p.starts


def test_page_is_self_contained(repo, index):
    from lakeindex.report import build_report

    page, c = build_report(repo["path"], "orders", index=index)
    tags = _tags(page)
    names = [t for t, _ in tags]
    assert "script" not in names and "link" not in names and "img" not in names and "iframe" not in names
    for _, attrs in tags:   # nothing refers outside the page
        for key in ("src", "href", "xlink:href", "action"):
            assert not attrs.get(key), (key, attrs)
    csp = next(a["content"] for t, a in tags if t == "meta" and a.get("http-equiv") == "Content-Security-Policy")
    assert "default-src 'none'" in csp
    charts = sum(len(v) for v in c.avh_charts.values()) + len(c.declared_charts)
    assert sum(1 for t, a in tags if t == "figure") == charts
    assert sum(1 for t, _ in tags if t == "svg") == charts
    assert 'id="latest-verdict"' in page and ">flagged</span>" in page
    assert 'id="signal-avh"' in page and "Violated clauses" in page


def test_hostile_names_are_escaped(repo):
    from lakeindex.report import build_report

    page, _ = build_report(repo["path"], "odd")
    names = [t for t, _ in _tags(page)]
    assert "script" not in names and "img" not in names
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page


# ---- command and service -----------------------------------------------------------------------------------

def test_report_command(repo, tmp_path, capsys):
    from lakeindex.cli import main

    out = tmp_path / "r.html"
    assert main(["report", "--repo", repo["path"], "--dataset", "orders", "--out", str(out)]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["latest_batch"] == "b15" and doc["latest_verdict"] == "flagged" and doc["batches"] == CLEAN + 2
    assert doc["declared_charts"] == 2 and out.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".tmp")]   # published atomically
    assert main(["report", "--repo", repo["path"], "--dataset", "nope", "--out", str(out)]) == 2
    assert "no dataset 'nope'" in capsys.readouterr().err
    assert main(["report", "--repo", str(tmp_path / "missing"), "--dataset", "orders", "--out", str(out)]) == 2
    assert "does not exist" in capsys.readouterr().err
    assert main(["report", "--repo", repo["path"], "--dataset", "orders", "--out",
                 str(tmp_path / "no" / "r.html")]) == 2
    assert "directory" in capsys.readouterr().err


def test_page_names_are_safe_and_distinct():
    from lakeindex.report.site import page_name

    names = [page_name(n) for n in ("a/b", "a_b", "../../etc/passwd", "", "naïve ds", "x" * 500)]
    assert len(set(names)) == len(names)
    assert all(re.fullmatch(r"[A-Za-z0-9._-]+\.html", n) and not n.startswith(".") and len(n) < 90 for n in names)


def test_site_has_a_page_per_dataset_and_an_index(repo, tmp_path, capsys):
    from lakeindex.cli import main

    site = tmp_path / "site"
    assert main(["report", "--repo", repo["path"], "--out", str(site)]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert [r["dataset"] for r in doc["datasets"]] == ["odd", "orders"]
    orders = next(r for r in doc["datasets"] if r["dataset"] == "orders")
    assert orders["latest_verdict"] == "flagged" and orders["batches"] == CLEAN + 2 and orders["flagged"] == 1
    index_html = (site / "index.html").read_text(encoding="utf-8")
    links = [a["href"] for t, a in _tags(index_html) if t == "a"]
    assert sorted(links) == sorted(r["page"] for r in doc["datasets"])
    for r in doc["datasets"]:
        page = (site / r["page"]).read_text(encoding="utf-8")
        assert f"<title>{r['dataset']} · lakeindex report</title>" in page
    assert main(["report", "--repo", repo["path"], "--out", str(site / "index.html")]) == 2  # a file, not a dir
    assert "without --dataset it names a directory" in capsys.readouterr().err


def test_service_serves_the_report(repo, index):
    from fastapi.testclient import TestClient

    from query_service.app import create_app
    from query_service.limits import Settings

    with TestClient(create_app(index, Settings(repository=repo["path"]))) as client:
        r = client.get("/v1/datasets/orders/report")
        assert r.status_code == 200 and r.headers["content-type"].startswith("text/html")
        assert "default-src 'none'" in r.headers["content-security-policy"]
        assert 'id="latest-verdict"' in r.text and 'id="pattern-order_id"' in r.text
        assert client.get("/v1/datasets/nope/report").status_code == 404
        assert client.get("/v1/datasets/orders/report?delta=2").status_code == 422
        listing = {d["dataset"]: d for d in client.get("/v1/datasets").json()["datasets"]}
        assert set(listing) == {"odd", "orders"}
        orders = listing["orders"]
        assert (orders["batches"], orders["accepted"], orders["flagged"]) == (CLEAN + 2, CLEAN + 1, 1)
        assert orders["latest_batch"] == "b15" and orders["latest_timestamp_ms"] == T0 + (CLEAN + 1) * DAY
        assert orders["latest_verdict"] == "flagged" and orders["verdict_batch"] == "b15"
        assert "avh" in orders["failing_signals"] and orders["check_runs"] == 20
        assert client.get(orders["report"]).status_code == 200
        odd = listing["odd"]
        assert (odd["batches"], odd["latest_verdict"], odd["check_runs"]) == (4, None, 0)
        schema = client.get("/openapi.json").json()
        assert "text/html" in schema["paths"]["/v1/datasets/{name}/report"]["get"]["responses"]["200"]["content"]
    with TestClient(create_app(index)) as client:
        assert client.get("/v1/datasets/orders/report").status_code == 503
        assert client.get("/v1/datasets").status_code == 503


# ---- a real headless browser -------------------------------------------------------------------------------

CHROMIUM = os.environ.get("LAKEINDEX_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
# .ci/run installs Chromium and sets this: there the browser test must run, not skip
BROWSER_REQUIRED = os.environ.get("LAKEINDEX_REQUIRE_BROWSER") == "1"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-sync",
                 "--disable-background-networking", "--disable-component-update"]


@pytest.fixture(scope="module")
def browser():
    why = None
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        why = "playwright is not installed (pip install -e '.[test]')"
    if why is None and not os.path.exists(CHROMIUM):
        why = f"no Chromium at {CHROMIUM} (apt-get install chromium)"
    if why:
        if BROWSER_REQUIRED:
            pytest.fail(why)
        pytest.skip(why)
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        yield b
        b.close()


def test_report_renders_offline_in_chromium(repo, index, browser, tmp_path):
    from lakeindex.report import build_report

    page_html, c = build_report(repo["path"], "orders", index=index)
    path = tmp_path / "report.html"
    path.write_text(page_html, encoding="utf-8")
    url = path.as_uri()
    ctx = browser.new_context(viewport={"width": 1300, "height": 900}, offline=True)
    page = ctx.new_page()
    requests, problems = [], []
    page.on("request", lambda r: requests.append(r.url))
    page.on("console", lambda m: problems.append(m.text) if m.type in ("error", "warning") else None)
    page.on("pageerror", lambda e: problems.append(str(e)))
    page.goto(url, wait_until="load")
    assert requests == [url]            # the page itself, nothing else
    assert problems == []               # no blocked fetch, no CSP violation
    assert page.locator("#latest-verdict").inner_text() == "flagged"
    charts = sum(len(v) for v in c.avh_charts.values()) + len(c.declared_charts)
    assert page.locator("figure.chart").count() == charts
    # the flagged batch is drawn, inside its chart, on an amount chart
    key = next(ch.key for ch in c.avh_charts["amount"] if ch.outside[-1] and ch.flagged[-1])
    chart_box = page.locator(f"figure#{key} svg").bounding_box()
    for part in ("flagged", "outside", "band", "values", "next"):
        box = page.locator(f"#{key}-{part}").bounding_box()
        assert box is not None and box["width"] > 0 and box["height"] > 0, part
        assert chart_box["x"] <= box["x"] and box["x"] + box["width"] <= chart_box["x"] + chart_box["width"] + 1
    # the flagged mark is the right-most point of the value line (the latest batch)
    flagged_box = page.locator(f"#{key}-flagged").bounding_box()
    last_dot = page.locator(f"#{key}-values circle").last.bounding_box()
    assert abs((flagged_box["x"] + flagged_box["width"] / 2) - (last_dot["x"] + last_dot["width"] / 2)) < 1.5
    assert "b15" in page.locator(f"#{key}-values circle title").last.text_content()
    # the evidence table names the failing column; the pattern rule is shown
    assert "amount" in page.locator("table.evidence-avh").inner_text()
    assert page.locator("#pattern-order_id code").inner_text() == c.patterns["order_id"]["pattern"]
    png = page.screenshot(full_page=True)
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 20_000
    ctx.close()


def test_site_navigates_offline_in_chromium(repo, browser, tmp_path):
    from lakeindex.report.site import page_name, write_site

    site = tmp_path / "site"
    write_site(repo["path"], site)
    ctx = browser.new_context(offline=True)
    page = ctx.new_page()
    requests, problems = [], []
    page.on("request", lambda r: requests.append(r.url))
    page.on("console", lambda m: problems.append(m.text) if m.type in ("error", "warning") else None)
    page.goto((site / "index.html").as_uri(), wait_until="load")
    page.get_by_role("link", name="orders", exact=True).click()
    page.wait_for_load_state("load")
    assert page.url == (site / page_name("orders")).as_uri()
    assert page.locator("#latest-verdict").inner_text() == "flagged"
    assert requests == [(site / "index.html").as_uri(), (site / page_name("orders")).as_uri()]
    assert problems == []
    ctx.close()


# ---- what a reader is told ------------------------------------------------------------------------------------

def test_a_flagged_batch_is_marked_only_on_the_metrics_it_violated(repo, index):
    """b15 was flagged by AVH on amount's complete_ratio alone (the recorded verdict): only that chart marks it."""
    from lakeindex.report import gather

    recorded = next(s for s in repo["reports"][1]["signals"] if s["signal"] == "avh")["failing_columns"]
    violated = {(col, v["metric"]) for col, verdict in recorded.items() for v in verdict["violations"]}
    assert violated == {("amount", "complete_ratio")}
    c = gather(repo["path"], "orders", index=index)
    marked = {(col, ch.title.split(" · ")[1]) for col, charts in c.avh_charts.items() for ch in charts
              if ch.flagged[-1]}
    assert marked == violated
    assert not any(any(ch.flagged[:-1]) for charts in c.avh_charts.values() for ch in charts)  # b00-b14 are clean


def test_bounds_beyond_a_ratio_metrics_range_are_not_shown():
    """complete_ratio lies in [0, 1]: an upper bound of 1.07546 admits every value, so the clause reads as its
    lower bound alone and the chart's band stops at 1; a lag clause's range is cut to [0, 1] too."""
    c = RangeConstraint("c", "complete_ratio", Transform("identity", 0), 0.91, 1.07546, 0.001, BoundKind.CHEBYSHEV)
    assert c.describe() == "complete_ratio >= 0.91"
    assert not c.violates(1.0) and c.violates(0.9)  # what is checked is unchanged
    both = RangeConstraint("c", "unique_ratio", Transform("identity", 0), -0.2, 1.3, 0.001, BoundKind.CHEBYSHEV)
    assert both.describe() == "unique_ratio is defined"
    assert raw_range(c, []) == (0.91, 1.0)
    lag = RangeConstraint("c", "complete_ratio", Transform("lag", 1), -0.1, 0.1, 0.001, BoundKind.CHEBYSHEV)
    assert raw_range(lag, [0.05]) == (0.0, pytest.approx(0.15))
    assert raw_range(lag, [0.95]) == (pytest.approx(0.85), 1.0)
    # a metric without a known range keeps its bounds as learned
    assert raw_range(_c(-3, 1e9), []) == (-3, 1e9)


def test_every_batch_metric_has_a_description_and_the_page_shows_it(repo, index):
    from lakeindex.history.batch_metrics import BatchMetric
    from lakeindex.history.metric_glossary import GLOSSARY
    from lakeindex.report import build_report

    assert set(GLOSSARY) == {str(m) for m in BatchMetric}
    assert all(len(info.description) > 10 for info in GLOSSARY.values())
    page, c = build_report(repo["path"], "orders", index=index)
    assert c.avh_charts["country"]  # pat_chisquare among them
    for charts in c.avh_charts.values():
        for ch in charts:
            metric = ch.title.split(" · ")[1].split(" - ")[0]
            assert ch.description == GLOSSARY[metric].description
            assert str(_escape(ch.description)) in page


def _escape(text: str) -> str:
    from markupsafe import escape

    return escape(text)


def test_pattern_table_sources_read_well_and_keep_the_latest_p_values(repo, index):
    from lakeindex.report import build_report

    recorded = next(s for s in repo["reports"][1]["signals"] if s["signal"] == "patterns")["columns"]
    page, c = build_report(repo["path"], "orders", index=index)
    assert "''s" not in page and "'s value sample" not in c.patterns_source
    assert "b14" in c.patterns_source
    for column, result in recorded.items():
        assert c.patterns[column]["p_value"] == result["p_value"]


TIMESTAMPS = [f"2026-11-{d:02d} 0{d % 10}:15:00 UTC" for d in range(1, 17)]


def test_x_axis_labels_do_not_overlap(browser, tmp_path):
    """Measured by a browser: the first labels of a chart of 16 timestamped batches used to overlap."""
    values = [100.0 + d for d in range(16)]
    svg = chart_svg(chart("t", "t", TIMESTAMPS, values, [True] * 16, _c(90, 130)))
    path = tmp_path / "chart.html"
    path.write_text(f"<!DOCTYPE html><html><body>{svg}</body></html>", encoding="utf-8")
    page = browser.new_page()
    page.goto(path.as_uri())
    boxes = page.eval_on_selector_all(
        "svg text", "ts => ts.filter(t => t.getAttribute('y') === String(t.ownerSVGElement.viewBox.baseVal.height - 8))"
        ".map(t => { const b = t.getBBox(); return [b.x, b.x + b.width]; })")
    page.close()
    assert len(boxes) >= 2
    boxes.sort()
    assert boxes[0][0] >= 0 and boxes[-1][1] <= 420
    assert all(a[1] + 2 <= b[0] for a, b in zip(boxes, boxes[1:], strict=False)), boxes
