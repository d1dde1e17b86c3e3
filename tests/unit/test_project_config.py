"""``[tool.dp-audit]`` in a project's pyproject.toml: ``dp-audit run`` with no flags audits what
it names; flags win; a bad table is one line naming the file and the key."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ADAPTERS = """
import numpy as np


class Geometric:
    name, family, epsilon, delta, sensitivity = "mylib.geometric", "additive", 1.0, 0.0, 1
    integer_queries = True

    def __init__(self):
        self._rng = np.random.default_rng(0)

    def seed(self, entropy):
        self._rng = np.random.default_rng(entropy)

    def sample(self, query, n):
        g = self._rng.geometric(1 - np.exp(-self.epsilon), size=(2, n))
        return int(query) + g[0] - g[1]


ADAPTERS = [Geometric()]
"""

TABLE = """
[project]
name = "mylib"

[tool.dp-audit]
targets = ["mylib/dp_adapters.py:ADAPTERS"]
attacks = ["black-box"]
budget = 3000
seed = 7
out = "build/dp-audit"
"""


def project(tmp_path: Path, table: str = TABLE) -> Path:
    (tmp_path / "mylib").mkdir()
    (tmp_path / "mylib" / "dp_adapters.py").write_text(ADAPTERS)
    (tmp_path / "pyproject.toml").write_text(table)
    return tmp_path


def dp_audit(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "dp_audit", "run", "--backend", "inline", *args],
        cwd=cwd, capture_output=True, text=True, timeout=120,
    )  # fmt: skip


def test_run_with_no_flags_audits_what_the_project_names(tmp_path):
    root = project(tmp_path)
    proc = dp_audit(root / "mylib")  # found from a subfolder, as pytest and ruff find theirs
    assert proc.returncode == 0, proc.stderr
    assert "[tool.dp-audit] in" in proc.stderr
    data = json.loads((root / "build" / "dp-audit" / "report.json").read_text())
    assert (data["seed"], data["budget"]) == (7, 3000)
    assert [r["adapter"] for r in data["results"]] == ["mylib.geometric"]
    assert data["settings"]["attacks"] == ["black-box"]


def test_the_project_may_turn_the_conditional_test_on(tmp_path):
    root = project(tmp_path, TABLE + "conditional-test = true\n")
    proc = dp_audit(root)
    assert proc.returncode == 0, proc.stderr
    data = json.loads((root / "build" / "dp-audit" / "report.json").read_text())
    assert data["settings"]["conditional_test"] is True


def test_the_project_may_turn_tightening_off_and_a_flag_back_on(tmp_path):
    root = project(tmp_path, TABLE + "tighten = false\n")
    proc = dp_audit(root)
    assert proc.returncode == 0, proc.stderr
    data = json.loads((root / "build" / "dp-audit" / "report.json").read_text())
    assert data["settings"]["tighten"] is False
    proc = dp_audit(root, "--tighten", "--out", str(tmp_path / "again"))
    assert proc.returncode == 0, proc.stderr
    data = json.loads((tmp_path / "again" / "report.json").read_text())
    assert data["settings"]["tighten"] is True


def test_flags_win_over_the_project(tmp_path):
    root = project(tmp_path)
    proc = dp_audit(root, "--seed", "0", "--budget", "2000", "--out", str(tmp_path / "elsewhere"))
    assert proc.returncode == 0, proc.stderr
    data = json.loads((tmp_path / "elsewhere" / "report.json").read_text())
    assert (data["seed"], data["budget"]) == (0, 2000)  # 0 given explicitly beats 7


@pytest.mark.parametrize(
    "line, message",
    [
        ("budgett = 3", "has no setting 'budgett'"),
        ("budget = -3", "budget: expected a number >= 0"),
        ("targets = 'one'", "targets: expected a non-empty list of strings"),
        ("alpha = 2", "alpha: expected a number in (0, 1)"),
        ("conditional-test = 1", "conditional-test: expected true or false"),
    ],
)
def test_a_bad_table_is_one_line_naming_file_and_key(tmp_path, line, message):
    root = project(tmp_path, f"[tool.dp-audit]\n{line}\n")
    proc = dp_audit(root)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert message in proc.stderr and "pyproject.toml" in proc.stderr
