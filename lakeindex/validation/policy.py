"""How each validate-batch signal may judge a batch: the clean history it needs first, and its severity.

A signal learned from a few batches has not seen the pipeline's normal variation (a weekly cycle needs a
week), so until the dataset has ``min_history`` clean batches it is *warming up*: it still runs and reports
what it found (``would_fail``), but it cannot flag the batch. ``severity`` ``error`` flags the batch when the
signal fails; ``warn`` reports the failure under ``warning_signals`` and the batch passes (exit 0) and is
recorded as accepted. Defaults come from ``bench/signal_warmup.py`` (BENCHMARKS.md, "False alarms while the
history is short"): the history length from which each learned signal's false-alarm rate on clean batches
is low. Declared checks and the schema signal learn nothing and need no history.

A policy file (``validate-batch --signals-config FILE``), YAML or JSON::

    signals:
      novelty: {severity: warn, min_history: 21}
      avh: {min_history: 7}
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any

SEVERITIES = ("error", "warn")


@dataclass(frozen=True)
class SignalPolicy:
    """``severity``: ``error`` (a failure flags the batch) or ``warn``; ``min_history``: clean batches needed
    before a failure counts."""

    severity: str = "error"
    min_history: int = 0

    def __post_init__(self) -> None:
        if self.severity not in SEVERITIES:
            raise PolicyError(f"severity {self.severity!r}: expected one of {', '.join(SEVERITIES)}")
        if not isinstance(self.min_history, int) or isinstance(self.min_history, bool) or self.min_history < 0:
            raise PolicyError(f"min_history {self.min_history!r}: expected a whole number >= 0")


class PolicyError(ValueError):
    """A malformed signals policy (file)."""


# Measured false-alarm rates on clean batches (bench/signal_warmup.py, 5 seeds x 40 daily batches of a
# trending pipeline with a weekly cycle; BENCHMARKS.md): AVH 46% with 3 clean batches, 10% with 6, 0.7% with 10
# and at most 1.1% from there on; kNN novelty 98% with 2, 34% with 6, still 10-16% with 8 to 21 and 3% with
# 28; schema 0 throughout. So AVH may flag from 10 clean batches on, and novelty, never near 1% within four
# weeks on such a pipeline, is a warning (from two weekly cycles on) unless a policy file makes it an error.
DEFAULT_POLICIES: dict[str, SignalPolicy] = {
    "schema": SignalPolicy("error", 0),
    "avh": SignalPolicy("error", 10),
    "novelty": SignalPolicy("warn", 14),
    "patterns": SignalPolicy("error", 1),  # learns from the latest clean batch's sample; not measured here
    "checks": SignalPolicy("error", 0),  # declared by the user: nothing to learn
}


def policies_from_dict(doc: Any, where: str = "signals policy") -> dict[str, SignalPolicy]:
    """The defaults, overridden by ``{"signals": {name: {"severity": ..., "min_history": ...}}}``."""
    if not isinstance(doc, dict) or set(doc) - {"signals"}:
        raise PolicyError(f"{where}: expected a mapping with one key 'signals' (got "
                          f"{sorted(doc) if isinstance(doc, dict) else type(doc).__name__})")
    given = doc.get("signals") or {}
    if not isinstance(given, dict):
        raise PolicyError(f"{where}: 'signals' must map signal names to settings")
    out = dict(DEFAULT_POLICIES)
    keys = [f.name for f in fields(SignalPolicy)]
    for name, settings in given.items():
        if name not in DEFAULT_POLICIES:
            raise PolicyError(f"{where}: unknown signal {name!r}; signals are {', '.join(DEFAULT_POLICIES)}")
        if not isinstance(settings, dict):
            raise PolicyError(f"{where}: signals.{name} must map settings ({', '.join(keys)}) to values")
        unknown = sorted(set(settings) - set(keys))
        if unknown:
            raise PolicyError(f"{where}: signals.{name}: unknown setting(s) {', '.join(unknown)}; valid: "
                              f"{', '.join(keys)}")
        try:
            out[name] = replace(DEFAULT_POLICIES[name], **settings)
        except PolicyError as exc:
            raise PolicyError(f"{where}: signals.{name}: {exc}") from exc
    return out


def load_policies(path: str | Path) -> dict[str, SignalPolicy]:
    """Policies from a YAML or JSON file (JSON is YAML), defaults for the signals it does not name."""
    import yaml

    try:
        doc = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    except yaml.YAMLError as exc:
        raise PolicyError(f"{path}: not valid YAML/JSON ({exc})") from exc
    return policies_from_dict(doc, str(path))
