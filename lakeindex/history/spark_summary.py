"""ColumnSummary of every column of a Spark DataFrame: one scalar aggregation pass plus one grouped job.

Pass 1 (one ``agg``, one row to the driver): per column the counts, sum/min/max/var_pop, a KLL sketch
(the 101 percentiles are read from it on the driver with the ``datasketches`` package), an HLL distinct
estimate, the text-length sums (regex counts of ``chars``' Unicode classes) and, for text columns whose kind
is not given, how many values are numbers. Text is parsed with ``try_cast`` behind ``chars.NUMBER_RE``
(Spark's cast alone would also accept "1.5d" or "Infinity", pandas would not).

Job 2 (one ``collect`` of at most top-K rows per column): ``explode`` an array of (column, value, number,
pattern) structs, group by it, then rank per column with windows: exact distinct and singleton counts and
the top-K values of columns whose HLL estimate is ≤ 110% of ``exact_distinct_limit`` (the exact count then
decides whether values are tracked), the exact quantiles of those columns when numeric (a running count
over the sorted values, joined to the grid's ranks), and the top-K Algorithm-2 patterns of every
categorical column (high-cardinality columns group by pattern only, so their raw values are never
shuffled as keys). No raw data reaches the driver. Nested and binary columns are skipped. The result
equals ``summarize_series`` on the same values (``tests/test_local_history.py``), up to floating-point
summation order in sums and variances, except the distinct count far above the limit.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import datasketches as ds

from lakeindex.history import chars
from lakeindex.history.kinds import CATEGORICAL, KINDS, NUMERIC, kind_by_share, kind_of_spark_type
from lakeindex.history.summary import (
    DEFAULT_EXACT_DISTINCT_LIMIT,
    DEFAULT_TOP_K,
    QUANTILE_GRID,
    ColumnSummary,
    plain_number,
)
from lakeindex.shuffle_sizing import local_input_bytes, sized_shuffles
from lakeindex.sql_identifiers import col

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame

KLL_K = 400  # normalised rank error ~0.7%: below the 1% step of the percentile grid
GROUP_MARGIN = 1.1  # HLL (lg_k 12) errs by 1.6% (one sigma): 10% keeps every column near the limit exact
HLL_LG_K = 12


def _pattern(text: Column) -> Column:
    """Spark twin of ``chars.patterns``: class runs → placeholders → tokens."""
    from pyspark.sql import functions as F

    out = text
    for java, placeholder in chars.PATTERN_STEPS:
        out = F.regexp_replace(out, F.lit(java), F.lit(placeholder))
    for placeholder, token in chars.PLACEHOLDER_TOKENS.items():
        out = F.replace(out, F.lit(placeholder), F.lit(token))
    return out


def _count_class(text: Column, java: str) -> Column:
    from pyspark.sql import functions as F

    return F.length(text) - F.length(F.regexp_replace(text, F.lit(java), F.lit("")))


def summarize_dataframe(df: DataFrame, kinds: dict[str, str] | None = None, *, top_k: int = DEFAULT_TOP_K,
                        exact_distinct_limit: int = DEFAULT_EXACT_DISTINCT_LIMIT) -> dict[str, ColumnSummary]:
    """Summaries of all (non-nested) columns of one batch; ``kinds`` fixes the kind of some columns."""
    return summarize_batches(df, None, kinds, top_k=top_k, exact_distinct_limit=exact_distinct_limit)[None]


def summarize_batches(df: DataFrame, batch_column: str | None, kinds: dict[str, str] | None = None, *,
                      top_k: int = DEFAULT_TOP_K, exact_distinct_limit: int = DEFAULT_EXACT_DISTINCT_LIMIT,
                      kinds_from: Any = None) -> dict[Any, dict[str, ColumnSummary]]:
    """Summaries of the batches of ``df`` told apart by ``batch_column`` (None: ``df`` is one batch, keyed
    None), all in the same two Spark jobs; each batch's summaries are those ``summarize_dataframe`` gives
    for its rows alone. A column's kind is ``kinds``' when given, else decided by the values of batch
    ``kinds_from`` (default: the smallest key), the same for every batch so their features compare."""
    from pyspark.sql import functions as F
    from pyspark.sql import types as T

    kinds = dict(kinds or {})
    bad = {k: v for k, v in kinds.items() if v not in KINDS}
    if bad:
        raise ValueError(f"kinds must be among {KINDS}: {bad}")
    plans: list[dict[str, Any]] = []
    for i, f in enumerate(df.schema.fields):
        if f.name == batch_column or isinstance(f.dataType, T.StructType | T.ArrayType | T.MapType | T.BinaryType):
            continue
        typed_num = isinstance(f.dataType, T.NumericType)
        given = kinds.get(f.name) or kind_of_spark_type(f.dataType)  # None: a string column, kind by its values
        plans.append({"i": i, "name": f.name, "typed_num": typed_num, "kind": given})

    # projection shared by both jobs: finite number n{i} and text t{i} per column (as the kinds need them)
    proj: list[Column] = [(col(batch_column) if batch_column else F.lit(0)).alias("_b")]
    for p in plans:
        raw, i = col(p["name"]), p["i"]
        proj.append(raw.isNotNull().alias(f"nn{i}"))
        if p["kind"] in (None, NUMERIC):
            x = raw.cast("double") if p["typed_num"] else F.when(raw.rlike(chars.NUMBER_RE), raw.try_cast("double"))
            proj.append(F.when(~F.isnan(x) & (F.abs(x) != F.lit(float("inf"))), x).alias(f"n{i}"))
        if p["kind"] in (None, CATEGORICAL):
            proj.append(raw.cast("string").alias(f"t{i}"))
    base = df.select(*proj)

    aggs: list[Column] = [F.count(F.lit(1)).alias("rows")]
    for p in plans:
        i = p["i"]
        aggs.append(F.count(F.when(F.col(f"nn{i}"), 1)).alias(f"nn{i}"))
        if p["kind"] in (None, NUMERIC):
            x = F.col(f"n{i}")
            aggs += [F.count(x).alias(f"nc{i}"), F.sum(x).alias(f"sum{i}"), F.min(x).alias(f"min{i}"),
                     F.max(x).alias(f"max{i}"), F.var_pop(x).alias(f"var{i}"),
                     F.kll_sketch_agg_double(x, KLL_K).alias(f"kll{i}"),
                     F.hll_sketch_estimate(F.hll_sketch_agg(x.cast("string"), HLL_LG_K)).alias(f"nhll{i}")]
        if p["kind"] in (None, CATEGORICAL):
            t = F.col(f"t{i}")
            complete = F.when(t != "", t)
            aggs += [F.count(complete).alias(f"tc{i}"),
                     F.hll_sketch_estimate(F.hll_sketch_agg(complete, HLL_LG_K)).alias(f"thll{i}"),
                     F.sum(F.length(t)).alias(f"str_len{i}"),
                     F.sum(_count_class(t, chars.JAVA_LETTER)).alias(f"char_len{i}"),
                     F.sum(_count_class(t, chars.JAVA_DIGIT)).alias(f"digit_len{i}"),
                     F.sum(_count_class(t, chars.JAVA_PUNCT)).alias(f"punc_len{i}")]
        if p["kind"] is None:
            aggs.append(F.count(F.when(F.col(f"t{i}").rlike(chars.NUMBER_RE), 1)).alias(f"num{i}"))
    with sized_shuffles(df.sparkSession, local_input_bytes(df)):  # the grouped jobs' shuffles
        if batch_column is None:  # one row even for an empty batch
            found = {0: base.agg(*aggs).collect()[0].asDict()}
        else:
            found = {r["_b"]: r.asDict() for r in base.groupBy("_b").agg(*aggs).collect()}
        if not found:
            return {}
        source = found.get(kinds_from if batch_column else 0) or found[min(found)]
        for p in plans:
            i = p["i"]
            if p["kind"] is None:
                p["kind"] = kind_by_share(source[f"num{i}"], source[f"tc{i}"])
            prefix = "n" if p["kind"] == NUMERIC else "t"
            p["estimate"] = {b: int(row[f"{prefix}hll{i}"] or 0) for b, row in found.items()}
            # group a column's values when its estimate may be within the limit: the exact count decides
            p["grouped"] = {b: e <= exact_distinct_limit * GROUP_MARGIN for b, e in p["estimate"].items()}
            count = "nc" if p["kind"] == NUMERIC else "tc"
            p["complete"] = {b: int(row[f"{count}{i}"] or 0) for b, row in found.items()}

        groups = _grouped(base, plans, top_k)
        return {(b if batch_column else None): {
            p["name"]: _summary(p, b, row, int(row["rows"]), groups.get((b, p["i"]), {}), top_k, exact_distinct_limit)
            for p in plans} for b, row in found.items()}


def quantile_ranks(n: int) -> list[int]:
    """1-based ranks of the ``QUANTILE_GRID`` quantiles of ``n`` sorted values, inverted-CDF as numpy's
    ``method="inverted_cdf"`` computes them: the smallest rank r with r ≥ q·n, at least 1."""
    import numpy as np

    return [int(r) for r in np.maximum(1, np.ceil(n * np.asarray(QUANTILE_GRID)))]


def _where_grouped(p: dict[str, Any], value: Column) -> Column:
    """``value`` in the batches where column ``p``'s values are grouped, null elsewhere."""
    from pyspark.sql import functions as F

    batches = [b for b, g in p["grouped"].items() if g]
    if len(batches) == len(p["grouped"]):
        return value
    return F.when(F.col("_b").isin(batches), value) if batches else F.lit(None).cast(_value_type(p))


