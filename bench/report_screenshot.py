"""Screenshot check of the HTML report (issue 13 §1): build a real history, render the report, open it in
headless Chromium with the network off, screenshot it, and check the picture.

The history: ``bench/recurring_dataset.py``'s order feed (trend, weekly cycle, noise), ``--batches`` clean
batches added with ``history add`` semantics (pandas, no Spark), then two batches validated and recorded
like ``validate-batch``: the next clean one, and one with 40% of ``amount`` missing (it must be flagged).
The report is rendered ``--runs`` times (median gather and render times), then shown in Chromium.

Checks on the screenshot (pixels counted in the browser itself, on a canvas: no imaging library):
- the flagged-batch red, the allowed-range blue, the value-line blue and the next-range green all appear;
- the page made no request but its own file, and logged no error.
The PNG goes to ``bench/out/report.png`` for a person to look at, the figures to
``bench/out/report_screenshot.json``.

    python bench/report_screenshot.py --batches 40 --rows 2000 --runs 3
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.recurring_dataset import generate  # noqa: E402

OUT = Path(__file__).resolve().parent / "out"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-sync",
        "--disable-background-networking", "--disable-component-update"]
# colours of lakeindex.report.svg as they appear on white (the band is drawn at 60% opacity)
COLOURS = {"flagged red": (214, 39, 40), "range blue": (197, 223, 237), "value line": (8, 81, 156),
           "next green": (44, 160, 44)}

COUNT_JS = """async ({png, colours}) => {
  const img = new Image();
  img.src = 'data:image/png;base64,' + png;
  await img.decode();
  const c = document.createElement('canvas');
  c.width = img.width; c.height = img.height;
  const g = c.getContext('2d');
  g.drawImage(img, 0, 0);
  const d = g.getImageData(0, 0, c.width, c.height).data;
  const out = {};
  for (const [name, [r, gg, b]] of Object.entries(colours)) out[name] = 0;
  let nonWhite = 0;
  for (let i = 0; i < d.length; i += 4) {
    if (d[i] < 245 || d[i + 1] < 245 || d[i + 2] < 245) nonWhite++;
    for (const [name, [r, gg, b]] of Object.entries(colours)) {
      if (Math.abs(d[i] - r) <= 6 && Math.abs(d[i + 1] - gg) <= 6 && Math.abs(d[i + 2] - b) <= 6) out[name]++;
    }
  }
  return {width: c.width, height: c.height, nonWhite, colours: out};
}"""


def build_history(repo: str, batches: int, rows: int) -> dict:
    from lakeindex.history.batches import BatchHistory
    from lakeindex.validation import BatchValidator

    frames = generate(batches + 2, rows=rows, seed=7)
    h = BatchHistory(repo, "orders")
    t0, day = 1_760_000_000_000, 86_400_000
    for i, f in enumerate(frames[:batches]):
        h.add(f, f"day-{i:03d}", timestamp_ms=t0 + i * day)
    v = BatchValidator.default()
    clean = v.validate_frame(frames[batches], h, f"day-{batches:03d}", timestamp_ms=t0 + batches * day)
    bad = frames[batches + 1].copy()
    bad.loc[bad.sample(frac=0.4, random_state=1).index, "amount"] = None
    flagged = v.validate_frame(bad, h, f"day-{batches + 1:03d}", timestamp_ms=t0 + (batches + 1) * day)
    return {"clean_verdict": clean["verdict"], "bad_verdict": flagged["verdict"],
            "bad_failing": flagged["failing_signals"]}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--batches", type=int, default=40)
    ap.add_argument("--rows", type=int, default=2000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--chromium", default=shutil.which("chromium") or "/usr/bin/chromium")
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright

    from lakeindex.report import gather, render

    OUT.mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        t = time.perf_counter()
        history = build_history(os.path.join(tmp, "repo"), args.batches, args.rows)
        build_s = time.perf_counter() - t
        gathers, renders = [], []
        for _ in range(args.runs):
            t = time.perf_counter()
            contents = gather(os.path.join(tmp, "repo"), "orders")
            gathers.append(time.perf_counter() - t)
            t = time.perf_counter()
            page_html = render(contents)
            renders.append(time.perf_counter() - t)
        html_path = Path(tmp) / "report.html"
        html_path.write_text(page_html, encoding="utf-8")
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=args.chromium, headless=True, args=ARGS)
            ctx = browser.new_context(viewport={"width": 1300, "height": 900}, offline=True)
            page = ctx.new_page()
            requests, problems = [], []
            page.on("request", lambda r: requests.append(r.url))
            page.on("console", lambda m: problems.append(m.text) if m.type in ("error", "warning") else None)
            t = time.perf_counter()
            page.goto(html_path.as_uri(), wait_until="load")
            load_s = time.perf_counter() - t
            png = page.screenshot(full_page=True)
            (OUT / "report.png").write_bytes(png)
            blank = ctx.new_page()
            pixels = blank.evaluate(COUNT_JS, {"png": base64.b64encode(png).decode(), "colours": COLOURS})
            browser.close()
    checks = {"no request but the page": requests == [html_path.as_uri()], "no console error": not problems,
              **{f"{name} drawn": pixels["colours"][name] > 0 for name in COLOURS},
              "bad batch flagged": history["bad_verdict"] == "flagged"}
    result = {
        "command": "python " + " ".join(sys.argv), "date": time.strftime("%Y-%m-%d"), "cpus": os.cpu_count(),
        "batches": args.batches + 2, "rows_per_batch": args.rows, "history_build_s": round(build_s, 1), **history,
        "avh_charts": sum(len(v) for v in contents.avh_charts.values()), "page_bytes": len(page_html.encode()),
        "gather_median_s": round(statistics.median(gathers), 3),
        "render_median_s": round(statistics.median(renders), 3),
        "gather_s": [round(x, 3) for x in gathers], "render_s": [round(x, 3) for x in renders],
        "chromium_load_s": round(load_s, 3), "screenshot": {k: pixels[k] for k in ("width", "height", "nonWhite")},
        "colour_pixels": pixels["colours"], "requests": requests, "console_problems": problems, "checks": checks,
        "passed": all(checks.values()),
    }
    (OUT / "report_screenshot.json").write_text(json.dumps(result, indent=2))
    print(json.dumps(result, indent=2))
    return 0 if result["passed"] else 1


if __name__ == "__main__":
    sys.exit(main())
