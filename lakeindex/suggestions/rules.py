"""Constraint-suggestion heuristics on column profiles (Deequ §3.3 and its rules package).

Each rule says whether it ``applies`` to a column profile and, if so, which constraint it ``suggest``s.
Bounds learned from a sample use the lower end of the 95% **Wilson score** interval of a Bernoulli
proportion, rounded *down* to two decimals: unlike the normal (Wald) approximation Deequ uses, it stays
inside [0, 1] and is not over-confident for proportions near 1 or small samples, and it always lies
below the observed proportion, so a suggestion holds on the data it was learned from.

Deviations from Deequ, all toward suggestions that hold on the data they were learned from:
- RetainCompletenessRule does not suggest a bound that rounds down to 0 (it would assert nothing).
- RetainTypeRule: the checks' ``has_data_type`` counts only values of exactly the named type, so for a
  Fractional column that also holds integers ("3", "3.5") it asserts the Wilson bound of the Fractional
  share instead of "all values" (which Deequ suggests, and which fails on that very data).
- The default uniqueness rule, UniqueIfUniqueRule, suggests ``is_unique`` only on an exact distinct count
  equal to the non-null count (``is_unique`` ignores nulls): the HLL estimate only picks the candidates.
  Deequ's UniqueIfApproximatelyUniqueRule stays available, not a default (it fails on data with a few repeats).
- The categorical rules measure coverage over the non-null values, as ``is_contained_in`` does.
- PositiveNumbersRule exists but is not a default (see its docstring); there is no min/max range rule:
  a sample's extremes are the first thing the next batch exceeds.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from lakeindex.suggestions.suggestion import Suggestion

if TYPE_CHECKING:
    from lakeindex.profiling import ColumnProfile, DatasetProfile

Z_95 = 1.959963984540054
CATEGORICAL_TYPES = ("String", "Integral")


def wilson_lower_bound(p: float, n: int, z: float = Z_95) -> float:
    """Lower end of the Wilson score interval for a proportion ``p`` observed on ``n`` trials."""
    if n <= 0:
        return 0.0
    z2 = z * z
    center = p + z2 / (2 * n)
    margin = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n))
    return max(0.0, (center - margin) / (1 + z2 / n))


def floor2(x: float) -> float:
    """``x`` rounded down to two decimals (the tiny epsilon only absorbs binary noise like 0.929999…)."""
    return max(0.0, math.floor(x * 100 + 1e-9) / 100)


def lower_bound(p: float, n: int, z: float = Z_95) -> float:
    """The bound a suggestion asserts: the Wilson lower bound rounded down to two decimals."""
    return floor2(wilson_lower_bound(p, n, z))


def fmt(x: float) -> str:
    """A ratio for descriptions: up to 4 significant digits."""
    return f"{x:.4g}"


def show_values(values: list[Any], limit: int = 10) -> str:
    """The first ``limit`` values for a description."""
    shown = ", ".join(repr(v) for v in values[:limit])
    return f"[{shown}{', …' if len(values) > limit else ''}]"


class ConstraintRule:
    """A heuristic: ``applies`` to a column profile, and ``suggest`` the constraint it implies."""

    description: ClassVar[str] = ""

    @property
    def name(self) -> str:
        """The rule's name in suggestions (its class name, as in Deequ)."""
        return type(self).__name__

    def applies(self, column: ColumnProfile, dataset: DatasetProfile) -> bool:  # pragma: no cover - abstract
        raise NotImplementedError

    def suggest(self, column: ColumnProfile, dataset: DatasetProfile) -> Suggestion:  # pragma: no cover
        raise NotImplementedError

    def _make(self, column: ColumnProfile, description: str, evidence: dict[str, Any], constraint_type: str,
              **params: Any) -> Suggestion:
        return Suggestion(column.column, self.name, description, evidence,
                          {"type": constraint_type, "column": column.column, **params})


