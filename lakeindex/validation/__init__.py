"""Validation of a new batch against its dataset's history: signals behind one interface (see validator)."""

from lakeindex.validation.avh import AVHSignal
from lakeindex.validation.checks import ChecksSignal
from lakeindex.validation.novelty import NoveltySignal
from lakeindex.validation.patterns import PatternSignal
from lakeindex.validation.schema import SchemaSignal
from lakeindex.validation.signal import BatchUnderTest, Signal
from lakeindex.validation.validator import BatchValidator, NoCleanHistory

__all__ = ["AVHSignal", "BatchUnderTest", "BatchValidator", "ChecksSignal", "NoCleanHistory", "NoveltySignal",
           "PatternSignal", "SchemaSignal", "Signal"]
