"""Column kinds: whether a column is summarised as ``numeric`` or ``categorical`` (AVH Table 3 vs Table 4).

The one rule, used by the pandas and Spark summaries, the synthetic issues and the kNN features:

* a numeric dtype is ``numeric`` (Spark: any ``NumericType``);
* **booleans are categorical**, as are dates, timestamps and every other typed non-numeric column: AVH
  splits its metrics by kind (Table 3 numeric, Table 4 categorical) and a two-valued flag is a category,
  whose value distribution (chi-square, L-inf, ...) is what can drift, not a mean or a quantile. The kNN
  vectors of the batch history were always built on these kinds; ``lakeindex.novelty.batch_features``
  used to count booleans as numbers (and wanted every value of a text column to parse) and now follows
  this rule too, so both validators read a column the same way;
* a text column is ``numeric`` when at least ``NUMERIC_SHARE`` (90%) of its non-empty values are numbers
  (``chars.NUMBER_RE``: optional sign, digits, decimal point, exponent; no ``inf``/``nan``), so a few
  typos do not turn a numeric column into a category; otherwise, and when it has no non-empty value,
  ``categorical``.

Per-batch inference can flip a column's kind when a batch is corrupted; pass the history's kinds (or a
majority vote, ``infer_schema_kinds``) to keep them fixed.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from lakeindex.history import chars
from lakeindex.history.chars import to_text

if TYPE_CHECKING:
    import pandas as pd
    from pyspark.sql.types import DataType

NUMERIC, CATEGORICAL = "numeric", "categorical"
KINDS = (NUMERIC, CATEGORICAL)
NUMERIC_SHARE = 0.9  # a text column is numeric when this share of its non-empty values are numbers


def has_numeric_dtype(series: pd.Series) -> bool:
    """True for a numeric pandas dtype other than bool: values that are numbers without parsing."""
    import pandas as pd

    return bool(pd.api.types.is_numeric_dtype(series.dtype)) and not pd.api.types.is_bool_dtype(series.dtype)


def kind_by_share(numbers: int, nonempty: int) -> str:
    """The kind of a text column with ``numbers`` number values among ``nonempty`` non-empty values."""
    return NUMERIC if nonempty and numbers >= NUMERIC_SHARE * nonempty else CATEGORICAL


def infer_kind(series: pd.Series) -> str:
    """``numeric`` for numeric dtypes (not booleans) and text mostly made of numbers, else ``categorical``."""
    import pandas as pd

    if has_numeric_dtype(series):
        return NUMERIC
    if pd.api.types.is_bool_dtype(series.dtype) or pd.api.types.is_datetime64_any_dtype(series.dtype):
        return CATEGORICAL
    text = to_text(series)
    nonempty = text[text.notna() & (text != "")]
    return kind_by_share(int(nonempty.str.fullmatch(chars.NUMBER_BODY).sum()), len(nonempty))


def infer_text_kind(values: Any) -> str:
    """``infer_kind`` of a text column given as a sequence of str (None: null), without pandas."""
    nonempty = [v for v in values if v is not None and v != ""]
    return kind_by_share(sum(1 for v in nonempty if chars.NUMBER.fullmatch(v)), len(nonempty))


def kind_of_spark_type(dtype: DataType) -> str | None:
    """The kind of a typed Spark column, or None for a string column (decided by its values, ``kind_by_share``)."""
    from pyspark.sql import types as T

    if isinstance(dtype, T.StringType):
        return None
    return NUMERIC if isinstance(dtype, T.NumericType) else CATEGORICAL


def infer_schema_kinds(frames: Iterable[pd.DataFrame]) -> dict[str, str]:
    """Column kinds by majority vote over batches, so one corrupted batch cannot change a column's kind.

    A batch in which a column is entirely null does not vote; a tie (or no vote at all) is ``categorical``.
    """
    votes: dict[str, list[int]] = {}
    for df in frames:
        for i, name in enumerate(df.columns):
            series = df.iloc[:, i]
            tally = votes.setdefault(str(name), [0, 0])
            if series.notna().any():
                tally[0 if infer_kind(series) == NUMERIC else 1] += 1
    return {name: NUMERIC if numeric > categorical else CATEGORICAL for name, (numeric, categorical) in votes.items()}
