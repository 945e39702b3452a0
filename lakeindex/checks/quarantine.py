"""Quarantine: the rows some check fails, with their row-level results, written as Parquet all or nothing.

A row is quarantined when at least one check's row-level column (see :mod:`lakeindex.checks.row_level_results`)
is FALSE, whatever the check's level: the written rows carry every row-level column, so a reader sees which
checks and constraints each row failed. Rows a check does not judge (NULL) are not quarantined. Spark writes
a temporary sibling directory, which is renamed to the target once complete
(:func:`lakeindex.atomic_publish.publish_directory`): a reader sees no directory or the whole one.
"""

from __future__ import annotations

import functools
import operator
import shutil
import uuid
from pathlib import Path
from typing import TYPE_CHECKING

from lakeindex.atomic_publish import publish_directory
from lakeindex.sql_identifiers import col

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

    from lakeindex.checks.verification import VerificationResult


def failing_rows(result: VerificationResult, data: DataFrame) -> DataFrame:
    """The rows of ``data`` that some check's row-level column marks FALSE, with all row-level columns (lazy)."""
    from pyspark.sql import functions as F

    rows = result.row_level_results(data)
    checks = [c.name for c in result.row_level_columns(data) if c.constraint is None]
    if not checks:
        return rows.limit(0)
    return rows.where(functools.reduce(operator.or_, [~F.coalesce(col(name), F.lit(True)) for name in checks]))


def check_target(out: str | Path) -> Path:
    """``out`` as a new local directory to write: a ValueError if it exists or its parent does not."""
    target = Path(out)
    if target.exists():
        raise ValueError(f"quarantine target {str(target)!r} already exists: remove it or choose a new directory")
    if not target.parent.is_dir():
        raise ValueError(f"quarantine target {str(target)!r}: its parent directory does not exist; create it first")
    return target


def write_quarantine(rows: DataFrame, out: str | Path) -> int:
    """Write ``rows`` as Parquet into the new directory ``out``, atomically; the number of rows written."""
    target = check_target(out)
    tmp = target.with_name(f".tmp-{uuid.uuid4().hex}-{target.name}")
    try:
        rows.write.parquet(tmp.resolve().as_uri())
        publish_directory(tmp, target)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return rows.sparkSession.read.parquet(target.resolve().as_uri()).count()  # from the Parquet footers
