"""Wide and composite column grammars: pieces, records, lists, and held-out grammars for benchmarks.

Real lakes hold many columns whose values are wider than the index's token limit tau (8): UUIDs,
ISO-8601 timestamps with fractional seconds and a zone, URLs and file paths with many segments,
UUIDs joined to other ids, ``key:value`` lists, tuples of numbers, bracketed records with dates.
This module generates such columns from a seed, with no dependency beyond the standard library:

* **Pieces** (:data:`PIECES`): generators ``fn(rng, n, variant, depth) -> list[str]`` of one value
  kind (``uuid.lower``, ``ts.ms_off``, ``url.query``, ``unc.file``, ``id.ORD``, ``int.signed``...).
  Per-column parameters (hosts, id width, time window, offsets, word pools) are drawn from ``rng``
  at the start of a call, so one call is one column, the way a machine writes it.
* **Grammars** (:class:`Grammar`): a *record* (2-5 pieces joined by one separator, optionally
  wrapped in brackets), a *list* (one item piece repeated k times, k fixed or varying in 3-24) or a
  *single* wide piece (optionally decorated, e.g. ``urn:uuid:`` + UUID). ``Grammar.key`` names the
  structure; two columns of one key can only differ in per-column parameters.
* **Draws**: :func:`draw_grammars` gives a prefix-stable random sequence of grammars per seed. A lake
  generated with seed S uses grammars of :func:`lake_grammars` (S) plus the plain wide pieces of
  :data:`BASE_SINGLES`; :func:`held_out_grammars` draws from another seed and drops every grammar
  whose key the lake may contain, so a benchmark on them cannot be won by having seen the column.
  Pieces (a plain UUID, an ISO date) do occur in the lake: that is the evidence for parts.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, timezone
from typing import TypeVar

T = TypeVar("T")

TS_MIN = 1514764800  # 2018-01-01T00:00:00Z
TS_MAX = 1735689599  # 2024-12-31T23:59:59Z

RECORD_SEPS = ("|", "_", ";", "#", ",", "::", "~", "/")
RECORD_SEP_WEIGHTS = (4, 1.5, 1, 1, 1, 1, 1, 0.7)
LIST_SEPS = ("|", "#", ";", ",", "~", "_", "/")
LIST_SEP_WEIGHTS = (3, 3, 1.5, 1.5, 1, 0.7, 0.5)
WRAPS = (("[", "]"), ("(", ")"), ("{", "}"))
LIST_K_MIN, LIST_K_MAX = 3, 24
DEPTH_MIN, DEPTH_MAX = 3, 8
# Grammars the lake of one seed may use (prefix of draw_grammars); held-out draws avoid all of them.
LAKE_POOL = 256

OFFSETS = ("+05:30", "-04:00", "+01:00", "+09:00", "-07:00", "+02:00", "-03:00", "+00:00", "+10:00", "-05:00")
ID_PREFIXES = ("ORD", "INV", "CUST", "TKT", "SHP", "REQ", "EVT", "TXN", "ACC", "JOB", "SKU", "USR")
WORDS = (
    "alpha beta gamma delta north south east west red green blue amber ok fail pass warn open closed "
    "new paid sent draft live idle busy cold warm hot low high mid core edge main dev prod test qa "
    "cpu mem disk net io gpu web api app db cache queue batch stream raw clean gold bronze silver"
).split()
KEYS = ("cpu", "mem", "disk", "region", "env", "tier", "zone", "app", "team", "owner", "lat", "retry", "shard",
        "build", "rack", "pool", "host", "port", "ttl", "qos")
URL_HOSTS = ("api.example.com", "cdn.contoso.net", "files.initech.io", "data.globex.com", "portal.acme-corp.com",
             "static.hooli.com", "s3.eu-west-1.amazonaws.com", "storage.googleapis.com", "gw.northwind.io")
URL_WORDS = ("api", "v1", "v2", "v3", "orders", "users", "items", "assets", "files", "reports", "public", "media",
             "images", "export", "download", "catalog", "products", "docs", "static", "tenants", "events")
PATH_WORDS = ("data", "raw", "curated", "archive", "exports", "logs", "reports", "shared", "finance", "ops",
              "projects", "backup", "incoming", "processed", "tmp", "models", "images", "config", "users")
FILE_EXTS = ("csv", "parquet", "json", "txt", "log", "xlsx", "pdf", "gz", "xml", "docx")
UNC_SERVERS = ("fileserver", "nas", "fs", "share", "corpfs", "dc", "backup")
USERS = ("jsmith", "mgarcia", "wchen", "pkumar", "afischer", "okelly", "lrossi", "tnguyen")


# --------------------------------------------------------------------------------------------------
# Pieces: one value kind each, n values of one column per call
# --------------------------------------------------------------------------------------------------

Depth = tuple[int, int] | None
PieceFn = Callable[[random.Random, int, str, Depth], list[str]]


def _uuid(r: random.Random, n: int, variant: str, depth: Depth = None) -> list[str]:
    """Random version-4 UUIDs: ``lower``, ``upper`` or ``braced`` (``{UPPER}``, a Windows GUID)."""
    out = []
    for _ in range(n):
        x = r.getrandbits(128)
        x = (x & ~(0xF << 76)) | (0x4 << 76)  # version 4
        x = (x & ~(0x3 << 62)) | (0x2 << 62)  # RFC 4122 variant
        h = f"{x:032x}"
        u = f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"
        out.append(u if variant == "lower" else u.upper() if variant == "upper" else "{" + u.upper() + "}")
    return out


def _epochs(r: random.Random, n: int) -> list[int]:
    """Epoch seconds in a per-column window within 2018-2024, sometimes sorted like a log."""
    span = r.choice((86_400, 30 * 86_400, 365 * 86_400, TS_MAX - TS_MIN))
    start = r.randint(TS_MIN, TS_MAX - span)
    ep = [r.randint(start, start + span) for _ in range(n)]
    return sorted(ep) if r.random() < 0.3 else ep


def _ts(r: random.Random, n: int, variant: str, depth: Depth = None) -> list[str]:
    """ISO-8601 timestamps with ms or µs and ``Z`` or ``±hh:mm`` (``2019-08-28T12:47:26.115+05:30``)."""
    digits = 3 if variant.startswith("ms") else 6
    offsets = ["Z"] if variant.endswith("_z") else r.sample(OFFSETS, r.choice((1, 1, 1, 2, 3)))
    zones = [timezone(timedelta(hours=int(o[:3]), minutes=int(o[0] + o[4:]))) if o != "Z" else UTC for o in offsets]
    out = []
    for e in _epochs(r, n):
        i = r.randrange(len(offsets))
        frac = r.randrange(10**digits)
        dt = datetime.fromtimestamp(e, zones[i])
        out.append(f"{dt:%Y-%m-%dT%H:%M:%S}.{frac:0{digits}d}{offsets[i]}")
    return out


def _depths(r: random.Random, n: int, depth: Depth) -> list[int]:
    """Segments per value: ``depth`` if given, else per column one fixed count or a range in 3-8."""
    if depth is None:
        lo = r.randint(DEPTH_MIN, DEPTH_MAX)
        depth = (lo, lo) if r.random() < 0.6 else (lo, r.randint(lo, DEPTH_MAX))
    return [r.randint(*depth) for _ in range(n)]


def _segment_styles(r: random.Random, count: int) -> list[str]:
    """A per-column style per path position, as a service lays out its paths."""
    return [r.choice(("word", "word", "word", "num", "hex", "slug", "date")) for _ in range(count)]


def _segment(r: random.Random, style: str, words: Sequence[str]) -> str:
    if style == "num":
        return str(r.randint(1, 999_999))
    if style == "hex":
        return f"{r.getrandbits(32):08x}"
    if style == "slug":
        return f"{r.choice(words)}-{r.choice(words)}"
    if style == "date":
        return f"{r.randint(2018, 2024)}{r.randint(1, 12):02d}{r.randint(1, 28):02d}"
    return r.choice(words)


def _segments(r: random.Random, n: int, depth: Depth, words: Sequence[str], ext: bool) -> list[list[str]]:
    """Path segments of ``n`` values; the last one is ``name.ext`` when ``ext``."""
    depths = _depths(r, n, depth)
    styles = _segment_styles(r, max(depths))
    pool = r.sample(list(words), min(len(words), r.randint(4, 10)))
    exts = r.sample(FILE_EXTS, r.randint(1, 3))
    out = []
    for d in depths:
        segs = [_segment(r, styles[j], pool) for j in range(d)]
        if ext:
            segs[-1] = f"{segs[-1]}_{r.randint(1, 9999)}.{r.choice(exts)}"
        out.append(segs)
    return out


def _url(r: random.Random, n: int, variant: str, depth: Depth = None) -> list[str]:
    """URLs with 3-8 path segments: ``plain``, ``port`` (``host:8443``), or with a query string
    (``query``) or a ``#fragment`` (``frag``) on a per-column share of the values."""
    scheme = "https" if r.random() < 0.9 else "http"
    hosts = r.sample(URL_HOSTS, r.randint(1, 3))
    if variant == "port":
        hosts = [f"{h}:{r.choice((443, 8080, 8443, 9000, 5000))}" for h in hosts]
    keys = r.sample(KEYS, r.randint(1, 3))
    share = r.uniform(0.3, 1.0)
    out = []
    for segs in _segments(r, n, depth, URL_WORDS, ext=r.random() < 0.3):
        url = f"{scheme}://{r.choice(hosts)}/" + "/".join(segs)
        if variant == "query" and r.random() < share:
            url += "?" + "&".join(f"{k}={r.choice((str(r.randint(0, 9999)), r.choice(WORDS)))}" for k in keys)
        elif variant == "frag" and r.random() < share:
            url += "#" + r.choice(WORDS)
        out.append(url)
    return out


