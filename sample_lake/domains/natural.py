"""Domains of natural-language values: person, company and product names, free text, addresses, cities, titles.

Registered in :data:`sample_lake.domains.DOMAINS` on import.
"""

from __future__ import annotations

from sample_lake.domains.registry import NATURAL, domain
from sample_lake.domains.vocabulary import (
    BRANDS,
    CITIES,
    COMPANY_INDUSTRIES,
    COMPANY_SUFFIXES,
    COMPANY_WORDS,
    DEPARTMENTS,
    FIRST_NAMES,
    JOB_LEVELS,
    JOB_ROLES,
    LAST_NAMES,
    PRODUCT_ADJECTIVES,
    PRODUCT_MATERIALS,
    PRODUCT_NOUNS,
    PRODUCT_SIZES,
    STREET_NAMES,
    STREET_SUFFIXES,
    TEXT_WORDS,
)
from sample_lake.sampling import Ctx


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
