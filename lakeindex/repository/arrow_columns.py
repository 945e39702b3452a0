"""Arrow arrays of the metrics rows' column types, built from Python values through ``Array.from_buffers``.

Why not ``pa.array`` / ``pa.Table.from_pydict``: pyarrow's converter from Python objects asks its pandas
shim whether the input is a pandas object, which imports pandas (0.5-0.8 s) the first time, a third of
the 2 s a history command may take on a small batch. A save is a few hundred rows of strings,
integers, floats and one string map, so the buffers are laid out here instead (Arrow's columnar format:
validity bitmap, 32-bit offsets, values), with the same type checks the converter makes.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pyarrow as pa


def _validity(valid: np.ndarray) -> pa.Buffer | None:
    return None if valid.all() else pa.py_buffer(np.packbits(valid, bitorder="little").tobytes())


def _offsets(lengths: Sequence[int]) -> np.ndarray:
    offsets = np.zeros(len(lengths) + 1, dtype=np.int64)
    np.cumsum(np.asarray(lengths, dtype=np.int64), out=offsets[1:])
    if offsets[-1] > np.iinfo(np.int32).max:
        raise ValueError("more than 2 GiB of text in one column of a save")
    return offsets.astype(np.int32)


def string_array(values: Sequence[str | None], what: str = "a string column") -> pa.Array:
    """A ``string`` array of ``values`` (None: null)."""
    encoded = []
    for v in values:
        if v is not None and not isinstance(v, str):
            raise TypeError(f"{what} takes str or None, got {type(v).__name__}: {v!r}")
        encoded.append(None if v is None else v.encode("utf-8"))
    valid = np.fromiter((e is not None for e in encoded), dtype=bool, count=len(encoded))
    offsets = _offsets([0 if e is None else len(e) for e in encoded])
    data = b"".join(e for e in encoded if e is not None)
    return pa.Array.from_buffers(pa.string(), len(encoded), [_validity(valid), pa.py_buffer(offsets.tobytes()),
                                                             pa.py_buffer(data)], null_count=int((~valid).sum()))


def _numbers(values: Sequence[Any], dtype: type, arrow: pa.DataType, what: str) -> pa.Array:
    valid = np.fromiter((v is not None for v in values), dtype=bool, count=len(values))
    try:
        data = np.array([0 if v is None else v for v in values], dtype=dtype)
    except (TypeError, ValueError, OverflowError) as exc:
        raise TypeError(f"{what} takes {arrow} values: {exc}") from exc
    return pa.Array.from_buffers(arrow, len(values), [_validity(valid), pa.py_buffer(data.tobytes())],
                                 null_count=int((~valid).sum()))


def int64_array(values: Sequence[int | None], what: str = "an int64 column") -> pa.Array:
    """An ``int64`` array of ``values`` (None: null; bools and floats are refused, as ``pa.array`` does)."""
    for v in values:
        if v is not None and (isinstance(v, bool) or not isinstance(v, int | np.integer)):
            raise TypeError(f"{what} takes int or None, got {type(v).__name__}: {v!r}")
    return _numbers(values, np.int64, pa.int64(), what)


def float64_array(values: Sequence[float | None], what: str = "a float64 column") -> pa.Array:
    """A ``double`` array of ``values`` (None: null)."""
    return _numbers(values, np.float64, pa.float64(), what)


def string_map_array(values: Sequence[Sequence[tuple[str, str]] | None], what: str = "a map column") -> pa.Array:
    """A ``map<string, string>`` array: each value a list of (key, value) pairs, or None (null)."""
    keys: list[str] = []
    items: list[str] = []
    lengths = []
    for pairs in values:
        pairs = list(pairs or [])
        keys.extend(k for k, _ in pairs)
        items.extend(v for _, v in pairs)
        lengths.append(len(pairs))
    valid = np.fromiter((v is not None for v in values), dtype=bool, count=len(values))
    offsets = pa.Array.from_buffers(pa.int32(), len(values) + 1, [None, pa.py_buffer(_offsets(lengths).tobytes())])
    out = pa.MapArray.from_arrays(offsets, string_array(keys, what), string_array(items, what))
    if valid.all():
        return out
    return pa.Array.from_buffers(out.type, len(values), [_validity(valid), *out.buffers()[1:2]],
                                 null_count=int((~valid).sum()), children=[out.values])


def table(columns: dict[str, Sequence[Any]], schema: pa.Schema) -> pa.Table:
    """A table of ``schema`` (string, int64, double and map<string, string> fields) from Python columns."""
    build = {pa.string(): string_array, pa.int64(): int64_array, pa.float64(): float64_array}
    arrays = []
    for f in schema:
        what = f"column {f.name!r}"
        if f.type in build:
            arr = build[f.type](columns[f.name], what)
        elif f.type == pa.map_(pa.string(), pa.string()):
            arr = string_map_array(columns[f.name], what)
        else:
            raise TypeError(f"no builder for {what} of type {f.type}")
        if not f.nullable and arr.null_count:
            raise ValueError(f"{what} may not hold nulls")
        arrays.append(arr)
    return pa.Table.from_arrays(arrays, schema=schema)