def _upath(r: random.Random, n: int, variant: str, depth: Depth = None) -> list[str]:
    """Unix paths ``/data/raw/2019/part_12.parquet`` (``file``) or directories (``dir``)."""
    return ["/" + "/".join(s) for s in _segments(r, n, depth, PATH_WORDS, ext=variant == "file")]


def _winpath(r: random.Random, n: int, variant: str, depth: Depth = None) -> list[str]:
    """Windows drive paths ``C:\\Users\\jsmith\\Reports\\q3_2019.xlsx`` (``file``) or directories."""
    drive = r.choice("CCCDEF")
    words = PATH_WORDS + tuple(w.capitalize() for w in PATH_WORDS[:8]) + USERS
    return [f"{drive}:\\" + "\\".join(s) for s in _segments(r, n, depth, words, ext=variant == "file")]


def _unc(r: random.Random, n: int, variant: str, depth: Depth = None) -> list[str]:
    """UNC paths ``\\\\server\\share\\dir\\file.txt``; ``depth`` counts the segments after the server."""
    servers = [f"{s}{r.randint(1, 40):02d}" for s in r.sample(UNC_SERVERS, r.randint(1, 3))]
    shares = [w + ("$" if r.random() < 0.3 else "") for w in r.sample(PATH_WORDS, r.randint(1, 3))]
    out = []
    for segs in _segments(r, n, depth, PATH_WORDS, ext=variant == "file"):
        segs[0] = r.choice(shares)
        out.append("\\\\" + r.choice(servers) + "\\" + "\\".join(segs))
    return out