@dataclass(frozen=True)
class CompleteIfCompleteRule(ConstraintRule):
    """A column without nulls in the data should stay complete: ``is_complete``."""

    description: ClassVar[str] = "If a column is complete in the sample, we suggest a NOT NULL constraint"

    def applies(self, column: ColumnProfile, dataset: DatasetProfile) -> bool:
        return column.num_records > 0 and column.completeness == 1.0

    def suggest(self, column: ColumnProfile, dataset: DatasetProfile) -> Suggestion:
        return self._make(column, f"'{column.column}' is not null: all {column.num_records} values are present",
                          {"completeness": 1.0, "num_records": column.num_records}, "is_complete")


@dataclass(frozen=True)
class RetainCompletenessRule(ConstraintRule):
    """An incomplete column keeps at least the lower confidence bound of its completeness: ``has_completeness``."""

    z: float = Z_95
    description: ClassVar[str] = ("If a column is incomplete in the sample, we model whether a value is present "
                                  "as a Bernoulli variable and suggest the lower end of its confidence interval "
                                  "as the minimum completeness")

    def bound(self, column: ColumnProfile) -> float:
        return lower_bound(column.completeness or 0.0, column.num_records, self.z)

    def applies(self, column: ColumnProfile, dataset: DatasetProfile) -> bool:
        p = column.completeness
        return p is not None and 0.0 < p < 1.0 and self.bound(column) > 0.0

    def suggest(self, column: ColumnProfile, dataset: DatasetProfile) -> Suggestion:
        p, n, bound = column.completeness or 0.0, column.num_records, self.bound(column)
        exact = wilson_lower_bound(p, n, self.z)
        return self._make(
            column, f"'{column.column}' has completeness {fmt(p)} ({column.num_non_null} of {n} values present); "
                    f"the 95% Wilson interval starts at {exact:.4f}, so we suggest at least {bound:.2f}",
            {"completeness": p, "num_non_null": column.num_non_null, "num_records": n, "wilson_lower": exact},
            "has_completeness", assertion=f">= {bound:.2f}")


@dataclass(frozen=True)
class RetainTypeRule(ConstraintRule):
    """A string column whose values are all numbers or booleans keeps that type: ``has_data_type``."""

    z: float = Z_95
    description: ClassVar[str] = "If we detect a non-string type in a string column, we suggest a type constraint"

    def share(self, column: ColumnProfile) -> float:
        nn = column.num_non_null
        return column.type_counts.get(column.data_type, 0) / nn if nn else 0.0

    def applies(self, column: ColumnProfile, dataset: DatasetProfile) -> bool:
        if not (column.is_data_type_inferred and column.data_type in ("Integral", "Fractional", "Boolean")):
            return False
        share = self.share(column)
        return share == 1.0 or lower_bound(share, column.num_non_null, self.z) > 0.0

    def suggest(self, column: ColumnProfile, dataset: DatasetProfile) -> Suggestion:
        t, nn, share = column.data_type, column.num_non_null, self.share(column)
        counts = {k: v for k, v in column.type_counts.items() if k != "Unknown" and v}
        evidence = {"data_type": t, "type_counts": counts, "num_non_null": nn}
        if share == 1.0:
            return self._make(column, f"'{column.column}' has data type {t}: all {nn} non-null values are {t}",
                              evidence, "has_data_type", type_name=t)
        bound = lower_bound(share, nn, self.z)  # a Fractional column with integers among its numbers
        return self._make(column, f"'{column.column}' has data type {t}: its {nn} non-null values are numbers "
                                  f"({', '.join(f'{v} {k}' for k, v in counts.items())}); {fmt(share)} are "
                                  f"written as {t}, 95% lower bound {bound:.2f}",
                          {**evidence, "share": share}, "has_data_type", type_name=t, assertion=f">= {bound:.2f}")


def approximately_unique(column: ColumnProfile) -> bool:
    """The HLL distinct count is within its error of the non-null count (``is_unique`` ignores nulls)."""
    nn = column.num_non_null
    return nn > 0 and abs(column.approx_distinct - nn) <= column.approx_distinct_error * nn


