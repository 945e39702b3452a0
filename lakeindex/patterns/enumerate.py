"""P(v) and the per-column pattern counts of the index build: definitions, limits and bounds.

For a lake column D (its non-empty values, |D| of them) the build records, for each pattern p that
describes enough of D, ``count_D(p)``; the index adds Imp_D(p) = 1 - count_D(p) / |D| and 1 per
column into FPR_T(p) and Cov_T(p) (paper Definitions 3-7). What "enough" and ``count_D`` mean:

* **Evidence share.** D is evidence for p only if p matches at least |D|/``min_share`` of its values
  (default 1/16; 0 restores the paper's Definition 7, where one matching value suffices). A column
  where ``NULL`` is a rare ad-hoc value is not evidence that ``<upper>{4}`` is an impure domain;
  horizontal cuts treat such values as special values, and the index agrees, which is what lets FMDV-VH
  find rules for machine-generated columns with such values (docs/design/performance-notes.md).
* **Constants.** A pattern holds at most ``max_constants`` constant slots and is kept only if it
  also matches |D|/``const_share`` values, so a column of a million IDs contributes its generalized
  patterns, not a million constants. FPR_T and Cov_T are exact for every pattern kept; a column
  omits p only when p matches less than the floor, so for patterns with constants they average
  the columns where the constants are common.
* **Whole values.** ``count_D(p)`` counts the values of at most ``tau`` tokens whose P(v) holds p
  (:mod:`lakeindex.patterns.templates`; a shape beyond the template budget is enumerated at a coarser
  level, the same offline and online). Values wider than tau count in |D| and match nothing whole.
* **Segments of wide values** (index format 4, :mod:`lakeindex.patterns.windows`). When D holds
  structured wide values (at least the evidence share of it, in at most 8 skeletons), each
  window "words i..j" (2-3 words) across D is a pseudo-column D[i..j] of |D| values, and
  count_D(p) = max(count of p over D's whole values, max over windows of count of p in D[i..j]), a
  window count taken only if it reaches |D|/``window_share`` (a half: windows are cut by word
  position, and a minority there is misalignment, not impurity). A window led by a delimiter (the
  k-th ``/`` and 1-3 words after it) is a pseudo-column of the values holding it, which must be at
  least that share of D too: its count is |D| times the share of those values matching p.
  D covers p when that max reaches the floor. So each lake column counts at most once per pattern,
  FPR_T of a segment pattern is the mean impurity of p over the columns where p is a domain (whole
  or as a part at its best-fitting position), and indexes still merge by key-wise addition.
* **Wide shapes, tau > 8.** A shape of 9 to tau tokens is enumerated within ``wide_templates``
  (1,024) templates, not ``max_templates``: an IP address with a port has 8,151 exact templates, a
  UUID 629,440. At tau = 13 on the 20k-column bench lake, the full budget made such shapes 4/5 of the
  index's patterns and of the build's enumeration time (10x the tau = 8 CPU, against 2.1x with
  1,024), for patterns that vertical cuts already compose from the shapes' parts (paper §3). Queries
  use the same budget for segments of that width, so both sides list the same P(v). Builds at tau <= 8
  enumerate no such shape and are unchanged; an index whose metadata predates the knob is read with
  ``wide_templates = max_templates``, the budget it was built with.
* **Shapes.** A column of more than ``max_shapes`` distinct shapes (free text) keeps its heaviest;
  the rest count as non-matching, which can only raise FPR estimates.
* **Sampling.** A column of more than ``max_distinct`` (128) distinct values enumerates a priority
  sample of them (:mod:`lakeindex.patterns.sampling`): heavy values with exact weights, light ones
  with calibrated estimates. count_D(p) is then an estimate (exact when every value matches p), and
  "exact" above holds for columns of at most ``max_distinct`` distinct values; |D| is always exact.

Counts come from direct per-shape sums, or for columns of more than ``DIRECT_TEMPLATES`` templates
a pruned prefix walk (:mod:`lakeindex.patterns.counting`); both exact over the values enumerated.

Memory (bounded by design, any tau <= 16 and any value width):

* templates per shape <= ``max_templates`` (8,192), and <= ``wide_templates`` (1,024) for shapes of
  more than ``WIDE_TOKENS`` (8) tokens: a value of <= 16 tokens has <= 8 words, so the coarsest level
  (<= 2^8 templates) always fits;
* live prefixes <= ``min_share * max_templates`` (131,072) per (pseudo-)column, whatever its values;
* cached option and template strings <= 3.2 M in all (weighted LRU caches), about 320 MB;
* windows: <= ``2 * window_edge * 5`` per value (``2 * window_edge * 2`` without ``window_lead``) over
  <= 128 distinct values, <= 64 sub-shapes each;
* per task: the scan's accumulator is flushed at 400,000 patterns (``lakeindex.index.scan``); Arrow
  holds one file at a time, with cells cut at 64 KB by the readers.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import cast

from lakeindex.patterns.counting import count_patterns, sum_counts
from lakeindex.patterns.sampling import MAX_DISTINCT, Weight, priority_sample
from lakeindex.patterns.templates import MAX_TAU, HierarchyOptions, shape_size, shape_templates, shape_tokens
from lakeindex.patterns.tokens import DEFAULT_MAX_SUBRUNS, analyze
from lakeindex.patterns.windows import WINDOW_WORDS, window_counts

# a column whose shapes have at most this many templates in all is summed shape by shape (templates
# cached across columns); beyond it, the pruned walk does less work (lakeindex.patterns.counting)
DIRECT_TEMPLATES = 40000
# shapes of more tokens than this (the default tau, the paper's recommended one) are held to
# ``EnumerationLimits.wide_templates`` when a larger tau indexes them whole
WIDE_TOKENS = 8
DEFAULT_MAX_TEMPLATES = 8192  # templates per shape of at most WIDE_TOKENS tokens
DEFAULT_MIN_SHARE = 16  # a column is evidence for p if p matches 1/16 of its values


@dataclass(frozen=True)
class EnumerationLimits:
    """Knobs bounding P(v) and P(D); stored in index metadata so queries enumerate alike."""

    tau: int = 8
    max_subruns: int = DEFAULT_MAX_SUBRUNS
    max_constants: int = 2
    const_share: int = 16
    max_shapes: int = 256
    min_share: int = DEFAULT_MIN_SHARE
    window_edge: int = 8
    max_templates: int = DEFAULT_MAX_TEMPLATES
    window_words: int = WINDOW_WORDS
    max_distinct: int = MAX_DISTINCT
    wide_templates: int = 1024
    window_share: int = 2
    window_lead: int = 1

    def __post_init__(self) -> None:
        for name, lo in (("tau", 1), ("max_subruns", 1), ("max_constants", 0),
                         ("const_share", 1), ("max_shapes", 1), ("min_share", 0), ("window_edge", 0),
                         ("max_templates", 256), ("window_words", 2), ("max_distinct", 0),
                         ("wide_templates", 256), ("window_share", 1), ("window_lead", 0)):
            if getattr(self, name) < lo:
                raise ValueError(f"{name} must be >= {lo}, got {getattr(self, name)}")
        if self.window_lead > 1:
            raise ValueError(f"window_lead must be 0 or 1, got {self.window_lead}")
        if self.tau > MAX_TAU:
            raise ValueError(f"tau must be <= {MAX_TAU}, got {self.tau}: wider values are indexed through "
                             "their segments (window_edge), not whole")

    def to_dict(self) -> dict:
        return asdict(self)

    @staticmethod
    def complete(d: dict) -> dict:
        """Limits as stored in an index's metadata, with the knobs added since filled in as it was built:
        an index written before ``wide_templates`` existed used ``max_templates`` for every shape, and one
        written before ``window_share`` and ``window_lead`` kept windows at the column's own evidence floor
        and cut none that starts with a delimiter."""
        if "wide_templates" not in d:
            d = {**d, "wide_templates": d.get("max_templates", DEFAULT_MAX_TEMPLATES)}
        if "window_share" not in d:
            d = {**d, "window_share": d.get("min_share", DEFAULT_MIN_SHARE), "window_lead": 0}
        return d

    @classmethod
    def from_dict(cls, d: dict) -> EnumerationLimits:
        """Limits stored in an index's metadata (see :meth:`complete`)."""
        return cls(**cls.complete(d))

    def budget(self, ntokens: int) -> int:
        """Template budget of a shape (or query segment) of ``ntokens`` tokens: ``wide_templates`` from
        ``WIDE_TOKENS`` + 1 up to tau, where a tau above 8 enumerates whole values that wide; segments
        wider than tau are matched against windows, which have their own ladder, and keep ``max_templates``."""
        if WIDE_TOKENS < ntokens <= self.tau:
            return min(self.max_templates, self.wide_templates)
        return self.max_templates

    def floors(self, total: int) -> tuple[float, float]:
        """Evidence floor and constant floor of a column of ``total`` values."""
        floor = total / self.min_share if self.min_share else 0.0
        return floor, total / self.const_share

    def window_floor(self, total: int) -> float:
        """Evidence floor of a window pattern in a column of ``total`` values (module docstring)."""
        return max(self.floors(total)[0], total / self.window_share)


