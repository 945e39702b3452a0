"""Columns of a multi-part table, merged part file by part file into bounded per-column summaries.

A table written by Spark or Hive is a directory of part files (``orders/part-00000-….parquet``,
``events/date=2024-01-01/part-0.csv``: :mod:`lakeindex.lake.tables`). Its column is *one*
column D of the lake: indexing each part as a table of its own would count the column once per part in
Cov_T(p) and average its impurity over slices (a part that happens to hold only ``ACTIVE`` would make
``ACTIVE`` look like a domain). The build therefore sends every part of a table to one task, in path
order, and folds each part's distinct values (with counts, from Arrow) into a summary per column:

* narrow values (at most tau tokens) with their weights, summed exactly while the column has at most
  ``MERGE_DISTINCT`` distinct values. Beyond that the summary is cut back to ``MERGE_DISTINCT`` values
  by priority sampling (:mod:`lakeindex.patterns.sampling`, the sampling the enumeration itself applies
  with 128 values), with the estimates rounded to integers by largest remainders, so their sum, |D|,
  stays exact. Later parts add exact counts to the values kept. The enumeration then samples 128 of
  these, so a column of more than ``MERGE_DISTINCT`` distinct values is estimated either way;
* wide values given apart for windows: each part gives its ``MERGE_DISTINCT`` heaviest, the
  summary keeps as many (ties broken by a hash of the value) and counts the others, and the
  ``MAX_WINDOWED_VALUES`` heaviest of it are cut into windows, as a single file's scan gives them;
* the number of other wide values, and the cells read.

Memory per task: ``2 * MERGE_DISTINCT`` narrow and as many wide values per column of the table (plus
one part file, as for any file), whatever the number of parts. While a column has at most
``MERGE_DISTINCT`` distinct narrow and wide values, the summary equals the column of a single file
holding all the parts, so the index is the same (``tests/test_part_tables.py``, ``bench/part_tables.py``).
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable
from dataclasses import dataclass, field

from lakeindex.patterns.sampling import apportion, priority_sample, value_hash
from lakeindex.patterns.windows import MAX_WINDOWED_VALUES

MERGE_DISTINCT = 4096  # distinct narrow (and wide) values a merged column keeps exactly: 32x the enumeration sample


def heaviest(items: Iterable[tuple[str, int]], k: int) -> list[tuple[str, int]]:
    """The ``k`` heaviest (value, weight) pairs, ties broken by a hash of the value (as windows rank)."""
    return heapq.nsmallest(k, items, key=lambda vw: (-vw[1], value_hash(vw[0])))


@dataclass
class MergedColumn:
    """One column's summary over the parts seen so far (module docstring)."""

    narrow: dict[str, int] = field(default_factory=dict)
    wide_listed: dict[str, int] = field(default_factory=dict)
    wide_unlisted: int = 0
    cells: int = 0

    def add(self, values: list[str], counts: list[int], wide: int, wide_values: list[str],
            wide_counts: list[int], rows: int) -> None:
        """Fold one part's distinct values into the summary (``scan.column_values``'s five results)."""
        narrow = self.narrow
        for v, n in zip(values, counts, strict=True):
            narrow[v] = narrow.get(v, 0) + n
        if len(narrow) > MERGE_DISTINCT:
            total = sum(narrow.values())
            kept, est = priority_sample(list(narrow), list(narrow.values()), MERGE_DISTINCT)
            self.narrow = apportion(kept, est, total)
        listed = self.wide_listed
        for v, n in zip(wide_values, wide_counts, strict=True):
            listed[v] = listed.get(v, 0) + n
        self.wide_unlisted += wide
        if len(listed) > MERGE_DISTINCT:
            keep = heaviest(listed.items(), MERGE_DISTINCT)
            self.wide_unlisted += sum(listed.values()) - sum(n for _, n in keep)
            self.wide_listed = dict(keep)
        self.cells += rows

    def wide_given(self) -> tuple[list[str], list[int], int]:
        """The wide values to cut into windows (the ``MAX_WINDOWED_VALUES`` heaviest, as a single
        file's scan gives them), their weights, and the weight of the other wide values."""
        keep = heaviest(self.wide_listed.items(), MAX_WINDOWED_VALUES)
        rest = sum(self.wide_listed.values()) - sum(n for _, n in keep)
        return [v for v, _ in keep], [n for _, n in keep], self.wide_unlisted + rest
