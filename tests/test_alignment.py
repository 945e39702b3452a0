"""Alignment of a query column's label sequences (lakeindex.fmdv.alignment).

The Needleman-Wunsch alignment is checked against an independent brute force: the best total score
over every way of pairing two short label sequences (recursion over the three moves), with the
scores the module docstring states (equal labels 2, words of other classes 0.5, gap -1, a word never
pairs with a symbol). The alignment cache must give the same answer as a fresh computation and must
not be corrupted by a caller that edits what it gets back.
"""

from __future__ import annotations

import random
from collections import Counter
from functools import cache

from lakeindex.fmdv import alignment
from lakeindex.fmdv.alignment import Alignment, align_layouts
from lakeindex.fmdv.column import QueryColumn
from lakeindex.patterns.enumerate import EnumerationLimits
from lakeindex.patterns.tokens import analyze

LABELS = [("w", "N"), ("w", "L"), ("w", "A"), ("s", "-"), ("s", "."), ("s", "/"), ("s", "://")]


def pair_score(a: tuple[str, str], b: tuple[str, str]) -> float | None:
    if a == b:
        return 2.0
    if a[0] == "w" and b[0] == "w":
        return 0.5
    return None  # may not be paired


def best_score(p: tuple, q: tuple) -> float:
    """Brute force: the highest score of any alignment of p and q."""
    @cache
    def go(i: int, j: int) -> float:
        if i == len(p) and j == len(q):
            return 0.0
        options = []
        if i < len(p):
            options.append(go(i + 1, j) - 1.0)
        if j < len(q):
            options.append(go(i, j + 1) - 1.0)
        if i < len(p) and j < len(q) and (s := pair_score(p[i], q[j])) is not None:
            options.append(go(i + 1, j + 1) + s)
        return max(options)
    return go(0, 0)


def score_of(pairs: list, p: tuple, q: tuple) -> float:
    """Score of an alignment given as pairs, checking it is a valid alignment of p and q."""
    assert [i for i, _ in pairs if i is not None] == list(range(len(p)))
    assert [j for _, j in pairs if j is not None] == list(range(len(q)))
    total = 0.0
    for i, j in pairs:
        if i is None or j is None:
            total -= 1.0
        else:
            s = pair_score(p[i], q[j])
            assert s is not None, (p[i], q[j])
            total += s
    return total


def test_needleman_wunsch_finds_an_optimal_alignment():
    rng = random.Random(5)
    for _ in range(400):
        p = tuple(rng.choice(LABELS) for _ in range(rng.randint(1, 7)))
        q = tuple(rng.choice(LABELS) for _ in range(rng.randint(1, 7)))
        assert score_of(alignment._align(list(p), q), p, q) == best_score(p, q), (p, q)


def optimal_count(p: tuple, q: tuple) -> int:
    """Brute force: how many alignments of p and q reach ``best_score``."""
    best = best_score(p, q)

    @cache
    def go(i: int, j: int, score: float) -> int:
        if i == len(p) and j == len(q):
            return int(score == best)
        n = 0
        if i < len(p):
            n += go(i + 1, j, score - 1.0)
        if j < len(q):
            n += go(i, j + 1, score - 1.0)
        if i < len(p) and j < len(q) and (s := pair_score(p[i], q[j])) is not None:
            n += go(i + 1, j + 1, score + s)
        return n
    return go(0, 0, 0.0)


def test_same_length_sequences_a_word_or_two_apart_align_one_to_one_as_the_table_does():
    """The shortcut of ``_align``: position-by-position pairs with at most two words of other classes
    are the one optimal alignment (brute force), and the full table agrees; three such words may
    align otherwise, and go to the table."""
    rng = random.Random(8)
    words = [lab for lab in LABELS if lab[0] == "w"]
    for _ in range(300):
        p = tuple(rng.choice(LABELS) for _ in range(rng.randint(1, 9)))
        q = list(p)
        at = [i for i, lab in enumerate(p) if lab[0] == "w"]
        for i in rng.sample(at, min(len(at), rng.randint(0, 2))):
            q[i] = rng.choice([w for w in words if w != p[i]])
        q = tuple(q)
        diagonal = [(i, i) for i in range(len(p))]
        assert optimal_count(p, q) == 1 and score_of(diagonal, p, q) == best_score(p, q), (p, q)
        assert alignment._align(list(p), q) == diagonal == alignment._table(list(p), q), (p, q)
    p, q = (("w", "N"), ("w", "L"), ("w", "N")), (("w", "L"), ("w", "N"), ("w", "L"))
    assert score_of([(i, i) for i in range(3)], p, q) == 1.5 < best_score(p, q) == 2.0  # -1 + 2 + 2 - 1
    assert alignment._align(list(p), q) != [(i, i) for i in range(3)]


