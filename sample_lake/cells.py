"""Cell values of a planned table: each column's domain or composite values, then its injected defects.

A table's cells depend only on ``(seed, table index)``, so any table can be regenerated on its own.
"""

from __future__ import annotations

import random

import numpy as np

from sample_lake.composites import composite_values
from sample_lake.defects import apply_holes, apply_shape
from sample_lake.domains import COMPOSITE, DOMAINS
from sample_lake.plan import ColumnPlan, TablePlan
from sample_lake.sampling import Ctx


def _base_values(col: ColumnPlan, g: Ctx, n: int) -> list[str]:
    if col.domain != COMPOSITE:
        return DOMAINS[col.domain].fn(g, n, col.variant)
    return composite_values(col.parts, col.sep, col.wrap, g, n)


def column_values(col: ColumnPlan, g: Ctx, n: int) -> list[str | None]:
    g.sequential = col.key
    values = apply_shape(col, g, _base_values(col, g, n))
    return apply_holes(col, g, values)


def table_data(plan: TablePlan, rows: int, seed: int) -> dict[str, list[str | None]]:
    """Cell values of one table, seeded by ``(seed, table index)`` only."""
    g = Ctx(np.random.default_rng([seed, plan.index]), random.Random(seed * 1_000_003 + plan.index))
    return {col.name: column_values(col, g, rows) for col in plan.columns}
