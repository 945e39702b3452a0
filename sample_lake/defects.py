"""Injected defects: ad-hoc special tokens, nulls, and constant or low-cardinality columns.

The rates below are drawn per non-key column by the lake plan (key columns stay clean);
:func:`apply_shape` and :func:`apply_holes` apply a planned column's defects to its values.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sample_lake.sampling import Ctx

if TYPE_CHECKING:
    from sample_lake.plan import ColumnPlan

SPECIAL_TOKENS = ("-", "N/A", "null", "NULL", "none", "?", "0", "unknown")
# Defect probabilities for non-key columns (key columns stay clean), so that overall ~30% of columns
# have nulls, ~10% of string columns carry special tokens and ~2% of columns are constant.
P_NULLS, NULL_RATE = 0.34, (0.01, 0.20)
P_SPECIALS, SPECIAL_RATE = 0.115, (0.01, 0.03)
P_CONSTANT, P_LOWCARD = 0.025, 0.04


def apply_shape(col: ColumnPlan, g: Ctx, values: list[str]) -> list[str]:
    """A constant column repeats its first value; a low-cardinality one redraws from its first 2-5 distinct."""
    if col.shape == "constant":
        return [values[0]] * len(values)
    if col.shape == "lowcard":
        distinct = list(dict.fromkeys(values))[: g.r.randint(2, 5)]
        return g.pick(distinct, len(values), skew=1.0)
    return values


def apply_holes(col: ColumnPlan, g: Ctx, values: list[str]) -> list[str | None]:
    """Inject special tokens and nulls at disjoint random positions (at least one cell each)."""
    n = len(values)
    n_special = max(1, round(col.special_rate * n)) if col.special_tokens else 0
    n_null = max(1, round(col.null_rate * n)) if col.null_rate else 0
    if not (n_special or n_null):
        return list(values)
    n_special = min(n_special, n)
    n_null = min(n_null, n - n_special)
    positions = g.rng.permutation(n)[: n_special + n_null].tolist()
    out: list[str | None] = list(values)
    tokens = list(col.special_tokens)
    for pos in positions[:n_special]:
        out[pos] = g.r.choice(tokens)
    for pos in positions[n_special:]:
        out[pos] = None
    return out
