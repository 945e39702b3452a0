"""The Check builder (Deequ Table 1): chain constraints, each translated to a metric and an assertion; a check's result.

    Check("error", "orders").is_complete("id").is_unique("id").has_completeness("email", ">= 0.9")
        .is_contained_in("status", ["new", "paid"]).is_non_negative("amount").is_less_than("start", "end")
        .satisfies("amount < 1e6", "sane amounts").has_pattern("sku", r"^[A-Z]{3}-\\d{4}$")

Assertions are a callable or a textual bound (``">= 0.9"``, see ``assertion.py``); row-level
constraints default to ``== 1`` (all rows). Every method takes ``where=`` (a SQL filter) to restrict
it to some rows. Null handling: is_non_negative/is_positive/is_in_range/is_contained_in skip nulls
(completeness is its own constraint); comparisons of two columns treat a null side as a violation.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from lakeindex.checks import deequ_patterns
from lakeindex.checks.assertion import parse_assertion
from lakeindex.checks.constraint import AnomalyConstraint, Constraint, ConstraintResult, MetricConstraint
from lakeindex.checks.row_outcome import (
    NotNullOutcome,
    PatternOutcome,
    PredicateOutcome,
    RowOutcome,
    UniqueKeyOutcome,
    ValueOutcome,
)
from lakeindex.metrics import (
    ApproxCountDistinct,
    ApproxQuantile,
    ColumnCount,
    ColumnExists,
    Completeness,
    Compliance,
    Correlation,
    CountDistinct,
    CustomSql,
    DatasetMatch,
    DataType,
    Distinctness,
    DuplicateRowCount,
    Entropy,
    ExactQuantile,
    Histogram,
    InterquartileRange,
    KLLSketch,
    Kurtosis,
    Maximum,
    MaxLength,
    Mean,
    Minimum,
    MinLength,
    MutualInformation,
    PatternMatch,
    Range,
    RatioOfSums,
    Size,
    Skewness,
    StandardDeviation,
    Sum,
    Uniqueness,
    UniqueValueRatio,
    Variance,
    ZerosCount,
)
from lakeindex.metrics.analyzer import Analyzer
from lakeindex.metrics.equal_width import edges as equal_width_edges
from lakeindex.metrics.kll_distribution import BucketDistribution, KLLParameters
from lakeindex.sql_identifiers import col, quote_identifier

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

    from lakeindex.anomaly import AnomalyDetectionStrategy

AssertionLike = str | Callable[[Any], bool] | None
LEVELS = ("error", "warning")
DATA_TYPES = ("Integral", "Fractional", "Boolean", "String", "Numeric", "Null")  # Deequ's ConstrainableDataTypes


def sql_literal(value: Any) -> str:
    """A Spark SQL literal for a value from a user's list (strings escaped, never spliced raw)."""
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, int):
        return repr(value)
    if isinstance(value, float):  # repr gives nan/inf, which Spark SQL would read as column names
        return repr(value) if math.isfinite(value) else f"CAST('{value!r}' AS DOUBLE)"
    text = str(value).replace("\\", "\\\\").replace("'", "\\'")
    return f"'{text}'"


def _and(where: str | None, extra: str) -> str:
    return extra if not where else f"({where}) AND ({extra})"


_ANALYZERS = object()  # _add's default: name a constraint with its analyzer's filter


