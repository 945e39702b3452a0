"""Writing a lake: the planned base tables, then wide tables up to a share of wide values, and the summary.

:func:`generate_lake` is what the command line runs; it returns the JSON summary the CLI prints.
"""

from __future__ import annotations

import shutil
from collections import Counter
from pathlib import Path

from sample_lake.cells import table_data
from sample_lake.domains import COMPOSITE, MACHINE, NATURAL, NUMERIC
from sample_lake.formats import DATA_SUFFIXES, FORMATS, WRITERS
from sample_lake.layouts import BUNDLED, relayout
from sample_lake.plan import plan_lake
from sample_lake.wide import KINDS
from sample_lake.wide_tables import iter_wide_plans, wide_table_data

MAX_WIDE_SHARE = 0.6  # wide tables are ~80% wide values: a higher share needs an unbounded lake
TAU = 8  # the index's default token limit: values with more tokens are "wide"


class _WideCounter:
    """Counts non-null values and values wider than TAU tokens (as the index tokenizes them)."""

    def __init__(self) -> None:
        from lakeindex.patterns.tokens import analyze

        self.analyze = analyze
        self.values = 0
        self.wide = 0

    def add(self, data: dict[str, list[str | None]]) -> tuple[int, int]:
        values = wide = 0
        for column in data.values():
            counts = Counter(v for v in column if v is not None)
            values += sum(counts.values())
            wide += sum(n for v, n in counts.items() if self.analyze(v).ntokens > TAU)
        self.values += values
        self.wide += wide
        return values, wide


def _add_wide_tables(out_dir: Path, rows: int, seed: int, share: float, lake: _WideCounter) -> dict:
    """Write wide tables until their wide values are ``share`` of all the lake's values."""
    formats: Counter[str] = Counter()
    kinds: Counter[str] = Counter()
    domains: Counter[str] = Counter()
    structures: Counter[str] = Counter()
    grammars: set[str] = set()
    values = wide = columns = total_bytes = tables = 0
    plans = iter_wide_plans(seed)
    while wide < share * lake.values:
        plan = next(plans)
        data = wide_table_data(plan, rows, seed)
        path = out_dir / plan.file_name
        WRITERS[plan.fmt](path, data)
        v, w = lake.add(data)
        values, wide, tables = values + v, wide + w, tables + 1
        total_bytes += path.stat().st_size
        formats[plan.fmt] += 1
        columns += len(plan.columns)
        kinds.update(col.kind for col in plan.columns)
        domains.update(col.domain for col in plan.columns)
        structures.update(g.kind for g in plan.grammars if g is not None)
        grammars.update(g.key for g in plan.grammars if g is not None)
    return {"share_target": share, "tables": tables, "columns": columns, "cells": columns * rows,
            "values": values, "wide_values": wide, "bytes": total_bytes,
            "formats": {fmt: formats[fmt] for fmt in FORMATS}, "kinds": dict(kinds), "domains": dict(domains),
            "structures": {k: structures[k] for k in KINDS if structures[k]}, "grammars": len(grammars)}


def _existing_data_files(out_dir: Path) -> list[Path]:
    return sorted(p for p in out_dir.iterdir() if p.is_file() and p.suffix in DATA_SUFFIXES)


def generate_lake(out_dir: Path, tables: int, rows: int, seed: int, *, force: bool = False,
                  wide_share: float = 0.0, layouts: bool = False) -> dict:
    """Write the lake into ``out_dir`` and return the summary (also what the CLI prints).

    Refuses (``FileExistsError``) to write into a non-empty directory unless ``force``; with ``force``
    the previous ``*.csv/*.tsv/*.parquet/*.jsonl`` files are removed first. With ``wide_share`` F > 0,
    wide tables are added after the ``tables`` base tables until their values wider than 8 tokens are
    a fraction F of all values; the summary then counts the whole lake and has a ``wide`` section.
    """
    if tables < 1 or rows < 1:
        raise ValueError("tables and rows must be positive")
    if not 0.0 <= wide_share <= MAX_WIDE_SHARE:
        raise ValueError(f"wide share must be between 0 and {MAX_WIDE_SHARE}")
    out_dir = Path(out_dir)
    if out_dir.exists() and any(out_dir.iterdir()):
        if not force:
            raise FileExistsError(f"{out_dir} is not empty (use --force to overwrite)")
        for old in _existing_data_files(out_dir):
            old.unlink()
        for name in BUNDLED:  # the directories a previous run with layouts wrote
            shutil.rmtree(out_dir / name.removesuffix(".parquet"), ignore_errors=True)
    out_dir.mkdir(parents=True, exist_ok=True)

    plans = plan_lake(tables, seed)
    formats: Counter[str] = Counter()
    kinds: Counter[str] = Counter()
    domains: Counter[str] = Counter()
    total_bytes = columns = 0
    lake = _WideCounter() if wide_share else None
    for plan in plans:
        path = out_dir / plan.file_name
        data = table_data(plan, rows, seed)
        WRITERS[plan.fmt](path, data)
        if lake is not None:
            lake.add(data)
        total_bytes += path.stat().st_size
        formats[plan.fmt] += 1
        columns += len(plan.columns)
        kinds.update(col.kind for col in plan.columns)
        domains.update(col.domain for col in plan.columns)
    summary = {
        "out": str(out_dir),
        "tables": tables,
        "rows": rows,
        "seed": seed,
        "columns": columns,
        "cells": columns * rows,
        "bytes": total_bytes,
        "formats": {fmt: formats[fmt] for fmt in FORMATS},
        "kinds": {kind: kinds[kind] for kind in (MACHINE, COMPOSITE, NATURAL, NUMERIC)},
        "domains": dict(sorted(domains.items())),
    }
    if layouts:
        summary["laid_out"] = relayout(out_dir, seed)
    if lake is None:
        return summary
    base = {"tables": tables, "values": lake.values, "wide_values": lake.wide}
    wide = _add_wide_tables(out_dir, rows, seed, wide_share, lake)
    summary["tables"] = tables + wide["tables"]
    summary["columns"] += wide["columns"]
    summary["cells"] += wide["cells"]
    summary["bytes"] += wide["bytes"]
    summary["formats"] = {fmt: summary["formats"][fmt] + wide["formats"][fmt] for fmt in FORMATS}
    summary["kinds"] = {k: n + wide["kinds"].get(k, 0) for k, n in summary["kinds"].items()}
    summary["domains"] = dict(sorted((Counter(summary["domains"]) + Counter(wide["domains"])).items()))
    summary["values"] = lake.values
    summary["wide_values"] = lake.wide
    summary["wide_value_share"] = round(lake.wide / lake.values, 4)
    summary["base"] = {**base, "wide_value_share": round(base["wide_values"] / base["values"], 4)}
    summary["wide"] = {**wide, "wide_value_share_of_lake": round(wide["wide_values"] / lake.values, 4)}
    return summary
