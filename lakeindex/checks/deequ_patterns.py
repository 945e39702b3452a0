"""Deequ's ``Patterns``: the regular expressions behind contains_email, contains_url and their kin.

Copied character for character from Deequ's ``analyzers/PatternMatch.scala`` so a ported check matches the same
values. They are Java regexes (PatternMatch runs Spark's ``rlike``, a find, not a full match) and, as in Deequ,
case-sensitive: the e-mail pattern accepts lower-case letters only, so ``Ann@Example.com`` is not found.
"""

from __future__ import annotations

# http://emailregex.com (RFC 5322 without comments; quoted local parts and IP-literal domains included)
EMAIL = (r"""(?:[a-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[a-z0-9!#$%&'*+/=?^_`{|}~-]+)*|"(?:[\x01-\x08\x0b\x0c\x0e-\x1f"""
         r"""\x21\x23-\x5b\x5d-\x7f]|\\[\x01-\x09\x0b\x0c\x0e-\x7f])*")@(?:(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+"""
         r"""[a-z0-9](?:[a-z0-9-]*[a-z0-9])?|\[(?:(?:25[0-5]|2[0-4][0-9]|[01]?[0-9][0-9]?)\.){3}(?:25[0-5]|"""
         r"""2[0-4][0-9]|[01]?[0-9][0-9]?|[a-z0-9-]*[a-z0-9]:(?:[\x01-\x08\x0b\x0c\x0e-\x1f\x21-\x5a\x53-\x7f]|"""
         r"""\\[\x01-\x09\x0b\x0c\x0e-\x7f])+)\])""")

# https://mathiasbynens.be/demo/url-regex (stephenhay): http, https or ftp, then no whitespace
URL = r"(https?|ftp)://[^\s/$.?#].[^\s]*"

# area, group and serial not all zero, no 666 or 9xx area, two advertised numbers excluded; dashes, spaces or none
SOCIAL_SECURITY_NUMBER_US = (
    r"((?!219-09-9999|078-05-1120)(?!666|000|9\d{2})\d{3}-(?!00)\d{2}-(?!0{4})\d{4})|"
    r"((?!219 09 9999|078 05 1120)(?!666|000|9\d{2})\d{3} (?!00)\d{2} (?!0{4})\d{4})|"
    r"((?!219099999|078051120)(?!666|000|9\d{2})\d{3}(?!00)\d{2}(?!0{4})\d{4})")

# Visa, MasterCard, AMEX, Discover (http://www.richardsramblings.com/regex/credit-card-numbers/); no Luhn check
CREDITCARD = (r"\b(?:3[47]\d{2}([\ \-]?)\d{6}\1\d|(?:(?:4\d|5[1-5]|65)\d{2}|6011)([\ \-]?)\d{4}\2\d{4}\2)"
              r"\d{4}\b")
