"""gc_freeze: freezing happens once per full collection, and frozen solvers are still freed."""

from __future__ import annotations

import gc
import weakref

import pytest

from lakeindex.fmdv.infer import AutoValidator
from lakeindex.fmdv.search import SegmentSolver
from lakeindex.index.local_build import build_from_columns
from lakeindex.index.store import IndexReader
from lakeindex.runtime import gc_freeze


@pytest.fixture
def fresh_freeze_state(monkeypatch):
    monkeypatch.setattr(gc_freeze, "_frozen_after", -1)
    yield
    gc.unfreeze()


def test_freezes_once_per_full_collection(fresh_freeze_state):
    assert gc_freeze.freeze_survivors()  # the first call freezes (after a full collection of its own)
    frozen = gc.get_freeze_count()
    assert frozen > 0
    assert not gc_freeze.freeze_survivors()  # no full collection since: nothing to do
    gc.collect()
    assert gc_freeze.freeze_survivors()
    assert gc.get_freeze_count() >= frozen


def test_a_dropped_solver_is_freed_although_frozen(fresh_freeze_state, tmp_path):
    """Frozen objects are never traversed by the collector, so only reference counting can free them:
    a solver (and its caches) must hold no reference cycle, or every index swap would leak it."""
    cols = [[f"{i:04d}-{j:02d}" for j in range(30)] for i in range(20)]
    build_from_columns(cols, tmp_path / "ix", min_coverage=2)
    with IndexReader(tmp_path / "ix") as ix:
        solver = SegmentSolver(ix, freeze_gc=True)
        validator = AutoValidator(solver, m=2).fit([f"{k:04d}-{k % 60:02d}" for k in range(50)])
        assert validator.rule_.feasible
        assert gc.get_freeze_count() > 0  # fit froze the survivors
        probe = weakref.ref(solver)
        del solver, validator
        assert probe() is None
