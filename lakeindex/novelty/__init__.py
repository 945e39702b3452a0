"""kNN novelty detection for recurring batches (Redyuk et al., "Automating Data Quality Validation for
Dynamic Data Ingestion", EDBT 2021).

Each accepted batch becomes a vector of descriptive statistics (``novelty_features`` of its column
summaries, as the batch history stores it; ``batch_features`` for a pandas batch); an average-kNN
detector learns the accepted vectors and flags a new batch that lies far from all of them::

    kinds = infer_schema_kinds(history_frames)
    detector = KNNNoveltyDetector(k=5, contamination=0.01).fit([batch_features(df, kinds) for df in history_frames])
    features = batch_features(new_df, kinds)
    if not detector.is_novel(features):
        detector.update(features)  # retrain as batches arrive

``detector.to_dict()`` is JSON; ``KNNNoveltyDetector.from_dict`` restores it. The module docstrings
of ``features`` and ``knn`` list the choices made where the paper is silent.
"""

from lakeindex.history.kinds import infer_kind, infer_schema_kinds  # re-exported: the one column-kind rule
from lakeindex.novelty.features import (
    FeatureVector,
    align_features,
    batch_features,
    impute_missing,
    index_of_peculiarity,
    novelty_features,
    peculiarity_per_value,
    union_keys,
)
from lakeindex.novelty.knn import KNNNoveltyDetector, NotFittedError

__all__ = [
    "FeatureVector",
    "KNNNoveltyDetector",
    "NotFittedError",
    "align_features",
    "batch_features",
    "impute_missing",
    "index_of_peculiarity",
    "infer_kind",
    "infer_schema_kinds",
    "novelty_features",
    "peculiarity_per_value",
    "union_keys",
]
