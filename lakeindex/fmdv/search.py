"""Best pattern of one segment of a query column: FMDV's Eq. 5-7 over H(C[s,e]), from the index.

A segment is given as, per conforming group, the range of its parts inside the segment. Its
hypotheses are H(C[s,e]) (:mod:`lakeindex.fmdv.hypotheses`).

Two choices go beyond the paper, both in the open space its formulation leaves:

* *Literal delimiters.* A segment made only of the same symbols in every value (the ``|`` and
  spaces between the sub-domains of Figure 8) is validated literally, with FPR 0 and no index
  lookup. No lake column starts or ends with a delimiter, so a delimiter could never be placed in
  any indexed segment, and vertical cuts could never separate sub-domains.
* *FPR band.* Eq. 5 takes the minimum FPR. Index estimates differ by ~1e-3 because a few impure
  columns are noise, so candidates within ``fpr_slack`` (0.005) of the minimum count as equally
  safe, and the most specific one (lowest coverage, then lowest in the hierarchy) wins. For example,
  ``<digit>+.<digit>+.<digit>+.<digit>+`` (FPR 0.0019) beats ``<alphanum>+.<digit>+.<num>`` (0.0017)
  for IPv4. This raises recall for an expected FPR cost of at most the slack. Within the band, a
  candidate inside another's language is the more specific whatever their coverage (``innermost``).
* *Letter classes the index cannot tell apart* (``SegmentSolver._evidenced``): where a wider candidate
  has the same columns, or is never indexed (a led window's one word), a narrower letter class stays
  only if the lake's whole columns show it as safe as the wider one, within the band.
* *Narrowing band.* Once a segmentation is chosen, each segment's pattern gives way to one whose
  language lies inside its own (``subsumes``: ``<upper>+`` inside ``<alphanum>+``) and whose FPR is
  at most ``narrow_slack`` (0.05) higher, the most specific such, as long as the rule's FPR stays
  within r (left to right, ``vertical._narrow``; a one-segment rule narrows directly). The narrower
  pattern accepts a subset of what the choice accepts, so it can only flag more. On the 20k-column
  benchmark lake, upper- and lower-case enums get ``<upper>+`` (FPR 0.054) or ``<lower>+`` (0.087)
  instead of ``<alphanum>+`` (0.041), which any word passes: FMDV-VH recall on its machine and
  composite columns rose from 0.919 to 0.945 at the same precision, 0.9985. Narrowing inside the
  DP instead lost rules (rule rate 0.980 to 0.954 at 0.05): each segment took a riskier pattern
  until their sum passed r. A band up to r itself added 0.0003 recall and cost FMDV-V a point of
  precision. A plain band (any candidate, not only narrower ones) picks ``<num>`` over
  ``<alphanum>+`` for signed integers, which lets decimals through. (BENCHMARKS, "Narrowing band".)

Lookups are cached per process (keyed by pattern), and the feasible candidates per segment key
(sub-shapes, agreed constants, hex flags), so a query over shapes seen before costs dictionary
lookups rather than index reads. A long-running process may *preload* an index that fits the lookup
cache's budget: the cache then holds every key, and a pattern it lacks is absent from the index
without asking RocksDB (``SegmentSolver.preload``). It also holds the keys' part prefixes, so a
segment's hypotheses are built only as far as some key starts alike (``hypotheses.hypotheses``).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from operator import attrgetter
from threading import Lock
from typing import TYPE_CHECKING, cast

from lakeindex.fmdv.hypotheses import (
    SegmentPart,
    hypotheses,
    label_outlines,
    segment_hypotheses,
    segment_key,
    share_outline,
)
from lakeindex.index.store import IndexReader, IndexUnusable, PatternStats, decode_stats
from lakeindex.patterns.enumerate import EnumerationLimits
from lakeindex.patterns.pattern import (
    escape_literal,
    generality,
    led_word_widened,
    narrowed_letter_classes,
    part_prefixes,
    subsumes,
)

if TYPE_CHECKING:
    from lakeindex.fmdv.alignment import Alignment


NARROW_SLACK = 0.05  # the narrowing band (module docstring)
_UNCACHED = object()  # what the lookup cache gives for a pattern it does not hold (None: not in the index)
ENTRY_OVERHEAD = 120  # bytes of a cache entry beyond its strings: dict slot, key and value objects
SET_SLOT = 32  # bytes of a set slot (hash and pointer, at the set's load factor)


@dataclass(frozen=True)
class Candidate:
    """A segment's chosen pattern with its index statistics."""

    pattern: str
    fpr: float
    coverage: int
    literal: bool = False
    # ``rank``, once asked: candidates are cached per segment and ranked in every choice that meets them.
    # A field set on first use rather than functools.cached_property, which the compiled build (mypyc's
    # native classes have no instance dict) turns into a plain property computed on every use
    _rank: tuple | None = field(default=None, repr=False, compare=False)

    @property
    def rank(self) -> tuple:
        """Order among candidates of similar FPR: most specific first."""
        rank = self._rank
        if rank is None:
            rank = (self.coverage, generality(self.pattern), self.fpr, self.pattern)
            object.__setattr__(self, "_rank", rank)  # frozen: set as the dataclass's own __init__ does
        return rank


