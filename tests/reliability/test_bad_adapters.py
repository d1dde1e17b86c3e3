"""Every way an adapter can fail ends as an ``error`` verdict with a precise message.

One audit runs all the broken adapters of ``bad_adapters.py`` next to a good one, in worker
processes loaded by target (as ``dp-audit run`` does), with a 2 s timeout for the hang.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import bad_adapters
import pytest

from attacks import load_attacks
from auditor import AuditConfig, Verdict, run_audit
from auditor.core.configs import EngineConfig

FILE = Path(bad_adapters.__file__).resolve()
TARGET = f"{FILE}:everything"
ROOT = Path(__file__).resolve().parents[2]
CONFIG = AuditConfig(budget=2000, seed=4)


@pytest.fixture(scope="module")
def report():
    adapters = bad_adapters.everything()
    return run_audit(
        adapters,
        load_attacks(["black-box"]),
        CONFIG,
        engine=EngineConfig(backend="local", workers=2, timeout=2.0),
        targets={a.name: TARGET for a in adapters},
    )


@pytest.mark.parametrize("name", sorted(bad_adapters.EXPECTED))
def test_each_broken_adapter_is_an_error_with_its_message(report, name):
    (result,) = [r for r in report.results if r.adapter == name]
    assert result.verdict is Verdict.ERROR
    assert bad_adapters.EXPECTED[name] in result.error
    assert name in result.error  # the message names the adapter
    assert "\n" not in result.error


def test_the_good_adapter_is_audited_and_the_run_exits_2(report):
    (good,) = [r for r in report.results if r.adapter == "good.geometric"]
    assert good.verdict is Verdict.NO_VIOLATION and good.samples >= 2 * CONFIG.budget
    assert report.exit_code == 2
    assert [r.adapter for r in report.results] == [a.name for a in bad_adapters.everything()]


def test_in_process_backend_reports_the_same_errors_except_crashes():
    """The in-process fallback: same messages; the hang is abandoned by a thread timeout."""
    adapters = [a for a in bad_adapters.everything() if a.name not in bad_adapters.CRASHES]
    report = run_audit(
        adapters,
        load_attacks(["black-box"]),
        CONFIG,
        engine=EngineConfig(backend="inline", timeout=1.0),
    )
    for result in report.results:
        if result.adapter in bad_adapters.EXPECTED:
            assert result.verdict is Verdict.ERROR, result.adapter
            assert bad_adapters.EXPECTED[result.adapter] in result.error
        else:
            assert result.verdict is Verdict.NO_VIOLATION
    (hang,) = [r for r in report.results if r.adapter == "bad.hangs"]
    assert "abandoned" in hang.error


def test_dp_audit_run_over_all_of_them_exits_2(tmp_path):
    out = tmp_path / "out"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "dp_audit",
            "run",
            "--adapter",
            f"{FILE}:bad",
            "--adapter",
            f"{FILE}:good",
            "--attack",
            "black-box",
            "--budget",
            "2000",
            "--timeout",
            "2",
            "--workers",
            "2",
            "--out",
            str(out),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    data = json.loads((out / "report.json").read_text())
    verdicts = {r["adapter"]: (r["verdict"], r["error"]) for r in data["results"]}
    assert verdicts.pop("good.geometric") == ("no_violation", None)
    assert set(verdicts) == set(bad_adapters.EXPECTED)
    for name, (verdict, error) in verdicts.items():
        assert verdict == "error" and bad_adapters.EXPECTED[name] in error, name


@pytest.mark.slow
def test_ctrl_c_stops_the_audit_and_its_workers(tmp_path):
    """While an adapter hangs in a worker, Ctrl-C ends the run at once (exit 130)."""
    import signal
    import time

    proc = subprocess.Popen(
        [sys.executable, "-m", "dp_audit", "run", "--adapter", f"{FILE}:bad"]
        + ["--attack", "black-box", "--budget", "2000", "--timeout", "600"]
        + ["--out", str(tmp_path / "out")],
        cwd=ROOT,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    for line in proc.stderr:
        if "sampling:" in line:
            break
    time.sleep(3)  # the hang is now running in a worker
    proc.send_signal(signal.SIGINT)
    start = time.monotonic()
    rest = proc.stderr.read()
    assert proc.wait(timeout=60) == 130
    assert time.monotonic() - start < 30
    assert "interrupted" in rest and "Traceback" not in rest
