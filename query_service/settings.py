"""Service settings: one home for the service's defaults, importable without the web stack (the
``lakeindex`` command reads them to build ``serve``'s options and must start fast)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

SERVE_WATCH_INTERVAL = 5.0  # seconds between checks of the index pointer under `lakeindex serve`


@dataclass(frozen=True)
class Settings:
    """Service settings, the one home of their defaults (limits default to what a column sample needs;
    an app built in process does not watch the index unless asked, ``lakeindex serve`` does)."""

    max_body_bytes: int = 16 * 1024 * 1024
    max_values: int = 100_000
    max_value_length: int = 4096
    admin_token: str | None = None
    watch_interval: float = 0.0
    repository: str | None = None  # metrics repository for /v1/batches/validate
    signals_config: str | None = None  # YAML/JSON signal policies (severity, min_history) for batch validation
    # requests admitted at once per lane (more get 503 + Retry-After); lookups and /health are never laned
    slow_lane: int = 2  # batch validation and index scans: seconds each
    inference_lane: int = 16  # inference, validation, tagging: milliseconds to a second each

    def to_env(self, index: str) -> dict[str, str]:
        """The environment of worker processes (``uvicorn --factory``), read back by :meth:`from_env`;
        the admin token stays in ``LAKEINDEX_ADMIN_TOKEN`` where the operator put it."""
        return {"LAKEINDEX_INDEX": index, "LAKEINDEX_MAX_VALUES": str(self.max_values),
                "LAKEINDEX_MAX_VALUE_LENGTH": str(self.max_value_length),
                "LAKEINDEX_MAX_BODY_BYTES": str(self.max_body_bytes),
                "LAKEINDEX_WATCH_INTERVAL": str(self.watch_interval), "LAKEINDEX_REPO": self.repository or "",
                "LAKEINDEX_SIGNALS_CONFIG": self.signals_config or ""}

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> Settings:
        """Settings from ``LAKEINDEX_*`` variables, each defaulting as ``lakeindex serve`` does."""
        return cls(max_values=int(env.get("LAKEINDEX_MAX_VALUES", cls.max_values)),
                   max_value_length=int(env.get("LAKEINDEX_MAX_VALUE_LENGTH", cls.max_value_length)),
                   max_body_bytes=int(env.get("LAKEINDEX_MAX_BODY_BYTES", cls.max_body_bytes)),
                   admin_token=env.get("LAKEINDEX_ADMIN_TOKEN") or None,
                   watch_interval=float(env.get("LAKEINDEX_WATCH_INTERVAL", SERVE_WATCH_INTERVAL)),
                   repository=env.get("LAKEINDEX_REPO") or None,
                   signals_config=env.get("LAKEINDEX_SIGNALS_CONFIG") or None)
