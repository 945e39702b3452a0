"""Validation rules: what inference produces and validation consumes, as JSON."""

from __future__ import annotations

from collections import Counter
from dataclasses import asdict, dataclass, field

from lakeindex.patterns.pattern import compiled, to_regex

METHODS = ("fmdv", "fmdv-v", "fmdv-h", "fmdv-vh")


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
    clean columns) or ``homogeneity`` (a two-sample test of the non-conforming fraction, §4, for
    the -H variants).
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
        match = compiled(self.pattern).fullmatch
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
        """Parse a rule produced by :meth:`to_dict`; raise ValueError naming what is wrong."""
        try:
            if d["method"] not in METHODS:
                raise ValueError(f"unknown method {d['method']!r}; expected one of {', '.join(METHODS)}")
            segs = [Segment(s["pattern"], float(s["fpr"]), int(s["coverage"]), bool(s.get("literal", False)))
                    for s in d.get("segments", [])]
            for s in segs:
                to_regex(s.pattern)  # parses: rejects malformed patterns
            if d["feasible"] and not segs:
                raise ValueError("a feasible rule needs segments")
            return cls(d["method"], dict(d.get("params", {})), bool(d["feasible"]), segs,
                       int(d.get("train_size", 0)), int(d.get("train_nonconforming", 0)), d.get("index_version"),
                       d.get("validation", "homogeneity"), d.get("reason"))
        except (KeyError, TypeError) as exc:
            raise ValueError(f"not a lakeindex rule: missing or bad field {exc}") from exc
