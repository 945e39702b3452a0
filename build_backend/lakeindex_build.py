"""The build backend (PEP 517): setuptools', and with ``LAKEINDEX_COMPILE=1`` mypyc in the wheel build.

``LAKEINDEX_COMPILE=1 pip install .`` asks for mypy as a build requirement and compiles the modules
``setup.py`` lists. Only a wheel (or editable) build compiles: the hooks that list requirements, write
metadata or make an sdist run ``setup.py`` with compilation off, as none of them needs the extensions
(and mypy is not installed yet while requirements are listed).
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TypeVar

from setuptools import build_meta

COMPILE = "LAKEINDEX_COMPILE"
MYPYC = ["mypy>=1.13"]  # mypyc ships with mypy

T = TypeVar("T")


def compiling() -> bool:
    """Whether this build was asked to compile (``LAKEINDEX_COMPILE=1``)."""
    return os.environ.get(COMPILE) == "1"


@contextmanager
def _not_compiling() -> Iterator[None]:
    """``setup.py`` run without compiling, within this block only."""
    saved = os.environ.pop(COMPILE, None)
    try:
        yield
    finally:
        if saved is not None:
            os.environ[COMPILE] = saved


def _without_extensions(hook: Callable[..., T]) -> Callable[..., T]:
    """A setuptools hook that needs no extension modules, run with compilation off."""
    @functools.wraps(hook)
    def run(*args: object, **kwargs: object) -> T:
        with _not_compiling():
            return hook(*args, **kwargs)

    return run


def get_requires_for_build_wheel(config_settings: dict | None = None) -> list[str]:
    """Setuptools' requirements, and mypy when compiling."""
    requires = _without_extensions(build_meta.get_requires_for_build_wheel)(config_settings)
    return requires + MYPYC if compiling() else requires


def get_requires_for_build_editable(config_settings: dict | None = None) -> list[str]:
    """Setuptools' requirements, and mypy when compiling."""
    requires = _without_extensions(build_meta.get_requires_for_build_editable)(config_settings)
    return requires + MYPYC if compiling() else requires


prepare_metadata_for_build_wheel = _without_extensions(build_meta.prepare_metadata_for_build_wheel)
prepare_metadata_for_build_editable = _without_extensions(build_meta.prepare_metadata_for_build_editable)
get_requires_for_build_sdist = _without_extensions(build_meta.get_requires_for_build_sdist)
build_sdist = _without_extensions(build_meta.build_sdist)  # sources only: a wheel built from it compiles
build_wheel = build_meta.build_wheel
build_editable = build_meta.build_editable
