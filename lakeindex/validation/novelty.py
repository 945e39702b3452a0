"""The novelty signal: the kNN detector (EDBT 2021) fitted on the clean batches' feature vectors scores
the batch; it fails when the score exceeds the detector's threshold."""

from __future__ import annotations

from typing import Any

from lakeindex.validation.signal import BatchUnderTest, skipped, status

MIN_NOVELTY_HISTORY = 2


class NoveltySignal:
    name = "novelty"

    def __init__(self, k: int = 5, contamination: float = 0.01) -> None:
        self.k = k
        self.contamination = contamination

    def evaluate(self, batch: BatchUnderTest) -> dict[str, Any]:
        from lakeindex.novelty.knn import KNNNoveltyDetector

        clean, new = batch.clean, batch.new
        if len(clean) < MIN_NOVELTY_HISTORY:
            return skipped(self.name, f"{len(clean)} clean batches (need {MIN_NOVELTY_HISTORY})")
        det = KNNNoveltyDetector(k=self.k, contamination=self.contamination).fit([r.novelty for r in clean])
        score = float(det.novelty_score(new.novelty))
        novel = bool(det.is_novel(new.novelty))
        return {"signal": self.name, "status": status(novel), "score": score, "threshold": float(det.threshold_),
                "k": det.n_neighbors_, "learned_from": [r.batch_id for r in clean]}
