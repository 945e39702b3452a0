"""Check files in YAML (with the Soda-like short form), misspelt keys named with the valid ones, and pandas
frames handed to the suite (issue 13 §5)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from lakeindex.checks import ChecksFileError, VerificationSuite, load_checks
from lakeindex.metrics import AnalysisRunner, Completeness, Mean, Size

YAML_CHECKS = """
checks:
  - description: orders
    level: error
    constraints:
      - is_complete: id                                   # short form: the first argument
      - has_completeness: {column: email, assertion: ">= 0.7"}
      - type: is_contained_in                             # the JSON form works in YAML too
        column: status
        values: [new, paid]
      - has_size: {assertion: "== 4"}
  - description: soft
    level: warning
    constraints:
      - is_unique: email
"""

SAME_AS_JSON = {"checks": [
    {"description": "orders", "level": "error", "constraints": [
        {"type": "is_complete", "column": "id"},
        {"type": "has_completeness", "column": "email", "assertion": ">= 0.7"},
        {"type": "is_contained_in", "column": "status", "values": ["new", "paid"]},
        {"type": "has_size", "assertion": "== 4"}]},
    {"description": "soft", "level": "warning", "constraints": [{"type": "is_unique", "column": "email"}]}]}


def _constraints(checks) -> list[tuple[str, str, list[str]]]:
    return [(c.level, c.description, [k.description for k in c.constraints]) for c in checks]


def test_yaml_file_loads_the_same_checks_as_its_json_twin(tmp_path):
    (tmp_path / "c.yaml").write_text(YAML_CHECKS)
    (tmp_path / "c.json").write_text(json.dumps(SAME_AS_JSON))
    from_yaml = load_checks(tmp_path / "c.yaml")
    assert _constraints(from_yaml) == _constraints(load_checks(tmp_path / "c.json"))
    assert [len(c.constraints) for c in from_yaml] == [4, 1]
    (tmp_path / "c.yml").write_text(YAML_CHECKS)
    assert _constraints(load_checks(tmp_path / "c.yml")) == _constraints(from_yaml)


@pytest.mark.parametrize("body,message", [
    ("checks:\n  - constraints:\n      - {type: is_complete, colum: id}\n",
     r"checks\[0\].constraints\[0\] \(is_complete\): unknown key\(s\) 'colum'; is_complete takes column, where"),
    ("checks:\n  - constraints:\n      - has_completeness: {column: id, assertion: '> 0', filter: x}\n",
     r"unknown key\(s\) 'filter'; has_completeness takes column, assertion, where"),
    ("checks:\n  - constraint: []\n", r"unknown key\(s\) 'constraint'; a check has constraints, description, level"),
    ("checks:\n  - constraints:\n      - is_compleet: id\n", r"'type' must be one of .*is_complete"),
    ("checks: [\n", r"not valid YAML"),
    ("!!python/object/apply:os.system ['echo owned']\n", r"not valid YAML"),  # safe_load runs no code
])
def test_bad_yaml_checks_say_what_is_valid(tmp_path, body, message):
    path = tmp_path / "c.yaml"
    path.write_text(body)
    with pytest.raises(ChecksFileError, match=message):
        load_checks(path)


def test_a_pandas_frame_is_verified_with_pandas_missing_values_as_nulls(spark):
    pdf = pd.DataFrame({"id": [1, 2, 3, 4],
                        "email": ["a@x", None, "c@x", "a@x"],        # 3 of 4 present
                        "amount": [1.0, np.nan, 3.0, None],          # NaN and None are both missing: 2 of 4
                        "status": ["new", "paid", "new", "lost"]})
    checks = load_checks_from_text(YAML_CHECKS)
    result = VerificationSuite().on_data(pdf).add_checks(checks).run()
    statuses = {c.check.description: [r.status for r in c.constraint_results] for c in result.check_results}
    # id complete; email 3/4 = 0.75 >= 0.7; "lost" not in the set; 4 rows; "a@x" twice: not unique
    assert statuses == {"orders": ["Success", "Success", "Failure", "Success"], "soft": ["Failure"]}
    assert result.status == "Error"
    ctx = AnalysisRunner.on_data(pdf).add_analyzers([Completeness("amount"), Mean("amount"), Size()]).run()
    assert ctx.metric(Completeness("amount")).value == 0.5
    assert ctx.metric(Mean("amount")).value == 2.0  # (1 + 3) / 2
    assert ctx.metric(Size()).value == 4


def load_checks_from_text(text: str):
    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory() as d:
        (Path(d) / "c.yaml").write_text(text)
        return load_checks(Path(d) / "c.yaml")
