"""Composite values: 2-4 domains joined by one separator per column, optionally wrapped in brackets.

:data:`COMPOSITES` holds the named templates (the Auto-Validate paper's Figure 8 ``booking_record``,
``order_ref``, ``endpoint``...); the ``random`` template draws its parts from
:data:`RANDOM_PART_DOMAINS` per column. The lake plan fixes each composite column's parts, variants,
separator and wrap; :func:`composite_values` renders them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sample_lake.domains import DOMAINS
from sample_lake.sampling import Ctx

Part = tuple[str, str | None]  # (domain, variant or None = pick per column)


@dataclass(frozen=True)
class CompositeTemplate:
    parts: tuple[Part, ...]
    seps: tuple[str, ...]
    wrap: tuple[str, str] = ("", "")


COMPOSITES: dict[str, CompositeTemplate] = {
    # The Auto-Validate paper's Figure 8 column.
    "booking_record": CompositeTemplate(
        (("float", "1dp"), ("timestamp", "us_24"), ("timestamp", "us_24"), ("status", "order_camel")),
        ("|",), ("[", "]")),
    "order_ref": CompositeTemplate((("prefixed_id", "ORD"), ("date", None), ("currency_code", None)),
                                   ("|", ";", "/")),
    "endpoint": CompositeTemplate((("ipv4", None), ("port", None)), (":",)),
    "host_port": CompositeTemplate((("hostname", None), ("port", None)), (":",)),
    "geo_key": CompositeTemplate((("country_alpha2", None), ("us_state", None), ("zip_code", "zip5")),
                                 ("-", "/", "|")),
    "build_tag": CompositeTemplate((("version", "v_semver"), ("git_sha", None)), ("-", "+", "@")),
    "session_key": CompositeTemplate((("uuid", "lower"), ("timestamp", "epoch_s")), ("_", ":", "|")),
    "locale_currency": CompositeTemplate((("locale", "mixed"), ("currency_code", None)), (";", "|", "/")),
    "customer_ref": CompositeTemplate((("underscore_id", "cust"), ("email", None)), ("|", ";")),
    "random": CompositeTemplate((), ("|", ";", "#", "::", "~", "/")),
}
RANDOM_PART_DOMAINS = (
    "prefixed_id", "underscore_id", "alnum_code", "numeric_id", "date", "timestamp", "country_alpha2",
    "currency_code", "status", "ipv4", "version", "git_sha", "uuid", "boolean", "us_state", "price",
    "http_status", "locale",
)


def composite_values(parts: Sequence[tuple[str, str]], sep: str, wrap: tuple[str, str], g: Ctx,
                     n: int) -> list[str]:
    """``n`` values of a composite column: each part's domain values, joined by ``sep``, inside ``wrap``."""
    pieces = [DOMAINS[d].fn(g, n, v) for d, v in parts]
    left, right = wrap
    return [left + sep.join(row) + right for row in zip(*pieces, strict=True)]
