"""An adapter that changes its query or dataset in place is told so (issue #52, probe 11),
not that its seed does not replay, and never audited on inputs other than the ones reported."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
FILE = HERE / "search_adapters.py"


@pytest.mark.parametrize(
    ("target", "attacks", "name", "what"),
    [
        ("mutates_vector", [], "probe.mutates_vector", "query"),
        ("mutates_inputs", ["--attack", "black-box"], "probe.mutates_dataset", "dataset"),
    ],
)
@pytest.mark.parametrize("backend", ["local", "inline"])
def test_an_input_changed_in_place_is_named(tmp_path, target, attacks, name, what, backend):
    out = tmp_path / "out"
    proc = subprocess.run(
        [sys.executable, "-m", "dp_audit", "run", "--adapter", f"{FILE}:{target}", *attacks,
         "--budget", "2000", "--workers", "1", "--backend", backend, "--out", str(out)],
        cwd=ROOT, capture_output=True, text=True, timeout=240,
    )  # fmt: skip
    assert proc.returncode == 2, proc.stderr
    results = {r["adapter"]: r for r in json.loads((out / "report.json").read_text())["results"]}
    error = results[name]["error"]
    assert results[name]["verdict"] == "error"
    assert f"changed its {what} in place" in error
    assert "does not replay" not in error
