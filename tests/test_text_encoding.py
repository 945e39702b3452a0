"""One encoding behaviour for every command that reads text data: ``--encoding`` for both readers, and without
it, on undecodable input, exit 2 naming the file, the byte offset and the option.

Oracles: the byte offsets are counted by hand from the literals below (and checked against Python's own
codec error), the decoded values are the literals the files were encoded from.
"""

from __future__ import annotations

import json

import pytest

from lakeindex.cli import build_parser, main
from lakeindex.lake import text_encoding
from lakeindex.lake.dataset import DatasetError, read_dataset
from lakeindex.lake.local_dataset import read_local
from lakeindex.lake.text_encoding import EncodingError, check_file, spark_charset

ROWS = [("1", "Zürich"), ("2", "Málaga")]
CSV_TEXT = "id,city\n1,Zürich\n2,Málaga\n"
BAD_AT = len(b"id,city\n1,Z")  # 11: the first byte of "ü", 0xfc in Latin-1, starts no UTF-8 sequence


def error_of(capsys) -> str:
    return json.loads(capsys.readouterr().err.strip().splitlines()[-1])["error"]


def assert_names_file_byte_and_option(message: str, path: str, offset: int) -> None:
    assert path in message and f"byte {offset} " in message and "--encoding" in message, message


@pytest.fixture()
def latin1_csv(tmp_path):
    path = tmp_path / "cities.csv"
    path.write_bytes(CSV_TEXT.encode("latin-1"))
    with pytest.raises(UnicodeDecodeError) as exc:  # precondition: the offset is Python's too
        path.read_bytes().decode("utf-8")
    assert exc.value.start == BAD_AT
    return path


def test_every_data_command_takes_encoding():
    parser = build_parser()
    commands = [["check", "d.csv", "--checks", "c.json"], ["profile", "d.csv"], ["suggest", "d.csv"],
                ["infer", "--index", "ix", "--values", "v.txt"], ["infer", "--index", "ix", "--data", "d.csv"],
                ["validate", "--rule", "r.json", "--values", "v.txt"],
                ["history", "add", "--repo", "r", "--dataset", "d", "d.csv", "--batch", "b"],
                ["history", "backfill", "--repo", "r", "--dataset", "d", "parts"],
                ["avh", "check", "--repo", "r", "--dataset", "d", "d.csv"],
                ["novelty", "check", "--repo", "r", "--dataset", "d", "d.csv"],
                ["validate-batch", "--repo", "r", "--dataset", "d", "d.csv"],
                ["index", "build", "lake", "--out", "ix"], ["tag", "lake", "--index", "ix"]]
    for argv in commands:
        assert parser.parse_args([*argv, "--encoding", "latin-1"]).encoding == "latin-1", argv


def test_infer_values_names_the_file_byte_and_option(index, tmp_path, capsys):
    values = tmp_path / "values.txt"
    values.write_bytes("ORD-00000001\nZürich\n".encode("latin-1"))
    assert main(["infer", "--index", index, "--values", str(values)]) == 2
    assert_names_file_byte_and_option(error_of(capsys), str(values), len(b"ORD-00000001\nZ"))
    # with the file's encoding it reads the same values as their UTF-8 copy
    utf8 = tmp_path / "utf8.txt"
    utf8.write_text("ORD-00000001\nZürich\n", encoding="utf-8")
    assert main(["infer", "--index", index, "--values", str(values), "--encoding", "latin-1"]) == 0
    latin_rule = capsys.readouterr().out
    assert main(["infer", "--index", index, "--values", str(utf8)]) == 0
    assert capsys.readouterr().out == latin_rule


def test_validate_values_json_names_the_file(index, tmp_path, capsys):
    good = tmp_path / "good.txt"
    good.write_text("\n".join(f"ORD-{i:08d}" for i in range(40)) + "\n", encoding="utf-8")
    assert main(["infer", "--index", index, "--values", str(good)]) == 0
    rule = tmp_path / "rule.json"
    rule.write_text(capsys.readouterr().out, encoding="utf-8")
    batch = tmp_path / "batch.json"
    batch.write_bytes(json.dumps(["ORD-00000001", "Málaga"], ensure_ascii=False).encode("cp1252"))
    assert main(["validate", "--rule", str(rule), "--values-json", str(batch)]) == 2
    assert_names_file_byte_and_option(error_of(capsys), str(batch), len(b'["ORD-00000001", "M'))


def test_unknown_encoding_is_bad_input(index, tmp_path, capsys):
    values = tmp_path / "v.txt"
    values.write_text("x\n", encoding="utf-8")
    assert main(["infer", "--index", index, "--values", str(values), "--encoding", "no-such-codec"]) == 2
    assert "--encoding 'no-such-codec'" in error_of(capsys)


