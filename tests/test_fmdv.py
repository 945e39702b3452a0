"""FMDV, -V, -H, -VH on the paper's examples, against a controlled index built without Spark."""

from __future__ import annotations

import random

import pytest

from lakeindex.fmdv.drift import homogeneity_pvalues, validate
from lakeindex.fmdv.infer import AutoValidator, default_coverage
from lakeindex.fmdv.rule import Rule
from lakeindex.index.local_build import build_from_columns
from lakeindex.index.store import IndexReader
from lakeindex.patterns import matches

MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
WORDS = "the a data lake pipeline broke again when upstream changed its format without notice".split()


def corpus(seed: int = 3) -> list[list[str]]:
    """A lake of domains, each in many columns, including impure columns and free text."""
    rng = random.Random(seed)
    cols: list[list[str]] = []

    def many(n: int, make) -> None:
        for _ in range(n):
            cols.append([make() for _ in range(60)])

    lang, cc = ["en", "de", "fr", "es", "ja"], ["us", "gb", "de", "fr", "mx", "jp"]
    many(30, lambda: f"{rng.choice(lang)}-{rng.choice(cc)}")
    many(30, lambda: f"{rng.choice(lang)}-{rng.choice(cc).upper()}")
    many(30, lambda: f"20{rng.randint(10, 24)}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}")
    many(30, lambda: f"{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d}")
    many(30, lambda: f"{rng.randint(1, 12):02d}/{rng.randint(1, 28):02d}/20{rng.randint(10, 24)}")
    many(30, lambda: f"{rng.choice(MONTHS)} {rng.randint(1, 28):02d} 20{rng.randint(10, 24)}")
    many(30, lambda: f"10.{rng.randint(0, 255)}.{rng.randint(0, 255)}.{rng.randint(1, 254)}")
    many(30, lambda: f"0.{rng.randint(1, 9)}")
    many(30, lambda: rng.choice(["OnBooking", "Delivered", "Cancelled", "InTransit"]))
    many(30, lambda: f"ORD-{rng.randint(0, 999999):06d}")
    many(30, lambda: f"{rng.randint(1, 999)},{rng.randint(1, 999)}")
    many(30, lambda: " ".join(rng.choice(WORDS) for _ in range(rng.randint(2, 12))))
    many(10, lambda: rng.choice(["ACTIVE", "PENDING", "CLOSED"]))
    return cols


@pytest.fixture(scope="module")
def index(tmp_path_factory):
    path = tmp_path_factory.mktemp("fmdv") / "ix"
    build_from_columns(corpus(), path, min_coverage=2)
    with IndexReader(path) as ix:
        yield ix


def fit(index, values, method="fmdv-vh", **kw) -> Rule:
    return AutoValidator(index, method=method, m=10, **kw).fit(values).rule_


def test_default_m_adapts_to_lake_size():
    assert default_coverage({"columns_scanned": 900, "min_coverage": 2}) == 2
    assert default_coverage({"columns_scanned": 20188, "min_coverage": 2}) == 21
    assert default_coverage({"columns_scanned": 7_200_000, "min_coverage": 2}) == 100


def test_figure5_date_times_need_vertical_cuts(index):
    rng = random.Random(1)
    values = [f"20{rng.randint(10, 24)}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d} "
              f"{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d}" for _ in range(200)]
    assert not fit(index, values, "fmdv").feasible  # 11 tokens > tau: no single indexed pattern
    rule = fit(index, values, "fmdv-v")
    assert rule.feasible and rule.pattern == "<digit>{4}-<digit>{2}-<digit>{2} <digit>{2}:<digit>{2}:<digit>{2}"
    assert [s.literal for s in rule.segments] == [False, True, False]
    assert all(matches(rule.pattern, v) for v in values)


def test_figure8_composite_column(index):
    rng = random.Random(2)
    values = [f"[0.{rng.randint(1, 9)}|{rng.randint(1, 12):02d}/{rng.randint(1, 28):02d}/2015 "
              f"{rng.randint(0, 23):02d}:00:00|{rng.choice(['OnBooking', 'Delivered'])}]" for _ in range(100)]
    rule = fit(index, values, "fmdv-vh")
    assert rule.feasible, rule.reason
    # every 0.x column of the corpus starts with a constant 0; all its status words have 9 letters
    assert rule.pattern == ("[0.<digit>{1}|<digit>{2}/<digit>{2}/<digit>{4} <digit>{2}:<digit>{2}:<digit>{2}"
                            "|<letter>{9}]")
    assert [s.pattern for s in rule.segments if s.literal] == ["[", "|", " ", "|", "]"]
    assert validate(rule, values[:50])["passed"]
    bad = validate(rule, [v.replace("/2015", "-2015") for v in values[:50]])
    assert bad["flagged"] and bad["offending_sample"]


