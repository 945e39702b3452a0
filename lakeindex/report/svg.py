"""A history chart as a small inline SVG element.

Drawn here rather than by a plotting library: on the 2-core machine, with nothing else running, matplotlib
took 66 ms per bare line chart to SVG (2.4 s for a 36-chart page, before bands, markers and layout) and this
module 0.23 ms (8 ms), for a page the service renders on request; and matplotlib's SVG has no per-point
tooltips (BENCHMARKS.md, "Report"). This module only maps numbers to
a fixed canvas: a stepped band (each batch's allowed range), the value line, one circle per batch with a
``<title>`` tooltip, flagged batches (red ✕), values outside the range (orange ring) and the range the next
batch must fall in (green bar). Parts carry ids a reader or test can find: ``{key}-band``, ``{key}-values``,
``{key}-flagged``, ``{key}-outside``, ``{key}-next``. Every text is XML-escaped.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from html import escape

from lakeindex.report.charts import Chart
from lakeindex.report.evidence import num

BAND = "#9ecae1"
LINE = "#08519c"
FLAGGED = "#d62728"
OUTSIDE = "#ff7f0e"
NEXT = "#2ca02c"

WIDTH, HEIGHT = 420, 170
LEFT, RIGHT, TOP, BOTTOM = 58, 14, 10, 24
# x-axis label widths at font-size 9: 0.6 em per character is above a sans-serif digit's (0.556 em)
LABEL_CHAR_PX, LABEL_GAP_PX = 5.4, 6.0


def nice_ticks(lo: float, hi: float, count: int = 5) -> list[float]:
    """Round tick values covering [lo, hi] (steps of 1, 2 or 5 times a power of ten)."""
    span = hi - lo
    if not span > 0:
        return [lo]
    raw = span / max(1, count - 1)
    power = 10 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 5, 10) if m * power >= raw)
    first = math.ceil(lo / step) * step
    return [round(first + i * step, 12) for i in range(int((hi - first) / step + 1e-9) + 1)]


def _limits(chart: Chart) -> tuple[float, float]:
    """The y-range: every value and every finite bound, with a margin (a flat series gets 5% of its size)."""
    ys = [y for y in chart.values + chart.lower + chart.upper if y is not None and math.isfinite(y)]
    if chart.next_range:
        ys += [y for y in chart.next_range if y is not None and math.isfinite(y)]
    if not ys:
        return 0.0, 1.0
    lo, hi = min(ys), max(ys)
    scale = max(abs(lo), abs(hi))
    if hi - lo <= 1e-6 * scale or hi == lo:  # flat (a constant, or a zero-width range about it)
        pad = max(scale, 1e-9) * 0.05
    else:
        pad = (hi - lo) * 0.08
    return lo - pad, hi + pad



def chart_svg(chart: Chart) -> str:
    """The chart as an ``<svg>`` element, ready to inline in HTML."""
    n = len(chart.values)
    lo, hi = _limits(chart)
    slots = n + (1 if chart.next_range is not None else 0)
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    step = plot_w / max(1, slots)

    def x(i: float) -> float:
        return LEFT + step * (i + 0.5)

    def y(v: float) -> float:
        return TOP + plot_h * (hi - min(max(v, lo), hi)) / (hi - lo)

    k = escape(chart.key)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" width="{WIDTH}" '
           f'height="{HEIGHT}" role="img" aria-label="{escape(chart.title)}" font-family="sans-serif" font-size="9">']
    for t in nice_ticks(lo, hi):
        out.append(f'<line x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{y(t):.1f}" y2="{y(t):.1f}" stroke="#eaeef2"/>'
                   f'<text x="{LEFT - 4}" y="{y(t) + 3:.1f}" text-anchor="end" fill="#57606a">'
                   f'{escape(f"{t:.4g}")}</text>')
    out.append(f'<line x1="{LEFT}" x2="{LEFT}" y1="{TOP}" y2="{TOP + plot_h}" stroke="#8c959f"/>')
    band = []
    for i in range(n):
        a, b = chart.lower[i], chart.upper[i]
        if a is None and b is None:
            continue
        top, bottom = y(hi if b is None else b), y(lo if a is None else a)
        band.append(f'<rect x="{x(i) - step / 2:.1f}" y="{top:.1f}" width="{step:.2f}" '
                    f'height="{max(bottom - top, 0.8):.1f}"/>')
    if band:
        # crisp edges: adjacent batches' ranges meet without antialiased seams
        out.append(f'<g id="{k}-band" fill="{BAND}" fill-opacity="0.6" shape-rendering="crispEdges">'
                   f'{"".join(band)}</g>')
    path, pen_down = [], False
    for i, v in enumerate(chart.values):
        if v is None:
            pen_down = False
            continue
        path.append(f'{"L" if pen_down else "M"}{x(i):.1f},{y(v):.1f}')
        pen_down = True
    dots, dot = [], 2.2 if n <= 100 else 1.3  # smaller points where a year of batches shares the width
    for i, v in enumerate(chart.values):
        if v is None:
            continue
        allowed = (f" allowed [{num(chart.lower[i])}, {num(chart.upper[i])}]"
                   if chart.lower[i] is not None or chart.upper[i] is not None else "")
        tip = escape(f"{chart.labels[i]}: {num(v)}{allowed}{' · flagged' if chart.flagged[i] else ''}")
        dots.append(f'<circle cx="{x(i):.1f}" cy="{y(v):.1f}" r="{dot}"><title>{tip}</title></circle>')
    out.append(f'<g id="{k}-values"><path d="{" ".join(path)}" fill="none" stroke="{LINE}" stroke-width="1.3"/>'
               f'<g fill="{LINE}">{"".join(dots)}</g></g>')
    flagged = [i for i in range(n) if chart.flagged[i] and chart.values[i] is not None]
    if flagged:
        marks = "".join(f'<path d="M{x(i) - 4:.1f},{y(v) - 4:.1f}l8,8m0,-8l-8,8"><title>{escape(chart.labels[i])}: '
                        f'flagged batch</title></path>' for i in flagged if (v := chart.values[i]) is not None)
        out.append(f'<g id="{k}-flagged" stroke="{FLAGGED}" stroke-width="2.2">{marks}</g>')
    outside = [i for i in range(n) if chart.outside[i] and chart.values[i] is not None]
    if outside:
        rings = "".join(f'<circle cx="{x(i):.1f}" cy="{y(v):.1f}" r="5.5"><title>{escape(chart.labels[i])}: '
                        f'outside the allowed range</title></circle>' for i in outside
                        if (v := chart.values[i]) is not None)
        out.append(f'<g id="{k}-outside" fill="none" stroke="{OUTSIDE}" stroke-width="1.6">{rings}</g>')
    if chart.next_range is not None:
        a, b = chart.next_range
        tip = escape(f"next batch must fall in [{num(a)}, {num(b)}]")
        out.append(f'<line id="{k}-next" x1="{x(n):.1f}" x2="{x(n):.1f}" y1="{y(hi if b is None else b):.1f}" '
                   f'y2="{y(lo if a is None else a):.1f}" stroke="{NEXT}" stroke-width="4"><title>{tip}</title></line>')
    for i, anchor in x_ticks([_short(label) for label in chart.labels], x, step):
        out.append(f'<text x="{x(i):.1f}" y="{HEIGHT - 8}" text-anchor="{anchor}" fill="#57606a">'
                   f'{escape(_short(chart.labels[i]))}</text>')
    out.append("</svg>")
    return "".join(out)


def x_ticks(labels: list[str], x: Callable[[float], float], step: float) -> list[tuple[int, str]]:
    """The batches whose labels the x-axis shows, with their text anchors: the first (left-aligned), the last
    (right-aligned) and evenly spaced ones between, as many as fit without two labels touching."""
    n = len(labels)
    if n == 0:
        return []
    width = [len(label) * LABEL_CHAR_PX for label in labels]

    def span(i: int, anchor: str) -> tuple[float, float]:
        left = x(i) - (0 if anchor == "start" else width[i] if anchor == "end" else width[i] / 2)
        return left, left + width[i]

    chosen = [(0, "start")]
    if n == 1:
        return chosen
    last = span(n - 1, "end")
    if last[0] < span(0, "start")[1] + LABEL_GAP_PX:
        return chosen  # two labels do not fit: the first batch's only
    every = max(1, math.ceil((max(width) + LABEL_GAP_PX) / step))
    right = span(0, "start")[1]
    for i in range(every, n - 1, every):
        left, end = span(i, "middle")
        if left >= right + LABEL_GAP_PX and end + LABEL_GAP_PX <= last[0]:
            chosen.append((i, "middle"))
            right = end
    return [*chosen, (n - 1, "end")]


def _short(label: str, width: int = 16) -> str:
    return label if len(label) <= width else label[: width - 1] + "…"
