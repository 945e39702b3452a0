"""Pattern language of Auto-Validate (SIGMOD 2021, §2.1): tokens, hierarchy, patterns, P(v).

See :mod:`lakeindex.patterns.hierarchy` for the generalization hierarchy,
:mod:`lakeindex.patterns.tokens` for tokenization, :mod:`lakeindex.patterns.pattern` for the
canonical string form, regex conversion and matching, and :mod:`lakeindex.patterns.enumerate`
for the enumeration of P(v) and of per-column pattern counts (the index build's hot loop).
"""

from lakeindex.patterns.enumerate import ColumnPatterns, EnumerationLimits, column_patterns, value_patterns
from lakeindex.patterns.hierarchy import token_generalizations
from lakeindex.patterns.pattern import PatternError, compiled, matches, parse, to_regex
from lakeindex.patterns.tokens import analyze, tokenize

__all__ = [
    "ColumnPatterns", "EnumerationLimits", "PatternError", "analyze", "column_patterns", "compiled",
    "matches", "parse", "to_regex", "token_generalizations", "tokenize", "value_patterns",
]