def _prefixed_id(r: random.Random, n: int, variant: str, depth: Depth = None) -> list[str]:
    """Prefixed ids ``ORD-004512`` with a fixed zero-padded width per column (variant = prefix)."""
    width = r.randint(4, 8)
    return [f"{variant}-{r.randrange(10**width):0{width}d}" for _ in range(n)]


def _int(r: random.Random, n: int, variant: str, depth: Depth = None) -> list[str]:
    """Integers of a per-column magnitude; ``signed``: a per-column share of them negative."""
    hi = 10 ** r.randint(1, 6)
    neg = r.uniform(0.1, 0.6) if variant == "signed" else 0.0
    return [str(-v if r.random() < neg and v else v) for v in (r.randrange(hi) for _ in range(n))]


def _dec(r: random.Random, n: int, variant: str, depth: Depth = None) -> list[str]:
    """Decimals with 2 or 4 places (``2dp``, ``4dp``), or signed (``s2dp``, ``s4dp``)."""
    places = int(variant[-3])
    scale = 10 ** r.uniform(0, 4)
    neg = r.uniform(0.1, 0.6) if variant.startswith("s") else 0.0
    out = []
    for _ in range(n):
        text = f"{r.uniform(0, scale):.{places}f}"
        out.append("-" + text if r.random() < neg and float(text) else text)
    return out


