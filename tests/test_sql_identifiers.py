"""One quoting of column names for Spark SQL: dots, spaces, backticks and Unicode select exactly one column."""

from __future__ import annotations

import pytest

from lakeindex.sql_identifiers import col, quote_identifier

NAMES = {  # name -> its Spark SQL identifier, written out by hand
    "amount": "`amount`",
    "order.id": "`order.id`",
    "unit price": "`unit price`",
    "a`b": "`a``b`",
    "``": "``````",
    "größe €": "`größe €`",
    "列名": "`列名`",
}


@pytest.mark.parametrize(("name", "quoted"), NAMES.items())
def test_quote_identifier_by_hand(name: str, quoted: str) -> None:
    assert quote_identifier(name) == quoted


def test_quoted_names_select_their_own_column_in_spark(spark) -> None:
    names = list(NAMES)
    df = spark.createDataFrame([tuple(range(i * 10, i * 10 + len(names))) for i in range(1, 3)], names)
    for j, name in enumerate(names):
        assert [r[0] for r in df.select(col(name)).collect()] == [10 + j, 20 + j], name
        assert df.where(f"{quote_identifier(name)} = {20 + j}").count() == 1, name  # the same text in SQL
        assert df.select(col(name)).columns == [name]


def test_a_dotted_name_is_the_column_not_a_struct_field(spark) -> None:
    df = spark.createDataFrame([((1,), 2)], "a struct<b: int>, `a.b` int")
    from pyspark.sql import functions as F

    assert df.select(F.col("a.b")).first()[0] == 1  # unquoted: field b of struct a
    assert df.select(col("a.b")).first()[0] == 2  # quoted: the column called "a.b"
