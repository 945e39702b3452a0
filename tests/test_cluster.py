"""The README's cluster recipe on a real Spark standalone cluster (issue 16); opt-in: LAKEINDEX_CLUSTER_TESTS=1.

A master and two workers on 127.0.0.1 whose executors run a venv holding only ``executor-requirements.txt``
(no lakeindex, no pyspark), started with ``bench/cluster_build.py``'s helpers. The oracle is the local build of
the same lake. About 4 minutes on 2 cores (the executor venv is created once and cached under /tmp).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(os.environ.get("LAKEINDEX_CLUSTER_TESTS") != "1",
                                reason="starts a standalone Spark cluster: set LAKEINDEX_CLUSTER_TESTS=1")


@pytest.fixture(scope="module")
def setup(tmp_path_factory):
    """The package, the lakeindex-free executor venv, the local index of the sample lake and a running cluster."""
    from bench import cluster_build as cb

    work = tmp_path_factory.mktemp("cluster")
    pkg = cb.package(work / "dist")
    python, facts = cb.executor_venv(Path(pkg["executor_requirements"]))
    assert facts["imports"]["lakeindex"] is None
    local = cb.run_build(cb.local_cmd(cb.SAMPLE_LAKE, work / "index-local"), cb.base_env(), work / "index-local",
                         work)
    assert local["rc"] == 0, local["stderr"][-3000:]
    reference = cb.index_items(work / "index-local")
    assert reference
    with cb.StandaloneCluster(work / "cluster") as cluster:
        yield {"cb": cb, "work": work, "zip": Path(pkg["zip"]), "python": python, "reference": reference,
               "master": cluster.url}


def test_readme_recipe_on_cluster_builds_the_local_index(setup):
    """spark-submit --py-files lakeindex-0.1.0.zip, with the library's own shipping off: the executors, which
    cannot import lakeindex by themselves, build the same index as the local build, key by key."""
    cb, work = setup["cb"], setup["work"]
    out = work / "index-cluster"
    run = cb.run_build(cb.submit_cmd(setup["master"], setup["python"], setup["zip"], cb.SAMPLE_LAKE, out),
                       cb.submit_env(), out, work)
    assert run["rc"] == 0, run["stderr"][-3000:]
    assert run["meta"] and run["meta"]["build_seconds"] > 0
    comparison = cb.compare(setup["reference"], out)
    assert comparison["keys"] == len(setup["reference"])
    assert comparison["identical"], comparison


def test_wheel_on_py_files_fails_on_executors_without_lakeindex(setup):
    """The failure issue 16 reports: a wheel given to --py-files never reaches the executors' sys.path."""
    cb, work = setup["cb"], setup["work"]
    wheel = cb.build_wheel(work / "wheel")
    result = cb.wheel_variant(setup["master"], setup["python"], wheel, cb.SAMPLE_LAKE, work / "index-wheel", work)
    assert result["failed"], result
    assert result["module_not_found_lakeindex"], result
