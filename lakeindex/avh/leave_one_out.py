"""The history of ``new_value_ratio`` as exchangeable draws: each clean batch against all the other clean batches.

A stored ``new_value_ratio`` is measured against the vocabulary of the batches *before* it, so early batches
meet a vocabulary still forming (week 2 against one week's values) and the series falls as the vocabulary
grows: its values are not draws from the distribution a new batch's value comes from. A new batch is
measured against the whole clean history's vocabulary. Under exchangeable batches, the value with the
same distribution for a history batch is its share of values that *no other* clean batch has (leave one
out): batch i of K is then one of K exchangeable batches measured against the other K − 1, as the new one
is against K. The other batches' vocabulary is the newest clean batch's ``history_values`` (every clean
batch's value counts, summed) minus batch i's own counts. Values beyond the vocabulary's ``top_k`` count
as new there as they do for a new batch, and a count cut by ``top_k`` can only make a value look new: both
err towards larger history values, so towards wider (not tighter) bounds.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from lakeindex.history.kinds import CATEGORICAL

if TYPE_CHECKING:
    from lakeindex.history.batches import BatchRecord

METRIC = "new_value_ratio"


def new_value_ratio_against_others(counts: Mapping[str, float], complete: float,
                                   vocabulary: Mapping[str, float]) -> float:
    """Share of one batch's ``complete`` values (top values ``counts``) that no other batch has, where
    ``vocabulary`` sums the counts of all batches, this one included."""
    if complete <= 0:
        raise ValueError("a batch without complete values has no new_value_ratio")
    new = sum(n for v, n in counts.items() if vocabulary.get(v, 0.0) - n <= 0)
    return new / complete


def column_history(records: Sequence[BatchRecord], column: str) -> list[dict[str, float]]:
    """The column's feature dicts of ``records`` (oldest first), ``new_value_ratio`` leave-one-out where
    every record holds the column's value counts (else as stored: the summaries are not loaded)."""
    history = [r.features[column] for r in records if column in r.features]
    with_column = [r for r in records if column in r.features]
    summaries = [r.summaries.get(column) for r in with_column]
    if not summaries or any(s is None or s.kind != CATEGORICAL or not s.values_tracked for s in summaries):
        return history
    vocabulary = summaries[-1].history_values
    if not vocabulary:
        return history
    out = []
    for features, s in zip(history, summaries, strict=True):
        if METRIC in features and s.complete_count:
            features = {**features, METRIC: new_value_ratio_against_others(s.value_counts, s.complete_count,
                                                                            vocabulary)}
        out.append(features)
    return out
