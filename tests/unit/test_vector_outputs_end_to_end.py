"""A file target of kinds-only adapters through ``dp-audit run``: loaded, audited, reported in
every format, with events on vectors and records described in words."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import jsonschema

ROOT = Path(__file__).resolve().parents[2]
TARGET = ROOT / "tests" / "helpers" / "vector_targets.py"
SCHEMA = json.loads((ROOT / "reports" / "schema" / "report.schema.json").read_text())


def test_vector_and_record_adapters_are_audited_and_reported(tmp_path):
    out = tmp_path / "out"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "dp_audit",
            "run",
            "--adapter",
            f"{TARGET}:adapters",
            "--budget",
            "20000",
            "--seed",
            "1",
            "--out",
            str(out),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 1, proc.stderr  # violations certified
    assert "Traceback" not in proc.stderr
    report = json.loads((out / "report.json").read_text())
    jsonschema.validate(report, SCHEMA)
    results = {r["adapter"]: r for r in report["results"]}
    assert results["veclap(eps=1.0,scale=1.0)"]["verdict"] == "no_violation"
    assert results["veclap(eps=1.0,scale=0.5)"]["verdict"] == "violation"
    assert results["veclap(eps=1.0,scale=0.5)"]["family"] == "vector(l1) → real[query]"
    record = results["max_with_exact_value"]
    assert record["verdict"] == "violation" and "index=" in record["event"]
    assert results["bad_shape"]["verdict"] == "error"
    bad = results["bad_shape"]
    assert "returned shape (16, 2), expected (16, 4)" in bad["error"]
    # every attack of a refused adapter says the same, never "worker has no adapter"
    assert all("expected (16, 4)" in note for note in bad["notes"] if "also failed" in note)
    markdown = (out / "report.md").read_text()
    assert "coordinate" in markdown or "score" in markdown
    assert (out / "report.html").stat().st_size > 0 and (out / "junit.xml").stat().st_size > 0
