"""Generate a small but realistic-looking enterprise data lake of string-heavy tables.

The lake is the training corpus for a pattern index in the spirit of Auto-Validate (SIGMOD 2021),
which learns regex-like validation patterns of string columns from a large collection of tables.
For that to be meaningful the lake has to look like a real one, so it is built like this:

* **Themes.** Every table belongs to a business theme (orders, web_sessions, devices, payments, ...)
  that owns a list of plausible snake_case columns (``order_id``, ``client_ip``, ``device_mac``...).
  A table takes its theme's key column plus 3-11 more columns drawn from the theme and from a small
  pool of generic columns (``created_at``, ``etl_batch_id``, ``notes``...).
* **Domains.** Each column is backed by a named *domain* generator from :data:`DOMAINS` (timestamps,
  UUIDs, IPv4, hashes, currency amounts, person names, ...). A domain has *variants* (ISO vs. Apache
  timestamps, ``en-us`` vs. ``en-US`` locales...). One column always uses exactly one variant, the
  way a machine writes a column; different columns of the same domain use different variants.
  Column picks follow the theme's own mix but are boosted for domains lagging behind a coverage
  schedule, so every domain shows up in many columns of many tables (at least ~8 in the default
  lake), while the slot kinds keep the mix near 2/3 machine-generated strings (composites included),
  ~18% natural language and ~15% numbers.
* **Special structures.** About 5% of columns are *composites* of 2-4 domains joined by a fixed
  separator (``[0.1|02/18/2015 00:00:00|02/18/2015 00:00:00|OnBooking]``, ``10.0.3.4:8080``);
  ~10% of string columns carry 1-3% ad-hoc special tokens (``N/A``, ``-``, ``unknown``...); ~30% of
  columns have 1-20% nulls; ~2% are constant and ~4% are squeezed to a handful of distinct values.
* **Formats.** Tables are spread over CSV, TSV, Parquet (all-string columns, zstd) and JSON lines
  (all values strings or null). Nulls are empty cells in CSV/TSV and real nulls elsewhere.

* **Wide tables** (``--wide-share F``, off by default): extra tables such as ``events_wide_0003``
  whose columns are composite grammars from :mod:`sample_lake.wide` (UUIDs joined to ids, ISO-8601
  timestamps with ms and zones, URLs and UNC paths with many segments, ``key:value`` lists, tuples of
  numbers, bracketed records) and plain wide pieces. They are added until their values wider than
  8 tokens make up a fraction F of all the lake's values. With F = 0 the output is unchanged.

Everything is derived from ``--seed``: the lake plan comes from one ``random.Random(seed)`` and the
cell values of table ``i`` from generators seeded with ``(seed, i)``, so a re-run is byte-identical.
:func:`plan_lake` exposes the ground truth (domain and variant of every column) without writing.

Usage::

    python sample_lake/generate.py [--out DIR] [--tables N] [--rows N] [--seed S] [--wide-share F] [--force]
"""

from __future__ import annotations

import argparse
import csv
import ipaddress
import json
import random
import sys
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

if __package__ in (None, ""):  # run as a script: make ``sample_lake`` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from sample_lake.wide import BASE_SINGLES, KINDS, LAKE_POOL, Grammar, lake_grammars  # noqa: E402

DEFAULT_OUT = Path(__file__).resolve().parent / "tables"
DEFAULT_TABLES = 120
DEFAULT_ROWS = 150
DEFAULT_SEED = 7

FORMATS = ("csv", "tsv", "parquet", "jsonl")
DATA_SUFFIXES = tuple(f".{fmt}" for fmt in FORMATS)

MACHINE, NATURAL, NUMERIC, COMPOSITE = "machine", "natural", "numeric", "composite"
# Probability of each kind for a non-key column slot; the key column is always machine-generated.
SLOT_KINDS = ((MACHINE, 0.55), (NATURAL, 0.22), (NUMERIC, 0.165), (COMPOSITE, 0.065))

SPECIAL_TOKENS = ("-", "N/A", "null", "NULL", "none", "?", "0", "unknown")
# Defect probabilities for non-key columns (key columns stay clean), so that overall ~30% of columns
# have nulls, ~10% of string columns carry special tokens and ~2% of columns are constant.
P_NULLS, NULL_RATE = 0.34, (0.01, 0.20)
P_SPECIALS, SPECIAL_RATE = 0.115, (0.01, 0.03)
P_CONSTANT, P_LOWCARD = 0.025, 0.04
# Column picks follow the theme's own column mix (uniform over its columns, generic columns down-weighted
# by GENERIC_WEIGHT) but are boosted for domains that lag behind a schedule reaching BALANCE_FLOOR columns
# per domain after FLOOR_TABLES tables (or at the end of a smaller lake): weight * (1 + lag) ** exponent.
# Rare domains so reach many columns even in a small lake while common ones (timestamps, ids) stay common.
# Fixed variants / composite templates with fewer than VARIANT_FLOOR columns get a mild boost.
GENERIC_WEIGHT = 0.35
BALANCE_EXPONENT = 3
# Domains that are over-represented in real lakes beyond their share of named candidate columns.
DOMAIN_PRIORS = {"timestamp": 3.0, "date": 2.0, "status": 1.5, "boolean": 1.5, "uuid": 1.5}
BALANCE_FLOOR = 10
FLOOR_TABLES = 120
VARIANT_FLOOR = 3

TS_MIN = 1514764800  # 2018-01-01T00:00:00Z
TS_MAX = 1735689599  # 2024-12-31T23:59:59Z
MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
WEEKDAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")

# --------------------------------------------------------------------------------------------------
# Reference data
# --------------------------------------------------------------------------------------------------

