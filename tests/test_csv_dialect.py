"""The lake scan reads CSV/TSV in the RFC 4180 dialect the dataset readers use: a hostile file counts in the
index exactly as its Parquet copy, whose values come from Python's csv module (the oracle: doubled quotes,
quoted line breaks, backslashes as ordinary characters)."""

from __future__ import annotations

import csv
import io

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from lakeindex.index.scan import profile_file
from lakeindex.patterns.enumerate import EnumerationLimits
from tests.test_local_history import HOSTILE_CSV, READER_CASES

CASES = {"hostile.csv": HOSTILE_CSV, "hostile_crlf.csv": READER_CASES["hostile_crlf.csv"],
         "hostile.tsv": READER_CASES["hostile.tsv"]}


def parquet_copy(name: str, data: bytes) -> bytes:
    """The file's table as Parquet, parsed by Python's csv module; empty fields are nulls."""
    text = data.decode("utf-8-sig")
    header, *rows = list(csv.reader(io.StringIO(text, newline=""), delimiter="\t" if name.endswith(".tsv") else ","))
    rows = [r for r in rows if r]  # blank lines are no rows
    columns = {h: pa.array([r[i] or None for r in rows], pa.string()) for i, h in enumerate(header)}
    sink = pa.BufferOutputStream()
    pq.write_table(pa.table(columns), sink)
    return sink.getvalue().to_pybytes()


@pytest.mark.parametrize("name", sorted(CASES))
def test_scan_counts_a_hostile_csv_as_its_parquet_copy(name):
    limits = EnumerationLimits()
    from_csv: dict[str, list[int]] = {}
    from_parquet: dict[str, list[int]] = {}
    csv_stats = profile_file(name, CASES[name], limits, from_csv)
    parquet_stats = profile_file(name.rsplit(".", 1)[0] + ".parquet", parquet_copy(name, CASES[name]), limits,
                                 from_parquet)
    assert "skipped" not in csv_stats or not csv_stats["skipped"], csv_stats
    assert (csv_stats["columns"], csv_stats["cells"], csv_stats["values"]) == \
        (parquet_stats["columns"], parquet_stats["cells"], parquet_stats["values"])
    assert from_csv == from_parquet
    assert from_csv  # the file was indexed