class Check:
    """A named group of constraints with a level: a failing check is an error or only a warning.

    Immutable, as Deequ's: every method returns a new Check with one more constraint and leaves this one
    as it was, so a base check can be extended in several ways (``base.is_complete("id")`` does not change
    ``base``; chain the calls or keep the result).
    """

    __slots__ = ("level", "description", "constraints")

    def __init__(self, level: str = "error", description: str = "",
                 constraints: Sequence[Constraint] = ()) -> None:
        level = level.lower()
        if level not in LEVELS:
            raise ValueError(f"check level must be one of {LEVELS}, got {level!r}")
        object.__setattr__(self, "level", level)
        object.__setattr__(self, "description", description)
        object.__setattr__(self, "constraints", tuple(constraints))

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"Check is immutable: its methods return a new Check (tried to set {name!r})")

    def __repr__(self) -> str:
        return f"Check({self.level!r}, {self.description!r}, {len(self.constraints)} constraints)"

    def __reduce__(self) -> tuple:  # pickle and copy rebuild through __init__ (attributes cannot be set)
        return Check, (self.level, self.description, self.constraints)

    def _with(self, constraint: Constraint) -> Check:
        return Check(self.level, self.description, (*self.constraints, constraint))

    def _add(self, analyzer: Analyzer, assertion: AssertionLike, description: str, default: str = "== 1",
             pick: Callable[[Any], Any] | None = None,
             violations: Callable[[DataFrame], DataFrame] | None = None, shown_where: Any = _ANALYZERS,
             row_level: RowOutcome | None = None) -> Check:
        a = parse_assertion(assertion, default)
        where = getattr(analyzer, "where", None) if shown_where is _ANALYZERS else shown_where
        if where:  # two constraints differing only in their (user's) filter must not share one name
            description = f"{description} where {where}"
        return self._with(MetricConstraint(analyzer, a, f"{description} {a}".strip() if assertion is not None
                                           else description, pick, violations, row_level))

    def add_constraint(self, constraint: Constraint) -> Check:
        """Add a custom constraint (any object implementing the Constraint interface)."""
        return self._with(constraint)

    # dataset size
    def has_size(self, assertion: AssertionLike, where: str | None = None) -> Check:
        return self._add(Size(where), assertion, "has_size")

    # schema
    def has_column_count(self, assertion: AssertionLike) -> Check:
        """Number of columns of the data (Deequ's hasColumnCount); read from the schema, no scan."""
        return self._add(ColumnCount(), assertion, "has_column_count")

    def has_column(self, column: str) -> Check:
        """The data has a top-level column of exactly this name (Deequ's ColumnExists), checked on the schema."""
        return self._add(ColumnExists(column), None, f"has_column({column})")

    # completeness
    def is_complete(self, column: str, where: str | None = None) -> Check:
        row = NotNullOutcome(column, where)
        return self._add(Completeness(column, where), None, f"is_complete({column})", violations=row.failing_rows,
                         row_level=row)

    def has_completeness(self, column: str, assertion: AssertionLike, where: str | None = None) -> Check:
        return self._add(Completeness(column, where), assertion, f"has_completeness({column})",
                         row_level=NotNullOutcome(column, where))

    def are_complete(self, columns: Sequence[str], where: str | None = None) -> Check:
        """Every row has all of ``columns`` (Deequ's areComplete)."""
        return self._present("are_complete", columns, " AND ", None, where)

    def have_completeness(self, columns: Sequence[str], assertion: AssertionLike, where: str | None = None) -> Check:
        """Fraction of rows where all of ``columns`` are non-null (Deequ's haveCompleteness)."""
        return self._present("have_completeness", columns, " AND ", assertion, where)

    def are_any_complete(self, columns: Sequence[str], where: str | None = None) -> Check:
        """Every row has at least one of ``columns`` (Deequ's areAnyComplete)."""
        return self._present("are_any_complete", columns, " OR ", None, where)

    def have_any_completeness(self, columns: Sequence[str], assertion: AssertionLike,
                              where: str | None = None) -> Check:
        """Fraction of rows where at least one of ``columns`` is non-null (Deequ's haveAnyCompleteness)."""
        return self._present("have_any_completeness", columns, " OR ", assertion, where)

    def _present(self, name: str, columns: Sequence[str], joiner: str, assertion: AssertionLike,
                 where: str | None) -> Check:
        cols = _cols(columns)
        predicate = joiner.join(f"{quote_identifier(c)} IS NOT NULL" for c in cols)
        return self._compliance(f"{name}({', '.join(cols)})", predicate, assertion, where)

    # uniqueness
    def is_unique(self, column: str | Sequence[str], where: str | None = None) -> Check:
        cols = _cols(column)
        return self._add(Uniqueness(cols, where), None, f"is_unique({', '.join(cols)})",
                         violations=_duplicates(cols, where), row_level=UniqueKeyOutcome(cols, where))

    def is_primary_key(self, column: str | Sequence[str], where: str | None = None) -> Check:
        cols = _cols(column)
        check = self
        for c in cols:
            check = check.is_complete(c, where)
        return check.is_unique(cols, where)

    def has_uniqueness(self, column: str | Sequence[str], assertion: AssertionLike, where: str | None = None) -> Check:
        cols = _cols(column)
        return self._add(Uniqueness(cols, where), assertion, f"has_uniqueness({', '.join(cols)})",
                         row_level=UniqueKeyOutcome(cols, where))

    def has_distinctness(self, column: str | Sequence[str], assertion: AssertionLike,
                         where: str | None = None) -> Check:
        cols = _cols(column)
        return self._add(Distinctness(cols, where), assertion, f"has_distinctness({', '.join(cols)})")

    def has_unique_value_ratio(self, column: str | Sequence[str], assertion: AssertionLike,
                               where: str | None = None) -> Check:
        cols = _cols(column)
        return self._add(UniqueValueRatio(cols, where), assertion, f"has_unique_value_ratio({', '.join(cols)})",
                         row_level=UniqueKeyOutcome(cols, where))

    def has_count_distinct(self, column: str | Sequence[str], assertion: AssertionLike,
                           where: str | None = None) -> Check:
        cols = _cols(column)
        return self._add(CountDistinct(cols, where), assertion, f"has_count_distinct({', '.join(cols)})")

    def has_number_of_distinct_values(self, column: str, assertion: AssertionLike, where: str | None = None) -> Check:
        """Deequ's hasNumberOfDistinctValues: the number of bins of the column's Histogram, so null counts as one
        value (the ``NullValue`` bin) when the column has nulls; ``CountDistinct`` counts non-null values only."""
        return self._add(Histogram(column, where=where), assertion, f"has_number_of_distinct_values({column})",
                         pick=lambda v: v["number_of_bins"])

    def has_duplicate_row_count(self, column: str | Sequence[str], assertion: AssertionLike,
                                where: str | None = None) -> Check:
        """Rows whose value (combination) of ``column`` occurs more than once (Deequ's DuplicateRowCount); no
        columns (``()``, Deequ's empty ``Seq``) means all columns of the data, e.g. ``((), "== 0")``."""
        cols = _cols(column)
        return self._add(DuplicateRowCount(cols, where), assertion,
                         f"has_duplicate_row_count({', '.join(cols) or '*'})", violations=_duplicates(cols, where))

    def has_approx_count_distinct(self, column: str, assertion: AssertionLike, where: str | None = None) -> Check:
        return self._add(ApproxCountDistinct(column, where), assertion, f"has_approx_count_distinct({column})")

    # consistency
    def has_data_type(self, column: str, type_name: str, assertion: AssertionLike = None,
                      where: str | None = None) -> Check:
        """Fraction of the non-null values having ``type_name`` (default: all of them).

        ``Numeric`` is Integral plus Fractional, as Deequ's. ``Null`` is the fraction of null values among
        all rows: the one type whose share of the non-null values would always be 0 (the other types divide
        by the non-null values, a deliberate difference from Deequ, which divides every type by all rows).
        """
        if type_name not in DATA_TYPES:
            raise ValueError(f"has_data_type: type must be one of {DATA_TYPES}, got {type_name!r}")
        members = {"Numeric": ("Integral", "Fractional")}.get(type_name, (type_name,))

        def pick(value: dict[str, Any]) -> float:
            types = value["types"]
            if type_name == "Null":
                return types["Unknown"]["ratio"]
            non_null = sum(t["absolute"] for name, t in types.items() if name != "Unknown")
            return sum(types[m]["absolute"] for m in members) / non_null if non_null else 0.0

        return self._add(DataType(column, where), assertion, f"has_data_type({column}, {type_name})", pick=pick)

    def has_consistent_type(self, column: str, assertion: AssertionLike = None, where: str | None = None) -> Check:
        """Largest fraction of the non-null values sharing one type (Table 1's hasConsistentType with the
        default ``== 1``, hasTypeConsistency with an assertion); all-null data has no type and fails."""

        def pick(value: dict[str, Any]) -> float:
            counts = [t["absolute"] for name, t in value["types"].items() if name != "Unknown"]
            total = sum(counts)
            if not total:
                raise ValueError("no non-null values: a type cannot be consistent")
            return max(counts) / total

        return self._add(DataType(column, where), assertion, f"has_consistent_type({column})", pick=pick)

    def is_non_negative(self, column: str, assertion: AssertionLike = None, where: str | None = None) -> Check:
        return self._compliance(f"is_non_negative({column})", _numeric_test(column, ">= 0"), assertion, where)

    def is_positive(self, column: str, assertion: AssertionLike = None, where: str | None = None) -> Check:
        return self._compliance(f"is_positive({column})", _numeric_test(column, "> 0"), assertion, where)

    def is_in_range(self, column: str, lower: float, upper: float, assertion: AssertionLike = None,
                    where: str | None = None) -> Check:
        test = _numeric_test(column, f"BETWEEN {sql_literal(float(lower))} AND {sql_literal(float(upper))}")
        return self._compliance(f"is_in_range({column}, {lower}, {upper})", test, assertion, where)

    def is_contained_in(self, column: str, values: Sequence[Any] | None = None, assertion: AssertionLike = None,
                        where: str | None = None, *, lower_bound: float | None = None,
                        upper_bound: float | None = None, include_lower_bound: bool = True,
                        include_upper_bound: bool = True) -> Check:
        """Fraction of the non-null values of ``column`` that are in ``values`` (default: all), or, Deequ's
        numeric form, between ``lower_bound`` and ``upper_bound`` (each bound included unless told not to)."""
        if values is None:
            return self._contained_in_range(column, lower_bound, upper_bound, include_lower_bound,
                                            include_upper_bound, assertion, where)
        if lower_bound is not None or upper_bound is not None:
            raise ValueError(f"is_contained_in({column}): give the allowed values or the bounds, not both")
        if isinstance(values, str | bytes):  # would silently allow its single characters
            raise ValueError(f"is_contained_in({column}): the allowed values must be a list, got {values!r}")
        if not values:
            raise ValueError(f"is_contained_in({column}): the allowed values are empty")
        c = quote_identifier(column)
        listed = ", ".join(sql_literal(v) for v in values)
        name = f"is_contained_in({column}, {list(values)[:10]}{'…' if len(values) > 10 else ''})"
        if all(isinstance(v, str) for v in values):
            predicate = _text_in(c, values)
        elif all(isinstance(v, int | float) and not isinstance(v, bool) and abs(v) <= 2 ** 53 for v in values):
            # numbers compare by value on any column type: a string column's "2.0" is 2, and text that
            # is no number is a violation, not Spark's ANSI cast error for the whole run
            predicate = f"COALESCE(TRY_CAST({c} AS DOUBLE) IN ({listed}), FALSE)"
        else:
            predicate = f"{c} IN ({listed})"
        return self._compliance(name, predicate, assertion, _and(where, f"{c} IS NOT NULL"), values_of=column,
                                shown_where=where)

    def _contained_in_range(self, column: str, lower: float | None, upper: float | None, include_lower: bool,
                            include_upper: bool, assertion: AssertionLike, where: str | None) -> Check:
        """The range form of is_contained_in: as the set form, nulls are left out and text that is no number
        is a violation (Deequ counts nulls as passing rows; the verdict of the default ``== 1`` is the same)."""
        if lower is None or upper is None:
            raise ValueError(f"is_contained_in({column}): give the allowed values, or both lower_bound and upper_bound")
        lo, hi = float(lower), float(upper)
        if math.isnan(lo) or math.isnan(hi) or lo > hi:
            raise ValueError(f"is_contained_in({column}): bounds {lower}, {upper} are not an interval")
        c = f"TRY_CAST({quote_identifier(column)} AS DOUBLE)"
        predicate = (f"{c} {'>=' if include_lower else '>'} {sql_literal(lo)} AND "
                     f"{c} {'<=' if include_upper else '<'} {sql_literal(hi)}")
        name = f"is_contained_in({column}, {'[' if include_lower else '('}{lo}, {hi}{']' if include_upper else ')'})"
        return self._compliance(name, predicate, assertion, _and(where, f"{quote_identifier(column)} IS NOT NULL"),
                                values_of=column, shown_where=where)

    def is_less_than(self, a: str, b: str, assertion: AssertionLike = None, where: str | None = None) -> Check:
        return self._compliance(f"is_less_than({a}, {b})",
                                f"{quote_identifier(a)} < {quote_identifier(b)}", assertion, where)

    def is_less_than_or_equal_to(self, a: str, b: str, assertion: AssertionLike = None,
                                 where: str | None = None) -> Check:
        return self._compliance(f"is_less_than_or_equal_to({a}, {b})",
                                f"{quote_identifier(a)} <= {quote_identifier(b)}", assertion, where)

    def is_greater_than(self, a: str, b: str, assertion: AssertionLike = None, where: str | None = None) -> Check:
        return self._compliance(f"is_greater_than({a}, {b})",
                                f"{quote_identifier(a)} > {quote_identifier(b)}", assertion, where)

    def is_greater_than_or_equal_to(self, a: str, b: str, assertion: AssertionLike = None,
                                    where: str | None = None) -> Check:
        return self._compliance(f"is_greater_than_or_equal_to({a}, {b})",
                                f"{quote_identifier(a)} >= {quote_identifier(b)}", assertion, where)

    def satisfies(self, predicate: str, name: str, assertion: AssertionLike = None,
                  where: str | None = None) -> Check:
        """Fraction of rows where the Spark SQL ``predicate`` is true (null counts as false)."""
        return self._compliance(f"satisfies({name})", predicate, assertion, where, label=name)

    def satisfies_if(self, condition: str, predicate: str, name: str, assertion: AssertionLike = None,
                     where: str | None = None) -> Check:
        """Fraction of the rows matching ``condition`` that also match ``predicate`` (Table 1's satisfiesIf).

        Rows where the condition is false or null are not counted; a null predicate counts as false.
        """
        return self._compliance(f"satisfies_if({name})", predicate, assertion, _and(where, condition), label=name,
                                shown_where=where)

    def _compliance(self, description: str, predicate: str, assertion: AssertionLike, where: str | None,
                    label: str | None = None, values_of: str | None = None, shown_where: Any = _ANALYZERS) -> Check:
        analyzer = Compliance(label or description, predicate, where)
        # values_of (is_contained_in): the column whose non-null values are judged; ``where`` then excludes its
        # nulls and ``shown_where`` is the user's filter, so in a row outcome its nulls pass, and the offending
        # samples are its values
        user_where = where if shown_where is _ANALYZERS else shown_where
        row = PredicateOutcome(predicate, user_where, values_of) if values_of else PredicateOutcome(predicate, where)
        return self._add(analyzer, assertion, description, shown_where=shown_where, row_level=row,
                         violations=_failing_values(row, values_of) if values_of else row.failing_rows)

    def has_pattern(self, column: str, pattern: str, assertion: AssertionLike = None, name: str | None = None,
                    where: str | None = None) -> Check:
        """Fraction of non-null values in which the (Java) regex is found: anchor it with ^…$ for a full match."""
        row = PatternOutcome(column, pattern, where)
        return self._add(PatternMatch(column, pattern, where), assertion, name or f"has_pattern({column}, {pattern})",
                         violations=_failing_values(row, column), row_level=row)

    def contains_email(self, column: str, assertion: AssertionLike = None, where: str | None = None) -> Check:
        """Fraction of non-null values containing an e-mail address (Deequ's containsEmail, its Patterns.EMAIL)."""
        return self.has_pattern(column, deequ_patterns.EMAIL, assertion, f"contains_email({column})", where)

    def contains_url(self, column: str, assertion: AssertionLike = None, where: str | None = None) -> Check:
        """Fraction of non-null values containing an http(s)/ftp URL (Deequ's containsURL, Patterns.URL)."""
        return self.has_pattern(column, deequ_patterns.URL, assertion, f"contains_url({column})", where)

    def contains_credit_card_number(self, column: str, assertion: AssertionLike = None,
                                    where: str | None = None) -> Check:
        """Fraction of non-null values containing a Visa/MasterCard/AMEX/Discover number (Deequ's
        containsCreditCardNumber: the digit layout only, no Luhn checksum)."""
        return self.has_pattern(column, deequ_patterns.CREDITCARD, assertion,
                                f"contains_credit_card_number({column})", where)

    def contains_social_security_number(self, column: str, assertion: AssertionLike = None,
                                        where: str | None = None) -> Check:
        """Fraction of non-null values containing a US social security number (Deequ's
        containsSocialSecurityNumber, Patterns.SOCIAL_SECURITY_NUMBER_US)."""
        return self.has_pattern(column, deequ_patterns.SOCIAL_SECURITY_NUMBER_US, assertion,
                                f"contains_social_security_number({column})", where)

    # statistics
    def has_min(self, column: str, assertion: AssertionLike, where: str | None = None,
                null_behavior: str = "ignore") -> Check:
        """Smallest non-null value; ``null_behavior="fail"`` counts a null as ``-inf`` and fails its row (Deequ's
        AnalyzerOptions NullBehavior.Fail)."""
        row_level = ValueOutcome(column, parse_assertion(assertion), where, null_behavior=null_behavior)
        return self._add(Minimum(column, where, null_behavior), assertion,
                         _with_nulls(f"has_min({column}", null_behavior), row_level=row_level)

    def has_max(self, column: str, assertion: AssertionLike, where: str | None = None,
                null_behavior: str = "ignore") -> Check:
        """Largest non-null value; ``null_behavior="fail"`` counts a null as ``+inf`` and fails its row."""
        row_level = ValueOutcome(column, parse_assertion(assertion), where, null_behavior=null_behavior)
        return self._add(Maximum(column, where, null_behavior), assertion,
                         _with_nulls(f"has_max({column}", null_behavior), row_level=row_level)

    def has_range(self, column: str, assertion: AssertionLike, where: str | None = None) -> Check:
        """Largest minus smallest non-null value (Deequ's Range analyzer)."""
        return self._add(Range(column, where), assertion, f"has_range({column})")

    def has_interquartile_range(self, column: str, assertion: AssertionLike, where: str | None = None) -> Check:
        """Exact third minus first quartile of the non-null values (Deequ's InterquartileRange analyzer)."""
        return self._add(InterquartileRange(column, where), assertion, f"has_interquartile_range({column})")

    def has_mean(self, column: str, assertion: AssertionLike, where: str | None = None) -> Check:
        return self._add(Mean(column, where), assertion, f"has_mean({column})")

    def has_sum(self, column: str, assertion: AssertionLike, where: str | None = None) -> Check:
        return self._add(Sum(column, where), assertion, f"has_sum({column})")

    def has_standard_deviation(self, column: str, assertion: AssertionLike, where: str | None = None) -> Check:
        return self._add(StandardDeviation(column, where), assertion, f"has_standard_deviation({column})")

    def has_variance(self, column: str, assertion: AssertionLike, where: str | None = None) -> Check:
        """Population variance of the non-null values (Deequ's hasVariance)."""
        return self._add(Variance(column, where), assertion, f"has_variance({column})")

    def has_skewness(self, column: str, assertion: AssertionLike, where: str | None = None) -> Check:
        """Population skewness of the non-null values (Deequ's Skewness; 0 for a constant column)."""
        return self._add(Skewness(column, where), assertion, f"has_skewness({column})")

    def has_kurtosis(self, column: str, assertion: AssertionLike, where: str | None = None) -> Check:
        """Population excess kurtosis of the non-null values (Deequ's Kurtosis; 0 for a normal distribution)."""
        return self._add(Kurtosis(column, where), assertion, f"has_kurtosis({column})")

    def has_zeros_count(self, column: str, assertion: AssertionLike, where: str | None = None) -> Check:
        """Number of non-null values equal to 0 (Deequ's ZerosCount)."""
        return self._add(ZerosCount(column, where), assertion, f"has_zeros_count({column})")

    def has_ratio_of_sums(self, numerator: str, denominator: str, assertion: AssertionLike,
                          where: str | None = None) -> Check:
        """sum(numerator) / sum(denominator) (Deequ's RatioOfSums; a zero denominator gives ±infinity)."""
        return self._add(RatioOfSums(numerator, denominator, where), assertion,
                         f"has_ratio_of_sums({numerator}, {denominator})")

    def has_min_length(self, column: str, assertion: AssertionLike, where: str | None = None,
                       null_behavior: str = "ignore") -> Check:
        """Length of the shortest string; a null is skipped (``ignore``), the length of ``""``
        (``empty_string``), or ``-inf`` and a failing row (``fail``), as Deequ's NullBehavior."""
        return self._add(MinLength(column, where, null_behavior), assertion,
                         _with_nulls(f"has_min_length({column}", null_behavior),
                         row_level=ValueOutcome(column, parse_assertion(assertion), where, length=True,
                                                null_behavior=null_behavior))

    def has_max_length(self, column: str, assertion: AssertionLike, where: str | None = None,
                       null_behavior: str = "ignore") -> Check:
        """Length of the longest string; nulls as in :meth:`has_min_length` (``fail``: ``+inf``)."""
        return self._add(MaxLength(column, where, null_behavior), assertion,
                         _with_nulls(f"has_max_length({column}", null_behavior),
                         row_level=ValueOutcome(column, parse_assertion(assertion), where, length=True,
                                                null_behavior=null_behavior))

    def has_approx_quantile(self, column: str, quantile: float, assertion: AssertionLike,
                            where: str | None = None, relative_error: float = 0.01) -> Check:
        """A KLL-sketched quantile; ``relative_error`` bounds its rank error (Deequ's default 0.01)."""
        shown = "" if relative_error == 0.01 else f", relative_error={relative_error}"  # names stay unique
        return self._add(ApproxQuantile(column, quantile, where, relative_error), assertion,
                         f"has_approx_quantile({column}, {quantile}{shown})")

    def has_exact_quantile(self, column: str, quantile: float, assertion: AssertionLike,
                           where: str | None = None) -> Check:
        """Spark's exact ``percentile`` of the non-null values (Deequ's hasExactQuantile)."""
        return self._add(ExactQuantile(column, quantile, where), assertion, f"has_exact_quantile({column}, {quantile})")

    def has_entropy(self, column: str, assertion: AssertionLike, where: str | None = None) -> Check:
        return self._add(Entropy(column, where), assertion, f"has_entropy({column})")

    def has_mutual_information(self, a: str, b: str, assertion: AssertionLike, where: str | None = None) -> Check:
        return self._add(MutualInformation((a, b), where), assertion, f"has_mutual_information({a}, {b})")

    def has_correlation(self, a: str, b: str, assertion: AssertionLike, where: str | None = None) -> Check:
        return self._add(Correlation(a, b, where), assertion, f"has_correlation({a}, {b})")

    def has_histogram_values(self, column: str, assertion: Callable[[dict[str, Any]], bool],
                             max_bins: int = 1000, where: str | None = None, bin_count: int | None = None,
                             sum_column: str | None = None, frequencies_as_ratio: bool = True,
                             bins: Sequence[float] | None = None,
                             bin_range: tuple[float, float] | None = None) -> Check:
        """``assertion`` receives ``{value: {"absolute": n, "ratio": r}}`` (nulls as ``NullValue``). With
        ``bin_count`` the keys are equal-width bins ``[a, b)`` from the data's min to its max, the last ``[a, b]``;
        with ``bin_count`` and ``bin_range=(lo, hi)`` the bins are fixed from lo to hi, and values outside fall
        into the overflow bins ``(-inf, lo)`` and ``[hi, inf)``; ``bins`` are custom edges with those overflow
        bins too (Deequ's HistogramBinned customEdges would count such values as NullValue). With ``sum_column``
        the values are sums of that column; ``frequencies_as_ratio=False`` puts the absolute value in ``ratio``."""
        if not callable(assertion):  # a textual bound cannot judge a histogram: it would always fail
            raise ValueError(f"has_histogram_values({column}): the assertion must be a callable taking the bins "
                             f"{{value: {{'absolute': n, 'ratio': r}}}}, got {assertion!r}")
        edges = _histogram_edges(column, bins, bin_count, bin_range)
        if edges is not None:
            bin_count = None
        options = {"bin_count": bin_count, "sum_column": sum_column, "frequencies_as_ratio": frequencies_as_ratio}
        defaults = {"bin_count": None, "sum_column": None, "frequencies_as_ratio": True}
        shown = "".join(f", {k}={v}" for k, v in options.items() if v != defaults[k])  # names stay unique
        if edges is not None:
            shown += f", bins={list(edges)}"
        return self._add(Histogram(column, bins=edges, max_bins=max_bins, where=where, **options), assertion,
                         f"has_histogram_values({column}{shown})", pick=lambda v: v["bins"])

    def kll_sketch_satisfies(self, column: str, assertion: Callable[[BucketDistribution], bool],
                             kll_parameters: KLLParameters | None = None, where: str | None = None) -> Check:
        """Deequ's kllSketchSatisfies: ``assertion`` receives the column's :class:`BucketDistribution` (equal-width
        buckets between min and max counted from a KLL sketch, see :mod:`lakeindex.metrics.kll_distribution`),
        e.g. ``lambda d: d[d.argmax()].low_value >= 0`` or ``lambda d: d.compute_percentiles()[49] < 100``."""
        if not callable(assertion):  # a textual bound cannot judge a distribution; JSON checks files cannot carry one
            raise ValueError(f"kll_sketch_satisfies({column}): the assertion must be a callable taking a "
                             f"BucketDistribution (a Python checks file can give one; JSON cannot), got {assertion!r}")
        analyzer = KLLSketch(column, kll_parameters, where)
        params = analyzer.kll_parameters
        shown = "" if params == KLLParameters() else f", {params}"  # names stay unique per parameters
        return self._add(analyzer, assertion, f"kll_sketch_satisfies({column}{shown})",
                         pick=BucketDistribution.from_value)

    # custom SQL
    def custom_sql(self, statement: str, assertion: AssertionLike) -> Check:
        """The number a Spark SQL query returns (Deequ's customSql); the query names the data ``{table}``, e.g.
        ``custom_sql("SELECT count(*) FROM {table} WHERE amount < 0", "== 0")``. Only a query runs, never a
        command (see :mod:`lakeindex.metrics.custom_sql`); it must return one row with one numeric column."""
        if assertion is None:  # Deequ requires one; a default would read the number as a ratio
            raise ValueError("custom_sql: give an assertion on the number the statement returns, e.g. '== 0'")
        return self._add(CustomSql(statement), assertion, f"custom_sql({statement})")

    # reference data
    def does_dataset_match(self, other: DataFrame | str, key_column_mappings: Mapping[str, str],
                           assertion: AssertionLike, match_column_mappings: Mapping[str, str] | None = None,
                           reference_name: str | None = None) -> Check:
        """Share of the rows with an equal row in the reference ``other`` (Deequ's doesDatasetMatch): rows paired
        by ``key_column_mappings`` (data column to reference column; unique keys, same row counts), compared on
        ``match_column_mappings`` (default: every non-key column under its own name). ``other`` is a DataFrame
        or a dataset path read when the check runs; ``reference_name`` names it in the metric's spec (default:
        the path, or ``"reference"``). The assertion defaults to ``== 1``. See
        :mod:`lakeindex.metrics.dataset_match`."""
        analyzer = DatasetMatch(other, key_column_mappings, match_column_mappings, reference_name)
        match = "" if analyzer.match_column_mappings is None else f", match={dict(analyzer.match_column_mappings)}"
        return self._add(analyzer, assertion,
                         f"does_dataset_match({analyzer.reference}, keys={dict(analyzer.key_column_mappings)}{match})")

    # time
    def has_no_anomalies(self, analyzer: Analyzer, strategy: AnomalyDetectionStrategy,
                         tags: Mapping[str, str] | None = None, after: int | None = None,
                         before: int | None = None) -> Check:
        """The metric must not be anomalous against its history in the suite's metrics repository.

        The history is every earlier result of the dataset (Deequ's default) unless ``tags`` selects one
        series, e.g. ``{"region": "eu"}`` when several pipelines write the same dataset name. ``after`` and
        ``before`` (epoch ms) keep the results with ``after <= time < before``, e.g. to drop results older
        than a schema migration or to leave out a known bad period.
        """
        if tags is not None and not (isinstance(tags, Mapping)
                                     and all(isinstance(k, str) and isinstance(v, str) for k, v in tags.items())):
            raise TypeError(f"tags must map tag names to string values, got {tags!r}")
        for name, bound in (("after", after), ("before", before)):
            if bound is not None and (isinstance(bound, bool) or not isinstance(bound, int)):
                raise TypeError(f"{name} must be a timestamp in epoch milliseconds (an int), got {bound!r}")
        if after is not None and before is not None and after >= before:
            raise ValueError(f"has_no_anomalies: after ({after}) must be earlier than before ({before}); "
                             "the history would be empty")
        shown = [f"tags={dict(tags)}"] if tags else []
        shown += [f"{n}={b}" for n, b in (("after", after), ("before", before)) if b is not None]
        label = f"has_no_anomalies({', '.join([analyzer.spec(), *shown])})"
        return self._with(AnomalyConstraint(analyzer, strategy, label, dict(tags) if tags else None, after, before))

    def analyzers(self) -> list[Analyzer]:
        return [a for c in self.constraints for a in c.analyzers()]


