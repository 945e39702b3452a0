"""Catalog tags (issue 13 §3): domain names from tag patterns, JSON-lines export, multi-part tables as one table.

Every column of the generated lake has a domain known from how it was generated (``TRUE_DOMAINS``); the
expectations below come from that data, never from the code under test.
"""

from __future__ import annotations

import json
import random
import uuid
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from lakeindex.cli import main as cli_main
from lakeindex.lake.listing import LakeFile
from lakeindex.lake.tables import group_files
from lakeindex.tagging.domains import DOMAIN_NAMES, DOMAINS, MIN_SHARE, confidence, name_domain, pattern_symbols
from tests.conftest import write_csv

ROWS = 30
ORDER_PARTS = 3
WORDS = ["the", "pipeline", "broke", "again;", "see", "ticket", "#42", "(urgent)", "data", "lake", "ok.", "Paris"]


def _hex(rng: random.Random, n: int) -> str:
    return "".join(rng.choice("0123456789abcdef") for _ in range(n))


def _text(rng: random.Random) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(2, 12)))


def _uuid(rng: random.Random) -> str:
    return str(uuid.UUID(int=rng.getrandbits(128)))


def _date(rng: random.Random) -> str:
    return f"20{rng.randint(10, 24)}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"


def _customers(rng: random.Random) -> dict[str, list[str]]:
    return {
        "customer_id": [_uuid(rng) for _ in range(ROWS)],
        "email": [f"{rng.choice(['ann', 'bob', 'chen', 'dora'])}.{rng.choice(['lee', 'kim', 'roe'])}"
                  f"{rng.randint(1, 99)}@{rng.choice(['example.com', 'mail.org', 'corp.net'])}" for _ in range(ROWS)],
        "country": [rng.choice(["GB", "US", "FR", "DE", "JP", "BR", "IN", "NO"]) for _ in range(ROWS)],
        "country3": [rng.choice(["GBR", "USA", "FRA", "DEU", "JPN", "BRA"]) for _ in range(ROWS)],
        "signup": [_date(rng) for _ in range(ROWS)],
        "bio": [_text(rng) for _ in range(ROWS)],
        "fax": [""] * ROWS,  # never filled in: tagged with a reason, no pattern, no domain
    }


def _events(rng: random.Random) -> dict[str, list[str]]:
    def ts() -> str:
        return f"{_date(rng)}T{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d}"

    return {
        "event_id": [_uuid(rng) for _ in range(ROWS)],
        "ip": [".".join(str(rng.randint(0, 255)) for _ in range(4)) for _ in range(ROWS)],
        "ts": [ts() + "Z" for _ in range(ROWS)],
        "ts_local": [f"{ts()}.{rng.randint(0, 999):03d}+02:00" for _ in range(ROWS)],
        "locale": [rng.choice(["en-US", "fr-FR", "de-DE", "pt-BR", "en-GB"]) for _ in range(ROWS)],
        "mac": [":".join(_hex(rng, 2).upper() for _ in range(6)) for _ in range(ROWS)],
        "ip6": [":".join(_hex(rng, 4) for _ in range(8)) for _ in range(ROWS)],
    }


def _payments(rng: random.Random) -> dict[str, list[str]]:
    return {
        "price": [f"${rng.randint(1, 9)},{rng.randint(0, 999):03d}.{rng.randint(0, 99):02d}" for _ in range(ROWS)],
        "currency": [rng.choice(["USD", "EUR", "GBP", "JPY", "CHF"]) for _ in range(ROWS)],
        "digest": [_hex(rng, 32) for _ in range(ROWS)],
        "checksum": [_hex(rng, 64) for _ in range(ROWS)],
        "phone": [f"+1-{rng.randint(200, 999)}-{rng.randint(200, 999)}-{rng.randint(0, 9999):04d}"
                  for _ in range(ROWS)],
        "zip": [f"{rng.randint(0, 99999):05d}" for _ in range(ROWS)],
        "paid": [rng.choice(["true", "false"]) for _ in range(ROWS)],
        "qty": [str(rng.randint(1, 5000)) for _ in range(ROWS)],
        "note": [_text(rng) for _ in range(ROWS)],
    }


