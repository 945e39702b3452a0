"""Catalog domains: name a column's domain (uuid, ipv4, email, ...) from its tag pattern and its sampled values.

Auto-tag (:mod:`lakeindex.tagging.tag`) gives a column its most restrictive pattern; a data catalog wants a
name. Each row of :data:`DOMAINS` is (name, description, predicate), ordered most specific first, and a
column gets the first domain whose predicate holds, else none (its pattern stays). The predicate looks at
both pieces of evidence:

* the **pattern** (from the index) must fit the domain: no ``<all>``, only punctuation the domain's values
  may have, and the punctuation they must have (a uuid pattern fixes ``-`` and nothing else);
* at least :data:`MIN_SHARE` of the column's sampled non-empty values must pass the domain's value check:
  its regex plus what a regex cannot say (octets <= 255, a real calendar date, a code in the ISO lists of
  :mod:`lakeindex.tagging.iso_codes`), and for some domains a check on the column (a hash column has a hex
  letter somewhere, a boolean column at most one pair of values, a ZIP column no numbers of another width).

``MIN_SHARE`` is 1 - theta, the share of ad-hoc values (``N/A``, ``-``) tagging already tolerates.

Confidence, in [0, 1], multiplies three things tagging measured, each a probability-like factor::

    confidence = share * (1 - fpr) * coverage / (coverage + 1)

``share`` is the fraction of sampled values that pass the domain's check (for a column without a domain,
that match its pattern); ``fpr`` is the pattern's estimated false-positive rate in the index (FPR_T: how
impure the columns it covers are); ``coverage / (coverage + 1)`` is the index's support for the pattern,
the number of indexed columns that carry it, saturating (1 column: 0.5, 9: 0.9, 99: 0.99), so a pattern
seen only in the column itself is weak evidence. A column without a pattern has no confidence (null).

Values wider than the index's tau tokens (a uuid has 9) have no whole-value pattern in the index, so tag
never finds one; for such columns :func:`catalog_tag` takes the FMDV-VH rule (vertical cuts assemble the
pattern from indexed parts, with the rule's FPR, the sum of its segments', and smallest coverage) as the
evidence, marked ``method: "fmdv-vh"``.
"""

from __future__ import annotations

import ipaddress
import re
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import date, datetime
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from lakeindex.patterns.pattern import PatternError, compiled, parse
from lakeindex.tagging.iso_codes import COUNTRY_ALPHA2, COUNTRY_ALPHA3, CURRENCY_CODES, LANGUAGE_ALPHA2

if TYPE_CHECKING:
    from lakeindex.fmdv.search import SegmentSolver

DEFAULT_THETA = 0.1
MIN_SHARE = 1 - DEFAULT_THETA
MAX_VALUE_LENGTH = 4096  # longer values belong to no domain (and are not fed to the regexes)


# ------------------------------------------------------------------------------------------ value checks

def _regex(expr: str, flags: int = 0) -> Callable[[str], bool]:
    """Value check: a full match of ``expr``."""
    rx = re.compile(expr, flags)
    return lambda v: rx.fullmatch(v) is not None


