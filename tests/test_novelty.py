"""kNN novelty detection on batch statistics (Redyuk et al., EDBT 2021): features, peculiarity, detector."""

from __future__ import annotations

import json
import math
from collections import Counter
from collections.abc import Callable

import numpy as np
import pandas as pd
import pytest

from lakeindex.history import infer_kind as history_infer_kind
from lakeindex.history.batches import profile_frame
from lakeindex.novelty import (
    FeatureVector,
    KNNNoveltyDetector,
    NotFittedError,
    align_features,
    batch_features,
    impute_missing,
    index_of_peculiarity,
    infer_kind,
    infer_schema_kinds,
    peculiarity_per_value,
    union_keys,
)

VOCAB = (
    "the order was shipped quickly and arrived in good condition great product would buy again "
    "box damaged but item fine fast delivery price quality excellent late"
).split()
CATEGORIES = ["books", "garden", "kitchen", "sports", "toys", "electronics"]
CATEGORY_P = [0.3, 0.2, 0.2, 0.1, 0.1, 0.1]


def sentences(rng: np.random.Generator, n: int, vocab: list[str]) -> list[str]:
    """n English-like comments of 3-8 words drawn from ``vocab``."""
    lengths = rng.integers(3, 9, n)
    words = rng.choice(vocab, int(lengths.sum()))
    return [" ".join(chunk) for chunk in np.split(words, np.cumsum(lengths)[:-1])]


def clean_batch(rng: np.random.Generator) -> pd.DataFrame:
    """A clean batch: 450-550 rows of amount (numeric), category (low-cardinality text), comment (free text)."""
    n = int(rng.integers(450, 551))
    comment = np.array(sentences(rng, n, VOCAB), dtype=object)
    comment[rng.random(n) < 0.02] = None
    return pd.DataFrame(
        {
            "amount": rng.normal(100.0, 15.0, n).round(2),
            "category": rng.choice(CATEGORIES, n, p=CATEGORY_P),
            "comment": comment,
        }
    )


def null_surge(df: pd.DataFrame, rng: np.random.Generator) -> pd.DataFrame:
    out = df.copy()
    out.loc[rng.random(len(out)) < 0.5, "amount"] = np.nan
    return out


def unit_change(df: pd.DataFrame, rng: np.random.Generator) -> pd.DataFrame:
    return df.assign(amount=df["amount"] * 100)


def partial_casing(df: pd.DataFrame, rng: np.random.Generator) -> pd.DataFrame:
    out = df.copy()
    upper = rng.random(len(out)) < 0.5
    out.loc[upper, "category"] = out.loc[upper, "category"].str.upper()
    return out


def text_swap(df: pd.DataFrame, rng: np.random.Generator) -> pd.DataFrame:
    return df.assign(category=df["comment"], comment=df["category"])


def numeric_text_swap(df: pd.DataFrame, rng: np.random.Generator) -> pd.DataFrame:
    return df.assign(amount=df["comment"], comment=df["amount"])


def dropped_column(df: pd.DataFrame, rng: np.random.Generator) -> pd.DataFrame:
    return df.drop(columns=["comment"])


CORRUPTIONS: dict[str, Callable[[pd.DataFrame, np.random.Generator], pd.DataFrame]] = {
    "null surge": null_surge,
    "unit change x100": unit_change,
    "casing change": partial_casing,
    "schema swap": text_swap,
    "numeric/text swap": numeric_text_swap,
    "dropped column": dropped_column,
}


@pytest.fixture(scope="module")
def lake() -> dict:
    """40 clean training batches, their kinds and a detector fitted on them, plus a generator for more."""
    rng = np.random.default_rng(20210323)
    training = [clean_batch(rng) for _ in range(40)]
    kinds = infer_schema_kinds(training)
    detector = KNNNoveltyDetector().fit([batch_features(df, kinds) for df in training])
    return {"rng": rng, "kinds": kinds, "detector": detector}


# ----------------------------------------------------------------------------------------- features


