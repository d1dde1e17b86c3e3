"""Bad entries in a target, bad names and an unwritable output folder: each is reported
precisely, before sampling where it can be, and never sinks the rest of the run."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
FILE = HERE / "mixed_targets.py"


def dp_audit(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "dp_audit", "run", "--attack", "black-box", "--budget", "2000",
         "--backend", "inline", *args],
        cwd=ROOT, capture_output=True, text=True, timeout=240,
    )  # fmt: skip


def test_a_non_adapter_in_a_list_is_an_error_and_the_rest_is_audited(tmp_path):
    proc = dp_audit("--adapter", f"{FILE}:with_a_non_adapter", "--out", str(tmp_path))
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    results = {
        r["adapter"]: r for r in json.loads((tmp_path / "report.json").read_text())["results"]
    }
    assert results["good.geometric"]["verdict"] == "no_violation"
    bad = results[f"{FILE}:with_a_non_adapter[1]"]
    assert bad["verdict"] == "error" and "'not an adapter', is not an adapter" in bad["error"]
    # a name with control characters is an error of its own, shown escaped everywhere
    (evil,) = [r for name, r in results.items() if name.startswith("evil")]
    assert evil["adapter"] == "evil\\x0dname\\x1b[2J"
    assert "must be printable text" in evil["error"]
    assert "\x1b" not in proc.stderr and "\r" not in proc.stderr


def test_a_target_without_any_adapter_is_a_usage_error(tmp_path):
    proc = dp_audit("--adapter", f"{FILE}:nothing", "--out", str(tmp_path / "o"))
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "holds no adapter" in proc.stderr and len(proc.stderr.strip().splitlines()) == 1


def test_two_adapters_with_one_name_are_named_not_dropped(tmp_path):
    proc = dp_audit("--adapter", f"{FILE}:same_name_twice", "--out", str(tmp_path / "o"))
    assert proc.returncode == 2
    assert "holds two adapters named 'twin'" in proc.stderr


def test_an_unwritable_out_is_refused_before_sampling(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    proc = dp_audit("--adapter", f"{FILE}:with_a_non_adapter", "--out", str(blocker / "report"))
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "cannot be written" in proc.stderr
    assert "auditing" not in proc.stderr  # refused before the audit began


def test_quiet_prints_nothing_but_lets_the_report_say_everything(tmp_path):
    proc = dp_audit("--adapter", f"{FILE}:with_a_non_adapter", "--out", str(tmp_path), "--quiet")
    assert proc.returncode == 2
    assert proc.stderr == ""  # the adapter's UserWarning included
    assert (tmp_path / "report.json").exists()
