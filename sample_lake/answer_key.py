"""Answer key of generated wide columns, for the quality benchmarks.

The base lake's ground truth is :func:`sample_lake.plan.plan_lake` itself (``bench/eval_quality.py``
builds its answer key from it); wide columns are keyed by grammar.
"""

from __future__ import annotations

from sample_lake.wide_tables import WIDE_DOMAIN, plan_wide_tables


def wide_answer_key(seed: int, count: int) -> dict[tuple[str, str], tuple[str, str]]:
    """Per column of the first ``count`` wide tables: (kind, domain); a grammar column's domain is its key.

    Same shape as ``bench/eval_quality.answer_key``: columns of one domain string cannot be told apart.
    """
    out = {}
    for t in plan_wide_tables(seed, count):
        for c in t.columns:
            domain = c.variant if c.domain == WIDE_DOMAIN else f"{c.domain}/{c.variant}/{c.parts}/{c.sep}/{c.wrap}"
            out[(t.name, c.name)] = (c.kind, domain)
    return out