def test_batch_features_compute_the_papers_statistics() -> None:
    df = pd.DataFrame(
        {
            "amount": ["1", "2", "2", None, "x"],
            "price": ["1.5", "2.5", None, "4", "2.5"],
            "city": ["Berlin", "Berlin", None, "Paris", "Berlin"],
        }
    )
    f = batch_features(df, {"amount": "numeric"})
    # amount is declared numeric: "x" is not a number, so it is not complete, like None.
    assert f["amount.completeness"] == pytest.approx(3 / 5)
    assert f["amount.approx_distinct"] == 2.0
    assert math.isnan(f["amount.mfv_ratio"])  # numeric summaries keep no value frequencies
    assert (f["amount.min"], f["amount.max"]) == (1.0, 2.0)
    assert f["amount.mean"] == pytest.approx(5 / 3)
    assert f["amount.std"] == pytest.approx(np.std([1.0, 2.0, 2.0]))  # population std
    # price: strings that all parse, so numeric without a declaration.
    assert f["price.mean"] == pytest.approx((1.5 + 2.5 + 4 + 2.5) / 4)
    assert "price.peculiarity" not in f
    assert (f["city.completeness"], f["city.approx_distinct"], f["city.mfv_ratio"]) == (0.8, 2.0, 0.6)  # by rows
    assert f["city.peculiarity"] >= 0.0 and "city.min" not in f
    assert list(f) == [
        "amount.completeness", "amount.approx_distinct", "amount.mfv_ratio", "amount.min", "amount.max",
        "amount.mean", "amount.std",
        "price.completeness", "price.approx_distinct", "price.mfv_ratio", "price.min", "price.max", "price.mean",
        "price.std",
        "city.completeness", "city.approx_distinct", "city.mfv_ratio", "city.peculiarity",
    ]  # fmt: skip
    # Without the declaration, 3 numbers of 4 non-empty values (< 90%) make amount categorical.
    assert "amount.peculiarity" in batch_features(df) and "amount.min" not in batch_features(df)
    # An empty string is not a complete value of a categorical column, nor a distinct one.
    g = batch_features(pd.DataFrame({"city": ["Berlin", "", "", None]}))
    assert (g["city.completeness"], g["city.approx_distinct"], g["city.mfv_ratio"]) == (0.25, 1.0, 0.25)


def test_non_finite_numbers_count_as_null() -> None:
    f = batch_features(pd.DataFrame({"x": [1.0, np.inf, -np.inf, 3.0]}))
    assert (f["x.completeness"], f["x.max"], f["x.mean"]) == (0.5, 3.0, 2.0)
    g = batch_features(pd.DataFrame({"x": ["1", "inf", "3", "nan"]}), {"x": "numeric"})
    assert (g["x.completeness"], g["x.approx_distinct"], g["x.max"]) == (0.5, 2.0, 3.0)


def test_kind_inference_and_majority_vote() -> None:
    assert infer_kind(pd.Series([1, 2, 3])) == "numeric"
    assert infer_kind(pd.Series([1.5, None], dtype="Float64")) == "numeric"
    assert infer_kind(pd.Series(["1", " 2.5", "-3e2", None])) == "numeric"
    assert infer_kind(pd.Series(["1"] * 9 + ["x", None])) == "numeric"  # 9 of 10 non-empty values are numbers
    assert infer_kind(pd.Series(["1", "two"])) == "categorical"
    assert infer_kind(pd.Series(["1", "inf"])) == "categorical"  # not finite: not a usable number
    assert infer_kind(pd.Series(pd.to_datetime(["2021-03-23"]))) == "categorical"
    assert infer_kind(pd.Series([None, None], dtype=object)) == "categorical"
    frames = [pd.DataFrame({"a": ["1", "2"], "b": ["x", "y"]}) for _ in range(3)]
    frames.append(pd.DataFrame({"a": ["1", "NONE"], "b": ["3", "4"], "c": [None, None]}))
    assert infer_schema_kinds(frames) == {"a": "numeric", "b": "categorical", "c": "categorical"}


def test_booleans_are_categorical_as_in_avh() -> None:
    flags = pd.Series([True, False, True, None], dtype=object)
    assert infer_kind(pd.Series([True, False])) == infer_kind(flags) == "categorical"  # was "numeric" here
    assert infer_kind is history_infer_kind  # the kNN and AVH paths share the one rule
    f = batch_features(pd.DataFrame({"flag": [True, False, True, True]}))
    assert "flag.min" not in f and "flag.mean" not in f and f["flag.peculiarity"] >= 0.0
    assert (f["flag.completeness"], f["flag.approx_distinct"], f["flag.mfv_ratio"]) == (1.0, 2.0, 0.75)
    g = batch_features(pd.DataFrame({"flag": [True, False, True, True]}), {"flag": "numeric"})
    assert (g["flag.min"], g["flag.max"], g["flag.mean"]) == (0.0, 1.0, 0.75)  # a declared kind still wins