def test_figure9_special_values_need_horizontal_cuts(index):
    rng = random.Random(3)
    values = [f"{rng.randint(1, 999)},{rng.randint(1, 999)}" for _ in range(300)] + ["-"] * 6
    assert not fit(index, values, "fmdv").feasible
    rule = fit(index, values, "fmdv-h")
    assert rule.feasible and rule.pattern == "<digit>+,<digit>+"
    assert rule.train_nonconforming == 6 and rule.train_nonconforming_fraction == pytest.approx(6 / 306)
    assert rule.validation == "homogeneity"
    # a future batch with the same rate of "-" passes; one full of "N/A" is flagged
    same = [f"{rng.randint(1, 999)},{rng.randint(1, 999)}" for _ in range(500)] + ["-"] * 10
    assert validate(rule, same)["passed"]
    drift = [f"{rng.randint(1, 999)},{rng.randint(1, 999)}" for _ in range(400)] + ["N/A"] * 100
    res = validate(rule, drift)
    assert res["flagged"] and res["offending_sample"][0] == {"value": "N/A", "count": 100}


def test_locale_drift_en_us_to_en_US_is_flagged(index):
    rng = random.Random(4)
    train = [f"{rng.choice(['en', 'de', 'fr'])}-{rng.choice(['us', 'gb', 'fr'])}" for _ in range(100)]
    rule = fit(index, train)
    assert rule.pattern == "<lower>{2}-<lower>{2}"
    assert validate(rule, train)["passed"]
    drifted = [v[:3] + v[3:].upper() for v in train]
    res = validate(rule, drifted)
    assert res["flagged"] and res["batch_nonconforming_fraction"] == 1.0


def test_mar_2019_is_not_overfitted_to_mar(index):
    rule = fit(index, [f"Mar {d:02d} 2019" for d in range(1, 29)])
    assert rule.feasible and not rule.pattern.startswith("Mar")
    assert matches(rule.pattern, "Apr 01 2019") and matches(rule.pattern, "Mar 05 2019")


def test_natural_language_is_explicitly_infeasible(index):
    rng = random.Random(5)
    rule = fit(index, [" ".join(rng.choice(WORDS) for _ in range(rng.randint(3, 9))) for _ in range(50)])
    assert not rule.feasible and rule.pattern is None and rule.regex is None
    assert "no pattern" in rule.reason
    d = rule.to_dict()
    assert d["feasible"] is False and d["regex"] is None


def test_rule_json_round_trip_and_fields(index):
    rule = fit(index, [f"ORD-{i:06d}" for i in range(50)])
    d = rule.to_dict()
    for key in ("method", "params", "segments", "pattern", "regex", "fpr", "coverage", "train_size",
                "train_nonconforming_fraction", "index_version"):
        assert key in d
    assert d["regex"].startswith("^") and d["regex"].endswith("$")
    assert d["params"]["r"] == 0.1 and d["params"]["m"] == 10 and d["params"]["theta"] == 0.1
    again = Rule.from_dict(d)
    assert again.pattern == rule.pattern and again.train_size == 50
    with pytest.raises(ValueError):
        Rule.from_dict({"method": "magic", "feasible": True})


def test_homogeneity_test_at_papers_example():
    # training 0.1% non-conforming vs a batch at 5%: rejected; vs 0.11%: not rejected
    fisher, chi2 = homogeneity_pvalues(1, 1000, 50, 1000)
    assert fisher < 0.01 and chi2 < 0.01
    fisher, chi2 = homogeneity_pvalues(1, 1000, 11, 10000)
    assert fisher > 0.01 and chi2 > 0.01


def test_strict_rules_fail_on_any_violation(index):
    rule = fit(index, [f"ORD-{i:06d}" for i in range(50)], "fmdv")
    assert rule.validation == "strict"
    assert validate(rule, [f"ORD-{i:06d}" for i in range(1000)])["passed"]
    res = validate(rule, [f"ORD-{i:06d}" for i in range(999)] + ["ORD-12"])
    assert res["flagged"] and res["batch_nonconforming"] == 1


