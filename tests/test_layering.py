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
