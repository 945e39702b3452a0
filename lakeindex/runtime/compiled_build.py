"""Whether this install runs the inference search compiled (``LAKEINDEX_COMPILE=1`` at install: ``setup.py``).

Wide fits are about 30% faster compiled, and meet the service's wide-fit latency targets only so
(BENCHMARKS.md), so a service reports which build it runs (``/ready``): an operator can tell a deployment that missed
the compiled install. Not compiled itself.
"""

from __future__ import annotations

from importlib.machinery import EXTENSION_SUFFIXES

from lakeindex.fmdv import infer


def search_compiled() -> bool:
    """The inference search (``lakeindex.fmdv.infer``, compiled with the modules it calls) was loaded from
    an extension module rather than its Python source."""
    path = getattr(infer, "__file__", None) or ""
    return path.endswith(tuple(EXTENSION_SUFFIXES))
