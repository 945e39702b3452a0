"""Domains of machine-generated values: timestamps, ids, network addresses, codes, hashes, money, enums, paths.

One fixed variant per column, the way a machine writes a column (one timestamp format, one id
prefix and digit width, a few subnets). Registered in :data:`sample_lake.domains.DOMAINS` on import.
"""

from __future__ import annotations

import ipaddress
import random

import numpy as np

from sample_lake.domains.registry import MACHINE, domain
from sample_lake.domains.vocabulary import (
    CLOUD_REGIONS,
    COUNTRIES,
    EMAIL_CORP_DOMAINS,
    EMAIL_FREE_DOMAINS,
    ENUMS,
    FIRST_ASCII,
    HOST_DOMAINS,
    HOST_ENVS,
    HOST_ROLES,
    HTTP_METHOD_WEIGHTS,
    HTTP_METHODS,
    HTTP_STATUS_WEIGHTS,
    HTTP_STATUSES,
    ID_PREFIXES,
    LANGUAGES,
    LAST_ASCII,
    LOCALES,
    LOG_LEVEL_WEIGHTS,
    LOG_LEVELS,
    MIME_TYPES,
    MONTHS,
    TEXT_WORDS,
    UNDERSCORE_PREFIXES,
    URL_HOSTS,
    URL_PATHS,
    URL_QUERIES,
    US_STATES,
    USER_AGENTS,
    UTM_MEDIUMS,
    UTM_SOURCES,
    WEEKDAYS,
    WELL_KNOWN_PORTS,
)
from sample_lake.sampling import Ctx, epochs, fmt_floats, hex_strings, lognormal, split_epochs

# ---- time -------------------------------------------------------------------------------------------

TIMESTAMP_VARIANTS = ("iso_z", "iso_ms_z", "iso_space", "us_ampm", "us_24", "epoch_s", "epoch_ms",
                      "apache", "rfc1123")


@domain("timestamp", MACHINE, TIMESTAMP_VARIANTS)
def gen_timestamp(g: Ctx, n: int, variant: str) -> list[str]:
    ep = epochs(g, n)
    if variant == "epoch_s":
        return [str(v) for v in ep.tolist()]
    if variant in ("epoch_ms", "iso_ms_z"):
        ms = g.rng.integers(0, 1000, n)
        if variant == "epoch_ms":
            return [str(v) for v in (ep * 1000 + ms).tolist()]
        y, mo, d, h, mi, s, _ = split_epochs(ep)
        return [f"{a:04d}-{b:02d}-{c:02d}T{e:02d}:{f:02d}:{x:02d}.{z:03d}Z"
                for a, b, c, e, f, x, z in zip(y, mo, d, h, mi, s, ms.tolist(), strict=True)]
    tz = g.r.choice(("+0000", "+0000", "-0500", "-0800", "+0100", "+0530"))
    if variant == "apache" and tz != "+0000":
        sign = 1 if tz[0] == "+" else -1
        ep = ep + sign * (int(tz[1:3]) * 3600 + int(tz[3:]) * 60)
    y, mo, d, h, mi, s, wd = split_epochs(ep)
    rows = zip(y, mo, d, h, mi, s, wd, strict=True)
    if variant == "iso_z":
        return [f"{a:04d}-{b:02d}-{c:02d}T{e:02d}:{f:02d}:{x:02d}Z" for a, b, c, e, f, x, _ in rows]
    if variant == "iso_space":
        return [f"{a:04d}-{b:02d}-{c:02d} {e:02d}:{f:02d}:{x:02d}" for a, b, c, e, f, x, _ in rows]
    if variant == "us_ampm":
        return [f"{b}/{c}/{a} {(e % 12) or 12}:{f:02d}:{x:02d} {'AM' if e < 12 else 'PM'}"
                for a, b, c, e, f, x, _ in rows]
    if variant == "us_24":
        return [f"{b:02d}/{c:02d}/{a} {e:02d}:{f:02d}:{x:02d}" for a, b, c, e, f, x, _ in rows]
    if variant == "apache":
        return [f"{c:02d}/{MONTHS[b - 1]}/{a}:{e:02d}:{f:02d}:{x:02d} {tz}" for a, b, c, e, f, x, _ in rows]
    if variant == "rfc1123":
        return [f"{WEEKDAYS[w]}, {c:02d} {MONTHS[b - 1]} {a} {e:02d}:{f:02d}:{x:02d} GMT"
                for a, b, c, e, f, x, w in rows]
    raise ValueError(f"unknown timestamp variant {variant!r}")