def _orders(rng: random.Random, part: int) -> dict[str, list[str]]:
    return {
        "order_id": [_uuid(rng) for _ in range(ROWS)],
        "total": [f"{rng.uniform(1, 999):.2f}" for _ in range(ROWS)],
        "day": [_date(rng) for _ in range(ROWS)],
        "ship_to": [rng.choice(["GB", "US", "FR", "ES", "IT"]) for _ in range(ROWS)],
        "at": [f"{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d}" for _ in range(ROWS)],
        # a value only this part has: the merged sample must include every part
        "part_tag": [f"P{part}-{i:03d}" for i in range(ROWS)],
    }


def _visits(rng: random.Random) -> dict[str, list[str]]:
    return {
        "page": [f"https://{rng.choice(['example.com', 'www.shop.org'])}/{rng.choice(['a', 'docs', 'items'])}/"
                 f"{rng.randint(1, 999)}" for _ in range(ROWS)],
        "client_ip": [f"10.{rng.randint(0, 255)}.{rng.randint(0, 255)}.{rng.randint(1, 254)}" for _ in range(ROWS)],
    }


TRUE_DOMAINS = {
    ("customers.csv", "customer_id"): "uuid", ("customers.csv", "email"): "email",
    ("customers.csv", "country"): "country-code-alpha2", ("customers.csv", "country3"): "country-code-alpha3",
    ("customers.csv", "signup"): "iso-date", ("customers.csv", "bio"): None, ("customers.csv", "fax"): None,
    ("events.parquet", "event_id"): "uuid", ("events.parquet", "ip"): "ipv4", ("events.parquet", "ts"): "iso-datetime",
    ("events.parquet", "ts_local"): "iso-datetime", ("events.parquet", "locale"): "locale",
    ("events.parquet", "mac"): "mac-address", ("events.parquet", "ip6"): "ipv6",
    ("payments.jsonl", "price"): "currency-amount", ("payments.jsonl", "currency"): "currency-code",
    ("payments.jsonl", "digest"): "md5", ("payments.jsonl", "checksum"): "sha256",
    ("payments.jsonl", "phone"): "phone-number", ("payments.jsonl", "zip"): "us-zip-code",
    ("payments.jsonl", "paid"): "boolean", ("payments.jsonl", "qty"): "integer", ("payments.jsonl", "note"): None,
    ("orders", "order_id"): "uuid", ("orders", "total"): "decimal", ("orders", "day"): "iso-date",
    ("orders", "ship_to"): "country-code-alpha2", ("orders", "at"): "time-of-day",
    ("visits", "page"): "url", ("visits", "client_ip"): "ipv4",
    ("visits", "date"): "iso-date",  # the partition key of date=YYYY-MM-DD directories is a column
}
FREE_TEXT = {("customers.csv", "bio"), ("payments.jsonl", "note")}


def _write_csv(path: Path, cols: dict[str, list[str]]) -> None:
    write_csv(path, list(cols), [[cols[k][i] for k in cols] for i in range(ROWS)])


