"""The canonical text of a typed value: one rendering per type, used wherever a typed column becomes text.

Patterns are learned and checked on text. A Parquet, Delta or Iceberg column is typed, so the index build,
inference on DATA and validation of a batch must all turn the same value into the same string, or a rule
learned on a typed column would reject the next batch of that column. The renderings (``docs/lakes.md``):

===================  ==========================================================  ======================
type                 text                                                        example
===================  ==========================================================  ======================
string               as stored                                                   ``ORD-001``
integer              decimal digits                                              ``-42``
floating point       shortest text that reads back to the same number (Arrow)    ``1.5``, ``1e+20``
decimal(p, s)        exactly ``s`` fraction digits                               ``12.30``
boolean              ``true`` / ``false``                                        ``true``
date                 ISO 8601                                                    ``2024-01-31``
timestamp            ``YYYY-MM-DD HH:MM:SS`` and a fraction without trailing 0s  ``2024-01-31 10:00:00.5``
                     (with a time zone: in UTC, as Spark's cast does in UTC)
time                 ``HH:MM:SS`` and a fraction without trailing 0s             ``10:01:02``
binary               its UTF-8 text; a column of other bytes is skipped          ``ab``
list, struct, map    skipped, with the reason recorded                           -
===================  ==========================================================  ======================
"""

from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc

_TRAILING_ZEROS = r"(\.[0-9]*[1-9])0+$"
_ZERO_FRACTION = r"\.0+$"


class NotRenderable(ValueError):
    """A column whose type has no text rendering (nested types, non-UTF-8 binary); the message says why."""


def render(arr: pa.Array | pa.ChunkedArray) -> pa.Array | pa.ChunkedArray:
    """The canonical text of every value of ``arr`` (nulls stay null); raises :class:`NotRenderable`."""
    t = arr.type
    if pa.types.is_string(t) or pa.types.is_large_string(t):
        return arr
    if pa.types.is_dictionary(t):
        return render(pc.cast(arr, t.value_type))
    if pa.types.is_nested(t):
        raise NotRenderable(f"nested type {t} skipped (only scalar columns are indexed)")
    if pa.types.is_timestamp(t):
        if t.tz is not None:
            arr = pc.cast(arr, pa.timestamp(t.unit))  # the same instant, as UTC wall-clock time
        return _trim_fraction(pc.cast(arr, pa.string()))
    if pa.types.is_time(t):
        return _trim_fraction(pc.cast(arr, pa.string()))
    try:
        return pc.cast(arr, pa.string())
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as exc:
        raise NotRenderable(f"type {t} not readable as text ({str(exc).splitlines()[0][:200]})") from exc


def sample_text(arr: pa.Array | pa.ChunkedArray, n: int) -> list[str]:
    """The first ``n`` non-empty canonical texts of ``arr`` (none for a column without a text rendering):
    the values a rule is learned from."""
    try:
        text = render(arr).to_pylist()
    except NotRenderable:
        return []
    return [v for v in text if v is not None and v != ""][:n]


def _trim_fraction(text: pa.Array | pa.ChunkedArray) -> pa.Array | pa.ChunkedArray:
    text = pc.replace_substring_regex(text, _TRAILING_ZEROS, r"\1")
    return pc.replace_substring_regex(text, _ZERO_FRACTION, "")


def render_scalar(value: object) -> str | None:
    """The canonical text of one Python value (a partition value from a table format's metadata)."""
    if value is None or isinstance(value, str):
        return value
    return render(pa.array([value]))[0].as_py()