@dataclass(frozen=True)
class UniqueIfUniqueRule(ConstraintRule):
    """A column whose exact distinct count equals its non-null count: ``is_unique``. The HLL estimate only picks
    the candidates; ``ConstraintSuggestionRunner`` counts their distinct values exactly (one more pass)."""

    description: ClassVar[str] = ("If every non-null value of a column is distinct (an exact count, for columns the "
                                  "HLL sketch finds approximately unique), we suggest a UNIQUE constraint")

    def needs_exact_distinct(self, column: ColumnProfile) -> bool:
        """A key candidate whose distinct values have not been counted exactly."""
        return column.num_distinct is None and approximately_unique(column)

    def applies(self, column: ColumnProfile, dataset: DatasetProfile) -> bool:
        return column.num_non_null > 0 and column.num_distinct == column.num_non_null

    def suggest(self, column: ColumnProfile, dataset: DatasetProfile) -> Suggestion:
        nn = column.num_non_null
        return self._make(column, f"'{column.column}' is unique: its {nn} non-null values are all distinct "
                                  "(exact count)", {"num_distinct": column.num_distinct, "num_non_null": nn},
                          "is_unique")


@dataclass(frozen=True)
class UniqueIfApproximatelyUniqueRule(ConstraintRule):
    """Deequ's rule, not a default: a column whose HLL distinct count is within the sketch's error of its
    non-null count gets ``is_unique``, which can fail on the very data (a few repeats hide in the error)."""

    description: ClassVar[str] = ("If the ratio of non-null values to the approximate number of distinct values "
                                  "is within the error bound of the HLL sketch, we suggest a UNIQUE constraint")

    def applies(self, column: ColumnProfile, dataset: DatasetProfile) -> bool:
        nn = column.num_non_null
        if nn == 0:
            return False
        if column.histogram is not None:  # exact counts available: no approximation error
            return len(column.histogram) == nn
        return approximately_unique(column)

    def suggest(self, column: ColumnProfile, dataset: DatasetProfile) -> Suggestion:
        nn = column.num_non_null
        if column.histogram is not None:
            return self._make(column, f"'{column.column}' is unique: its {nn} non-null values are all distinct "
                                      "(exact count)", {"num_distinct": len(column.histogram), "num_non_null": nn},
                              "is_unique")
        return self._make(
            column, f"'{column.column}' is approximately unique: about {column.approx_distinct} distinct values for "
                    f"{nn} non-null values, within the HLL error of ±{column.approx_distinct_error:.1%}",
            {"approx_distinct": column.approx_distinct, "num_non_null": nn,
             "relative_error": column.approx_distinct_error}, "is_unique")


def _minimum(column: ColumnProfile) -> float | None:
    m = column.numeric.minimum if column.numeric is not None else None
    return None if m is None or math.isnan(m) else m


@dataclass(frozen=True)
class NonNegativeNumbersRule(ConstraintRule):
    """A numeric column whose minimum is at least 0: ``is_non_negative``."""

    description: ClassVar[str] = ("If we see only non-negative numbers in a column, we suggest a corresponding "
                                  "constraint")

    def applies(self, column: ColumnProfile, dataset: DatasetProfile) -> bool:
        m = _minimum(column)
        return m is not None and m >= 0.0

    def suggest(self, column: ColumnProfile, dataset: DatasetProfile) -> Suggestion:
        m = _minimum(column)
        return self._make(column, f"'{column.column}' has no negative values: its minimum is {m:g}",
                          {"minimum": m}, "is_non_negative")


@dataclass(frozen=True)
class PositiveNumbersRule(ConstraintRule):
    """Opt-in: minimum > 0 suggests ``is_positive``. Not a default: zero is a legal count or amount far more often
    than a sample without zeros shows, and ``is_non_negative`` already holds."""

    description: ClassVar[str] = "If we see only positive numbers in a column, we suggest a corresponding constraint"

    def applies(self, column: ColumnProfile, dataset: DatasetProfile) -> bool:
        m = _minimum(column)
        return m is not None and m > 0.0

    def suggest(self, column: ColumnProfile, dataset: DatasetProfile) -> Suggestion:
        m = _minimum(column)
        return self._make(column, f"'{column.column}' has only positive values: its minimum is {m:g}",
                          {"minimum": m}, "is_positive")


def category_values(column: ColumnProfile, keys: list[str]) -> list[Any]:
    """Histogram keys as the column's values: ints for typed integer columns, else the strings themselves."""
    if column.data_type == "Integral" and not column.is_data_type_inferred:
        return [int(k) for k in keys]
    return list(keys)