def test_production_and_pandas_batches_share_one_extractor() -> None:
    rng = np.random.default_rng(10)
    df = clean_batch(rng).assign(flag=lambda d: d["amount"] > 100)
    record = profile_frame(df, "b1", None)
    assert record.novelty == pytest.approx(batch_features(df), nan_ok=True)
    assert list(record.novelty) == list(batch_features(df))


def test_declared_columns_absent_from_a_batch_are_imputed_as_all_null() -> None:
    f = FeatureVector.from_frame(pd.DataFrame({"a": [1.0, 2.0]}), {"a": "numeric", "gone": "categorical"})
    assert not f.missing_keys(["a.completeness", "a.mean"]) and not any(k.startswith("gone.") for k in f)
    keys = ["a.mean", "gone.completeness", "gone.approx_distinct", "gone.mfv_ratio", "gone.peculiarity"]
    row = f.to_array(keys)
    assert row[:4].tolist() == [1.5, 0.0, 0.0, 0.0] and math.isnan(row[4])
    with pytest.raises(ValueError, match="schema kind"):
        batch_features(pd.DataFrame({"a": [1]}), {"a": "text"})
    with pytest.raises(ValueError, match="duplicate"):
        batch_features(pd.DataFrame([[1, 2]], columns=["a", "a"]))


def test_feature_alignment_imputes_a_missing_column_as_all_null() -> None:
    full = FeatureVector.from_frame(pd.DataFrame({"n": [1.0, 3.0], "t": ["ab", "cd"]}))
    partial = FeatureVector.from_frame(pd.DataFrame({"n": [2.0, 2.0], "extra": ["z", "z"]}))
    keys = list(full)
    assert partial.missing_keys(keys) == ["t.completeness", "t.approx_distinct", "t.mfv_ratio", "t.peculiarity"]
    row = dict(zip(keys, partial.to_array(keys), strict=True))
    assert (row["t.completeness"], row["t.approx_distinct"], row["t.mfv_ratio"]) == (0.0, 0.0, 0.0)
    assert math.isnan(row["t.peculiarity"])
    assert row["n.mean"] == 2.0 and "extra.completeness" not in row  # keys outside the key set are dropped
    names, matrix = align_features([full, partial])
    assert names == union_keys([full, partial]) == keys + [k for k in partial if k not in full]
    assert matrix.shape == (2, len(names))
    assert matrix[0, names.index("extra.completeness")] == 0.0
    assert impute_missing("col.with.dots.max") != impute_missing("col.with.dots.max")  # NaN
    assert impute_missing("col.with.dots.mfv_ratio") == 0.0


# ----------------------------------------------------------------------------------------- peculiarity


def reference_peculiarity(values: list[str]) -> list[float]:
    """Eq. 1 with Counter tables over words framed by a boundary mark, RMS per value: the slow, obvious way."""
    framed = [["\0" + w + "\0" for w in v.split()] for v in values]
    bigrams: Counter[str] = Counter()
    trigrams: Counter[str] = Counter()
    for words in framed:
        for w in words:
            bigrams.update(w[i : i + 2] for i in range(len(w) - 1))
            trigrams.update(w[i : i + 3] for i in range(len(w) - 2))
    result = []
    for words in framed:
        idx = [
            0.5 * (math.log(bigrams[w[i : i + 2]]) + math.log(bigrams[w[i + 1 : i + 3]]))
            - math.log(trigrams[w[i : i + 3]])
            for w in words
            for i in range(len(w) - 2)
        ]
        result.append(math.sqrt(sum(x * x for x in idx) / len(idx)) if idx else math.nan)
    return result


def test_peculiarity_follows_equation_1() -> None:
    # "aaa" framed: bigrams ^a, aa, aa, a$; trigrams ^aa, aaa, aa$ once each.
    # I = (½ log 2, log 2, ½ log 2), RMS = log 2 · sqrt(1/2).
    assert peculiarity_per_value(["aaa"])[0] == pytest.approx(math.log(2) * math.sqrt(0.5))
    assert peculiarity_per_value(["ab cd", "ab cd"]).tolist() == [0.0, 0.0]  # every trigram as common as its bigrams
    assert np.isnan(peculiarity_per_value(["", "   ", "x"])[:2]).all()
    rng = np.random.default_rng(1)
    alphabet = list("abcdeéß  Z1-")
    values = ["".join(rng.choice(alphabet, int(rng.integers(0, 30)))) for _ in range(300)]
    np.testing.assert_allclose(peculiarity_per_value(values), reference_peculiarity(values), equal_nan=True)


