"""The identity of one saved analysis: a timestamp in epoch milliseconds plus free-form string tags.

As in Deequ, a dataset's history is a set of results keyed by ``ResultKey``; tags (``{"region": "eu"}``)
separate parallel series of the same dataset. Tags are stored as a sorted tuple so keys are hashable and
two keys with the same tags in a different insertion order are equal.
"""

from __future__ import annotations

import numbers
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


def _check_tags(tags: Mapping[str, str] | None) -> tuple[tuple[str, str], ...]:
    if tags is None:
        return ()
    if not isinstance(tags, Mapping):
        raise ValueError(f"ResultKey tags must be a mapping of str to str, got {type(tags).__name__}")
    for k, v in tags.items():
        if not isinstance(k, str):
            raise ValueError(f"ResultKey tag keys must be strings, got {k!r} ({type(k).__name__})")
        if not isinstance(v, str):
            raise ValueError(f"ResultKey tag values must be strings, got {v!r} ({type(v).__name__}) for tag {k!r}")
    return tuple(sorted(tags.items()))


def _check_timestamp(timestamp_ms: Any) -> int:
    if isinstance(timestamp_ms, bool) or not isinstance(timestamp_ms, numbers.Integral):
        raise ValueError(f"ResultKey timestamp_ms must be an int (epoch milliseconds), got {timestamp_ms!r} "
                         f"({type(timestamp_ms).__name__})")
    if timestamp_ms < 0:
        raise ValueError(f"ResultKey timestamp_ms must be non-negative, got {timestamp_ms}")
    return int(timestamp_ms)


@dataclass(frozen=True, order=True, init=False)
class ResultKey:
    """Timestamp (epoch ms) and tags identifying one saved result; hashable, ordered by time then tags."""

    timestamp_ms: int
    tag_items: tuple[tuple[str, str], ...]

    def __init__(self, timestamp_ms: int, tags: Mapping[str, str] | None = None) -> None:
        object.__setattr__(self, "timestamp_ms", _check_timestamp(timestamp_ms))
        object.__setattr__(self, "tag_items", _check_tags(tags))

    @property
    def tags(self) -> dict[str, str]:
        """The tags as a fresh dict (mutating it does not change the key)."""
        return dict(self.tag_items)

    @classmethod
    def now(cls, tags: Mapping[str, str] | None = None) -> ResultKey:
        """A key for the current wall-clock time, for callers that do not track batch times themselves."""
        return cls(time.time_ns() // 1_000_000, tags)

    def to_dict(self) -> dict[str, Any]:
        """JSON-able form: ``{"timestamp_ms": int, "tags": {str: str}}``."""
        return {"timestamp_ms": self.timestamp_ms, "tags": self.tags}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> ResultKey:
        """Inverse of ``to_dict``; validates like the constructor."""
        if not isinstance(d, Mapping) or "timestamp_ms" not in d:
            raise ValueError(f"ResultKey.from_dict needs a mapping with 'timestamp_ms' and optional 'tags', got {d!r}")
        return cls(d["timestamp_ms"], d.get("tags") or {})
