"""The lake plan: every table's name, theme, format and columns, with each column's domain, variant and defects.

:func:`plan_lake` derives the whole layout from one ``random.Random(seed)`` without writing anything;
it is the ground truth of a generated lake. Column picks follow the theme's mix, steered by
:class:`Usage` towards domains and variants that lag behind a coverage schedule.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from sample_lake.composites import COMPOSITES, RANDOM_PART_DOMAINS, Part
from sample_lake.defects import (
    NULL_RATE,
    P_CONSTANT,
    P_LOWCARD,
    P_NULLS,
    P_SPECIALS,
    SPECIAL_RATE,
    SPECIAL_TOKENS,
)
from sample_lake.domains import COMPOSITE, DOMAINS, MACHINE, NATURAL, NUMERIC
from sample_lake.formats import FORMATS
from sample_lake.themes import GENERIC_COLUMNS, THEMES, ColSpec, Theme

# Probability of each kind for a non-key column slot; the key column is always machine-generated.
SLOT_KINDS = ((MACHINE, 0.55), (NATURAL, 0.22), (NUMERIC, 0.165), (COMPOSITE, 0.065))
# Column picks follow the theme's own column mix (uniform over its columns, generic columns down-weighted
# by GENERIC_WEIGHT) but are boosted for domains that lag behind a schedule reaching BALANCE_FLOOR columns
# per domain after FLOOR_TABLES tables (or at the end of a smaller lake): weight * (1 + lag) ** exponent.
# Rare domains so reach many columns even in a small lake while common ones (timestamps, ids) stay common.
# Fixed variants / composite templates with fewer than VARIANT_FLOOR columns get a mild boost.
GENERIC_WEIGHT = 0.35
BALANCE_EXPONENT = 3
# Domains that are over-represented in real lakes beyond their share of named candidate columns.
DOMAIN_PRIORS = {"timestamp": 3.0, "date": 2.0, "status": 1.5, "boolean": 1.5, "uuid": 1.5}
BALANCE_FLOOR = 10
FLOOR_TABLES = 120
VARIANT_FLOOR = 3


@dataclass(frozen=True)
class ColumnPlan:
    """Ground truth of one column: where its values come from and which defects were injected."""

    name: str
    domain: str
    variant: str
    kind: str
    key: bool = False
    null_rate: float = 0.0
    special_tokens: tuple[str, ...] = ()
    special_rate: float = 0.0
    shape: str = "normal"  # "normal" | "constant" | "lowcard"
    parts: tuple[tuple[str, str], ...] = ()  # composites only
    sep: str = ""
    wrap: tuple[str, str] = ("", "")


@dataclass(frozen=True)
class TablePlan:
    index: int
    name: str
    theme: str
    fmt: str
    columns: tuple[ColumnPlan, ...]

    @property
    def file_name(self) -> str:
        return f"{self.name}.{self.fmt}"


@dataclass
class Usage:
    """Global usage counters that steer column picks towards under-represented domains/variants."""

    domains: Counter[str] = field(default_factory=Counter)
    variants: Counter[tuple[str, str]] = field(default_factory=Counter)
    target: float = 0.0  # columns every domain should have by now

    def weight(self, spec: ColSpec, prior: float) -> float:
        """Pick weight of a candidate column (see BALANCE_FLOOR)."""
        lag = max(0.0, self.target - self.domains[spec.domain])
        w = prior * DOMAIN_PRIORS.get(spec.domain, 1.0) * (1.0 + lag) ** BALANCE_EXPONENT
        if spec.variant is not None:
            w *= 1.0 + max(0, VARIANT_FLOOR - self.variants[(spec.domain, spec.variant)])
        return w

    def pick_variant(self, r: random.Random, dom: str, options: Sequence[str]) -> str:
        weights = [1.0 / (1 + self.variants[(dom, v)]) for v in options]
        return r.choices(list(options), weights)[0]


def shuffled_blocks(r: random.Random, items: Sequence[str], count: int) -> list[str]:
    """Round-robin-ish assignment: consecutive shuffled permutations of ``items``."""
    out: list[str] = []
    while len(out) < count:
        block = list(items)
        r.shuffle(block)
        out.extend(block)
    return out[:count]


def _plan_composite(r: random.Random, spec: ColSpec, usage: Usage) -> ColumnPlan:
    template_name = spec.variant or r.choice(sorted(COMPOSITES))
    template = COMPOSITES[template_name]
    raw_parts: list[Part] = list(template.parts)
    if not raw_parts:
        raw_parts = [(d, None) for d in r.sample(RANDOM_PART_DOMAINS, r.randint(2, 4))]
    parts = tuple((d, v if v is not None else usage.pick_variant(r, d, DOMAINS[d].variants))
                  for d, v in raw_parts)
    wrap = template.wrap
    if template_name == "random" and r.random() < 0.15:
        wrap = r.choice((("[", "]"), ("(", ")"), ("{", "}")))
    return ColumnPlan(spec.name, COMPOSITE, template_name, COMPOSITE, parts=parts,
                      sep=r.choice(template.seps), wrap=wrap)


def plan_column(r: random.Random, spec: ColSpec, usage: Usage, key: bool) -> ColumnPlan:
    if spec.domain == COMPOSITE:
        col = _plan_composite(r, spec, usage)
    else:
        dom = DOMAINS[spec.domain]
        variant = spec.variant or usage.pick_variant(r, dom.name, dom.variants)
        col = ColumnPlan(spec.name, dom.name, variant, dom.kind, key=key)
    usage.domains[col.domain] += 1
    usage.variants[(col.domain, col.variant)] += 1
    if key:
        return col
    null_rate = round(r.uniform(*NULL_RATE), 3) if r.random() < P_NULLS else 0.0
    tokens: tuple[str, ...] = ()
    special_rate = 0.0
    if col.kind != NUMERIC and r.random() < P_SPECIALS:
        tokens = tuple(r.sample(SPECIAL_TOKENS, r.choice((1, 1, 2))))
        special_rate = round(r.uniform(*SPECIAL_RATE), 3)
    shape = "normal"
    if col.kind != COMPOSITE:
        roll = r.random()
        shape = "constant" if roll < P_CONSTANT else "lowcard" if roll < P_CONSTANT + P_LOWCARD else "normal"
    return ColumnPlan(col.name, col.domain, col.variant, col.kind, False, null_rate, tokens, special_rate,
                      shape, col.parts, col.sep, col.wrap)


def _plan_columns(r: random.Random, theme: Theme, usage: Usage) -> tuple[ColumnPlan, ...]:
    target = r.randint(4, 12)
    pool: list[ColSpec] = []
    priors: dict[str, float] = {}
    for spec in theme.columns + GENERIC_COLUMNS:  # theme columns shadow generic ones of the same name
        if spec.name != theme.key.name and spec.name not in priors:
            pool.append(spec)
            priors[spec.name] = 1.0 if spec in theme.columns else GENERIC_WEIGHT
    chosen: list[ColSpec] = []
    taken = {theme.key.name}
    kinds, kind_weights = zip(*SLOT_KINDS, strict=True)
    while len(chosen) + 1 < target:
        kind = r.choices(kinds, kind_weights)[0]
        free = [s for s in pool if s.name not in taken]
        candidates = [s for s in free if s.kind == kind] or free
        if not candidates:
            break
        weights = [usage.weight(s, priors[s.name]) for s in candidates]
        spec = r.choices(candidates, weights)[0]
        taken.add(spec.name)
        chosen.append(spec)
        usage.domains[spec.domain] += 1  # provisional, so one table spreads over domains
    for spec in chosen:
        usage.domains[spec.domain] -= 1
    order = {s.name: i for i, s in enumerate(pool)}
    chosen.sort(key=lambda s: order[s.name])
    columns = [plan_column(r, theme.key, usage, key=True)]
    columns += [plan_column(r, spec, usage, key=False) for spec in chosen]
    return tuple(columns)


def check_registry() -> None:
    """Fail fast if a theme or composite names an unknown domain/variant, or a domain is unreachable."""
    specs = [s for t in THEMES.values() for s in (t.key, *t.columns)] + list(GENERIC_COLUMNS)
    for spec in specs:
        if spec.domain == COMPOSITE:
            if spec.variant not in COMPOSITES:
                raise ValueError(f"{spec.name}: unknown composite template {spec.variant!r}")
        elif spec.domain not in DOMAINS or spec.variant not in (None, *DOMAINS[spec.domain].variants):
            raise ValueError(f"{spec.name}: unknown domain/variant {spec.domain}/{spec.variant}")
    parts = [p for c in COMPOSITES.values() for p in c.parts] + [(d, None) for d in RANDOM_PART_DOMAINS]
    for dom, variant in parts:
        if dom not in DOMAINS or variant not in (None, *DOMAINS[dom].variants):
            raise ValueError(f"composite part: unknown domain/variant {dom}/{variant}")
    unreachable = set(DOMAINS) - {s.domain for s in specs}
    if unreachable:
        raise ValueError(f"domains without any column: {sorted(unreachable)}")


def plan_lake(tables: int, seed: int) -> list[TablePlan]:
    """The full lake layout (names, formats, columns, domains, variants, defects) for ``seed``."""
    check_registry()
    r = random.Random(seed)
    usage = Usage()
    themes = shuffled_blocks(r, list(THEMES), tables)
    formats = shuffled_blocks(r, FORMATS, tables)
    stem_counts: Counter[str] = Counter()
    plans = []
    for index in range(tables):
        theme = THEMES[themes[index]]
        usage.target = BALANCE_FLOOR * min(1.0, (index + 1) / min(tables, FLOOR_TABLES))
        stem = r.choice(theme.stems)
        stem_counts[stem] += 1
        name = f"{stem}_{stem_counts[stem]:03d}"
        plans.append(TablePlan(index, name, theme.name, formats[index], _plan_columns(r, theme, usage)))
    return plans
