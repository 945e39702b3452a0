"""AnalysisRunner: computes many metrics with scan sharing and optional incremental states (Deequ §4).

Plan of one run:
1. Preconditions (columns exist, types fit) are checked on the schema; a failing analyzer becomes a
   failed metric and the others go on.
2. Every scan analyzer's aggregate expressions, de-duplicated by their text, run in ONE ``df.agg``.
   If Spark rejects that query, each analyzer is tried on its own to pin the failure on it. A state that
   would be inaccurate from one pass (Skewness/Kurtosis of values far from 0) asks for a second shared pass.
3. Grouping analyzers are bucketed by FrequencySpec: one frequency table (one group-by) per bucket,
   and one aggregation over each table answers all analyzers of the bucket. Schema analyzers (ColumnCount,
   ColumnExists) read the schema and run no job; query analyzers (CustomSql) run their own query.
4. With ``aggregate_with``, stored states of earlier data merge with the new ones (D ∪ ΔD from a pass
   over ΔD only); with ``save_states_with``, the merged states are persisted atomically.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from lakeindex.lake.read_errors import error_line, unreadable_file
from lakeindex.metrics.analyzer import Analyzer, MetricError, QueryAnalyzer, ScanAnalyzer, SchemaAnalyzer
from lakeindex.metrics.context import AnalyzerContext
from lakeindex.metrics.frequencies import FrequencySpec, FrequencyState
from lakeindex.metrics.grouping import GroupingAnalyzer, MutualInformation
from lakeindex.metrics.metric import Metric
from lakeindex.metrics.state_store import FileSystemStateStore
from lakeindex.metrics.states import State

if TYPE_CHECKING:
    import pandas as pd
    from pyspark.sql import Column, DataFrame, SparkSession


def failed_metric_reason(exc: BaseException) -> str:
    """Why Spark could not compute a metric, in one line; an unreadable data file is no failed metric but bad
    input for the whole run, so it is raised again."""
    if unreadable_file(exc):
        raise exc
    return error_line(exc)


def frequency_key(spec: FrequencySpec) -> str:
    return f"frequencies:{spec!r}"


class AnalysisRunner:
    """Builder: ``AnalysisRunner.on_data(df).add_analyzers([...]).aggregate_with(store).run()``."""

    def __init__(self, data: DataFrame) -> None:
        self.data = data
        self.analyzers: list[Analyzer] = []
        self.previous: FileSystemStateStore | None = None
        self.next: FileSystemStateStore | None = None

    @classmethod
    def on_data(cls, data: DataFrame | pd.DataFrame) -> AnalysisRunner:
        """Analyze a Spark DataFrame, or a pandas one (converted through Arrow, see spark_frames)."""
        from lakeindex.spark_frames import as_spark_frame

        return cls(as_spark_frame(data))

    def add_analyzer(self, analyzer: Analyzer) -> AnalysisRunner:
        if not isinstance(analyzer, Analyzer):
            raise TypeError(f"not an analyzer: {analyzer!r}")
        if analyzer not in self.analyzers:
            self.analyzers.append(analyzer)
        return self

    def add_analyzers(self, analyzers: Iterable[Analyzer]) -> AnalysisRunner:
        for a in analyzers:
            self.add_analyzer(a)
        return self

    def aggregate_with(self, store: FileSystemStateStore | str | None) -> AnalysisRunner:
        """Merge stored states of the data seen before (the result covers it plus this data)."""
        self.previous = FileSystemStateStore(store) if isinstance(store, str) else store
        return self

    def save_states_with(self, store: FileSystemStateStore | str | None) -> AnalysisRunner:
        """Persist the (merged) states so the next delta can be aggregated with them."""
        self.next = FileSystemStateStore(store) if isinstance(store, str) else store
        return self

    def run(self) -> AnalyzerContext:
        return run_analysis(self.data, self.analyzers, self.previous, self.next)


def _check(analyzers: list[Analyzer], df: DataFrame, out: dict[Analyzer, Metric]) -> list[Analyzer]:
    ok = []
    for a in analyzers:
        try:
            a.preconditions(df.schema)
            ok.append(a)
        except MetricError as exc:
            out[a] = a.failure(str(exc))
    return ok


def _aggregate(df: DataFrame, exprs: dict[str, Column], projections: dict[str, Column] | None = None) -> dict[str, Any]:
    if projections:  # computed once per row, shared by every aggregate reading them
        df = df.select("*", *[e.alias(k) for k, e in projections.items()])
    keys = list(exprs)
    row = df.agg(*[exprs[k].alias(f"m{i}") for i, k in enumerate(keys)]).collect()[0]
    return {k: row[i] for i, k in enumerate(keys)}


def compute_scan_states(df: DataFrame, analyzers: list[ScanAnalyzer],
                        out: dict[Analyzer, Metric]) -> dict[Analyzer, State]:
    """States of all scan analyzers from one shared aggregation (failures isolated per analyzer)."""
    exprs: dict[str, Column] = OrderedDict()
    projections: dict[str, Column] = OrderedDict()
    for a in analyzers:
        exprs.update(a.aggregations())
        projections.update(a.projections())
    if not exprs:
        return {}
    try:
        row = _aggregate(df, exprs, projections)
        good = analyzers
    except Exception:  # noqa: BLE001 - Spark raises many types; isolate the culprit below
        row, good = {}, []
        for a in analyzers:
            try:
                row.update(_aggregate(df, a.aggregations(), a.projections()))
                good.append(a)
            except Exception as exc:  # noqa: BLE001
                out[a] = a.failure(f"{a.spec()}: {failed_metric_reason(exc)}")
    states = {a: a.state_from(row) for a in good}
    refinements = {a: r for a, st in states.items() if (r := a.refinement(st))}
    if refinements:  # one more shared pass, only for the states that asked (see ScanAnalyzer.refinement)
        exprs = OrderedDict((k, e) for r in refinements.values() for k, e in r.items())
        try:
            row = _aggregate(df, exprs)
        except Exception as exc:  # noqa: BLE001
            for a in refinements:
                out[a] = a.failure(f"{a.spec()}: {failed_metric_reason(exc)}")
                del states[a]
            return states
        for a in refinements:
            states[a] = a.refined(states[a], row)
    return states


def compute_metrics(analyzers: list[Analyzer], scan_states: dict[Analyzer, State],
                    tables: dict[FrequencySpec, FrequencyState | None], out: dict[Analyzer, Metric]) -> None:
    """Metrics from states; grouping analyzers sharing a table are answered by one aggregation over it."""
    for a, state in scan_states.items():
        out[a] = a.metric_from_state(state)
    buckets: dict[FrequencySpec, list[GroupingAnalyzer]] = OrderedDict()
    for a in analyzers:
        if isinstance(a, GroupingAnalyzer) and a not in out:
            buckets.setdefault(a.frequency_spec(), []).append(a)
    for spec, members in buckets.items():
        state = tables.get(spec)
        if state is None:
            for a in members:
                out[a] = a.metric_from_state(None)
            continue
        exprs: dict[str, Column] = OrderedDict()
        for a in members:
            if not isinstance(a, MutualInformation):
                exprs.update(a.table_aggregations())
        try:
            row = _aggregate(state.table, exprs) if exprs else {}
            for a in members:
                out[a] = a.metric_from_table(row, state)
        except Exception as exc:  # noqa: BLE001
            for a in members:
                out.setdefault(a, a.failure(f"{a.spec()}: {failed_metric_reason(exc)}"))


def run_analysis(df: DataFrame, analyzers: Iterable[Analyzer], previous: FileSystemStateStore | None = None,
                 save_to: FileSystemStateStore | None = None) -> AnalyzerContext:
    """Compute the analyzers' metrics on ``df`` (merged with ``previous`` states), persisting to ``save_to``.

    Shuffles (frequency tables) are sized from ``df``'s input files (:mod:`lakeindex.shuffle_sizing`)."""
    from lakeindex.shuffle_sizing import local_input_bytes, sized_shuffles

    columns = df.columns  # grouping analyzers over "all columns" (DuplicateRowCount()) learn them here
    analyzers = [a.on_columns(columns) if isinstance(a, GroupingAnalyzer) else a
                 for a in OrderedDict.fromkeys(analyzers)]
    with sized_shuffles(df.sparkSession, local_input_bytes(df)):
        return _run_analysis(df, analyzers, previous, save_to)