def value_patterns(value: str, limits: EnumerationLimits | None = None) -> set[str]:
    """P(v): every pattern of the hierarchy consistent with ``value`` (empty if wider than tau).

    One exception: ``<hex>`` is listed only for words mixing digits with hex letters, not for every
    word its regex accepts (see :mod:`lakeindex.patterns.hierarchy`)."""
    limits = limits or EnumerationLimits()
    a = analyze(value, limits.max_subruns)
    if a.ntokens > limits.tau or not a.shape:
        return set()
    free, by_slots = shape_templates(a.shape, limits.max_constants, limits.budget(a.ntokens))
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
    """count_D(p) for every p that describes at least the evidence share of the column (docstring above).

    ``values`` should be distinct with ``weights`` their multiplicities (Arrow ``value_counts``);
    nulls and empty strings must already be removed. ``wide`` counts values of the column already
    known to exceed tau that are not given (they count in |D| and match nothing). ``wide_values``
    are wide values given apart (the scan's heaviest), cut into windows like wide ``values``.
    """
    limits = limits or EnumerationLimits()
    if weights is None:
        weights = [1] * len(values)
    unlisted = wide
    matchless: Weight = wide  # values that match no whole pattern: wide ones, and those without a shape
    wide_values = list(wide_values or ())
    wide_weights = list(wide_weights) if wide_weights is not None else [1] * len(wide_values)
    total = sum(weights) + sum(wide_weights) + wide
    sampled = 0 < limits.max_distinct < len(values)
    # sampled, the weights are estimates (floats), rounded back to whole values below
    sample, estimates = priority_sample(values, weights, limits.max_distinct)
    groups: dict[tuple, list[tuple[tuple[str, ...], Weight]]] = {}
    listed: list[tuple[str, Weight, bool]] = []
    wide_list: list[tuple[str, Weight]] = []
    for v, w in zip(sample, estimates, strict=True):
        a = analyze(v, limits.max_subruns)
        if not a.shape:
            matchless += w
            continue
        is_wide = a.ntokens > limits.tau
        listed.append((v, w, is_wide))
        if is_wide:
            wide_list.append((v, w))
        else:
            groups.setdefault(a.shape, []).append((a.slots, w))
    for v, w in zip(wide_values, wide_weights, strict=True):
        if v:
            wide_list.append((v, w))
            listed.append((v, w, True))
    floor, const_floor = limits.floors(total)
    if len(groups) > limits.max_shapes:
        ranked = sorted(groups.items(), key=lambda kv: -sum(w for _, w in kv[1]))
        groups = dict(ranked[: limits.max_shapes])

    maxc = limits.max_constants

    def budget(shape: tuple) -> int:
        return limits.budget(shape_tokens(shape))

    if sum(shape_size(shape, maxc, budget(shape)) for shape in groups) <= DIRECT_TEMPLATES:
        counts = sum_counts(groups, lambda shape: shape_templates(shape, maxc, budget(shape)), floor, const_floor)
    else:
        counts = count_patterns(groups, HierarchyOptions(maxc, budget), floor, const_floor)
    nwide = sum(w for _, w in wide_list)
    matchless += nwide
    if wide_list and limits.window_edge and nwide + unlisted >= floor:
        get = counts.get
        for p, n in window_counts(listed, unlisted, total, limits.tau, limits.window_edge,
                                  limits.window_floor(total), limits.window_words, bool(limits.window_lead)).items():
            if n > get(p, 0):
                counts[p] = n
    if sampled:  # estimated weights: counts back to whole values
        return ColumnPatterns({p: min(total, round(n)) for p, n in counts.items()}, total,
                              min(total, round(matchless)))
    # exact weights: every count is a sum of whole counts
    return ColumnPatterns(cast(dict[str, int], counts), total, cast(int, matchless))