FIRST_NAMES = (
    "James Mary Robert Patricia John Jennifer Michael Linda David Elizabeth William Barbara Richard "
    "Susan Joseph Jessica Thomas Sarah Charles Karen Christopher Lisa Daniel Nancy Matthew Sandra "
    "Anthony Ashley Mark Emily Wei Priya Raj Mei Hiroshi Yuki Ahmed Fatima Carlos Sofia Mateo Lucía "
    "José Zoë Lukas Anna Jonas Elena Olga Ivan Chloé Léa Noah Emma Liam Olivia Aarav Ananya Kwame Amara"
).split()
LAST_NAMES = (
    "Smith Johnson Williams Brown Jones Garcia Miller Davis Rodriguez Martinez Hernandez Lopez "
    "Gonzalez Wilson Anderson Thomas Taylor Moore Jackson Martin Lee Perez Thompson White Harris "
    "Sanchez Clark Ramirez Lewis Robinson Walker Young Allen King Wright Scott Nguyen Patel Kim Chen "
    "Wang Singh Müller Schmidt Schneider Fischer Dubois Moreau Rossi Russo Kowalski Novak Ivanov "
    "Tanaka Suzuki O'Brien Murphy Kelly Okafor Mensah"
).split()
CITIES = (
    "New York", "Los Angeles", "Chicago", "Houston", "Phoenix", "Philadelphia", "San Antonio",
    "San Diego", "Dallas", "Austin", "Seattle", "Denver", "Boston", "Atlanta", "Miami", "Portland",
    "Minneapolis", "Nashville", "Toronto", "Vancouver", "Montréal", "Mexico City", "São Paulo",
    "Buenos Aires", "London", "Manchester", "Dublin", "Paris", "Lyon", "Berlin", "München", "Hamburg",
    "Amsterdam", "Brussels", "Madrid", "Barcelona", "Lisbon", "Rome", "Milan", "Zürich", "Vienna",
    "Stockholm", "Oslo", "Copenhagen", "Helsinki", "Warsaw", "Prague", "Istanbul", "Tel Aviv", "Dubai",
    "Johannesburg", "Lagos", "Nairobi", "Cairo", "Mumbai", "Bengaluru", "Singapore", "Hong Kong",
    "Tokyo", "Osaka", "Seoul", "Shanghai", "Sydney", "Melbourne", "Auckland",
)
GEO_CENTERS = (
    (40.7128, -74.0060), (34.0522, -118.2437), (41.8781, -87.6298), (47.6062, -122.3321),
    (51.5074, -0.1278), (48.8566, 2.3522), (52.5200, 13.4050), (35.6762, 139.6503),
    (1.3521, 103.8198), (-33.8688, 151.2093), (-23.5505, -46.6333), (19.0760, 72.8777),
)
STREET_NAMES = (
    "Main Oak Pine Maple Cedar Elm Washington Lake Hill Park Sunset Highland Market Mission Broadway "
    "Church River Spring Willow Chestnut Franklin Jefferson Lincoln Madison Ridge Valley Meadow Forest "
    "Harbor Mill"
).split()
STREET_SUFFIXES = ("St", "Ave", "Blvd", "Rd", "Ln", "Dr", "Way", "Ct", "Pl", "Street", "Avenue", "Road")
PRODUCT_ADJECTIVES = (
    "Ergonomic Wireless Portable Premium Compact Smart Deluxe Classic Ultra Heavy-Duty Organic "
    "Stainless Rechargeable Foldable Waterproof Vintage"
).split()
PRODUCT_MATERIALS = "Steel Bamboo Cotton Leather Aluminum Ceramic Glass Wooden Carbon Silicone Wool".split()
PRODUCT_NOUNS = (
    "Chair", "Desk Lamp", "Mouse", "Keyboard", "Backpack", "Water Bottle", "Headphones", "Coffee Maker",
    "Blender", "Jacket", "Sneakers", "Notebook", "Monitor Stand", "Phone Case", "Router", "Thermostat",
    "Speaker", "Yoga Mat", "Tent", "Drill",
)
PRODUCT_SIZES = ("12 oz", "Set of 4", "Large", "XL", "2-Pack", "500 ml", "15 in")
BRANDS = (
    "Acme Contoso Northwind Globex Initech Umbrella Stark Wayne Hooli Vandelay Soylent Tyrell "
    "Cyberdyne Aperture Wonka"
).split()
COMPANY_WORDS = (
    "Blue Ridge", "Pacific", "Summit", "Evergreen", "Silverline", "Northstar", "Redwood", "Harbor",
    "Atlas", "Pinnacle", "Keystone", "Lakeside", "Granite", "Horizon",
)
COMPANY_INDUSTRIES = (
    "Logistics", "Consulting", "Systems", "Foods", "Manufacturing", "Partners", "Analytics", "Holdings",
    "Technologies", "Supply Co.", "Industries", "Hospitality", "Media", "Health",
)
COMPANY_SUFFIXES = ("Inc.", "LLC", "Ltd.", "GmbH", "Corp.", "S.A.", "Group", "")
JOB_LEVELS = ("", "", "Senior ", "Lead ", "Principal ", "Junior ", "Staff ")
JOB_ROLES = (
    "Software Engineer", "Data Analyst", "Account Executive", "Product Manager", "HR Generalist",
    "Financial Analyst", "Customer Success Manager", "DevOps Engineer", "Marketing Specialist",
    "Operations Manager", "Sales Representative", "Data Scientist", "QA Engineer", "Office Manager",
    "Recruiter", "Solutions Architect", "Warehouse Associate", "Support Engineer",
)
DEPARTMENTS = (
    "Engineering", "Finance", "Sales", "Marketing", "Human Resources", "Operations", "Legal",
    "Customer Success",
)
TEXT_WORDS = (
    "the a customer order please check delivery was delayed package arrived damaged requested refund "
    "replacement item missing account login issue password reset again thanks for quick response "
    "billing charged twice invoice update address shipping tracking number not working error page "
    "after latest release app crashes when opening settings we need to escalate this ticket vendor "
    "confirmed backorder expected next week contract renewal pending approval from finance team "
    "meeting scheduled follow up call on monday inventory count mismatch in warehouse reviewed logs "
    "no anomalies found user reported slow performance during checkout migrated legacy system data "
    "is incomplete duplicate record merged with existing profile priority high low urgent note see "
    "attached screenshot and has been resolved by support agent it seems like network timeout sync "
    "job failed retry tonight discount applied promo code expired gift wrap leave at front door "
    "before"
).split()
# (alpha-2, alpha-3, currency), roughly by how often they show up in a US-centric enterprise lake.
COUNTRIES = (
    ("US", "USA", "USD"), ("GB", "GBR", "GBP"), ("DE", "DEU", "EUR"), ("CA", "CAN", "CAD"),
    ("FR", "FRA", "EUR"), ("IN", "IND", "INR"), ("JP", "JPN", "JPY"), ("AU", "AUS", "AUD"),
    ("NL", "NLD", "EUR"), ("BR", "BRA", "BRL"), ("MX", "MEX", "MXN"), ("ES", "ESP", "EUR"),
    ("IT", "ITA", "EUR"), ("CH", "CHE", "CHF"), ("SE", "SWE", "SEK"), ("IE", "IRL", "EUR"),
    ("SG", "SGP", "SGD"), ("CN", "CHN", "CNY"), ("KR", "KOR", "KRW"), ("PL", "POL", "PLN"),
    ("BE", "BEL", "EUR"), ("AT", "AUT", "EUR"), ("NO", "NOR", "NOK"), ("DK", "DNK", "DKK"),
    ("FI", "FIN", "EUR"), ("PT", "PRT", "EUR"), ("CZ", "CZE", "CZK"), ("TR", "TUR", "TRY"),
    ("IL", "ISR", "ILS"), ("AE", "ARE", "AED"), ("SA", "SAU", "SAR"), ("ZA", "ZAF", "ZAR"),
    ("NG", "NGA", "NGN"), ("EG", "EGY", "EGP"), ("KE", "KEN", "KES"), ("NZ", "NZL", "NZD"),
    ("ID", "IDN", "IDR"), ("TH", "THA", "THB"), ("VN", "VNM", "VND"), ("PH", "PHL", "PHP"),
    ("MY", "MYS", "MYR"), ("HK", "HKG", "HKD"), ("TW", "TWN", "TWD"), ("AR", "ARG", "ARS"),
    ("CL", "CHL", "CLP"), ("CO", "COL", "COP"), ("PE", "PER", "PEN"),
)
CURRENCIES = tuple(dict.fromkeys(c for _, _, c in COUNTRIES))
US_STATES = (
    "CA TX FL NY PA IL OH GA NC MI NJ VA WA AZ MA TN IN MD MO WI CO MN SC AL LA KY OR OK CT UT IA NV "
    "AR MS KS NM NE ID WV HI NH ME MT RI DE SD ND AK VT WY DC"
).split()
LOCALES = (
    "en-US en-GB de-DE fr-FR es-ES es-MX pt-BR it-IT nl-NL ja-JP zh-CN zh-TW ko-KR sv-SE pl-PL ru-RU "
    "tr-TR fr-CA en-AU en-IN de-AT de-CH da-DK fi-FI nb-NO en-CA"
).split()
LANGUAGES = "en de fr es pt it nl ja zh ko sv pl ru tr ar hi".split()
ENUMS: dict[str, tuple[str, ...]] = {
    "account_upper": ("ACTIVE", "PENDING", "SUSPENDED", "CLOSED", "DELETED"),
    "order_camel": ("OnBooking", "Confirmed", "InTransit", "Delivered", "Cancelled", "Returned"),
    "ticket_upper": ("OPEN", "IN_PROGRESS", "WAITING_ON_CUSTOMER", "RESOLVED", "CLOSED"),
    "payment_lower": ("authorized", "captured", "settled", "refunded", "declined", "chargeback"),
    "shipment_camel": ("LabelCreated", "PickedUp", "InTransit", "OutForDelivery", "Delivered",
                       "DeliveryException"),
    "job_upper": ("QUEUED", "RUNNING", "SUCCEEDED", "FAILED", "CANCELLED", "RETRYING"),
    "device_lower": ("online", "offline", "provisioning", "maintenance", "decommissioned"),
    "release_lower": ("draft", "candidate", "released", "deprecated", "yanked"),
    "severity_upper": ("LOW", "MEDIUM", "HIGH", "CRITICAL"),
    "tier_title": ("Free", "Basic", "Pro", "Business", "Enterprise"),
    "channel_lower": ("web", "mobile_app", "email", "phone", "partner", "retail_store"),
    "audit_upper": ("LOGIN", "LOGOUT", "LOGIN_FAILED", "CREATE", "UPDATE", "DELETE", "EXPORT",
                    "GRANT_ROLE", "REVOKE_ROLE"),
    "carrier_upper": ("UPS", "FEDEX", "DHL", "USPS", "ONTRAC", "LASERSHIP"),
    "category_title": ("Electronics", "Home & Kitchen", "Toys & Games", "Apparel", "Grocery",
                       "Office Supplies", "Sports & Outdoors", "Beauty"),
    "color_title": ("Black", "White", "Silver", "Space Gray", "Red", "Navy Blue", "Forest Green"),
    "department_title": DEPARTMENTS,
    "terms_upper": ("NET15", "NET30", "NET45", "NET60", "DUE_ON_RECEIPT"),
    "protocol_upper": ("TCP", "UDP", "ICMP", "GRE"),
    "fw_upper": ("ALLOW", "DENY", "DROP", "REJECT"),
    "env_lower": ("prod", "staging", "dev", "qa"),
    "experiment_lower": ("control", "treatment_a", "treatment_b", "holdout"),
    "source_lower": ("sap", "salesforce", "netsuite", "workday", "legacy_erp", "zendesk"),
}
ID_PREFIXES = ("ORD", "INV", "CUST", "SKU", "TKT", "EMP", "PO", "SHP", "PAY", "DEV", "CMP", "BK", "AST",
               "WH", "RULE", "REQ")
UNDERSCORE_PREFIXES = ("cust", "usr", "acct", "batch", "run", "loy", "vnd", "exp", "sess", "evt")
URL_HOSTS = (
    "www.example.com", "shop.example.com", "api.acme-corp.com", "cdn.contoso.net", "portal.initech.io",
    "docs.globex.com", "app.northwind.io", "m.example.com", "static.hooli.com", "files.vandelay.org",
)
URL_PATHS = (
    "/products/{n}", "/p/{w}-{w2}-{n}", "/api/v2/orders/{n}", "/category/{w}/{w2}", "/search",
    "/blog/{y}/{m:02d}/{w}-{w2}", "/account/settings", "/cart", "/checkout/step-{k}",
    "/static/js/app.{h}.js", "/docs/{w}/getting-started", "/", "/files/{h}.pdf",
)
URL_QUERIES = (
    "", "", "?ref={w}", "?q={w}+{w2}", "?utm_source={src}&utm_medium={med}&utm_campaign={w}",
    "?page={k}", "?id={n}&lang={lang}", "?session={h}",
)
UTM_SOURCES = ("google", "newsletter", "facebook", "linkedin", "bing", "partner")
UTM_MEDIUMS = ("cpc", "email", "social", "display", "referral")
EMAIL_CORP_DOMAINS = (
    "acme-corp.com", "contoso.com", "northwind.io", "globex.com", "initech.io", "example.com",
    "vandelay.org", "hooli.com",
)
EMAIL_FREE_DOMAINS = ("gmail.com", "yahoo.com", "outlook.com", "hotmail.com", "icloud.com", "proton.me")
HOST_ROLES = ("web", "api", "db", "cache", "worker", "batch", "kafka", "es", "lb", "app", "etl", "auth")
HOST_ENVS = ("prod", "staging", "dev", "qa")
HOST_DOMAINS = ("internal", "corp.example.com", "svc.cluster.local", "ec2.internal", "dc1.acme.net")
MIME_TYPES = (
    "application/json", "text/html", "text/csv", "application/pdf", "image/png", "image/jpeg",
    "application/octet-stream", "application/zip", "text/plain", "application/xml", "image/gif",
    "video/mp4", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    "application/x-ndjson", "image/svg+xml",
)
USER_AGENTS = (
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) "
    "Chrome/120.0.0.0 Safari/537.36",
    "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) "
    "Version/17.1 Safari/605.1.15",
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) "
    "Version/17.1 Mobile/15E148 Safari/604.1",
    "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) "
    "Chrome/119.0.6045.163 Mobile Safari/537.36",
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:121.0) Gecko/20100101 Firefox/121.0",
    "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/118.0.0.0 "
    "Safari/537.36",
    "curl/8.4.0",
    "python-requests/2.31.0",
    "Googlebot/2.1 (+http://www.google.com/bot.html)",
    "okhttp/4.12.0",
    "PostmanRuntime/7.36.0",
    "Apache-HttpClient/4.5.14 (Java/17.0.9)",
)
CLOUD_REGIONS = {
    "aws": ("us-east-1", "us-east-2", "us-west-1", "us-west-2", "eu-west-1", "eu-west-2", "eu-central-1",
            "ap-southeast-1", "ap-southeast-2", "ap-northeast-1", "sa-east-1", "ca-central-1"),
    "gcp": ("us-central1", "us-east4", "europe-west1", "europe-west4", "asia-east1", "asia-south1",
            "australia-southeast1"),
    "azure": ("eastus", "eastus2", "westus2", "westeurope", "northeurope", "southeastasia", "japaneast"),
}
HTTP_METHODS = ("GET", "POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS")
HTTP_METHOD_WEIGHTS = (70, 18, 5, 3, 2, 1.5, 0.5)
HTTP_STATUSES = ("200", "201", "204", "301", "302", "304", "400", "401", "403", "404", "409", "429",
                 "500", "502", "503")
