"""Constraint suggestion (Deequ §3.3): profile a DataFrame in at most three passes, then apply heuristic rules.

    result = ConstraintSuggestionRunner().on_data(df).run()
    for s in result.suggestions: print(s.code, "#", s.description)
    json.dump(result.to_check_json(), open("checks.json", "w"))   # lakeindex.checks.load_checks reads it

Suggestions are a starting point for a human to review (the paper's "human-in-the-loop"): they hold on the
profiled data, not necessarily on future data (a unique column in a sample may repeat later).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from lakeindex.profiling import ColumnProfiler, DatasetProfile
from lakeindex.suggestions.rules import DEFAULT_RULES, ConstraintRule
from lakeindex.suggestions.suggestion import DEFAULT_CHECK_DESCRIPTION, Suggestion, suggestions_to_check_json

if TYPE_CHECKING:
    from pyspark.sql import DataFrame


def count_key_candidates(df: DataFrame, profile: DatasetProfile, rules: Iterable[ConstraintRule]) -> None:
    """Count exactly, in one more pass, the distinct values of the columns a rule needs them for (key candidates
    the HLL sketch finds approximately unique and without a histogram)."""
    wanted = [c.column for c in profile for r in rules if getattr(r, "needs_exact_distinct", None)
              and r.needs_exact_distinct(c)]
    if not wanted:
        return
    from pyspark.sql import functions as F

    from lakeindex.sql_identifiers import col

    names = list(dict.fromkeys(wanted))
    row = df.agg(*[F.count_distinct(col(n)).alias(f"d{i}") for i, n in enumerate(names)]).first()
    for i, n in enumerate(names):
        profile[n].exact_distinct = int(row[f"d{i}"])
    profile.passes += 1


def suggest_constraints(profile: DatasetProfile, rules: Iterable[ConstraintRule] = DEFAULT_RULES) -> list[Suggestion]:
    """Every suggestion of every applicable rule, column by column (in the profile's order), rules in order."""
    rules = list(rules)
    return [rule.suggest(column, profile) for column in profile for rule in rules if rule.applies(column, profile)]


@dataclass
class ConstraintSuggestionResult:
    """The profile and the constraints suggested from it."""

    profile: DatasetProfile
    suggestions: list[Suggestion]

    def to_check_json(self, level: str = "error", description: str = DEFAULT_CHECK_DESCRIPTION) -> dict[str, Any]:
        """The suggestions as a checks-file document (see ``suggestions_to_check_json``)."""
        return suggestions_to_check_json(self.suggestions, level, description)

    def to_dict(self, include_profile: bool = False) -> dict[str, Any]:
        """JSON-able form: row count, passes, suggestions, and the full profile if asked for."""
        out: dict[str, Any] = {"num_records": self.profile.num_records, "passes": self.profile.passes,
                               "suggestions": [s.to_dict() for s in self.suggestions]}
        if include_profile:
            out["profile"] = self.profile.to_dict()
        return out


class ConstraintSuggestionRunner:
    """Builder: ``ConstraintSuggestionRunner().on_data(df).restrict_to_columns([...]).run()``."""

    def __init__(self) -> None:
        self.data: DataFrame | None = None
        self.columns: list[str] | None = None
        self.low_cardinality_threshold = 120
        self.rules: list[ConstraintRule] | None = None
        self.pattern_index: Any = None
        self.pattern_sample = 0

    def on_data(self, df: DataFrame) -> ConstraintSuggestionRunner:
        """The data to profile."""
        self.data = df
        return self

    def restrict_to_columns(self, columns: Sequence[str]) -> ConstraintSuggestionRunner:
        """Profile and suggest for these columns only (fewer aggregates; the number of passes stays the same)."""
        self.columns = list(columns)
        return self

    def with_low_cardinality_threshold(self, threshold: int) -> ConstraintSuggestionRunner:
        """Columns with at most this many (approximate) distinct values get a full histogram."""
        self.low_cardinality_threshold = threshold
        return self

    def add_constraint_rule(self, rule: ConstraintRule) -> ConstraintSuggestionRunner:
        """Use this rule; once any rule is added, only the added rules run (default: ``DEFAULT_RULES``)."""
        self.rules = [*(self.rules or []), rule]
        return self

    def add_constraint_rules(self, rules: Iterable[ConstraintRule]) -> ConstraintSuggestionRunner:
        """Use these rules (see ``add_constraint_rule``)."""
        for rule in rules:
            self.add_constraint_rule(rule)
        return self

    def with_pattern_index(self, index: Any, sample_values: int | None = None) -> ConstraintSuggestionRunner:
        """Also suggest ``has_pattern`` for text columns, with FMDV-VH rules learned against this pattern index
        (a path or an open reader) from a bounded sample of each column: one more Spark job
        (:mod:`lakeindex.suggestions.pattern_rules`)."""
        from lakeindex.suggestions.pattern_rules import SAMPLE_VALUES

        self.pattern_index = index
        self.pattern_sample = sample_values or SAMPLE_VALUES
        return self

    def run(self) -> ConstraintSuggestionResult:
        """Profile the data (at most three passes, one more to count key candidates' distinct values exactly, and
        a bounded sample with a pattern index) and apply the rules to the profile."""
        if self.data is None:
            raise ValueError("no data: call on_data(df) first")
        profile = ColumnProfiler(self.low_cardinality_threshold, self.columns).profile(self.data)
        rules = self.rules if self.rules is not None else DEFAULT_RULES
        count_key_candidates(self.data, profile, rules)
        suggestions = suggest_constraints(profile, rules)
        if self.pattern_index is not None:
            from lakeindex.suggestions.pattern_rules import pattern_suggestions, profile_patterns

            suggestions += pattern_suggestions(profile_patterns(self.data, profile, self.pattern_index,
                                                                self.pattern_sample))
        return ConstraintSuggestionResult(profile, suggestions)