_UUID = _regex(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", re.IGNORECASE)
_MAC = _regex(r"[0-9a-f]{2}([:-])(?:[0-9a-f]{2}\1){4}[0-9a-f]{2}", re.IGNORECASE)
_DATETIME_RE = re.compile(r"(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?"
                          r"(?:[Zz]|[+-](\d{2})(?::?(\d{2}))?)?")
_DATE_RE = re.compile(r"(\d{4})-(\d{2})-(\d{2})")
_TIME_RE = re.compile(r"(\d{2}):(\d{2})(?::(\d{2})(?:[.,]\d{1,9})?)?")
_IPV4_RE = re.compile(r"(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})")
_EMAIL = _regex(r"[A-Za-z0-9._%+'-]+@[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?"
                r"(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*\.[A-Za-z]{2,}")
_URL_RE = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://\S+")
_LOCALE_RE = re.compile(r"([a-z]{2})[-_]([A-Za-z]{2})")
_AMOUNT_RE = re.compile(r"[+-]?(?:(?P<sym>[$€£¥₹])|(?P<pre>[A-Z]{3}) ?)?[+-]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d{1,2})?"
                        r"(?: ?(?:(?P<suf>[A-Z]{3})|(?P<ssym>[$€£¥₹])))?")
_PHONE_RE = re.compile(r"\+?(?:\d{1,3}[ .-]?)?(?:\(\d{1,4}\)[ .-]?)?\d{1,4}(?:[ .-]?\d{1,4}){1,4}")
_INTEGER = r"[+-]?(?:\d{1,3}(?:,\d{3})+|\d+)"
_BOOLEAN_PAIRS = (frozenset({"true", "false"}), frozenset({"t", "f"}), frozenset({"yes", "no"}),
                  frozenset({"y", "n"}), frozenset({"0", "1"}))
_BOOLEAN_WORDS = frozenset().union(*_BOOLEAN_PAIRS)


def _real_date(y: str, mo: str, d: str) -> bool:
    try:
        date(int(y), int(mo), int(d))
    except ValueError:
        return False
    return True


def is_iso_datetime(v: str) -> bool:
    """``YYYY-MM-DD[T ]HH:MM[:SS[.fff]][Z|+HH[:MM]]`` with a real date and time (seconds up to 60: leap)."""
    m = _DATETIME_RE.fullmatch(v)
    if m is None:
        return False
    y, mo, d, hh, mi, ss, _frac, zh, zm = m.groups()
    try:
        datetime(int(y), int(mo), int(d), int(hh), int(mi), min(int(ss or 0), 59))
    except ValueError:
        return False
    return int(ss or 0) <= 60 and int(zh or 0) <= 23 and int(zm or 0) <= 59


def is_iso_date(v: str) -> bool:
    """``YYYY-MM-DD``, a real calendar date."""
    m = _DATE_RE.fullmatch(v)
    return m is not None and _real_date(*m.groups())


def is_time_of_day(v: str) -> bool:
    """``HH:MM[:SS[.fff]]`` on a 24-hour clock."""
    m = _TIME_RE.fullmatch(v)
    return m is not None and int(m[1]) <= 23 and int(m[2]) <= 59 and int(m[3] or 0) <= 60


def is_ipv4(v: str) -> bool:
    """Dotted quad, each octet 0..255."""
    m = _IPV4_RE.fullmatch(v)
    return m is not None and all(int(o) <= 255 for o in m.groups())


def is_ipv6(v: str) -> bool:
    """An IPv6 address in any of its text forms (``::`` compression, an IPv4 tail)."""
    if ":" not in v or len(v) > 45:
        return False
    try:
        ipaddress.IPv6Address(v)
    except ValueError:
        return False
    return True


def is_url(v: str) -> bool:
    """``scheme://host[...]`` without spaces."""
    if _URL_RE.fullmatch(v) is None:
        return False
    try:
        return bool(urlsplit(v).netloc)
    except ValueError:
        return False


def is_locale(v: str) -> bool:
    """``ll-RR`` or ``ll_RR``: an ISO 639-1 language and an ISO 3166-1 alpha-2 region (any case)."""
    m = _LOCALE_RE.fullmatch(v)
    return m is not None and m[1] in LANGUAGE_ALPHA2 and m[2].upper() in COUNTRY_ALPHA2


def is_currency_amount(v: str) -> bool:
    """A number with two decimals at most and exactly one currency marker: a symbol or an ISO 4217 code,
    before or after it (``$1,234.50``, ``EUR 12.50``, ``12.50 USD``)."""
    m = _AMOUNT_RE.fullmatch(v)
    if m is None:
        return False
    markers = [x for x in m.group("sym", "pre", "suf", "ssym") if x]
    return len(markers) == 1 and (len(markers[0]) == 1 or markers[0] in CURRENCY_CODES)


def is_phone(v: str) -> bool:
    """7 to 15 digits in phone layout: a leading ``+``, an area code in parentheses, or three groups or more
    (``+1-555-123-4567``, ``(555) 123-4567``, ``555.123.4567``); a bare run of digits is an integer."""
    if _PHONE_RE.fullmatch(v) is None:
        return False
    digits = sum(c.isdigit() for c in v)
    return 7 <= digits <= 15 and (v.startswith("+") or "(" in v or len(re.findall(r"\d+", v)) >= 3)


def _hex_digest(n: int) -> Callable[[str], bool]:
    return _regex(f"[0-9a-fA-F]{{{n}}}")


def _has_hex_letter(passing: list[str], failing: list[str]) -> bool:
    """A hash column has a letter a-f somewhere; a column of long decimal numbers has none."""
    return any(not v.isdigit() for v in passing)


def _one_boolean_pair(passing: list[str], failing: list[str]) -> bool:
    """At most one pair of boolean words (``true``/``false``, ``Y``/``N``, ...), and 0/1 only when both occur:
    a constant ``1`` is more likely a count."""
    seen = {v.lower() for v in passing}
    return any(seen <= pair and (pair != {"0", "1"} or seen == pair) for pair in _BOOLEAN_PAIRS)


def _no_other_numbers(passing: list[str], failing: list[str]) -> bool:
    """The values that are not ZIP codes are ad-hoc tokens (``N/A``), not numbers of another width: an
    integer column whose values happen to have 5 digits is no ZIP column."""
    return not any(v.lstrip("+-").isdigit() for v in failing)


# ----------------------------------------------------------------------------------------- the catalogue

@dataclass(frozen=True)
class Domain:
    """A named domain. ``symbols``: punctuation its pattern may fix (None: any); ``requires``: strings of
    which the pattern must fix one character each; ``value``: the value check; ``column``: an optional
    check on the column's distinct values that passed it and those that did not."""

    name: str
    description: str
    value: Callable[[str], bool]
    symbols: str | None = ""
    requires: tuple[str, ...] = ()
    column: Callable[[list[str], list[str]], bool] | None = None

    def fits(self, pattern: str) -> bool:
        """The pattern-side predicate: the pattern's punctuation fits the domain."""
        syms = pattern_symbols(pattern)
        if syms is None:
            return False
        if self.symbols is not None and not syms <= set(self.symbols):
            return False
        return all(syms & set(req) for req in self.requires)

    def share(self, values: list[str]) -> float:
        """The value-side measure: fraction of the (non-empty) values that pass the value check, with the
        column check applied to the distinct passing values (0 when it fails)."""
        counts = Counter(v for v in values if v)
        total = sum(counts.values())
        if not total:
            return 0.0
        passing = [v for v in counts if len(v) <= MAX_VALUE_LENGTH and self.value(v)]
        if self.column is not None and passing:
            ok = set(passing)
            failing = [v for v in counts if v not in ok]
            if not self.column(passing, failing):
                return 0.0
        return sum(counts[v] for v in passing) / total

    def predicate(self, pattern: str | None, values: list[str]) -> float | None:
        """The domain holds for a column: its share of values if the pattern fits and the share is at least
        ``MIN_SHARE``, else None. A column without a pattern has no evidence from the index: no domain."""
        if pattern is None or not self.fits(pattern):
            return None
        share = self.share(values)
        return share if share >= MIN_SHARE else None


_NUM_SYMBOLS = "+-,"
DOMAINS: tuple[Domain, ...] = (
    Domain("uuid", "RFC 4122 UUID: 8-4-4-4-12 hex digits", _UUID, "-", ("-",)),
    Domain("iso-datetime", "ISO 8601 date and time, optional seconds, fraction and zone (Z or +HH:MM)",
           is_iso_datetime, "-: .,+", ("-", ":")),
    Domain("mac-address", "MAC address: six hex pairs separated by ':' or '-'", _MAC, ":-", (":-",)),
    Domain("ipv6", "IPv6 address", is_ipv6, ":.", (":",)),
    Domain("ipv4", "IPv4 address: dotted quad of octets 0-255", is_ipv4, ".", (".",)),
    Domain("email", "e-mail address: local@domain.tld", _EMAIL, "._%+'-@", ("@", ".")),
    Domain("url", "URL: scheme://host[/path]", is_url, None, (":", "/")),
    Domain("iso-date", "ISO 8601 calendar date YYYY-MM-DD", is_iso_date, "-", ("-",)),
    Domain("time-of-day", "time of day HH:MM[:SS[.fff]], 24-hour clock", is_time_of_day, ":.,", (":",)),
    Domain("locale", "locale ll-RR or ll_RR: ISO 639-1 language, ISO 3166-1 region", is_locale, "-_", ("-_",)),
    Domain("sha256", "SHA-256 digest: 64 hex digits", _hex_digest(64), column=_has_hex_letter),
    Domain("sha1", "SHA-1 digest: 40 hex digits", _hex_digest(40), column=_has_hex_letter),
    Domain("md5", "MD5 digest: 32 hex digits", _hex_digest(32), column=_has_hex_letter),
    Domain("boolean", "boolean-ish: one pair of true/false, t/f, yes/no, y/n or 0/1 (any case)",
           lambda v: v.lower() in _BOOLEAN_WORDS, column=_one_boolean_pair),
    Domain("country-code-alpha3", "ISO 3166-1 alpha-3 country code", COUNTRY_ALPHA3.__contains__),
    Domain("currency-code", "ISO 4217 currency code", CURRENCY_CODES.__contains__),
    Domain("country-code-alpha2", "ISO 3166-1 alpha-2 country code", COUNTRY_ALPHA2.__contains__),
    Domain("currency-amount", "amount with a currency symbol or ISO 4217 code ($1,234.50, EUR 12.50)",
           is_currency_amount, "$€£¥₹ .,+-"),
    Domain("us-zip-code", "US ZIP code: 5 digits or ZIP+4", _regex(r"\d{5}(?:-\d{4})?"), "-",
           column=_no_other_numbers),
    Domain("phone-number", "phone number: 7-15 digits with +, (area) or separators", is_phone, "+-.() "),
    Domain("integer", "integer, optional sign and thousands separators", _regex(_INTEGER), _NUM_SYMBOLS),
    Domain("decimal", "decimal number (integers allowed), optional exponent",
           _regex(r"[+-]?(?:(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?|\.\d+)(?:[eE][+-]?\d+)?"), _NUM_SYMBOLS + "."),
)
"""The catalogue, most specific first: a column is named by the first domain whose predicate holds."""

DOMAIN_NAMES: dict[str, Domain] = {d.name: d for d in DOMAINS}


def pattern_symbols(pattern: str) -> frozenset[str] | None:
    """Punctuation a pattern fixes: the non-alphanumeric characters of its literals (optional and repeated
    blocks included). None for a pattern that cannot name a domain: unparseable or holding ``<all>``."""
    try:
        elements = parse(pattern)
    except PatternError:
        return None
    if any(e.cls == "all" for e in elements):
        return None
    return frozenset(c for e in elements if e.cls is None for c in e.text if not c.isalnum())


def name_domain(pattern: str | None, values: list[str],
                domains: Iterable[Domain] = DOMAINS) -> tuple[Domain | None, float | None]:
    """The first domain whose predicate holds, with its share of values; ``(None, None)`` when none does."""
    for d in domains:
        share = d.predicate(pattern, values)
        if share is not None:
            return d, share
    return None, None


def pattern_share(pattern: str, values: list[str]) -> float:
    """Fraction of the non-empty values that match ``pattern``."""
    counts = Counter(v for v in values if v)
    total = sum(counts.values())
    if not total:
        return 0.0
    match = compiled(pattern).fullmatch
    return sum(n for v, n in counts.items() if match(v) is not None) / total


def confidence(share: float, fpr: float, coverage: int) -> float:
    """``share * (1 - fpr) * coverage / (coverage + 1)``: see the module docstring."""
    return round(share * max(0.0, 1.0 - fpr) * coverage / (coverage + 1), 4)


def _wide_share(values: list[str], tau: int, max_subruns: int) -> float:
    """Fraction of the non-empty values with more than ``tau`` tokens (no whole-value pattern in the index)."""
    from lakeindex.patterns.tokens import analyze

    counts = Counter(v for v in values if v)
    total = sum(counts.values())
    return sum(n for v, n in counts.items() if analyze(v, max_subruns).ntokens > tau) / total if total else 0.0


def catalog_tag(values: list[str], solver: SegmentSolver, fnr: float = 0.05, m: int | None = None,
                theta: float = DEFAULT_THETA) -> dict:
    """Tag a column (:func:`lakeindex.tagging.tag.tag_column`) and name its domain.

    Returns tag_column's fields (``tag`` is the pattern, ``fpr``, ``coverage``, ``values``, or ``reason``)
    plus ``method`` (``tag``, ``fmdv-vh`` for wide values, None), ``domain``, ``description``, ``share`` and
    ``confidence`` (module docstring).
    """
    from lakeindex.fmdv.infer import AutoValidator
    from lakeindex.tagging.tag import tag_column

    t = tag_column(values, solver, fnr=fnr, m=m, theta=theta)
    t["method"] = "tag" if t["tag"] else None
    limits = solver.limits
    if t["tag"] is None and t["values"] and _wide_share(values, limits.tau, limits.max_subruns) > theta:
        rule = AutoValidator(solver, method="fmdv-vh", r=fnr, m=m, theta=theta).fit(values).rule_
        if rule.feasible and rule.coverage is not None:
            t = {k: v for k, v in t.items() if k != "reason"}
            t.update(tag=rule.pattern, fpr=rule.fpr, coverage=rule.coverage, method="fmdv-vh")
    domain, share = name_domain(t["tag"], values)
    if t["tag"] is not None and domain is None:
        share = pattern_share(t["tag"], values)
    conf = confidence(share, t["fpr"], t["coverage"]) if t["tag"] is not None else None
    return {**t, "domain": domain.name if domain else None, "description": domain.description if domain else None,
            "share": round(share, 4) if share is not None else None, "confidence": conf}