def _write_parquet(path: Path, cols: dict[str, list[str]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.table({k: pa.array(v, pa.string()) for k, v in cols.items()}), path)


def make_catalog_lake(root: Path) -> Path:
    """Single-file tables in three formats, a 3-part Spark-style table and a Hive-partitioned table."""
    rng = random.Random(13)
    _write_csv(root / "customers.csv", _customers(rng))
    _write_parquet(root / "events.parquet", _events(rng))
    pay = _payments(rng)
    (root / "payments.jsonl").write_text("\n".join(json.dumps({k: pay[k][i] for k in pay}) for i in range(ROWS)) + "\n")
    for part in range(ORDER_PARTS):
        _write_parquet(root / "orders" / f"part-{part:05d}-{uuid.UUID(int=part)}-c000.snappy.parquet",
                       _orders(rng, part))
    (root / "orders" / "_SUCCESS").write_text("")
    for day in ("2024-01-01", "2024-01-02"):
        _write_csv(root / "visits" / f"date={day}" / "part-0.csv", _visits(rng))
    return root


@pytest.fixture(scope="module")
def tagged(spark, tmp_path_factory) -> tuple[Path, Path, dict]:
    from lakeindex.index.build import build_index
    from lakeindex.tagging.tag_lake import tag_lake

    base = tmp_path_factory.mktemp("catalog")
    lake = make_catalog_lake(base / "lake")
    build_index(spark, str(lake), base / "ix", min_coverage=1, progress=False)
    return lake, base / "ix", tag_lake(spark, str(lake), str(base / "ix"))


# ------------------------------------------------------------------------------------------ lake tagging

def test_every_column_gets_its_true_domain(tagged):
    _, _, out = tagged
    got = {(c["table"], c["column"]): c["domain"] for c in out["columns"] if c["column"] != "part_tag"}
    assert got == TRUE_DOMAINS


def test_every_value_of_a_single_file_table_is_sampled(tagged):
    _, _, out = tagged
    for c in out["columns"]:
        if c["table"] not in ("orders", "visits") and c["column"] != "fax":
            assert c["files"] == 1 and c["values"] == ROWS, c
    fax = next(c for c in out["columns"] if (c["table"], c["column"]) == ("customers.csv", "fax"))
    assert fax["values"] == 0 and fax["tag"] is None and fax["domain"] is None and fax["reason"]


def test_free_text_gets_no_domain_and_no_pattern(tagged):
    _, _, out = tagged
    for c in out["columns"]:
        if (c["table"], c["column"]) in FREE_TEXT:
            assert c["domain"] is None and c["tag"] is None and c["confidence"] is None, c


def test_pattern_is_the_evidence_and_confidence_follows_the_formula(tagged):
    _, _, out = tagged
    for c in out["columns"]:
        if c["domain"] is None:
            continue
        assert c["tag"] and c["coverage"] >= 1 and 0 <= c["fpr"] <= 0.05, c
        assert DOMAIN_NAMES[c["domain"]].fits(c["tag"])
        assert c["share"] == 1.0  # every generated value is of its domain
        assert c["confidence"] == pytest.approx((1 - c["fpr"]) * c["coverage"] / (c["coverage"] + 1), abs=1e-4)
    # uuids are 9 tokens, wider than the index's tau = 8: the pattern comes from vertical cuts
    uuid_col = next(c for c in out["columns"] if (c["table"], c["column"]) == ("customers.csv", "customer_id"))
    assert uuid_col["method"] == "fmdv-vh" and uuid_col["tag"].count("-") == 4
    ip_col = next(c for c in out["columns"] if (c["table"], c["column"]) == ("events.parquet", "ip"))
    assert ip_col["method"] == "tag"


def test_multi_part_tables_are_one_table_whose_sample_covers_all_parts(tagged):
    _, _, out = tagged
    assert out["tables"] == 5
    assert {c["table"] for c in out["columns"]} == {"customers.csv", "events.parquet", "payments.jsonl", "orders",
                                                    "visits"}
    orders = {c["column"]: c for c in out["columns"] if c["table"] == "orders"}
    assert set(orders) == {"order_id", "total", "day", "ship_to", "at", "part_tag"}
    for c in orders.values():
        assert c["files"] == ORDER_PARTS and c["values"] == ORDER_PARTS * ROWS
    # P0-000 .. P2-029: one pattern for the values of all three parts
    assert orders["part_tag"]["tag"] is not None and orders["part_tag"]["values"] == 90
    visits = {c["column"]: c for c in out["columns"] if c["table"] == "visits"}
    assert visits["page"]["files"] == 2 and visits["page"]["values"] == 2 * ROWS


def test_sample_stays_bounded_and_round_robin_over_parts(spark, tagged):
    from lakeindex.tagging.tag_lake import tag_lake

    lake, ix, _ = tagged
    out = tag_lake(spark, str(lake), str(ix), sample=12)
    for c in out["columns"]:
        assert c["values"] <= 12, c
    orders = {c["column"]: c for c in out["columns"] if c["table"] == "orders"}
    assert orders["order_id"]["values"] == 12 and orders["order_id"]["files"] == ORDER_PARTS
    assert orders["order_id"]["domain"] == "uuid"


def test_grouped_by_domain_keeps_the_pattern_groups(tagged):
    _, _, out = tagged
    by_domain = {d["domain"]: d for d in out["by_domain"]}
    expected: dict[str, set[str]] = {}
    for (table, column), dom in TRUE_DOMAINS.items():
        if dom:
            expected.setdefault(dom, set()).add(f"{table}:{column}")
    assert {d: set(g["columns"]) for d, g in by_domain.items()} == expected
    assert by_domain["uuid"]["description"] and len(by_domain["uuid"]["columns"]) == 3
    assert set(by_domain["iso-date"]["patterns"]) == {c["tag"] for c in out["columns"] if c["domain"] == "iso-date"}
    sizes = [len(g["columns"]) for g in out["by_domain"]]
    assert sizes == sorted(sizes, reverse=True)
    for g in out["domains"]:  # today's pattern groups are still there
        assert len(g["columns"]) > 1 and all(c["tag"] == g["tag"] for c in out["columns"]
                                             if f"{c['table']}:{c['column']}" in g["columns"])


def test_cli_writes_catalog_jsonl_atomically(spark, tagged, tmp_path, capsys):
    lake, ix, _ = tagged
    dest = tmp_path / "catalog.jsonl"
    dest.write_text("old content\n")
    assert cli_main(["tag", "--index", str(ix), str(lake), "--jsonl", str(dest), "--quiet"]) == 0
    summary = json.loads(capsys.readouterr().out)
    lines = [json.loads(line) for line in dest.read_text().splitlines()]
    assert summary["jsonl"] == {"path": str(dest), "lines": len(lines)}
    assert len(lines) == len(TRUE_DOMAINS) + 1  # + orders.part_tag
    for d in lines:
        assert list(d) == ["table", "column", "domain", "pattern", "confidence", "fpr", "coverage", "values"]
    got = {(d["table"], d["column"]): d["domain"] for d in lines if d["column"] != "part_tag"}
    assert got == TRUE_DOMAINS
    ip = next(d for d in lines if (d["table"], d["column"]) == ("events.parquet", "ip"))
    assert ip["values"] == ROWS and ip["pattern"] and ip["confidence"] > 0
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".tmp-")]


