"""Load checks from a file: JSON or YAML (data, safe to accept from anyone) or Python (code the user trusts).

JSON form — each constraint's ``type`` is a Check method, the other keys its keyword arguments::

    {"checks": [{"level": "error", "description": "orders",
                 "constraints": [{"type": "is_complete", "column": "id"},
                                 {"type": "has_completeness", "column": "email", "assertion": ">= 0.9"},
                                 {"type": "is_contained_in", "column": "status", "values": ["new", "paid"]},
                                 {"type": "has_no_anomalies", "analyzer": {"type": "Size"},
                                  "strategy": {"type": "OnlineNormal", "upper_deviation_factor": 3},
                                  "tags": {"region": "eu"}}]}]}

``does_dataset_match`` takes ``"reference"``, the reference dataset's path, in place of a DataFrame.

YAML (``.yaml``/``.yml``, read with ``safe_load``: no tags, no code) holds the same document; a constraint may
also be written Soda-like as ``{method: arguments}``, a mapping of keyword arguments or one value for the
method's first argument::

    checks:
      - description: orders
        constraints:
          - is_complete: id
          - has_completeness: {column: email, assertion: ">= 0.9"}
          - is_contained_in: {column: status, values: [new, paid]}

A key a constraint does not take is refused with the keys it takes.

Python form: a module defining ``checks`` (a list of Check, or a function of no arguments returning one),
run with ``runpy`` like a pytest conftest — only for files the user wrote.
"""

from __future__ import annotations

import inspect
import json
import os
import runpy
from pathlib import Path
from typing import Any

from lakeindex.checks.check import Check
from lakeindex.local_paths import URI, local_path
from lakeindex.metrics.analyzer import Analyzer


class ChecksFileError(ValueError):
    """The checks file is malformed; the message names the check and constraint."""


_NOT_CONSTRAINTS = {"add_constraint", "analyzers"}
_CHECK_KEYS = {"level", "description", "constraints"}
_DATASET_MATCH_KEYS = {"reference", "key_column_mappings", "assertion", "match_column_mappings", "reference_name"}


def constraint_types() -> list[str]:
    return sorted(n for n, f in inspect.getmembers(Check, inspect.isfunction)
                  if not n.startswith("_") and n not in _NOT_CONSTRAINTS)


def analyzer_from_dict(spec: dict[str, Any] | str) -> Analyzer:
    """An analyzer from ``{"type": "Mean", "column": "x"}`` (or just ``"Size"``)."""
    import lakeindex.metrics as metrics

    if isinstance(spec, str):
        spec = {"type": spec}
    if not isinstance(spec, dict) or "type" not in spec:
        raise ChecksFileError(f"analyzer must be an object with a 'type', got {spec!r}")
    kwargs = dict(spec)
    name = kwargs.pop("type")
    names = sorted(n for n in metrics.__all__ if isinstance(getattr(metrics, n), type)
                   and issubclass(getattr(metrics, n), Analyzer) and n != "Analyzer")
    if name not in names:  # the abstract base would pass an issubclass test and crash the run
        raise ChecksFileError(f"unknown analyzer type {name!r}; one of {', '.join(names)}")
    cls = getattr(metrics, name)
    for k, v in list(kwargs.items()):
        if isinstance(v, list):
            kwargs[k] = tuple(v)
    try:
        return cls(**kwargs)
    except TypeError as exc:
        raise ChecksFileError(f"analyzer {name}: {exc}") from exc


def dataset_match_arguments(kwargs: dict[str, Any]) -> dict[str, Any]:
    """does_dataset_match's arguments from JSON: ``reference`` is the reference dataset's path (a file or
    directory, read like the DATA argument, relative to the working directory): JSON holds no DataFrame."""
    extra = sorted(set(kwargs) - _DATASET_MATCH_KEYS)
    if extra:
        raise TypeError(f"unexpected key(s) {', '.join(map(repr, extra))}: does_dataset_match takes 'reference' "
                        "(the reference dataset's path), 'key_column_mappings', 'assertion', "
                        "'match_column_mappings' and 'reference_name'")
    path = kwargs.get("reference")
    if not isinstance(path, str) or not path.strip():
        raise ValueError(f"does_dataset_match needs 'reference', the path of the reference dataset, got {path!r}")
    local = str(local_path(path, "reference")) if path.startswith("file://") or not URI.match(path) else None
    if local is not None and not os.path.exists(local):
        raise ValueError(f"does_dataset_match: reference {path!r}: no such file or directory")
    args = {k: v for k, v in kwargs.items() if k != "reference"}
    return {"other": path, "assertion": None, **args}


def _short_form(c: Any, valid: list[str]) -> Any:
    """``{"is_complete": "id"}`` / ``{"has_size": {"assertion": "> 0"}}`` as ``{"type": ..., **arguments}``."""
    if not isinstance(c, dict) or "type" in c or len(c) != 1:
        return c
    (name, args), = c.items()
    if name not in valid:
        return c
    if isinstance(args, dict):
        return {"type": name, **args}
    params = [p for p in inspect.signature(getattr(Check, name)).parameters if p != "self"]
    return {"type": name, params[0]: args} if params and args is not None else {"type": name}


