"""Column names quoted for Spark SQL, so names with dots, spaces, backticks or any Unicode stay one column.

``F.col("a.b")`` would read field ``b`` of a struct ``a``; a backtick-quoted name (inner backticks
doubled) is taken literally, in SQL text (``where`` predicates, ``expr``) and in ``F.col`` alike.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pyspark.sql import Column


def quote_identifier(name: str) -> str:
    """``name`` as a Spark SQL identifier: wrapped in backticks, inner backticks doubled."""
    return "`" + name.replace("`", "``") + "`"


def col(name: str) -> Column:
    """A reference to the column called exactly ``name`` (``F.col`` of the quoted identifier)."""
    from pyspark.sql import functions as F

    return F.col(quote_identifier(name))