def _run_analysis(df: DataFrame, analyzers: list[Analyzer], previous: FileSystemStateStore | None,
                  save_to: FileSystemStateStore | None) -> AnalyzerContext:
    out: dict[Analyzer, Metric] = {}
    ok = _check(analyzers, df, out)
    scan = [a for a in ok if isinstance(a, ScanAnalyzer)]
    scan_states = compute_scan_states(df, scan, out)
    # schema states travel with the scan states: merged, saved and turned into metrics the same way
    scan_states.update({a: a.state_from_schema(df.schema) for a in ok if isinstance(a, SchemaAnalyzer)})
    for a in ok:  # their own queries; with stored states they fail (nothing to merge), see QueryAnalyzer
        if isinstance(a, QueryAnalyzer):
            out[a] = a.metric_from_data(df) if previous is None else a.metric_from_state(None)
    if previous is not None:
        for a, st in list(scan_states.items()):
            old = previous.load(a.spec())
            scan_states[a] = old.merge(st) if old is not None else st
    specs = list(OrderedDict.fromkeys(a.frequency_spec() for a in ok if isinstance(a, GroupingAnalyzer)))
    tables: dict[FrequencySpec, FrequencyState | None] = {}
    spark = df.sparkSession
    for spec in specs:
        try:
            table = FrequencyState(spec.table(df), tuple(spec.names()))
        except Exception as exc:  # noqa: BLE001 - a bad where/bin expression fails the analyzers of this table only
            for a in ok:
                if isinstance(a, GroupingAnalyzer) and a.frequency_spec() == spec:
                    out[a] = a.failure(f"{a.spec()}: {failed_metric_reason(exc)}")
            continue
        if previous is not None:
            old = previous.load(frequency_key(spec), spark)
            if old is not None:
                table = old.merge(table)
        table.table.persist()
        tables[spec] = table
    try:
        if save_to is not None:
            for a, st in scan_states.items():
                save_to.save(a.spec(), st)
            for spec, table in tables.items():
                save_to.save(frequency_key(spec), table)
        compute_metrics(ok, scan_states, tables, out)
    finally:
        for table in tables.values():
            table.table.unpersist()
    return AnalyzerContext(OrderedDict((a, out[a]) for a in analyzers))


