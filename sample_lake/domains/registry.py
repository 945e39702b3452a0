"""The domain registry: named value generators, each with a kind and its variants.

A domain is a function ``fn(ctx, n, variant) -> list[str]`` registered with :func:`domain` under a
name (``timestamp``, ``ipv4``, ``person_name``...). Its kind (machine-generated, natural language or
numeric) steers the lake plan's column mix; ``composite`` is the kind of composite columns, which
join several domains (:mod:`sample_lake.composites`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from sample_lake.sampling import Ctx

MACHINE, NATURAL, NUMERIC, COMPOSITE = "machine", "natural", "numeric", "composite"

DomainFn = Callable[[Ctx, int, str], list[str]]


@dataclass(frozen=True)
class Domain:
    name: str
    kind: str
    variants: tuple[str, ...]
    fn: DomainFn


DOMAINS: dict[str, Domain] = {}


def domain(name: str, kind: str, variants: Sequence[str] = ("default",)) -> Callable[[DomainFn], DomainFn]:
    """Register a generator ``fn(ctx, n, variant) -> list[str]`` as a named domain."""

    def register(fn: DomainFn) -> DomainFn:
        DOMAINS[name] = Domain(name, kind, tuple(variants), fn)
        return fn

    return register
