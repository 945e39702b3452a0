"""Templates of a value shape: the per-part alternatives of the hierarchy, and P(v) within a budget.

A value's *shape* is its sequence of symbol runs (literal ``str``) and words (tuples of
``(run kind, length)``); every generalization of a value depends only on its shape, except for
constants. Each part of a shape has a list of *options* ``(text, slots, parts consumed)``: a
``%``-format text with one ``%s`` per constant slot (``slots`` lists the value's slot indices it
takes, left to right), so ``text % constants`` is a piece of a pattern. A template is one option
per part; P(v) is every template with at most ``max_constants`` constant slots.

The exact hierarchy gives a shape of w words about 6^w templates (3 billion for the paper's
Figure 5). A shape whose exact count exceeds the budget (``EnumerationLimits.max_templates``) is
enumerated at the finest *reduction level* that fits (:func:`part_options`, levels 1-4). The same
level is used offline and online, so P(v) of such a value is a subset of the exact one, the same
subset in the index and in queries; counts of the patterns it leaves out are lower bounds (their
FPR estimates err high, the safe side).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from itertools import product
from typing import cast

from lakeindex.caches import WeightedLRU
from lakeindex.patterns.counting import Prepared
from lakeindex.patterns.hierarchy import NUM, run_generalizations, word_generalizations
from lakeindex.patterns.pattern import escape_literal
from lakeindex.patterns.tokens import DIGIT, is_hex_word

# Bounds of template memory, by design (see lakeindex.patterns.enumerate, "Memory").
MAX_TAU = 16
TEMPLATE_BUDGET = 8192  # default templates per shape: the largest of tau <= 8 on the sample lake has 4,112
# bounds in strings held (option texts, templates): all caches together <= 2.2 M strings (~220 MB)
_PREPARED_CACHE = WeightedLRU(200_000, "patterns.templates.prepared")
_LEVEL_CACHE = WeightedLRU(500_000, "patterns.templates.levels")
_SHAPE_CACHE = WeightedLRU(1_500_000, "patterns.templates.shapes")
_SET_CACHE = WeightedLRU(500_000, "patterns.templates.sets")

Option = tuple[str, tuple[int, ...], int]  # (format text, constant slot indices, parts consumed)


def _fmt(piece: str) -> str:
    return piece.replace("%", "%%")


def is_decimal_at(shape: tuple, i: int) -> bool:
    """A digit word, ``.``, a digit word from part ``i``: a decimal number split by the tokenizer."""
    return (i + 2 < len(shape) and shape[i + 1] == "." and not isinstance(shape[i + 2], str)
            and len(shape[i + 2]) == 1 and shape[i + 2][0][0] == DIGIT)


def part_alternatives(part: str | tuple, decimal_follows: bool = False, level: int = 0) -> list[Option]:
    """Alternatives for one part at reduction ``level`` (0: the exact hierarchy), with constant slots
    numbered from the part's first slot. ``decimal_follows``: the part starts a decimal number."""
    if isinstance(part, str):
        return [(_fmt(escape_literal(part)), (), 1)]
    if level:
        return _reduced_options(part, level)
    total = sum(k for _, k in part)
    wide: list[Option] = [(p, (), 1) for p in word_generalizations(total, is_hex_word(part))]
    if len(part) == 1:
        kind, k = part[0]
        opts: list[Option] = [("%s", (0,), 1)] + [(p, (), 1) for p in run_generalizations(kind, k)] + wide
        # <num> spanning "12" "." "50": a decimal number split by the tokenizer.
        if kind == DIGIT and decimal_follows:
            opts.append((NUM, (), 3))
        return opts
    per_run = [[("%s", (j,))] + [(p, ()) for p in run_generalizations(kind, k, in_word=True)]
               for j, (kind, k) in enumerate(part)]
    none: tuple[int, ...] = ()  # the slots of a combination with no constant (typed for mypyc, see setup.py)
    return [("".join(t for t, _ in combo), sum((sl for _, sl in combo), none), 1)
            for combo in product(*per_run)] + wide


