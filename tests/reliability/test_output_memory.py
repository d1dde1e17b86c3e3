"""Outputs too large to hold (issue #52, probe 5) are refused before anything is sampled, as
an ``error`` verdict naming the sizes, while the rest of the run goes on; a run that writes
no report leaves no empty folder behind."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
FILE = HERE / "search_adapters.py"


def dp_audit(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "dp_audit", *args], cwd=ROOT, capture_output=True, text=True,
        timeout=240,
    )  # fmt: skip


def test_outputs_larger_than_memory_are_an_error_before_sampling(tmp_path):
    out = tmp_path / "out"
    start = time.monotonic()
    proc = dp_audit("run", "--adapter", f"{FILE}:wider", "--budget", "2000", "--workers", "1",
                    "--out", str(out))  # fmt: skip
    assert time.monotonic() - start < 120
    assert proc.returncode == 2, proc.stderr
    results = {r["adapter"]: r for r in json.loads((out / "report.json").read_text())["results"]}
    wider = results["probe.wider"]
    assert wider["verdict"] == "error" and wider["samples"] == 0
    assert "800 outputs of 763 MiB each" in wider["error"]
    assert "of memory available; nothing was sampled" in wider["error"]
    assert results["probe.searchable"]["verdict"] == "no_violation"


def test_check_refuses_them_too(tmp_path):
    proc = dp_audit("check", "--adapter", f"{FILE}:wider")
    assert proc.returncode == 2
    assert "error  probe.wider: " in proc.stdout and "of memory available" in proc.stdout
    assert "ok     probe.searchable" in proc.stdout


def test_a_run_without_a_report_leaves_no_empty_folder(tmp_path):
    out = tmp_path / "new"
    proc = dp_audit("run", "--adapter", f"{FILE}:no_such_attribute", "--out", str(out))
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert not out.exists()
