"""A CI gate must never go green without an audit: adapter code that raises ``SystemExit`` (or any
``BaseException`` but Ctrl-C) in the main process is that adapter's ``error``, the run goes on,
writes its report and exits 2 — before the fix it exited 0 with no report and no message."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import exiting_adapters
import pytest

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
TARGET = f"{HERE / 'exiting_adapters.py'}:adapters"


def dp_audit(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "dp_audit", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=240,
    )


@pytest.mark.parametrize("backend", ["inline", "local"])
def test_system_exit_in_adapter_code_is_an_error_verdict(tmp_path, backend):
    out = tmp_path / "out"
    proc = dp_audit(
        "run", "--adapter", TARGET, "--backend", backend, "--workers", "1",
        "--attack", "black-box", "--attack", "truncated-addition",
        "--budget", "2000", "--seed", "3", "--out", str(out),
    )  # fmt: skip
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    data = json.loads((out / "report.json").read_text())
    verdicts = {r["adapter"]: (r["verdict"], r["error"]) for r in data["results"]}
    assert verdicts.pop("good.geometric") == ("no_violation", None)
    assert set(verdicts) == set(exiting_adapters.EXPECTED)
    for name, (verdict, error) in verdicts.items():
        assert verdict == "error", name
        assert exiting_adapters.EXPECTED[name] in error, (name, error)


def test_system_exit_at_import_is_a_usage_error(tmp_path):
    proc = dp_audit(
        "run", "--adapter", f"{HERE / 'exits_at_import.py'}:adapter", "--out", str(tmp_path / "o")
    )
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    assert "raised SystemExit: 0" in proc.stderr and "exits_at_import.py" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1


def test_an_unexpected_failure_is_exit_2_never_0_or_1(monkeypatch, capsys):
    """The CLI's last line of defence: whatever escapes, the exit code says 'error'."""
    from dp_audit import cli

    def escape(args):
        raise SystemExit(0)

    monkeypatch.setattr(cli, "_cmd_list", escape)
    assert cli.main(["list"]) == cli.EXIT_ERROR
    assert "the run failed unexpectedly: SystemExit: 0" in capsys.readouterr().err


def test_help_still_exits_0(capsys):
    from dp_audit import cli

    with pytest.raises(SystemExit) as stop:
        cli.main(["run", "--help"])
    assert stop.value.code == 0
    assert "--adapter" in capsys.readouterr().out


def test_an_adapter_s_message_reaches_no_report_with_control_characters():
    from auditor.core.errors import AdapterRaised, adapter_code

    with pytest.raises(AdapterRaised) as raised, adapter_code("adapter 'x': sample"):
        raise ValueError("line one\nline two\x1b[2J")
    assert (
        str(raised.value) == "adapter 'x': sample raised ValueError: line one\\x0aline two\\x1b[2J"
    )
