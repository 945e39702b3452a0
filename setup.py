"""The extension modules of the compiled build: with ``LAKEINDEX_COMPILE=1``, mypyc compiles the query path.

``LAKEINDEX_COMPILE=1 pip install .`` compiles the modules below with mypyc (mypy is added to the build's
requirements by the build backend, ``build_backend/lakeindex_build.py``; a C compiler must be present)
into extension modules that import in place of their sources: wide fits a quarter faster, cold ones a
third (BENCHMARKS.md). Meant for service deployments (a regular install: an editable one would keep
running the compiled code after its sources are edited). Spark executors import the shipped ``.py``
sources either way (``lakeindex.executor_code``). Everything else is in ``pyproject.toml``.
"""

import os

from setuptools import setup

COMPILED = [  # the inference search (alignment, segmentation DP, lookups, query columns, lists and records),
    # and the pattern language, templates and index values it calls
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
    "lakeindex/patterns/hierarchy.py",
    "lakeindex/patterns/pattern.py",
    "lakeindex/patterns/sampling.py",
    "lakeindex/patterns/templates.py",
    "lakeindex/patterns/tokens.py",
]


def extensions() -> list:
    """The compiled modules, when this build compiles (mypyc type-checks them first and stops on an error)."""
    if os.environ.get("LAKEINDEX_COMPILE") != "1":
        return []
    from mypyc.build import mypycify  # a build requirement when compiling (the build backend adds mypy)

    return mypycify(COMPILED, opt_level="3")


setup(ext_modules=extensions())
