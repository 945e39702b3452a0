"""Inference of validation rules: FMDV, FMDV-V, FMDV-H and FMDV-VH behind a fit/validate API.

    validator = AutoValidator(IndexReader("index"), method="fmdv-vh").fit(train_values)
    validator.rule_.to_dict()          # the learned rule
    validator.validate(new_values)     # the test of a future batch (``drift.py``)

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

from lakeindex.fmdv.column import MAX_SKELETONS, is_structured, memo_skeleton
from lakeindex.fmdv.drift import validate
from lakeindex.fmdv.rule import DEFAULT_TEST, METHODS, Rule, Segment
from lakeindex.fmdv.rule_search import RuleSearch
from lakeindex.fmdv.search import SegmentSolver
from lakeindex.fmdv.signs import release_signs, release_size, signed_share
from lakeindex.index.store import IndexReader
from lakeindex.patterns import pattern as pattern_module
from lakeindex.runtime.gc_freeze import freeze_survivors

DEFAULT_R = 0.1
DEFAULT_THETA = 0.1
DEFAULT_ALPHA = 0.01


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
        self.sample = sample  # solve a wide column on a sample of its values first (``RuleSearch.run``)

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

    def _search(self) -> RuleSearch:
        """A new search for one fit, with the parameters resolved (``_prepare``): the fit's memos live in it."""
        self._prepare()
        return RuleSearch(self.solver_, self.method, self.r, self.m_, self.theta, self.sample)

    def fit(self, values: list[str]) -> AutoValidator:
        """Infer the rule for ``values`` (training column C); stored in ``rule_``."""
        search = self._search()
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
            found = search.run(Counter(values))
        finally:
            del search  # the fit's memos go before the collector's survivors are frozen
            if self.solver_.freeze_gc:
                freeze_survivors()
        result = found.segmentation
        if result is None and not is_structured(values, 1 - (self.theta if horizontal_cut else 0.0),
                                                structure=memo_skeleton()):
            rule.reason = f"values share no token structure (more than {MAX_SKELETONS} skeletons): free text?"
        elif result is None:
            rule.reason = (f"no pattern consistent with the values meets FPR <= {self.r} and coverage >= {self.m_}"
                           + (f" after cutting up to {self.theta:.0%} of values" if horizontal_cut else ""))
        else:
            segments = [Segment(c.pattern, c.fpr, c.coverage, c.literal) for _, _, c in result.segments]
            nonconforming = found.nonconforming  # the sample's rule was matched against every value already
            limits = self.solver_.limits
            if rule.train_size < release_size(signed_share(self.solver_), self.alpha, 1 / limits.min_share):
                released = release_signs(segments)  # too few values to rule out a sign (``signs``)
                if released is not None:
                    segments, nonconforming = released, None
            length = sum(len(s.pattern) for s in segments)
            if length > pattern_module.MAX_PATTERN_LENGTH:
                # a rule the service could not read back (nor a client post): wide values without a list or
                # record structure, whose segments add up; say so instead of failing on our own output
                rule.reason = (f"the rule would be {length:,} characters long, over the "
                               f"{pattern_module.MAX_PATTERN_LENGTH:,} a pattern may have")
                return self
            rule.feasible = True
            rule.segments = segments
            rule.train_nonconforming = nonconforming if nonconforming is not None \
                else sum(rule.nonconforming(values).values())
        return self

    def validate(self, values: list[str], test: str = DEFAULT_TEST) -> dict:
        """Validate a future batch C' against the fitted rule."""
        if getattr(self, "rule_", None) is None:
            raise RuntimeError("call fit() first")
        return validate(self.rule_, values, self.alpha, test)

