"""The on-disk row format of the metrics repository: one Parquet row per metric of a saved result.

A scalar value goes to ``value`` (float64, so NaN and ±inf survive natively); any other value (a histogram
or quantile dict, or a list/bool/str) goes to ``value_json``. ``written_at_ns`` and ``write_id`` identify
the save a row came from, for "last write wins". A save with no metrics writes one marker row with a null
``analyzer`` so that an empty result still exists and still supersedes earlier writes of its key.
"""

from __future__ import annotations

import json
import numbers
from typing import Any

import pyarrow as pa

from lakeindex.metrics.metric import Metric
from lakeindex.repository import arrow_columns
from lakeindex.repository.result_key import ResultKey

FORMAT_VERSION = "1"

SCHEMA = pa.schema([
    pa.field("dataset", pa.string(), nullable=False),
    pa.field("timestamp_ms", pa.int64(), nullable=False),
    pa.field("tags_json", pa.string(), nullable=False),
    pa.field("tags", pa.map_(pa.string(), pa.string())),
    pa.field("analyzer", pa.string()),  # null only on the marker row of an empty save
    pa.field("name", pa.string()),
    pa.field("instance", pa.string()),
    pa.field("entity", pa.string()),
    pa.field("value", pa.float64()),
    pa.field("value_json", pa.string()),
    pa.field("error", pa.string()),
    pa.field("extra_json", pa.string()),
    pa.field("written_at_ns", pa.int64(), nullable=False),
    pa.field("write_id", pa.string(), nullable=False),
], metadata={"lakeindex.metrics_repository.format": FORMAT_VERSION})

COLUMNS = SCHEMA.names


def tags_json(tags: dict[str, str] | tuple[tuple[str, str], ...]) -> str:
    """Canonical JSON of tags (sorted keys, no spaces): equal tags give equal text, so it can key a result."""
    return json.dumps(dict(tags), sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _dumps(value: Any, what: str) -> str:
    try:
        return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)  # NaN/inf kept as tokens
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{what} is not JSON-serialisable: {exc}") from exc


def metric_rows(dataset: str, key: ResultKey, metrics: list[Metric], written_at_ns: int,
                write_id: str) -> pa.Table:
    """The Arrow table stored for one save (a single marker row when ``metrics`` is empty)."""
    cols: dict[str, list[Any]] = {c: [] for c in COLUMNS}
    tj, tag_items = tags_json(key.tag_items), list(key.tag_items)
    for m in metrics or [None]:
        cols["dataset"].append(dataset)
        cols["timestamp_ms"].append(key.timestamp_ms)
        cols["tags_json"].append(tj)
        cols["tags"].append(tag_items)
        cols["written_at_ns"].append(written_at_ns)
        cols["write_id"].append(write_id)
        if m is None:
            for c in ("analyzer", "name", "instance", "entity", "value", "value_json", "error", "extra_json"):
                cols[c].append(None)
            continue
        if not isinstance(m, Metric):
            raise TypeError(f"save() takes Metric records, got {type(m).__name__}: {m!r}")
        v = m.value
        scalar = isinstance(v, numbers.Real) and not isinstance(v, bool)
        cols["analyzer"].append(m.analyzer)
        cols["name"].append(m.name)
        cols["instance"].append(m.instance)
        cols["entity"].append(m.entity)
        cols["value"].append(float(v) if scalar else None)
        cols["value_json"].append(None if scalar or v is None else _dumps(v, f"value of metric {m.analyzer}"))
        cols["error"].append(m.error)
        cols["extra_json"].append(_dumps(m.extra, f"extra of metric {m.analyzer}") if m.extra else None)
    return arrow_columns.table(cols, SCHEMA)  # not pa.Table.from_pydict: it would import pandas


def row_to_metric(row: dict[str, Any]) -> Metric:
    """The Metric stored in one (non-marker) row."""
    if row["value_json"] is not None:
        value: Any = json.loads(row["value_json"])
    elif row["value"] is not None:
        value = float(row["value"])
    else:
        value = None
    extra = json.loads(row["extra_json"]) if row["extra_json"] else {}
    return Metric(analyzer=row["analyzer"], name=row["name"], instance=row["instance"], entity=row["entity"],
                  value=value, error=row["error"], extra=extra)


def plain_row(row: dict[str, Any]) -> dict[str, Any]:
    """A stored row as returned by ``get_rows``: the map column as a dict, everything else as stored."""
    out = dict(row)
    tags = out.get("tags")
    out["tags"] = dict(tags) if tags is not None else {}
    return out


# The same columns for Spark readers (``spark.read.schema(SPARK_DDL)``): an explicit schema reads empty
# directories and keeps the column types stable whatever the files hold.
SPARK_DDL = ("dataset string, timestamp_ms bigint, tags_json string, tags map<string,string>, analyzer string, "
             "name string, instance string, entity string, value double, value_json string, error string, "
             "extra_json string, written_at_ns bigint, write_id string")