def _date(r: random.Random, n: int, variant: str, depth: Depth = None) -> list[str]:
    """Dates ``2019-08-28`` (``iso``) or ``28/08/2019`` (``dmy``)."""
    days = [datetime.fromtimestamp(e, UTC) for e in _epochs(r, n)]
    fmt = "%Y-%m-%d" if variant == "iso" else "%d/%m/%Y"
    return [d.strftime(fmt) for d in days]


def _word(r: random.Random, n: int, variant: str, depth: Depth = None) -> list[str]:
    """Short enum words from a per-column set of 3-8 (``lower`` or ``upper`` case)."""
    pool = r.sample(WORDS, r.randint(3, 8))
    return [w if variant == "lower" else w.upper() for w in (r.choice(pool) for _ in range(n))]


def _hex(r: random.Random, n: int, variant: str, depth: Depth = None) -> list[str]:
    """Lower-case hex hashes of ``variant`` characters (8, 12, 32 or 40)."""
    k = int(variant)
    return [f"{r.getrandbits(4 * k):0{k}x}" for _ in range(n)]


def _kv(r: random.Random, n: int, variant: str, depth: Depth = None) -> list[str]:
    """``key:123`` (``int``), ``key:word`` (``word``) or ``key=123`` (``eq``) pairs, keys from a column set."""
    keys = r.sample(KEYS, r.randint(3, 8))
    words = r.sample(WORDS, r.randint(3, 10))
    hi = 10 ** r.randint(1, 4)
    out = []
    for _ in range(n):
        value = r.choice(words) if variant == "word" else str(r.randrange(hi))
        out.append(f"{r.choice(keys)}{'=' if variant == 'eq' else ':'}{value}")
    return out


PIECES: dict[str, tuple[tuple[str, ...], PieceFn]] = {
    "uuid": (("lower", "upper", "braced"), _uuid),
    "ts": (("ms_z", "ms_off", "us_z", "us_off"), _ts),
    "url": (("plain", "query", "port", "frag"), _url),
    "upath": (("file", "dir"), _upath),
    "winpath": (("file", "dir"), _winpath),
    "unc": (("file", "dir"), _unc),
    "id": (ID_PREFIXES, _prefixed_id),
    "int": (("unsigned", "signed"), _int),
    "dec": (("2dp", "4dp", "s2dp", "s4dp"), _dec),
    "date": (("iso", "dmy"), _date),
    "word": (("lower", "upper"), _word),
    "hex": (("8", "12", "32", "40"), _hex),
    "kv": (("int", "word", "eq"), _kv),
}
WIDE_PIECES = ("uuid", "ts", "url", "upath", "winpath", "unc")  # may stand alone as a single-piece column
PATH_PIECES = ("upath", "winpath", "unc")


@dataclass(frozen=True)
class Piece:
    """One value kind of a grammar (``kind`` in :data:`PIECES`, ``variant`` one of its variants)."""

    kind: str
    variant: str

    @property
    def key(self) -> str:
        return f"{self.kind}.{self.variant}"

    def generate(self, n: int, rng: random.Random, depth: Depth = None) -> list[str]:
        """``n`` values of one column of this piece."""
        return PIECES[self.kind][1](rng, n, self.variant, depth)


# --------------------------------------------------------------------------------------------------
# Grammars
# --------------------------------------------------------------------------------------------------

RECORD, LIST, SINGLE = "record", "list", "single"
KINDS = ("uuid", "uuid-joined", "iso-ts", "url", "path/unc", "kv-list", "number-list", "other list",
         "bracketed record", "other record")