def test_peculiarity_is_higher_for_gibberish_than_english_like_text() -> None:
    rng = np.random.default_rng(2)
    english = sentences(rng, 400, VOCAB)
    letters = list("abcdefghijklmnopqrstuvwxyz")
    gibberish = [" ".join("".join(rng.choice(letters, len(w))) for w in s.split()) for s in english]  # same shape
    assert index_of_peculiarity(gibberish) > 2.0 * index_of_peculiarity(english)
    # Typos in a quarter of the words raise the index too.
    typos = [" ".join(w if rng.random() > 0.25 else w[::-1] + "q" for w in s.split()) for s in english]
    assert index_of_peculiarity(typos) > 1.3 * index_of_peculiarity(english)


def test_peculiarity_work_is_bounded_and_seeded() -> None:
    rng = np.random.default_rng(3)
    values = sentences(rng, 5000, VOCAB) + ["zq xj vv"] * 50
    a = index_of_peculiarity(values, max_values=200, seed=1)
    assert a == index_of_peculiarity(values, max_values=200, seed=1)
    assert a != index_of_peculiarity(values, max_values=200, seed=2)
    long_value = "lorem ipsum dolor " * 1000
    assert index_of_peculiarity([long_value, "sit amet"], max_chars=40) == index_of_peculiarity(
        [long_value[:40], "sit amet"]
    )
    assert math.isnan(index_of_peculiarity([None, "  "]))
    with pytest.raises(ValueError):
        index_of_peculiarity(values, max_values=0)


def test_whole_column_casing_is_invisible_but_partial_casing_is_not() -> None:
    rng = np.random.default_rng(4)
    df = clean_batch(rng)
    upper = df.assign(category=df["category"].str.upper(), comment=df["comment"].str.upper())
    assert batch_features(upper) == pytest.approx(batch_features(df), nan_ok=True)  # the paper's §7 limitation
    mixed = partial_casing(df, rng)
    assert batch_features(mixed)["category.approx_distinct"] == 2 * batch_features(df)["category.approx_distinct"]


# ----------------------------------------------------------------------------------------- detector on batches


def test_detector_flags_corrupted_batches_and_passes_clean_ones(lake: dict) -> None:
    rng, kinds, detector = lake["rng"], lake["kinds"], lake["detector"]
    assert kinds == {"amount": "numeric", "category": "categorical", "comment": "categorical"}
    assert detector.n_samples_ == 40 and detector.n_neighbors_ == 5
    fresh = detector.novelty_score([batch_features(clean_batch(rng), kinds) for _ in range(20)])
    # contamination 1% of 40 batches: a fresh clean batch exceeds the threshold now and then, rarely.
    assert int((fresh > detector.threshold_).sum()) <= 1
    corrupted = {name: batch_features(corrupt(clean_batch(rng), rng), kinds) for name, corrupt in CORRUPTIONS.items()}
    scores = {name: detector.novelty_score(f) for name, f in corrupted.items()}
    for name, score in scores.items():
        assert detector.is_novel(corrupted[name]) is True, name
        assert score > 1.5 * detector.threshold_ and score > 1.5 * fresh.max(), (name, score)
    assert scores["unit change x100"] > 100 * detector.threshold_  # unclipped scaling keeps the magnitude


def test_kind_flip_without_declared_kinds_is_flagged_through_undefined_statistics() -> None:
    rng = np.random.default_rng(5)
    training = [batch_features(clean_batch(rng)) for _ in range(40)]
    detector = KNNNoveltyDetector().fit(training)
    swapped = batch_features(numeric_text_swap(clean_batch(rng), rng))
    assert "amount.min" not in swapped and "amount.peculiarity" in swapped  # the kinds flipped
    assert detector.is_novel(swapped) is True
    assert detector.is_novel(batch_features(clean_batch(rng))) is False


# ----------------------------------------------------------------------------------------- detector mechanics


