"""Pattern rules learned against the whole lake (FMDV-VH over the pattern index) as ``has_pattern`` constraints.

A bounded sample of each text column (``SAMPLE_VALUES`` non-null values, one Spark job for all columns) is
fitted with :class:`lakeindex.fmdv.infer.AutoValidator`; a feasible rule becomes ``has_pattern(column, regex,
">= bound")`` with the rule's evidence: its pattern, expected FPR and coverage in the lake's index, and the
index version it was learned from. No other tool calibrates a column's regex against a whole lake.

The bound: a static check cannot run the paper's two-sample test, so it asks that at least ``1 - allowance``
of the values match, with allowance = max(2 θ_C, 3 / n): twice the sample's non-conforming fraction θ_C
(horizontal cuts keep a few ad-hoc values), and never below the "rule of three" 3/n, the upper 95% bound of a
rate never seen in n values, so a clean column does not fail on its first stray value. Rounded down to 4
digits. ``validate-batch --index`` runs the statistical test instead.
"""

from __future__ import annotations

import math
from contextlib import nullcontext
from typing import TYPE_CHECKING, Any

from lakeindex.sql_identifiers import col
from lakeindex.suggestions.suggestion import Suggestion

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

    from lakeindex.fmdv.rule import Rule
    from lakeindex.profiling.profile import DatasetProfile

SAMPLE_VALUES = 1000
RULE_NAME = "PatternRule"


def text_columns(profile: DatasetProfile) -> list[str]:
    """Columns whose values are text (not numbers or booleans): the ones a pattern can describe."""
    return [c.column for c in profile if c.data_type in ("String", "Unknown") and not c.is_numeric
            and c.num_non_null > 0]


def sample_columns(df: DataFrame, columns: list[str], rows: int, n: int = SAMPLE_VALUES) -> dict[str, list[str]]:
    """Up to ``n`` non-null values of each column as text (typed values in their canonical text), from one
    bounded Spark job (a seeded row sample of about 3n rows when the data has more, so the values are not
    just the first file's); a nested column has none."""
    if not columns:
        return {}
    from lakeindex.lake.rendering import sample_text

    picked = df.select(*[col(c).alias(f"c{i}") for i, c in enumerate(columns)])
    if rows > 3 * n:
        picked = picked.sample(fraction=min(1.0, 3.0 * n / rows), seed=17)
    table = picked.limit(3 * n).toArrow()  # at most 3n rows of the chosen columns reach the driver
    # typed values get the canonical text the index build gives them
    return {c: sample_text(table.column(f"c{i}"), n) for i, c in enumerate(columns)}


def allowance(rule: Rule) -> float:
    """The share of non-matching values the suggested bound tolerates (see the module docstring)."""
    return max(2.0 * rule.train_nonconforming_fraction, 3.0 / rule.train_size) if rule.train_size else 1.0


def rule_evidence(rule: Rule) -> dict[str, Any]:
    """What backs a rule, as a suggestion's ``current_value`` and in ``profile`` output."""
    return {"pattern": rule.pattern, "regex": rule.regex, "fpr": rule.fpr, "coverage": rule.coverage,
            "index_version": rule.index_version, "sample_values": rule.train_size,
            "nonconforming_in_sample": rule.train_nonconforming}


def infer_rules(samples: dict[str, list[str]], index: Any) -> dict[str, Rule]:
    """The FMDV-VH rule of each sampled column (infeasible rules included: their ``reason`` says why)."""
    from lakeindex.fmdv.infer import AutoValidator
    from lakeindex.index.store import IndexReader

    with IndexReader(index) if isinstance(index, str) else nullcontext(index) as ix:
        return {c: AutoValidator(ix).fit(values).rule_ for c, values in samples.items() if values}


def profile_patterns(df: DataFrame, profile: DatasetProfile, index: Any, n: int = SAMPLE_VALUES) -> dict[str, Rule]:
    """Rules of the profile's text columns; each column's profile gets its rule's evidence (or the reason there is
    none) as ``pattern``, and the profile counts the sampling job as one more pass."""
    rules = infer_rules(sample_columns(df, text_columns(profile), profile.num_records, n), index)
    for column, rule in rules.items():
        profile[column].pattern = rule_evidence(rule) if rule.feasible else {"pattern": None, "reason": rule.reason}
    if rules:
        profile.passes += 1
    return rules


def pattern_suggestions(rules: dict[str, Rule]) -> list[Suggestion]:
    """``has_pattern`` suggestions for the feasible rules, in column order."""
    out = []
    for column, rule in rules.items():
        if not rule.feasible:
            continue
        bound = math.floor((1.0 - allowance(rule)) * 10_000) / 10_000
        if bound <= 0:
            continue
        out.append(Suggestion(
            column, RULE_NAME,
            f"'{column}' follows the lake-calibrated pattern {rule.pattern} (expected FPR {rule.fpr:.4g} over "
            f"{rule.coverage} indexed columns): suggest that at least {bound:g} of its values match",
            rule_evidence(rule),
            {"type": "has_pattern", "column": column, "pattern": rule.regex,  # anchored: ^...$
             "assertion": f">= {bound:g}"}))
    return out
