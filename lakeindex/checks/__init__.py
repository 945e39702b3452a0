"""Declarative data-quality checks (Deequ's Check / VerificationSuite) over the shared-pass metrics."""

from lakeindex.checks.assertion import Assertion, parse_assertion
from lakeindex.checks.check import Check, CheckResult
from lakeindex.checks.checks_file import ChecksFileError, checks_from_dict, load_checks
from lakeindex.checks.constraint import ConstraintResult
from lakeindex.checks.verification import VerificationResult, VerificationSuite

__all__ = ["Assertion", "Check", "CheckResult", "ChecksFileError", "ConstraintResult", "VerificationResult",
           "VerificationSuite", "checks_from_dict", "load_checks", "parse_assertion"]