def _value_type(p: dict[str, Any]) -> str:
    return "double" if p["kind"] == NUMERIC else "string"


def _grouped(base: DataFrame, plans: list[dict[str, Any]], top_k: int) -> dict[tuple[Any, int], dict[str, Any]]:
    """Job 2: per (batch, column index), {"values": [(key, n)], "distinct", "singletons", "patterns": [(p, n)],
    "quantiles": {grid index: value}} (exact quantiles of the numeric columns whose values are grouped)."""
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    items: list[Column] = []
    numeric_ids: list[int] = []
    for p in plans:
        i = p["i"]
        if p["kind"] == NUMERIC and any(p["grouped"].values()):
            numeric_ids.append(i)
            items.append(F.struct(F.lit(i).alias("c"), F.lit(None).cast("string").alias("v"),
                                  _where_grouped(p, F.col(f"n{i}")).alias("d"), F.lit(None).cast("string").alias("p")))
        elif p["kind"] == CATEGORICAL:
            complete = F.when(F.col(f"t{i}") != "", F.col(f"t{i}"))
            items.append(F.struct(F.lit(i).alias("c"), _where_grouped(p, complete).alias("v"),
                                  F.lit(None).cast("double").alias("d"), _pattern(complete).alias("p")))
    if not items:
        return {}
    exploded = (base.select("_b", F.explode(F.array(*items)).alias("e")).select("_b", "e.*")
                .where(F.col("d").isNotNull() | F.col("p").isNotNull()))
    # the grouped counts feed values, patterns and quantiles: kept (memory, else disk) so the data is
    # scanned and its patterns computed once, not three times
    g = exploded.groupBy("_b", "c", "v", "d", "p").agg(F.count(F.lit(1)).alias("n")).persist()
    none_str, none_long, none_double = (F.lit(None).cast(t) for t in ("string", "long", "double"))

    per_col = Window.partitionBy("_b", "c")
    ranked = Window.partitionBy("_b", "c").orderBy(F.col("n").desc(), F.col("v").asc(), F.col("d").asc())
    limit = F.when(F.col("c").isin(numeric_ids), F.lit(1)).otherwise(F.lit(top_k)) if numeric_ids else F.lit(top_k)
    values = (g.where(F.col("v").isNotNull() | F.col("d").isNotNull())
              .select("_b", "c", "v", "n", F.row_number().over(ranked).alias("rk"),
                      F.count(F.lit(1)).over(per_col).alias("distinct"),
                      F.sum(F.when(F.col("n") == 1, 1).otherwise(0)).over(per_col).alias("singletons"))
              .where(F.col("rk") <= limit)
              .select(F.lit("v").alias("t"), "_b", "c", F.col("v").alias("k"), "n", "distinct", "singletons",
                      none_double.alias("x")))
    pat_rank = Window.partitionBy("_b", "c").orderBy(F.col("n").desc(), F.col("p").asc())
    patterns = (g.where(F.col("p").isNotNull()).groupBy("_b", "c", "p").agg(F.sum("n").alias("n"))
                .select("_b", "c", "p", "n", F.row_number().over(pat_rank).alias("rk"))
                .where(F.col("rk") <= top_k)
                .select(F.lit("p").alias("t"), "_b", "c", F.col("p").alias("k"), "n", none_long.alias("distinct"),
                        none_long.alias("singletons"), none_double.alias("x")))
    out_df = values.unionByName(patterns)
    ranks = [(b, p["i"], j, r) for p in plans if p["i"] in numeric_ids for b, grouped in p["grouped"].items()
             if grouped and p["complete"][b] for j, r in enumerate(quantile_ranks(p["complete"][b]))]
    if ranks:
        # exact quantiles from the value counts: the value whose cumulative count first reaches each rank
        batch_type = base.schema["_b"].dataType.simpleString()
        wanted = base.sparkSession.createDataFrame(ranks, f"qb {batch_type}, qc INT, j INT, r LONG")
        cum = Window.partitionBy("_b", "c").orderBy("d").rowsBetween(Window.unboundedPreceding, Window.currentRow)
        nums = g.where(F.col("d").isNotNull()).select("_b", "c", "d", "n", F.sum("n").over(cum).alias("cum"))
        hits = nums.join(F.broadcast(wanted), (F.col("_b") == F.col("qb")) & (F.col("c") == F.col("qc"))
                         & (F.col("r") > F.col("cum") - F.col("n")) & (F.col("r") <= F.col("cum")))
        out_df = out_df.unionByName(hits.select(F.lit("q").alias("t"), "_b", "c", none_str.alias("k"),
                                                F.col("j").cast("long").alias("n"), none_long.alias("distinct"),
                                                none_long.alias("singletons"), F.col("d").alias("x")))
    out: dict[tuple[Any, int], dict[str, Any]] = {}
    try:
        collected = out_df.collect()
    finally:
        g.unpersist()
    for r in collected:
        entry = out.setdefault((r["_b"], r["c"]), {"values": [], "patterns": [], "distinct": 0, "singletons": 0,
                                                   "quantiles": {}})
        if r["t"] == "v":
            entry["distinct"], entry["singletons"] = r["distinct"], r["singletons"]
            if r["k"] is not None:
                entry["values"].append((r["k"], r["n"]))
        elif r["t"] == "q":
            entry["quantiles"][r["n"]] = r["x"]
        else:
            entry["patterns"].append((r["k"], r["n"]))
    return out


