"""Validation rules: what inference produces and validation consumes, as JSON."""

from __future__ import annotations

from collections import Counter
from dataclasses import asdict, dataclass, field

from lakeindex.patterns.pattern import compiled, compiled_linear, to_regex

METHODS = ("fmdv", "fmdv-v", "fmdv-h", "fmdv-vh")
VALIDATIONS = ("strict", "homogeneity")
# tests of a homogeneity rule's batch (``drift.validate``): the lake-informed Beta-binomial one, or the paper's
TESTS = ("betabinom", "fisher", "chi2")
DEFAULT_TEST = "betabinom"
# Counts a rule may carry: ten billion training values. Fisher's exact test takes ~0.1 s at this size and
# grows linearly beyond it (minutes at 10^13, overflow after), so larger counts are refused as input.
MAX_TRAIN_SIZE = 10**10


@dataclass
class Segment:
    """One vertical segment of a rule."""

    pattern: str
    fpr: float
    coverage: int
    literal: bool = False  # a delimiter validated literally, not from the index

    @property
    def regex(self) -> str:
        return to_regex(self.pattern)


@dataclass
class Rule:
    """A learned validation rule for one column (JSON via :meth:`to_dict` / :meth:`from_dict`).

    ``validation`` is ``strict`` (any non-conforming value fails, for FMDV and FMDV-V, which assume
    clean columns) or ``homogeneity`` (a test of the batch's non-conforming count, for the -H variants:
    one of ``TESTS``, see ``drift.py``).
    """

    method: str
    params: dict
    feasible: bool
    segments: list[Segment] = field(default_factory=list)
    train_size: int = 0
    train_nonconforming: int = 0
    index_version: str | None = None
    validation: str = "homogeneity"
    reason: str | None = None
    # a rule learned here is matched with Python's re; one read from outside (from_dict: a posted or loaded
    # rule) with RE2, in linear time, since its pattern may be built to backtrack for ever
    trusted: bool = field(default=True, compare=False, repr=False)

    @property
    def pattern(self) -> str | None:
        return "".join(s.pattern for s in self.segments) if self.feasible else None

    @property
    def regex(self) -> str | None:
        return to_regex(self.pattern) if self.feasible else None

    @property
    def fpr(self) -> float | None:
        return sum(s.fpr for s in self.segments) if self.feasible else None

    @property
    def coverage(self) -> int | None:
        """Smallest coverage of an indexed segment (literal delimiters have none)."""
        covs = [s.coverage for s in self.segments if not s.literal]
        return min(covs) if self.feasible and covs else None

    @property
    def train_nonconforming_fraction(self) -> float:
        """The paper's θ_C: the training column's fraction of non-conforming values (not FMDV-H's θ, the
        tolerance parameter, which is ``params["theta"]``)."""
        return self.train_nonconforming / self.train_size if self.train_size else 0.0

    def nonconforming(self, values: list[str]) -> Counter:
        """Non-empty values not matching the rule, with counts."""
        counts = Counter(v for v in values if v)
        if not self.feasible:
            return Counter()
        match = (compiled if self.trusted else compiled_linear)(self.pattern).fullmatch
        return Counter({v: n for v, n in counts.items() if match(v) is None})

    def to_dict(self) -> dict:
        out = {
            "method": self.method, "params": self.params, "feasible": self.feasible,
            "pattern": self.pattern, "regex": self.regex, "fpr": self.fpr, "coverage": self.coverage,
            "segments": [{**asdict(s), "regex": s.regex} for s in self.segments],
            "train_size": self.train_size, "train_nonconforming": self.train_nonconforming,
            "train_nonconforming_fraction": self.train_nonconforming_fraction, "index_version": self.index_version,
            "validation": self.validation,
        }
        if self.reason:
            out["reason"] = self.reason
        return out

    @classmethod
    def from_dict(cls, d: dict) -> Rule:
        """Parse a rule produced by :meth:`to_dict`; raise ValueError naming what is wrong.

        The rule is untrusted input: its pattern is matched with RE2 and its counts are bounded
        (0 <= train_nonconforming <= train_size <= ``MAX_TRAIN_SIZE``)."""
        try:
            if d["method"] not in METHODS:
                raise ValueError(f"unknown method {d['method']!r}; expected one of {', '.join(METHODS)}")
            segs = [Segment(s["pattern"], float(s["fpr"]), int(s["coverage"]), bool(s.get("literal", False)))
                    for s in d.get("segments", [])]
            for s in segs:
                to_regex(s.pattern)  # parses: rejects malformed patterns
                if not 0 <= s.fpr <= 1:  # also NaN; validation reads it as the lake's non-conforming rate
                    raise ValueError(f"segment {s.pattern!r}: fpr {s.fpr} out of range: expected 0 to 1")
            if d["feasible"] and not segs:
                raise ValueError("a feasible rule needs segments")
            size, bad = int(d.get("train_size", 0)), int(d.get("train_nonconforming", 0))
            if not 0 <= size <= MAX_TRAIN_SIZE:
                raise ValueError(f"train_size {size} out of range: expected 0 to {MAX_TRAIN_SIZE:,}")
            if not 0 <= bad <= size:
                raise ValueError(f"train_nonconforming {bad} out of range: expected 0 to train_size ({size})")
            validation = d.get("validation", "homogeneity")
            if validation not in VALIDATIONS:
                raise ValueError(f"unknown validation {validation!r}; expected one of {', '.join(VALIDATIONS)}")
            rule = cls(d["method"], dict(d.get("params", {})), bool(d["feasible"]), segs, size, bad,
                       d.get("index_version"), validation, d.get("reason"), trusted=False)
            if rule.feasible:
                compiled_linear(rule.pattern)  # refuses a pattern too large to match in linear time
            return rule
        except (KeyError, TypeError) as exc:
            raise ValueError(f"not a lakeindex rule: missing or bad field {exc}") from exc
