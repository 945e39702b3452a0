"""Reference data the domains sample from: names, places, products, codes, enums, hosts, agents.

Word lists and code tables only, no generators. Shared by the machine-generated domains (e-mail
local parts, URL and path words, status enums) and the natural-language ones (person and company
names, free text).
"""

from __future__ import annotations

import unicodedata

MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
WEEKDAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")

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