@dataclass
class CheckResult:
    """One check's status and its constraints' results."""

    check: Check
    status: str
    constraint_results: list[ConstraintResult]

    def to_dict(self) -> dict[str, Any]:
        return {"description": self.check.description, "level": self.check.level, "status": self.status,
                "constraints": [c.to_dict() for c in self.constraint_results]}


def _cols(column: str | Sequence[str]) -> tuple[str, ...]:
    return (column,) if isinstance(column, str) else tuple(column)


def _numeric_test(column: str, test: str) -> str:
    """``column <test>`` on the numeric value, nulls passing; strings are parsed (try_cast: no ANSI error)."""
    c = quote_identifier(column)
    return f"{c} IS NULL OR TRY_CAST({c} AS DOUBLE) {test}"


def _failing_values(row: RowOutcome, column: str) -> Callable[[DataFrame], DataFrame]:
    """The offending values of ``column`` with their counts, most frequent first: the rows ``row`` fails."""
    def query(df: DataFrame) -> DataFrame:
        from pyspark.sql import functions as F

        c = col(column)
        return row.failing_rows(df).groupBy(c.alias("value")).count().orderBy(F.col("count").desc())
    return query


def _duplicates(cols: tuple[str, ...], where: str | None) -> Callable[[DataFrame], DataFrame]:
    def query(df: DataFrame) -> DataFrame:
        from pyspark.sql import functions as F

        if where:
            df = df.where(where)
        keys = [col(c) for c in cols or df.columns]  # no columns: all of them (DuplicateRowCount)
        # as Uniqueness does, rows whose key columns are all null are not values (completeness judges them)
        df = df.where(functools.reduce(lambda a, b: a | b, [k.isNotNull() for k in keys]))
        return df.groupBy(*keys).count().where(F.col("count") > 1).orderBy(F.col("count").desc())
    return query


