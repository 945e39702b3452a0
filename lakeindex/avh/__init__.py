"""Auto-Validate-by-History (AVH, Tu et al., KDD 2023): DQ programs for recurring pipelines, in numpy.

Pure Python/numpy/statsmodels: no Spark. Inputs are per-column feature dicts (one per clean past
batch, and one per synthetic DQ issue variant), so this package does not care how metrics are
computed. Example::

    program = learn_program("amount", history, issue_features, delta=0.001)
    program.to_dict()                          # explainable JSON
    program.check(history, new_batch_features)  # Verdict(passed, violations, ...)

Modules, one concept each: ``bounds`` (Props. 1-3), ``stationarity`` (Algorithms 4-5),
``constraints`` (Algorithm 3), ``selection`` (Algorithm 1), ``program`` (the conjunction and its
checker), ``learner`` (wiring, ``learn_program`` and the ``AVH`` estimator).
"""

from lakeindex.avh.bounds import (
    METRIC_BOUND_KINDS,
    BoundKind,
    beta_for_fpr,
    bound_kind_for,
    cantelli_fpr,
    chebyshev_fpr,
    clt_fpr,
    fpr_bound,
)
from lakeindex.avh.constraints import DEFAULT_K_GRID, MetricFit, RangeConstraint, SkipMetric, fit_metric, fit_metrics
from lakeindex.avh.learner import AVH, AVHLearner, candidate_recall, learn_program
from lakeindex.avh.program import AVHProgram, Clause, Verdict, Violation
from lakeindex.avh.selection import Selection, select_constraints
from lakeindex.avh.stationarity import StationarityResult, Transform, adf_pvalue, make_stationary

__all__ = [
    "AVH",
    "DEFAULT_K_GRID",
    "METRIC_BOUND_KINDS",
    "AVHLearner",
    "AVHProgram",
    "BoundKind",
    "Clause",
    "RangeConstraint",
    "MetricFit",
    "Selection",
    "SkipMetric",
    "StationarityResult",
    "Transform",
    "Verdict",
    "Violation",
    "adf_pvalue",
    "beta_for_fpr",
    "bound_kind_for",
    "candidate_recall",
    "cantelli_fpr",
    "chebyshev_fpr",
    "clt_fpr",
    "fit_metric",
    "fit_metrics",
    "fpr_bound",
    "learn_program",
    "make_stationary",
    "select_constraints",
]