def test_ties_between_mixed_shapes_do_not_break_sorting(index):
    """Equal weights for a symbol-first and a word-first shape used to compare str with tuple.

    Expected outcomes follow from the definitions, not from a run: P("-") is {"-"} (symbol runs stay
    literal), so no pattern holds both "-" and "12,34"; and -H may cut at most theta = 10% of the values.
    """
    from lakeindex.fmdv.column import QueryColumn
    from lakeindex.patterns.enumerate import EnumerationLimits

    # the tie really happens: two shapes, one value each
    assert sorted(g.weight for g in QueryColumn.from_values(["-", "12,34"], EnumerationLimits()).groups) == [1, 1]
    # 2 values: 10% of 2 is 0.2 values, so nothing may be cut and no single pattern fits -> infeasible
    for values in (["-", "12,34"], ["12,34", "-"]):
        rule = fit(index, values)
        assert not rule.feasible and rule.pattern is None and rule.regex is None
        assert rule.train_size == 2 and "no pattern" in rule.reason

    # 30 numbers plus "-" and "N/A" (tied at weight 1, symbol-first vs word-first): 2/32 = 6.25% <= 10% may be
    # cut, and the corpus' 30 pure "<n>,<n>" columns (1-3 digits) make <digit>+,<digit>+ the most specific
    # consistent pattern (<num> and <alphanum>+ are above <digit>+ in the hierarchy)
    rng = random.Random(6)
    numbers = [f"{rng.randint(1, 999)},{rng.randint(1, 999)}" for _ in range(30)]
    for values in (numbers + ["-", "N/A"], ["N/A", "-", *numbers], ["-", *numbers, "N/A"]):
        rule = fit(index, values)
        assert rule.feasible, rule.reason
        assert rule.pattern == "<digit>+,<digit>+"
        assert rule.train_size == 32 and rule.train_nonconforming == 2
        assert rule.train_nonconforming_fraction == pytest.approx(2 / 32)
        assert all(matches(rule.pattern, v) for v in numbers)
        assert not matches(rule.pattern, "-") and not matches(rule.pattern, "N/A")


def test_tag_is_most_restrictive_domain_pattern(index):
    from lakeindex.fmdv.search import SegmentSolver
    from lakeindex.tagging.tag import tag_column

    solver = SegmentSolver(index)
    t = tag_column([f"ORD-{i:06d}" for i in range(40)], solver, m=10)
    assert t["tag"] == "ORD-<digit>{6}" and t["fpr"] <= 0.05
    assert tag_column(["en-us", "de-fr"] * 10, solver, m=10)["tag"] == "<lower>{2}-<lower>{2}"
    assert tag_column(["the data lake broke again", "a pipeline changed"], solver, m=10)["tag"] is None


@pytest.fixture(scope="module")
def signed_index(tmp_path_factory):
    """The corpus plus integer columns: many unsigned, a few signed (impure for <digit>+)."""
    rng = random.Random(9)
    cols = corpus()
    cols += [[str(rng.randint(0, 99999)) for _ in range(60)] for _ in range(80)]
    cols += [[str(rng.randint(-999, 999)) for _ in range(60)] for _ in range(10)]
    cols += [[rng.choice(["web", "phone", "email", "partner"]) for _ in range(60)] for _ in range(40)]
    path = tmp_path_factory.mktemp("signed") / "ix"
    build_from_columns(cols, path, min_coverage=2)
    with IndexReader(path) as ix:
        yield ix


def test_a_part_some_values_lack_becomes_an_optional_block(signed_index):
    rng = random.Random(6)
    values = [str(rng.randint(-999, 999)) for _ in range(200)]  # half carry a sign: no cut can help
    assert not fit(signed_index, values, "fmdv-h").feasible
    rule = fit(signed_index, values, "fmdv-vh")
    # the sign is a literal optional block; the number is the indexed pattern of lowest FPR
    assert rule.pattern in ("<opt>-</opt><digit>+", "<opt>-</opt><alphanum>+"), rule.pattern
    assert rule.regex.startswith("^(?:\\-)?[")
    assert rule.train_nonconforming == 0
    assert validate(rule, [str(rng.randint(-999, 999)) for _ in range(500)])["passed"]
    assert validate(rule, [f"{rng.randint(-99, 99)}.5" for _ in range(100)])["flagged"]
    again = Rule.from_dict(rule.to_dict())
    assert again.pattern == rule.pattern and again.segments[0].pattern == "<opt>-</opt>"


def test_optional_block_of_words(signed_index):
    rng = random.Random(7)
    values = [rng.choice(["web", "phone", "mobile_app", "retail_store"]) for _ in range(200)]
    rule = fit(signed_index, values, "fmdv-vh")
    assert rule.feasible and "<opt>" in rule.pattern and rule.train_nonconforming == 0
    assert validate(rule, ["kiosk", "call_center"] * 100)["passed"]
    assert validate(rule, ["retail store", "mobile-app"] * 100)["flagged"]


