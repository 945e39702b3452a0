"""Hypotheses pruned by the index's part prefixes (``hypotheses.hypotheses(viable=...)``).

A solver that holds the whole index builds a segment's patterns left to right and drops any prefix
no key starts with. The oracle is the unpruned enumeration: for random real-looking columns, every
segment, and a random set of keys drawn from its own hypotheses, the pruned list must keep exactly
the keys the full list holds, in the same order. ``part_prefixes`` is checked on hand-written
patterns, escapes included.
"""

from __future__ import annotations

import random
import uuid

import pytest

from lakeindex.fmdv.alignment import Alignment
from lakeindex.fmdv.column import QueryColumn
from lakeindex.fmdv.hypotheses import hypotheses, segment_hypotheses, segment_key
from lakeindex.patterns.enumerate import EnumerationLimits
from lakeindex.patterns.pattern import escape_literal, part_prefixes


@pytest.mark.parametrize("pattern, expected", [
    ("<digit>{4}-<digit>{2}", ["<digit>{4}", "<digit>{4}-"]),
    ("REQ-<digit>+", ["REQ", "REQ-"]),  # a constant word is one part, however many letters
    ("<num>", []),
    (r"\+<num>", [r"\+"]),  # an escaped + is a symbol, not a quantifier
    (escape_literal("<ab>") + "<digit>+", [r"\<", r"\<ab", r"\<ab>"]),  # an escaped < opens no class
    (escape_literal("C:\\") + "<lower>+", ["C", "C:\\\\"]),  # an escaped backslash is one symbol
    ("<upper>{2}<digit>{3} <lower>+", ["<upper>{2}<digit>{3}", "<upper>{2}<digit>{3} "]),
    ("é<lower>+", ["é"]),  # non-ASCII letters are symbols to the tokenizer, so here too
])
def test_part_prefixes_end_where_a_word_meets_a_symbol_run(pattern, expected):
    assert part_prefixes(pattern) == expected


def _values(rng: random.Random, kind: str, n: int) -> list[str]:
    if kind == "uuid":
        return [str(uuid.UUID(int=rng.getrandbits(128))) for _ in range(n)]
    if kind == "timestamp":
        return [f"2019-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}T{rng.randint(0, 23):02d}:"
                f"{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d}.{rng.randint(0, 999):03d}"
                f"{rng.choice('+-')}{rng.randint(0, 12):02d}:00" for _ in range(n)]
    if kind == "escapes":  # the characters canonical patterns escape, between words
        return [f"{rng.choice(['ab', 'CD', 'x9'])}+{rng.randint(0, 99)}{{<{rng.choice(['k', 'v'])}>\\"
                f"{rng.randint(100, 999)}" for _ in range(n)]
    if kind == "decimal":  # <num> spans three parts
        return [f"{rng.choice(['REQ', 'INV'])}-{rng.randint(1, 99)}.{rng.randint(0, 99)}|{rng.randint(0, 9)}"
                for _ in range(n)]
    return [f"{rng.choice(['https', 'http'])}://{rng.choice(['a', 'bb'])}.example.com:{rng.randint(80, 9999)}/"
            f"{rng.choice(['v1', 'api'])}" for _ in range(n)]


@pytest.mark.parametrize("kind", ["uuid", "timestamp", "escapes", "decimal", "url"])
def test_pruned_hypotheses_keep_every_key_of_the_full_list_in_order(kind):
    rng = random.Random(kind)
    limits = EnumerationLimits()
    col = QueryColumn.from_values(_values(rng, kind, 20), limits)
    al = Alignment(col.groups)
    checked = pruned_away = 0
    for s in range(al.ncols):
        for e in range(s + 1, min(al.ncols, s + 6) + 1):
            def column(p: int, level: int, s: int = s):
                return al.column(s + p, level)

            full = hypotheses(column, e - s, limits.max_constants, 4096)
            if not full:
                continue
            for share in (0.01, 0.2):
                keys = {h for h in full if rng.random() < share} | {rng.choice(full)}
                viable = set(keys)
                for k in keys:
                    viable.update(part_prefixes(k))
                pruned = hypotheses(column, e - s, limits.max_constants, 4096, viable)
                assert pruned is not None
                assert [h for h in pruned if h in keys] == [h for h in full if h in keys]
                assert set(pruned) <= set(full)
                checked += 1
                pruned_away += len(full) - len(pruned)
    assert checked > 10 and pruned_away > 0  # segments were tried, and the filter did drop patterns


@pytest.mark.parametrize("kind", ["uuid", "timestamp", "escapes", "decimal", "url"])
def test_pruned_segment_hypotheses_of_groups_keep_the_keys(kind):
    """The same through ``segment_hypotheses``, which the solver uses for parts of lists and records:
    the first five parts of every group (several shapes of one layout)."""
    rng = random.Random(3)
    limits = EnumerationLimits()
    col = QueryColumn.from_values(_values(rng, kind, 12), limits)
    key = segment_key([(g, 0, 5) for g in col.groups])
    full = segment_hypotheses(key, limits.max_constants, 4096)
    keys = set(rng.sample(full, 3))
    viable = set(keys).union(*(part_prefixes(k) for k in keys))
    pruned = segment_hypotheses(key, limits.max_constants, 4096, viable)
    assert [h for h in pruned if h in keys] == [h for h in full if h in keys] and len(pruned) < len(full)
