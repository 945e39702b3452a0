"""Where each recurring dataset of a metrics repository stands: batches recorded, accepted and flagged, the
latest batch, the latest validation's verdict and the number of check runs. Read from the status and
validation metrics only (no features, samples or programs), so listing a repository stays cheap."""

from __future__ import annotations

from typing import Any

from lakeindex.history.batches import ACCEPTED, FLAGGED
from lakeindex.repository import FileSystemMetricsRepository


def dataset_status(repo: FileSystemMetricsRepository, dataset: str) -> dict[str, Any]:
    """One dataset's standing (see the module docstring)."""
    statuses: list[tuple[int, str, str]] = []
    validation: tuple[str, dict[str, Any]] | None = None
    for r in repo.load().for_dataset(dataset).for_analyzers(["BatchStatus", "Validation"]).get():
        batch = r.key.tags.get("batch")
        if batch is None:
            continue
        for m in r.metrics:
            if m.name == "BatchStatus" and isinstance(m.value, dict):
                statuses.append((r.key.timestamp_ms, batch, str(m.value.get("status", ACCEPTED))))
            elif m.name == "Validation" and isinstance(m.value, dict):
                validation = (batch, m.value)  # results come oldest first: the last one is the latest
    kinds = [s for _, _, s in statuses]
    latest = statuses[-1] if statuses else None
    return {"dataset": dataset, "batches": len(statuses), "accepted": kinds.count(ACCEPTED),
            "flagged": kinds.count(FLAGGED), "latest_batch": latest[1] if latest else None,
            "latest_timestamp_ms": latest[0] if latest else None,
            "latest_verdict": validation[1].get("verdict") if validation else None,
            "verdict_batch": validation[0] if validation else None,
            "failing_signals": list(validation[1].get("failing_signals", [])) if validation else [],
            "check_runs": len(repo.load().for_dataset(dataset).without_tag("batch").get())}


def repository_status(repository: FileSystemMetricsRepository | str) -> list[dict[str, Any]]:
    """Every dataset's standing, by name."""
    repo = FileSystemMetricsRepository(repository) if isinstance(repository, str) else repository
    return [dataset_status(repo, d) for d in repo.datasets()]
