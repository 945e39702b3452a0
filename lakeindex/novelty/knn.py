"""Average-kNN novelty detection over batch feature vectors (Redyuk et al., EDBT 2021, §4, Algorithm 1).

``KNNNoveltyDetector`` learns what the accepted batches of a dataset look like from their feature
vectors (``lakeindex.novelty.features``) and flags a new batch whose vector lies far from all of them:

* **Normalisation.** Each feature is min-max scaled with the minimum and maximum of the training
  batches (paper: "a scale of 0 to 1"). Queries are *not* clipped, as in scikit-learn's
  ``MinMaxScaler``, so a unit change ×100 lands far outside [0, 1] instead of at 1. A feature that
  is constant in training is only shifted (range taken as 1, ``MinMaxScaler``'s rule), so its
  deviations count in raw units: a completeness that was always 1.0 and drops to 0.6 adds 0.4.
* **Undefined statistics.** NaN (e.g. the mean of a column with no numeric value, or a statistic of
  a column the batch lacks) is placed at −1 after scaling, one training range below the minimum, in
  training and in queries alike. "Undefined" thus behaves as its own value: batches that share it
  are close, and a batch that newly lacks a statistic is at least one range away from the rest.
* **Score** (``novelty_score``): the mean Euclidean distance (``metric``; also ``manhattan`` and
  ``chebyshev``) to the k = 5 nearest training batches, found by exact search over all of them (so
  the paper's ball tree would return the same distances; the tests check them against
  scikit-learn's ``NearestNeighbors``). Higher means more novel, as in PyOD. The search is numpy's,
  in row blocks of bounded memory: a history holds hundreds to a few thousand batches, where a tree
  buys nothing, and importing scikit-learn costs 2.5 s per process on a 2-core machine, more than a
  whole ``novelty check`` may take (2 s).
* **Threshold** (``threshold_``): the (1 − contamination) percentile (numpy's linear interpolation)
  of the training scores, contamination = 1 %. Training scores are leave-one-out: a training batch
  is not its own neighbour (otherwise its nearest distance would always be 0). An identical
  duplicate batch still counts as a neighbour at distance 0.
* **Decision** (``is_novel``): novel iff the score exceeds the threshold (a tie is an inlier).
* **scikit-learn's conventions**, without importing it: parameters stored unchanged by ``__init__`` and
  checked by ``fit``; ``get_params`` / ``set_params`` (so ``sklearn.base.clone`` and grid searches work),
  ``fit_predict``, and ``NotFittedError`` (a ``ValueError`` and ``AttributeError``, as scikit-learn's);
  ``predict`` gives +1 (inlier) / −1 (novel), ``decision_function`` is ``threshold_ − score``
  (negative = novel) and ``score_samples`` is ``−score`` (lower = more abnormal), as for
  ``sklearn.neighbors.LocalOutlierFactor(novelty=True)``.
* **Few batches.** Leave-one-out needs another batch, so fitting needs at least 2 batches and uses
  k' = min(k, n − 1) neighbours (``n_neighbors_``). With few batches the boundary is broad and
  permissive; the paper starts evaluating at 8 (§5.2) and notes this effect (§5.3).
* **Retraining** (``update`` / ``partial_fit``): the batch is appended to the history and the model
  is refitted (the paper retrains with every new partition); ``max_history`` keeps only the most
  recent batches. Append only batches you accept: the history defines "acceptable".
* **Key sets.** Fitting on dicts uses the union of their keys, imputing gaps (``impute_missing``).
  An ``update`` with a new key (a new column) extends the feature set and imputes it for the older
  batches as an all-null column. A query's keys unknown to the model are ignored.

``to_dict`` stores the parameters, the feature names and the raw training history (NaN as null);
``from_dict`` refits from them, which reproduces the model exactly.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from lakeindex.novelty.features import align_features, impute_missing, union_keys

__all__ = ["FORMAT", "METRICS", "UNDEFINED", "KNNNoveltyDetector", "NotFittedError", "nearest_distances"]

FORMAT = "lakeindex.novelty.knn/1"
UNDEFINED = -1.0  # the scaled position of an undefined (NaN) statistic: one training range below the minimum

FeatureRows = Mapping[str, float] | Sequence[Mapping[str, float]] | np.ndarray | Sequence[Sequence[float]]


def _is_mapping_batch(x: object) -> bool:
    """True for a non-empty list of feature dicts (a batch of vectors)."""
    return isinstance(x, Sequence) and not isinstance(x, str) and len(x) > 0 and all(isinstance(v, Mapping) for v in x)


# metric name (scikit-learn's spellings) -> Minkowski p
METRICS: dict[str, float] = {"euclidean": 2.0, "l2": 2.0, "manhattan": 1.0, "cityblock": 1.0, "l1": 1.0,
                             "chebyshev": math.inf, "infinity": math.inf}
_BLOCK_CELLS = 1 << 22  # differences held at once by the search: 4 M floats, 32 MB


class NotFittedError(ValueError, AttributeError):
    """The detector was used before ``fit`` (the same bases as scikit-learn's ``NotFittedError``)."""


def nearest_distances(train: np.ndarray, queries: np.ndarray | None, k: int, metric: str = "euclidean") -> np.ndarray:
    """The ``k`` smallest distances from each query row to the rows of ``train``, ascending, by exact search.

    ``queries`` None: the training rows themselves, each without itself (leave-one-out by position, so an
    identical duplicate still counts at distance 0), as scikit-learn's ``kneighbors(None)``. Rows are
    compared in blocks of at most ``_BLOCK_CELLS`` differences, so memory stays bounded for any history.
    """
    p = METRICS[metric]
    points = train if queries is None else queries
    n, d = train.shape
    block = max(1, _BLOCK_CELLS // max(1, n * d))
    out = np.empty((points.shape[0], k))
    for start in range(0, points.shape[0], block):
        diff = np.abs(points[start:start + block, None, :] - train[None, :, :])
        if p == 2.0:
            dist = np.sqrt(np.einsum("ijk,ijk->ij", diff, diff))
        elif p == 1.0:
            dist = diff.sum(axis=2)
        else:
            dist = diff.max(axis=2, initial=0.0)
        if queries is None:
            rows = np.arange(start, start + dist.shape[0])
            dist[rows - start, rows] = np.inf
        out[start:start + block] = np.sort(np.partition(dist, k - 1, axis=1)[:, :k], axis=1)
    return out


def _scale(matrix: np.ndarray, data_min: np.ndarray, scale: np.ndarray) -> np.ndarray:
    """Min-max scale with the training extremes, unclipped; NaN (undefined) goes to ``UNDEFINED``."""
    scaled = (matrix - data_min) / scale
    return np.where(np.isnan(scaled), UNDEFINED, scaled)


class KNNNoveltyDetector:
    """Flags a batch whose scaled statistics are far (mean distance to k nearest) from the accepted batches."""

    _PARAMS = ("k", "contamination", "metric", "max_history")

    def __init__(
        self,
        k: int = 5,
        contamination: float = 0.01,
        metric: str = "euclidean",
        max_history: int | None = None,
    ) -> None:
        self.k = k
        self.contamination = contamination
        self.metric = metric
        self.max_history = max_history

    def _check_params(self) -> None:
        k, contamination, max_history = self.k, self.contamination, self.max_history
        if isinstance(k, bool) or not isinstance(k, int) or k < 1:
            raise ValueError(f"k must be an integer >= 1, got {k!r}")
        if not isinstance(contamination, int | float) or not 0.0 <= float(contamination) < 1.0:
            raise ValueError(f"contamination must be in [0, 1), got {contamination!r}")
        if max_history is not None and (
            isinstance(max_history, bool) or not isinstance(max_history, int) or max_history < 2
        ):
            raise ValueError(f"max_history must be None or an integer >= 2, got {max_history!r}")
        if self.metric not in METRICS:
            raise ValueError(f"metric must be one of {sorted(METRICS)}, got {self.metric!r}")

    # ----------------------------------------------------------------------- scikit-learn's estimator API

    def get_params(self, deep: bool = True) -> dict[str, Any]:
        """The constructor parameters, as stored (scikit-learn's ``get_params``; there are no sub-estimators)."""
        return {name: getattr(self, name) for name in self._PARAMS}

    def set_params(self, **params: Any) -> KNNNoveltyDetector:
        """Set constructor parameters (checked at the next ``fit``, as in scikit-learn)."""
        for name, value in params.items():
            if name not in self._PARAMS:
                raise ValueError(f"invalid parameter {name!r} for KNNNoveltyDetector; valid: {list(self._PARAMS)}")
            setattr(self, name, value)
        return self

    def __repr__(self) -> str:
        defaults = KNNNoveltyDetector.__init__.__defaults__ or ()
        changed = [f"{n}={getattr(self, n)!r}" for n, d in zip(self._PARAMS, defaults, strict=True)
                   if getattr(self, n) != d]
        return f"KNNNoveltyDetector({', '.join(changed)})"

    # ----------------------------------------------------------------------- input handling

    def _as_matrix(self, X: FeatureRows, names: Sequence[str] | None) -> tuple[list[str], np.ndarray, bool]:
        """Rows of ``X`` as a float matrix over ``names`` (or their own keys), and whether X was a single vector."""
        if isinstance(X, Mapping):
            keys, matrix = align_features([X], names)
            return keys, matrix, True
        if _is_mapping_batch(X):
            keys, matrix = align_features(list(X), names)  # type: ignore[arg-type]
            return keys, matrix, False
        array = np.asarray(X, dtype=float)
        if array.ndim not in (1, 2) or array.size == 0:
            raise ValueError(f"expected feature dicts or a non-empty 1-D/2-D array, got shape {array.shape}")
        single = array.ndim == 1
        array = array.reshape(1, -1) if single else array
        keys = list(names) if names is not None else [f"x{j}" for j in range(array.shape[1])]
        if array.shape[1] != len(keys):
            raise ValueError(f"expected {len(keys)} features, got {array.shape[1]}")
        return keys, array, single

    def _check_fitted(self) -> None:
        """Raise ``NotFittedError`` before the first fit."""
        if not hasattr(self, "threshold_"):
            raise NotFittedError("KNNNoveltyDetector is not fitted; call fit() with at least 2 batches")

    # ----------------------------------------------------------------------- training

    def fit(self, X: FeatureRows) -> KNNNoveltyDetector:
        """Learn from accepted batches: feature dicts (keys unioned) or an (n, d) array, n >= 2."""
        names, matrix, _ = self._as_matrix(X, None)
        self._refit(names, matrix)
        return self

    def update(self, x: FeatureRows) -> KNNNoveltyDetector:
        """Append accepted batch(es) to the history and refit, so the model follows the data (paper §4)."""
        if not hasattr(self, "threshold_"):
            return self.fit(x)
        if isinstance(x, Mapping) or _is_mapping_batch(x):
            rows = [x] if isinstance(x, Mapping) else list(x)  # type: ignore[list-item]
            known = set(self.feature_names_)
            new_keys = [key for key in union_keys(rows) if key not in known]
            names = self.feature_names_ + new_keys
            filler = np.array([impute_missing(key) for key in new_keys], dtype=float)
            history = np.hstack([self.history_, np.tile(filler, (len(self.history_), 1))])
            _, matrix, _ = self._as_matrix(rows, names)
        else:
            names, history = self.feature_names_, self.history_
            _, matrix, _ = self._as_matrix(x, names)
        self._refit(names, np.vstack([history, matrix]))
        return self

    def partial_fit(self, X: FeatureRows) -> KNNNoveltyDetector:
        """scikit-learn spelling of ``update``."""
        return self.update(X)

    def _refit(self, names: list[str], history: np.ndarray) -> None:
        """Fit scaling, neighbour index, leave-one-out training scores and threshold on ``history``."""
        self._check_params()
        if self.max_history is not None:
            history = history[-self.max_history :]
        n = history.shape[0]
        if n < 2:
            raise ValueError(f"need at least 2 training batches (leave-one-out needs a neighbour), got {n}")
        defined = ~np.isnan(history)
        has_any = defined.any(axis=0)
        data_min = np.where(has_any, np.where(defined, history, np.inf).min(axis=0), 0.0)
        data_max = np.where(has_any, np.where(defined, history, -np.inf).max(axis=0), 0.0)
        spread = data_max - data_min
        scale = np.where(spread > 0, spread, 1.0)
        n_neighbors = min(self.k, n - 1)
        scaled = _scale(history, data_min, scale)
        distances = nearest_distances(scaled, None, n_neighbors, self.metric)  # None: not its own neighbour
        # Assign only after everything succeeded, so a failed update leaves the fitted model intact.
        self.feature_names_, self.history_ = list(names), history
        self.data_min_, self.data_max_, self.scale_ = data_min, data_max, scale
        self.n_neighbors_, self._scaled_history = n_neighbors, scaled
        self.train_scores_ = distances.mean(axis=1)
        self.threshold_ = float(np.percentile(self.train_scores_, 100.0 * (1.0 - float(self.contamination))))

    @property
    def n_samples_(self) -> int:
        """Number of training batches in the current history."""
        return int(self.history_.shape[0])

    # ----------------------------------------------------------------------- scoring

    def _scale(self, matrix: np.ndarray) -> np.ndarray:
        """Scale ``matrix`` with the fitted training extremes."""
        return _scale(matrix, self.data_min_, self.scale_)

    def transform(self, X: FeatureRows) -> np.ndarray:
        """The scaled (n, d) matrix the neighbour search sees, for inspection and tests."""
        self._check_fitted()
        _, matrix, _ = self._as_matrix(X, self.feature_names_)
        return self._scale(matrix)

    def novelty_score(self, x: FeatureRows) -> float | np.ndarray:
        """Mean distance to the k nearest training batches (higher = more novel): a float for one vector, an
        array for several."""
        self._check_fitted()
        _, matrix, single = self._as_matrix(x, self.feature_names_)
        distances = nearest_distances(self._scaled_history, self._scale(matrix), self.n_neighbors_, self.metric)
        scores = distances.mean(axis=1)
        return float(scores[0]) if single else scores

    def is_novel(self, x: FeatureRows) -> bool | np.ndarray:
        """The verdict: True where the score exceeds ``threshold_`` (a tie is an inlier)."""
        scores = self.novelty_score(x)
        return bool(scores > self.threshold_) if isinstance(scores, float) else scores > self.threshold_

    def score_samples(self, X: FeatureRows) -> np.ndarray:
        """scikit-learn's sign: the opposite of the score (lower = more abnormal), one per row."""
        return -np.atleast_1d(self.novelty_score(X))

    def decision_function(self, X: FeatureRows) -> np.ndarray:
        """scikit-learn's sign: ``threshold_ - score``, negative for novel batches, one per row."""
        return self.threshold_ - np.atleast_1d(self.novelty_score(X))

    def predict(self, X: FeatureRows) -> np.ndarray:
        """scikit-learn's labels: +1 for an inlier, -1 for a novel batch, one per row."""
        return np.where(self.decision_function(X) < 0, -1, 1)

    def fit_predict(self, X: FeatureRows) -> np.ndarray:
        """``fit(X).predict(X)``, as scikit-learn's ``OutlierMixin``: each row is its own nearest neighbour."""
        return self.fit(X).predict(X)

    # ----------------------------------------------------------------------- persistence

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict: parameters, feature names and raw history (NaN as None); threshold for reading."""
        self._check_fitted()
        return {
            "format": FORMAT,
            "params": {
                "k": self.k,
                "contamination": self.contamination,
                "metric": self.metric,
                "max_history": self.max_history,
            },
            "feature_names": list(self.feature_names_),
            "history": [[None if math.isnan(v) else float(v) for v in row] for row in self.history_.tolist()],
            "threshold": self.threshold_,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> KNNNoveltyDetector:
        """Rebuild a fitted detector from ``to_dict`` output by refitting on the stored history."""
        if data.get("format") != FORMAT:
            raise ValueError(f"not a {FORMAT} document (format={data.get('format')!r})")
        detector = cls(**data["params"])
        names = [str(name) for name in data["feature_names"]]
        history = np.array([[math.nan if v is None else float(v) for v in row] for row in data["history"]], dtype=float)
        detector._refit(names, history.reshape(len(data["history"]), len(names)))
        return detector
