"""The compiled build (``LAKEINDEX_COMPILE=1``) gives the rules its Python sources give.

The oracle is the pure-Python package in this process. The compiled copy is built as ``pip install .``
builds it, through the build backend ``pyproject.toml`` declares (``build_backend/lakeindex_build.py``,
which adds mypy to the build's requirements and compiles the modules ``setup.py`` lists), into a
wheel that pip installs into a temporary directory; a subprocess imports it (checked: its inference
modules load as extension modules) and fits the same columns against the same index: lists of GUIDs,
records of timestamps, ids and paths, URLs with an optional query string, lists of signed numbers,
enums of joined words, dates. Skipped where mypyc or a C compiler is missing. The suite's other tests
run against the sources: several of them instrument the search (module constants patched, spies,
subclasses), which compiled modules do not allow.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from lakeindex.fmdv.infer import AutoValidator
from lakeindex.index.local_build import build_from_columns
from lakeindex.index.store import IndexReader

ROOT = Path(__file__).resolve().parents[1]

SOURCES = ("lakeindex", "build_backend")
PROJECT_FILES = ("setup.py", "pyproject.toml", "README.md", "MANIFEST.in")


def _project_copy(root: Path) -> Path:
    """What a build of the project reads, copied (a build writes ``build/`` and metadata beside it)."""
    for name in SOURCES:
        shutil.copytree(ROOT / name, root / name, ignore=shutil.ignore_patterns("__pycache__", "*.so"))
    for name in PROJECT_FILES:
        shutil.copy(ROOT / name, root / name)
    return root


def _requires(project: Path, compile_: str | None) -> list[str]:
    """The build backend's answer to PEP 517's ``get_requires_for_build_wheel``, in a fresh process."""
    env = {k: v for k, v in os.environ.items() if k != "LAKEINDEX_COMPILE"}
    if compile_ is not None:
        env["LAKEINDEX_COMPILE"] = compile_
    code = "import json, lakeindex_build; print(json.dumps(lakeindex_build.get_requires_for_build_wheel()))"
    done = subprocess.run([sys.executable, "-c", code], cwd=project, capture_output=True, text=True, timeout=300,
                          env={**env, "PYTHONPATH": str(project / "build_backend")})
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_the_backend_asks_for_mypy_only_for_a_compiled_build_and_lists_it_without_compiling(tmp_path):
    project = _project_copy(tmp_path)
    assert not any(r.startswith("mypy") for r in _requires(project, None))
    assert not any(r.startswith("mypy") for r in _requires(project, "0"))
    assert "mypy>=1.13" in _requires(project, "1")
    # listing requirements runs setup.py before mypy is installed: mypyc must not have run (no C written)
    assert not list(project.rglob("*.c"))


@pytest.fixture(scope="module")
def compiled(tmp_path_factory) -> Path:
    """The package installed from the compiled wheel the build backend makes (``LAKEINDEX_COMPILE=1``)."""
    pytest.importorskip("mypyc.build", reason="the compiled build needs mypyc (mypy)")
    if shutil.which("cc") is None:
        pytest.skip("the compiled build needs a C compiler")
    project = _project_copy(tmp_path_factory.mktemp("project"))
    dist, site = tmp_path_factory.mktemp("dist"), tmp_path_factory.mktemp("site")
    # without build isolation, so no network: the build's requirements (setuptools, wheel, mypy) are the
    # test extras, installed already; pip calls the backend's metadata and wheel hooks as it always does
    # (the requirements hook, which only an isolated build calls, is the test above)
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-build-isolation", "--no-deps", "--no-index",
                            "-w", str(dist), str(project)],
                           capture_output=True, text=True, timeout=1200, env={**os.environ, "LAKEINDEX_COMPILE": "1"})
    assert built.returncode == 0, built.stdout[-2000:] + built.stderr[-3000:]
    wheel, = dist.glob("lakeindex-*.whl")
    assert not wheel.name.endswith("-none-any.whl"), wheel.name  # a platform wheel: it holds extension modules
    installed = subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "--no-index", "--target",
                                str(site), str(wheel)], capture_output=True, text=True, timeout=300)
    assert installed.returncode == 0, installed.stderr[-3000:]
    return site


def _guid(r: random.Random) -> str:
    h = f"{r.getrandbits(128):032x}"
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def _timestamp(r: random.Random) -> str:
    return (f"20{r.randint(18, 24)}-{r.randint(1, 12):02d}-{r.randint(1, 28):02d}T{r.randint(0, 23):02d}:"
            f"{r.randint(0, 59):02d}:{r.randint(0, 59):02d}.{r.randint(0, 999):03d}Z")


GENERATORS: dict[str, Callable[[random.Random], str]] = {
    "guid_list": lambda r: "#".join(_guid(r) for _ in range(r.randint(3, 6))),
    "record": lambda r: f"{_timestamp(r)}|ORD-{r.randint(1000, 99999)}|/data/{r.choice(['raw', 'curated'])}/"
                        f"{r.randint(1, 999)}.csv",
    "url": lambda r: f"https://{r.choice(['api', 'files', 'm'])}.example.com/{r.choice(['p', 'docs', 'cart'])}/"
                     f"{r.randint(1, 99999)}" + (f"?id={r.randint(1, 999)}" if r.random() < 0.6 else ""),
    "signed_list": lambda r: ",".join(str(r.randint(-999, 999)) for _ in range(r.randint(8, 16))),
    "joined_enum": lambda r: r.choice(["web", "crm", "mobile_app", "web_portal", "partner_api"]),
    "date": lambda r: f"20{r.randint(10, 24)}-{r.randint(1, 12):02d}-{r.randint(1, 28):02d}",
}


FIT = """
import json, sys
import lakeindex.fmdv.infer as infer
from lakeindex.fmdv.infer import AutoValidator
from lakeindex.index.store import IndexReader
assert infer.__file__.endswith(".so"), infer.__file__  # the compiled module, not its source
from lakeindex.runtime.compiled_build import search_compiled
assert search_compiled()  # what the service's /ready reports
columns = json.load(open(sys.argv[2]))
with IndexReader(sys.argv[1]) as ix:
    rules = [[AutoValidator(ix, m).fit(c).rule_.to_dict() for m in ("fmdv-vh", "fmdv-v")] for c in columns]
