"""A query column prepared for inference: distinct values grouped by shape, with per-part data.

Everything FMDV and its variants need is computed once here: each distinct shape (a *group*),
its weight, and, for every slot, the one text all its values share (or None). Segments of the
column are then ranges of *parts* (words and symbol runs), so sub-columns never need re-tokenizing.
"""

from __future__ import annotations

import heapq
import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

from lakeindex.caches import WeightedLRU
from lakeindex.patterns.enumerate import EnumerationLimits
from lakeindex.patterns.tokens import ALNUM, DIGIT, Analysis, analyze, base_kind


def part_label(part: str | tuple) -> tuple[str, str]:
    """Alignment label of a part: a symbol run by its text, a word by its coarse class."""
    if isinstance(part, str):
        return ("s", part)
    if len(part) == 1:
        kind = base_kind(part[0][0])
        return ("w", "N" if kind == DIGIT else "A" if kind == ALNUM else "L")
    return ("w", "A")


def part_slots(part: str | tuple) -> int:
    """Number of slots a part holds."""
    return 0 if isinstance(part, str) else len(part)


def part_tokens(part: str | tuple) -> int:
    """Tokens a part counts toward tau."""
    return 1 if isinstance(part, str) else len(part)


MAX_SKELETONS = 64


_WORD = re.compile("[A-Za-z0-9]+")
_CHECK_EVERY = 64  # distinct values between the early-exit checks of ``is_structured``


def skeleton(value: str) -> str:
    """A value's structure: symbols kept, each ASCII word collapsed to ``w`` (``2024-01-02`` -> ``w-w-w``)."""
    return _WORD.sub("w", value)


_WORD_CHARS = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
_TO_W = bytes.maketrans(_WORD_CHARS, b"w" * len(_WORD_CHARS))


def memo_skeleton() -> Callable[[str], str]:
    """:func:`skeleton` for many values at once: values whose words differ only in their letters and
    digits (``2024-01-02`` and ``1999-12-31``) share one regex replace. Their word characters all
    mapped to ``w`` by a byte translation (C speed) key a memo, so most values of a column cost a memo
    lookup instead of a regex replace. A key it misses (lists of numbers of
    varying widths miss on nearly every value) becomes the skeleton by collapsing its runs of ``w``
    with bytes replaces. Multi-byte characters are left as they are by the translation, as by
    :func:`skeleton`."""
    memo: dict[bytes, str] = {}

    def structure(value: str) -> str:
        key = value.encode("utf-8", "surrogatepass").translate(_TO_W)
        sk = memo.get(key)
        if sk is None:  # the key is the value with its words spelled w...w: collapse the runs
            runs = key
            while b"ww" in runs:  # halves every run per pass, at C speed: cheaper than a regex replace
                runs = runs.replace(b"ww", b"w")
            sk = memo[key] = runs.decode("utf-8", "surrogatepass")
        return sk

    return structure


def _one_buffer(values: list[str]) -> str | None:
    """``values`` joined by newlines, or None when a value holds one (the buffer would not split back)."""
    joined = "\n".join(values)
    return joined if joined.count("\n") == len(values) - 1 else None


def skeletons(values: list[str]) -> list[str]:
    """:func:`skeleton` of every value, in one pass over all of them: joined by newlines, their word
    characters translated to ``w`` and the runs of ``w`` collapsed as :func:`memo_skeleton` does, but over
    one buffer, so the per-value work is C's. No run crosses a newline, which is no word character. A
    wide fit groups its 1,000 values by skeleton, a visible share of its time when done value by value
    (docs/design/performance-notes.md). Values holding a newline are done one at a time."""
    joined = _one_buffer(values)
    if joined is None:
        structure = memo_skeleton()
        return [structure(v) for v in values]
    # quarter every run of w first (any run of w still ends as one): a sixth less collapsing time on
    # wide columns' buffers than halving from the start (timeit, 42-179 KB)
    runs = joined.encode("utf-8", "surrogatepass").translate(_TO_W).replace(b"wwww", b"w")
    while b"ww" in runs:
        runs = runs.replace(b"ww", b"w")
    return runs.decode("utf-8", "surrogatepass").split("\n")


def signless_skeletons(values: list[str]) -> list[str]:
    """:func:`signless_skeleton` of every value, by one regex replace over the values joined by newlines:
    a newline is no word character, so the lookbehind and the runs see each value as alone (values
    holding a newline are done one at a time)."""
    joined = _one_buffer(values)
    if joined is None:
        return [signless_skeleton(v) for v in values]
    return _SIGNED_WORD.sub("w", joined).split("\n")