@dataclass(frozen=True)
class CategoricalRangeRule(ConstraintRule):
    """A low-cardinality column whose values all recur is categorical: ``is_contained_in`` its observed values."""

    max_distinct_ratio: float = 0.1
    max_singleton_ratio: float = 0.1
    description: ClassVar[str] = ("If we see a categorical range for a column, we suggest an IS IN (...) "
                                  "constraint")

    def applies(self, column: ColumnProfile, dataset: DatasetProfile) -> bool:
        hist, nn = column.histogram, column.num_non_null
        if not hist or nn == 0 or column.data_type not in CATEGORICAL_TYPES:
            return False
        singletons = sum(1 for c in hist.values() if c == 1)
        return len(hist) / nn <= self.max_distinct_ratio and singletons / len(hist) <= self.max_singleton_ratio

    def suggest(self, column: ColumnProfile, dataset: DatasetProfile) -> Suggestion:
        entries = column.histogram_by_popularity()
        values = category_values(column, [k for k, _ in entries])
        return self._make(column, f"'{column.column}' has value range {show_values(values)}: {len(values)} distinct "
                                  f"value{'s' if len(values) != 1 else ''} cover all {column.num_non_null} "
                                  "non-null values",
                          {"num_distinct": len(values), "num_non_null": column.num_non_null,
                           "histogram": dict(entries)}, "is_contained_in", values=values)


@dataclass(frozen=True)
class FractionalCategoricalRangeRule(ConstraintRule):
    """The most frequent values cover ≥ 90% (not all) of a column: ``is_contained_in`` them for at least the lower
    confidence bound of that share — the categorical range that does not fail on one rare new value."""

    target_coverage: float = 0.9
    max_distinct_ratio: float = 0.1
    max_singleton_ratio: float = 0.1
    z: float = Z_95
    description: ClassVar[str] = ("If we see a categorical range for most values in a column, we suggest an "
                                  "IS IN (...) constraint that should hold for most values")

    def top_values(self, column: ColumnProfile) -> tuple[list[str], int]:
        """The most frequent values until they cover ``target_coverage`` of the non-null values, and their count."""
        keys, covered = [], 0
        for k, c in column.histogram_by_popularity():
            if covered >= self.target_coverage * column.num_non_null:
                break
            keys.append(k)
            covered += c
        return keys, covered

    def applies(self, column: ColumnProfile, dataset: DatasetProfile) -> bool:
        nn = column.num_non_null
        if not column.histogram or nn == 0 or column.data_type not in CATEGORICAL_TYPES:
            return False
        if CategoricalRangeRule(self.max_distinct_ratio, self.max_singleton_ratio).applies(column, dataset):
            return False  # the full range is the better suggestion
        keys, covered = self.top_values(column)
        return (covered < nn and len(keys) / nn <= self.max_distinct_ratio
                and lower_bound(covered / nn, nn, self.z) > 0.0)

    def suggest(self, column: ColumnProfile, dataset: DatasetProfile) -> Suggestion:
        keys, covered = self.top_values(column)
        nn = column.num_non_null
        share = covered / nn
        bound = lower_bound(share, nn, self.z)
        values = category_values(column, keys)
        others = len(column.histogram or {}) - len(keys)
        return self._make(
            column, f"'{column.column}' has value range {show_values(values)} for {fmt(share)} of its {nn} non-null "
                    f"values ({others} rarer distinct value{'s' if others != 1 else ''} cover the rest); "
                    f"95% lower bound {bound:.2f}",
            {"coverage": share, "covered": covered, "num_non_null": nn, "num_distinct": len(column.histogram or {}),
             "top_values": {k: (column.histogram or {})[k] for k in keys}},
            "is_contained_in", values=values, assertion=f">= {bound:.2f}")


DEFAULT_RULES: tuple[ConstraintRule, ...] = (
    CompleteIfCompleteRule(), RetainCompletenessRule(), RetainTypeRule(), CategoricalRangeRule(),
    FractionalCategoricalRangeRule(), NonNegativeNumbersRule(), UniqueIfUniqueRule())
EXTENDED_RULES: tuple[ConstraintRule, ...] = (*DEFAULT_RULES, PositiveNumbersRule())