_RANK = attrgetter("rank")
_LETTER_CLASS = re.compile(r"<(?:lower|upper|letter)>")


def lowest_fpr(cands: list[Candidate]) -> float:
    """The lowest FPR of non-empty ``cands``."""
    floor = cands[0].fpr
    for c in cands:
        if c.fpr < floor:
            floor = c.fpr
    return floor


def choose(cands: list[Candidate], slack: float, narrow: float = NARROW_SLACK) -> Candidate | None:
    """The most specific candidate whose FPR is within ``slack`` of the lowest, then the most specific
    one inside its language with an FPR at most ``narrow`` higher (module docstring)."""
    if not cands:
        return None
    # loops rather than min() over generators (compiled, a generator is an object per call): the
    # lowest FPR, then the first lowest-ranked candidate within the slack of it that holds no other
    # candidate of the band inside its language, as min() would pick
    limit = lowest_fpr(cands) + slack
    band = [c for c in cands if c.fpr <= limit]
    best = band[0]
    best_rank: tuple | None = None
    for c in innermost(band):
        rank = c.rank
        if best_rank is None or rank < best_rank:
            best, best_rank = c, rank
    # without a band nothing narrower qualifies: one inside best's language of FPR <= best's was in
    # the slack band already, and best ranks first there
    return narrowed(best, cands, best.fpr + narrow) if narrow > 0 else best


def innermost(band: list[Candidate]) -> list[Candidate]:
    """The candidates of an FPR band whose language holds no other one's: equally safe, a pattern inside
    another is the more specific whatever the columns' count (``<digit>+/<digit>+/<digit>{4}`` over
    ``<digit>+/<num>/<digit>{4}``, which fewer lake columns happen to carry)."""
    if len(band) < 2:
        return band
    out = []
    for c in band:
        g = generality(c.pattern)
        inside = False
        for o in band:  # a pattern strictly inside another sits lower in the hierarchy: a cheap test first
            if generality(o.pattern) < g and not o.literal and subsumes(c.pattern, o.pattern):
                inside = True
                break
        if not inside:
            out.append(c)
    return out


def narrowed(best: Candidate, cands: list[Candidate], max_fpr: float) -> Candidate:
    """The most specific candidate inside ``best``'s language with FPR <= ``max_fpr`` (else ``best``)."""
    if best.literal:
        return best
    inner = [c for c in cands if c.fpr <= max_fpr and c.rank < best.rank and not c.literal
             and subsumes(best.pattern, c.pattern)]
    return min(inner, key=_RANK) if inner else best


def within(cands: list[Candidate], cap: float | None) -> list[Candidate]:
    """The candidates with FPR <= ``cap`` (all of them without one): a part of a list or record may use
    only what its other parts left of r (``rule_search.RuleSearch.solve``)."""
    return cands if cap is None else [c for c in cands if c.fpr <= cap]


