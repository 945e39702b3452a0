"""Online inference of validation patterns from the index (Auto-Validate §2.3-4).

``AutoValidator(index, method).fit(values)`` (:mod:`~lakeindex.fmdv.infer`) checks its parameters,
makes one :class:`~lakeindex.fmdv.rule_search.RuleSearch` for the fit, runs it, and keeps the result as
``rule_``; ``validate`` tests a later batch against that rule. The search is one recursion, all of it
in ``rule_search.py``:

    run(column)                         a sample of <= 32 distinct values first, the column if its rule fails
      column(counts)                    the first search; the second where it finds no rule (Mode)
        solve(values, depth, cap, mode) a rule within FPR cap, memoised per (values, depth, mode, cap)
          aligned(...)                  FMDV[-V][-H] on the values as they align: vertical.py, horizontal.py
          joined(...)                   words joined by a symbol only some values hold: repetition.joined_rule
          composite(...)                where neither has a rule, and depth < MAX_DEPTH:
            repetition.repetition_rule    lists: ITEM<rep>SEP ITEM</rep>{k,}, with a head and a tail
            records.record_rule           records: FIELD SEP FIELD ..., optionally a last field (second search)
              part(column, depth+1, budget, mode)   each item, head, tail or field column ...
                solve(...)                          ... solved as a column of its own, within what the
                                                    other parts left of the cap (Eq. 8's sum)

The two searches differ only by their :class:`~lakeindex.fmdv.rule_search.Mode`: the second lets a
record's last field be optional and takes parts before narrowing; it shares the first one's aligned
results. Everything a fit memoises lives on its ``RuleSearch`` and goes with it.

Where the paper is computed:

* P(v), the generalisation hierarchy (§2.1, Fig. 4): ``lakeindex/patterns/hierarchy.py`` and
  ``templates.py``; ``patterns/enumerate.py`` (``value_patterns``, per-column counts for the build).
* Definitions 3-7, Eq. 1-4 (Imp_D, FPR_D, FPR_T) and Cov_T: the index build, ``ColumnPatterns.impurity``
  in ``patterns/enumerate.py``, summed by ``index/scan.py`` and divided out by ``fpr`` in
  ``index/format.py``; read back through ``SegmentSolver.lookup`` (``search.py``).
* H(C) = the intersection of P(v) over C (§2.3): ``hypotheses.py``, per aligned part.
* FMDV, Eq. 5-7: ``search.py``. ``SegmentSolver.feasible`` keeps FPR <= r (Eq. 6) and coverage >= m
  (Eq. 7); ``choose`` takes the minimum FPR (Eq. 5), ties within ``fpr_slack`` going to the most
  specific pattern (one holding no other in its language, then ``Candidate.rank``), then narrows
  within ``narrow_slack``; letter classes the index cannot tell from wider ones follow the lake's
  whole columns (``SegmentSolver._evidenced``).
* FMDV-V, Definition 2 and Eq. 8-11 (§3): ``alignment.py`` aligns the values' tokens;
  ``vertical.segmentations`` is the DP that minimises the sum of segment FPRs (Eq. 8) within r (Eq. 9),
  each segment's coverage >= m (Eq. 10), reaching Eq. 11's optimum; ``SegmentSolver.solve_columns``
  solves one segment.
* FMDV-H, Eq. 12-16 (§4): ``horizontal.py``, the greedy cut (``horizontal``) and the paper's own
  covering hypotheses (``covering_candidates``), combined in ``RuleSearch._with_covering``.
* The test of a new batch: ``drift.py`` (by default a Beta-binomial test whose prior comes from the
  index; the paper's §4 Fisher's exact test or chi-squared on request).
* Beyond the paper: lists and joined words (``repetition.py``) and records (``records.py``), cut at
  separators (``split.py``), their FPRs summed as Eq. 8 sums segments'; rules as JSON (``rule.py``).
"""
