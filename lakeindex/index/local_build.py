"""Index builds without Spark, from columns already in memory: for tests and small corpora.

Uses the executor code of the Spark job (:func:`lakeindex.index.scan.add_column`), so both
builds produce the same keys and values for the same columns.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Iterable
from pathlib import Path

from lakeindex import __version__
from lakeindex.index.format import IMPURITY_SCALE, pack
from lakeindex.index.scan import add_column
from lakeindex.index.store import VersionBuilder, read_meta, write_sst
from lakeindex.patterns.enumerate import EnumerationLimits


def build_from_columns(columns: Iterable[list[str]], out: Path | str, limits: EnumerationLimits | None = None,
                       min_coverage: int = 2, source: str = "in-memory columns") -> dict:
    """Index the given columns (each a list of values; empty strings are ignored); return metadata."""
    t0 = time.time()
    limits = limits or EnumerationLimits()
    acc: dict[str, list[int]] = {}
    ncols = ncells = 0
    for values in columns:
        ncols += 1
        ncells += len(values)
        counts = Counter(v for v in values if v)
        if counts:
            add_column(acc, list(counts), list(counts.values()), limits)
    builder = VersionBuilder(out)
    try:
        write_sst(builder.new_sst_path(), ((k.encode(), pack(*acc[k])) for k in sorted(acc, key=str.encode)
                                           if acc[k][1] >= min_coverage))
        builder.publish({"lakeindex_version": __version__, "lake": source, "limits": limits.to_dict(),
                         "min_coverage": min_coverage, "impurity_scale": IMPURITY_SCALE, "tables_scanned": ncols,
                         "columns_scanned": ncols, "cells_scanned": ncells, "skipped_files": [], "issues": [],
                         "build_seconds": round(time.time() - t0, 3),
                         "built_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())})
    except BaseException:
        builder.abort()
        raise
    return read_meta(out)