def _key_bytes(key: object) -> int:
    """About the bytes a cache key holds: a segment key of many groups (a frozenset of like-sized
    entries) as its size times one entry's ``repr``; anything else its ``repr``. Writing out the whole
    key of a GUID segment cost a tenth of a cold composite fit."""
    if isinstance(key, frozenset) and len(key) > 1:
        return len(key) * len(repr(next(iter(key))))
    return len(repr(key))


class SegmentSolver:
    """Solves FMDV for segments against one index version; thread-safe, caches bounded."""

    def __init__(self, index: IndexReader, cache_bytes: int = 256 << 20, fpr_slack: float = 0.005,
                 freeze_gc: bool = False, narrow_slack: float = NARROW_SLACK, preload: bool = False) -> None:
        self.index = index
        self.fpr_slack = fpr_slack
        self.narrow_slack = narrow_slack
        self.limits = EnumerationLimits.from_dict(index.meta["limits"])
        # Both caches grow with what clients send (every column brings new shapes), so each is bounded by an
        # estimate of the bytes it holds (``cache_bytes`` in all: a quarter for lookups, the rest for
        # candidates) and emptied when full: entries are cheap to recompute from the index.
        self.cache_bytes = cache_bytes
        self.freeze_gc = freeze_gc  # long-running processes: see lakeindex.runtime.gc_freeze
        # packed values, not objects: a dict of str -> bytes/None is never traversed by the GC
        self._stats: dict[str, bytes | None] = {}
        self._stats_bytes = 0
        self._feasible: dict[tuple, list[Candidate]] = {}
        self._feasible_bytes = 0
        self._complete = False  # the lookup cache holds the whole index (``preload``)
        self._viable: set[str] | None = None  # with it, the keys and their part prefixes (``preload``)
        self._safe_classes: dict[tuple[str, str], bool] = {}  # ``classes_hold`` per pair of letter classes
        self._lock = Lock()
        if preload:
            self.preload()

    @property
    def preloaded(self) -> bool:
        """The lookup cache holds the whole index (``preload``): lookups never read RocksDB."""
        return self._complete

    def preload(self) -> bool:
        """Hold the whole index in the lookup cache if it fits the cache's budget (a quarter of
        ``cache_bytes``), and say whether it did. Lookups then never reach RocksDB: a cold fit's
        hypotheses are mostly patterns no lake column has (96% on the wide benchmark), and each such
        miss cost a RocksDB read of about a microsecond plus the cache's bookkeeping. For services,
        which pay the load once (157,000 keys: under half a second); an index too big for the
        budget is left to RocksDB and the cache as before, and so is a damaged one, whose damaged
        blocks then fail only the requests that read them, as without preloading."""
        budget = self.cache_bytes // 4
        if int(self.index.meta.get("patterns", 0)) * ENTRY_OVERHEAD > budget:
            return False  # too big whatever its keys' lengths: not worth reading
        held: dict[str, bytes | None] = {}
        size = 0
        try:
            for key, value in self.index.items():
                size += len(key) + ENTRY_OVERHEAD
                if size > budget:
                    return False
                held[key.decode()] = value
        except IndexUnusable:
            return False
        viable, size = self._prefixed(held, size, budget)
        with self._lock:
            self._stats, self._stats_bytes, self._complete, self._viable = held, size, True, viable
        return True

    @staticmethod
    def _prefixed(held: dict[str, bytes | None], size: int, budget: int) -> tuple[set[str] | None, int]:
        """The held keys with every part prefix of theirs (``hypotheses.hypotheses`` prunes the patterns it
        builds by them), and the lookup cache's bytes with them; None where they do not fit the budget
        too (lookups are then as exact, only slower). A tenth of the wide bench's cold fit time was
        building and looking up hypotheses no key has (85% of them). The keys are held already: a set
        slot each, and new strings only for the prefixes that are not keys (41,651 on the wide bench's
        index of 156,969 keys, 1.1 M characters, 11 MB counted; preloading it takes 0.44 s instead of
        0.10). The 20k-column bench index's keys fill 58 of the default 64 MB: it is preloaded without."""
        total = size + len(held) * SET_SLOT
        if total > budget:
            return None, size  # no room even for the keys' set slots: not worth listing prefixes
        viable = set(held)
        for key in held:
            for prefix in part_prefixes(key):
                if prefix not in viable:
                    viable.add(prefix)
                    total += len(prefix) + ENTRY_OVERHEAD
            if total > budget:
                return None, size
        return viable, total

    def lookup(self, patterns: list[str]) -> list[PatternStats | None]:
        """Index statistics of patterns, through the process cache."""
        return [decode_stats(p, v) for p, v in zip(patterns, self._packed(patterns), strict=True)]

    def _packed(self, patterns: list[str]) -> list[bytes | None]:
        """Packed index values of patterns (None: not in the index), through the process cache. The
        answer is taken before the cache is emptied to make room, so a full cache never turns a
        pattern it held into an absent one."""
        cache = self._stats
        if self._complete:  # the whole index: a pattern not held is in no lake column
            return [cache.get(p) for p in patterns]
        packed = [cache.get(p, _UNCACHED) for p in patterns]
        missing = [p for p, v in zip(patterns, packed, strict=True) if v is _UNCACHED]
        if not missing:
            return packed  # type: ignore[return-value]
        found = dict(zip(missing, self.index.lookup_raw(missing), strict=True))
        size = sum(len(p) + ENTRY_OVERHEAD for p in found)
        budget = self.cache_bytes // 4
        if size <= budget:  # else more than the whole cache: answer without keeping it
            with self._lock:
                if self._stats_bytes + size > budget:
                    cache.clear()
                    self._stats_bytes = 0
                cache.update(found)
                self._stats_bytes += size
        return [found[p] if v is _UNCACHED else cast(bytes | None, v) for p, v in zip(patterns, packed, strict=True)]

    def _remember(self, key: tuple, cands: list[Candidate], key_bytes: int | None = None) -> None:
        """Cache a segment key's candidates within the byte budget (a key is as big as its shapes;
        ``key_bytes``: its size if the caller knows it)."""
        size = (_key_bytes(key[0]) if key_bytes is None else key_bytes) \
            + sum(len(c.pattern) + ENTRY_OVERHEAD for c in cands) + ENTRY_OVERHEAD
        budget = self.cache_bytes - self.cache_bytes // 4
        if size > budget:
            return
        with self._lock:
            if self._feasible_bytes + size > budget:
                self._feasible.clear()
                self._feasible_bytes = 0
            self._feasible[key] = cands
            self._feasible_bytes += size

    def feasible(self, patterns: list[str], r: float, m: int) -> list[Candidate]:
        """The patterns with FPR <= r and coverage >= m, as candidates (through the cache)."""
        out = []
        found = [(p, v) for p, v in zip(patterns, self._packed(patterns), strict=True) if v is not None]
        for p, v in found:  # most hypotheses of a segment are in no lake column: nothing to decode
            stats = decode_stats(p, v)
            if stats is not None and stats.fpr <= r and stats.coverage >= m:
                out.append(Candidate(p, stats.fpr, stats.coverage))
        return self._evidenced(out)

    def _evidenced(self, cands: list[Candidate]) -> list[Candidate]:
        """``cands`` with each class the index cannot tell from a wider one kept only where the lake's whole
        columns show it as safe (``classes_hold``). The index cannot tell them apart where both patterns
        have the same columns (equal coverage, FPR within the band): the narrower one is dropped. Nor for
        a led window's one word (``.<lower>+``), whose ``<alphanum>+`` the build never counts: it is
        written with the wider class, at its own FPR (the wider one's could only be lower). Otherwise the
        specific class is a guess from the training sample: ``<lower>+`` for the last word of
        ``Page.Home.sports``, which the lake's word columns show broken by digits (FPR 0.09-0.10 against
        0.04 for ``<alphanum>+``)."""
        lettered = [c for c in cands if _LETTER_CLASS.search(c.pattern)]  # only these can change
        if not lettered:
            return cands
        letter_patterns = {c.pattern for c in lettered}
        groups: dict[int, list[Candidate]] = {}
        for c in cands:
            groups.setdefault(c.coverage, []).append(c)
        drop = set()
        for c in lettered:
            group = groups[c.coverage]
            if len(group) > 1:
                g = generality(c.pattern)
                for w in group:
                    if generality(w.pattern) > g and abs(w.fpr - c.fpr) <= self.fpr_slack \
                            and subsumes(w.pattern, c.pattern) and not self.classes_hold(w.pattern, c.pattern):
                        drop.add(c.pattern)
                        break
        out: dict[str, Candidate] = {}
        for c in cands:
            if c.pattern in drop:
                continue
            wide = led_word_widened(c.pattern) if c.pattern in letter_patterns else None
            if wide is not None and not self.classes_hold(wide, c.pattern) and self.lookup([wide])[0] is None:
                c = Candidate(wide, c.fpr, c.coverage)
            held = out.get(c.pattern)
            if held is None or c.fpr < held.fpr:
                out[c.pattern] = c
        return list(out.values())

    def classes_hold(self, general: str, specific: str) -> bool:
        """Each letter class ``specific`` narrows ``general``'s to is, as a pattern of whole columns, as safe in the
        lake as the class it replaces, within the FPR band (Eq. 5 applied to the classes themselves), or
        one of the two is in no lake column (no evidence against the narrower class)."""
        for narrow, wide in narrowed_letter_classes(general, specific):
            safe = self._safe_classes.get((narrow, wide))
            if safe is None:  # a handful of class pairs per index: kept for the solver's life
                a, b = self.lookup([narrow, wide])
                safe = self._safe_classes[(narrow, wide)] = a is None or b is None or a.fpr <= b.fpr + self.fpr_slack
            if not safe:
                return False
        return True

    def solve_columns(self, al: Alignment, s: int, e: int, r: float, m: int,
                      cap: float | None = None) -> tuple[Candidate | None, frozenset | None]:
        """Best pattern for aligned columns [s, e) of a query column before narrowing (the
        segmentation narrows its segments within what r leaves, see ``vertical.segmentations``), among
        those with FPR <= ``cap`` (r if None), and the layouts that lack them (None when every value
        has them: the segment is not optional)."""
        cands, absent, best, holds_from = self._solved(al, s, e, r, m)
        if cap is None or cap >= holds_from:
            return best, absent
        return choose(within(cands, cap), self.fpr_slack, 0.0), absent

    def column_candidates(self, al: Alignment, s: int, e: int, r: float,
                          m: int) -> tuple[list[Candidate], frozenset | None]:
        """The feasible candidates of aligned columns [s, e) (one literal for delimiters), and the
        layouts that lack them."""
        cands, absent, _, _ = self._solved(al, s, e, r, m)
        return cands, absent

    def _solved(self, al: Alignment, s: int, e: int, r: float, m: int) -> tuple:
        """Columns [s, e)'s candidates, absent layouts, uncapped choice, and the cap from which that
        choice stands (lowest FPR + slack: a cap at or above it keeps every candidate the choice ranks),
        kept on the alignment. A DP asks the same part under many caps, most of them above that cap:
        choosing once per part instead of per ask."""
        key = (s, e, r, m)
        hit = al.solved.get(key)
        if hit is None:
            cands, absent = self._column_candidates(al, s, e, r, m)
            limit = lowest_fpr(cands) + self.fpr_slack if cands else -math.inf
            hit = al.solved[key] = (cands, absent, choose(cands, self.fpr_slack, 0.0), limit)
        return hit

    def _column_candidates(self, al: Alignment, s: int, e: int, r: float,
                           m: int) -> tuple[list[Candidate], frozenset | None]:
        """``column_candidates`` before the alignment keeps them. Segments that every present layout
        fills (most of them) and that are narrow enough by the columns' widest parts are told from
        per-column bits (``Alignment.span``) without a per-layout range."""
        some, every, absent = al.span(s, e)
        if not some:
            return [], None
        tau = self.limits.tau
        present = None
        if some != every or not al.narrow_enough(s, e, tau):
            present = al.present(some, s, e)
            if some != every:
                # values of several layouts inside the segment: solved over their shapes. A layout's
                # groups share its labels, and with them their outlines: layouts whose outlines differ
                # share no template, told first and without visiting their groups (none of the 5,053
                # such segments of the slowest wide fits had a candidate; a GUID layout has hundreds)
                if not al.share_outline(present):
                    return [], absent
            for lay, i, j in present:  # a loop, not all() over a generator: compiled, a generator is an object
                if not lay.within(i, j, tau) and not self._windowed(lay.labels, i, j):
                    return [], absent  # too wide to be indexed
            if some != every:  # every part range is non-empty and within tau, checked above per layout
                parts = [(g, i, j) for lay, i, j in present for g in lay.groups]
                return self._candidates(parts, r, m, True), absent
        sigs, symbols = al.segment(s, e)
        if symbols:
            text = "".join(next(iter(sig[0]))[0] for sig in sigs)
            return [Candidate(escape_literal(text), 0.0, 0, literal=True)], absent
        key = (sigs, r, m)
        cands = self._feasible.get(key)
        if cands is None:
            if present is None:
                present = al.present(some, s, e)
            budget = self.limits.budget(max(lay.widest(i, j) for lay, i, j in present))
            hyps = hypotheses(lambda p, level: al.column(s + p, level), e - s, self.limits.max_constants, budget,
                              self._viable)
            cands = self.feasible(hyps or [], r, m)
            self._remember(key, cands, al.segment_bytes(s, e))
        return cands, absent

    def _windowed(self, labels: tuple, i: int, j: int) -> bool:
        """Parts i..j-1 span 2 to ``window_words`` words within tau parts (1 word suffices after a leading
        delimiter, when the index cuts such windows): the index holds such ranges as windows, where a word
        is one token (``lakeindex.patterns.windows``), so a range of multi-run words (``9B1E``: 4 tokens)
        too wide for whole values may still have evidence there."""
        words = sum(1 for kind, _ in labels[i:j] if kind == "w")
        least = 1 if self.limits.window_lead and labels[i][0] != "w" else 2
        return self.limits.window_edge > 0 and least <= words <= self.limits.window_words and j - i <= self.limits.tau

    def solve(self, parts: list[SegmentPart], r: float, m: int, cap: float | None = None) -> Candidate | None:
        """Best pattern for the sub-column made of ``parts`` among those with FPR <= ``cap`` (r if None;
        None if infeasible)."""
        return choose(within(self.candidates(parts, r, m), cap), self.fpr_slack, self.narrow_slack)

    def candidates(self, parts: list[SegmentPart], r: float, m: int) -> list[Candidate]:
        """All hypotheses of the sub-column with FPR <= r and coverage >= m."""
        tau = self.limits.tau
        for g, i, j in parts:
            if i >= j or g.tokens(i, j) > tau:
                return []  # a value with nothing in this segment, or too wide to be indexed
        return self._candidates(parts, r, m)

    def _candidates(self, parts: list[SegmentPart], r: float, m: int, outlined: bool = False) -> list[Candidate]:
        """``candidates`` of parts known to be non-empty and within tau (``outlined``: the caller found
        that their layouts share an outline)."""
        if not outlined:
            labels = {g.labels[i:j] for g, i, j in parts}
            if len(labels) > 1 and not share_outline([label_outlines(lab) for lab in labels]):
                return []  # values of several layouts that no template spells alike: skip the segment key
        seg = segment_key(parts)
        distinct = {sub for sub, _, _ in seg}
        if len(distinct) == 1:
            only = next(iter(distinct))
            if all(isinstance(p, str) for p in only):
                return [Candidate(escape_literal("".join(only)), 0.0, 0, literal=True)]
        key = (seg, r, m)
        cands = self._feasible.get(key)
        if cands is None:
            budget = self.limits.budget(max(g.tokens(i, j) for g, i, j in parts))
            hyps = segment_hypotheses(key[0], self.limits.max_constants, budget, self._viable)
            cands = self.feasible(hyps, r, m)
            self._remember(key, cands)
        return cands
