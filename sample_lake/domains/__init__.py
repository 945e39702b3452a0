"""Named value domains: every column of the lake draws its values from one domain, in one variant.

:mod:`.registry` holds :data:`DOMAINS` and the ``@domain`` decorator. Importing this package registers
the domains of machine-generated values (:mod:`.machine`), natural-language values (:mod:`.natural`)
and numeric values (:mod:`.numeric`), in that order, so ``DOMAINS`` imported from here is complete.
:mod:`.vocabulary` holds the word lists and code tables they sample from.
"""

from sample_lake.domains import machine, natural, numeric  # noqa: F401  (registers the domains, in this order)
from sample_lake.domains.registry import COMPOSITE, DOMAINS, MACHINE, NATURAL, NUMERIC, Domain, DomainFn, domain

__all__ = ["COMPOSITE", "DOMAINS", "MACHINE", "NATURAL", "NUMERIC", "Domain", "DomainFn", "domain"]