def test_cli_rejects_jsonl_in_a_missing_directory(tagged, tmp_path, capsys):
    lake, ix, _ = tagged
    assert cli_main(["tag", "--index", str(ix), str(lake), "--jsonl", str(tmp_path / "no" / "x.jsonl")]) == 2
    assert "does not exist" in capsys.readouterr().err


# ----------------------------------------------------------------------------------- table of a data file

@pytest.mark.parametrize(("rel", "table"), [
    ("orders/part-00000.parquet", "orders"),
    ("orders/part-00001-5f0c-c000.snappy.parquet", "orders"),
    ("orders/date=2024-01-01/part-0.csv", "orders"),
    ("db/orders/year=2024/month=01/data.csv", "db/orders"),
    ("part-r-00003.csv", "lake"),
    ("customers.csv", "customers.csv"),
    ("raw/customers.csv", "raw/customers.csv"),
    ("raw/partners.csv", "raw/partners.csv"),
])
def test_table_of(rel, table):
    listed = group_files([LakeFile(f"file:/data/lake/{rel}", 10, 0)], "file:/data/lake")
    assert [t.name for t in listed.tables] == [table]


# ------------------------------------------------------------------------------- each domain's predicate

POSITIVE = {
    "uuid": ["123e4567-e89b-12d3-a456-426614174000", "00000000-0000-0000-0000-000000000000"],
    "iso-datetime": ["2024-02-29T23:59:59Z", "2024-01-31 12:30", "2024-01-31T12:30:45.123456+05:30",
                     "2024-01-31T12:30:45-0800"],
    "mac-address": ["00:1A:2B:3C:4D:5E", "00-1a-2b-3c-4d-5e"],
    "ipv6": ["fe80::1ff:fe23:4567:890a", "::1", "2001:db8:0:0:0:0:2:1"],
    "ipv4": ["192.168.0.1", "255.255.255.255", "0.0.0.0"],
    "email": ["a.b+tag@example.com", "x_y@sub.mail.co.uk"],
    "url": ["https://example.com/a?b=1", "s3://bucket/key", "ftp://host"],
    "iso-date": ["2024-02-29", "1999-12-31"],
    "time-of-day": ["23:59", "00:00:00", "12:30:45.250"],
    "locale": ["en-US", "en_US", "pt-br", "fr_FR"],
    "sha256": ["e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"],
    "sha1": ["da39a3ee5e6b4b0d3255bfef95601890afd80709"],
    "md5": ["d41d8cd98f00b204e9800998ecf8427e"],
    "boolean": ["true", "FALSE", "Y", "n", "0", "1", "yes"],
    "country-code-alpha3": ["GBR", "USA", "DEU"],
    "currency-code": ["USD", "EUR", "JPY"],
    "country-code-alpha2": ["GB", "US", "NO"],
    "currency-amount": ["$1,234.50", "EUR 12.50", "12.50 USD", "-€3", "£0.99"],
    "us-zip-code": ["02139", "94105-1234"],
    "phone-number": ["+1-555-123-4567", "(555) 123-4567", "+44 20 7946 0958", "555.123.4567", "+14155552671"],
    "integer": ["0", "-42", "+7", "1,234,567"],
    "decimal": ["3.14", "-0.5", ".5", "1,234.5", "6.02e23", "12"],
}
NEGATIVE = {
    "uuid": ["123e4567-e89b-12d3-a456-42661417400", "123e4567e89b12d3a456426614174000", "g23e4567-e89b-12d3-a456-4"],
    "iso-datetime": ["2023-02-29T10:00:00", "2024-01-31T24:00:00", "2024-01-31", "31/01/2024 12:00"],
    "mac-address": ["00:1A:2B:3C:4D", "00:1A-2B:3C:4D:5E", "GG:1A:2B:3C:4D:5E"],
    "ipv6": ["12:30:45", "fe80::1::2", "not an address"],
    "ipv4": ["256.1.1.1", "1.2.3", "1.2.3.4.5"],
    "email": ["plainaddress", "a@b", "a b@example.com"],
    "url": ["example.com/a", "http://", "https://exa mple.com"],
    "iso-date": ["2024-13-01", "2023-02-29", "24-01-31", "2024/01/31"],
    "time-of-day": ["24:00", "12:60", "7:30"],
    "locale": ["xx-US", "en-ZZ", "english-US", "en"],
    "sha256": ["e3b0c442"],
    "sha1": ["da39a3ee5e6b4b0d3255bfef95601890afd8070z"],
    "md5": ["d41d8cd98f00b204e9800998ecf8427"],
    "boolean": ["maybe", "2", "truth"],
    "country-code-alpha3": ["ZZZ", "gbr", "UK"],
    "currency-code": ["ABC", "usd"],
    "country-code-alpha2": ["ZZ", "UK", "gb", "G"],
    "currency-amount": ["12.50", "$12.505", "$$3", "ABC 12.50", "USD 12 EUR"],
    "us-zip-code": ["1234", "123456", "12345-12"],
    "phone-number": ["12345", "2024", "555-1234", "1234567890"],
    "integer": ["1.5", "1,23", "12a", ""],
    "decimal": ["1.2.3", "abc", "1e", "."],
}