def structure_groups(values: list[str], most: int,
                     structures: Callable[[list[str]], list[str]]) -> dict[str, list[str]] | None:
    """``values`` grouped by structure (``structures``: :func:`skeletons`, or :func:`signless_skeletons`),
    each group in the values' order, or None when there are more than ``most`` structures."""
    groups: dict[str, list[str]] = {}
    for v, sk in zip(values, structures(values), strict=True):
        group = groups.get(sk)
        if group is None:
            if len(groups) == most:
                return None
            group = groups[sk] = []
        group.append(v)
    return groups


_SIGNED_WORD = re.compile("(?<![A-Za-z0-9])[-+]?[A-Za-z0-9]+")


def signless_skeleton(value: str) -> str:
    """:func:`skeleton` with a sign that starts a word's run of symbols folded into the word
    (``-7.01,6.41`` -> ``w.w,w.w``; ``2024-01-02`` stays ``w-w-w``): lists and records of signed numbers
    differ by which items are negative, which gives a column of 1,000 of them 1,000 skeletons."""
    return _SIGNED_WORD.sub("w", value)


def as_counts(values: Iterable[str] | Mapping[str, int]) -> Counter[str]:
    """Counts per value: ``values`` itself when it is counts already (lists and records pass their parts
    as counts), not copied, as every caller only reads them; else the values counted."""
    return values if isinstance(values, Counter) else Counter(values)


def nonempty_counts(values: Iterable[str] | Mapping[str, int]) -> Counter[str]:
    """Non-empty values with their counts, from a list of values or from counts already taken (lists
    and records pass their parts as counts: a part of 1,000 values often has a few distinct ones).
    Counts without an empty value come back as they are (:func:`as_counts`)."""
    if isinstance(values, Counter) and "" not in values:
        return values
    counts = Counter(values)
    counts.pop("", None)
    return counts


def structured_share(values: Iterable[str] | Mapping[str, int], top: int = MAX_SKELETONS) -> float:
    """Share of values whose skeleton (symbols kept, each ASCII word collapsed to ``w``) is among the ``top``
    most common: free text scores near 0, machine-generated columns near 1. Each distinct value is
    skeletonised once (a regex replace over every value, repeats included, costs more)."""
    counts = nonempty_counts(values)
    n = sum(counts.values())
    if not n:
        return 1.0
    skeletons: Counter[str] = Counter()
    for v, k in counts.items():
        skeletons[skeleton(v)] += k
    return sum(heapq.nlargest(top, skeletons.values())) / n


def is_structured(values: Iterable[str] | Mapping[str, int], min_share: float, top: int = MAX_SKELETONS,
                  structure: Callable[[str], str] = skeleton) -> bool:
    """``structured_share(values, top) >= min_share``, stopping as soon as the answer is certain: distinct
    values are visited most frequent first, and the ``top`` skeleton counts so far bound the final share
    from below, plus the values not visited yet from above (free text is told after ~200 of 1,000).
    ``structure``: :func:`skeleton`, or :func:`signless_skeleton` for lists of signed numbers."""
    counts = nonempty_counts(values)
    n = sum(counts.values())
    if not n:
        return 1.0 >= min_share
    if len(counts) <= top:  # as many skeletons at most, all of them among the top: a share of 1
        return True
    skeletons: Counter[str] = Counter()
    unseen = n
    for i, (v, k) in enumerate(counts.most_common(), start=1):
        skeletons[structure(v)] += k
        unseen -= k
        if i % _CHECK_EVERY == 0 and unseen:
            lead = sum(heapq.nlargest(top, skeletons.values()))
            if lead / n >= min_share:  # the final top counts only grow
                return True
            if (lead + unseen) / n < min_share:  # even if every value left joined the top skeletons
                return False
    return sum(heapq.nlargest(top, skeletons.values())) / n >= min_share


# shape -> layout; shapes recur across queries and sub-columns. Weighed in parts (about 95 bytes each
# with its shape: at most about 95 MB), and sized so that a pass over the wide bench's columns does not
# evict the shapes the next column needs (docs/design/performance-notes.md)
_LAYOUTS = WeightedLRU(1_000_000, "fmdv.column.layouts")