def brute_force_scores(X: np.ndarray, k: int) -> np.ndarray:
    """Leave-one-out mean distance to the k nearest other rows after min-max scaling, with plain numpy."""
    scaled = (X - X.min(axis=0)) / (X.max(axis=0) - X.min(axis=0))
    distances = np.sqrt(((scaled[:, None, :] - scaled[None, :, :]) ** 2).sum(axis=2))
    np.fill_diagonal(distances, np.inf)
    return np.sort(distances, axis=1)[:, :k].mean(axis=1)


@pytest.mark.parametrize("contamination", [0.01, 0.1, 0.0])
def test_threshold_is_the_percentile_of_leave_one_out_scores(contamination: float) -> None:
    X = np.random.default_rng(6).normal(size=(37, 4)) * [1.0, 10.0, 100.0, 0.1]
    detector = KNNNoveltyDetector(k=5, contamination=contamination).fit(X)
    expected = brute_force_scores(X, 5)
    np.testing.assert_allclose(detector.train_scores_, expected)
    assert detector.threshold_ == pytest.approx(np.percentile(expected, 100 * (1 - contamination)))
    if contamination == 0.0:
        assert detector.threshold_ == pytest.approx(expected.max())


def test_a_training_batch_is_not_its_own_neighbour() -> None:
    detector = KNNNoveltyDetector(k=1).fit(np.array([[0.0], [1.0], [3.0]]))
    np.testing.assert_allclose(detector.train_scores_, [1 / 3, 1 / 3, 2 / 3])  # scaled by the range 3
    duplicates = KNNNoveltyDetector(k=1).fit(np.array([[0.0], [0.0], [5.0]]))
    np.testing.assert_allclose(duplicates.train_scores_, [0.0, 0.0, 1.0])  # an identical twin still counts
    assert detector.novelty_score(np.array([1.0])) == 0.0  # a query may coincide with a training batch


def test_scaling_uses_training_min_max_unclipped() -> None:
    X = np.array([[0.0, 10.0, 7.0], [2.0, 30.0, 7.0], [4.0, 20.0, 7.0]])
    detector = KNNNoveltyDetector(k=2).fit(X)
    np.testing.assert_array_equal(detector.data_min_, [0.0, 10.0, 7.0])
    np.testing.assert_array_equal(detector.data_max_, [4.0, 30.0, 7.0])
    np.testing.assert_allclose(detector.transform(X), [[0, 0, 0], [0.5, 1, 0], [1, 0.5, 0]])
    # Outside the training range stays outside (no clipping); a constant feature is only shifted; NaN is -1.
    np.testing.assert_allclose(detector.transform(np.array([12.0, -10.0, 9.0])), [[3.0, -1.0, 2.0]])
    np.testing.assert_allclose(detector.transform(np.array([np.nan, 10.0, 7.0])), [[-1.0, 0.0, 0.0]])
    query = np.array([8.0, 20.0, 7.0])  # scaled (2, .5, 0); nearest: (1, .5, 0) at 1 and (.5, 1, 0) at sqrt(2.5)
    assert detector.novelty_score(query) == pytest.approx((1.0 + math.sqrt(2.5)) / 2)
    manhattan = KNNNoveltyDetector(k=2, metric="manhattan").fit(X)
    assert manhattan.novelty_score(query) == pytest.approx((1.0 + 2.0) / 2)


def test_novel_means_strictly_above_the_threshold() -> None:
    detector = KNNNoveltyDetector(k=1, contamination=0.0).fit(np.arange(5.0).reshape(-1, 1))
    assert detector.threshold_ == 0.25  # every leave-one-out distance is one step, 1/4 of the range
    assert detector.novelty_score(np.array([5.0])) == 0.25
    assert detector.is_novel(np.array([5.0])) is False  # a tie is an inlier (Algorithm 1: novel if it exceeds)
    assert detector.is_novel(np.array([5.2])) is True
    np.testing.assert_array_equal(detector.is_novel(np.array([[2.0], [5.0], [5.2], [-1.5]])),
                                  [False, False, True, True])


def test_few_batches_use_n_minus_one_neighbours() -> None:
    detector = KNNNoveltyDetector(k=5).fit(np.array([[0.0], [1.0], [2.0]]))
    assert detector.n_neighbors_ == 2
    np.testing.assert_allclose(detector.train_scores_, [0.75, 0.5, 0.75])
    with pytest.raises(ValueError, match="at least 2 training batches"):
        KNNNoveltyDetector().fit(np.array([[1.0, 2.0]]))
    with pytest.raises(NotFittedError):
        KNNNoveltyDetector().is_novel(np.array([1.0]))
    with pytest.raises(ValueError, match="expected 1 features"):
        detector.update(np.array([[1.0, 2.0]]))
    assert detector.n_samples_ == 3  # a failed update leaves the model as it was


