"""The GitHub Action's steps, run here by action/try-locally.sh as a library's workflow would:
the job summary, the published exit code, the report folder, and the job's failure on a
certified violation."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "action" / "try-locally.sh"
DP_AUDIT = Path(sys.executable).with_name("dp-audit")


def try_action(project: Path, *settings: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "DP_AUDIT": str(DP_AUDIT)}
    return subprocess.run(
        ["bash", str(SCRIPT), str(project), *settings],
        capture_output=True, text=True, timeout=240, env=env,
    )  # fmt: skip


def test_a_clean_audit_passes_with_its_summary_and_report(tmp_path):
    proc = try_action(
        tmp_path, "targets=reference.geometric", "budget=2000", "args=--attack black-box"
    )
    assert proc.returncode == 0, proc.stderr
    assert "# dp-audit report" in proc.stdout and "reference.geometric" in proc.stdout
    assert "exit-code=0" in proc.stdout
    assert sorted(p.name for p in (tmp_path / "dp-audit-report").iterdir()) == [
        "junit.xml", "report.html", "report.json", "report.md",
    ]  # fmt: skip


def test_a_violation_fails_the_job_with_exit_code_1(tmp_path):
    proc = try_action(
        tmp_path, "targets=textbook.laplace(eps=1)", "budget=20000", "seed=1", "out=rep"
    )
    assert proc.returncode == 1, proc.stderr
    assert "exit-code=1" in proc.stdout and "violation" in proc.stdout
    assert (tmp_path / "rep" / "report.json").exists()


def test_the_action_declares_its_inputs_and_runs_the_script():
    text = (ROOT / "action.yml").read_text()
    for name in ("targets:", "budget:", "seed:", "baseline:", "using: composite"):
        assert name in text
    assert "action/run.sh" in text and "actions/upload-artifact" in text
