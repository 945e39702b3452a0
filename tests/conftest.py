"""Shared fixtures: one local SparkSession per test run and helpers to write small lakes."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("PYSPARK_PYTHON", os.sys.executable)


@pytest.fixture(scope="session")
def spark():
    from lakeindex.spark_session import get_spark

    session = get_spark("local[2]", app_name="lakeindex-tests",
                        extra={"spark.sql.shuffle.partitions": "2", "spark.default.parallelism": "2",
                               "spark.driver.memory": "2g"})
    yield session
    session.stop()


def write_csv(path: Path, header: list[str], rows: list[list[str]], sep: str = ",") -> Path:
    """Write a small delimited file (values must not contain the separator)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join([sep.join(header)] + [sep.join(r) for r in rows]) + "\n", encoding="utf-8")
    return path