def _reduced_options(part: tuple, level: int) -> list[Option]:
    """Options of a part at reduction ``level`` (1-4, coarser as it grows), one part each.

    1: a multi-run word keeps only its all-``{k}`` and all-``+`` run combinations and whole-word
    classes; no decimal ``<num>`` spanning three parts. 2: no constants either. 3: a single-run word
    keeps its own ``{k}``/``+`` classes, ``<num>`` and ``<alphanum>+``; a multi-run word its two
    combinations and its whole-word ``+`` class. 4: every word ``{k}`` classes or whole-word ``+``.
    """
    total = sum(k for _, k in part)
    hexw = is_hex_word(part)
    whole = word_generalizations(total, hexw)  # [hex{k}, hex+,] alnum{k}, alnum+
    whole_plus = whole[1] if hexw else whole[-1]
    if len(part) == 1:
        kind, k = part[0]
        gens = run_generalizations(kind, k)
        fixed_first = gens[:1] or whole[:1]
        if level <= 2:
            const = [("%s", (0,), 1)] if level == 1 else []
            return const + [(g, (), 1) for g in gens + whole]
        if level == 3:
            own = gens[:2] + [g for g in gens if g == NUM]
            keep = list(dict.fromkeys(own + [whole[-1]])) if own else whole[-2:]
            return [(g, (), 1) for g in keep]
        return [(g, (), 1) for g in dict.fromkeys(fixed_first + [whole_plus])]
    per_run = [run_generalizations(kind, k, in_word=True) for kind, k in part]
    fixed_combo = "".join(g[0] for g in per_run)
    plus_combo = "".join(g[1] for g in per_run)
    if level <= 2:
        keep = [fixed_combo, plus_combo] + whole
    elif level == 3:
        keep = [fixed_combo, plus_combo, whole_plus]
    else:
        keep = [fixed_combo, whole_plus]
    return [(g, (), 1) for g in dict.fromkeys(keep)]


def count_templates(options: list[list[Option]], budget: int) -> int:
    """Number of templates of per-part options with at most ``budget`` constant slots (an upper
    bound: ambiguous parses are not deduplicated)."""
    n = len(options)
    ways = [[0] * (budget + 1) for _ in range(n + 1)]
    ways[n][0] = 1
    for i in range(n - 1, -1, -1):
        for _, slots, step in options[i]:
            nconst = len(slots)
            if i + step > n:
                continue
            for c in range(budget + 1 - nconst):
                ways[i][c + nconst] += ways[i + step][c]
    return sum(ways[0])


def shape_tokens(shape: tuple) -> int:
    """Tokens of a shape, as ``analyze`` counts them (a word's runs, a symbol run one)."""
    return sum(len(p) if isinstance(p, tuple) else 1 for p in shape)


def slot_starts(shape: tuple) -> list[int]:
    """Index of the first slot of each part (symbol runs hold no slot)."""
    starts, slot = [], 0
    for part in shape:
        starts.append(slot)
        slot += 0 if isinstance(part, str) else len(part)
    return starts


def shape_level(shape: tuple, max_constants: int, budget: int = TEMPLATE_BUDGET) -> int:
    """The finest reduction level (0 exact, 1-4 coarser) whose templates of ``shape`` fit ``budget``.

    Level 4 gives at most 2 templates per word, and a value of at most ``MAX_TAU`` (16) tokens has at
    most 8 words, so some level always fits the smallest budget allowed (256).
    """
    key = (shape, max_constants, budget)
    hit = _LEVEL_CACHE.get(key)
    if hit is not None:
        return hit
    level = 4
    for lv in (0, 1, 2, 3):
        opts = [part_alternatives(p, is_decimal_at(shape, i), lv) for i, p in enumerate(shape)]
        if count_templates(opts, max_constants if lv <= 1 else 0) <= budget:
            level = lv
            break
    _LEVEL_CACHE.put(key, level, 1)
    return level


def shape_size(shape: tuple, max_constants: int, budget: int = TEMPLATE_BUDGET) -> int:
    """How many templates a shape has at its level (at most ``budget``), without listing them."""
    key = ("size", shape, max_constants, budget)
    hit = _LEVEL_CACHE.get(key)
    if hit is None:
        nconst, opts = part_options(shape, max_constants, budget)
        hit = count_templates(opts, nconst)
        _LEVEL_CACHE.put(key, hit, 1)
    return hit


def part_options(shape: tuple, max_constants: int, budget: int = TEMPLATE_BUDGET) -> tuple[int, list[list[Option]]]:
    """Per-part options of a shape (absolute slot indices) at its level, and the constant slots allowed."""
    level = shape_level(shape, max_constants, budget)
    starts = slot_starts(shape)
    opts = []
    for i, p in enumerate(shape):
        alts = part_alternatives(p, is_decimal_at(shape, i), level)
        opts.append([(t, tuple(starts[i] + j for j in sl), st) for t, sl, st in alts])
    return (max_constants if level <= 1 else 0), opts