def test_sequences_one_part_apart_align_as_the_table_does():
    """The one-gap shortcut of ``_align``: on random pairs where one sequence has one part more (most of
    them the other with a part inserted and a word's class changed or two), the alignment is optimal
    (brute force), is the optimum where that is unique, and is the full table's."""
    rng = random.Random(12)
    words = [lab for lab in LABELS if lab[0] == "w"]
    for _ in range(600):
        p = tuple(rng.choice(LABELS) for _ in range(rng.randint(0, 9)))
        if rng.random() < 0.8:
            q = list(p)
            for i in rng.sample(range(len(q)), min(len(q), rng.randint(0, 3))):
                if q[i][0] == "w":
                    q[i] = rng.choice(words)
            q.insert(rng.randint(0, len(q)), rng.choice(LABELS))
        else:
            q = [rng.choice(LABELS) for _ in range(len(p) + 1)]
        q = tuple(q)
        for x, y in ((p, q), (q, p)):
            got = alignment._align(list(x), y)
            assert score_of(got, x, y) == best_score(x, y), (x, y)
            assert got == alignment._table(list(x), y), (x, y)
            pairs = alignment._one_gap(list(x), y)
            assert pairs is None or optimal_count(x, y) == 1 and pairs == got, (x, y)


def test_identical_sequences_align_one_to_one():
    seq = (("w", "N"), ("s", "-"), ("w", "N"), ("s", "-"), ("w", "N"))
    assert alignment._align(list(seq), seq) == [(i, i) for i in range(5)]


def test_the_alignment_cache_answers_like_a_fresh_computation_and_hands_out_copies():
    weights = {(("w", "N"), ("s", "-"), ("w", "N")): 5, (("w", "N"),): 2, (("w", "L"), ("s", "-"), ("w", "N")): 1}
    alignment._ALIGNMENTS.clear()
    fresh = align_layouts(weights)
    assert fresh[0] == 3  # N-N, and L-N aligned onto it; the lone N pairs with one of its words
    assert fresh[1][(("w", "L"), ("s", "-"), ("w", "N"))] == [0, 1, 2]
    assert fresh[1][(("w", "N"),)] in ([0], [2])
    before = {k: list(v) for k, v in fresh[1].items()}
    fresh[1][(("w", "N"),)].append(99)  # a caller editing its copy
    cached = align_layouts(weights)
    assert cached == (3, before)
    alignment._ALIGNMENTS.clear()
    assert align_layouts(weights) == cached


def test_a_column_signature_merges_constants_and_hex_flags_across_shapes():
    """Column 0 of ``ab-1`` and ``ab-2`` (one shape): constant ``ab`` kept; column 2: digits differ
    (no constant), both hex. With ``zz-3`` added, column 0's constant is lost and so is its hex flag."""
    limits = EnumerationLimits()
    al = Alignment(QueryColumn.from_values(["ab-1", "ab-2"], limits).groups)
    (part0, common0, hex0), = al.signature(0)[0]
    assert common0 == ("ab",) and hex0 == (True,)
    (_, common2, hex2), = al.signature(2)[0]
    assert common2 == (None,) and hex2 == (True,)
    al = Alignment(QueryColumn.from_values(["ab-1", "ab-2", "zz-3"], limits).groups)
    (_, common0, hex0), = al.signature(0)[0]
    assert common0 == (None,) and hex0 == (False,)


def test_a_query_column_from_counts_equals_one_from_the_values():
    values = ["a-1", "b-22", "a-1", "", "c-333", "a-1", "b-22"]
    limits = EnumerationLimits()
    by_values = QueryColumn.from_values(values, limits)
    by_counts = QueryColumn.from_values(Counter(values), limits)
    assert (by_counts.total, by_counts.empty) == (by_values.total, by_values.empty) == (6, 1)
    assert [(g.shape, g.weight, g.values) for g in by_counts.groups] == [(g.shape, g.weight, g.values)
                                                                        for g in by_values.groups]


def test_a_layouts_widest_range_is_the_most_tokens_of_any_value_there():
    """Checked against the tokens of each value counted directly, for a layout of a few groups and one
    of many (more than ``_FEW_GROUPS``: hex ids, where every value is a shape of its own)."""
    rng = random.Random(9)
    limits = EnumerationLimits()
    few = ["ab-12-x", "abc-1-yy", "a-123456-z"]
    many = ["".join(rng.choice("0123456789abcdef") for _ in range(8)) + "-" + str(rng.randint(0, 10 ** 6))
            for _ in range(200)]
    for values in (few, many):
        col = QueryColumn.from_values(values, limits)
        al = Alignment(col.groups)
        for lay in al.layouts:
            n = len(lay.labels)
            for i in range(n):
                for j in range(i + 1, n + 1):
                    expected = max(g.tok_prefix[j] - g.tok_prefix[i] for g in lay.groups)
                    assert lay.widest(i, j) == expected
                    assert lay.widest(i, j) == expected  # remembered
            whole = max(analyze(v, limits.max_subruns).ntokens for g in lay.groups for v in g.values)
            assert lay.widest(0, n) == whole  # the whole value, as the tokenizer counts it
    assert max(len(lay.groups) for lay in Alignment(QueryColumn.from_values(many, limits).groups).layouts) > \
        alignment._FEW_GROUPS


