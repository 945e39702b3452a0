"""Tokenizer: split a value into runs of letters, digits and symbols, and group runs into words.

A *token* is a maximal run of ASCII letters, of ASCII digits, or of other characters (symbols,
whitespace and non-ASCII characters). Letters and digits that touch form a *word* (``v1``,
``12kg``, ``3f2a9c1e``). Words are what the hierarchy generalises; symbol runs stay literal. A word
that mixes digits with letters a-f only is marked as hex (see the run kinds below).

Character classes are ASCII on purpose: the emitted regexes then mean the same thing in every
engine (Spark ``rlike``/Java, Python ``re``, RE2); other characters behave as literal symbols.
"""

from __future__ import annotations

import re
from typing import NamedTuple

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
    """

    shape: tuple
    slots: tuple[str, ...]
    ntokens: int


_WORD_RE = re.compile(r"([A-Za-z0-9]+)|[^A-Za-z0-9]+")
_RUN_RE = re.compile(r"[A-Za-z]+|[0-9]+")
_HEX_RE = re.compile(r"[0-9A-Fa-f]+")


def analyze(value: str, max_subruns: int = DEFAULT_MAX_SUBRUNS) -> Analysis:
    """Tokenize ``value`` and group its runs into words and slots."""
    shape: list = []
    slots: list[str] = []
    ntokens = 0
    for m in _WORD_RE.finditer(value):
        word = m.group(1)
        if word is None:
            shape.append(m.group(0))
            ntokens += 1
        elif word.isdigit() or word.isalpha():
            shape.append(((run_kind(word), len(word)),))
            slots.append(word)
            ntokens += 1
        else:  # letters and digits: several runs
            runs = _RUN_RE.findall(word)
            hexed = _HEX_RE.fullmatch(word) is not None
            if len(runs) > max_subruns:
                shape.append(((ALNUM_HEX if hexed else ALNUM, len(word)),))
                slots.append(word)
                ntokens += 1
            else:
                if hexed:
                    shape.append(tuple((_TO_HEX[run_kind(r)], len(r)) for r in runs))
                else:
                    shape.append(tuple((run_kind(r), len(r)) for r in runs))
                slots.extend(runs)
                ntokens += len(runs)
    return Analysis(tuple(shape), tuple(slots), ntokens)
