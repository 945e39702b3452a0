"""Constraint suggestion (Deequ §3.3): heuristic rules over a column profile, as Check code or checks-file JSON."""

from lakeindex.suggestions.rules import (
    DEFAULT_RULES,
    EXTENDED_RULES,
    CategoricalRangeRule,
    CompleteIfCompleteRule,
    ConstraintRule,
    FractionalCategoricalRangeRule,
    NonNegativeNumbersRule,
    PositiveNumbersRule,
    RetainCompletenessRule,
    RetainTypeRule,
    UniqueIfApproximatelyUniqueRule,
    UniqueIfUniqueRule,
    wilson_lower_bound,
)
from lakeindex.suggestions.suggest import ConstraintSuggestionResult, ConstraintSuggestionRunner, suggest_constraints
from lakeindex.suggestions.suggestion import Suggestion, suggestions_to_check_json

__all__ = [
    "DEFAULT_RULES", "EXTENDED_RULES", "CategoricalRangeRule", "CompleteIfCompleteRule", "ConstraintRule",
    "ConstraintSuggestionResult", "ConstraintSuggestionRunner", "FractionalCategoricalRangeRule",
    "NonNegativeNumbersRule", "PositiveNumbersRule", "RetainCompletenessRule", "RetainTypeRule", "Suggestion",
    "UniqueIfApproximatelyUniqueRule", "UniqueIfUniqueRule", "suggest_constraints", "suggestions_to_check_json",
    "wilson_lower_bound",
]