@dataclass(frozen=True)
class Grammar:
    """Structure of a composite column: a record of pieces, a list of one piece, or one wide piece.

    ``k`` is the items per value of a list (fixed when ``k[0] == k[1]``), or the path segments of a
    single URL/path (``(0, 0)``: drawn per column). ``prefix`` decorates a single piece
    (``urn:uuid:``); ``wrap`` encloses any value (``[`` ... ``]``).
    """

    form: str
    pieces: tuple[Piece, ...]
    sep: str = ""
    wrap: tuple[str, str] = ("", "")
    k: tuple[int, int] = (0, 0)
    prefix: str = ""

    @property
    def key(self) -> str:
        """A stable name of the structure: equal keys mean the same grammar."""
        items = "+".join(p.key for p in self.pieces)
        k = f"{self.k[0]}" if self.k[0] == self.k[1] else f"{self.k[0]}-{self.k[1]}"
        return f"{self.form} {items} sep={self.sep!r} wrap={''.join(self.wrap)!r} k={k} prefix={self.prefix!r}"

    @property
    def kind(self) -> str:
        """Structure kind for reporting (one of :data:`KINDS`)."""
        first = self.pieces[0].kind
        if self.form == SINGLE:
            return {"uuid": "uuid", "ts": "iso-ts", "url": "url"}.get(first, "path/unc")
        if self.form == LIST:
            if first == "kv":
                return "kv-list"
            if first in ("int", "dec"):
                return "number-list"
            return "uuid-joined" if first == "uuid" else "other list"
        if self.wrap != ("", ""):
            return "bracketed record"
        return "uuid-joined" if any(p.kind == "uuid" for p in self.pieces) else "other record"

    def generate(self, n: int, rng: random.Random) -> list[str]:
        """``n`` values of one column of this grammar (per-column parameters drawn from ``rng``)."""
        left, right = self.wrap
        if self.form == SINGLE:
            depth = self.k if self.k != (0, 0) else None
            return [f"{left}{self.prefix}{v}{right}" for v in self.pieces[0].generate(n, rng, depth)]
        if self.form == RECORD:
            columns = [p.generate(n, rng) for p in self.pieces]
            return [left + self.sep.join(row) + right for row in zip(*columns, strict=True)]
        counts = [rng.randint(*self.k) for _ in range(n)]
        items = self.pieces[0].generate(sum(counts), rng)
        out, pos = [], 0
        for c in counts:
            out.append(left + self.sep.join(items[pos:pos + c]) + right)
            pos += c
        return out


def _choice(r: random.Random, options: Sequence[T], weights: Sequence[float]) -> T:
    """One weighted draw (``random.choices`` without the list)."""
    return r.choices(list(options), weights)[0]


def _piece(r: random.Random, kind: str) -> Piece:
    return Piece(kind, r.choice(PIECES[kind][0]))


RECORD_PIECES = ("uuid", "ts", "url", "upath", "winpath", "unc", "id", "int", "dec", "date", "word", "hex")
RECORD_PIECE_WEIGHTS = (3, 2, 0.7, 0.5, 0.4, 0.4, 3, 2, 1.5, 2, 2, 1)
LIST_ITEMS = ("int", "dec", "kv", "id", "uuid", "hex", "word")
LIST_ITEM_WEIGHTS = (4, 2, 3, 1, 1, 0.5, 0.5)


def _draw_record(r: random.Random) -> Grammar:
    n = _choice(r, (2, 3, 4, 5), (35, 30, 20, 15))
    wrap = r.choice(WRAPS) if r.random() < 0.25 else ("", "")
    kinds = [_choice(r, RECORD_PIECES, RECORD_PIECE_WEIGHTS) for _ in range(n)]
    if r.random() < 0.3 and "uuid" not in kinds:  # UUIDs joined to other ids
        kinds[r.randrange(n)] = "uuid"
    if wrap != ("", "") and r.random() < 0.6 and not {"date", "ts"} & set(kinds):  # dates inside brackets
        kinds[r.randrange(n)] = r.choice(("date", "date", "ts"))
    seps, weights = RECORD_SEPS, RECORD_SEP_WEIGHTS
    if {"url", "upath", "date"} & set(kinds):  # "/" would cut through the pieces themselves
        seps, weights = seps[:-1], weights[:-1]
    return Grammar(RECORD, tuple(_piece(r, k) for k in kinds), _choice(r, seps, weights), wrap)