def _top(pairs: list[tuple[str, int]], total: float) -> tuple[dict[str, float], float]:
    pairs = sorted(pairs, key=lambda kv: (-kv[1], kv[0]))
    return {k: plain_number(n) for k, n in pairs}, plain_number(total - sum(n for _, n in pairs))


def _summary(p: dict[str, Any], b: Any, row: dict[str, Any], rows: int, group: dict[str, Any], top_k: int,
             limit: int) -> ColumnSummary:
    i = p["i"]
    non_null, complete = int(row[f"nn{i}"]), p["complete"][b]
    # grouped columns have exact distinct counts; their values are tracked within the limit
    distinct, exact = (group.get("distinct", 0), True) if p["grouped"][b] else (p["estimate"][b], False)
    tracked = exact and distinct <= limit
    singletons = group.get("singletons", 0) if tracked else None
    if p["kind"] == NUMERIC:
        s = ColumnSummary(NUMERIC, rows, non_null, complete, distinct, exact, singletons, values_tracked=False,
                          top_k=top_k)
        if complete:
            s.sum, s.min, s.max = (plain_number(row[f"{k}{i}"]) for k in ("sum", "min", "max"))
            s.variance = float(row[f"var{i}"])
            exact_q = group.get("quantiles", {})
            if len(exact_q) == len(QUANTILE_GRID):
                s.quantiles = [plain_number(exact_q[j]) for j in range(len(QUANTILE_GRID))]
            else:
                sketch = ds.kll_doubles_sketch.deserialize(bytes(row[f"kll{i}"]))
                s.quantiles = [plain_number(q) for q in sketch.get_quantiles(list(QUANTILE_GRID), inclusive=True)]
        return s
    s = ColumnSummary(CATEGORICAL, rows, non_null, complete, distinct, exact, singletons,
                      length_sums={k: plain_number(row[f"{k}{i}"] or 0)
                                   for k in ("str_len", "char_len", "digit_len", "punc_len")},
                      values_tracked=tracked, top_k=top_k)
    if tracked:
        s.value_counts, s.value_other = _top(group.get("values", []), complete)
    s.pattern_counts, s.pattern_other = _top(group.get("patterns", []), complete)
    return s