HTTP_STATUS_WEIGHTS = (70, 4, 3, 1.5, 3, 4, 2, 2, 1, 5, 0.5, 1, 1.5, 0.7, 0.8)
LOG_LEVELS = {
    "short": ("DEBUG", "INFO", "WARN", "ERROR", "FATAL"),
    "python": ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"),
    "lower": ("debug", "info", "warn", "error", "trace"),
}
LOG_LEVEL_WEIGHTS = (15, 65, 12, 7, 1)
WELL_KNOWN_PORTS = (443, 80, 22, 53, 8080, 3306, 5432, 6379, 9092, 25, 123, 8443, 9200, 27017)


def _ascii(text: str) -> str:
    """Lowercase ASCII fold for e-mail local parts (``Müller`` -> ``muller``, ``O'Brien`` -> ``obrien``)."""
    folded = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    return "".join(ch for ch in folded.lower() if ch.isalnum())


FIRST_ASCII = tuple(_ascii(n) for n in FIRST_NAMES)
LAST_ASCII = tuple(_ascii(n) for n in LAST_NAMES)

# --------------------------------------------------------------------------------------------------
# Generation context and helpers
# --------------------------------------------------------------------------------------------------


@dataclass
class Ctx:
    """Random sources for the cells of one table; ``sequential`` marks the table's key column."""

    rng: np.random.Generator
    r: random.Random
    sequential: bool = False

    def pick(self, pool: Sequence[str], n: int, skew: float = 1.0) -> list[str]:
        """``n`` draws from ``pool`` with a Zipf-like skew and a per-column random popularity order."""
        order = self.rng.permutation(len(pool))
        weights = 1.0 / np.arange(1, len(pool) + 1) ** skew
        idx = order[self.rng.choice(len(pool), size=n, p=weights / weights.sum())]
        return [pool[i] for i in idx.tolist()]

    def weighted(self, pool: Sequence[str], weights: Sequence[float], n: int) -> list[str]:
        """``n`` draws from ``pool`` with fixed weights (e.g. HTTP 200 dominates)."""
        w = np.asarray(weights, dtype=float)
        idx = self.rng.choice(len(pool), size=n, p=w / w.sum())
        return [pool[i] for i in idx.tolist()]

    def subset(self, pool: Sequence[str], lo: int, hi: int) -> list[str]:
        """A per-column random subset of ``pool`` (size between ``lo`` and ``hi``)."""
        return self.r.sample(list(pool), min(len(pool), self.r.randint(lo, hi)))

    def ids(self, lo: int, hi: int, n: int) -> np.ndarray:
        """Integer identifiers in ``[lo, hi)``; ascending and unique-ish for key columns."""
        if self.sequential:
            steps = self.rng.integers(1, 4, n)
            start = self.rng.integers(lo, max(lo + 1, hi - int(steps.sum()) - 1))
            return start + np.cumsum(steps)
        return self.rng.integers(lo, hi, n)


def _hex_strings(g: Ctx, n: int, nchars: int) -> list[str]:
    nbytes = (nchars + 1) // 2
    blob = g.rng.bytes(n * nbytes).hex()
    step = 2 * nbytes
    return [blob[i : i + nchars] for i in range(0, n * step, step)]


def _epochs(g: Ctx, n: int) -> np.ndarray:
    """Epoch seconds inside a per-column window somewhere in 2018-2024; sometimes sorted (log order)."""
    span = g.r.choice((86_400, 7 * 86_400, 30 * 86_400, 365 * 86_400, TS_MAX - TS_MIN))
    start = g.r.randint(TS_MIN, TS_MAX - span)
    ep = g.rng.integers(start, start + span, n, dtype=np.int64)
    if g.sequential or g.r.random() < 0.25:
        ep.sort()
    return ep


