"""Tables of Spark's catalog (a Hive metastore, or any catalog configured with ``--conf``) as lake tables.

``--table db.orders`` or ``--tables 'db.*'`` name tables by the catalog instead of by path, so a lake need not
be a directory at all. Each table is resolved by Spark (``DESCRIBE TABLE EXTENDED``: its location and
provider), then read like a table of a directory lake from its location (:mod:`lakeindex.lake.tables`):
a Delta or Iceberg location by its live snapshot, any other by its data files under the location, in
``key=value`` partition directories whose keys are columns. Views and temporary tables hold no files of
their own and are skipped with that reason.
"""

from __future__ import annotations

import fnmatch
from dataclasses import replace
from typing import TYPE_CHECKING

from lakeindex.lake.listing import lake_uri, relative_table
from lakeindex.lake.read_errors import error_line
from lakeindex.lake.table_model import (
    DELTA,
    DIRECTORY,
    FILE,
    ICEBERG,
    LakeTable,
    TableFile,
    TableListing,
    partition_values,
)
from lakeindex.lake.tables import list_tables

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


def matching_tables(spark: SparkSession, pattern: str) -> list[str]:
    """Qualified names (``db.name``) of the catalog's tables matching ``db.glob`` (``glob`` alone: the
    current database), temporary views left out."""
    db, _, glob = pattern.rpartition(".")
    found = spark.catalog.listTables(db) if db else spark.catalog.listTables()
    return sorted(f"{t.namespace[-1] if t.namespace else db}.{t.name}" if (t.namespace or db) else t.name
                  for t in found if not t.isTemporary and fnmatch.fnmatchcase(t.name, glob))


def describe(spark: SparkSession, name: str) -> dict[str, str]:
    """The detailed table information Spark's catalog gives (``Location``, ``Provider``, ``Type``, ...)."""
    rows = spark.sql(f"DESCRIBE TABLE EXTENDED {_quoted(name)}").collect()
    return {r.col_name.strip(): (r.data_type or "").strip() for r in rows if r.col_name}


def _quoted(name: str) -> str:
    return ".".join(f"`{part.replace('`', '``')}`" for part in name.split("."))


def catalog_tables(spark: SparkSession, names: list[str], patterns: list[str]) -> TableListing:
    """The named tables and those matching ``patterns``, resolved to their files; the names and patterns
    that resolve to nothing are skipped with the reason."""
    out = TableListing()
    wanted = list(names)
    for pattern in patterns:
        try:
            matched = matching_tables(spark, pattern)
        except Exception as exc:  # noqa: BLE001 - a missing database comes as an AnalysisException
            out.skipped.append({"file": pattern, "reason": f"cannot list the catalog: {error_line(exc)}"})
            continue
        if not matched:
            out.skipped.append({"file": pattern, "reason": "no table of the catalog matches"})
        wanted += matched
    for name in dict.fromkeys(wanted):
        try:
            table = catalog_table(spark, name)
        except CatalogTableError as exc:
            out.skipped.append({"file": name, "reason": str(exc)})
            continue
        if table.files:
            out.tables.append(table)
        else:
            out.skipped.append({"file": name, "reason": f"{table.format} table with no data files"})
    return out


class CatalogTableError(ValueError):
    """A catalog table that cannot be read from files; the message says why."""


def catalog_table(spark: SparkSession, name: str) -> LakeTable:
    """One catalog table as a lake table named ``name``, read from its location."""
    try:
        info = describe(spark, name)
    except Exception as exc:  # noqa: BLE001 - Spark raises AnalysisException for an unknown table
        raise CatalogTableError(f"not a table of the catalog: {error_line(exc)}") from exc
    if info.get("Type", "").upper() == "VIEW":
        raise CatalogTableError("a view: index the tables it reads")
    location = info.get("Location")
    if not location:
        raise CatalogTableError(f"no location in the catalog (provider {info.get('Provider') or 'unknown'})")
    root = lake_uri(location)
    found = list_tables(spark, root)
    formats = {t.format for t in found.tables}
    if formats & {DELTA, ICEBERG}:
        tables = [t for t in found.tables if t.format in (DELTA, ICEBERG) and t.location.rstrip("/") == root]
        if len(tables) != 1:
            raise CatalogTableError(f"{location} holds {len(found.tables)} tables, not one")
        return replace(tables[0], name=name)
    if found.skipped and not found.tables:
        raise CatalogTableError("; ".join(f"{s['file']}: {s['reason']}" for s in found.skipped[:5]))
    # every data file under the location is this table's, whatever its name
    files = sorted(TableFile(f.path, f.length, f.mtime, partition_values(relative_table(f.path, root)))
                   for t in found.tables if t.format in (FILE, DIRECTORY) for f in t.files)
    keys = {tuple(k for k, _ in f.partition) for f in files}
    if len(keys) > 1:
        raise CatalogTableError(f"partition directories of different keys under {location}")
    return LakeTable(name, DIRECTORY, tuple(files), keys.pop() if keys else (), location=root)