def test_a_layouts_width_check_agrees_with_the_tokens_of_each_value():
    """``within(i, j, tau)`` is exactly "no value has more than tau tokens in parts i..j-1", counted per
    value here, for every range and tau, on values whose widest parts sit in different values (so the
    per-part bound alone would refuse ranges that fit)."""
    limits = EnumerationLimits()
    # one layout (word-number-word, mixed words), two shapes: 3 + 1 + 1 + 1 + 2 and 2 + 1 + 1 + 1 + 3 tokens,
    # so the per-part bound of the whole range (9) is above its widest value (8)
    values = ["ab12cd-1-x9", "a1-1-ab12cd", "abc-1-y"]
    layouts = Alignment(QueryColumn.from_values(values, limits).groups).layouts
    assert any(len(lay.groups) == 2 and lay.widest(0, len(lay.labels)) == 8 for lay in layouts)
    for lay in layouts:
        n = len(lay.labels)
        for tau in range(1, 10):
            for i in range(n):
                for j in range(i + 1, n + 1):
                    expected = all(g.tok_prefix[j] - g.tok_prefix[i] <= tau for g in lay.groups)
                    assert lay.within(i, j, tau) == expected, (i, j, tau)


def test_signature_slices_equal_the_columns_signatures():
    """``segment`` over a range gives what ``signature``/``is_symbol`` give column by column, whichever
    ranges are asked first."""
    limits = EnumerationLimits()
    values = ["ab-1.5", "ab-22.75", "zz-3", "id 7-1.0"]
    fresh = Alignment(QueryColumn.from_values(values, limits).groups)
    al = Alignment(QueryColumn.from_values(values, limits).groups)
    n = al.ncols
    ranges = [(a, b) for a in range(n) for b in range(a + 1, n + 1)]
    for s, e in sorted(ranges, key=lambda r: (r[1] - r[0], -r[0])):  # short ranges first, from the right
        assert al.segment(s, e) == (tuple(fresh.signature(c) for c in range(s, e)),
                                    all(fresh.is_symbol(c) for c in range(s, e)))
    assert any(al.segment(c, c + 1)[1] for c in range(n)) and not al.segment(0, n)[1]


def test_agreed_constants_and_hex_flags_by_definition():
    """Per slot, the constant every slice has (else None) and whether every slice is hex there, written
    slot by slot here, on random slices with repeats (the function works over the distinct ones)."""
    rng = random.Random(5)
    for _ in range(300):
        width = rng.randint(0, 3)
        pool = [(tuple(rng.choice(["ab", "12", None]) for _ in range(width)),
                 tuple(rng.random() < 0.7 for _ in range(width))) for _ in range(rng.randint(1, 4))]
        slices = [rng.choice(pool) for _ in range(rng.randint(1, 12))]
        commons = tuple(slices[0][0][j] if all(cm[j] == slices[0][0][j] for cm, _ in slices) else None
                        for j in range(width))
        hexes = tuple(all(hx[j] for _, hx in slices) for j in range(width))
        assert alignment._agreed(slices) == (commons, hexes)


def test_segment_bytes_is_the_length_of_the_signatures_written_out():
    """The cache counts a segment key's bytes column by column (``segment_bytes``): the length ``repr``
    gives the whole tuple of signatures, within the one trailing comma of a 1-tuple."""
    limits = EnumerationLimits()
    values = ["ab-1.5", "ab-22.75", "zz-3", "id 7-1.0", "9f3a-b2c1-77"]
    al = Alignment(QueryColumn.from_values(values, limits).groups)
    for s in range(al.ncols):
        for e in range(s + 1, al.ncols + 1):
            written = len(repr(al.segment(s, e)[0]))
            assert written - 1 <= al.segment_bytes(s, e) <= written, (s, e)


def test_equal_column_signatures_are_one_object_and_the_store_is_bounded(monkeypatch):
    """Columns of equal signature in separate alignments (``ab-1 ab-2`` and ``ab-7 ab-9``: constant
    ``ab``, then ``-``, then digits with no constant) share one signature object, which the solver's
    segment keys then compare by identity; a column of another signature does not. The store is emptied
    when it would hold more than its ``max_weight`` parts, and a signature is still returned."""
    limits = EnumerationLimits()
    first = Alignment(QueryColumn.from_values(["ab-1", "ab-2"], limits).groups)
    second = Alignment(QueryColumn.from_values(["ab-7", "ab-9"], limits).groups)
    other = Alignment(QueryColumn.from_values(["cd-7", "cd-9"], limits).groups)
    for c in range(3):
        assert first.signature(c) == second.signature(c)
        assert first.signature(c) is second.signature(c)
    assert other.signature(0) != first.signature(0)
    alignment._SIGNATURES.clear()
    monkeypatch.setattr(alignment._SIGNATURES, "max_weight", 2)
    small = Alignment(QueryColumn.from_values(["x-1", "y-2"], limits).groups)
    sigs = [small.signature(c) for c in range(3)]  # one part each: the third empties the store first
    assert len(alignment._SIGNATURES) == 1 and alignment._SIGNATURES.weight == 1
    assert sigs[2] == Alignment(QueryColumn.from_values(["x-1", "y-2"], limits).groups).signature(2)
