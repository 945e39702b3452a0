"""A query column prepared for inference: distinct values grouped by shape, with per-part data.

Everything FMDV and its variants need is computed once here: each distinct shape (a *group*),
its weight, and, for every slot, the one text all its values share (or None). Segments of the
column are then ranges of *parts* (words and symbol runs), so sub-columns never need re-tokenizing.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from lakeindex.patterns.enumerate import EnumerationLimits
from lakeindex.patterns.template_cache import WeightedLRU
from lakeindex.patterns.tokens import ALNUM, DIGIT, Analysis, analyze, base_kind

_HEX = frozenset("0123456789abcdefABCDEF")


def part_label(part: object) -> tuple[str, str]:
    """Alignment label of a part: a symbol run by its text, a word by its coarse class."""
    if isinstance(part, str):
        return ("s", part)
    if len(part) == 1:
        kind = base_kind(part[0][0])
        return ("w", "N" if kind == DIGIT else "A" if kind == ALNUM else "L")
    return ("w", "A")


def part_slots(part: object) -> int:
    """Number of slots a part holds."""
    return 0 if isinstance(part, str) else len(part)


def part_tokens(part: object) -> int:
    """Tokens a part counts toward tau."""
    return 1 if isinstance(part, str) else len(part)


MAX_SKELETONS = 64


def structured_share(values: list[str], top: int = MAX_SKELETONS) -> float:
    """Share of values whose skeleton (symbols kept, each word collapsed) is among the ``top`` most
    common. Computed in Arrow; free text scores near 0, machine-generated columns near 1."""
    import pyarrow as pa
    import pyarrow.compute as pc

    arr = pa.array([v for v in values if v], pa.string())
    if len(arr) == 0:
        return 1.0
    skel = pc.replace_substring_regex(arr, "[A-Za-z0-9]+", "w")
    counts = sorted(pc.value_counts(skel).field("counts").to_pylist(), reverse=True)
    return sum(counts[:top]) / len(arr)


_LAYOUTS = WeightedLRU(200_000)  # shape -> layout; shapes recur across queries and sub-columns


def shape_layout(shape: tuple) -> tuple[tuple[int, ...], tuple[int, ...], tuple]:
    """Per part of a shape: its first slot, the tokens before it (one more entry: the total), its
    alignment label. Cached: the same shapes come back in every query."""
    hit = _LAYOUTS.get(shape)
    if hit is None:
        starts, prefix = [], [0]
        s = t = 0
        for part in shape:
            starts.append(s)
            s += part_slots(part)
            t += part_tokens(part)
            prefix.append(t)
        hit = (tuple(starts), tuple(prefix), tuple(part_label(p) for p in shape))
        _LAYOUTS.put(shape, hit, len(shape))
    return hit


@dataclass
class Group:
    """Distinct values of one shape."""

    shape: tuple
    weight: int = 0
    values: list[str] = field(default_factory=list)
    common: list[str | None] = field(default_factory=list)  # per slot: text shared by all, or None
    hexable: list[bool] = field(default_factory=list)  # per slot: every value's text is hex digits
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
    def from_values(cls, values: list[str], limits: EnumerationLimits,
                    analyses: dict[str, Analysis] | None = None) -> QueryColumn:
        """Group ``values`` by shape. ``analyses`` caches tokenizations across the columns of one
        query (a list's items are cut again for each form tried)."""
        counts = Counter(values)
        empty = counts.pop("", 0)
        by_shape: dict[tuple, Group] = {}
        slot_texts: dict[tuple, list[tuple[str, ...]]] = {}
        if analyses is None:
            analyses = {}
        for v, n in counts.items():
            a = analyses.get(v)
            if a is None:
                a = analyses[v] = analyze(v, limits.max_subruns)
            g = by_shape.get(a.shape)
            if g is None:
                g = by_shape[a.shape] = Group(a.shape)
                slot_texts[a.shape] = []
            g.weight += n
            g.values.append(v)
            slot_texts[a.shape].append(a.slots)
        for shape, g in by_shape.items():
            by_slot = list(zip(*slot_texts[shape], strict=True))  # per slot, every value's text
            g.common = [col[0] if col.count(col[0]) == len(col) else None for col in by_slot]
            g.hexable = [_HEX.issuperset("".join(col)) for col in by_slot]
            g.slot_start, g.tok_prefix, g.labels = shape_layout(shape)
        groups = sorted(by_shape.values(), key=lambda g: (-g.weight, repr(g.shape)))
        return cls(groups, sum(counts.values()), empty)
