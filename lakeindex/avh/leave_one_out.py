"""The history of ``new_value_ratio`` as exchangeable draws: each clean batch against all the other clean batches.

A stored ``new_value_ratio`` is measured against the vocabulary of the batches *before* it, so early batches
meet a vocabulary still forming (week 2 against one week's values) and the series falls as the vocabulary
grows: its values are not draws from the distribution a new batch's value comes from. A new batch is
measured against the whole clean history's vocabulary. Under exchangeable batches, the value with the
same distribution for a history batch is its share of values that *no other* clean batch has (leave one
out): batch i of K is then one of K exchangeable batches measured against the other K − 1, as the new one
is against K. A value no other batch has is one batch i brought to the vocabulary (the batches before it
lacked it: stored as the record's ``new_values``) whose count in the whole history (the newest clean
batch's ``history_values``) is batch i's own. Values beyond the vocabulary's ``top_k`` count as new, as
they do for a new batch; a batch whose new values were too many to store keeps its stored ratio, which
counts at least the values the others lack: both err towards wider (not tighter) bounds.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from lakeindex.history.kinds import CATEGORICAL

if TYPE_CHECKING:
    from lakeindex.history.batches import BatchRecord

METRIC = "new_value_ratio"


def column_history(records: Sequence[BatchRecord], column: str) -> list[dict[str, float]]:
    """The column's feature dicts of ``records`` (oldest first), ``new_value_ratio`` leave-one-out where the
    record stored its new values (else as stored)."""
    with_column = [r for r in records if column in r.features]
    latest = with_column[-1].summaries.get(column) if with_column else None
    vocabulary = latest.history_values if latest is not None and latest.kind == CATEGORICAL else None
    out = []
    for r in with_column:
        features, brought = r.features[column], r.new_values.get(column)
        ratio = features.get(METRIC)
        if vocabulary and ratio is not None and brought is not None:
            # brought: n values, ratio n / complete; only the ones no later batch had stay new
            total = sum(brought.values())
            alone = sum(n for v, n in brought.items() if vocabulary.get(v, 0.0) - n <= 0)
            features = {**features, METRIC: ratio * alone / total if total else 0.0}
        out.append(features)
    return out
