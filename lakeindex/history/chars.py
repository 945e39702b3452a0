"""Character classes, length counts and value patterns (AVH Appendix C), identical in pandas and Spark.

Classes are Unicode general categories, so Java's regex (Spark ``regexp_replace``) and Python agree on
them: digits are ``Nd``, letters ``L*``, punctuation is ``P*`` and ``S*`` (every ASCII
``string.punctuation`` character is one of them), whitespace is ``Z*`` plus ``\\t \\n \\v \\f \\r``, and
everything else (combining marks, controls, format and private-use characters) is *other*. Python's
``re`` has no ``\\p{..}``: the Python side classifies code points with a table built once from
``unicodedata`` and works on whole columns with numpy.

Pattern generation (Algorithm 2): every maximal run of one class becomes one token: ``\\d`` digits,
``\\l`` letters, ``\\p`` punctuation/symbols, ``\\s`` whitespace, ``\\o`` other, so ``"98052-1202"`` →
``\\d\\p\\d`` and ``"$19.99"`` → ``\\p\\d\\p\\d``. The paper names only the first three classes;
whitespace has its own token so that padding (issue type 10) changes the pattern.

:func:`to_text` spells a pandas column's values as Spark casts them to strings, so both engines see one text.
"""

from __future__ import annotations

import re
import unicodedata
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    import pandas as pd

OTHER, DIGIT, LETTER, PUNCT, SPACE = 0, 1, 2, 3, 4
TOKENS = {OTHER: r"\o", DIGIT: r"\d", LETTER: r"\l", PUNCT: r"\p", SPACE: r"\s"}

# Java regexes for Spark (regexp_replace counts and patterns)
JAVA_DIGIT = r"\p{Nd}"
JAVA_LETTER = r"\p{L}"
JAVA_PUNCT = r"[\p{P}\p{S}]"
JAVA_SPACE = r"[\p{Z}\t\n\x0B\f\r]"
JAVA_OTHER = r"[^\p{Nd}\p{L}\p{P}\p{S}\p{Z}\t\n\x0B\f\r]"

# A number in text, as both engines parse it (Spark's cast alone would also take "1.5d" or "Infinity")
NUMBER_BODY = r"[ \t\n\x0B\f\r]*[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?[ \t\n\x0B\f\r]*"
NUMBER_RE = "^" + NUMBER_BODY + "$"
NUMBER = re.compile(NUMBER_BODY)  # compiled once for Python: ``NUMBER.fullmatch(text)``

# Spark patterns: each class's runs become a private-use placeholder, then the placeholders become tokens.
# "Other" runs go first, so a private-use character in the data cannot be mistaken for a placeholder.
PATTERN_STEPS: tuple[tuple[str, str], ...] = (
    (JAVA_OTHER + "+", "\ue000"), (JAVA_DIGIT + "+", "\ue001"), (JAVA_LETTER + "+", "\ue002"),
    (JAVA_PUNCT + "+", "\ue003"), (JAVA_SPACE + "+", "\ue004"),
)
PLACEHOLDER_TOKENS: dict[str, str] = {chr(0xE000 + c): t for c, t in TOKENS.items()}

_ASCII_SPACES = "\t\n\x0b\x0c\r"
_CODE = {"Nd": DIGIT, "L": LETTER, "P": PUNCT, "S": PUNCT, "Z": SPACE}
_UNKNOWN = 255
# uint8 class of every code point, filled in on first sight (a full table costs ~0.4 s of unicodedata
# calls per process, where a batch uses a few hundred distinct code points)
_TABLE = np.full(0x110000, _UNKNOWN, dtype=np.uint8)


def _category(cp: int) -> int:
    ch = chr(cp)
    if ch in _ASCII_SPACES:
        return SPACE
    c = unicodedata.category(ch)
    return _CODE.get(c if c == "Nd" else c[0], OTHER)


def class_of(cps: np.ndarray) -> np.ndarray:
    """The class (``DIGIT``, ``LETTER``, ...) of each code point."""
    cls = _TABLE[cps]
    unknown = cls == _UNKNOWN
    if unknown.any():
        new = np.unique(cps[unknown])
        _TABLE[new] = [_category(int(cp)) for cp in new]
        cls = _TABLE[cps]
    return cls


def _classify(values: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """Class of every code point of the concatenated values, and the values' lengths in code points."""
    lengths = np.fromiter(map(len, values), dtype=np.int64, count=len(values))
    cps = np.frombuffer("".join(values).encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
    return class_of(cps), lengths


def class_counts(values: list[str]) -> dict[str, np.ndarray]:
    """Per value: characters (code points), letters, digits, punctuation/symbols (the lengths of Table 4)."""
    cls, lengths = _classify(values)
    owner = np.repeat(np.arange(len(values)), lengths)
    out = {"str_len": lengths}
    for key, c in (("char_len", LETTER), ("digit_len", DIGIT), ("punc_len", PUNCT)):
        out[key] = np.bincount(owner[cls == c], minlength=len(values))
    return out


# the two code points of each class's token, by class: a run's token without a per-character translate
_TOKEN_CODE_POINTS = np.array([[ord(c) for c in TOKENS[k]] for k in range(len(TOKENS))], dtype="<u4")


def patterns(values: list[str]) -> list[str]:
    """Algorithm-2 patterns of many values at once (numpy run detection over all code points)."""
    cls, lengths = _classify(values)
    if len(cls) == 0:
        return [""] * len(values)
    starts = np.zeros(len(cls), dtype=bool)
    starts[0] = True
    starts[1:] = cls[1:] != cls[:-1]
    first = np.cumsum(lengths) - lengths
    starts[first[lengths > 0]] = True
    owner = np.repeat(np.arange(len(values)), lengths)
    runs = np.bincount(owner[starts], minlength=len(values))
    tokens = _TOKEN_CODE_POINTS[cls[starts]].tobytes().decode("utf-32-le")  # 2 characters per run
    ends = 2 * np.cumsum(runs)
    begins = ends - 2 * runs
    return [tokens[a:b] for a, b in zip(begins.tolist(), ends.tolist(), strict=True)]


def pattern_of(value: str) -> str:
    """The Algorithm-2 pattern of one value."""
    return patterns([value])[0]


def _text_of(v: Any) -> str:
    if isinstance(v, str):
        return v
    if isinstance(v, bool | np.bool_):
        return "true" if v else "false"
    if isinstance(v, int | np.integer):
        return str(int(v))
    return str(v)


def to_text(series: pd.Series) -> pd.Series:
    """Values as strings (object dtype, None for nulls), spelled as Spark casts them for booleans and integers.

    Floats are spelled by Python (``1e+20``; Spark writes ``1.0E20``): cast float columns to text yourself when
    both engines must agree on them as categories.
    """
    import pandas as pd

    null = series.isna().to_numpy()
    out = series.to_numpy(dtype=object).copy()
    out[null] = None
    if pd.api.types.infer_dtype(series, skipna=True) not in ("string", "empty"):
        out[~null] = [_text_of(v) for v in out[~null]]
    return pd.Series(out, dtype=object)
