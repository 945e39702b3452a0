"""The layering rules of the README's Architecture section, checked on the source and on the command."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

import lakeindex
from lakeindex.cli import main
from lakeindex.cli import output as cli_output

LIBRARY = Path(lakeindex.__file__).parent
EDGES = ("indexer_jobs", "query_service")


def _imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def test_the_library_imports_none_of_its_edges():
    offenders = {str(p.relative_to(LIBRARY.parent)): sorted(m for m in _imported_modules(p) if m.split(".")[0] in EDGES)
                 for p in LIBRARY.rglob("*.py")}
    assert {k: v for k, v in offenders.items() if v} == {}


def _module_name(path: Path) -> str:
    parts = path.relative_to(LIBRARY.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _library_imports() -> dict[str, set[str]]:
    """Per library module, the library modules it imports anywhere in it: at module level, inside functions
    and under ``TYPE_CHECKING`` alike. ``from package import name`` depends on ``package.name`` when that is a
    module, and on the package itself when some name is not."""
    modules = {_module_name(p): p for p in LIBRARY.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        deps: set[str] = set()
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
            if isinstance(node, ast.Import):
                deps.update(a.name for a in node.names if a.name in modules)
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:  # relative: from the package, up level - 1
                    anchor = package.split(".")[:len(package.split(".")) - node.level + 1]
                    base = ".".join([*anchor, base] if base else anchor)
                subs = {f"{base}.{a.name}" for a in node.names} & modules.keys()
                deps.update(subs)
                if len(subs) < len(node.names) and base in modules:
                    deps.add(base)
        graph[name] = deps - {name}
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(out)


# QueryColumn memoizes its Alignment for the inference search (fmdv/infer.py): the memo moves out of
# fmdv/column.py with that module's refactoring, and this entry goes with it
KNOWN_CYCLES: list[list[str]] = []


def test_no_import_cycles_in_the_library():
    """No two library modules import each other, directly or through others, at any level (a function-local
    or ``TYPE_CHECKING`` import is still a dependency): shared pieces live in a module both import."""
    assert _cycles(_library_imports()) == KNOWN_CYCLES


def test_the_cycle_finder_sees_function_level_and_type_checking_imports():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    graph = _library_imports()
    assert "lakeindex.caches" in graph["lakeindex.fmdv.split"]  # module level
    assert "lakeindex.tagging.domains" in graph["lakeindex.tagging.tag_lake"]  # inside a function
    assert "lakeindex.metrics.state_store" in graph["lakeindex.checks.verification"]  # under TYPE_CHECKING


def test_serve_comes_from_the_service_through_the_entry_point(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["serve", "--help"])
    assert exc.value.code == 0
    assert "--max-body-mb" in capsys.readouterr().out


def test_an_internal_error_exits_3_with_a_json_error(monkeypatch, tmp_path, capsys):
    """Exit codes everywhere: a bug is 3, not Python's bare-traceback 1 (which would read as "flagged")."""
    def broken(args):  # noqa: ANN001, ANN202
        raise RuntimeError("boom")

    monkeypatch.setattr("lakeindex.cli.index.cmd_index_info", broken)
    (tmp_path / "ix").mkdir()
    assert main(["index", "info", str(tmp_path / "ix")]) == cli_output.EXIT_INTERNAL == 3
    first = capsys.readouterr().err.splitlines()[0]
    assert json.loads(first) == {"error": "internal error: RuntimeError: boom"}


def test_bad_input_exits_2(tmp_path, capsys):
    assert main(["index", "info", str(tmp_path / "missing")]) == 2
    assert "error" in json.loads(capsys.readouterr().err.splitlines()[0])