def _histogram_edges(column: str, bins: Sequence[float] | None, bin_count: int | None,
                     bin_range: tuple[float, float] | None) -> tuple[float, ...] | None:
    """The fixed bin edges of a histogram check: custom ``bins``, or ``bin_count`` equal bins over ``bin_range``."""
    if bin_range is None:
        if bins is not None and bin_count is not None:
            raise ValueError(f"has_histogram_values({column}): give bins (custom edges) or bin_count, not both")
        return None if bins is None else tuple(float(b) for b in bins)
    if bins is not None or bin_count is None:
        raise ValueError(f"has_histogram_values({column}): bin_range needs bin_count (equal bins from lo to hi) "
                         "and no bins")
    try:
        lo, hi = (float(x) for x in bin_range)
    except (TypeError, ValueError):
        raise ValueError(f"has_histogram_values({column}): bin_range must be (lo, hi), got {bin_range!r}") from None
    if isinstance(bin_count, bool) or not isinstance(bin_count, int) or bin_count < 1:
        raise ValueError(f"has_histogram_values({column}): bin_count must be a positive integer, got {bin_count!r}")
    if not (math.isfinite(lo) and math.isfinite(hi) and lo < hi):
        raise ValueError(f"has_histogram_values({column}): bin_range needs finite lo < hi, got {bin_range!r}")
    return tuple(equal_width_edges(lo, hi, bin_count))


def _with_nulls(opened: str, null_behavior: str) -> str:
    """A constraint's name, closed, naming a null behavior other than the default (names stay unique)."""
    return f"{opened})" if null_behavior == "ignore" else f"{opened}, null_behavior={null_behavior})"


# Spark's CSV schema inference (check's default read) types time and timestamp text as timestamps; the
# allowed values, text as suggest read them, are then compared as the column's type would read them
_TEMPORAL = (("timestamp", "TIMESTAMP"), ("timestamp_ntz", "TIMESTAMP_NTZ"), ("date", "DATE"))


def _text_in(column: str, values: Sequence[str]) -> str:
    """SQL: the (quoted) ``column``'s value is one of the text ``values``; on a date or timestamp column each
    value is read as that type first (text that is no such value matches nothing)."""
    listed = ", ".join(sql_literal(v) for v in values)
    branches = " ".join(
        f"WHEN '{name}' THEN CAST({column} AS STRING) IN "
        f"({', '.join(f'CAST(TRY_CAST({sql_literal(v)} AS {sql}) AS STRING)' for v in values)})"
        for name, sql in _TEMPORAL)
    return f"COALESCE(CASE typeof({column}) {branches} ELSE CAST({column} AS STRING) IN ({listed}) END, FALSE)"
