"""``analyze`` (cached by class string) against a direct tokenizer written from the module's definitions."""

from __future__ import annotations

import random
import re

import pytest

from lakeindex.patterns import tokens
from lakeindex.patterns.tokens import analyze

_WORD = re.compile(r"([A-Za-z0-9]+)|[^A-Za-z0-9]+")
_RUN = re.compile(r"[A-Za-z]+|[0-9]+")
_HEXCH = set("0123456789abcdefABCDEF")


def _kind(run: str) -> str:
    if run.isdigit():
        return "d"
    return "u" if run.isupper() else "l" if run.islower() else "m"


def oracle(value: str, max_subruns: int) -> tuple[tuple, tuple[str, ...], int]:
    """Words are maximal ASCII letter/digit runs; a word mixing digits and letters is split into runs
    (hex-marked when all its letters are a-f/A-F), or is one alphanumeric slot past ``max_subruns``."""
    shape, slots, n = [], [], 0
    for m in _WORD.finditer(value):
        w = m.group(1)
        if w is None:
            shape.append(m.group(0))
            n += 1
            continue
        runs = _RUN.findall(w)
        if len(runs) == 1:
            shape.append(((_kind(w), len(w)),))
            slots.append(w)
            n += 1
            continue
        hexed = set(w) <= _HEXCH
        if len(runs) > max_subruns:
            shape.append((("A" if hexed else "a", len(w)),))
            slots.append(w)
            n += 1
            continue
        mark = {"u": "U", "l": "L", "m": "M", "d": "d"}
        shape.append(tuple(((mark[_kind(r)] if hexed else _kind(r)), len(r)) for r in runs))
        slots.extend(runs)
        n += len(runs)
    return tuple(shape), tuple(slots), n


@pytest.mark.parametrize("max_subruns", [1, 3])
def test_analyze_equals_the_direct_tokenizer(max_subruns):
    rng = random.Random(7)
    alphabet = "0123456789abcdefgxyzABCDEFGXYZ-_.:/ é|"
    values = ["", "a", "Z9", "3f2a9c1e", "8026a55", "v1.2.3-beta", "2024-03-28T16:55:05Z", "ÉCOLE-12"]
    values += ["".join(rng.choice(alphabet) for _ in range(rng.randint(1, 24))) for _ in range(20000)]
    for v in values + values:  # the second pass answers from the caches
        a = analyze(v, max_subruns)
        assert (a.shape, a.slots, a.ntokens) == oracle(v, max_subruns), v
        assert a.hexable == tuple(set(t) <= _HEXCH for t in a.slots), v  # per slot: hex digits only


def test_caches_are_bounded(monkeypatch):
    monkeypatch.setattr(tokens._LAYOUT_CACHE, "max_weight", 50)
    monkeypatch.setattr(tokens._WORD_CACHE, "max_weight", 50)
    for i in range(500):
        analyze(f"x{i}-{'9' * (i % 40)}")
    assert len(tokens._LAYOUT_CACHE) <= 50 and len(tokens._WORD_CACHE) <= 50
    long = "a1" * 200  # class strings longer than the cap are never cached
    analyze(long + "-" + long)
    assert all(len(k[0]) <= tokens._CACHE_CHARS for k in tokens._LAYOUT_CACHE.data)
