"""TextFrame: a small batch whose columns are all text, held as numpy object arrays (str, None for null).

It is what Arrow reads from a CSV/TSV file read as text (the history commands' default), and the history
layer profiles, samples and corrupts it (synthetic issues) with the same results as a pandas frame of the
same values (``tests/test_text_frame.py``). Why not pandas: importing pandas costs 0.5-0.8 s, a third of
the 2 s budget of a whole ``lakeindex validate-batch`` on a 1,000-row batch, and a text batch
needs none of it. Typed data (Parquet numbers, ``--infer-schema``, the service's JSON) stays pandas.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    import pandas as pd
    import pyarrow as pa


@dataclass(frozen=True)
class TextFrame:
    """Named text columns of equal length, in order; names are unique."""

    names: tuple[str, ...]
    arrays: tuple[np.ndarray, ...]

    def __post_init__(self) -> None:
        if len(set(self.names)) != len(self.names):
            raise ValueError(f"duplicate column names: {sorted({n for n in self.names if self.names.count(n) > 1})}")
        if len({len(a) for a in self.arrays}) > 1:
            raise ValueError("columns of different lengths")

    @classmethod
    def from_arrow(cls, table: pa.Table) -> TextFrame | None:
        """The table's string columns as object arrays, or None when a column is not a string column."""
        import pyarrow as pa

        if not all(pa.types.is_string(t) or pa.types.is_large_string(t) for t in table.schema.types):
            return None
        return cls(tuple(table.column_names), tuple(_objects(c.to_pylist()) for c in table.columns))

    @property
    def columns(self) -> list[str]:
        return list(self.names)

    def __len__(self) -> int:
        return len(self.arrays[0]) if self.arrays else 0

    def __getitem__(self, name: str) -> np.ndarray:
        return self.arrays[self.names.index(name)]

    def column_at(self, i: int) -> np.ndarray:
        return self.arrays[i]

    def take(self, rows: np.ndarray | Sequence[int]) -> TextFrame:
        """The rows at ``rows`` (positions), in that order."""
        idx = np.asarray(rows, dtype=np.intp)
        return TextFrame(self.names, tuple(a[idx] for a in self.arrays))

    def sample(self, n: int, seed: int) -> TextFrame:
        """``n`` rows drawn uniformly without replacement, kept in file order: the rows pandas'
        ``DataFrame.sample(n=n, random_state=seed).sort_index()`` draws (``RandomState(seed).choice``)."""
        picked = np.random.RandomState(seed).choice(len(self), size=n, replace=False)
        return self.take(np.sort(picked))

    def to_pandas(self) -> pd.DataFrame:
        """The pandas frame of the same values (object columns of str / None), as Arrow's ``to_pandas`` gives."""
        import pandas as pd

        return pd.DataFrame({n: pd.Series(a, dtype=object) for n, a in zip(self.names, self.arrays, strict=True)},
                            columns=list(self.names))


def _objects(values: list[Any]) -> np.ndarray:
    """A 1-d object array of ``values`` (Arrow's ``to_numpy`` would import pandas, which this module avoids)."""
    out = np.empty(len(values), dtype=object)
    out[:] = values
    return out


def present_text(frame: Any, column: str) -> list[str]:
    """The non-null values of ``frame[column]`` as text, in order (a TextFrame, or a pandas frame whose typed
    columns get their canonical text, :mod:`lakeindex.lake.rendering`, as the index build gives them)."""
    if isinstance(frame, TextFrame):
        return [v for v in frame[column].tolist() if v is not None]
    import pyarrow as pa

    from lakeindex.lake.rendering import NotRenderable, render

    values = frame[column].dropna()
    try:
        return render(pa.array(values, from_pandas=True)).to_pylist()
    except (NotRenderable, pa.ArrowInvalid, pa.ArrowTypeError):  # mixed or nested objects: as pandas writes them
        return values.astype(str).tolist()