def shape_layout(shape: tuple) -> tuple[tuple[int, ...], tuple[int, ...], tuple, str]:
    """Per part of a shape: its first slot, the tokens before it (one more entry: the total), its
    alignment label; and the shape's ``repr`` (groups of equal weight are ordered by it). Cached: the
    same shapes come back in every query."""
    hit = _LAYOUTS.get(shape)
    if hit is None:  # part_slots and part_tokens inlined: wide values' shapes often miss
        starts, prefix, labels = [], [0], []
        s = t = 0
        for part in shape:
            starts.append(s)
            if isinstance(part, str):
                t += 1
                labels.append(("s", part))
            else:
                s += len(part)
                t += len(part)
                labels.append(part_label(part))
            prefix.append(t)
        hit = (tuple(starts), tuple(prefix), tuple(labels), repr(shape))
        _LAYOUTS.put(shape, hit, len(shape))
    return hit


@dataclass
class Group:
    """Distinct values of one shape."""

    shape: tuple
    weight: int = 0
    values: list[str] = field(default_factory=list)
    common: tuple[str | None, ...] = ()  # per slot: text shared by all, or None
    hexable: tuple[bool, ...] = ()  # per slot: every value's text is hex digits
    slot_start: tuple[int, ...] = ()  # per part: index of its first slot
    labels: tuple = ()  # alignment label per part
    tok_prefix: tuple[int, ...] = ()  # tokens before each part (len(shape) + 1)

    def tokens(self, i: int, j: int) -> int:
        """Tokens of parts i..j-1 (compared with tau)."""
        return self.tok_prefix[j] - self.tok_prefix[i]


@dataclass
class QueryColumn:
    """Distinct non-empty values of a column with counts, grouped by shape."""

    groups: list[Group]
    total: int
    empty: int

    @classmethod
    def from_values(cls, values: Iterable[str] | Mapping[str, int], limits: EnumerationLimits,
                    analyses: dict[str, Analysis] | None = None,
                    layouts: dict[int, tuple] | None = None) -> QueryColumn:
        """Group ``values`` (a list, or counts per value) by shape. ``analyses`` caches tokenizations
        across the columns of one query (a list's items are cut again for each form tried), and
        ``layouts`` (with ``analyses`` only) the :func:`shape_layout` of their shapes, by the shape
        object's id: ``analyses`` keeps the objects alive, and a query's shapes (a GUID field's, one
        per value) would otherwise be hashed again and evicted from the process cache by the next
        query's in the middle of this one."""
        counts = as_counts(values)  # only read: counts passed in are not copied
        empty = counts.get("", 0)
        # per shape, its group's index: a shape (a tuple of tuples) is hashed once per value, twice for its
        # first; hex flags come with the analysis, per class string rather than per slot text
        index: dict[tuple, int] = {}
        groups: list[Group] = []
        members: list[list[Analysis]] = []  # per group, its values' analyses
        if analyses is None:  # the shapes live for this call only: their ids cannot key ``layouts``
            analyses, layouts = {}, None
        for v, n in counts.items():
            if not v:
                continue
            a = analyses.get(v)
            if a is None:
                a = analyses[v] = analyze(v, limits.max_subruns)
            k = index.get(a.shape)
            if k is None:
                k = index[a.shape] = len(groups)
                groups.append(Group(a.shape))
                members.append([])
            g = groups[k]
            g.weight += n
            g.values.append(v)
            members[k].append(a)
        keyed = []
        for k, g in enumerate(groups):
            analysed = members[k]
            if len(analysed) == 1:  # one value (most shapes of hex ids): its texts are the constants
                g.common, g.hexable = analysed[0].slots, analysed[0].hexable
            else:
                by_slot = list(zip(*[a.slots for a in analysed], strict=True))  # per slot, every value's text
                g.common = tuple(col[0] if col.count(col[0]) == len(col) else None for col in by_slot)
                g.hexable = tuple(map(all, zip(*[a.hexable for a in analysed], strict=True)))
            shape = g.shape
            if layouts is None:
                layout = shape_layout(shape)
            else:
                held = layouts.get(id(shape))
                layout = held if held is not None else layouts.setdefault(id(shape), shape_layout(shape))
            g.slot_start, g.tok_prefix, g.labels, rep = layout
            keyed.append((-g.weight, rep, k))  # heaviest first, then by repr (shapes differ: no ties)
        keyed.sort()
        return cls([groups[k] for _, _, k in keyed], sum(counts.values()) - empty, empty)
