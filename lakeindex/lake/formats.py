"""The lake's file formats, told by extension (a module of its own so that naming a format does not import
``pyarrow.compute``, 0.07 s, which only parsing needs)."""

from __future__ import annotations

FORMATS = {".csv": "csv", ".tsv": "tsv", ".tab": "tsv", ".parquet": "parquet", ".pq": "parquet",
           ".jsonl": "jsonl", ".ndjson": "jsonl", ".json": "jsonl"}


def file_format(path: str) -> str | None:
    """Format name for a path by extension, or None if unsupported."""
    name = path.rsplit("/", 1)[-1].lower()
    for ext, fmt in FORMATS.items():
        if name.endswith(ext):
            return fmt
    return None