def _split_epochs(ep: np.ndarray) -> tuple[list[int], ...]:
    """Vectorised calendar split: (year, month, day, hour, minute, second, weekday Mon=0)."""
    days = ep // 86_400
    day = days.astype("datetime64[D]")
    month = day.astype("datetime64[M]")
    years = month.astype("datetime64[Y]").astype(np.int64) + 1970
    months = month.astype(np.int64) % 12 + 1
    mdays = (day - month).astype(np.int64) + 1
    sod = ep % 86_400
    return (years.tolist(), months.tolist(), mdays.tolist(), (sod // 3600).tolist(),
            (sod // 60 % 60).tolist(), (sod % 60).tolist(), ((days + 3) % 7).tolist())


def _lognormal(g: Ctx, n: int, median_lo: float, median_hi: float, sigma: float = 1.0) -> np.ndarray:
    median = float(np.exp(g.r.uniform(np.log(median_lo), np.log(median_hi))))
    return g.rng.lognormal(np.log(median), sigma, n)


def _fmt_floats(values: np.ndarray, spec: str) -> list[str]:
    fmt = ("{:" + spec + "}").format
    return [fmt(v) for v in values.tolist()]


# --------------------------------------------------------------------------------------------------
# Domain registry
# --------------------------------------------------------------------------------------------------

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


# ---- time -------------------------------------------------------------------------------------------

TIMESTAMP_VARIANTS = ("iso_z", "iso_ms_z", "iso_space", "us_ampm", "us_24", "epoch_s", "epoch_ms",
                      "apache", "rfc1123")


@domain("timestamp", MACHINE, TIMESTAMP_VARIANTS)
def gen_timestamp(g: Ctx, n: int, variant: str) -> list[str]:
    ep = _epochs(g, n)
    if variant == "epoch_s":
        return [str(v) for v in ep.tolist()]
    if variant in ("epoch_ms", "iso_ms_z"):
        ms = g.rng.integers(0, 1000, n)
        if variant == "epoch_ms":
            return [str(v) for v in (ep * 1000 + ms).tolist()]
        y, mo, d, h, mi, s, _ = _split_epochs(ep)
        return [f"{a:04d}-{b:02d}-{c:02d}T{e:02d}:{f:02d}:{x:02d}.{z:03d}Z"
                for a, b, c, e, f, x, z in zip(y, mo, d, h, mi, s, ms.tolist(), strict=True)]
    tz = g.r.choice(("+0000", "+0000", "-0500", "-0800", "+0100", "+0530"))
    if variant == "apache" and tz != "+0000":
        sign = 1 if tz[0] == "+" else -1
        ep = ep + sign * (int(tz[1:3]) * 3600 + int(tz[3:]) * 60)
    y, mo, d, h, mi, s, wd = _split_epochs(ep)
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
    y, mo, d, *_ = _split_epochs(_epochs(g, n))
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
    secs = np.clip(_lognormal(g, n, 20, 3600), 1, 359_999).astype(np.int64)
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
    nics = _hex_strings(g, n, 6)
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
    hexes = _hex_strings(g, n, 8)
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
    return _hex_strings(g, n, 32)


@domain("sha1", MACHINE)
def gen_sha1(g: Ctx, n: int, variant: str) -> list[str]:
    return _hex_strings(g, n, 40)


@domain("sha256", MACHINE)
def gen_sha256(g: Ctx, n: int, variant: str) -> list[str]:
    return _hex_strings(g, n, 64)


@domain("git_sha", MACHINE)
def gen_git_sha(g: Ctx, n: int, variant: str) -> list[str]:
    return _hex_strings(g, n, 7)


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
    amounts = _lognormal(g, n, 5, 2_000, sigma=g.r.uniform(0.6, 1.4))
    if variant == "plain":
        return _fmt_floats(amounts, ".2f")
    if variant == "dollar":
        return ["$" + s for s in _fmt_floats(amounts, ",.2f")]
    codes = g.pick(g.subset(("EUR", "USD", "GBP", "JPY", "CHF", "CAD", "AUD"), 1, 3), n)
    return [f"{c} {a}" for c, a in zip(codes, _fmt_floats(amounts, ".2f"), strict=True)]


@domain("price", MACHINE)
def gen_price(g: Ctx, n: int, variant: str) -> list[str]:
    base = np.floor(_lognormal(g, n, 3, 300, sigma=0.9))
    cents = np.array([0.99, 0.99, 0.49, 0.95, 0.0, 0.5])[g.rng.integers(0, 6, n)]
    return _fmt_floats(base + cents, ".2f")


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
        y, mo, d, *_ = _split_epochs(_epochs(g, n))
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
    y, mo, *_ = _split_epochs(_epochs(g, n))
    keys = _hex_strings(g, n, 12)
    return [f"s3://{bucket}/{prefix}/{a:04d}/{b:02d}/{k}.{ext}" for a, b, k in zip(y, mo, keys, strict=True)]


@domain("mime_type", MACHINE)
def gen_mime_type(g: Ctx, n: int, variant: str) -> list[str]:
    return g.pick(g.subset(MIME_TYPES, 2, len(MIME_TYPES)), n, skew=1.3)


# ---- natural language -----------------------------------------------------------------------------------


@domain("person_name", NATURAL, ("first_last", "last_comma_first"))
def gen_person_name(g: Ctx, n: int, variant: str) -> list[str]:
    r = g.r
    out = []
    for _ in range(n):
        first, last = r.choice(FIRST_NAMES), r.choice(LAST_NAMES)
        if variant == "last_comma_first":
            out.append(f"{last}, {first}")
        elif r.random() < 0.1:
            out.append(f"{first} {r.choice('ABCDEFGHJKLMNPRSTW')}. {last}")
        else:
            out.append(f"{first} {last}")
    return out


@domain("company_name", NATURAL)
def gen_company_name(g: Ctx, n: int, variant: str) -> list[str]:
    r = g.r
    out = []
    for _ in range(n):
        style = r.random()
        if style < 0.35:
            name = f"{r.choice(LAST_NAMES)} {r.choice(COMPANY_INDUSTRIES)} {r.choice(COMPANY_SUFFIXES)}"
        elif style < 0.55:
            name = f"{r.choice(LAST_NAMES)} & {r.choice(LAST_NAMES)}"
        elif style < 0.75:
            name = f"{r.choice(BRANDS)} {r.choice(COMPANY_INDUSTRIES)}"
        else:
            name = f"{r.choice(COMPANY_WORDS)} {r.choice(COMPANY_INDUSTRIES)} {r.choice(COMPANY_SUFFIXES)}"
        out.append(name.strip())
    return out


@domain("product_name", NATURAL)
def gen_product_name(g: Ctx, n: int, variant: str) -> list[str]:
    r = g.r
    out = []
    for _ in range(n):
        style = r.random()
        if style < 0.45:
            material = r.choice(PRODUCT_MATERIALS)
            out.append(f"{r.choice(PRODUCT_ADJECTIVES)} {material} {r.choice(PRODUCT_NOUNS)}")
        elif style < 0.8:
            model = r.choice((f"X{r.randint(1, 9)}00", f"Pro {r.randint(2, 5)}", f"M{r.randint(100, 999)}"))
            out.append(f"{r.choice(BRANDS)} {r.choice(PRODUCT_NOUNS)} {model}")
        else:
            size = r.choice(PRODUCT_SIZES)
            out.append(f"{r.choice(PRODUCT_ADJECTIVES)} {r.choice(PRODUCT_NOUNS)} ({size})")
    return out


@domain("free_text", NATURAL)
def gen_free_text(g: Ctx, n: int, variant: str) -> list[str]:
    """One or two sentences, 5-20 words in total, from a fixed word list."""
    r = g.r
    out = []
    for _ in range(n):
        words = r.choices(TEXT_WORDS, k=r.randint(5, 20))
        cut = r.randint(3, len(words) - 2) if len(words) >= 10 and r.random() < 0.3 else None
        if cut is not None:
            words[cut - 1] += "."
            words[cut] = words[cut].capitalize()
        elif len(words) > 7 and r.random() < 0.25:
            words[r.randint(2, len(words) - 3)] += ","
        words[0] = words[0].capitalize()
        out.append(" ".join(words) + r.choice(".....!?"))
    return out


@domain("street_address", NATURAL)
def gen_street_address(g: Ctx, n: int, variant: str) -> list[str]:
    r = g.r
    out = []
    for _ in range(n):
        line = f"{r.randint(1, 9999)} {r.choice(STREET_NAMES)} {r.choice(STREET_SUFFIXES)}"
        unit = r.random()
        if unit < 0.15:
            line += f" Apt {r.randint(1, 40)}{r.choice('ABCD')}"
        elif unit < 0.25:
            line += f" Suite {r.randint(100, 999)}"
        out.append(line)
    return out


@domain("city", NATURAL)
def gen_city(g: Ctx, n: int, variant: str) -> list[str]:
    return g.pick(CITIES, n, skew=0.8)


@domain("job_title", NATURAL)
def gen_job_title(g: Ctx, n: int, variant: str) -> list[str]:
    r = g.r
    out = []
    for _ in range(n):
        if r.random() < 0.1:
            out.append(f"{r.choice(('VP of', 'Director of', 'Head of'))} {r.choice(DEPARTMENTS)}")
        else:
            out.append(f"{r.choice(JOB_LEVELS)}{r.choice(JOB_ROLES)}")
    return out


# ---- numbers ---------------------------------------------------------------------------------------------


@domain("integer", NUMERIC, ("count", "quantity", "large"))
def gen_integer(g: Ctx, n: int, variant: str) -> list[str]:
    if variant == "count":
        values = g.rng.geometric(1.0 / g.r.uniform(1.5, 60), n) - 1
    elif variant == "quantity":
        values = 1 + g.rng.poisson(g.r.uniform(0.5, 12), n)
    else:
        values = _lognormal(g, n, 1e4, 1e8, sigma=1.5).astype(np.int64)
    return [str(v) for v in values.tolist()]


@domain("float", NUMERIC, ("1dp", "2dp", "3dp", "4dp"))
def gen_float(g: Ctx, n: int, variant: str) -> list[str]:
    values = _lognormal(g, n, 0.05, 500, sigma=g.r.uniform(0.2, 1.0))
    return _fmt_floats(values, f".{variant[0]}f")


@domain("percentage", NUMERIC, ("0dp", "1dp", "2dp"))
def gen_percentage(g: Ctx, n: int, variant: str) -> list[str]:
    a, b = g.r.uniform(0.5, 5), g.r.uniform(0.5, 5)
    return [s + "%" for s in _fmt_floats(g.rng.beta(a, b, n) * 100, f".{variant[0]}f")]


@domain("scientific", NUMERIC, ("1dp", "2dp", "3dp"))
def gen_scientific(g: Ctx, n: int, variant: str) -> list[str]:
    center = g.r.uniform(-9, -1)
    values = 10 ** g.rng.normal(center, 1.0, n)
    return _fmt_floats(values, f".{variant[0]}e")


@domain("signed_number", NUMERIC, ("int", "2dp"))
def gen_signed_number(g: Ctx, n: int, variant: str) -> list[str]:
    scale = float(np.exp(g.r.uniform(np.log(2), np.log(5000))))
    values = g.rng.normal(g.r.uniform(-0.5, 0.5) * scale, scale, n)
    if variant == "int":
        return [str(v) for v in np.round(values).astype(np.int64).tolist()]
    return _fmt_floats(values, ".2f")


@domain("geo_coordinate", NUMERIC, ("lat", "lon"))
def gen_geo_coordinate(g: Ctx, n: int, variant: str) -> list[str]:
    centers = g.r.sample(GEO_CENTERS, g.r.randint(1, 5))
    axis = 0 if variant == "lat" else 1
    base = np.array([c[axis] for c in centers])[g.rng.integers(0, len(centers), n)]
    values = base + g.rng.normal(0, 0.3, n)
    return _fmt_floats(values, f".{g.r.choice((4, 5, 6, 6))}f")


# --------------------------------------------------------------------------------------------------
# Composite columns
# --------------------------------------------------------------------------------------------------

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

# --------------------------------------------------------------------------------------------------
# Themes: which columns a table of each kind may have
# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ColSpec:
    name: str
    domain: str
    variant: str | None

    @property
    def kind(self) -> str:
        return COMPOSITE if self.domain == COMPOSITE else DOMAINS[self.domain].kind


def _specs(text: str) -> tuple[ColSpec, ...]:
    """Parse ``name:domain[:variant]`` tokens separated by whitespace."""
    out = []
    for token in text.split():
        name, dom, *rest = token.split(":")
        out.append(ColSpec(name, dom, rest[0] if rest else None))
    return tuple(out)


@dataclass(frozen=True)
class Theme:
    name: str
    stems: tuple[str, ...]
    key: ColSpec
    columns: tuple[ColSpec, ...]


def _theme(name: str, stems: str, key: str, columns: str) -> Theme:
    return Theme(name, tuple(stems.split()), _specs(key)[0], _specs(columns))


GENERIC_COLUMNS = _specs("""
    created_at:timestamp updated_at:timestamp ingested_at:timestamp load_date:date record_uuid:uuid
    etl_batch_id:underscore_id:batch is_deleted:boolean row_md5:md5 source_system:status:source_lower
    source_host:hostname notes:free_text comments:free_text record_version:integer:count
    legacy_key:composite:random
""")

THEMES: dict[str, Theme] = {t.name: t for t in (
    _theme("orders", "sales_orders orders order_lines ecommerce_orders", "order_id:prefixed_id:ORD", """
        customer_id:prefixed_id:CUST customer_ref:underscore_id:cust order_ts:timestamp order_date:date
        ship_date:date order_status:status:order_camel sku:prefixed_id:SKU product_code:alnum_code
        quantity:integer:quantity unit_price:price amount:currency_amount total_amount:currency_amount
        discount_pct:percentage tax_rate:percentage currency:currency_code country:country_alpha2
        ship_state:us_state ship_zip:zip_code shipping_address:street_address ship_city:city
        customer_name:person_name customer_email:email product_name:product_name gift_message:free_text
        channel:status:channel_lower is_gift:boolean promo_code:alnum_code locale:locale weight_kg:float
        order_ref:composite:order_ref legacy_order_record:composite:booking_record
    """),
    _theme("web_sessions", "web_sessions clickstream_events page_views", "session_id:uuid", """
        user_id:underscore_id:usr client_ip:ipv4 client_ipv6:ipv6 event_time:timestamp request_ts:timestamp
        page_url:url referrer_url:url user_agent:user_agent locale:locale accept_language:language_code
        country_code:country_alpha2 http_method:http_method status_code:http_status duration:duration
        response_ms:integer:count bytes_sent:integer:large device_mac:mac is_bot:boolean
        session_start:time_of_day search_query:free_text visitor_email:email city:city
        latitude:geo_coordinate:lat longitude:geo_coordinate:lon bounce_rate:percentage content_type:mime_type
        server_host:hostname server_port:port remote_addr:composite:endpoint session_key:composite:session_key
        page_title:product_name referrer_company:company_name
    """),
    _theme("devices", "devices iot_devices device_inventory fleet_assets", "device_id:prefixed_id:DEV", """
        serial_number:alnum_code device_mac:mac wifi_mac:mac mgmt_ip:ipv4 ipv6_address:ipv6 hostname:hostname
        firmware_version:version os_version:version last_seen_at:timestamp registered_at:timestamp
        install_date:date device_status:status:device_lower owner_email:email owner_name:person_name
        site_city:city site_address:street_address region:cloud_region battery_pct:percentage
        temperature_c:float drift_ppm:scientific uptime:duration is_managed:boolean config_sha1:sha1
        model_name:product_name vendor:company_name latitude:geo_coordinate:lat longitude:geo_coordinate:lon
        mgmt_port:port asset_tag:prefixed_id:AST notes:free_text mgmt_endpoint:composite:endpoint
        firmware_commit:git_sha log_level:log_level firmware_sha256:sha256
    """),
    _theme("customers", "customers crm_contacts customer_profiles accounts",
           "customer_id:prefixed_id:CUST", """
        account_ref:underscore_id:acct full_name:person_name email:email phone:phone mobile_phone:phone
        street_address:street_address city:city state:us_state zip:zip_code country:country_alpha2
        country_iso3:country_alpha3 preferred_locale:locale language:language_code
        account_status:status:account_upper tier:status:tier_title signup_date:date last_login_at:timestamp
        birth_date:date company:company_name job_title:job_title lifetime_value:currency_amount
        credit_limit:currency_amount marketing_opt_in:boolean is_vip:boolean customer_uuid:uuid
        referral_code:alnum_code churn_score:float home_currency:currency_code card_on_file:masked_card
        customer_key:composite:customer_ref geo_key:composite:geo_key
    """),
    _theme("payments", "payments card_transactions refunds payment_events", "payment_id:prefixed_id:PAY", """
        transaction_uuid:uuid order_id:prefixed_id:ORD invoice_id:prefixed_id:INV
        customer_id:underscore_id:cust amount:currency_amount fee_amount:currency_amount
        net_amount:signed_number currency:currency_code payment_status:status:payment_lower
        card_number:masked_card card_country:country_alpha2 billing_country:country_alpha3
        billing_zip:zip_code authorized_at:timestamp settled_at:timestamp settlement_date:date
        processor_ref:alnum_code client_ip:ipv4 is_3ds:boolean risk_score:float fx_rate:float
        gateway_host:hostname idempotency_key:uuid statement_descriptor:company_name decline_reason:free_text
        cardholder_name:person_name payload_md5:md5 payment_ref:composite:order_ref
    """),
    _theme("releases", "releases build_artifacts deployments ci_builds", "release_id:numeric_id", """
        version:version previous_version:version git_sha:git_sha commit_sha:sha1 artifact_sha256:sha256
        artifact_md5:md5 artifact_path:file_path artifact_url:url built_at:timestamp deployed_at:timestamp
        release_date:date build_duration:duration release_status:status:release_lower
        job_status:status:job_upper author_email:email author_name:person_name release_notes:free_text
        target_host:hostname target_region:cloud_region is_hotfix:boolean artifact_size:integer:large
        test_pass_rate:percentage flake_rate:scientific content_type:mime_type pipeline_id:underscore_id:run
        coverage:float build_tag:composite:build_tag service_port:port approver_name:person_name
        log_level:log_level healthcheck_status:http_status
    """),
    _theme("audit_log", "audit_log access_log security_events auth_events", "event_id:uuid", """
        event_time:timestamp logged_at:timestamp actor_email:email actor_id:underscore_id:usr
        actor_name:person_name actor_title:job_title source_ip:ipv4 source_ipv6:ipv6 source_port:port
        http_method:http_method request_url:url response_status:http_status log_level:log_level
        action:status:audit_upper resource_id:prefixed_id user_agent:user_agent session_id:uuid
        mfa_used:boolean device_mac:mac request_guid:uuid:guid message:free_text geo_country:country_alpha2
        target_host:hostname payload_sha256:sha256 elapsed:duration apache_ts:timestamp:apache locale:locale
        client_endpoint:composite:endpoint cert_sha1:sha1
    """),
    _theme("inventory", "inventory stock_levels warehouse_items", "sku:prefixed_id:SKU", """
        product_name:product_name product_code:alnum_code barcode:numeric_id warehouse_code:prefixed_id:WH
        bin_location:alnum_code quantity_on_hand:integer:quantity reorder_level:integer:count unit_cost:price
        list_price:price inventory_value:currency_amount currency:currency_code supplier:company_name
        supplier_country:country_alpha3 last_counted_at:timestamp received_date:date expiry_date:date
        is_active:boolean item_status:status:account_upper category:status:category_title weight_kg:float
        shrinkage_pct:percentage warehouse_city:city warehouse_address:street_address notes:free_text
        po_number:prefixed_id:PO stock_key:composite:random
    """),
    _theme("shipments", "shipments delivery_tracking carrier_events", "shipment_id:prefixed_id:SHP", """
        tracking_number:alnum_code order_id:prefixed_id:ORD carrier:status:carrier_upper shipped_at:timestamp
        delivered_at:timestamp estimated_delivery:date ship_date:date shipment_status:status:shipment_camel
        origin_country:country_alpha2 destination_country:country_alpha3 dest_state:us_state dest_zip:zip_code
        dest_city:city dest_address:street_address recipient_name:person_name recipient_phone:phone
        weight_kg:float package_count:integer:count shipping_cost:currency_amount transit_time:duration
        label_url:url signature_required:boolean delivery_notes:free_text scan_time:time_of_day
        latitude:geo_coordinate:lat longitude:geo_coordinate:lon geo_key:composite:geo_key
    """),
    _theme("support_tickets", "support_tickets helpdesk_cases zendesk_tickets",
           "ticket_id:prefixed_id:TKT", """
        customer_id:prefixed_id:CUST requester_email:email requester_name:person_name requester_phone:phone
        assignee:person_name assignee_title:job_title assignee_email:email subject:free_text
        description:free_text status:status:ticket_upper priority:status:severity_upper
        channel:status:channel_lower opened_at:timestamp resolved_at:timestamp first_response_time:duration
        due_date:date satisfaction_score:integer:count product_name:product_name company:company_name
        locale:locale language:language_code is_escalated:boolean attachment_mime:mime_type
        attachment_path:file_path client_ip:ipv4 user_agent:user_agent app_version:version
        sla_breach_pct:percentage country:country_alpha2 ticket_ref:composite:random build_sha:git_sha
        attachment_sha256:sha256
    """),
    _theme("employees", "employees hr_directory workforce", "employee_id:prefixed_id:EMP", """
        full_name:person_name work_email:email personal_email:email work_phone:phone job_title:job_title
        department:status:department_title manager_name:person_name manager_id:prefixed_id:EMP hire_date:date
        termination_date:date birth_date:date office_city:city office_address:street_address home_zip:zip_code
        state:us_state country:country_alpha2 salary:currency_amount bonus_pct:percentage
        employment_status:status:account_upper is_remote:boolean badge_code:alnum_code laptop_mac:mac
        preferred_locale:locale last_login_at:timestamp shift_start:time_of_day employee_uuid:uuid
        bio:free_text office_geo:composite:geo_key primary_language:language_code
    """),
    _theme("invoices", "invoices billing_invoices ar_ledger", "invoice_id:prefixed_id:INV", """
        customer_id:prefixed_id:CUST po_number:prefixed_id:PO bill_to_company:company_name
        bill_to_name:person_name bill_to_address:street_address bill_to_city:city bill_to_state:us_state
        bill_to_zip:zip_code bill_to_country:country_alpha3 invoice_date:date due_date:date
        issued_at:timestamp paid_at:timestamp subtotal:currency_amount tax_amount:currency_amount
        total_due:currency_amount balance:signed_number currency:currency_code tax_rate:percentage
        payment_terms:status:terms_upper invoice_status:status:payment_lower is_overdue:boolean memo:free_text
        pdf_url:url pdf_sha1:sha1 line_count:integer:count fx_rate:float payment_card:masked_card
        invoice_ref:composite:order_ref
    """),
    _theme("products", "products product_catalog catalog_items", "product_id:numeric_id", """
        sku:prefixed_id:SKU product_name:product_name brand:company_name category:status:category_title
        description:free_text list_price:price sale_price:price msrp:currency_amount currency:currency_code
        gtin:numeric_id model_number:alnum_code color:status:color_title weight_kg:float rating:float
        review_count:integer:count discount_pct:percentage launch_date:date image_url:url image_mime:mime_type
        image_md5:md5 origin_country:country_alpha2 catalog_locale:locale manufacturer:company_name
        firmware_version:version is_discontinued:boolean firmware_build:composite:build_tag
        content_language:language_code image_sha1:sha1
    """),
    _theme("network_flows", "network_flows firewall_logs dns_queries netflow_records",
           "flow_id:numeric_id", """
        src_ip:ipv4 dst_ip:ipv4 src_ipv6:ipv6 dst_ipv6:ipv6 src_port:port dst_port:port src_mac:mac
        dst_mac:mac protocol:status:protocol_upper action:status:fw_upper bytes_in:integer:large
        packets:integer:count start_time:timestamp end_time:timestamp duration:duration src_host:hostname
        dst_host:hostname geo_country:country_alpha2 sensor_region:cloud_region rule_id:prefixed_id:RULE
        threat_score:float packet_loss_pct:percentage jitter_ms:float log_level:log_level
        sample_rate:scientific delta_bytes:signed_number src_endpoint:composite:endpoint
        dst_endpoint:composite:host_port rule_description:free_text isp_name:company_name src_city:city
        http_method:http_method
    """),
    _theme("app_logs", "app_logs service_logs job_runs batch_jobs", "log_id:uuid", """
        log_ts:timestamp level:log_level message:free_text service_host:hostname pod_ip:ipv4 pod_ipv6:ipv6
        log_file:file_path output_path:file_path trace_id:md5 request_id:uuid job_status:status:job_upper
        duration:duration elapsed_ms:integer:count exit_code:integer:count cpu_pct:percentage
        memory_bytes:integer:large error_rate:scientific app_version:version commit:git_sha
        http_method:http_method http_status:http_status region:cloud_region started_at:timestamp run_date:date
        start_time:time_of_day retried:boolean listen_port:port environment:status:env_lower
        upstream:composite:host_port error_message:free_text owner_name:person_name client_agent:user_agent
    """),
    _theme("marketing", "campaigns email_sends ad_clicks", "campaign_id:prefixed_id:CMP", """
        subject_line:free_text recipient_email:email recipient_name:person_name sent_at:timestamp
        opened_at:timestamp clicked_url:url landing_page:url target_locale:locale
        target_language:language_code target_country:country_alpha2 channel:status:channel_lower
        budget:currency_amount cost_per_click:price ctr:percentage conversion_rate:percentage
        impressions:integer:large clicks:integer:count start_date:date end_date:date is_test:boolean
        advertiser:company_name client_ip:ipv4 user_agent:user_agent ad_group:alnum_code tracking_id:uuid
        creative_md5:md5 roi:signed_number locale_currency:composite:locale_currency
        landing_status:http_status
    """),
    _theme("bookings", "bookings hotel_reservations travel_bookings", "booking_id:prefixed_id:BK", """
        confirmation_code:alnum_code guest_name:person_name guest_email:email guest_phone:phone
        hotel_name:company_name hotel_city:city hotel_address:street_address check_in_date:date
        check_out_date:date booked_at:timestamp modified_at:timestamp booking_status:status:order_camel
        nightly_rate:price total_price:currency_amount currency:currency_code guest_country:country_alpha3
        guest_locale:locale room_count:integer:quantity special_requests:free_text is_refundable:boolean
        arrival_time:time_of_day channel:status:channel_lower occupancy_pct:percentage
        loyalty_id:underscore_id:loy card_last4:masked_card hotel_lat:geo_coordinate:lat
        hotel_lon:geo_coordinate:lon booking_record:composite:booking_record
        legacy_record:composite:booking_record guest_language:language_code
    """),
    _theme("purchase_orders", "purchase_orders vendor_invoices procurement", "po_number:prefixed_id:PO", """
        vendor_id:underscore_id:vnd vendor_name:company_name vendor_contact:person_name
        vendor_contact_title:job_title vendor_email:email vendor_phone:phone vendor_country:country_alpha2
        ship_to_address:street_address ship_to_city:city ship_to_state:us_state ship_to_zip:zip_code
        order_date:date expected_date:date approved_at:timestamp approver_id:prefixed_id:EMP
        line_item:product_name sku:prefixed_id:SKU quantity:integer:quantity unit_cost:price
        extended_cost:currency_amount currency:currency_code payment_terms:status:terms_upper
        po_status:status:account_upper is_approved:boolean tax_pct:percentage contract_ref:alnum_code
        attachment_path:file_path po_ref:composite:order_ref
    """),
    _theme("file_uploads", "file_uploads object_storage_inventory media_assets", "object_id:uuid", """
        object_key:file_path file_path:file_path mime_type:mime_type content_type:mime_type
        size_bytes:integer:large sha256:sha256 md5:md5 etag:md5 sha1:sha1 uploaded_at:timestamp
        last_modified:timestamp uploader_email:email uploader_ip:ipv4 bucket_region:cloud_region
        storage_host:hostname public_url:url is_public:boolean retention_days:integer:count
        scan_status:status:job_upper caption:free_text owner_name:person_name compression_ratio:float
        upload_duration:duration uploader_id:underscore_id:usr checksum_ref:composite:random
        last_http_status:http_status upload_method:http_method title:free_text uploader_agent:user_agent
    """),
    _theme("metrics", "server_metrics experiment_results kpi_daily", "metric_id:numeric_id", """
        host:hostname instance_ip:ipv4 metric_ts:timestamp sample_date:date cpu_util:percentage
        mem_util:percentage disk_free_pct:percentage load_avg:float latency_p99_ms:float error_rate:scientific
        p_value:scientific effect_size:signed_number delta:signed_number request_count:integer:large
        error_count:integer:count uptime:duration region:cloud_region agent_version:version
        variant_name:status:experiment_lower is_significant:boolean experiment_id:underscore_id:exp
        owner_email:email temperature_c:float throughput:float host_socket:composite:host_port
        annotation:free_text datacenter_city:city analyst_name:person_name log_level:log_level
        exporter_port:port
    """),
)}

# --------------------------------------------------------------------------------------------------
# Planning
# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ColumnPlan:
    """Ground truth of one column: where its values come from and which defects were injected."""

    name: str
    domain: str
    variant: str
    kind: str
    key: bool = False
    null_rate: float = 0.0
    special_tokens: tuple[str, ...] = ()
    special_rate: float = 0.0
    shape: str = "normal"  # "normal" | "constant" | "lowcard"
    parts: tuple[tuple[str, str], ...] = ()  # composites only
    sep: str = ""
    wrap: tuple[str, str] = ("", "")


@dataclass(frozen=True)
class TablePlan:
    index: int
    name: str
    theme: str
    fmt: str
    columns: tuple[ColumnPlan, ...]

    @property
    def file_name(self) -> str:
        return f"{self.name}.{self.fmt}"


@dataclass
class _Usage:
    """Global usage counters that steer column picks towards under-represented domains/variants."""

    domains: Counter[str] = field(default_factory=Counter)
    variants: Counter[tuple[str, str]] = field(default_factory=Counter)
    target: float = 0.0  # columns every domain should have by now

    def weight(self, spec: ColSpec, prior: float) -> float:
        """Pick weight of a candidate column (see BALANCE_FLOOR)."""
        lag = max(0.0, self.target - self.domains[spec.domain])
        w = prior * DOMAIN_PRIORS.get(spec.domain, 1.0) * (1.0 + lag) ** BALANCE_EXPONENT
        if spec.variant is not None:
            w *= 1.0 + max(0, VARIANT_FLOOR - self.variants[(spec.domain, spec.variant)])
        return w

    def pick_variant(self, r: random.Random, dom: str, options: Sequence[str]) -> str:
        weights = [1.0 / (1 + self.variants[(dom, v)]) for v in options]
        return r.choices(list(options), weights)[0]


def _shuffled_blocks(r: random.Random, items: Sequence[str], count: int) -> list[str]:
    """Round-robin-ish assignment: consecutive shuffled permutations of ``items``."""
    out: list[str] = []
    while len(out) < count:
        block = list(items)
        r.shuffle(block)
        out.extend(block)
    return out[:count]


def _plan_composite(r: random.Random, spec: ColSpec, usage: _Usage) -> ColumnPlan:
    template_name = spec.variant or r.choice(sorted(COMPOSITES))
    template = COMPOSITES[template_name]
    raw_parts: list[Part] = list(template.parts)
    if not raw_parts:
        raw_parts = [(d, None) for d in r.sample(RANDOM_PART_DOMAINS, r.randint(2, 4))]
    parts = tuple((d, v if v is not None else usage.pick_variant(r, d, DOMAINS[d].variants))
                  for d, v in raw_parts)
    wrap = template.wrap
    if template_name == "random" and r.random() < 0.15:
        wrap = r.choice((("[", "]"), ("(", ")"), ("{", "}")))
    return ColumnPlan(spec.name, COMPOSITE, template_name, COMPOSITE, parts=parts,
                      sep=r.choice(template.seps), wrap=wrap)


def _plan_column(r: random.Random, spec: ColSpec, usage: _Usage, key: bool) -> ColumnPlan:
    if spec.domain == COMPOSITE:
        col = _plan_composite(r, spec, usage)
    else:
        dom = DOMAINS[spec.domain]
        variant = spec.variant or usage.pick_variant(r, dom.name, dom.variants)
        col = ColumnPlan(spec.name, dom.name, variant, dom.kind, key=key)
    usage.domains[col.domain] += 1
    usage.variants[(col.domain, col.variant)] += 1
    if key:
        return col
    null_rate = round(r.uniform(*NULL_RATE), 3) if r.random() < P_NULLS else 0.0
    tokens: tuple[str, ...] = ()
    special_rate = 0.0
    if col.kind != NUMERIC and r.random() < P_SPECIALS:
        tokens = tuple(r.sample(SPECIAL_TOKENS, r.choice((1, 1, 2))))
        special_rate = round(r.uniform(*SPECIAL_RATE), 3)
    shape = "normal"
    if col.kind != COMPOSITE:
        roll = r.random()
        shape = "constant" if roll < P_CONSTANT else "lowcard" if roll < P_CONSTANT + P_LOWCARD else "normal"
    return ColumnPlan(col.name, col.domain, col.variant, col.kind, False, null_rate, tokens, special_rate,
                      shape, col.parts, col.sep, col.wrap)


def _plan_columns(r: random.Random, theme: Theme, usage: _Usage) -> tuple[ColumnPlan, ...]:
    target = r.randint(4, 12)
    pool: list[ColSpec] = []
    priors: dict[str, float] = {}
    for spec in theme.columns + GENERIC_COLUMNS:  # theme columns shadow generic ones of the same name
        if spec.name != theme.key.name and spec.name not in priors:
            pool.append(spec)
            priors[spec.name] = 1.0 if spec in theme.columns else GENERIC_WEIGHT
    chosen: list[ColSpec] = []
    taken = {theme.key.name}
    kinds, kind_weights = zip(*SLOT_KINDS, strict=True)
    while len(chosen) + 1 < target:
        kind = r.choices(kinds, kind_weights)[0]
        free = [s for s in pool if s.name not in taken]
        candidates = [s for s in free if s.kind == kind] or free
        if not candidates:
            break
        weights = [usage.weight(s, priors[s.name]) for s in candidates]
        spec = r.choices(candidates, weights)[0]
        taken.add(spec.name)
        chosen.append(spec)
        usage.domains[spec.domain] += 1  # provisional, so one table spreads over domains
    for spec in chosen:
        usage.domains[spec.domain] -= 1
    order = {s.name: i for i, s in enumerate(pool)}
    chosen.sort(key=lambda s: order[s.name])
    columns = [_plan_column(r, theme.key, usage, key=True)]
    columns += [_plan_column(r, spec, usage, key=False) for spec in chosen]
    return tuple(columns)


def check_registry() -> None:
    """Fail fast if a theme or composite names an unknown domain/variant, or a domain is unreachable."""
    specs = [s for t in THEMES.values() for s in (t.key, *t.columns)] + list(GENERIC_COLUMNS)
    for spec in specs:
        if spec.domain == COMPOSITE:
            if spec.variant not in COMPOSITES:
                raise ValueError(f"{spec.name}: unknown composite template {spec.variant!r}")
        elif spec.domain not in DOMAINS or spec.variant not in (None, *DOMAINS[spec.domain].variants):
            raise ValueError(f"{spec.name}: unknown domain/variant {spec.domain}/{spec.variant}")
    parts = [p for c in COMPOSITES.values() for p in c.parts] + [(d, None) for d in RANDOM_PART_DOMAINS]
    for dom, variant in parts:
        if dom not in DOMAINS or variant not in (None, *DOMAINS[dom].variants):
            raise ValueError(f"composite part: unknown domain/variant {dom}/{variant}")
    unreachable = set(DOMAINS) - {s.domain for s in specs}
    if unreachable:
        raise ValueError(f"domains without any column: {sorted(unreachable)}")


def plan_lake(tables: int, seed: int) -> list[TablePlan]:
    """The full lake layout (names, formats, columns, domains, variants, defects) for ``seed``."""
    check_registry()
    r = random.Random(seed)
    usage = _Usage()
    themes = _shuffled_blocks(r, list(THEMES), tables)
    formats = _shuffled_blocks(r, FORMATS, tables)
    stem_counts: Counter[str] = Counter()
    plans = []
    for index in range(tables):
        theme = THEMES[themes[index]]
        usage.target = BALANCE_FLOOR * min(1.0, (index + 1) / min(tables, FLOOR_TABLES))
        stem = r.choice(theme.stems)
        stem_counts[stem] += 1
        name = f"{stem}_{stem_counts[stem]:03d}"
        plans.append(TablePlan(index, name, theme.name, formats[index], _plan_columns(r, theme, usage)))
    return plans


# --------------------------------------------------------------------------------------------------
# Materialisation
# --------------------------------------------------------------------------------------------------


def _base_values(col: ColumnPlan, g: Ctx, n: int) -> list[str]:
    if col.domain != COMPOSITE:
        return DOMAINS[col.domain].fn(g, n, col.variant)
    pieces = [DOMAINS[d].fn(g, n, v) for d, v in col.parts]
    left, right = col.wrap
    return [left + col.sep.join(row) + right for row in zip(*pieces, strict=True)]


def _apply_shape(col: ColumnPlan, g: Ctx, values: list[str]) -> list[str]:
    if col.shape == "constant":
        return [values[0]] * len(values)
    if col.shape == "lowcard":
        distinct = list(dict.fromkeys(values))[: g.r.randint(2, 5)]
        return g.pick(distinct, len(values), skew=1.0)
    return values


def _apply_holes(col: ColumnPlan, g: Ctx, values: list[str]) -> list[str | None]:
    """Inject special tokens and nulls at disjoint random positions (at least one cell each)."""
    n = len(values)
    n_special = max(1, round(col.special_rate * n)) if col.special_tokens else 0
    n_null = max(1, round(col.null_rate * n)) if col.null_rate else 0
    if not (n_special or n_null):
        return list(values)
    n_special = min(n_special, n)
    n_null = min(n_null, n - n_special)
    positions = g.rng.permutation(n)[: n_special + n_null].tolist()
    out: list[str | None] = list(values)
    tokens = list(col.special_tokens)
    for pos in positions[:n_special]:
        out[pos] = g.r.choice(tokens)
    for pos in positions[n_special:]:
        out[pos] = None
    return out


def column_values(col: ColumnPlan, g: Ctx, n: int) -> list[str | None]:
    g.sequential = col.key
    values = _apply_shape(col, g, _base_values(col, g, n))
    return _apply_holes(col, g, values)


def table_data(plan: TablePlan, rows: int, seed: int) -> dict[str, list[str | None]]:
    """Cell values of one table, seeded by ``(seed, table index)`` only."""
    g = Ctx(np.random.default_rng([seed, plan.index]), random.Random(seed * 1_000_003 + plan.index))
    return {col.name: column_values(col, g, rows) for col in plan.columns}


# --------------------------------------------------------------------------------------------------
# Writers
# --------------------------------------------------------------------------------------------------


def _write_delimited(path: Path, data: dict[str, list[str | None]], delimiter: str) -> None:
    with path.open("w", encoding="utf-8", newline="") as fh:
        writer = csv.writer(fh, delimiter=delimiter, lineterminator="\n")
        writer.writerow(list(data))
        writer.writerows(zip(*data.values(), strict=True))  # None is written as an empty cell


def _write_parquet(path: Path, data: dict[str, list[str | None]]) -> None:
    table = pa.table({name: pa.array(values, type=pa.string()) for name, values in data.items()})
    pq.write_table(table, path, compression="zstd")


def _write_jsonl(path: Path, data: dict[str, list[str | None]]) -> None:
    names = list(data)
    dumps = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode
    with path.open("w", encoding="utf-8", newline="\n") as fh:
        fh.writelines(dumps(dict(zip(names, row, strict=True))) + "\n"
                      for row in zip(*data.values(), strict=True))


WRITERS: dict[str, Callable[[Path, dict[str, list[str | None]]], None]] = {
    "csv": lambda p, d: _write_delimited(p, d, ","),
    "tsv": lambda p, d: _write_delimited(p, d, "\t"),
    "parquet": _write_parquet,
    "jsonl": _write_jsonl,
}

# --------------------------------------------------------------------------------------------------
# Wide tables (--wide-share): composite grammars of sample_lake.wide
# --------------------------------------------------------------------------------------------------

WIDE_THEMES = {  # table stem -> its key column
    "events": "event_id:numeric_id",
    "api_calls": "call_id:prefixed_id:REQ",
    "telemetry": "reading_id:numeric_id",
    "file_index": "file_id:numeric_id",
    "audit_trail": "audit_id:uuid",
    "ledger_entries": "entry_id:prefixed_id:INV",
    "pipeline_runs": "run_id:underscore_id:run",
    "integration_messages": "message_id:uuid:upper",
}
WIDE_COLUMN_NAMES = {  # grammar kind -> snake_case names a lake would use for such a column
    "uuid": ("object_uuid", "trace_uuid", "instance_guid", "correlation_uuid"),
    "uuid-joined": ("correlation_key", "lineage_key", "ref_key", "composite_ref", "uuid_refs"),
    "iso-ts": ("event_ts", "received_at", "emitted_at", "processed_at", "observed_at"),
    "url": ("request_url", "callback_url", "resource_url", "source_url", "webhook_url"),
    "path/unc": ("object_path", "share_path", "source_file", "archive_path", "target_path"),
    "kv-list": ("tags", "labels", "attributes", "dimensions", "annotations"),
    "number-list": ("readings", "sample_vector", "histogram_bins", "offsets", "coefficients"),
    "other list": ("related_ids", "member_ids", "item_list", "hash_chain"),
    "bracketed record": ("raw_record", "legacy_record", "audit_tuple", "packed_row"),
    "other record": ("record_key", "composite_key", "trace_record", "payload_ref", "routing_key"),
}
WIDE_DOMAIN = "wide"  # ColumnPlan.domain of a grammar column; its variant is the grammar key
P_POOL = 0.7  # share of wide columns from the lake's grammar pool (the rest: plain wide pieces)
WIDE_INDEX_BASE = 1_000_000  # wide table i draws its cells from seeds (seed, WIDE_INDEX_BASE + i)
MAX_WIDE_SHARE = 0.6  # wide tables are ~80% wide values: a higher share needs an unbounded lake
TAU = 8  # the index's default token limit: values with more tokens are "wide"


@dataclass(frozen=True)
class WideTablePlan:
    """A wide table: a key column, then grammar columns (``grammars[i]`` is None for the key)."""

    index: int
    name: str
    theme: str
    fmt: str
    columns: tuple[ColumnPlan, ...]
    grammars: tuple[Grammar | None, ...]

    @property
    def file_name(self) -> str:
        return f"{self.name}.{self.fmt}"


def _wide_column_name(r: random.Random, kind: str, taken: set[str]) -> str:
    names = [n for n in WIDE_COLUMN_NAMES[kind] if n not in taken]
    name = r.choice(names) if names else next(f"{WIDE_COLUMN_NAMES[kind][0]}_{i}" for i in range(2, 99)
                                               if f"{WIDE_COLUMN_NAMES[kind][0]}_{i}" not in taken)
    taken.add(name)
    return name


def iter_wide_plans(seed: int) -> Iterator[WideTablePlan]:
    """Wide table plans in order; table i depends on ``seed`` only, not on the base lake's size."""
    r = random.Random(f"lakeindex/sample_lake/wide-tables/{seed}")
    pool = lake_grammars(seed)
    usage = _Usage()
    stems: Counter[str] = Counter()
    themes: list[str] = []
    formats: list[str] = []
    used = 0
    index = 0
    while True:
        themes = themes or _shuffled_blocks(r, list(WIDE_THEMES), len(WIDE_THEMES))
        formats = formats or _shuffled_blocks(r, FORMATS, len(FORMATS))
        theme, fmt = themes.pop(0), formats.pop(0)
        key = _plan_column(r, _specs(WIDE_THEMES[theme])[0], usage, key=True)
        columns, grammars, taken = [key], [None], {key.name}
        for _ in range(r.randint(3, 8)):
            if r.random() < P_POOL:
                grammar = pool[used % LAKE_POOL]
                used += 1
            else:
                grammar = r.choice(BASE_SINGLES)
            null_rate = round(r.uniform(*NULL_RATE), 3) if r.random() < P_NULLS else 0.0
            tokens: tuple[str, ...] = ()
            special_rate = 0.0
            if r.random() < P_SPECIALS:
                tokens = tuple(r.sample(SPECIAL_TOKENS, r.choice((1, 1, 2))))
                special_rate = round(r.uniform(*SPECIAL_RATE), 3)
            name = _wide_column_name(r, grammar.kind, taken)
            columns.append(ColumnPlan(name, WIDE_DOMAIN, grammar.key, COMPOSITE, False, null_rate, tokens,
                                      special_rate))
            grammars.append(grammar)
        stems[theme] += 1
        yield WideTablePlan(index, f"{theme}_wide_{stems[theme]:04d}", theme, fmt, tuple(columns), tuple(grammars))
        index += 1


def plan_wide_tables(seed: int, count: int) -> list[WideTablePlan]:
    """The first ``count`` wide tables of a lake generated with ``seed`` (see ``summary["wide"]["tables"]``)."""
    plans = iter_wide_plans(seed)
    return [next(plans) for _ in range(count)]


def wide_table_data(plan: WideTablePlan, rows: int, seed: int) -> dict[str, list[str | None]]:
    """Cell values of one wide table, seeded by ``(seed, WIDE_INDEX_BASE + table index)`` only."""
    index = WIDE_INDEX_BASE + plan.index
    g = Ctx(np.random.default_rng([seed, index]), random.Random(seed * 1_000_003 + index))
    out: dict[str, list[str | None]] = {}
    for col, grammar in zip(plan.columns, plan.grammars, strict=True):
        if grammar is None:
            out[col.name] = column_values(col, g, rows)
        else:
            g.sequential = False
            out[col.name] = _apply_holes(col, g, grammar.generate(rows, g.r))
    return out


def wide_answer_key(seed: int, count: int) -> dict[tuple[str, str], tuple[str, str]]:
    """Per column of the first ``count`` wide tables: (kind, domain); a grammar column's domain is its key.

    Same shape as ``bench/eval_quality.answer_key``: columns of one domain string cannot be told apart.
    """
    out = {}
    for t in plan_wide_tables(seed, count):
        for c in t.columns:
            domain = c.variant if c.domain == WIDE_DOMAIN else f"{c.domain}/{c.variant}/{c.parts}/{c.sep}/{c.wrap}"
            out[(t.name, c.name)] = (c.kind, domain)
    return out


class _WideCounter:
    """Counts non-null values and values wider than TAU tokens (as the index tokenizes them)."""

    def __init__(self) -> None:
        from lakeindex.patterns.tokens import analyze

        self.analyze = analyze
        self.values = 0
        self.wide = 0

    def add(self, data: dict[str, list[str | None]]) -> tuple[int, int]:
        values = wide = 0
        for column in data.values():
            counts = Counter(v for v in column if v is not None)
            values += sum(counts.values())
            wide += sum(n for v, n in counts.items() if self.analyze(v).ntokens > TAU)
        self.values += values
        self.wide += wide
        return values, wide


def _add_wide_tables(out_dir: Path, rows: int, seed: int, share: float, lake: _WideCounter) -> dict:
    """Write wide tables until their wide values are ``share`` of all the lake's values."""
    formats: Counter[str] = Counter()
    kinds: Counter[str] = Counter()
    domains: Counter[str] = Counter()
    structures: Counter[str] = Counter()
    grammars: set[str] = set()
    values = wide = columns = total_bytes = tables = 0
    plans = iter_wide_plans(seed)
    while wide < share * lake.values:
        plan = next(plans)
        data = wide_table_data(plan, rows, seed)
        path = out_dir / plan.file_name
        WRITERS[plan.fmt](path, data)
        v, w = lake.add(data)
        values, wide, tables = values + v, wide + w, tables + 1
        total_bytes += path.stat().st_size
        formats[plan.fmt] += 1
        columns += len(plan.columns)
        kinds.update(col.kind for col in plan.columns)
        domains.update(col.domain for col in plan.columns)
        structures.update(g.kind for g in plan.grammars if g is not None)
        grammars.update(g.key for g in plan.grammars if g is not None)
    return {"share_target": share, "tables": tables, "columns": columns, "cells": columns * rows,
            "values": values, "wide_values": wide, "bytes": total_bytes,
            "formats": {fmt: formats[fmt] for fmt in FORMATS}, "kinds": dict(kinds), "domains": dict(domains),
            "structures": {k: structures[k] for k in KINDS if structures[k]}, "grammars": len(grammars)}


def _existing_data_files(out_dir: Path) -> list[Path]:
    return sorted(p for p in out_dir.iterdir() if p.is_file() and p.suffix in DATA_SUFFIXES)


def generate_lake(out_dir: Path, tables: int, rows: int, seed: int, *, force: bool = False,
                  wide_share: float = 0.0) -> dict:
    """Write the lake into ``out_dir`` and return the summary (also what the CLI prints).

    Refuses (``FileExistsError``) to write into a non-empty directory unless ``force``; with ``force``
    the previous ``*.csv/*.tsv/*.parquet/*.jsonl`` files are removed first. With ``wide_share`` F > 0,
    wide tables are added after the ``tables`` base tables until their values wider than 8 tokens are
    a fraction F of all values; the summary then counts the whole lake and has a ``wide`` section.
    """
    if tables < 1 or rows < 1:
        raise ValueError("tables and rows must be positive")
    if not 0.0 <= wide_share <= MAX_WIDE_SHARE:
        raise ValueError(f"wide share must be between 0 and {MAX_WIDE_SHARE}")
    out_dir = Path(out_dir)
    if out_dir.exists() and any(out_dir.iterdir()):
        if not force:
            raise FileExistsError(f"{out_dir} is not empty (use --force to overwrite)")
        for old in _existing_data_files(out_dir):
            old.unlink()
    out_dir.mkdir(parents=True, exist_ok=True)

    plans = plan_lake(tables, seed)
    formats: Counter[str] = Counter()
    kinds: Counter[str] = Counter()
    domains: Counter[str] = Counter()
    total_bytes = columns = 0
    lake = _WideCounter() if wide_share else None
    for plan in plans:
        path = out_dir / plan.file_name
        data = table_data(plan, rows, seed)
        WRITERS[plan.fmt](path, data)
        if lake is not None:
            lake.add(data)
        total_bytes += path.stat().st_size
        formats[plan.fmt] += 1
        columns += len(plan.columns)
        kinds.update(col.kind for col in plan.columns)
        domains.update(col.domain for col in plan.columns)
    summary = {
        "out": str(out_dir),
        "tables": tables,
        "rows": rows,
        "seed": seed,
        "columns": columns,
        "cells": columns * rows,
        "bytes": total_bytes,
        "formats": {fmt: formats[fmt] for fmt in FORMATS},
        "kinds": {kind: kinds[kind] for kind in (MACHINE, COMPOSITE, NATURAL, NUMERIC)},
        "domains": dict(sorted(domains.items())),
    }
    if lake is None:
        return summary
    base = {"tables": tables, "values": lake.values, "wide_values": lake.wide}
    wide = _add_wide_tables(out_dir, rows, seed, wide_share, lake)
    summary["tables"] = tables + wide["tables"]
    summary["columns"] += wide["columns"]
    summary["cells"] += wide["cells"]
    summary["bytes"] += wide["bytes"]
    summary["formats"] = {fmt: summary["formats"][fmt] + wide["formats"][fmt] for fmt in FORMATS}
    summary["kinds"] = {k: n + wide["kinds"].get(k, 0) for k, n in summary["kinds"].items()}
    summary["domains"] = dict(sorted((Counter(summary["domains"]) + Counter(wide["domains"])).items()))
    summary["values"] = lake.values
    summary["wide_values"] = lake.wide
    summary["wide_value_share"] = round(lake.wide / lake.values, 4)
    summary["base"] = {**base, "wide_value_share": round(base["wide_values"] / base["values"], 4)}
    summary["wide"] = {**wide, "wide_value_share_of_lake": round(wide["wide_values"] / lake.values, 4)}
    return summary


def _parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT,
                        help="output directory (default: sample_lake/tables next to this script)")
    parser.add_argument("--tables", type=int, default=DEFAULT_TABLES, help="number of tables")
    parser.add_argument("--rows", type=int, default=DEFAULT_ROWS, help="rows per table")
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED, help="random seed")
    parser.add_argument("--wide-share", type=float, default=0.0, metavar="F",
                        help="add wide tables (composite grammars, see sample_lake/wide.py) until their values "
                             "wider than 8 tokens are a fraction F of all values (default 0: none, the lake is "
                             f"unchanged; at most {MAX_WIDE_SHARE})")
    parser.add_argument("--force", action="store_true",
                        help="overwrite: delete existing *.csv/*.tsv/*.parquet/*.jsonl in --out first")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = _parse_args(argv)
    try:
        summary = generate_lake(args.out, args.tables, args.rows, args.seed, force=args.force,
                                wide_share=args.wide_share)
    except (FileExistsError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
