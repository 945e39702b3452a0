"""The extension modules of the compiled build: with ``LAKEINDEX_COMPILE=1``, mypyc compiles the query path.

``LAKEINDEX_COMPILE=1 pip install .`` compiles the modules below with mypyc (mypy is added to the build's
requirements by the build backend, ``build_backend/lakeindex_build.py``; a C compiler must be present)
into extension modules that import in place of their sources: wide fits a quarter faster, cold ones a
third, and the index build's per-column enumeration about a quarter (BENCHMARKS.md). Meant for service
and build machines (a regular install: an editable one would keep running the compiled code after its
sources are edited). Local Spark workers import the installed package, compiled; a cluster's executors
import the shipped ``.py`` sources (``lakeindex.executor_code``) unless their Python has the compiled
wheel installed. Everything else is in ``pyproject.toml``.
"""

import os

from setuptools import setup

COMPILED = [  # the inference search (alignment, segmentation DP, lookups, query columns, lists and records),
    # the pattern language, templates and index values it calls, and the build's per-column counting
    "lakeindex/caches.py",
    "lakeindex/fmdv/alignment.py",
    "lakeindex/fmdv/column.py",
    "lakeindex/fmdv/horizontal.py",
    "lakeindex/fmdv/hypotheses.py",
    "lakeindex/fmdv/infer.py",
    "lakeindex/fmdv/records.py",
    "lakeindex/fmdv/repetition.py",
    "lakeindex/fmdv/rule_search.py",
    "lakeindex/fmdv/search.py",
    "lakeindex/fmdv/split.py",
    "lakeindex/fmdv/vertical.py",
    "lakeindex/index/format.py",
    "lakeindex/patterns/counting.py",
    "lakeindex/patterns/enumerate.py",
    "lakeindex/patterns/hierarchy.py",
    "lakeindex/patterns/pattern.py",
    "lakeindex/patterns/sampling.py",
    "lakeindex/patterns/templates.py",
    "lakeindex/patterns/tokens.py",
    "lakeindex/patterns/windows.py",
]


def extensions() -> list:
    """The compiled modules, when this build compiles (mypyc type-checks them first and stops on an error)."""
    if os.environ.get("LAKEINDEX_COMPILE") != "1":
        return []
    from mypyc.build import mypycify  # a build requirement when compiling (the build backend adds mypy)

    return mypycify(COMPILED, opt_level="3")


setup(ext_modules=extensions())
