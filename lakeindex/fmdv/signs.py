"""Signs a small training sample cannot show: numbers learned from few values may carry a minus or not.

A rule learned from a handful of positive numbers says ``<digit>+``, and a column that also holds negative
ones then breaks it on a third of its values: nothing in five values tells the two columns apart. The lake
does. Its number columns that are evidence for ``-<num>`` (at least 1/16 of their values negative, the
index's evidence share) are the share

    pi = Cov_T(-<num>) / Cov_T(<num>)

of those that are evidence for ``<num>``. A signed column shows no minus in n values with probability at
most (1 - 1/16)^n, so after n values without one, by Bayes' rule, the column is signed with probability at
most

    pi * (15/16)^n / (pi * (15/16)^n + 1 - pi).

While that exceeds alpha, the sample cannot rule a sign out, and a rule learned from it lets every number
that starts a field (at the value's start, or after a symbol other than a dot or a sign) carry an optional
minus; a minus every training value had there becomes optional the same way, since the lake's signed
columns hold positive numbers too. On the bench lakes pi is 0.074 and 0.091, which releases signs below
32 and 36 training values; from there a sample that never shows a minus is evidence that the column has
none.

Only unbounded numbers (``<digit>+``, ``<num>``) are fields: fixed-width digits are the parts of dates,
times and codes, where a sign means another format. Optional blocks do not nest, so a number inside one
is left as it is; the items of a list take signs like the rest, unless the list's separator is a minus.
"""

from __future__ import annotations

import math
import sys

from lakeindex.fmdv.rule import Segment
from lakeindex.fmdv.search import SegmentSolver
from lakeindex.patterns.enumerate import DEFAULT_MIN_SHARE
from lakeindex.patterns.pattern import Element, PatternError, format_elements, parse

SIGNED, UNSIGNED = "-<num>", "<num>"
_NOT_FIELD_START = frozenset(".-+")
_OPTIONAL_MINUS = (Element("opt"), Element(None, "-"), Element("/opt"))


def signed_share(solver: SegmentSolver) -> float:
    """pi: the share of the lake's number columns that hold negative numbers (0 if it has no numbers)."""
    signed, unsigned = solver.lookup([SIGNED, UNSIGNED])
    if unsigned is None or not unsigned.coverage:
        return 0.0
    return min(1.0, (signed.coverage if signed is not None else 0) / unsigned.coverage)


def release_size(pi: float, alpha: float, share: float = 1 / DEFAULT_MIN_SHARE) -> int:
    """The least training size from which a sample without a minus makes a signed column at most alpha
    likely (0 when the lake holds no signed numbers)."""
    if pi <= 0 or alpha <= 0:
        return 0
    if pi >= 1:  # every number column of the lake signed: no sample rules a sign out
        return sys.maxsize
    odds = alpha * (1 - pi) / (pi * (1 - alpha))
    return max(0, math.ceil(math.log(odds) / math.log(1 - share)))


def _field_start(prev: str | None) -> bool:
    """A number starts a field after the value's start (``prev`` None) or a symbol other than a dot or a sign
    (``prev`` "" where the character before is not known: after an optional or repetition block)."""
    return prev is None or (prev != "" and not prev.isalnum() and prev not in _NOT_FIELD_START)


def _unbounded_number(e: Element) -> bool:
    return e.cls == "num" or (e.cls == "digit" and e.k is None)


def _signed_elements(elements: list[tuple[int, Element]]) -> tuple[list[tuple[int, Element]], bool]:
    """The rule's elements, each with its segment's index, with an optional minus before each number that
    starts a field."""
    out: list[tuple[int, Element]] = []
    prev: str | None = None  # the character before the element: None at the value's start, "" if not known
    depth = 0  # inside an optional block (blocks do not nest); repetition bodies take signs like the rest
    changed = False
    for i, (seg, e) in enumerate(elements):
        nxt = elements[i + 1][1] if i + 1 < len(elements) else None
        if e.cls == "opt":
            depth += 1
        elif e.cls == "/opt":
            depth -= 1
        elif not depth and e.cls is None and nxt is not None and _unbounded_number(nxt) and e.text.endswith("-"):
            if _field_start(e.text[-2] if len(e.text) > 1 else prev):  # a minus every value had: optional
                if len(e.text) > 1:
                    out.append((seg, Element(None, e.text[:-1])))
                out += [(seg, m) for m in _OPTIONAL_MINUS]
                changed = True
                prev = "-"
                continue
        elif not depth and _unbounded_number(e) and _field_start(prev):
            out += [(seg, m) for m in _OPTIONAL_MINUS]
            changed = True
        out.append((seg, e))
        if e.cls is None:
            prev = e.text[-1] if e.text else prev
        else:
            prev = "" if e.cls in ("opt", "/opt", "rep", "/rep") else "0"
    return out, changed


def release_signs(segments: list[Segment]) -> list[Segment] | None:
    """The rule's segments with optional minus signs on its number fields, or None if none changes."""
    flat = [(i, e) for i, seg in enumerate(segments) for e in parse(seg.pattern)]
    signed, changed = _signed_elements(flat)
    if not changed:
        return None
    out = []
    for i, seg in enumerate(segments):
        pattern = format_elements([e for j, e in signed if j == i])
        try:
            parse(pattern)
        except PatternError:  # a list whose separator is a minus: this segment keeps its form
            pattern = seg.pattern
        out.append(seg if pattern == seg.pattern else Segment(pattern, seg.fpr, seg.coverage, seg.literal))
    return out
