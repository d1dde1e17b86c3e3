"""Ctrl-C (issue #52, probes 9 and 10): one stops any run, a parameter search's screening
included, within a few seconds with status 130 and the previous report left whole; two or
more never print a traceback nor end the process by the signal itself."""

from __future__ import annotations

import json
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
FILE = HERE / "search_adapters.py"


@pytest.fixture(scope="module")
def previous(tmp_path_factory) -> Path:
    """A complete report set, as an earlier run left it."""
    out = tmp_path_factory.mktemp("previous") / "out"
    proc = subprocess.run(
        [sys.executable, "-m", "dp_audit", "run", "--adapter", "reference.geometric",
         "--budget", "2000", "--backend", "inline", "--quiet", "--out", str(out)],
        cwd=ROOT, capture_output=True, text=True, timeout=240,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    return out


@pytest.mark.parametrize("presses", [1, 2, 3])
def test_ctrl_c_during_search_screening_stops_it_and_keeps_the_old_report(
    tmp_path, previous, presses
):
    out = tmp_path / "out"
    shutil.copytree(previous, out)
    before = json.loads((out / "report.json").read_text())["run_id"]
    proc = subprocess.Popen(
        [sys.executable, "-m", "dp_audit", "run", "--adapter", f"{FILE}:slow_searchable",
         "--search", "--configurations", "8", "--budget", "2000", "--attack", "black-box",
         "--workers", "2", "--out", str(out)],
        cwd=ROOT, stderr=subprocess.PIPE, text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )  # fmt: skip
    assert proc.stderr is not None
    for line in proc.stderr:
        if "search:" in line:  # screening has started: every sample() call takes 1 s
            break
    time.sleep(2)
    start = time.monotonic()
    for _ in range(presses):
        proc.send_signal(signal.SIGINT)
        time.sleep(0.3)
    rest = proc.stderr.read()
    code = proc.wait(timeout=60)
    assert code == 130, rest
    assert time.monotonic() - start < 10
    assert "interrupted" in rest
    assert "Traceback" not in rest and "Exception ignored" not in rest
    assert "screened" not in rest  # nothing more is reported once interrupted
    assert json.loads((out / "report.json").read_text())["run_id"] == before
