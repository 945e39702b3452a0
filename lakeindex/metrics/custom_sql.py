"""CustomSql (Deequ's ``CustomSql`` analyzer): the single numeric cell of a Spark SQL query over the data.

The data is registered as a temporary view under a fresh name for the query's duration, and the statement
names it ``{table}`` (``SELECT count(*) FROM {table} WHERE amount < 0``); Deequ instead expects the user to
have registered a view, which a statement here may still name. A unique name, rather than a fixed one such
as ``data``, never replaces a view of the user's and cannot collide with a concurrent run in the same
session. The statement runs only in Spark, wrapped as a subquery (``SELECT * FROM (<statement>)``) so that
it parses as one query: a command such as ``DROP TABLE`` or ``INSERT`` is a parse error, not executed.

The result must be exactly one row and one column holding a number (integer, floating point or decimal);
anything else fails the metric with the reason. The metric has no mergeable state (the sum Deequ's state
merge takes is wrong for most statements), so with stored states (``aggregate_with``) it fails, see
:class:`~lakeindex.metrics.analyzer.QueryAnalyzer`.
"""

from __future__ import annotations

import decimal
import uuid
from dataclasses import dataclass
from typing import TYPE_CHECKING

from lakeindex.metrics.analyzer import MetricError, QueryAnalyzer
from lakeindex.metrics.metric import Metric

if TYPE_CHECKING:
    from pyspark.sql import DataFrame
    from pyspark.sql.types import StructType

TABLE = "{table}"  # how a statement names the data


@dataclass(frozen=True)
class CustomSql(QueryAnalyzer):
    """The number a Spark SQL ``statement`` over ``{table}`` (the data) returns in its one row and column."""

    statement: str

    def preconditions(self, schema: StructType) -> None:
        if not isinstance(self.statement, str) or not self.statement.strip().rstrip(";").strip():
            raise MetricError(f"{self.spec()}: the statement must be a non-empty SQL query")

    def query(self, view: str) -> str:
        """The statement with ``{table}`` naming ``view``, wrapped so that only a query can run."""
        body = self.statement.strip().rstrip(";").replace(TABLE, f"`{view}`")
        return f"SELECT * FROM (\n{body}\n) AS __lakeindex_custom_sql"

    def metric_from_data(self, data: DataFrame) -> Metric:
        """Run the statement on ``data`` and take its single cell as the metric."""
        from lakeindex.metrics.runner import failed_metric_reason

        spark = data.sparkSession
        view = f"__lakeindex_custom_sql_{uuid.uuid4().hex}"
        data.createOrReplaceTempView(view)
        try:
            result = spark.sql(self.query(view))
            columns = result.columns
            rows = result.limit(2).collect() if len(columns) == 1 else []
        except Exception as exc:  # noqa: BLE001 - Spark raises many types (parse, analysis, runtime)
            return self.failure(f"{self.spec()}: the statement failed: {failed_metric_reason(exc)}")
        finally:
            spark.catalog.dropTempView(view)
        if len(columns) != 1:
            return self.failure(f"{self.spec()}: the statement must return one column, got {len(columns)} "
                                f"({', '.join(columns)})")
        if len(rows) != 1:
            got = "no rows" if not rows else "more than one row"
            return self.failure(f"{self.spec()}: the statement must return exactly one row, got {got}")
        value = rows[0][0]
        if value is None:
            return self.failure(f"{self.spec()}: the statement returned NULL, not a number")
        if isinstance(value, bool) or not isinstance(value, int | float | decimal.Decimal):
            return self.failure(f"{self.spec()}: the statement returned {value!r} "
                                f"({type(value).__name__}), not a number")
        return self.success(float(value))