class HierarchyOptions:
    """Option source of the counting walk for whole values: the hierarchy at each shape's level
    (``budget``: templates per shape, or a function of the shape giving them)."""

    def __init__(self, max_constants: int, budget: int | Callable[[tuple], int] = TEMPLATE_BUDGET) -> None:
        self.max_constants = max_constants
        self.budget = budget

    def shape_info(self, shape: tuple) -> tuple[list, list[int], int]:
        budget = self.budget(shape) if callable(self.budget) else self.budget
        level = shape_level(shape, self.max_constants, budget)
        keys = [(level, p, is_decimal_at(shape, i)) for i, p in enumerate(shape)]
        return keys, slot_starts(shape), (self.max_constants if level <= 1 else 0)

    def options(self, key: Hashable) -> list[Prepared]:
        hit = _PREPARED_CACHE.get(key)
        if hit is None:
            level, part, decimal = cast(tuple, key)  # a key of shape_info
            hit = [((t % ()) if not sl else None, t, sl, st) for t, sl, st in part_alternatives(part, decimal, level)]
            _PREPARED_CACHE.put(key, hit, len(hit))
        return hit


def _templates(options: list[list[Option]], nconst: int) -> tuple[tuple[str, tuple[int, ...]], ...]:
    """Every template of per-part options with at most ``nconst`` constant slots, deduplicated
    (``<num>`` makes parses ambiguous: ``1.2.3`` is ``<num>.<num>`` two ways)."""
    n = len(options)
    memo: dict[tuple[int, int], list[tuple[str, tuple[int, ...]]]] = {}

    def suffix(i: int, budget: int) -> list[tuple[str, tuple[int, ...]]]:
        if i == n:
            return [("", ())]
        hit = memo.get((i, budget))
        if hit is not None:
            return hit
        out = []
        for text, slots, step in options[i]:
            if len(slots) > budget or i + step > n:
                continue
            for rtext, rslots in suffix(i + step, budget - len(slots)):
                out.append((text + rtext, slots + rslots))
        memo[(i, budget)] = out
        return out

    return tuple(dict.fromkeys(suffix(0, nconst)))


def shape_templates(shape: tuple, max_constants: int,
                    budget: int = TEMPLATE_BUDGET) -> tuple[tuple[str, ...], dict[tuple, list[str]]]:
    """Templates of a shape: constant-free pattern strings, and %-format strings per slot set
    (at most ``budget`` in all, see :func:`part_options`)."""
    key = (shape, max_constants, budget)
    hit = _SHAPE_CACHE.get(key)
    if hit is not None:
        return hit
    nconst, opts = part_options(shape, max_constants, budget)
    pairs = _templates(opts, nconst)
    free: list[str] = []
    by_slots: dict[tuple, list[str]] = {}
    for text, slots in pairs:
        if slots:
            by_slots.setdefault(slots, []).append(text)
        else:
            free.append(text % ())
    result = (tuple(free), by_slots)
    _SHAPE_CACHE.put(key, result, len(pairs))
    return result


def free_templates(shape: tuple, max_constants: int, budget: int = TEMPLATE_BUDGET) -> tuple[str, ...]:
    """The constant-free templates of a shape at its level (``shape_templates(...)[0]``), listed without
    the templates holding constants, which are most of them: queries over values of several layouts
    intersect only these (:mod:`lakeindex.fmdv.hypotheses`), and FMDV-H's cut tests membership in them."""
    key = ("free", shape, max_constants, budget)
    hit = _SHAPE_CACHE.get(key)
    if hit is None:
        full = _SHAPE_CACHE.get((shape, max_constants, budget))
        if full is not None:
            hit = full[0]
        else:
            hit = tuple(text % () for text, _ in _templates(part_options(shape, max_constants, budget)[1], 0))
        _SHAPE_CACHE.put(key, hit, len(hit))
    return hit


def template_count(shape: tuple, max_constants: int) -> int:
    """Templates the exact hierarchy gives a shape (before the budget), computed without listing them."""
    return count_templates([part_alternatives(p, is_decimal_at(shape, i)) for i, p in enumerate(shape)], max_constants)


def shape_template_set(shape: tuple, max_constants: int, budget: int = TEMPLATE_BUDGET) -> frozenset[str]:
    """Constant-free patterns of a shape, as a set (membership tests of P(v) in FMDV-H's cut)."""
    key = (shape, max_constants, budget)
    hit = _SET_CACHE.get(key)
    if hit is None:
        hit = frozenset(free_templates(shape, max_constants, budget))
        _SET_CACHE.put(key, hit, len(hit))
    return hit