def test_unrelated_structures_get_no_optional_rule(signed_index):
    # nothing every value has: no rule, rather than (a)?(b)?
    assert not fit(signed_index, ["--"] * 50 + ["web"] * 50, "fmdv-vh").feasible


def sha(rng: random.Random) -> str:
    return f"{rng.getrandbits(28):07x}"


def code(rng: random.Random, n: int = 7) -> str:
    return "".join(rng.choice("abcdefghijklmnopqrstuvwxyz0123456789") for _ in range(n))


@pytest.fixture(scope="module")
def hex_index(tmp_path_factory):
    """The corpus plus git SHAs, 7-character codes, codes of varying length and impure word columns."""
    rng = random.Random(12)
    cols = corpus()
    cols += [[sha(rng) for _ in range(60)] for _ in range(40)]
    cols += [[code(rng) for _ in range(60)] for _ in range(40)]
    cols += [[code(rng, rng.randint(5, 9)) for _ in range(60)] for _ in range(20)]
    cols += [[rng.choice(["web", "phone", "mobile_app", "retail_store"]) for _ in range(60)] for _ in range(20)]
    path = tmp_path_factory.mktemp("hex") / "ix"
    build_from_columns(cols, path, min_coverage=2)
    with IndexReader(path) as ix:
        yield ix


def test_git_sha_column_gets_a_hex_rule_that_flags_other_codes(hex_index):
    rng = random.Random(13)
    rule = fit(hex_index, [sha(rng) for _ in range(100)])
    assert rule.pattern in ("<hex>{7}", "<hex>+"), rule.pattern
    assert validate(rule, [sha(rng) for _ in range(500)])["passed"]
    assert validate(rule, [code(rng) for _ in range(500)])["flagged"]  # 7 characters, but not hex
    assert validate(rule, [sha(rng).upper() for _ in range(500)])["passed"]  # the class is case-blind


def test_estimator_conventions(index):
    """scikit-learn's conventions: __init__ stores the parameters unchanged (m=None stays None), fit checks
    them and sets trailing-underscore attributes (m_ from the adaptive default, the rule in rule_)."""
    av = AutoValidator(index, method="nope", m=None, r=0.1)
    assert (av.method, av.m, av.r) == ("nope", None, 0.1) and not hasattr(av, "rule_")
    with pytest.raises(ValueError, match="unknown method 'nope'"):
        av.fit(["a"])
    av.method = "fmdv-vh"
    av.fit([f"20{y}-0{m}-1{d}" for y in range(10, 20) for m in range(1, 4) for d in range(3)])
    assert av.m is None and av.m_ == default_coverage(index.meta) and av.rule_.params["m"] == av.m_
    assert av.rule_.feasible


def _arrow_share(values: list[str], top: int = 64) -> float:
    """The skeleton share as first written, with Arrow's RE2 replace over every value (the oracle)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    arr = pa.array([v for v in values if v], pa.string())
    if len(arr) == 0:
        return 1.0
    counts = sorted(pc.value_counts(pc.replace_substring_regex(arr, "[A-Za-z0-9]+", "w")).field("counts").to_pylist(),
                    reverse=True)
    return sum(counts[:top]) / len(arr)


def test_structured_share_and_its_early_exit_agree_with_arrow():
    """Free-text detection is computed on distinct values and may stop early: the share and every
    threshold decision must be those of the Arrow computation it replaced, on structured columns, free
    text, mixtures around the threshold, unicode, empty strings and ties."""
    from lakeindex.fmdv.column import is_structured, structured_share

    rng = random.Random(3)
    words = ["alpha", "Beta", "gamma9", "été", "日本", "x", "42", "a_b", "Δ"]
    seps = [" ", "-", ", ", "/", ".", "", "::"]

    def value(k: int) -> str:
        return "".join(rng.choice(words) + rng.choice(seps) for _ in range(k))

    columns = [[f"ORD-{i:05d}" for i in range(1000)], [value(rng.randint(3, 12)) for _ in range(1000)], [], ["", ""],
               ["a"] * 5]
    for mix in (0.02, 0.08, 0.1, 0.12, 0.3, 0.6):  # structured values plus a share of free text
        col = [f"{rng.randint(0, 99)}-{rng.randint(0, 9)}" if rng.random() > mix else value(rng.randint(2, 9))
               for _ in range(1000)]
        columns.append(col)
    for top in (64, 3):
        for col in columns:
            share = _arrow_share(col, top)
            assert structured_share(col, top) == share
            for min_share in (0.0, 0.5, 0.88, 0.9, 0.92, 0.98, 1.0, share):
                assert is_structured(col, min_share, top) == (share >= min_share), (top, min_share, share)
