"""A parameter search never passes an adapter it could not audit (issue #52, probes 1, 3, 14):
an adapter none of whose configurations could be screened, or one that declares a space it
cannot be rebuilt in, ends as an ``error`` verdict (exit 2), and every adapter of a search run
gets its verdict line."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
FILE = HERE / "search_adapters.py"


def search(tmp_path: Path, target: str, *args: str) -> tuple[subprocess.CompletedProcess, dict]:
    out = tmp_path / "out"
    proc = subprocess.run(
        [sys.executable, "-m", "dp_audit", "run", "--adapter", f"{FILE}:{target}", "--search",
         "--configurations", "3", "--finalists", "1", "--budget", "2000", "--attack", "black-box",
         "--backend", "inline", "--out", str(out), *args],
        cwd=ROOT, capture_output=True, text=True, timeout=240,
    )  # fmt: skip
    assert "Traceback" not in proc.stderr, proc.stderr
    report = json.loads((out / "report.json").read_text())
    return proc, {r["adapter"]: r for r in report["results"]}


@pytest.mark.parametrize(
    ("target", "name", "message"),
    [
        ("unknown_parameter", "probe.unknown_parameter", "unexpected keyword argument 'scale'"),
        ("always_raises", "probe.always_raises", "this library accepts no configuration"),
    ],
)
def test_a_search_whose_every_configuration_is_rejected_is_an_error(
    tmp_path, target, name, message
):
    proc, results = search(tmp_path, target)
    assert proc.returncode == 2, proc.stderr
    assert results[name]["verdict"] == "error"
    assert "every one of its 3 configuration(s) was rejected" in results[name]["error"]
    assert message in results[name]["error"]
    # the searchable adapter beside it is still audited, and both verdicts are printed
    (good,) = [r for n, r in results.items() if n.startswith("probe.searchable[")]
    assert good["verdict"] == "no_violation"
    assert f"error  {name}: --search: every one" in proc.stderr
    assert "no_violation  probe.searchable[" in proc.stderr


@pytest.mark.parametrize("target", ["space_without_rebuild", "space_without_rebuild_alone"])
def test_a_space_without_with_parameters_is_an_error_not_a_default_audit(tmp_path, target):
    proc, results = search(tmp_path, target)
    assert proc.returncode == 2, proc.stderr
    assert results["probe.space_only"]["verdict"] == "error"
    assert "no callable 'with_parameters" in results["probe.space_only"]["error"]
    assert results["probe.space_only"]["samples"] == 0  # not audited at its defaults


def test_a_search_over_a_file_target_samples_in_worker_processes(tmp_path):
    """Workers load a configuration from its base adapter's file and rebuild it there, as
    plain runs' workers load file targets: nothing is sampled unisolated in this process."""
    out = tmp_path / "out"
    proc = subprocess.run(
        [sys.executable, "-m", "dp_audit", "run", "--adapter", f"{FILE}:searchable", "--search",
         "--configurations", "2", "--finalists", "1", "--budget", "2000", "--attack", "black-box",
         "--workers", "1", "--out", str(out)],
        cwd=ROOT, capture_output=True, text=True, timeout=240,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    (result,) = json.loads((out / "report.json").read_text())["results"]
    assert result["adapter"].startswith("probe.searchable[") and result["samples"] > 0
    assert not any("in this process" in note for note in result["notes"]), result["notes"]
    assert result["target"] == f"{FILE}:searchable"


def test_a_configuration_that_crashes_its_process_ends_only_that_configuration(tmp_path):
    """Configurations run in worker processes: one that kills its process is an error of its
    own in the screening, and the configurations that work are still audited."""
    out = tmp_path / "out"
    proc = subprocess.run(
        [sys.executable, "-m", "dp_audit", "run", "--adapter",
         f"{FILE}:crashes_at_large_epsilon", "--search", "--configurations", "4",
         "--finalists", "1", "--budget", "2000", "--attack", "black-box", "--workers", "1",
         "--timeout", "30", "--out", str(out)],
        cwd=ROOT, capture_output=True, text=True, timeout=240,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    report = json.loads((out / "report.json").read_text())
    (result,) = report["results"]
    assert result["verdict"] == "no_violation" and result["samples"] > 0
    ranking = report["search"]["adapters"][0]["ranking"]
    crashed = [c for c in ranking if c["error"] and "crashed its worker process" in c["error"]]
    assert crashed and all(c["parameters"]["epsilon"] > 1.2 for c in crashed)
