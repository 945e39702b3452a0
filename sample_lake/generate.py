"""Generate a small but realistic-looking enterprise data lake of string-heavy tables.

The lake is the training corpus for a pattern index in the spirit of Auto-Validate (SIGMOD 2021),
which learns regex-like validation patterns of string columns from a large collection of tables.
For that to be meaningful the lake has to look like a real one, so it is built like this:

* **Themes.** Every table belongs to a business theme (orders, web_sessions, devices, payments, ...)
  that owns a list of plausible snake_case columns (``order_id``, ``client_ip``, ``device_mac``...).
  A table takes its theme's key column plus 3-11 more columns drawn from the theme and from a small
  pool of generic columns (``created_at``, ``etl_batch_id``, ``notes``...).
* **Domains.** Each column is backed by a named *domain* generator from :data:`DOMAINS` (timestamps,
  UUIDs, IPv4, hashes, currency amounts, person names, ...). A domain has *variants* (ISO vs. Apache
  timestamps, ``en-us`` vs. ``en-US`` locales...). One column always uses exactly one variant, the
  way a machine writes a column; different columns of the same domain use different variants.
  Column picks follow the theme's own mix but are boosted for domains lagging behind a coverage
  schedule, so every domain shows up in many columns of many tables (at least ~8 in the default
  lake), while the slot kinds keep the mix near 2/3 machine-generated strings (composites included),
  ~18% natural language and ~15% numbers.
* **Special structures.** About 5% of columns are *composites* of 2-4 domains joined by a fixed
  separator (``[0.1|02/18/2015 00:00:00|02/18/2015 00:00:00|OnBooking]``, ``10.0.3.4:8080``);
  ~10% of string columns carry 1-3% ad-hoc special tokens (``N/A``, ``-``, ``unknown``...); ~30% of
  columns have 1-20% nulls; ~2% are constant and ~4% are squeezed to a handful of distinct values.
* **Formats.** Tables are spread over CSV, TSV, Parquet (all-string columns, zstd) and JSON lines
  (all values strings or null). Nulls are empty cells in CSV/TSV and real nulls elsewhere.

* **Wide tables** (``--wide-share F``, off by default): extra tables such as ``events_wide_0003``
  whose columns are composite grammars from :mod:`sample_lake.wide` (UUIDs joined to ids, ISO-8601
  timestamps with ms and zones, URLs and UNC paths with many segments, ``key:value`` lists, tuples of
  numbers, bracketed records) and plain wide pieces. They are added until their values wider than
  8 tokens make up a fraction F of all the lake's values. With F = 0 the output is unchanged.

Everything is derived from ``--seed``: the lake plan comes from one ``random.Random(seed)`` and the
cell values of table ``i`` from generators seeded with ``(seed, i)``, so a re-run is byte-identical.
:func:`plan_lake` exposes the ground truth (domain and variant of every column) without writing.

Usage::

    python sample_lake/generate.py [--out DIR] [--tables N] [--rows N] [--seed S] [--wide-share F] [--force]

This file is the command and the import point of the generator's API; the code lives in modules
named for what they generate:

* :mod:`sample_lake.domains`: the domain registry (``registry``), the domains of machine-generated
  (``machine``), natural-language (``natural``) and numeric (``numeric``) values, and the word lists
  and code tables they sample from (``vocabulary``);
* :mod:`sample_lake.sampling`: a table's random sources (:class:`Ctx`) and value distributions;
* :mod:`sample_lake.composites`: composite column templates and their values;
* :mod:`sample_lake.themes`: table themes and the columns each may have;
* :mod:`sample_lake.defects`: special tokens, nulls, constant and low-cardinality columns;
* :mod:`sample_lake.plan`: the lake plan (:func:`plan_lake`), the ground truth of every column;
* :mod:`sample_lake.cells`: the cell values of a planned table;
* :mod:`sample_lake.formats`: the table writers per file format;
* :mod:`sample_lake.wide_tables`: the ``--wide-share`` tables (grammars from :mod:`sample_lake.wide`);
* :mod:`sample_lake.answer_key`: the answer key of wide columns;
* :mod:`sample_lake.lake`: writing a lake and its summary (:func:`generate_lake`);
* :mod:`sample_lake.cli`: the command line (:func:`main`).
"""

from __future__ import annotations

import sys
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make ``sample_lake`` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sample_lake.answer_key import wide_answer_key  # noqa: E402
from sample_lake.cells import column_values, table_data  # noqa: E402
from sample_lake.cli import DEFAULT_OUT, DEFAULT_ROWS, DEFAULT_SEED, DEFAULT_TABLES, main  # noqa: E402
from sample_lake.composites import COMPOSITES, CompositeTemplate  # noqa: E402
from sample_lake.defects import (  # noqa: E402
    NULL_RATE,
    P_CONSTANT,
    P_LOWCARD,
    P_NULLS,
    P_SPECIALS,
    SPECIAL_RATE,
    SPECIAL_TOKENS,
)
from sample_lake.domains import COMPOSITE, DOMAINS, MACHINE, NATURAL, NUMERIC, Domain, domain  # noqa: E402
from sample_lake.formats import DATA_SUFFIXES, FORMATS, WRITERS  # noqa: E402
from sample_lake.lake import MAX_WIDE_SHARE, TAU, generate_lake  # noqa: E402
from sample_lake.plan import ColumnPlan, TablePlan, check_registry, plan_lake  # noqa: E402
from sample_lake.sampling import Ctx  # noqa: E402
from sample_lake.themes import GENERIC_COLUMNS, THEMES, ColSpec, Theme  # noqa: E402
from sample_lake.wide_tables import (  # noqa: E402
    WIDE_DOMAIN,
    WideTablePlan,
    iter_wide_plans,
    plan_wide_tables,
    wide_table_data,
)

__all__ = [
    "COMPOSITE", "COMPOSITES", "DATA_SUFFIXES", "DEFAULT_OUT", "DEFAULT_ROWS", "DEFAULT_SEED", "DEFAULT_TABLES",
    "DOMAINS", "FORMATS", "GENERIC_COLUMNS", "MACHINE", "MAX_WIDE_SHARE", "NATURAL", "NULL_RATE", "NUMERIC",
    "P_CONSTANT", "P_LOWCARD", "P_NULLS", "P_SPECIALS", "SPECIAL_RATE", "SPECIAL_TOKENS", "TAU", "THEMES",
    "WIDE_DOMAIN", "WRITERS", "ColSpec", "ColumnPlan", "CompositeTemplate", "Ctx", "Domain", "TablePlan",
    "Theme", "WideTablePlan", "check_registry", "column_values", "domain", "generate_lake", "iter_wide_plans",
    "main", "plan_lake", "plan_wide_tables", "table_data", "wide_answer_key", "wide_table_data",
]

if __name__ == "__main__":
    sys.exit(main())