def test_update_retrains_and_adapts_to_new_data() -> None:
    rng = np.random.default_rng(8)
    old = rng.normal(0.0, 1.0, size=(30, 2))
    detector = KNNNoveltyDetector(max_history=30).fit(old)
    threshold = detector.threshold_
    shifted = np.array([8.0, 8.0])
    assert detector.is_novel(shifted) is True
    detector.update(rng.normal(8.0, 1.0, size=(6, 2)))
    assert detector.n_samples_ == 30  # the window dropped the 6 oldest batches
    np.testing.assert_array_equal(detector.history_[:24], old[6:])
    assert detector.threshold_ != threshold
    assert detector.is_novel(shifted) is False  # the new regime is now acceptable
    for _ in range(24):
        detector.partial_fit(rng.normal(8.0, 1.0, size=2))
    assert detector.n_samples_ == 30 and detector.is_novel(np.array([0.0, 0.0])) is True  # the old regime aged out


def test_update_with_a_new_column_extends_the_features() -> None:
    rng = np.random.default_rng(9)
    batches = [batch_features(clean_batch(rng).drop(columns=["comment"])) for _ in range(10)]
    detector = KNNNoveltyDetector(k=3).fit(batches)
    assert not any(name.startswith("comment.") for name in detector.feature_names_)
    with_comment = batch_features(clean_batch(rng))
    assert detector.novelty_score(with_comment) == detector.novelty_score(
        {k: v for k, v in with_comment.items() if not k.startswith("comment.")}
    )  # unknown keys are ignored by queries
    detector.update(with_comment)
    assert detector.n_samples_ == 11 and "comment.peculiarity" in detector.feature_names_
    column = detector.feature_names_.index("comment.completeness")
    assert detector.history_[:10, column].tolist() == [0.0] * 10  # older batches: an all-null column
    assert np.isnan(detector.history_[:10, detector.feature_names_.index("comment.peculiarity")]).all()


def test_json_round_trip_reproduces_the_detector(lake: dict) -> None:
    rng, kinds, detector = lake["rng"], lake["kinds"], lake["detector"]
    restored = KNNNoveltyDetector.from_dict(json.loads(json.dumps(detector.to_dict(), allow_nan=False)))
    assert restored.threshold_ == detector.threshold_ == detector.to_dict()["threshold"]
    assert restored.feature_names_ == detector.feature_names_
    np.testing.assert_array_equal(restored.train_scores_, detector.train_scores_)
    queries = [batch_features(clean_batch(rng), kinds), batch_features(unit_change(clean_batch(rng), rng), kinds)]
    np.testing.assert_array_equal(restored.novelty_score(queries), detector.novelty_score(queries))
    nan_history = KNNNoveltyDetector(k=1).fit(np.array([[1.0, np.nan], [2.0, 3.0]]))
    document = json.loads(json.dumps(nan_history.to_dict(), allow_nan=False))
    assert document["history"] == [[1.0, None], [2.0, 3.0]]
    assert np.isnan(KNNNoveltyDetector.from_dict(document).history_[0, 1])
    with pytest.raises(ValueError, match="format"):
        KNNNoveltyDetector.from_dict({"format": "other"})


@pytest.mark.parametrize(
    "kwargs", [{"k": 0}, {"k": 2.5}, {"contamination": 1.0}, {"contamination": -0.1}, {"max_history": 1}]
)
def test_parameters_are_validated(kwargs: dict) -> None:
    """As in scikit-learn: __init__ stores the parameters unchanged, fit checks them."""
    detector = KNNNoveltyDetector(**kwargs)
    assert detector.get_params()[next(iter(kwargs))] == next(iter(kwargs.values()))
    with pytest.raises(ValueError):
        detector.fit(np.array([[0.0], [1.0], [2.0]]))


