"""Shared fixtures: one local SparkSession per test run and helpers to write small lakes."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("PYSPARK_PYTHON", os.sys.executable)
# commands the tests run start their own Spark, never a developer's running lakeindex engine
os.environ.setdefault("LAKEINDEX_ENGINE", "off")


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


@pytest.fixture(scope="module")
def index(tmp_path_factory):
    """A small pattern index where 2-letter lowercase codes and ORD- ids are common, selective domains
    (shared by the batch-validation and report tests)."""
    import random
    import string

    from lakeindex.index.local_build import build_from_columns

    rnd = random.Random(5)
    cols = []
    for _ in range(30):
        cols.append([rnd.choice(["us", "de", "fr", "jp", "br", "it", "es", "nl"]) for _ in range(50)])
        cols.append(["".join(rnd.choices(string.ascii_uppercase, k=5)) for _ in range(50)])
        cols.append([f"{rnd.randint(1, 999)}.{rnd.randint(10, 99)}" for _ in range(50)])
        cols.append([f"ORD-{rnd.randint(0, 99999999):08d}" for _ in range(50)])
    path = tmp_path_factory.mktemp("index") / "ix"
    build_from_columns(cols, path, min_coverage=2)
    return str(path)