def _refuse_unknown_keys(name: str, kwargs: dict[str, Any], where: str) -> None:
    """A misspelt argument (``colum``) named with the arguments the constraint takes."""
    if name in ("has_no_anomalies", "does_dataset_match"):
        return  # their own key checks below name what they take
    params = inspect.signature(getattr(Check, name)).parameters
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()):
        return
    unknown = sorted(set(kwargs) - set(params))
    if unknown:
        takes = ", ".join(p for p in params if p != "self")
        raise ChecksFileError(f"{where} ({name}): unknown key(s) {', '.join(map(repr, unknown))}; {name} takes "
                              f"{takes}")


def checks_from_dict(doc: dict[str, Any]) -> list[Check]:
    """Checks from the parsed JSON document (see the module docstring)."""
    from lakeindex.anomaly import strategy_from_dict

    if not isinstance(doc, dict) or not isinstance(doc.get("checks"), list):
        raise ChecksFileError('expected an object {"checks": [...]}')
    valid = constraint_types()
    out = []
    for i, spec in enumerate(doc["checks"]):
        where = f"checks[{i}]"
        if not isinstance(spec, dict):
            raise ChecksFileError(f"{where}: expected an object")
        unknown = sorted(set(spec) - _CHECK_KEYS)
        if unknown:  # a misspelt "constraints" would otherwise leave a check that passes vacuously
            raise ChecksFileError(f"{where}: unknown key(s) {', '.join(map(repr, unknown))}; "
                                  f"a check has {', '.join(sorted(_CHECK_KEYS))}")
        if not isinstance(spec.get("constraints", []), list):
            raise ChecksFileError(f"{where}: 'constraints' must be a list")
        try:
            check = Check(spec.get("level", "error"), spec.get("description", f"check {i}"))
        except (TypeError, ValueError, AttributeError) as exc:
            raise ChecksFileError(f"{where}: {exc}") from exc
        for j, c in enumerate(spec.get("constraints") or []):
            cwhere = f"{where}.constraints[{j}]"
            c = _short_form(c, valid)
            if not isinstance(c, dict) or c.get("type") not in valid:
                raise ChecksFileError(f"{cwhere}: 'type' must be one of {', '.join(valid)}; got {c!r}")
            kwargs = {k: v for k, v in c.items() if k != "type"}
            _refuse_unknown_keys(c["type"], kwargs, cwhere)
            try:
                if c["type"] == "has_no_anomalies":
                    extra = sorted(set(kwargs) - {"analyzer", "strategy", "tags", "after", "before"})
                    if extra:
                        raise TypeError(f"unexpected key(s) {', '.join(map(repr, extra))}: has_no_anomalies "
                                        "takes 'analyzer', 'strategy', 'tags', 'after' and 'before'")
                    check = check.has_no_anomalies(analyzer_from_dict(kwargs.get("analyzer")),
                                                   strategy_from_dict(kwargs.get("strategy") or {}),
                                                   tags=kwargs.get("tags"), after=kwargs.get("after"),
                                                   before=kwargs.get("before"))
                elif c["type"] == "does_dataset_match":
                    check = check.does_dataset_match(**dataset_match_arguments(kwargs))
                else:
                    check = getattr(check, c["type"])(**kwargs)
            except (TypeError, ValueError, AttributeError) as exc:  # AttributeError: e.g. a number for a column
                raise ChecksFileError(f"{cwhere} ({c['type']}): {exc}") from exc
        out.append(check)
    return out


def load_checks(path: str | Path) -> list[Check]:
    """Checks from a ``.json``, ``.yaml``/``.yml`` or ``.py`` file."""
    path = Path(path)
    if path.is_dir():
        raise ChecksFileError(f"{path}: a directory, not a checks file (.json, .yaml, .yml or .py)")
    if not path.is_file():
        raise ChecksFileError(f"{path}: no such file")
    if path.suffix == ".json":
        try:
            doc = json.loads(path.read_text(encoding="utf-8"))
        except ValueError as exc:
            raise ChecksFileError(f"{path}: not valid JSON ({exc})") from exc
        try:
            return checks_from_dict(doc)
        except ChecksFileError as exc:
            raise ChecksFileError(f"{path}: {exc}") from exc
    if path.suffix in (".yaml", ".yml"):
        import yaml

        try:
            doc = yaml.safe_load(path.read_text(encoding="utf-8"))
        except yaml.YAMLError as exc:
            raise ChecksFileError(f"{path}: not valid YAML ({exc})") from exc
        try:
            return checks_from_dict(doc)
        except ChecksFileError as exc:
            raise ChecksFileError(f"{path}: {exc}") from exc
    if path.suffix == ".py":
        try:  # a broken module is a bad checks file (exit 2), not a crash
            namespace = runpy.run_path(str(path))
            checks = namespace.get("checks")
            if callable(checks):
                checks = checks()
        except Exception as exc:  # noqa: BLE001 - user code may raise anything
            raise ChecksFileError(f"{path}: {type(exc).__name__}: {exc}") from exc
        if not isinstance(checks, list | tuple) or not all(isinstance(c, Check) for c in checks):
            raise ChecksFileError(f"{path}: must define `checks`, a list of lakeindex.checks.Check "
                                  "(or a function returning one)")
        return list(checks)
    raise ChecksFileError(f"{path}: checks must be a .json, .yaml/.yml or .py file")
