"""Resident memory of a process tree (driver JVM, Python workers, server workers) for benchmarks."""

from __future__ import annotations

import psutil


def tree_rss(proc: psutil.Process) -> int:
    """Resident bytes of ``proc`` and all its descendants (processes that exit are skipped)."""
    total = 0
    for p in [proc, *proc.children(recursive=True)]:
        try:
            total += p.memory_info().rss
        except psutil.Error:
            pass
    return total


def max_python_worker_rss(proc: psutil.Process) -> int:
    """Largest resident size of one PySpark Python worker (or daemon) under ``proc``."""
    peak = 0
    for p in proc.children(recursive=True):
        try:
            if "pyspark" in " ".join(p.cmdline()) and "java" not in p.name():
                peak = max(peak, p.memory_info().rss)
        except psutil.Error:
            pass
    return peak
