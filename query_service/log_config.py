"""Logging of ``lakeindex serve``: every line on stderr starts with an ISO-8601 UTC timestamp.

Lines are ``<time> <level> <logger> <message>``, e.g.
``2026-01-31T12:00:00.123Z INFO lakeindex.access {"client": "10.0.0.7:51234", "method": "GET", ...}``.
The app logs each request itself (JSON, with latency and index version), so uvicorn's own access log stays
off. The dict goes to ``uvicorn.run(log_config=...)``, which applies it in every worker process too.
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime
from typing import Any

FORMAT = "%(asctime)s %(levelname)s %(name)s %(message)s"


class UTCFormatter(logging.Formatter):
    """``asctime`` as ISO-8601 UTC with milliseconds (``2026-01-31T12:00:00.123Z``), whatever the host's zone."""

    def formatTime(self, record: logging.LogRecord, datefmt: str | None = None) -> str:  # noqa: N802 - logging's
        stamp = datetime.fromtimestamp(record.created, tz=UTC).isoformat(timespec="milliseconds")
        return stamp.replace("+00:00", "Z")


def log_config(level: str = "INFO") -> dict[str, Any]:
    """The ``logging.config.dictConfig`` of the service: one stderr handler, timestamped lines, at ``level``
    (uvicorn's own loggers follow ``uvicorn.run(log_level=...)``)."""
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"utc": {"()": f"{__name__}.UTCFormatter", "fmt": FORMAT}},
        "handlers": {"stderr": {"class": "logging.StreamHandler", "formatter": "utc", "stream": "ext://sys.stderr"}},
        "loggers": {
            "uvicorn": {"handlers": ["stderr"], "level": level, "propagate": False},
            "uvicorn.access": {"handlers": [], "level": level, "propagate": False},
        },
        "root": {"handlers": ["stderr"], "level": level},
    }
