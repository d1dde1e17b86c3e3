"""Through ``python -m dp_audit run``: the same seed gives the same report.json for any --workers."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from engine_fixtures import strip_timing

ROOT = Path(__file__).resolve().parents[3]
HELPERS = ROOT / "tests" / "helpers"
TARGET = f"{HELPERS / 'engine_fixtures.py'}:cli_adapters"


def start(out: Path, *args: str) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(HELPERS), str(ROOT)])}
    command = [sys.executable, "-m", "dp_audit", "run", "--quiet", "--adapter", TARGET]
    command += ["--budget", "50000", "--out", str(out), *args]
    return subprocess.Popen(
        command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )


def test_same_seed_same_report_for_one_and_two_workers(tmp_path):
    runs = {
        "w1": start(tmp_path / "w1", "--seed", "7", "--workers", "1"),
        "w2": start(tmp_path / "w2", "--seed", "7", "--workers", "2"),
    }
    reports = {}
    for name, proc in runs.items():
        _, err = proc.communicate(timeout=300)
        assert proc.returncode == 1, err
        reports[name] = json.loads((tmp_path / name / "report.json").read_text())
    assert strip_timing(reports["w1"]) == strip_timing(reports["w2"])
    # (that another seed changes the report is tested in-process in test_engine.py)
    verdicts = [r["verdict"] for r in reports["w1"]["results"]]
    assert verdicts == ["no_violation", "violation", "violation"]
