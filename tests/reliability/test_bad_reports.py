"""A bad baseline or report is refused in one line before any sampling; an unwritable output of
``report`` / ``compare`` is a usage error, never a traceback."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def dp_audit(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "dp_audit", *args], cwd=ROOT, capture_output=True, text=True,
        timeout=120,
    )  # fmt: skip


@pytest.fixture(scope="module")
def good_report(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("good")
    proc = dp_audit(
        "run", "--adapter", "reference.geometric", "--budget", "2000", "--out", str(out), "--quiet"
    )
    assert proc.returncode == 0, proc.stderr
    return out / "report.json"


def broken(report: Path, tmp_path: Path, change) -> Path:
    data = json.loads(report.read_text())
    change(data)
    path = tmp_path / "baseline.json"
    path.write_text(json.dumps(data))
    return path


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda d: d.update(results="x"), "at results, 'x' is not of type 'array'"),
        (lambda d: d["results"][0]["counts"].update(k0=1.5), "1.5 is not of type 'integer'"),
        (lambda d: d["results"][0].pop("verdict"), "'verdict' is a required property"),
    ],
)
def test_a_malformed_baseline_is_refused_before_sampling(good_report, tmp_path, change, message):
    baseline = broken(good_report, tmp_path, change)
    proc = dp_audit(
        "run", "--adapter", "reference.geometric", "--baseline", str(baseline),
        "--out", str(tmp_path / "o"),
    )  # fmt: skip
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert message in proc.stderr and "is not a valid dp-audit/1 report" in proc.stderr
    assert "auditing" not in proc.stderr  # refused before the audit began


def test_a_baseline_that_is_not_utf8_is_refused(tmp_path):
    baseline = tmp_path / "baseline.json"
    baseline.write_bytes(b'{"schema": "dp-audit/1", "x": "\\xff\xff"}')
    proc = dp_audit("run", "--adapter", "reference.geometric", "--baseline", str(baseline))
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "is not UTF-8 text (byte 0xff" in proc.stderr


def test_report_and_compare_into_an_unwritable_place(good_report, tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    for args in (
        ["report", str(good_report), "--format", "md", "--output", str(blocker / "r.md")],
        ["compare", str(good_report), str(good_report), "--out", str(blocker / "cmp")],
    ):
        proc = dp_audit(*args)
        assert proc.returncode == 2 and "Traceback" not in proc.stderr, args
        assert "cannot write" in proc.stderr and "Not a directory" in proc.stderr, proc.stderr
