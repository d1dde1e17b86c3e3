"""A searched Laplace whose scale rounds to zero adds no noise: its report says so (issue #52,
probe 15), instead of explaining the violation by a sampler's bit patterns or a loss region."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
FILE = HERE / "search_adapters.py"


def test_a_noiseless_configuration_is_named_as_such(tmp_path):
    out = tmp_path / "out"
    proc = subprocess.run(
        [sys.executable, "-m", "dp_audit", "run", "--adapter", f"{FILE}:zero_scale_laplace",
         "--search", "--configurations", "2", "--finalists", "1", "--budget", "2000",
         "--backend", "inline", "--out", str(out)],
        cwd=ROOT, capture_output=True, text=True, timeout=240,
    )  # fmt: skip
    assert proc.returncode == 1, proc.stderr
    report = (out / "report.md").read_text()
    cause = report.split("### Root cause", 1)[1]
    assert "The mechanism added no noise: every output seen at input 0 is 0.0" in cause
    assert "privacy loss sits in" not in cause and "exact doubles" not in cause
    assert "added no noise" in (out / "junit.xml").read_text()