@domain("date", MACHINE, ("iso", "us", "eu_dot", "compact", "mon_d_y"))
def gen_date(g: Ctx, n: int, variant: str) -> list[str]:
    y, mo, d, *_ = split_epochs(epochs(g, n))
    rows = zip(y, mo, d, strict=True)
    if variant == "iso":
        return [f"{a:04d}-{b:02d}-{c:02d}" for a, b, c in rows]
    if variant == "us":
        return [f"{b:02d}/{c:02d}/{a:04d}" for a, b, c in rows]
    if variant == "eu_dot":
        return [f"{c:02d}.{b:02d}.{a:04d}" for a, b, c in rows]
    if variant == "compact":
        return [f"{a:04d}{b:02d}{c:02d}" for a, b, c in rows]
    if variant == "mon_d_y":
        return [f"{MONTHS[b - 1]} {c} {a:04d}" for a, b, c in rows]
    raise ValueError(f"unknown date variant {variant!r}")


@domain("time_of_day", MACHINE, ("hms", "hm"))
def gen_time_of_day(g: Ctx, n: int, variant: str) -> list[str]:
    if g.r.random() < 0.5:  # business hours
        sod = np.clip(g.rng.normal(13.5 * 3600, 3 * 3600, n), 0, 86_399).astype(np.int64)
    else:
        sod = g.rng.integers(0, 86_400, n)
    h, m, s = (sod // 3600).tolist(), (sod // 60 % 60).tolist(), (sod % 60).tolist()
    if variant == "hm":
        return [f"{a:02d}:{b:02d}" for a, b in zip(h, m, strict=True)]
    return [f"{a:02d}:{b:02d}:{c:02d}" for a, b, c in zip(h, m, s, strict=True)]


@domain("duration", MACHINE, ("hms",))
def gen_duration(g: Ctx, n: int, variant: str) -> list[str]:
    secs = np.clip(lognormal(g, n, 20, 3600), 1, 359_999).astype(np.int64)
    h, m, s = (secs // 3600).tolist(), (secs // 60 % 60).tolist(), (secs % 60).tolist()
    return [f"{a:02d}:{b:02d}:{c:02d}" for a, b, c in zip(h, m, s, strict=True)]


# ---- identifiers ------------------------------------------------------------------------------------


@domain("uuid", MACHINE, ("lower", "upper", "guid"))
def gen_uuid(g: Ctx, n: int, variant: str) -> list[str]:
    raw = np.frombuffer(g.rng.bytes(16 * n), dtype=np.uint8).reshape(n, 16).copy()
    raw[:, 6] = (raw[:, 6] & 0x0F) | 0x40  # version 4
    raw[:, 8] = (raw[:, 8] & 0x3F) | 0x80  # RFC 4122 variant
    blob = raw.tobytes().hex()
    if variant != "lower":
        blob = blob.upper()
    out = [f"{blob[i:i + 8]}-{blob[i + 8:i + 12]}-{blob[i + 12:i + 16]}-{blob[i + 16:i + 20]}-"
           f"{blob[i + 20:i + 32]}" for i in range(0, 32 * n, 32)]
    return ["{" + u + "}" for u in out] if variant == "guid" else out


@domain("prefixed_id", MACHINE, ID_PREFIXES)
def gen_prefixed_id(g: Ctx, n: int, variant: str) -> list[str]:
    width = g.r.choice((5, 6, 6, 7, 8, 10))
    hi = 10**width
    values = g.ids(g.r.randint(1, hi // 10), hi, n)
    return [f"{variant}-{v:0{width}d}" for v in values.tolist()]


@domain("underscore_id", MACHINE, UNDERSCORE_PREFIXES)
def gen_underscore_id(g: Ctx, n: int, variant: str) -> list[str]:
    hi = g.r.choice((9_999, 99_999, 999_999, 9_999_999))
    return [f"{variant}_{v}" for v in g.ids(1, hi, n).tolist()]


@domain("numeric_id", MACHINE)
def gen_numeric_id(g: Ctx, n: int, variant: str) -> list[str]:
    width = g.r.randint(6, 12)
    return [str(v) for v in g.ids(10 ** (width - 1), 10**width, n).tolist()]


_LETTERS = np.frombuffer(b"ABCDEFGHJKLMNPQRSTUVWXYZ", dtype=np.uint8)
_DIGITS = np.frombuffer(b"0123456789", dtype=np.uint8)
_ALNUM = np.concatenate([_LETTERS, _DIGITS])


@domain("alnum_code", MACHINE, ("alternating", "mixed"))
def gen_alnum_code(g: Ctx, n: int, variant: str) -> list[str]:
    """``A1B2C3``-style codes (letter/digit alternating) or fixed-length upper-case alphanumerics."""
    if variant == "alternating":
        length = 6
        chars = np.empty((n, length), dtype=np.uint8)
        chars[:, 0::2] = _LETTERS[g.rng.integers(0, len(_LETTERS), (n, length // 2))]
        chars[:, 1::2] = _DIGITS[g.rng.integers(0, len(_DIGITS), (n, length // 2))]
    else:
        length = g.r.randint(6, 10)
        chars = _ALNUM[g.rng.integers(0, len(_ALNUM), (n, length))]
    blob = chars.tobytes().decode("ascii")
    return [blob[i : i + length] for i in range(0, n * length, length)]


# ---- network ------------------------------------------------------------------------------------------


def _ipv4_subnet(r: random.Random) -> tuple[str, bool]:
    """A ``(prefix, is_slash16)`` pair: private /24s dominate, with the odd public /16."""
    kind = r.random()
    if kind < 0.4:
        return f"10.{r.randint(0, 255)}.{r.randint(0, 255)}", False
    if kind < 0.6:
        return f"192.168.{r.randint(0, 255)}", False
    if kind < 0.75:
        return f"172.{r.randint(16, 31)}.{r.randint(0, 255)}", False
    first = r.choice([v for v in range(11, 224) if v not in (127, 169, 172, 192)])
    return f"{first}.{r.randint(0, 255)}", True


@domain("ipv4", MACHINE)
def gen_ipv4(g: Ctx, n: int, variant: str) -> list[str]:
    nets = [_ipv4_subnet(g.r) for _ in range(g.r.randint(1, 4))]
    which = g.rng.integers(0, len(nets), n).tolist()
    third = g.rng.integers(0, 256, n).tolist()
    host = g.rng.integers(1, 255, n).tolist()
    out = []
    for i, t, h in zip(which, third, host, strict=True):
        prefix, wide = nets[i]
        out.append(f"{prefix}.{t}.{h}" if wide else f"{prefix}.{h}")
    return out


@domain("ipv6", MACHINE, ("full", "compressed"))
def gen_ipv6(g: Ctx, n: int, variant: str) -> list[str]:
    prefixes = []
    for _ in range(g.r.randint(1, 3)):
        head = g.r.choice((0x20010DB8, 0x2A0E1C80, 0x26001F18, 0xFD000000 | g.r.getrandbits(16), 0xFE800000))
        low = 0 if head == 0xFE800000 else g.r.getrandbits(32)
        prefixes.append((head << 32 | low) << 64)
    which = g.rng.integers(0, len(prefixes), n).tolist()
    small_iids = g.r.random() < 0.5  # e.g. ``::1a2b`` style host parts, common for servers
    bits = 16 if small_iids else 64
    iids = [int(v) for v in g.rng.integers(1, 2**bits - 1, n, dtype=np.uint64, endpoint=True).tolist()]
    addrs = [ipaddress.IPv6Address(prefixes[w] | i) for w, i in zip(which, iids, strict=True)]
    if variant == "full":
        return [a.exploded for a in addrs]
    return [a.compressed for a in addrs]


@domain("mac", MACHINE, ("lower_colon", "upper_dash"))
def gen_mac(g: Ctx, n: int, variant: str) -> list[str]:
    ouis = [f"{g.r.getrandbits(24) & 0xFCFFFF:06x}" for _ in range(g.r.randint(1, 3))]
    which = g.rng.integers(0, len(ouis), n).tolist()
    nics = hex_strings(g, n, 6)
    sep = ":" if variant == "lower_colon" else "-"
    out = []
    for w, nic in zip(which, nics, strict=True):
        s = ouis[w] + nic
        out.append(sep.join((s[0:2], s[2:4], s[4:6], s[6:8], s[8:10], s[10:12])))
    return out if variant == "lower_colon" else [v.upper() for v in out]


@domain("port", MACHINE)
def gen_port(g: Ctx, n: int, variant: str) -> list[str]:
    well_known = [str(p) for p in g.r.sample(WELL_KNOWN_PORTS, g.r.randint(1, 5))]
    share = g.r.random()
    known = g.pick(well_known, n)
    ephemeral = g.rng.integers(32_768, 61_000, n).tolist()
    use_known = (g.rng.random(n) < share).tolist()
    return [k if u else str(e) for k, e, u in zip(known, ephemeral, use_known, strict=True)]


@domain("hostname", MACHINE)
def gen_hostname(g: Ctx, n: int, variant: str) -> list[str]:
    roles = g.pick(g.subset(HOST_ROLES, 1, 4), n)
    envs = g.pick(g.subset(HOST_ENVS, 1, 2), n)
    dom = g.r.choice(HOST_DOMAINS)
    width = g.r.choice((2, 3, 3))
    nums = g.rng.integers(1, min(10**width, 400), n).tolist()
    return [f"{a}-{k:0{width}d}.{e}.{dom}" for a, e, k in zip(roles, envs, nums, strict=True)]


@domain("url", MACHINE)
def gen_url(g: Ctx, n: int, variant: str) -> list[str]:
    scheme = "http" if g.r.random() < 0.1 else "https"
    hosts = g.subset(URL_HOSTS, 1, 3)
    paths = g.subset(URL_PATHS, 1, 4)
    queries = g.subset(URL_QUERIES, 1, 3)
    r = g.r
    hexes = hex_strings(g, n, 8)
    out = []
    for h in hexes:
        fill = {
            "n": r.randint(1, 99_999), "k": r.randint(1, 5), "h": h, "w": r.choice(TEXT_WORDS),
            "w2": r.choice(TEXT_WORDS), "y": r.randint(2018, 2024), "m": r.randint(1, 12),
            "src": r.choice(UTM_SOURCES), "med": r.choice(UTM_MEDIUMS), "lang": r.choice(LANGUAGES),
        }
        path = r.choice(paths).format(**fill)
        query = r.choice(queries).format(**fill)
        out.append(f"{scheme}://{r.choice(hosts)}{path}{query}")
    return out


@domain("email", MACHINE)
def gen_email(g: Ctx, n: int, variant: str) -> list[str]:
    if g.r.random() < 0.6:
        domains = g.subset(EMAIL_CORP_DOMAINS, 1, 2)
    else:
        domains = list(EMAIL_FREE_DOMAINS)
    styles = g.subset(("first.last", "flast", "first_last", "firstNN", "first.last"), 1, 2)
    first = g.rng.integers(0, len(FIRST_ASCII), n).tolist()
    last = g.rng.integers(0, len(LAST_ASCII), n).tolist()
    nums = g.rng.integers(1, 100, n).tolist()
    dom = g.pick(domains, n)
    sty = g.pick(styles, n)
    out = []
    for fi, la, k, d, s in zip(first, last, nums, dom, sty, strict=True):
        f, lname = FIRST_ASCII[fi], LAST_ASCII[la]
        if s == "first.last":
            local = f"{f}.{lname}"
        elif s == "flast":
            local = f"{f[0]}{lname}"
        elif s == "first_last":
            local = f"{f}_{lname}"
        else:
            local = f"{f}{k:02d}"
        out.append(f"{local}@{d}")
    return out


@domain("user_agent", MACHINE)
def gen_user_agent(g: Ctx, n: int, variant: str) -> list[str]:
    return g.pick(g.subset(USER_AGENTS, 3, len(USER_AGENTS)), n, skew=1.3)


@domain("cloud_region", MACHINE, ("aws", "gcp", "azure"))
def gen_cloud_region(g: Ctx, n: int, variant: str) -> list[str]:
    return g.pick(g.subset(CLOUD_REGIONS[variant], 1, 6), n, skew=1.2)


# ---- codes and locales -------------------------------------------------------------------------------


@domain("locale", MACHINE, ("lower", "mixed"))
def gen_locale(g: Ctx, n: int, variant: str) -> list[str]:
    values = g.pick(LOCALES, n, skew=1.4)
    return [v.lower() for v in values] if variant == "lower" else values


@domain("language_code", MACHINE)
def gen_language_code(g: Ctx, n: int, variant: str) -> list[str]:
    return g.pick(LANGUAGES, n, skew=1.4)


def _country_indices(g: Ctx, n: int) -> list[int]:
    skew = g.r.uniform(0.8, 1.6)
    weights = 1.0 / np.arange(1, len(COUNTRIES) + 1) ** skew
    return g.rng.choice(len(COUNTRIES), size=n, p=weights / weights.sum()).tolist()


@domain("country_alpha2", MACHINE)
def gen_country_alpha2(g: Ctx, n: int, variant: str) -> list[str]:
    return [COUNTRIES[i][0] for i in _country_indices(g, n)]


@domain("country_alpha3", MACHINE)
def gen_country_alpha3(g: Ctx, n: int, variant: str) -> list[str]:
    return [COUNTRIES[i][1] for i in _country_indices(g, n)]


@domain("currency_code", MACHINE)
def gen_currency_code(g: Ctx, n: int, variant: str) -> list[str]:
    return [COUNTRIES[i][2] for i in _country_indices(g, n)]


@domain("us_state", MACHINE)
def gen_us_state(g: Ctx, n: int, variant: str) -> list[str]:
    weights = 1.0 / np.arange(1, len(US_STATES) + 1) ** 0.9
    return g.weighted(US_STATES, weights.tolist(), n)


@domain("zip_code", MACHINE, ("zip5", "zip9"))
def gen_zip_code(g: Ctx, n: int, variant: str) -> list[str]:
    areas = [g.r.randint(10, 999) for _ in range(g.r.randint(2, 12))]
    which = g.rng.integers(0, len(areas), n).tolist()
    tail = g.rng.integers(0, 100, n).tolist()
    zips = [areas[w] * 100 + t for w, t in zip(which, tail, strict=True)]
    if variant == "zip5":
        return [f"{z:05d}" for z in zips]
    plus4 = g.rng.integers(1, 10_000, n).tolist()
    return [f"{z:05d}-{p:04d}" for z, p in zip(zips, plus4, strict=True)]


@domain("phone", MACHINE, ("intl", "paren", "dotted"))
def gen_phone(g: Ctx, n: int, variant: str) -> list[str]:
    area = g.rng.integers(201, 990, n).tolist()
    exch = g.rng.integers(200, 1000, n).tolist()
    line = g.rng.integers(0, 10_000, n).tolist()
    rows = zip(area, exch, line, strict=True)
    if variant == "intl":
        return [f"+1-{a}-{e:03d}-{x:04d}" for a, e, x in rows]
    if variant == "paren":
        return [f"({a}) {e:03d}-{x:04d}" for a, e, x in rows]
    return [f"{a}.{e:03d}.{x:04d}" for a, e, x in rows]


@domain("masked_card", MACHINE, ("stars", "x_dash", "bin_last4"))
def gen_masked_card(g: Ctx, n: int, variant: str) -> list[str]:
    last4 = g.rng.integers(0, 10_000, n).tolist()
    if variant == "stars":
        return [f"**** **** **** {v:04d}" for v in last4]
    if variant == "x_dash":
        return [f"XXXX-XXXX-XXXX-{v:04d}" for v in last4]
    bins = g.pick(("411111", "424242", "555555", "378282", "601100", "510510", "400005"), n)
    return [f"{b}******{v:04d}" for b, v in zip(bins, last4, strict=True)]


# ---- hashes and versions ------------------------------------------------------------------------------


@domain("md5", MACHINE)
def gen_md5(g: Ctx, n: int, variant: str) -> list[str]:
    return hex_strings(g, n, 32)


@domain("sha1", MACHINE)
def gen_sha1(g: Ctx, n: int, variant: str) -> list[str]:
    return hex_strings(g, n, 40)


@domain("sha256", MACHINE)
def gen_sha256(g: Ctx, n: int, variant: str) -> list[str]:
    return hex_strings(g, n, 64)


@domain("git_sha", MACHINE)
def gen_git_sha(g: Ctx, n: int, variant: str) -> list[str]:
    return hex_strings(g, n, 7)


@domain("version", MACHINE, ("semver", "v_semver", "prerelease"))
def gen_version(g: Ctx, n: int, variant: str) -> list[str]:
    r = g.r
    major_hi = r.choice((1, 3, 6, 12))
    pool = []
    for _ in range(r.randint(3, 40)):
        base = f"{r.randint(0, major_hi)}.{r.randint(0, 20)}.{r.randint(0, 30)}"
        if variant == "v_semver":
            base = "v" + base
        elif variant == "prerelease":
            base = f"{base}-{r.choice(('alpha', 'beta', 'rc'))}.{r.randint(1, 9)}"
        pool.append(base)
    return g.pick(list(dict.fromkeys(pool)), n, skew=1.1)


# ---- money ---------------------------------------------------------------------------------------------


@domain("currency_amount", MACHINE, ("plain", "dollar", "code"))
def gen_currency_amount(g: Ctx, n: int, variant: str) -> list[str]:
    amounts = lognormal(g, n, 5, 2_000, sigma=g.r.uniform(0.6, 1.4))
    if variant == "plain":
        return fmt_floats(amounts, ".2f")
    if variant == "dollar":
        return ["$" + s for s in fmt_floats(amounts, ",.2f")]
    codes = g.pick(g.subset(("EUR", "USD", "GBP", "JPY", "CHF", "CAD", "AUD"), 1, 3), n)
    return [f"{c} {a}" for c, a in zip(codes, fmt_floats(amounts, ".2f"), strict=True)]


@domain("price", MACHINE)
def gen_price(g: Ctx, n: int, variant: str) -> list[str]:
    base = np.floor(lognormal(g, n, 3, 300, sigma=0.9))
    cents = np.array([0.99, 0.99, 0.49, 0.95, 0.0, 0.5])[g.rng.integers(0, 6, n)]
    return fmt_floats(base + cents, ".2f")


# ---- enums and flags -------------------------------------------------------------------------------------


@domain("status", MACHINE, tuple(ENUMS))
def gen_status(g: Ctx, n: int, variant: str) -> list[str]:
    return g.pick(ENUMS[variant], n, skew=g.r.uniform(0.4, 1.6))


@domain("boolean", MACHINE, ("true_false", "TRUE_FALSE", "Y_N", "yes_no"))
def gen_boolean(g: Ctx, n: int, variant: str) -> list[str]:
    yes, no = {"true_false": ("true", "false"), "TRUE_FALSE": ("TRUE", "FALSE"), "Y_N": ("Y", "N"),
               "yes_no": ("yes", "no")}[variant]
    p_true = g.r.uniform(0.05, 0.95)
    return [yes if v else no for v in (g.rng.random(n) < p_true).tolist()]


@domain("http_method", MACHINE)
def gen_http_method(g: Ctx, n: int, variant: str) -> list[str]:
    return g.weighted(HTTP_METHODS, HTTP_METHOD_WEIGHTS, n)


@domain("http_status", MACHINE)
def gen_http_status(g: Ctx, n: int, variant: str) -> list[str]:
    return g.weighted(HTTP_STATUSES, HTTP_STATUS_WEIGHTS, n)


@domain("log_level", MACHINE, tuple(LOG_LEVELS))
def gen_log_level(g: Ctx, n: int, variant: str) -> list[str]:
    return g.weighted(LOG_LEVELS[variant], LOG_LEVEL_WEIGHTS, n)


# ---- files ---------------------------------------------------------------------------------------------


@domain("file_path", MACHINE, ("log", "data", "home", "windows", "s3"))
def gen_file_path(g: Ctx, n: int, variant: str) -> list[str]:
    r = g.r
    users = [f"{FIRST_ASCII[i][0]}{LAST_ASCII[j]}" for i, j in
             zip(g.rng.integers(0, len(FIRST_ASCII), 8).tolist(),
                 g.rng.integers(0, len(LAST_ASCII), 8).tolist(), strict=True)]
    if variant == "log":
        apps = g.subset(("app", "nginx", "kafka", "payments-svc", "orders-api", "etl"), 1, 3)
        procs = g.subset(("worker", "server", "consumer", "scheduler", "access", "error"), 1, 3)
        rotated = r.random() < 0.3
        return [f"/var/log/{r.choice(apps)}/{r.choice(procs)}-{r.randint(0, 15)}.log"
                + (f".{r.randint(1, 9)}" if rotated else "") for _ in range(n)]
    if variant == "data":
        zone = r.choice(("raw", "curated", "staging", "landing"))
        table = r.choice(("orders", "events", "sessions", "invoices", "devices"))
        ext = r.choice(("parquet", "csv.gz", "json", "orc"))
        y, mo, d, *_ = split_epochs(epochs(g, n))
        return [f"/data/{zone}/{table}/dt={a:04d}-{b:02d}-{c:02d}/part-{r.randint(0, 199):05d}.{ext}"
                for a, b, c in zip(y, mo, d, strict=True)]
    if variant == "home":
        dirs = g.subset(("reports", "exports", "tmp", "notebooks", "downloads"), 1, 3)
        exts = g.subset(("csv", "xlsx", "pdf", "ipynb", "txt", "json"), 1, 3)
        return [f"/home/{r.choice(users)}/{r.choice(dirs)}/{r.choice(TEXT_WORDS)}_{r.randint(1, 99)}"
                f".{r.choice(exts)}" for _ in range(n)]
    if variant == "windows":
        dirs = g.subset(("Documents", "Desktop", "Downloads", "Reports"), 1, 2)
        exts = g.subset(("xlsx", "docx", "pdf", "csv", "pptx"), 1, 3)
        return [f"C:\\Users\\{r.choice(users)}\\{r.choice(dirs)}\\{r.choice(TEXT_WORDS)}_"
                f"{r.randint(2018, 2024)}.{r.choice(exts)}" for _ in range(n)]
    bucket = r.choice(("acme-datalake-prod", "media-assets", "backup-eu-west-1", "ml-artifacts"))
    prefix = r.choice(("uploads", "images", "exports", "models"))
    ext = r.choice(("jpg", "png", "pdf", "bin", "parquet"))
    y, mo, *_ = split_epochs(epochs(g, n))
    keys = hex_strings(g, n, 12)
    return [f"s3://{bucket}/{prefix}/{a:04d}/{b:02d}/{k}.{ext}" for a, b, k in zip(y, mo, keys, strict=True)]


@domain("mime_type", MACHINE)
def gen_mime_type(g: Ctx, n: int, variant: str) -> list[str]:
    return g.pick(g.subset(MIME_TYPES, 2, len(MIME_TYPES)), n, skew=1.3)
