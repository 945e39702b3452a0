"""Splitting values at a separator, and the separators worth trying: shared by lists and records.

A separator is cut where it stands as a symbol run of its own (``a|b``), or once inside a longer run
whose other symbols are not separator characters (``12#-7`` -> ``12``, ``-7``; ``{A}|{B}`` ->
``{A}``, ``{B}``; ``C:\\data`` at ``\\`` -> ``C:``, ``data``). A run holding the separator twice or
with more of its characters is part of an item: ``://`` does not split a URL at ``/``, nor ``\\\\`` a
UNC path at ``\\``.
"""

from __future__ import annotations

import re

_RUNS = re.compile(r"[A-Za-z0-9]+|[^A-Za-z0-9]+")
_SYMBOLS = "|#,;:_/~\\-.=&@+"  # single-character separators tried (not spaces: natural language)
MAX_CANDIDATES = 3


def split_items(value: str, sep: str) -> list[str]:
    """Items of ``value`` between the cuts at ``sep`` (module docstring); no cut gives ``[value]``."""
    items: list[str] = []
    cur: list[str] = []
    chars = set(sep)
    for run in _RUNS.findall(value):
        if run[0].isalnum() and run.isascii():
            cur.append(run)
            continue
        at = run.find(sep)
        if at < 0 or run.count(sep) != 1:
            cur.append(run)
            continue
        left, right = run[:at], run[at + len(sep):]
        if chars & set(left) or chars & set(right):
            cur.append(run)
            continue
        cur.append(left)
        items.append("".join(cur))
        cur = [right]
    items.append("".join(cur))
    return items


def cut_counts(values: list[str], sep: str) -> list[int]:
    """Cuts at ``sep`` per value."""
    return [len(split_items(v, sep)) - 1 for v in values]


def separator_candidates(values: list[str], tol: float = 0.0) -> list[str]:
    """Symbol strings that cut all values but ``tol`` of them at least once: single symbols, and the
    symbol runs of the longest value (``::``, ``~``)."""
    if not values:
        return []
    need = (1 - tol) * len(values)
    cands = [c for c in _SYMBOLS if sum(c in v for v in values) >= need]
    for run in _RUNS.findall(max(values, key=len)):
        if not run[0].isalnum() and len(run) > 1 and run not in cands and sum(run in v for v in values) >= need:
            cands.append(run)
    return [c for c in cands if sum(n >= 1 for n in cut_counts(values, c)) >= need]