def test_catalogue_has_every_domain_once_and_tests_cover_it():
    names = [d.name for d in DOMAINS]
    assert len(names) == len(set(names)) == len(POSITIVE) == len(NEGATIVE)
    assert set(names) == set(POSITIVE) == set(NEGATIVE)
    assert all(d.description for d in DOMAINS)


@pytest.mark.parametrize("name", sorted(POSITIVE))
def test_value_check_accepts_hand_picked_values(name):
    for v in POSITIVE[name]:
        assert DOMAIN_NAMES[name].value(v), (name, v)


@pytest.mark.parametrize("name", sorted(NEGATIVE))
def test_value_check_rejects_hand_picked_values(name):
    for v in NEGATIVE[name]:
        assert not DOMAIN_NAMES[name].value(v), (name, v)


@pytest.mark.parametrize(("pattern", "values", "domain"), [
    ("<upper>{2}", ["GB", "US", "FR"], "country-code-alpha2"),
    ("<upper>{2}", ["GB", "ZZ", "QQ", "XY"], None),  # 'ZZ' is no country code
    ("<upper>{3}", ["USD", "EUR", "GBP"], "currency-code"),
    ("<hex>{8}-<hex>{4}-<hex>{4}-<hex>{4}-<hex>{12}", ["123e4567-e89b-12d3-a456-426614174000"], "uuid"),
    ("<digit>{4}-<digit>{2}-<digit>{2}", ["2024-01-31", "2023-12-01"], "iso-date"),
    ("<digit>{4}/<digit>{2}/<digit>{2}", ["2024-01-31"], None),  # the pattern's '/' is no ISO date
    ("<all>", ["2024-01-31"], None),  # too general to be evidence
    (None, ["2024-01-31"], None),  # no pattern, no domain
    ("<digit>{32}", ["1" * 32, "2" * 32], "integer"),  # long decimal numbers, not md5
    ("<hex>{32}", ["d41d8cd98f00b204e9800998ecf8427e"], "md5"),
    ("<digit>+", ["02139", "94105", "1234567"], "integer"),  # another width: no ZIP column
    ("<digit>+", ["02139", "94105"] * 10 + ["N/A"], "us-zip-code"),  # an ad-hoc token is tolerated
    ("<lower>+", ["true", "false", "yes"], None),  # two boolean pairs mixed
    ("<lower>+", ["true", "false"], "boolean"),
    ("<digit>{1}", ["1", "1", "1"], "integer"),  # a constant 1 is no boolean
    ("<digit>{1}", ["0", "1"], "boolean"),
    ("<lower>{2}-<upper>{2}", ["en-US", "de-DE"], "locale"),
    ("$<digit>+.<digit>{2}", ["$12.50", "$3.99"], "currency-amount"),
    ("<digit>+.<digit>{2}", ["12.50", "3.99"], "decimal"),
])
def test_domain_predicate_on_pattern_and_values(pattern, values, domain):
    got, share = name_domain(pattern, values)
    assert (got.name if got else None) == domain
    assert (share is None) == (domain is None)


def test_share_threshold_tolerates_theta_of_ad_hoc_values():
    cc = DOMAIN_NAMES["country-code-alpha2"]
    nine_of_ten = ["GB"] * 9 + ["N/A"]
    assert cc.predicate("<upper>{2}", nine_of_ten) == pytest.approx(0.9) and MIN_SHARE == pytest.approx(0.9)
    assert cc.predicate("<upper>{2}", ["GB"] * 8 + ["N/A", "??"]) is None


def test_pattern_symbols():
    assert pattern_symbols("<hex>{8}-<hex>{4}") == {"-"}
    assert pattern_symbols("<digit>+<rep>:<digit>+</rep>{3}") == {":"}
    assert pattern_symbols("ORD-<digit>{6}") == {"-"}
    assert pattern_symbols("<upper>{2}") == frozenset()
    assert pattern_symbols("<all>") is None and pattern_symbols("<bad") is None


def test_confidence_formula():
    assert confidence(1.0, 0.0, 1) == 0.5
    assert confidence(0.9, 0.1, 9) == pytest.approx(0.729)
    assert confidence(1.0, 0.0, 99) == 0.99
    assert confidence(1.0, 1.0, 50) == 0.0