json.dump(rules, open(sys.argv[3], "w"))
"""


def test_the_compiled_search_gives_the_rules_of_its_sources(compiled, tmp_path):
    lake_rng, query_rng = random.Random(5), random.Random(6)
    build_from_columns([[gen(lake_rng) for _ in range(60)] for gen in GENERATORS.values() for _ in range(5)],
                       tmp_path / "ix", min_coverage=2)
    columns = [[gen(query_rng) for _ in range(200)] for gen in GENERATORS.values() for _ in range(2)]
    (tmp_path / "columns.json").write_text(json.dumps(columns))
    (tmp_path / "fit.py").write_text(FIT)
    argv = [sys.executable, *(str(tmp_path / n) for n in ("fit.py", "ix", "columns.json", "rules.json"))]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=600,
                          env={**os.environ, "PYTHONPATH": str(compiled)}, cwd=compiled)
    assert done.returncode == 0, done.stderr[-3000:]
    with IndexReader(tmp_path / "ix") as ix:
        expected = [[AutoValidator(ix, m).fit(c).rule_.to_dict() for m in ("fmdv-vh", "fmdv-v")] for c in columns]
    got = json.loads((tmp_path / "rules.json").read_text())
    assert sum(r["feasible"] for pair in expected for r in pair) >= len(columns)  # rules to compare, not failures
    for name, want, have in zip([n for n in GENERATORS for _ in range(2)], expected, got, strict=True):
        assert have == json.loads(json.dumps(want)), name


COUNT = """
import json, sys
from collections import Counter
import lakeindex.patterns.counting as counting
from lakeindex.patterns.enumerate import EnumerationLimits, column_patterns
assert counting.__file__.endswith(".so"), counting.__file__  # the build's enumeration, compiled
out = []
for column in json.load(open(sys.argv[1])):
    vc = Counter(column)
    cp = column_patterns(list(vc), list(vc.values()), EnumerationLimits())
    out.append(json.dumps([sorted(cp.counts.items()), cp.total, cp.wide]))
json.dump(out, open(sys.argv[2], "w"))
"""


def test_the_compiled_enumeration_counts_what_its_sources_count(compiled, tmp_path):
    """The index build's per-column counts, compiled, equal the sources' to the type (an estimated weight
    left as a float would print as one): few distinct values (exact weights), many (a priority sample of
    float estimates), wide values cut into windows, and shapes enough for the pruned prefix walk."""
    from collections import Counter

    from lakeindex.patterns.enumerate import DIRECT_TEMPLATES, EnumerationLimits, column_patterns
    from lakeindex.patterns.templates import shape_size, shape_tokens
    from lakeindex.patterns.tokens import analyze

    rng = random.Random(8)
    columns = [[gen(rng) for _ in range(n)] for gen in GENERATORS.values() for n in (40, 400)]

    def word(r: random.Random) -> str:
        kinds = (str(r.randint(0, 999)), r.choice(["ab", "xyz"]), r.choice(["AB", "Z"]), r.choice(["Ab", "xY9"]))
        return r.choice(kinds)

    columns.append([f"{word(rng)}-{word(rng)}.{word(rng)}:{word(rng)}" for _ in range(100)])  # many shapes
    limits = EnumerationLimits()

    def templates(column: list[str]) -> int:  # what decides between direct sums and the prefix walk
        shapes = {a.shape for a in map(analyze, set(column)) if a.shape and a.ntokens <= limits.tau}
        return sum(shape_size(s, limits.max_constants, limits.budget(shape_tokens(s))) for s in shapes)

    walked = [c for c in columns if templates(c) > DIRECT_TEMPLATES]
    assert walked, "no column takes the prefix walk"
    assert any(len(set(c)) > limits.max_distinct for c in columns)  # sampled, float estimates
    (tmp_path / "columns.json").write_text(json.dumps(columns))
    (tmp_path / "count.py").write_text(COUNT)
    done = subprocess.run([sys.executable, str(tmp_path / "count.py"), str(tmp_path / "columns.json"),
                           str(tmp_path / "counts.json")], capture_output=True, text=True, timeout=600,
                          env={**os.environ, "PYTHONPATH": str(compiled)}, cwd=compiled)
    assert done.returncode == 0, done.stderr[-3000:]
    got = json.loads((tmp_path / "counts.json").read_text())
    for column, have in zip(columns, got, strict=True):
        vc = Counter(column)
        cp = column_patterns(list(vc), list(vc.values()), limits)
        assert have == json.dumps([sorted(cp.counts.items()), cp.total, cp.wide]), column[:3]
