"""Build hook: the package is pure Python, and ``LAKEINDEX_COMPILE=1`` compiles the query path's hot modules.

``LAKEINDEX_COMPILE=1 pip install .`` compiles the modules below with mypyc (from mypy, fetched into the
build environment; a C compiler must be present) into extension modules that import in place of their
sources: wide fits a quarter faster, cold ones a third (BENCHMARKS.md). Meant for service
deployments (a regular install: an editable one would keep running the compiled code after its sources
are edited). Spark executors import the shipped ``.py`` sources either way (``lakeindex.executor_code``).
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

compile_ = os.environ.get("LAKEINDEX_COMPILE") == "1"
try:  # absent while pip asks for the build's requirements (setup_requires), present when it builds
    from mypyc.build import mypycify
except ImportError:
    mypycify = None

setup(
    setup_requires=["mypy>=1.13"] if compile_ else [],
    ext_modules=mypycify(COMPILED, opt_level="3") if compile_ and mypycify is not None else [],
)
