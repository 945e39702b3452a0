"""Tokenizer: split a value into runs of letters, digits and symbols, and group runs into words.

A *token* is a maximal run of ASCII letters, of ASCII digits, or of other characters (symbols,
whitespace and non-ASCII characters). Letters and digits that touch form a *word* (``v1``,
``12kg``, ``3f2a9c1e``). Words are what the hierarchy generalises; symbol runs stay literal. A word
that mixes digits with letters a-f only is marked as hex (see the run kinds below).

Character classes are ASCII on purpose: the emitted regexes then mean the same thing in every
engine (Spark ``rlike``/Java, Python ``re``, RE2); other characters behave as literal symbols.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable
from typing import NamedTuple

from lakeindex.caches import ClearWhenFull

TOKEN_RE = re.compile(r"[A-Za-z]+|[0-9]+|[^A-Za-z0-9]+")

# Run kinds. A word whose runs change class more than ``max_subruns`` times (hex hashes, base64
# chunks) is one ALNUM slot: splitting it would only produce patterns no other column shares.
DIGIT, UPPER, LOWER, MIXED, ALNUM = "d", "u", "l", "m", "a"
# The same kinds inside a *hex word*: one that mixes digits with letters, all of them a-f or A-F
# (``8026a55``, ``3F2A9C1E``). Such a word also generalizes to ``<hex>``; its letter runs keep the
# generalizations of their base kind.
UPPER_HEX, LOWER_HEX, MIXED_HEX, ALNUM_HEX = "U", "L", "M", "A"
HEX_KINDS = frozenset((UPPER_HEX, LOWER_HEX, MIXED_HEX, ALNUM_HEX))
_BASE = {UPPER_HEX: UPPER, LOWER_HEX: LOWER, MIXED_HEX: MIXED, ALNUM_HEX: ALNUM}
_TO_HEX = {UPPER: UPPER_HEX, LOWER: LOWER_HEX, MIXED: MIXED_HEX, DIGIT: DIGIT}

DEFAULT_MAX_SUBRUNS = 3


def tokenize(value: str) -> list[str]:
    """Return the base tokens of ``value`` (runs of letters, digits, symbols)."""
    return TOKEN_RE.findall(value)


def run_kind(run: str) -> str:
    """Kind of a letter or digit run: digit, upper-case, lower-case or mixed-case letters."""
    if run[0].isdigit():
        return DIGIT
    if run.isupper():
        return UPPER
    if run.islower():
        return LOWER
    return MIXED


def base_kind(kind: str) -> str:
    """The kind without its hex mark (``L`` -> ``l``)."""
    return _BASE.get(kind, kind)


def is_hex_word(part: tuple) -> bool:
    """True for a word part of a shape that mixes digits with hex letters only."""
    return any(kind in HEX_KINDS for kind, _ in part)


class Analysis(NamedTuple):
    """A value reduced to what pattern enumeration needs.

    ``shape``: tuple of parts; a symbol run is its literal ``str``; a word is a tuple of
    ``(kind, length)`` per run (one ``(ALNUM, length)`` for long mixed words).
    ``slots``: the text of every generalisable slot (run, or whole long mixed word), in order.
    ``ntokens``: token count compared with the token limit tau (a long mixed word counts once).
    ``hexable``: per slot, whether its text is hex digits only (told by the class string, so per layout).
    """

    shape: tuple
    slots: tuple[str, ...]
    ntokens: int
    hexable: tuple[bool, ...] = ()


_RUN_RE = re.compile(r"d+|[hlHU]+")  # runs of a word's class string (below)
_PARTS_RE = re.compile(r"[dhlHU]+|[^dhlHU]+")  # words and symbol runs of a class string
_CLASS_CHARS = frozenset("dhlHU")
_HEX_CLASSES = frozenset("dhH")  # the classes of hex digits: digits, a-f, A-F

# A value's *class string*: every ASCII letter or digit replaced by its class (digit, hex or other
# letter, by case), symbols kept. The shape and the slot boundaries depend on it alone, so they are
# cached by class string: a column of dates or IPs analyses one layout, not one per value; values
# whose class strings are all different (UUIDs) still share the class strings of their words.
_CLASS = str.maketrans({**dict.fromkeys("0123456789", "d"), **dict.fromkeys("abcdef", "h"),
                        **dict.fromkeys("ghijklmnopqrstuvwxyz", "l"), **dict.fromkeys("ABCDEF", "H"),
                        **dict.fromkeys("GHIJKLMNOPQRSTUVWXYZ", "U")})
# Bounds: entries per cache (a cache that fills is emptied: entries are cheap to recompute), and the
# longest class string cached (longer ones, free text, rarely repeat): at most ~10 MB per cache.
_CACHE_ENTRIES = 65536
_CACHE_CHARS = 96
_LAYOUT_CACHE = ClearWhenFull(_CACHE_ENTRIES, "patterns.tokens.layouts")  # (class string, max_subruns) -> _layout
_WORD_CACHE = ClearWhenFull(_CACHE_ENTRIES, "patterns.tokens.words")  # (class string, max_subruns) -> _word_layout


def _letters_kind(cls: str) -> str:
    upper = "h" not in cls and "l" not in cls
    lower = "H" not in cls and "U" not in cls
    return UPPER if upper else LOWER if lower else MIXED


def _word_layout(cls: str, max_subruns: int) -> tuple[tuple, tuple[tuple[int, int], ...], tuple[bool, ...]]:
    """A word's part, its slots' spans (relative to the word) and whether each slot is hex digits only
    (its classes ``d``, ``h``, ``H``), from its class string."""
    key = (cls, max_subruns)
    hit = _WORD_CACHE.data.get(key)
    if hit is not None:
        return hit
    n = len(cls)
    digits = cls.count("d")
    if digits == n:
        hit = (((DIGIT, n),), ((0, n),), (True,))
    elif digits == 0:
        hit = (((_letters_kind(cls), n),), ((0, n),), (_HEX_CLASSES.issuperset(cls),))
    else:
        runs = [(m.start(), m.end()) for m in _RUN_RE.finditer(cls)]
        hexed = "l" not in cls and "U" not in cls
        if len(runs) > max_subruns:
            hit = (((ALNUM_HEX if hexed else ALNUM, n),), ((0, n),), (hexed,))
        else:
            kinds = [DIGIT if cls[a] == "d" else _letters_kind(cls[a:b]) for a, b in runs]
            if hexed:
                kinds = [_TO_HEX[k] for k in kinds]
            hit = (tuple((k, b - a) for k, (a, b) in zip(kinds, runs, strict=True)), tuple(runs),
                   tuple(_HEX_CLASSES.issuperset(cls[a:b]) for a, b in runs))
    if n <= _CACHE_CHARS:
        _WORD_CACHE.put(key, hit)
    return hit


def _slot_getter(spans: list[tuple[int, int]]) -> Callable[[str], tuple[str, ...]]:
    """A function giving a value's slot texts at ``spans``: an ``itemgetter`` of slices, 3x faster than
    slicing in a generator, paid once per layout instead of once per value."""
    if not spans:
        return lambda _value: ()
    if len(spans) == 1:
        (a, b), = spans
        return lambda value: (value[a:b],)
    return operator.itemgetter(*(slice(a, b) for a, b in spans))


def _layout(cls: str, max_subruns: int) -> tuple[tuple, Callable[[str], tuple[str, ...]], int, tuple[bool, ...]]:
    """Shape, slot getter (the texts of the slots of a value of this layout), token count and per slot
    whether it is hex digits only (its classes ``d``, ``h``, ``H``), from the value's class string."""
    key = (cls, max_subruns)
    hit = _LAYOUT_CACHE.data.get(key)
    if hit is not None:
        return hit
    shape: list = []
    spans: list[tuple[int, int]] = []
    hexable: list[bool] = []
    ntokens = at = 0
    for run in _PARTS_RE.findall(cls):
        if run[0] in _CLASS_CHARS:
            part, rel, hexes = _word_layout(run, max_subruns)
            hexable.extend(hexes)
            shape.append(part)
            if len(rel) == 1:
                spans.append((at, at + len(run)))
            else:
                spans.extend((at + a, at + b) for a, b in rel)
            ntokens += len(rel)
        else:
            shape.append(run)
            ntokens += 1
        at += len(run)
    hit = (tuple(shape), _slot_getter(spans), ntokens, tuple(hexable))
    if len(cls) <= _CACHE_CHARS:
        _LAYOUT_CACHE.put(key, hit)
    return hit


def analyze(value: str, max_subruns: int = DEFAULT_MAX_SUBRUNS) -> Analysis:
    """Tokenize ``value`` and group its runs into words and slots."""
    shape, slots, ntokens, hexable = _layout(value.translate(_CLASS), max_subruns)
    return Analysis(shape, slots(value), ntokens, hexable)
