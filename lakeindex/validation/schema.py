"""The schema signal: columns missing from, or new in, the batch compared with the latest clean batch."""

from __future__ import annotations

from typing import Any

from lakeindex.validation.signal import BatchUnderTest, skipped, status


class SchemaSignal:
    """A batch without rows fails (a header-only file is not a clean 0-row batch). Kinds are fixed by the
    history (a numeric column full of text is numeric with complete_ratio 0, which AVH sees), so this
    signal is about the column set only."""

    name = "schema"

    def evaluate(self, batch: BatchUnderTest) -> dict[str, Any]:
        new = batch.new
        if not new.notes.get("rows"):  # a header-only file: its columns are there, its data is not
            return {"signal": self.name, "status": "failed", "reason": "the batch has no rows",
                    "missing_columns": [], "new_columns": []}
        if not batch.clean:
            return skipped(self.name, "no clean batch yet")
        latest = batch.clean[-1]
        missing = sorted(set(latest.summaries) - set(new.summaries))
        added = sorted(set(new.summaries) - set(latest.summaries))
        return {"signal": self.name, "status": status(bool(missing or added)), "missing_columns": missing,
                "new_columns": added}
