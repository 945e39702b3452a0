"""Tokenizer: split a value into runs of letters, digits and symbols, and group runs into words.

A *token* is a maximal run of ASCII letters, of ASCII digits, or of other characters (symbols,
whitespace and non-ASCII characters). Letters and digits that touch form a *word* (``v1``,
``12kg``, ``3f2a9c1e``). Words are what the hierarchy generalises; symbol runs stay literal.

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
        else:
            runs = _RUN_RE.findall(word)
            if len(runs) > max_subruns:
                shape.append(((ALNUM, len(word)),))
                slots.append(word)
                ntokens += 1
            else:
                shape.append(tuple((run_kind(r), len(r)) for r in runs))
                slots.extend(runs)
                ntokens += len(runs)
    return Analysis(tuple(shape), tuple(slots), ntokens)
