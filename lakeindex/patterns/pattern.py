"""Canonical pattern strings: parsing, conversion to an anchored regex, and matching.

A pattern is a sequence of elements written as in the paper: classes ``<digit>{4}``,
``<digit>+``, ``<num>``, ``<upper>{2}``, ``<lower>+``, ``<letter>{3}``, ``<hex>{7}``,
``<alphanum>+``, ``<all>``, and literal text. In literals the characters ``\\ < { +`` are escaped with a
backslash so that every pattern has exactly one string form (the index key) and parses back.

Rules (never index keys) may also hold *repetition blocks*, ``<rep>...</rep>{k}``, ``{k,}`` or
``{k,l}``, regex ``(?:...){k}``: a list of items with one separator, ``<digit>+<rep>|<digit>+</rep>{23}``
for 24 numbers. A block starts with its separator, symbols no other part of the block may hold
(and no ``<all>``, no ``<num>`` if the separator has a dot), so each repetition ends where the
next separator starts and matching cannot backtrack. An optional block may sit inside it. A record
may hold several lists (two path fields), so blocks may follow one another, each with its own
separator: two blocks of one separator would make their boundary ambiguous.
Rules may also hold *optional blocks*, ``<opt>...</opt>``, regex ``(?:...)?``:
a part of the values that some of them lack, such as the sign of ``-12`` among ``34``
(``<opt>-</opt><digit>+``). Vertical cuts produce them from gaps in the alignment. Blocks do not
nest. Since ``<`` is always escaped in literals, the markers cannot clash with literal text.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import NamedTuple

from lakeindex.patterns.hierarchy import CHAR_CLASSES

_ESCAPED = frozenset("\\<{+")
_NEEDS_ESCAPE = re.compile(r"[\\<{+]")
_CLASS_RE = re.compile(r"<(digit|upper|lower|letter|hex|alphanum|num|all)>(?:\{([0-9]+)\}|(\+))?")
OPT_OPEN, OPT_CLOSE = "<opt>", "</opt>"
REP_OPEN, REP_CLOSE = "<rep>", "</rep>"
_REP_CLOSE_RE = re.compile(r"</rep>\{([0-9]+)(,)?([0-9]+)?\}")
MAX_REPEAT = 100_000
_NUM_RE = "[0-9]+(?:\\.[0-9]+)?"

MAX_PATTERN_LENGTH = 4096


class PatternError(ValueError):
    """A pattern string that is not in canonical form."""


class Element(NamedTuple):
    """One pattern element: a literal (``cls`` None), a class with ``k`` (None means ``+``), the
    start (``cls`` "opt") or end ("/opt") of an optional block, or the start ("rep") or end ("/rep",
    ``k`` the minimum and ``text`` the quantifier as written, e.g. ``{3,}``) of a repetition block."""

    cls: str | None
    text: str = ""
    k: int | None = None


def escape_literal(text: str) -> str:
    """Escape literal text for use inside a canonical pattern."""
    return _NEEDS_ESCAPE.sub(lambda m: "\\" + m.group(0), text)


@lru_cache(maxsize=65536)
def parse(pattern: str) -> tuple[Element, ...]:
    """Parse a canonical pattern string into elements; raise PatternError if malformed."""
    if len(pattern) > MAX_PATTERN_LENGTH:
        raise PatternError(f"pattern longer than {MAX_PATTERN_LENGTH} characters")
    out: list[Element] = []
    lit: list[str] = []
    i, n = 0, len(pattern)
    block = -1  # index in ``out`` of the open optional block, -1 outside one
    rep = -1  # index in ``out`` of the open repetition block
    rep_seps: set[str] = set()
    while i < n:
        c = pattern[i]
        if c == "<" and (pattern.startswith(REP_OPEN, i) or pattern.startswith("</rep>", i)):
            if lit:
                out.append(Element(None, "".join(lit)))
                lit.clear()
            if pattern.startswith(REP_OPEN, i):
                if rep >= 0 or block >= 0:
                    raise PatternError(f"a nested {REP_OPEN} at position {i} in {pattern!r}")
                rep = len(out)
                out.append(Element("rep"))
                i += len(REP_OPEN)
            else:
                m = _REP_CLOSE_RE.match(pattern, i)
                if rep < 0 or rep == len(out) - 1 or block >= 0 or not m:
                    raise PatternError(f"bad {REP_CLOSE}{{k}} at position {i} in {pattern!r}")
                lo, comma, hi = int(m.group(1)), m.group(2), m.group(3)
                if not 1 <= lo <= MAX_REPEAT or (hi is not None and not lo <= int(hi) <= MAX_REPEAT) \
                        or (hi is not None and not comma):
                    raise PatternError(f"bad repetition count at position {i} in {pattern!r}")
                out.append(Element("/rep", m.group(0)[len(REP_CLOSE):], lo))
                sep = _check_repetition(out[rep + 1:-1], pattern)
                if sep in rep_seps:
                    raise PatternError(f"two {REP_OPEN} blocks with the separator {sep!r} in {pattern!r}: "
                                       "where one ends would be ambiguous")
                rep_seps.add(sep)
                rep = -1
                i = m.end()
        elif c == "<" and (pattern.startswith(OPT_OPEN, i) or pattern.startswith(OPT_CLOSE, i)):
            if lit:
                out.append(Element(None, "".join(lit)))
                lit.clear()
            if pattern.startswith(OPT_OPEN, i):
                if block >= 0:
                    raise PatternError(f"nested {OPT_OPEN} at position {i} in {pattern!r}")
                block = len(out)
                out.append(Element("opt"))
                i += len(OPT_OPEN)
            else:
                if block < 0 or block == len(out) - 1:
                    raise PatternError(f"{OPT_CLOSE} without a non-empty {OPT_OPEN} block at position {i} "
                                       f"in {pattern!r}")
                block = -1
                out.append(Element("/opt"))
                i += len(OPT_CLOSE)
        elif c == "\\":
            if i + 1 >= n or pattern[i + 1] not in _ESCAPED:
                raise PatternError(f"bad escape at position {i} in {pattern!r}: only \\\\ \\< \\{{ \\+")
            lit.append(pattern[i + 1])
            i += 2
        elif c == "<":
            m = _CLASS_RE.match(pattern, i)
            if not m:
                raise PatternError(f"unknown class at position {i} in {pattern!r} (escape a literal '<' as \\<)")
            if lit:
                out.append(Element(None, "".join(lit)))
                lit.clear()
            cls, k, is_plus = m.group(1), m.group(2), m.group(3)
            if cls in ("num", "all"):
                if k or is_plus:
                    raise PatternError(f"<{cls}> takes no quantifier in {pattern!r}")
                out.append(Element(cls))
            else:
                if not (k or is_plus):
                    raise PatternError(f"<{cls}> needs {{k}} or + in {pattern!r}")
                kk = int(k) if k else None
                if kk is not None and not 1 <= kk <= 65536:
                    raise PatternError(f"bad length {kk} in {pattern!r}")
                out.append(Element(cls, k=kk))
            i = m.end()
        elif c in "{+":
            raise PatternError(f"unescaped {c!r} at position {i} in {pattern!r}")
        else:
            lit.append(c)
            i += 1
    if lit:
        out.append(Element(None, "".join(lit)))
    if block >= 0:
        raise PatternError(f"unclosed {OPT_OPEN} in {pattern!r}")
    if rep >= 0:
        raise PatternError(f"unclosed {REP_OPEN} in {pattern!r}")
    return tuple(out)


def _check_repetition(body: list[Element], pattern: str) -> str:
    """A repetition body must start with a separator of symbols that nothing else in it can match.

    The separator is the leading symbols of the body's first literal (an item may start with
    constant text, as in ``<rep>,SKU-<digit>+</rep>``, which the canonical form merges into it)."""
    first = body[0].text if body[0].cls is None else ""
    n = 0
    while n < len(first) and not first[n].isalnum():
        n += 1
    sep = first[:n]
    if not sep:
        raise PatternError(f"a {REP_OPEN} block must start with a separator of symbols in {pattern!r}")
    rest = ([Element(None, first[n:])] if first[n:] else []) + body[1:]
    for e in rest:
        if e.cls == "all" or (e.cls == "num" and "." in sep) or (e.cls is None and set(e.text) & set(sep)):
            raise PatternError(f"the separator {sep!r} of a {REP_OPEN} block must not recur inside it in {pattern!r}")
    return sep


def format_elements(elements: tuple[Element, ...] | list[Element]) -> str:
    """Canonical string of parsed elements (inverse of :func:`parse`)."""
    parts = []
    for e in elements:
        if e.cls is None:
            parts.append(escape_literal(e.text))
        elif e.cls in ("opt", "/opt"):
            parts.append(OPT_OPEN if e.cls == "opt" else OPT_CLOSE)
        elif e.cls in ("rep", "/rep"):
            parts.append(REP_OPEN if e.cls == "rep" else REP_CLOSE + e.text)
        elif e.cls in ("num", "all"):
            parts.append(f"<{e.cls}>")
        else:
            parts.append(f"<{e.cls}>" + (f"{{{e.k}}}" if e.k is not None else "+"))
    return "".join(parts)


def element_regex(e: Element) -> str:
    """Regex of one element (unanchored)."""
    if e.cls is None:
        return re.escape(e.text)
    if e.cls == "opt":
        return "(?:"
    if e.cls == "/opt":
        return ")?"
    if e.cls == "rep":
        return "(?:"
    if e.cls == "/rep":
        return ")" + e.text
    if e.cls == "num":
        return _NUM_RE
    if e.cls == "all":
        return "[\\s\\S]+"
    cc = CHAR_CLASSES[e.cls]
    return cc + (f"{{{e.k}}}" if e.k is not None else "+")


_GENERALITY = {("digit", True): 1, ("upper", True): 1, ("lower", True): 1, ("letter", True): 2,
               ("digit", False): 3, ("upper", False): 3, ("lower", False): 3, ("num", False): 4,
               ("letter", False): 4, ("hex", True): 4, ("hex", False): 5, ("alphanum", True): 5,
               ("alphanum", False): 6, ("all", False): 8}


def generality(pattern: str) -> int:
    """How far up the hierarchy a pattern sits (0 for a constant): a tie-breaker toward specific rules."""
    return sum(_GENERALITY[(e.cls, e.k is not None)] for e in parse(pattern)
               if e.cls not in (None, "opt", "/opt", "rep", "/rep"))


_EXAMPLE_CHAR = {"digit": "0", "upper": "A", "lower": "a", "letter": "a", "hex": "a", "alphanum": "a"}


def example(pattern: str) -> str:
    """A shortest string of the pattern's language (classes filled with 0, A or a; no optional block;
    a repetition block its minimum number of times)."""
    out: list[str] = []
    skip = False
    rep_start = -1
    for e in parse(pattern):
        if e.cls == "rep":
            rep_start = len(out)
        elif e.cls == "/rep":
            out.extend(out[rep_start:] * (e.k - 1))
        elif e.cls in ("opt", "/opt"):
            skip = e.cls == "opt"
        elif skip:
            continue
        elif e.cls is None:
            out.append(e.text)
        elif e.cls in ("num", "all"):
            out.append("0")
        else:
            out.append(_EXAMPLE_CHAR[e.cls] * (e.k or 1))
    return "".join(out)


@lru_cache(maxsize=65536)
def to_regex(pattern: str) -> str:
    """Anchored standard regex (``^...$``) accepting exactly the strings the pattern describes."""
    return "^" + "".join(element_regex(e) for e in parse(pattern)) + "$"


@lru_cache(maxsize=65536)
def compiled(pattern: str) -> re.Pattern[str]:
    """Compiled matcher for a pattern (cached; patterns are parsed, never evaluated)."""
    return re.compile("".join(element_regex(e) for e in parse(pattern)))


def matches(pattern: str, value: str) -> bool:
    """True when ``value`` belongs to the language of ``pattern``."""
    return compiled(pattern).fullmatch(value) is not None

