"""Fit FMDV-VH on ten wide/composite probe columns (20 values each); print each rule and its fit time.

    python bench/probe_wide.py INDEX
"""

from __future__ import annotations

import random
import sys
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from lakeindex.fmdv.infer import AutoValidator  # noqa: E402
from lakeindex.index.store import IndexReader  # noqa: E402


def probe_columns(seed: int = 3, n: int = 200) -> dict[str, list[str]]:
    """The issue's kinds of wide values, one column each."""
    r = random.Random(seed)

    def uid() -> str:
        return str(uuid.UUID(int=r.getrandbits(128)))

    def ts() -> str:
        return (f"2019-{r.randint(1, 12):02d}-{r.randint(1, 28):02d}T{r.randint(0, 23):02d}:"
                f"{r.randint(0, 59):02d}:{r.randint(0, 59):02d}.{r.randint(0, 999):03d}Z")

    def url() -> str:
        path = "/".join(r.choice(["api", "v1", "users", "items", "a", "b"]) for _ in range(r.randint(3, 6)))
        return f"https://www.example.com/{path}?id={r.randint(1, 999)}"

    def unc() -> str:
        dirs = "\\".join(r.choice(["x", "data", "raw"]) for _ in range(r.randint(2, 4)))
        return f"\\\\srv{r.randint(1, 9):02d}\\share\\{dirs}\\file{r.randint(1, 99)}.txt"

    return {
        "uuid": [uid() for _ in range(n)],
        "uuid|ord": [f"{uid()}|ORD-{r.randint(100000, 999999)}" for _ in range(n)],
        "uuid_uuid": [f"{uid()}_{uid()}" for _ in range(n)],
        "iso_ms_z": [ts() for _ in range(n)],
        "url": [url() for _ in range(n)],
        "unc": [unc() for _ in range(n)],
        "kv": [",".join(f"{k}:{r.randint(0, 99)}" for k in r.sample("abcdefg", 4)) for _ in range(n)],
        "hash24": ["#".join(str(r.randint(-99, 999)) for _ in range(24)) for _ in range(n)],
        "pipe8": ["|".join(str(r.randint(0, 9999)) for _ in range(8)) for _ in range(n)],
        "brack": [f"[{ts()[:10]}|{r.randint(1, 99)}|{r.choice(['ok', 'fail'])}]" for _ in range(n)],
    }


def main() -> int:
    validator = AutoValidator(IndexReader(sys.argv[1]))
    for name, values in probe_columns().items():
        t0 = time.perf_counter()
        rule = validator.fit(values[:20]).rule_
        ms = (time.perf_counter() - t0) * 1000
        print(f"{name:10s} {ms:7.1f} ms  {rule.pattern if rule.feasible else 'NONE: ' + str(rule.reason)[:80]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
