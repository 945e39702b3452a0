"""Wide tables (``--wide-share``): plans and cell values of tables of wide composite grammar columns.

Each wide table has a key column plus 3-8 columns drawn from the seed's grammar pool
(:func:`sample_lake.wide.lake_grammars`) or the plain wide pieces (:data:`sample_lake.wide.BASE_SINGLES`),
with nulls and special tokens at the base lake's rates. Plans depend on the seed only, not on the
base lake's size.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from sample_lake.cells import column_values
from sample_lake.defects import NULL_RATE, P_NULLS, P_SPECIALS, SPECIAL_RATE, SPECIAL_TOKENS, apply_holes
from sample_lake.domains import COMPOSITE
from sample_lake.formats import FORMATS
from sample_lake.plan import ColumnPlan, Usage, plan_column, shuffled_blocks
from sample_lake.sampling import Ctx
from sample_lake.themes import parse_specs
from sample_lake.wide import BASE_SINGLES, LAKE_POOL, Grammar, lake_grammars

WIDE_THEMES = {  # table stem -> its key column
    "events": "event_id:numeric_id",
    "api_calls": "call_id:prefixed_id:REQ",
    "telemetry": "reading_id:numeric_id",
    "file_index": "file_id:numeric_id",
    "audit_trail": "audit_id:uuid",
    "ledger_entries": "entry_id:prefixed_id:INV",
    "pipeline_runs": "run_id:underscore_id:run",
    "integration_messages": "message_id:uuid:upper",
}
WIDE_COLUMN_NAMES = {  # grammar kind -> snake_case names a lake would use for such a column
    "uuid": ("object_uuid", "trace_uuid", "instance_guid", "correlation_uuid"),
    "uuid-joined": ("correlation_key", "lineage_key", "ref_key", "composite_ref", "uuid_refs"),
    "iso-ts": ("event_ts", "received_at", "emitted_at", "processed_at", "observed_at"),
    "url": ("request_url", "callback_url", "resource_url", "source_url", "webhook_url"),
    "path/unc": ("object_path", "share_path", "source_file", "archive_path", "target_path"),
    "kv-list": ("tags", "labels", "attributes", "dimensions", "annotations"),
    "number-list": ("readings", "sample_vector", "histogram_bins", "offsets", "coefficients"),
    "other list": ("related_ids", "member_ids", "item_list", "hash_chain"),
    "bracketed record": ("raw_record", "legacy_record", "audit_tuple", "packed_row"),
    "other record": ("record_key", "composite_key", "trace_record", "payload_ref", "routing_key"),
}
WIDE_DOMAIN = "wide"  # ColumnPlan.domain of a grammar column; its variant is the grammar key
P_POOL = 0.7  # share of wide columns from the lake's grammar pool (the rest: plain wide pieces)
WIDE_INDEX_BASE = 1_000_000  # wide table i draws its cells from seeds (seed, WIDE_INDEX_BASE + i)


@dataclass(frozen=True)
class WideTablePlan:
    """A wide table: a key column, then grammar columns (``grammars[i]`` is None for the key)."""

    index: int
    name: str
    theme: str
    fmt: str
    columns: tuple[ColumnPlan, ...]
    grammars: tuple[Grammar | None, ...]

    @property
    def file_name(self) -> str:
        return f"{self.name}.{self.fmt}"


def _wide_column_name(r: random.Random, kind: str, taken: set[str]) -> str:
    names = [n for n in WIDE_COLUMN_NAMES[kind] if n not in taken]
    name = r.choice(names) if names else next(f"{WIDE_COLUMN_NAMES[kind][0]}_{i}" for i in range(2, 99)
                                               if f"{WIDE_COLUMN_NAMES[kind][0]}_{i}" not in taken)
    taken.add(name)
    return name


def iter_wide_plans(seed: int) -> Iterator[WideTablePlan]:
    """Wide table plans in order; table i depends on ``seed`` only, not on the base lake's size."""
    r = random.Random(f"lakeindex/sample_lake/wide-tables/{seed}")
    pool = lake_grammars(seed)
    usage = Usage()
    stems: Counter[str] = Counter()
    themes: list[str] = []
    formats: list[str] = []
    used = 0
    index = 0
    while True:
        themes = themes or shuffled_blocks(r, list(WIDE_THEMES), len(WIDE_THEMES))
        formats = formats or shuffled_blocks(r, FORMATS, len(FORMATS))
        theme, fmt = themes.pop(0), formats.pop(0)
        key = plan_column(r, parse_specs(WIDE_THEMES[theme])[0], usage, key=True)
        columns, grammars, taken = [key], [None], {key.name}
        for _ in range(r.randint(3, 8)):
            if r.random() < P_POOL:
                grammar = pool[used % LAKE_POOL]
                used += 1
            else:
                grammar = r.choice(BASE_SINGLES)
            null_rate = round(r.uniform(*NULL_RATE), 3) if r.random() < P_NULLS else 0.0
            tokens: tuple[str, ...] = ()
            special_rate = 0.0
            if r.random() < P_SPECIALS:
                tokens = tuple(r.sample(SPECIAL_TOKENS, r.choice((1, 1, 2))))
                special_rate = round(r.uniform(*SPECIAL_RATE), 3)
            name = _wide_column_name(r, grammar.kind, taken)
            columns.append(ColumnPlan(name, WIDE_DOMAIN, grammar.key, COMPOSITE, False, null_rate, tokens,
                                      special_rate))
            grammars.append(grammar)
        stems[theme] += 1
        yield WideTablePlan(index, f"{theme}_wide_{stems[theme]:04d}", theme, fmt, tuple(columns), tuple(grammars))
        index += 1


def plan_wide_tables(seed: int, count: int) -> list[WideTablePlan]:
    """The first ``count`` wide tables of a lake generated with ``seed`` (see ``summary["wide"]["tables"]``)."""
    plans = iter_wide_plans(seed)
    return [next(plans) for _ in range(count)]


def wide_table_data(plan: WideTablePlan, rows: int, seed: int) -> dict[str, list[str | None]]:
    """Cell values of one wide table, seeded by ``(seed, WIDE_INDEX_BASE + table index)`` only."""
    index = WIDE_INDEX_BASE + plan.index
    g = Ctx(np.random.default_rng([seed, index]), random.Random(seed * 1_000_003 + index))
    out: dict[str, list[str | None]] = {}
    for col, grammar in zip(plan.columns, plan.grammars, strict=True):
        if grammar is None:
            out[col.name] = column_values(col, g, rows)
        else:
            g.sequential = False
            out[col.name] = apply_holes(col, g, grammar.generate(rows, g.r))
    return out
