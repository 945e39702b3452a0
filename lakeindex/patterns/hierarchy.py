"""The generalization hierarchy (paper §2.1, Figure 4) and the canonical names of its nodes.

For one word token the hierarchy is, from most specific to most general::

    constant ("9", "en", "ORD")
      <digit>{k}          <upper>{k} | <lower>{k}       (case-uniform letter runs)
      <digit>+            <upper>+   | <lower>+
      <num>  (int or      <letter>{k}
        decimal)          <letter>+
                 <hex>{k}      (a word mixing digits with letters a-f/A-F only)
                 <hex>+
                 <alphanum>{k}
                 <alphanum>+
                   <all>

``<hex>`` (regex ``[0-9a-fA-F]``) gives hashes, git SHAs and the parts of UUIDs and MAC addresses a
class more selective than ``<alphanum>``. It is offered for words that mix digits and hex letters
(``8026a55``, ``C02C12A``), not for words of digits only or letters only: every number and many
words would otherwise carry two more patterns, and such words already have their digit and letter
classes. So P(v) omits ``<hex>`` for a hex word without letters or without digits (``1234567``,
``cafe``) although the regex accepts it: counts of ``<hex>`` patterns, and so Cov_T and the
matching share behind FPR_T, are lower bounds; a rule ``<hex>{7}`` accepts the all-digit SHA its
training may have cut.

Symbol runs (``-``, ``://``, ``, ``) stay literal: they are the structure of machine-generated
values. ``<all>`` is the root; over one word it accepts the same strings as ``<alphanum>+``
(tokens are maximal runs), so the enumerator does not emit it as a separate index key; over a
whole value it is the trivial ``.*``, which Auto-Validate excludes from the hypothesis space.
"""

from __future__ import annotations

from lakeindex.patterns.tokens import ALNUM, DIGIT, LOWER, MIXED, UPPER, base_kind, run_kind

NUM = "<num>"
ALL = "<all>"

# class name -> regex character class (ASCII, see tokens.py)
CHAR_CLASSES: dict[str, str] = {
    "digit": "[0-9]",
    "upper": "[A-Z]",
    "lower": "[a-z]",
    "letter": "[A-Za-z]",
    "alphanum": "[A-Za-z0-9]",
    "hex": "[0-9a-fA-F]",
}


def fixed(cls: str, k: int) -> str:
    """Canonical name of ``<cls>{k}``."""
    return f"<{cls}>{{{k}}}"


def plus(cls: str) -> str:
    """Canonical name of ``<cls>+``."""
    return f"<{cls}>+"


def run_generalizations(kind: str, k: int, *, in_word: bool = False) -> list[str]:
    """Class generalizations of one run of ``kind`` and length ``k`` (no constant, no alphanum).

    ``<num>`` is offered only for a digit run that is a whole word: inside ``12kg`` it would
    claim decimals the tokenizer splits differently. Hex-marked kinds generalize as their base kind.
    """
    kind = base_kind(kind)
    if kind == DIGIT:
        out = [fixed("digit", k), plus("digit")]
        if not in_word:
            out.append(NUM)
        return out
    if kind == UPPER:
        return [fixed("upper", k), plus("upper"), fixed("letter", k), plus("letter")]
    if kind == LOWER:
        return [fixed("lower", k), plus("lower"), fixed("letter", k), plus("letter")]
    if kind == MIXED:
        return [fixed("letter", k), plus("letter")]
    if kind == ALNUM:
        return []
    raise ValueError(f"unknown run kind {kind!r}")


def word_generalizations(length: int, hex_word: bool = False) -> list[str]:
    """Generalizations that cover a whole word regardless of its runs (``<hex>`` for hex words)."""
    out = [fixed("hex", length), plus("hex")] if hex_word else []
    return out + [fixed("alphanum", length), plus("alphanum")]


def token_generalizations(token: str) -> list[str]:
    """All hierarchy nodes above one letter or digit run, constant first, root ``<all>`` last.

    For ``"9"`` these are the paper's seven: ``9``, ``<digit>{1}``, ``<digit>+``, ``<num>``,
    ``<alphanum>{1}``, ``<alphanum>+``, ``<all>``.
    """
    if not token or not token.isascii() or not token.isalnum():
        raise ValueError(f"not a letter or digit run: {token!r}")
    kind = run_kind(token)
    # the constant: a letter or digit run is its own pattern text (only \ < { + are escaped in patterns)
    return [token, *run_generalizations(kind, len(token)),
            *word_generalizations(len(token)), ALL]
