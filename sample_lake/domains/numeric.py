"""Domains of numeric values: integers, floats, percentages, scientific notation, signed numbers, coordinates.

Registered in :data:`sample_lake.domains.DOMAINS` on import.
"""

from __future__ import annotations

import numpy as np

from sample_lake.domains.registry import NUMERIC, domain
from sample_lake.domains.vocabulary import GEO_CENTERS
from sample_lake.sampling import Ctx, fmt_floats, lognormal


@domain("integer", NUMERIC, ("count", "quantity", "large"))
def gen_integer(g: Ctx, n: int, variant: str) -> list[str]:
    if variant == "count":
        values = g.rng.geometric(1.0 / g.r.uniform(1.5, 60), n) - 1
    elif variant == "quantity":
        values = 1 + g.rng.poisson(g.r.uniform(0.5, 12), n)
    else:
        values = lognormal(g, n, 1e4, 1e8, sigma=1.5).astype(np.int64)
    return [str(v) for v in values.tolist()]


@domain("float", NUMERIC, ("1dp", "2dp", "3dp", "4dp"))
def gen_float(g: Ctx, n: int, variant: str) -> list[str]:
    values = lognormal(g, n, 0.05, 500, sigma=g.r.uniform(0.2, 1.0))
    return fmt_floats(values, f".{variant[0]}f")


@domain("percentage", NUMERIC, ("0dp", "1dp", "2dp"))
def gen_percentage(g: Ctx, n: int, variant: str) -> list[str]:
    a, b = g.r.uniform(0.5, 5), g.r.uniform(0.5, 5)
    return [s + "%" for s in fmt_floats(g.rng.beta(a, b, n) * 100, f".{variant[0]}f")]


@domain("scientific", NUMERIC, ("1dp", "2dp", "3dp"))
def gen_scientific(g: Ctx, n: int, variant: str) -> list[str]:
    center = g.r.uniform(-9, -1)
    values = 10 ** g.rng.normal(center, 1.0, n)
    return fmt_floats(values, f".{variant[0]}e")


@domain("signed_number", NUMERIC, ("int", "2dp"))
def gen_signed_number(g: Ctx, n: int, variant: str) -> list[str]:
    scale = float(np.exp(g.r.uniform(np.log(2), np.log(5000))))
    values = g.rng.normal(g.r.uniform(-0.5, 0.5) * scale, scale, n)
    if variant == "int":
        return [str(v) for v in np.round(values).astype(np.int64).tolist()]
    return fmt_floats(values, ".2f")


@domain("geo_coordinate", NUMERIC, ("lat", "lon"))
def gen_geo_coordinate(g: Ctx, n: int, variant: str) -> list[str]:
    centers = g.r.sample(GEO_CENTERS, g.r.randint(1, 5))
    axis = 0 if variant == "lat" else 1
    base = np.array([c[axis] for c in centers])[g.rng.integers(0, len(centers), n)]
    values = base + g.rng.normal(0, 0.3, n)
    return fmt_floats(values, f".{g.r.choice((4, 5, 6, 6))}f")
