"""A local batch read as text is profiled without pandas (``TextFrame``) and gives the record pandas gives.

Oracles: the pandas path (``profile_frame``, ``summarize_series``, ``infer_kind``, ``DataFrame.sample``,
Arrow's ``to_pandas``) on the same values, compared exactly; and, for
the process, ``sys.modules`` of a real ``lakeindex`` command.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from dataclasses import asdict
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

from bench.recurring_dataset import generate
from lakeindex.history.batches import SAMPLE_ROWS, frame_sample, profile, profile_frame, profile_text
from lakeindex.history.kinds import CATEGORICAL, NUMERIC, infer_kind, infer_text_kind
from lakeindex.history.summary import summarize_series, summarize_text
from lakeindex.lake.local_dataset import read_local
from lakeindex.lake.text_frame import TextFrame, present_text
from lakeindex.novelty.features import index_of_peculiarity

ROOT = Path(__file__).resolve().parents[1]


def canonical(x: object) -> str:
    """JSON with NaN spelled out, so records holding NaN compare equal when they are."""
    def fix(v: object) -> object:
        if isinstance(v, float) and math.isnan(v):
            return "NaN"
        if isinstance(v, dict):
            return {str(k): fix(w) for k, w in v.items()}
        if isinstance(v, list | tuple):
            return [fix(w) for w in v]
        return v
    return json.dumps(fix(x), sort_keys=True)


def hostile_columns(n: int, seed: int) -> dict[str, list[str | None]]:
    """Text columns of every shape the summaries tell apart."""
    rng = np.random.default_rng(seed)

    def pick(pool: list[str | None]) -> list[str | None]:
        return [pool[i] for i in rng.integers(0, len(pool), n)]

    numbers = [f"{x:.2f}" for x in rng.normal(100, 30, n)]
    return {
        "amount": [v if rng.random() > 0.05 else None for v in numbers],
        "dirty_number": pick(["1", "2.5", "-3e4", "N/A", "", None, " 7", "inf", "1e400", "0x1F"]),
        "mostly_numbers": [v if rng.random() > 0.08 else "oops" for v in numbers],
        "category": pick(["a", "B", "ü", "日本", "", None, "a ", " ", "a,b", "\u00e9"]),
        "ids": [f"ID-{i:06d}" for i in rng.permutation(n)],
        "all_null": [None] * n,
        "all_empty": [""] * n,
        "flags": pick(["true", "false", None]),
    }


def text_frame(columns: dict[str, list[str | None]]) -> TextFrame:
    return TextFrame(tuple(columns), tuple(np.array(v, dtype=object) for v in columns.values()))


def pandas_frame(columns: dict[str, list[str | None]]) -> pd.DataFrame:
    return pd.DataFrame({c: pd.Series(v, dtype=object) for c, v in columns.items()})


@pytest.mark.parametrize("seed", [0, 1])
def test_text_summaries_and_kinds_equal_pandas(seed):
    cols = hostile_columns(700, seed)
    for name, values in cols.items():
        series, array = pd.Series(values, dtype=object), np.array(values, dtype=object)
        assert infer_text_kind(array) == infer_kind(series), name
        for kind in (None, NUMERIC, CATEGORICAL):
            for limit in (100_000, 5):
                expected = summarize_series(series, kind, exact_distinct_limit=limit, top_k=20)
                got = summarize_text(array, kind, exact_distinct_limit=limit, top_k=20)
                assert canonical(asdict(got)) == canonical(asdict(expected)), (name, kind, limit)


def test_text_frame_from_a_csv_is_arrows_pandas_frame(tmp_path):
    path = tmp_path / "batch.csv"
    path.write_text('id,name,note\n1,"a, b",\n2,,x\n3,ü,"" \n'.replace('"" \n', '""\n'), encoding="utf-8")
    got = read_local(str(path))
    batch = got.batch()
    assert isinstance(batch, TextFrame)
    pd.testing.assert_frame_equal(batch.to_pandas(), got.table.to_pandas())
    assert batch["name"].tolist() == ["a, b", None, "ü"]  # an empty field is a null, as Spark reads it
    assert present_text(batch, "name") == present_text(got.frame, "name") == ["a, b", "ü"]


def test_typed_parquet_stays_pandas_and_mismatched_part_types_go_to_spark(tmp_path):
    import pyarrow.parquet as pq

    typed = tmp_path / "typed"
    typed.mkdir()
    pq.write_table(pa.table({"x": [1, 2], "s": ["a", None]}), typed / "part-0.parquet")
    assert isinstance(read_local(str(typed)).batch(), pd.DataFrame)
    pq.write_table(pa.table({"x": [1.5], "s": ["b"]}), typed / "part-1.parquet")
    got = read_local(str(typed))
    assert got.table is None and "types" in got.reason


@pytest.mark.parametrize("rows,n,seed", [(50, 10, 7), (12_000, SAMPLE_ROWS, 7), (999, 998, 3)])
def test_text_sample_draws_the_rows_pandas_draws(rows, n, seed):
    cols = {"i": [str(k) for k in range(rows)], "j": [None if k % 3 else "v" for k in range(rows)]}
    got = text_frame(cols).sample(n, seed).to_pandas()
    expected = pandas_frame(cols).sample(n=n, random_state=seed).sort_index().reset_index(drop=True)
    pd.testing.assert_frame_equal(got, expected)
    if n == SAMPLE_ROWS:
        pd.testing.assert_frame_equal(got, frame_sample(pandas_frame(cols)))


def _record_json(record) -> str:
    return canonical({"summaries": {c: asdict(s) for c, s in record.summaries.items()},
                      "features": record.features, "issue_features": record.issue_features,
                      "novelty": record.novelty, "values": record.value_samples, "notes": record.notes})


@pytest.mark.parametrize("rows", [400, SAMPLE_ROWS + 1500])
def test_profile_text_records_what_profile_frame_records(rows):
    """Summaries, features against the previous batch, novelty features, value samples and the synthetic-issue
    features (one worker, and forked workers) of a text batch equal those of its pandas frame."""
    frames = generate(2, rows=rows, seed=11)
    texts = [f.astype(str).where(f.notna(), None).astype(object) for f in frames]
    extra = hostile_columns(len(texts[1]), 4)
    texts[1] = texts[1].assign(**{k: pd.Series(v, dtype=object) for k, v in extra.items()})
    texts[0] = texts[0].assign(**{k: pd.Series(v, dtype=object) for k, v in hostile_columns(len(texts[0]), 5).items()})
    previous = profile_frame(texts[0], "b0", None, issues=False)
    as_text = TextFrame(tuple(texts[1].columns), tuple(texts[1][c].to_numpy(dtype=object) for c in texts[1].columns))
    expected = profile_frame(texts[1], "b1", previous, issues=True)
    got = profile(as_text, "b1", previous, issues=True)  # dispatches to profile_text
    assert isinstance(got.sample, TextFrame)
    assert got.notes == expected.notes and got.issue_features
    assert _record_json(got) == _record_json(expected)
    alone = profile_text(as_text, "b1", None, issues=True)
    assert _record_json(alone) == _record_json(profile_frame(texts[1], "b1", None, issues=True))


def test_peculiarity_treats_missing_values_as_pandas_does():
    values = ["abc", None, float("nan"), pd.NA, pd.NaT, "xyz zyx", "", "qqq"] * 30
    series = pd.Series(values, dtype=object)
    present = series[series.notna()].astype(str)
    assert index_of_peculiarity(values) == index_of_peculiarity(present.tolist())
    assert index_of_peculiarity(values, max_values=50, seed=2) == index_of_peculiarity(present.tolist(),
                                                                                         max_values=50, seed=2)


@pytest.fixture(scope="module")
def small_history(tmp_path_factory):
    base = tmp_path_factory.mktemp("nopandas")
    frames = generate(6, rows=300, seed=2)
    for k, frame in enumerate(frames):
        frame.to_csv(base / f"2024-01-0{k + 1}.tsv", sep="\t", index=False)
    parts = base / "parts"
    parts.mkdir()
    for k in range(5):
        (base / f"2024-01-0{k + 1}.tsv").rename(parts / f"2024-01-0{k + 1}.tsv")
    repo = base / "repo"
    out = subprocess.run([sys.executable, "-m", "lakeindex.cli", "history", "backfill", "--repo", str(repo),
                          "--dataset", "d", str(parts), "--quiet"], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    return base, repo


@pytest.mark.parametrize("command", [["history", "add", "--batch", "b6"], ["avh", "check"], ["novelty", "check"],
                                     ["validate-batch", "--batch", "b6"], ["validate-batch", "--dry-run"]])
def test_history_commands_on_a_local_text_batch_never_import_pandas(small_history, tmp_path, command):
    """The point of TextFrame: a history command on a small CSV/TSV file does not pay pandas' import."""
    import shutil

    base, repo = small_history
    work = tmp_path / "repo"
    shutil.copytree(repo, work)
    argv = [*command, "--repo", str(work), "--dataset", "d", str(base / "2024-01-06.tsv")]
    code = ("import sys, runpy\n"
            f"sys.argv = ['lakeindex', *{argv!r}]\n"
            "try:\n    runpy.run_module('lakeindex.cli', run_name='__main__')\n"
            "except SystemExit as e:\n    code = e.code\n"
            "print('PANDAS', 'pandas' in sys.modules, code, file=sys.stderr)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, cwd=ROOT)
    last = out.stderr.strip().splitlines()[-1]
    assert last.split()[0] == "PANDAS", out.stderr[-2000:]
    assert last.split()[1] == "False" and last.split()[2] in ("0", "1"), out.stderr[-2000:]  # pass or flag
    assert json.loads(out.stdout)  # a real report came out