@pytest.mark.parametrize("metric", ["euclidean", "manhattan", "chebyshev"])
def test_neighbour_search_matches_scikit_learn(metric: str) -> None:
    """The numpy exact search returns scikit-learn's ball-tree distances (the oracle), with the
    leave-one-out rule on training rows (a duplicate row still counts, at distance 0), for histories with
    duplicates, a constant feature, undefined statistics, and more rows than one search block holds."""
    from sklearn.neighbors import NearestNeighbors

    from lakeindex.novelty import knn

    rng = np.random.default_rng(4)
    for n, d, k in [(2, 1, 5), (3, 4, 2), (60, 25, 5), (400, 7, 5), (1500, 40, 5)]:
        history = rng.normal(size=(n, d)) * rng.uniform(0.1, 100, size=d)
        history[n // 2] = history[0]  # an identical batch
        history[:, 0] = 3.0  # a feature constant in training
        history[rng.random((n, d)) < 0.05] = np.nan  # undefined statistics
        queries = np.vstack([rng.normal(size=(20, d)) * 50, history[:3]])
        detector = KNNNoveltyDetector(k=k, metric=metric).fit(history)
        kk = detector.n_neighbors_
        scaled = detector.transform(history)
        # the paper's ball tree, which computes each distance directly (scikit-learn's brute force uses
        # |a|^2 + |b|^2 - 2ab, off by ~1e-8 near 0)
        index = NearestNeighbors(n_neighbors=kk, metric=metric, algorithm="ball_tree").fit(scaled)
        loo, _ = index.kneighbors(None)
        np.testing.assert_allclose(detector.train_scores_, loo.mean(axis=1), rtol=1e-12, atol=1e-12)
        expected, _ = index.kneighbors(detector.transform(queries))
        np.testing.assert_allclose(detector.novelty_score(queries), expected.mean(axis=1), rtol=1e-12, atol=1e-12)
    assert knn._BLOCK_CELLS < 1500 * 1500 * 40  # the last history was searched in several blocks


def test_detector_does_not_import_scikit_learn() -> None:
    """Scoring a batch must not pay scikit-learn's 2.5 s import (issue 15: a novelty check in <= 2 s)."""
    import subprocess
    import sys

    code = ("import sys, numpy as np; from lakeindex.novelty import KNNNoveltyDetector; "
            "d = KNNNoveltyDetector().fit(np.random.default_rng(0).normal(size=(30, 4))); d.is_novel(np.zeros(4)); "
            "print(any(m.startswith(('sklearn', 'scipy.spatial')) for m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


def test_scikit_learn_conventions() -> None:
    """predict gives +1/-1, decision_function is negative exactly for novel rows (threshold - score),
    score_samples is the opposite of the score, and clone/get_params work as for any estimator."""
    from sklearn.base import clone

    # training 0..4 scaled to 0, .25, ..., 1 with k=1: leave-one-out scores are all .25, the threshold too
    detector = KNNNoveltyDetector(k=1, contamination=0.0).fit(np.arange(5.0).reshape(-1, 1))
    assert detector.threshold_ == 0.25
    queries = np.array([[2.0], [5.0], [5.5], [-3.0]])  # scaled .5, 1.25, 1.375, -.75: nearest at 0, .25, .375, .75
    np.testing.assert_allclose(detector.score_samples(queries), [0.0, -0.25, -0.375, -0.75])
    np.testing.assert_allclose(detector.decision_function(queries), [0.25, 0.0, -0.125, -0.5])
    np.testing.assert_array_equal(detector.predict(queries), [1, 1, -1, -1])  # a tie (5.0) is an inlier
    np.testing.assert_array_equal(detector.is_novel(queries), [False, False, True, True])
    twin = clone(detector)
    assert twin.get_params() == {"k": 1, "contamination": 0.0, "metric": "euclidean", "max_history": None}
    assert not hasattr(twin, "threshold_")
    # fit_predict scores the training rows against the model, where each is its own nearest neighbour
    np.testing.assert_array_equal(KNNNoveltyDetector(k=1).fit_predict(np.array([[0.0], [1.0], [9.0]])), [1, 1, 1])
    assert isinstance(twin.set_params(k=3), KNNNoveltyDetector) and twin.k == 3
    assert repr(twin) == "KNNNoveltyDetector(k=3, contamination=0.0)"
    with pytest.raises(ValueError, match="invalid parameter"):
        twin.set_params(n_neighbors=3)
    with pytest.raises(ValueError, match="metric must be one of"):
        KNNNoveltyDetector(metric="cosine").fit(np.arange(5.0).reshape(-1, 1))