def test_history_commands_refuse_undecodable_batches_without_spark(latin1_csv, tmp_path, capsys):
    repo = ["--repo", str(tmp_path / "repo"), "--dataset", "cities"]
    # the default engine would have handed the file to Spark, which reads U+FFFD for each bad byte
    assert main(["validate-batch", *repo, str(latin1_csv), "--quiet"]) == 2
    assert_names_file_byte_and_option(error_of(capsys), str(latin1_csv), BAD_AT)
    assert main(["history", "add", *repo, str(latin1_csv), "--batch", "b1", "--engine", "local", "--quiet"]) == 2
    assert_names_file_byte_and_option(error_of(capsys), str(latin1_csv), BAD_AT)
    assert main(["history", "add", *repo, str(latin1_csv), "--batch", "b1", "--engine", "local", "--quiet",
                 "--encoding", "latin-1"]) == 0
    got = read_local(str(latin1_csv), encoding="latin-1")
    assert [tuple(r) for r in got.frame.itertuples(index=False, name=None)] == ROWS


def test_spark_reader_refuses_or_decodes(spark, latin1_csv, tmp_path):
    with pytest.raises(EncodingError) as exc:
        read_dataset(spark, str(latin1_csv), infer_schema=False)
    assert_names_file_byte_and_option(str(exc.value), str(latin1_csv), BAD_AT)
    df = read_dataset(spark, str(latin1_csv), infer_schema=False, encoding="latin-1")
    assert [tuple(r) for r in df.collect()] == ROWS
    euro = tmp_path / "prices.csv"  # 0x80 is the euro sign in Windows-1252 only (a C1 control in Latin-1)
    euro.write_bytes("item,price\ntea,€3\n".encode("cp1252"))
    assert [tuple(r) for r in read_local(str(euro), encoding="cp1252").frame.itertuples(index=False)] \
        == [("tea", "€3")]
    with pytest.raises(DatasetError, match="--encoding cp1252: Spark reads only"):  # Spark 4 has no cp1252
        read_dataset(spark, str(euro), infer_schema=False, encoding="cp1252")
    jsonl = tmp_path / "rows.jsonl"
    jsonl.write_bytes('{"city": "Málaga"}\n'.encode("latin-1"))
    with pytest.raises(EncodingError):
        read_dataset(spark, str(jsonl))
    assert [r.city for r in read_dataset(spark, str(jsonl), encoding="latin-1").collect()] == ["Málaga"]


def test_check_file_offsets_across_chunks(tmp_path, monkeypatch):
    monkeypatch.setattr(text_encoding, "CHECK_CHUNK_BYTES", 4)
    good = tmp_path / "good.txt"
    good.write_bytes("abc€déf日本".encode())  # multi-byte characters split across 4-byte chunks
    check_file(str(good))
    for data in [b"abcdefg\xff", "a€".encode() + b"\xe2\x82", b"ab\xc3(xyz"]:
        bad = tmp_path / "bad.txt"
        bad.write_bytes(data)
        with pytest.raises(UnicodeDecodeError) as expected:
            data.decode("utf-8")
        with pytest.raises(EncodingError) as exc:
            check_file(str(bad))
        assert f"byte {expected.value.start} " in str(exc.value), (data, str(exc.value))


def test_spark_charset_names():
    assert [spark_charset(e) for e in (None, "latin-1", "latin1", "utf-16-le", "utf_8", "cp1252")] \
        == ["utf-8", "iso-8859-1", "iso-8859-1", "utf-16le", "utf-8", None]


def test_index_build_reads_the_lake_in_its_encoding(spark, tmp_path):
    """A Latin-1 lake built with --encoding latin-1 gives the index of its UTF-8 copy, key by key; without it the
    file is read with U+FFFD for its bad bytes and the issue names the file, the byte and the option."""
    from lakeindex.index import build as job
    from lakeindex.index.store import IndexReader

    latin, utf8 = tmp_path / "latin", tmp_path / "utf8"
    latin.mkdir()
    utf8.mkdir()
    (latin / "cities.csv").write_bytes(CSV_TEXT.encode("latin-1"))
    (utf8 / "cities.csv").write_bytes(CSV_TEXT.encode("utf-8"))
    job.build_index(spark, str(latin), tmp_path / "ix-latin", min_coverage=1, progress=False, encoding="latin-1")
    job.build_index(spark, str(utf8), tmp_path / "ix-utf8", min_coverage=1, progress=False)
    with IndexReader(tmp_path / "ix-latin") as a, IndexReader(tmp_path / "ix-utf8") as b:
        assert dict(a.items()) == dict(b.items()) and len(dict(b.items())) > 0
    meta = job.build_index(spark, str(latin), tmp_path / "ix-plain", min_coverage=1, progress=False)
    (issue,) = [i["issue"] for i in meta["issues"] if i["file"] == "cities.csv"]
    assert_names_file_byte_and_option(issue, "cities.csv", BAD_AT)
    assert "U+FFFD" in issue