def run_on_aggregated_states(spark: SparkSession, analyzers: Iterable[Analyzer],
                             stores: Iterable[FileSystemStateStore]) -> AnalyzerContext:
    """Metrics of the union of several datasets (e.g. partitions) from their stored states alone, no scan."""
    analyzers = list(OrderedDict.fromkeys(analyzers))
    stores = list(stores)
    out: dict[Analyzer, Metric] = {}
    scan_states: dict[Analyzer, State] = {}
    tables: dict[FrequencySpec, FrequencyState | None] = {}

    def merged(key: str) -> State | None:
        acc = None
        for s in stores:
            st = s.load(key, spark)
            acc = st if acc is None else (acc.merge(st) if st is not None else acc)
        return acc

    for a in analyzers:
        if isinstance(a, ScanAnalyzer | SchemaAnalyzer):
            st = merged(a.spec())
            if st is None:
                out[a] = a.failure(f"{a.spec()}: no stored state in any of the given stores")
            else:
                scan_states[a] = st
        elif isinstance(a, QueryAnalyzer):
            out[a] = a.metric_from_state(None)
        elif isinstance(a, GroupingAnalyzer):
            spec = a.frequency_spec()
            if spec not in tables:
                tables[spec] = merged(frequency_key(spec))  # type: ignore[assignment]
    compute_metrics(analyzers, scan_states, tables, out)
    return AnalyzerContext(OrderedDict((a, out[a]) for a in analyzers))