def _draw_list(r: random.Random) -> Grammar:
    kind = _choice(r, LIST_ITEMS, LIST_ITEM_WEIGHTS)
    item = _piece(r, kind)
    lo, hi = (8, LIST_K_MAX) if kind in ("int", "dec") and r.random() < 0.7 else (LIST_K_MIN, 12)
    a = r.randint(lo, hi)
    if r.random() < 0.55:  # k fixed per column
        k = (a, a)
    else:  # k varies within the column
        b = r.randint(lo, hi)
        b = b if b != a else min(LIST_K_MAX, a + r.randint(1, 6))
        k = (min(a, b), max(a, b))
    wrap = r.choice(WRAPS) if r.random() < 0.15 else ("", "")
    return Grammar(LIST, (item,), _choice(r, LIST_SEPS, LIST_SEP_WEIGHTS), wrap, k)


SINGLE_PREFIXES = {
    "uuid": ("", "", "urn:uuid:", "id:", "ref=", "obj/", "uuid:"),
    "ts": ("", "", "ts=", "@", "at:"),
}


def _draw_single(r: random.Random) -> Grammar:
    kind = _choice(r, ("uuid", "ts", "url", "path"), (1, 1.3, 1, 1.2))
    if kind == "path":
        kind = r.choice(PATH_PIECES)
    piece = _piece(r, kind)
    prefix = r.choice(SINGLE_PREFIXES.get(kind, ("",)))
    wrap = r.choice(WRAPS[:2]) if kind in ("uuid", "ts") and r.random() < 0.25 else ("", "")
    k = (0, 0)
    if kind in ("url", *PATH_PIECES):
        lo = r.randint(DEPTH_MIN, DEPTH_MAX)
        k = (lo, lo) if r.random() < 0.4 else (lo, r.randint(lo, DEPTH_MAX))
    return Grammar(SINGLE, (piece,), "", wrap, k, prefix)


def _stream(seed: int) -> Iterator[Grammar]:
    """The endless, seed-determined sequence of random grammars (records 42%, lists 33%, singles 25%)."""
    r = random.Random(f"lakeindex/sample_lake/wide/{seed}")
    while True:
        form = _choice(r, (RECORD, LIST, SINGLE), (42, 33, 25))
        yield _draw_record(r) if form == RECORD else _draw_list(r) if form == LIST else _draw_single(r)


def draw_grammars(seed: int, count: int) -> list[Grammar]:
    """``count`` random grammars for ``seed``; a prefix of any longer draw with the same seed."""
    stream = _stream(seed)
    return [next(stream) for _ in range(count)]


BASE_SINGLES: tuple[Grammar, ...] = tuple(
    Grammar(SINGLE, (Piece(kind, variant),)) for kind in WIDE_PIECES for variant in PIECES[kind][0])


def lake_grammars(seed: int) -> list[Grammar]:
    """The composite grammars a lake generated with ``seed`` draws its wide columns from (in order)."""
    return draw_grammars(seed, LAKE_POOL)


def lake_grammar_keys(seed: int) -> set[str]:
    """Every grammar key a lake generated with ``seed`` may contain (its pool and the plain pieces)."""
    return {g.key for g in lake_grammars(seed)} | {g.key for g in BASE_SINGLES}


def held_out_grammars(lake_seed: int, test_seed: int, count: int) -> list[Grammar]:
    """``count`` grammars drawn from ``test_seed`` whose keys the lake of ``lake_seed`` does not contain.

    Grammars may repeat among themselves (two test columns of one structure, as in a real lake);
    answer-key recall treats such columns as indistinguishable.
    """
    seen = lake_grammar_keys(lake_seed)
    out: list[Grammar] = []
    stream = _stream(test_seed)
    for _ in range(100 * count + 1000):
        if len(out) == count:
            return out
        g = next(stream)
        if g.key not in seen:
            out.append(g)
    raise ValueError(f"could not draw {count} held-out grammars from seed {test_seed}")
