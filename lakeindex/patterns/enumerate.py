"""Enumeration of P(v) and of per-column pattern counts, the hot loop of index builds.

Speed comes from three choices:

* **Shapes.** A value's *shape* is its sequence of symbol runs (literal) and words (run kinds and
  lengths). Every generalisation of a value depends only on its shape, except for constants. The
  *templates* of a shape (sequences of class names and constant slots) are computed once and
  cached across values and columns; a column only instantiates constants.
* **Counts, not rows.** A column is first reduced to distinct values with counts (in Arrow);
  ``count(p)`` is accumulated per shape, with one dictionary update per (shape, pattern).
* **Evidence share.** A column counts as evidence for a pattern (adds Imp_D(p) and 1 to Cov_T(p))
  only if p matches at least ``1/min_share`` of its values (default 1/16; 0 restores the paper's
  Definition 7, which counts any column with one matching value). A column where ``NULL`` or ``N/A``
  is a rare ad-hoc value is not evidence that ``<upper>{4}`` is an impure domain; horizontal cuts
  treat such values as special values, and the index now agrees. On the sample lake this raised
  FMDV-VH recall on machine-generated columns from 0.57 to 0.88 at precision 1.0, and cut the index
  by two thirds (BENCHMARKS.md).
* **Bounded constants.** A pattern keeps at most ``max_constants`` constant slots, and a
  constant is kept at a slot of a column only when at least ``1/const_share`` of the column's
  values carry it there (so at most ``const_share`` constants per position). A column of a
  million IDs therefore contributes its generalised patterns, not a million constants.

Effect of the bound on FPR estimates (paper Definition 7): a column D omits a pattern p carrying
constants only when they fill less than 1/const_share of D's values of the same *layout* (symbols
and runs per word), so Imp_D(p) > 1 - 1/const_share for every omitted (D, p) whose matching values
share one layout (the common case; a pattern matched through several layouts, such as
``ID-<alphanum>+`` over ``ID-12`` and ``ID-1a``, may be under-counted, which raises its FPR).
FPR_T(p) and Cov_T(p) are exact for constant-free patterns; for patterns with constants, they
average mostly the columns where the constants are common, so FPR and coverage are lower bounds.
FMDV's coverage floor m guards against the optimism: a constant pattern needs m columns where it
dominates. Values with more than ``tau`` tokens have no whole-value patterns, as in the paper
(they still count in |D|, as non-matching; see "Segments of wide values" for their parts), and a
column with more than ``max_shapes`` distinct shapes (typically free
text) keeps its heaviest shapes; the rest count as non-matching, which can only raise FPR estimates.

Segments of wide values (index format 3). The paper skips values of more than tau tokens and relies
on vertical cuts online; on a lake of thousands rather than millions of columns, the segments those
cuts ask for (``<alphanum>{8}-<alphanum>{4}`` of a UUID, ``<digit>{2}<upper>{1}<digit>{2}:`` of an
ISO timestamp) then occur in no indexed column, and the column gets no rule. So a column holding
structured wide values (at least 1/min_share of its values, in at most ``MAX_WINDOW_SKELETONS``
skeletons, i.e. not free text) is also cut the way FMDV-V cuts a query: every *window* of whole
parts that starts and ends on a word and spans at most tau tokens, starting at one of the first or
last ``window_edge`` words (:func:`value_windows`). The window "words i..j" of all the column's
values is a pseudo-column D[i..j]; values without such words do not match in it. Definitions:

* Imp_D(p) = 1 - max(count of p over D's whole values, max over windows of count of p in D[i..j]) / |D|;
* D covers p (adds 1 to Cov_T(p) and Imp_D(p) to the sum behind FPR_T(p)) when that max reaches
  |D|/min_share. So each lake column counts at most once per pattern, and indexes still merge by
  key-wise addition.

FPR_T of a segment pattern is thus the mean impurity of p over the columns where p is a domain,
whole or as the part of a wider value at its best-fitting position. Windows are enumerated coarser
than whole values: a word of several runs (``e29b``, ``28T12``) is one class slot (``<hex>{4}``,
``<alphanum>{5}``), no constants, 64 shapes, ``WINDOW_TEMPLATES`` templates. Only the heaviest
``MAX_WINDOWED_VALUES`` (256) distinct values are cut, and window counts are scaled by the column's
weight over theirs: an estimate, exact for columns of at most 256 distinct values. Measured, the
full enumeration cost 5x the build time of the sample lake.

Memory (bounded by design, any tau <= 16 and any value width):

* templates per shape <= ``max_templates`` (8,192; :func:`shape_templates` coarsens beyond it, and a
  value of <= 16 tokens has <= 8 words, so the coarsest level, <= 2^8 templates, always fits);
* cached pattern strings <= 3 M in all (weighted LRU caches, ``template_cache``), about 300 MB;
* per column: windows <= 2 * window_edge * ceil(tau / 2) per value over <= ``MAX_WINDOWED_VALUES``
  distinct values, each window's counts over <= 64 shapes * 2,048 templates, filtered to the
  evidence share before they are kept; whole values <= max_shapes * max_templates counts;
* per task: the scan's accumulator is flushed at 400,000 patterns (``lakeindex.index.scan``); Arrow
  holds one file at a time, with cells cut at 64 KB by the readers.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import asdict, dataclass, replace
from itertools import product

from lakeindex.patterns.hierarchy import NUM, run_generalizations, word_generalizations
from lakeindex.patterns.pattern import escape_literal
from lakeindex.patterns.template_cache import WeightedLRU
from lakeindex.patterns.tokens import DEFAULT_MAX_SUBRUNS, DIGIT, Analysis, analyze, is_hex_word

# Bounds of enumeration memory, by design (module docstring, "Memory").
MAX_TAU = 16
MAX_WINDOWED_VALUES = 256  # distinct values per column cut into windows (heaviest first; counts scaled)
MAX_WINDOW_SKELETONS = 8  # wide values of more skeletons than this (free text) are not cut
# a window is enumerated coarser than a whole value: words of several runs as one class slot, no
# constants, its 64 heaviest shapes, 2,048 templates per shape (measured: 10x faster on UUID columns)
WINDOW_SUBRUNS = 1
WINDOW_SHAPES = 64
WINDOW_TEMPLATES = 2048
TEMPLATE_BUDGET = 8192  # default templates per shape: the largest of tau <= 8 on the sample lake has 4,112
_SUFFIX_CACHE = WeightedLRU(1_000_000)  # pattern strings held, all caches together <= 3 M (~300 MB)
_SHAPE_CACHE = WeightedLRU(1_500_000)
_SET_CACHE = WeightedLRU(500_000)


@dataclass(frozen=True)
class EnumerationLimits:
    """Knobs bounding P(v) and P(D); stored in index metadata so queries enumerate alike."""

    tau: int = 8
    max_subruns: int = DEFAULT_MAX_SUBRUNS
    max_constants: int = 2
    const_share: int = 16
    max_shapes: int = 256
    min_share: int = 16
    window_edge: int = 8
    max_templates: int = 8192

    def __post_init__(self) -> None:
        for name, lo in (("tau", 1), ("max_subruns", 1), ("max_constants", 0),
                         ("const_share", 1), ("max_shapes", 1), ("min_share", 0), ("window_edge", 0),
                         ("max_templates", 256)):
            if getattr(self, name) < lo:
                raise ValueError(f"{name} must be >= {lo}, got {getattr(self, name)}")
        if self.tau > MAX_TAU:
            raise ValueError(f"tau must be <= {MAX_TAU}, got {self.tau}: wider values are indexed through "
                             "their segments (window_edge), not whole")

    def to_dict(self) -> dict:
        return asdict(self)


# A template is a %-format string: literal and class pieces (with '%' doubled) and one "%s" per
# constant slot, filled left to right; ``slots`` lists the slot indices in that order.
Option = tuple[str, tuple[int, ...], int]  # (format text, slot indices, parts consumed)


def _fmt(piece: str) -> str:
    return piece.replace("%", "%%")


def _part_options(shape: tuple, i: int, slot0: int) -> list[Option]:
    """Alternatives for part ``i`` of ``shape``."""
    part = shape[i]
    if isinstance(part, str):
        return [(_fmt(escape_literal(part)), (), 1)]
    total = sum(k for _, k in part)
    wide = [(p, (), 1) for p in word_generalizations(total, is_hex_word(part))]
    if len(part) == 1:
        kind, k = part[0]
        opts = [("%s", (slot0,), 1)] + [(p, (), 1) for p in run_generalizations(kind, k)] + wide
        # <num> spanning "12" "." "50": a decimal number split by the tokenizer.
        if (kind == DIGIT and i + 2 < len(shape) and shape[i + 1] == "."
                and not isinstance(shape[i + 2], str) and len(shape[i + 2]) == 1
                and shape[i + 2][0][0] == DIGIT):
            opts.append((NUM, (), 3))
        return opts
    per_run = [[("%s", (slot0 + j,))] + [(p, ()) for p in run_generalizations(kind, k, in_word=True)]
               for j, (kind, k) in enumerate(part)]
    return [("".join(t for t, _ in combo), sum((sl for _, sl in combo), ()), 1)
            for combo in product(*per_run)] + wide


def _suffix_templates(suffix: tuple, slot0: int, budget: int) -> tuple[tuple[str, tuple[int, ...]], ...]:
    """Templates of ``suffix`` (parts of a shape) using at most ``budget`` constant slots.

    Memoised on the suffix, so shapes that end alike (most of a column's shapes) share work.
    Deduplicated: ``<num>`` makes parses ambiguous (``1.2.3`` is ``<num>.<num>`` two ways), and a
    pattern counted twice would count its values twice. Only called for shapes within the template
    budget, so every cached entry holds at most ``TEMPLATE_BUDGET`` templates.
    """
    if not suffix:
        return (("", ()),)
    key = (suffix, slot0, budget)
    hit = _SUFFIX_CACHE.get(key)
    if hit is not None:
        return hit
    out = []
    width = 0 if isinstance(suffix[0], str) else len(suffix[0])
    for text, slots, step in _part_options(suffix, 0, slot0):
        rest_budget = budget - len(slots)
        if rest_budget < 0:
            continue
        nxt = slot0 + width + (len(suffix[2]) if step == 3 else 0)
        for rtext, rslots in _suffix_templates(suffix[step:], nxt, rest_budget):
            out.append((text + rtext, slots + rslots))
    result = tuple(dict.fromkeys(out))
    _SUFFIX_CACHE.put(key, result, len(result))
    return result


def _count(options: list[list[tuple[int, int]]], budget: int) -> int:
    """Number of templates of per-part options given as (constant slots, parts consumed), with at
    most ``budget`` constant slots (an upper bound: ambiguous parses are not deduplicated)."""
    n = len(options)
    ways = [[0] * (budget + 1) for _ in range(n + 1)]
    ways[n][0] = 1
    for i in range(n - 1, -1, -1):
        for nconst, step in options[i]:
            if i + step > n:
                continue
            for c in range(budget + 1 - nconst):
                ways[i][c + nconst] += ways[i + step][c]
    return sum(ways[0])


def template_count(shape: tuple, max_constants: int) -> int:
    """Templates the exact hierarchy gives a shape (before the budget), computed without listing them."""
    return _count([[(len(sl), st) for _, sl, st in _part_options(shape, i, 0)] for i in range(len(shape))],
                  max_constants)


def _reduced_options(shape: tuple, i: int, slot0: int, level: int) -> list[tuple[str, tuple[int, ...]]]:
    """Options of part ``i`` at reduction ``level`` (1-4, coarser as it grows), one part each.

    1: a multi-run word keeps only its all-``{k}`` and all-``+`` run combinations and whole-word
    classes; no decimal ``<num>`` spanning three parts. 2: no constants either. 3: a single-run word
    keeps its own ``{k}``/``+`` classes, ``<num>`` and ``<alphanum>+``; a multi-run word its two
    combinations and its whole-word ``+`` class. 4: every word ``{k}`` classes or whole-word ``+``.
    """
    part = shape[i]
    if isinstance(part, str):
        return [(_fmt(escape_literal(part)), ())]
    total = sum(k for _, k in part)
    hexw = is_hex_word(part)
    whole = word_generalizations(total, hexw)  # [hex{k}, hex+,] alnum{k}, alnum+
    whole_plus = whole[1] if hexw else whole[-1]
    if len(part) == 1:
        kind, k = part[0]
        gens = run_generalizations(kind, k)
        fixed_first = gens[:1] or whole[:1]
        if level <= 2:
            const = [("%s", (slot0,))] if level == 1 else []
            return const + [(g, ()) for g in gens + whole]
        if level == 3:
            own = gens[:2] + [g for g in gens if g == NUM]
            return [(g, ()) for g in dict.fromkeys(own + [whole[-1]])] if own else [(g, ()) for g in whole[-2:]]
        return [(g, ()) for g in dict.fromkeys(fixed_first + [whole_plus])]
    per_run = [run_generalizations(kind, k, in_word=True) for kind, k in part]
    fixed_combo = "".join(g[0] for g in per_run)
    plus_combo = "".join(g[1] for g in per_run)
    if level <= 2:
        return [(g, ()) for g in dict.fromkeys([fixed_combo, plus_combo] + whole)]
    if level == 3:
        return [(g, ()) for g in dict.fromkeys([fixed_combo, plus_combo, whole_plus])]
    return [(fixed_combo, ()), (whole_plus, ())]


def _reduced_templates(shape: tuple, max_constants: int, budget: int) -> tuple[tuple[str, tuple[int, ...]], ...]:
    """Templates of a shape beyond the budget: the finest reduction level that fits in it.

    Level 4 gives at most 2 templates per word, and a value of at most ``MAX_TAU`` (16) tokens has at
    most 8 words, so some level always fits: at most 256 templates, the smallest budget allowed.
    """
    starts, slot = [], 0
    for part in shape:
        starts.append(slot)
        slot += 0 if isinstance(part, str) else len(part)
    for level in (1, 2, 3, 4):
        opts = [_reduced_options(shape, i, starts[i], level) for i in range(len(shape))]
        nconst = max_constants if level == 1 else 0
        if level < 4 and _count([[(len(sl), 1) for _, sl in o] for o in opts], nconst) > budget:
            continue
        out = []
        for combo in product(*opts):
            slots = sum((sl for _, sl in combo), ())
            if len(slots) <= nconst:
                out.append(("".join(t for t, _ in combo), slots))
        return tuple(dict.fromkeys(out))
    raise AssertionError("unreachable: level 4 always fits")


def shape_templates(shape: tuple, max_constants: int,
                    budget: int = TEMPLATE_BUDGET) -> tuple[tuple[str, ...], dict[tuple, list[str]]]:
    """Templates of a shape: constant-free pattern strings, and %-format strings per slot set.

    At most ``budget`` (``EnumerationLimits.max_templates``) per shape: a shape whose exact hierarchy
    gives more (wide values, tau > 8) is enumerated at the finest coarser level that fits
    (:func:`_reduced_templates`). So P(v) of such a value is a subset of the exact one, the same
    subset offline and online; counts of patterns it leaves out are lower bounds (their FPR
    estimates err high, the safe side).
    """
    key = (shape, max_constants, budget)
    hit = _SHAPE_CACHE.get(key)
    if hit is not None:
        return hit
    if template_count(shape, max_constants) <= budget:
        pairs = _suffix_templates(shape, 0, max_constants)
    else:
        pairs = _reduced_templates(shape, max_constants, budget)
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


def value_patterns(value: str, limits: EnumerationLimits | None = None) -> set[str]:
    """P(v): every pattern of the hierarchy consistent with ``value`` (empty if wider than tau).

    One exception: ``<hex>`` is listed only for words mixing digits with hex letters, not for every
    word its regex accepts (see :mod:`lakeindex.patterns.hierarchy`)."""
    limits = limits or EnumerationLimits()
    a = analyze(value, limits.max_subruns)
    if a.ntokens > limits.tau or not a.shape:
        return set()
    free, by_slots = shape_templates(a.shape, limits.max_constants, limits.max_templates)
    out = set(free)
    for slots, fmts in by_slots.items():
        args = tuple(a.slots[j] for j in slots)
        out.update(f % args for f in fmts)
    return out


@dataclass
class ColumnPatterns:
    """Pattern counts of one column: ``counts[p]`` values match p, out of ``total`` values."""

    counts: dict[str, int]
    total: int
    wide: int = 0

    def impurity(self, pattern: str) -> float:
        """Imp_D(p) (Definition 3): fraction of values not matching ``pattern``."""
        return 1.0 - self.counts.get(pattern, 0) / self.total if self.total else 1.0


def column_patterns(values: list[str], weights: list[int] | None = None,
                    limits: EnumerationLimits | None = None, wide: int = 0,
                    wide_values: list[str] | None = None, wide_weights: list[int] | None = None) -> ColumnPatterns:
    """Count, for every p in P(D), how many values of the column match p.

    ``values`` should be distinct with ``weights`` their multiplicities (Arrow ``value_counts``);
    nulls and empty strings must already be removed. ``wide`` counts values of the column already
    known to exceed tau that are not given (they count in |D| as matching nothing). Values wider than
    tau (given here or in ``wide_values``) are cut into segment windows (:func:`value_windows`): each
    window is a pseudo-column of D, and ``counts[p]`` is the largest count of p over D's whole values
    and its windows (module docstring, "Segments of wide values").
    """
    limits = limits or EnumerationLimits()
    if weights is None:
        weights = [1] * len(values)
    unlisted = wide  # wide values not given: windows estimate them from those given
    wide_values = list(wide_values or ())
    wide_weights = list(wide_weights) if wide_weights is not None else [1] * len(wide_values)
    total = sum(weights) + sum(wide_weights) + wide
    groups: dict[tuple, list[tuple[tuple[str, ...], int]]] = {}
    narrow: list[tuple[str, int]] = []
    wide_list: list[tuple[str, Analysis, int]] = []
    for v, w in zip(values, weights, strict=True):
        a = analyze(v, limits.max_subruns)
        if not a.shape:
            wide += w
        elif a.ntokens > limits.tau:
            wide_list.append((v, a, w))
        else:
            groups.setdefault(a.shape, []).append((a.slots, w))
            narrow.append((v, w))
    for v, w in zip(wide_values, wide_weights, strict=True):
        a = analyze(v, limits.max_subruns)
        if a.shape:
            wide_list.append((v, a, w))
    floor = total / limits.min_share if limits.min_share else 0
    counts = _filtered(_group_counts(groups, total, limits), floor)
    nwide = sum(w for _, _, w in wide_list)
    wide += nwide
    if wide_list and limits.window_edge and nwide >= floor and _structured([(a, w) for _, a, w in wide_list]):
        # windows of *every* value (narrow ones too): a pseudo-column is the whole column cut at words i..j.
        # A word of several runs is one class slot there (WINDOW_SUBRUNS): hex ids then have a few shapes.
        cut = sorted([(v, w) for v, _, w in wide_list] + narrow, key=lambda vw: (-vw[1], vw[0]))
        sample = cut[:MAX_WINDOWED_VALUES]
        # beyond the cap, counts are estimated from the heaviest values, scaled to the whole column
        scale = (sum(w for _, w in cut) + unlisted) / sum(w for _, w in sample)
        windows: dict[tuple, dict[tuple, list[tuple[tuple[str, ...], int]]]] = {}
        for v, w in sample:
            for key, shape, slots in value_windows(analyze(v, WINDOW_SUBRUNS), limits.tau, limits.window_edge):
                windows.setdefault(key, {}).setdefault(shape, []).append((slots, w))
        get = counts.get
        wlimits = replace(limits, max_constants=0, max_shapes=WINDOW_SHAPES,
                          max_templates=min(WINDOW_TEMPLATES, limits.max_templates))
        seen: set[frozenset] = set()
        for wgroups in windows.values():
            # without constants a window's counts depend only on its shapes' weights: windows of equal
            # weights (list items at every position, a fixed-width value seen from either end) count once
            sig = frozenset((shape, sum(w for _, w in ms)) for shape, ms in wgroups.items())
            if sig in seen:
                continue
            seen.add(sig)
            for p, n in _group_counts(wgroups, total, wlimits).items():
                n = min(total, round(n * scale))
                if n >= floor and n > get(p, 0):
                    counts[p] = n
    return ColumnPatterns(counts, total, wide)


def _structured(analyses: list[tuple[Analysis, int]]) -> bool:
    """True when a few skeletons (symbol runs kept, words collapsed) hold most of the values: machine-made
    wide values (UUIDs, timestamps, records, lists of a few lengths), not free text, whose windows would
    cost most of the build and describe no domain."""
    weights: Counter[tuple] = Counter()
    for a, w in analyses:
        weights[tuple(p if isinstance(p, str) else "" for p in a.shape)] += w
    top = sum(n for _, n in weights.most_common(MAX_WINDOW_SKELETONS))
    return top >= 0.9 * sum(weights.values())


def _filtered(counts: dict[str, int], floor: float) -> dict[str, int]:
    """Counts of patterns matched by at least ``floor`` values (the evidence share)."""
    return {p: n for p, n in counts.items() if n >= floor} if floor else counts


def value_windows(a: Analysis, tau: int, edge: int) -> list[tuple[tuple, tuple, tuple[str, ...]]]:
    """Segment windows of a wide value: (window key, sub-shape, its slot texts) per window.

    A window is a range of whole parts that starts and ends on a word, holds two words at least (one
    word alone is what narrow columns already show, and its windows would make ``<alphanum>+`` look
    like a clean domain) and spans at most ``tau`` tokens: what an online vertical cut asks for.
    Windows start at one of the first ``edge`` words (key ``("s", i, j)``: words i..j counted from
    the start) or the last ``edge`` words (key ``("e", i, j)``, counted from the end, so values of
    different lengths align at their tails: file extensions, zones). At most
    ``2 * edge * ceil(tau / 2)`` windows per value.
    """
    shape = a.shape
    words = [i for i, part in enumerate(shape) if not isinstance(part, str)]
    if not words:
        return []
    tok = [0]
    slot = [0]
    for part in shape:
        tok.append(tok[-1] + (1 if isinstance(part, str) else len(part)))
        slot.append(slot[-1] + (0 if isinstance(part, str) else len(part)))
    nw = len(words)
    starts = sorted(set(range(min(edge, nw))) | set(range(max(0, nw - edge), nw)))
    out = []
    for si in starts:
        first = words[si]
        for ei in range(si + 1, nw):  # two words at least: single words are evidence of narrow columns
            last = words[ei] + 1
            if tok[last] - tok[first] > tau:
                break
            sub = shape[first:last]
            slots = a.slots[slot[first]:slot[last]]
            if si < edge:
                out.append((("s", si, ei), sub, slots))
            if nw - 1 - si < edge:
                out.append((("e", nw - 1 - si, nw - 1 - ei), sub, slots))
    return out


def _group_counts(groups: dict[tuple, list[tuple[tuple[str, ...], int]]], total: int,
                  limits: EnumerationLimits) -> dict[str, int]:
    """Pattern counts of one (pseudo-)column given as shape -> [(slot texts, weight)]."""
    if len(groups) > limits.max_shapes:
        ranked = sorted(groups.items(), key=lambda kv: -sum(w for _, w in kv[1]))
        groups = dict(ranked[: limits.max_shapes])

    counts: dict[str, int] = {}
    get = counts.get
    min_count = total / limits.const_share
    layouts: dict[tuple, list[tuple]] = {}
    for shape, members in groups.items():
        free, by_slots = shape_templates(shape, limits.max_constants, limits.max_templates)
        wsum = sum(w for _, w in members)
        for p in free:
            counts[p] = get(p, 0) + wsum
        if by_slots:
            layouts.setdefault(_layout(shape), []).append((by_slots, members, wsum))
    const_counts: dict[str, int] = {}
    cget = const_counts.get
    for shapes in layouts.values():
        if sum(ws for _, _, ws in shapes) < min_count:
            continue
        # constants kept per slot of the layout: carried by >= total/const_share values
        nslots = len(shapes[0][1][0][0])
        tallies: list[Counter[str]] = [Counter() for _ in range(nslots)]
        for _, members, _ in shapes:
            for slots, w in members:
                for j in range(nslots):
                    tallies[j][slots[j]] += w
        kept = [{t for t, n in c.items() if n >= min_count} for c in tallies]
        for by_slots, members, _ in shapes:
            for slot_set, fmts in by_slots.items():
                if not all(kept[j] for j in slot_set):
                    continue
                combos: Counter[tuple[str, ...]] = Counter()
                for slots, w in members:
                    key = tuple(slots[j] for j in slot_set)
                    if all(t in kept[j] for t, j in zip(key, slot_set, strict=True)):
                        combos[key] += w
                for key, n in combos.items():
                    for f in fmts:
                        p = f % key
                        const_counts[p] = cget(p, 0) + n
    for p, n in const_counts.items():
        if n >= min_count:
            counts[p] = n
    return counts


def _layout(shape: tuple) -> tuple:
    """Symbols and runs per word: shapes of one layout have the same constant slots."""
    return tuple(p if isinstance(p, str) else len(p) for p in shape)


def shape_template_set(shape: tuple, max_constants: int, budget: int = TEMPLATE_BUDGET) -> frozenset[str]:
    """Constant-free patterns of a shape, as a set (membership tests of P(v) in FMDV-H's cut)."""
    key = (shape, max_constants, budget)
    hit = _SET_CACHE.get(key)
    if hit is None:
        hit = frozenset(shape_templates(shape, max_constants, budget)[0])
        _SET_CACHE.put(key, hit, len(hit))
    return hit
