"""Canonical pattern strings: parsing, conversion to an anchored regex, and matching.

A pattern is a sequence of elements written as in the paper: classes ``<digit>{4}``,
``<digit>+``, ``<num>``, ``<upper>{2}``, ``<lower>+``, ``<letter>{3}``, ``<hex>{7}``,
``<alphanum>+``, ``<all>``, and literal text. In literals the characters ``\\ < { +`` are escaped with a
backslash so that every pattern has exactly one string form (the index key) and parses back.

Rules (never index keys) may also hold *repetition blocks*, ``<rep>...</rep>{k}``, ``{k,}`` or
``{k,l}``, regex ``(?:...){k}``: a list of items with one separator, ``<digit>+<rep>|<digit>+</rep>{23}``
for 24 numbers; k may be 0 before a comma (``{0,}``: words joined by a symbol, one or more of them).
A block starts with its separator, symbols no other part of the block may hold
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
from typing import Any, NamedTuple, cast

from lakeindex.caches import register
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


# a pattern's parts: a run of word elements (classes with their quantifier, ASCII letters and digits
# written literally), or a run of symbols (escaped characters and any other literal character); ``<``
# always opens a class, as literal ones are escaped
# what a word part's text starts with (a class, or a constant's letter or digit); a symbol run's text
# starts with anything else (``fmdv.hypotheses`` tells its columns' kinds by it, as _PART_RE does here)
WORD_START = frozenset("<ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
_PART_RE = re.compile(r"(?:<[a-z]+>(?:\{[0-9]+\}|\+)?|[A-Za-z0-9])+|(?:\\.|[^A-Za-z0-9<\\])+", re.S)


def part_prefixes(pattern: str) -> list[str]:
    """The prefixes of a canonical pattern that end where a word meets a symbol run (``<digit>{4}``
    and ``<digit>{4}-`` of ``<digit>{4}-<digit>{2}``). A value's words and symbol runs alternate
    (:mod:`lakeindex.patterns.tokens`) and each part's alternatives are all word elements or all
    symbols, so a pattern built part by part can only become a key after passing through these
    prefixes of the key (``fmdv.hypotheses``, which prunes by them)."""
    end = len(pattern)
    return [pattern[:b] for b in (m.end() for m in _PART_RE.finditer(pattern)) if b < end]


@lru_cache(maxsize=8192)
def parse(pattern: str) -> tuple[Element, ...]:
    """Parse a canonical pattern string into elements; raise PatternError if malformed."""
    if len(pattern) > MAX_PATTERN_LENGTH:
        raise PatternError(f"pattern longer than {MAX_PATTERN_LENGTH} characters")
    return _Parser(pattern).run()


class _Parser:
    """One left-to-right pass over a pattern: literal text, classes, and the ``<opt>``/``<rep>`` tags."""

    def __init__(self, pattern: str) -> None:
        self.pattern = pattern
        self.i = 0
        self.out: list[Element] = []
        self.lit: list[str] = []
        self.block = -1  # index in ``out`` of the open optional block, -1 outside one
        self.rep = -1  # index in ``out`` of the open repetition block
        self.rep_seps: set[str] = set()

    def run(self) -> tuple[Element, ...]:
        pattern = self.pattern
        while self.i < len(pattern):
            i, c = self.i, pattern[self.i]
            if c == "<" and (pattern.startswith(REP_OPEN, i) or pattern.startswith("</rep>", i)):
                self.repetition_tag()
            elif c == "<" and (pattern.startswith(OPT_OPEN, i) or pattern.startswith(OPT_CLOSE, i)):
                self.optional_tag()
            elif c == "\\":
                if i + 1 >= len(pattern) or pattern[i + 1] not in _ESCAPED:
                    raise PatternError(f"bad escape at position {i} in {pattern!r}: only \\\\ \\< \\{{ \\+")
                self.lit.append(pattern[i + 1])
                self.i += 2
            elif c == "<":
                self.char_class()
            elif c in "{+":
                raise PatternError(f"unescaped {c!r} at position {i} in {pattern!r}")
            else:
                self.lit.append(c)
                self.i += 1
        self.flush()
        if self.block >= 0:
            raise PatternError(f"unclosed {OPT_OPEN} in {pattern!r}")
        if self.rep >= 0:
            raise PatternError(f"unclosed {REP_OPEN} in {pattern!r}")
        return tuple(self.out)

    def flush(self) -> None:
        """End the current run of literal text."""
        if self.lit:
            self.out.append(Element(None, "".join(self.lit)))
            self.lit.clear()

    def repetition_tag(self) -> None:
        pattern, i, out = self.pattern, self.i, self.out
        self.flush()
        if pattern.startswith(REP_OPEN, i):
            if self.rep >= 0 or self.block >= 0:
                raise PatternError(f"a nested {REP_OPEN} at position {i} in {pattern!r}")
            self.rep = len(out)
            out.append(Element("rep"))
            self.i += len(REP_OPEN)
            return
        m = _REP_CLOSE_RE.match(pattern, i)
        if self.rep < 0 or self.rep == len(out) - 1 or self.block >= 0 or not m:
            raise PatternError(f"bad {REP_CLOSE}{{k}} at position {i} in {pattern!r}")
        lo, comma, hi = int(m.group(1)), m.group(2), m.group(3)
        # {0,} and {0,k} repeat a block at most that often (words joined by a symbol, one or more of
        # them); {0} alone would be an empty block
        if not 0 <= lo <= MAX_REPEAT or (lo == 0 and (not comma or hi == "0")) \
                or (hi is not None and not lo <= int(hi) <= MAX_REPEAT) or (hi is not None and not comma):
            raise PatternError(f"bad repetition count at position {i} in {pattern!r}")
        out.append(Element("/rep", m.group(0)[len(REP_CLOSE):], lo))
        sep = _check_repetition(out[self.rep + 1:-1], pattern)
        if sep in self.rep_seps:
            raise PatternError(f"two {REP_OPEN} blocks with the separator {sep!r} in {pattern!r}: "
                               "where one ends would be ambiguous")
        self.rep_seps.add(sep)
        self.rep = -1
        self.i = m.end()

    def optional_tag(self) -> None:
        pattern, i, out = self.pattern, self.i, self.out
        self.flush()
        if pattern.startswith(OPT_OPEN, i):
            if self.block >= 0:
                raise PatternError(f"nested {OPT_OPEN} at position {i} in {pattern!r}")
            self.block = len(out)
            out.append(Element("opt"))
            self.i += len(OPT_OPEN)
            return
        if self.block < 0 or self.block == len(out) - 1:
            raise PatternError(f"{OPT_CLOSE} without a non-empty {OPT_OPEN} block at position {i} in {pattern!r}")
        self.block = -1
        out.append(Element("/opt"))
        self.i += len(OPT_CLOSE)

    def char_class(self) -> None:
        pattern, i = self.pattern, self.i
        m = _CLASS_RE.match(pattern, i)
        if not m:
            raise PatternError(f"unknown class at position {i} in {pattern!r} (escape a literal '<' as \\<)")
        self.flush()
        cls, k, is_plus = m.group(1), m.group(2), m.group(3)
        if cls in ("num", "all"):
            if k or is_plus:
                raise PatternError(f"<{cls}> takes no quantifier in {pattern!r}")
            self.out.append(Element(cls))
        else:
            if not (k or is_plus):
                raise PatternError(f"<{cls}> needs {{k}} or + in {pattern!r}")
            kk = int(k) if k else None
            if kk is not None and not 1 <= kk <= 65536:
                raise PatternError(f"bad length {kk} in {pattern!r}")
            self.out.append(Element(cls, k=kk))
        self.i = m.end()


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


@lru_cache(maxsize=1 << 16)  # candidates are ranked again in every segment and fit that meets them
def generality(pattern: str) -> int:
    """How far up the hierarchy a pattern sits (0 for a constant): a tie-breaker toward specific rules."""
    return sum(_GENERALITY[(e.cls, e.k is not None)] for e in parse(pattern)
               if e.cls not in (None, "opt", "/opt", "rep", "/rep"))


# class -> the classes whose language (for one run) holds it: <digit> words are numbers and hex words,
# case-uniform letters are letters; <hex> letters are a-f only, so no letter class lies inside <hex>
_INSIDE = {"digit": {"digit", "num", "hex", "alphanum", "all"}, "upper": {"upper", "letter", "alphanum", "all"},
           "lower": {"lower", "letter", "alphanum", "all"}, "letter": {"letter", "alphanum", "all"},
           "hex": {"hex", "alphanum", "all"}, "alphanum": {"alphanum", "all"}, "num": {"num", "all"},
           "all": {"all"}}


def _element_inside(inner: Element, outer: Element) -> bool:
    """Every string of element ``inner`` is one of ``outer`` (conservative: False when unsure)."""
    if inner.cls is None or outer.cls is None or inner.cls in ("opt", "/opt", "rep", "/rep"):
        return inner == outer  # literals and block markers: the same text, quantifier included
    if outer.cls not in _INSIDE.get(inner.cls, ()):
        return False
    if outer.cls in ("num", "all"):
        return True  # any run of digits is a number; anything is <all>
    return outer.k is None or inner.k == outer.k  # {k} lies inside {k} and +, + only inside +


@lru_cache(maxsize=8192)
def subsumes(general: str, specific: str) -> bool:
    """Every value ``specific`` matches, ``general`` matches too: the two patterns have the same elements
    one for one (literals, blocks) and each class of ``specific`` lies inside the class of ``general``
    at that place (``<upper>{6}`` inside ``<upper>+`` inside ``<letter>+`` inside ``<alphanum>+``).
    Sufficient, not necessary: patterns of other element counts answer False."""
    a, b = parse(specific), parse(general)
    return len(a) == len(b) and all(_element_inside(x, y) for x, y in zip(a, b, strict=True))


LETTER_CLASSES = frozenset(("upper", "lower", "letter"))


def led_word_widened(pattern: str) -> str | None:
    """A led window's pattern (delimiters and one word of a letter class: ``.<lower>+``) with the word's
    class widened to ``<alphanum>`` (``.<alphanum>+``), else None."""
    elements = parse(pattern)
    if len(elements) != 2 or elements[0].cls is not None or elements[0].text[-1:].isalnum():
        return None
    word = elements[1]
    if word.cls not in LETTER_CLASSES:
        return None
    return format_elements((elements[0], word._replace(cls="alphanum")))


@lru_cache(maxsize=8192)
def narrowed_letter_classes(general: str, specific: str) -> tuple[tuple[str, str], ...]:
    """Where ``specific`` (inside ``general``, see :func:`subsumes`) has a narrower letter class than
    ``general`` (not only a fixed length): pairs of the two classes there as patterns of their own, of
    any length (``("<lower>+", "<alphanum>+")``)."""
    return tuple((format_elements((a._replace(k=None),)), format_elements((b._replace(k=None),)))
                 for a, b in zip(parse(specific), parse(general), strict=True)
                 if a.cls in LETTER_CLASSES and b.cls is not None and a.cls != b.cls)


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
            if e.k == 0:
                del out[rep_start:]
            else:
                out.extend(out[rep_start:] * (cast(int, e.k) - 1))
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


@lru_cache(maxsize=8192)  # <= 8192 patterns of <= 4096 characters: 32 MB at most
def to_regex(pattern: str) -> str:
    """Anchored standard regex (``^...$``) accepting exactly the strings the pattern describes."""
    return "^" + "".join(element_regex(e) for e in parse(pattern)) + "$"


@lru_cache(maxsize=4096)  # compiled regexes of client-influenced patterns: bounded
def compiled(pattern: str) -> re.Pattern[str]:
    """Compiled matcher for a pattern (cached; patterns are parsed, never evaluated)."""
    return re.compile("".join(element_regex(e) for e in parse(pattern)))


# RE2 for rules that come from outside (a posted or loaded rule): it runs in time linear in the value, so
# no pattern can make a match backtrack for ever (``<alphanum>+`` twelve times against ``a`` * 300 would).
# Its memory per compiled pattern is bounded too; a pattern too big for it is refused, not truncated.
LINEAR_MAX_MEM = 8 << 20


@lru_cache(maxsize=1024)
def compiled_linear(pattern: str) -> Any:
    """A linear-time (RE2) matcher for a pattern with ``fullmatch``: for rules from clients."""
    import re2

    options = re2.Options()
    options.max_mem = LINEAR_MAX_MEM
    options.log_errors = False
    try:
        return re2.compile("".join(element_regex(e) for e in parse(pattern)), options)
    except re2.error as exc:
        raise PatternError(f"pattern too large to match in linear time ({exc}); simplify it") from exc


def matches(pattern: str, value: str) -> bool:
    """True when ``value`` belongs to the language of ``pattern``."""
    return compiled(pattern).fullmatch(value) is not None



register("patterns.pattern.parse", parse.cache_clear)
register("patterns.pattern.generality", generality.cache_clear)
register("patterns.pattern.subsumes", subsumes.cache_clear)
register("patterns.pattern.to_regex", to_regex.cache_clear)
register("patterns.pattern.compiled", compiled.cache_clear)
register("patterns.pattern.compiled_linear", compiled_linear.cache_clear)
