"""User mistakes of issue #52 end in one line on stderr and exit 2, before anything is sampled
and without touching the user's files: a report folder holding files dp-audit did not write,
an empty ``--out``, a huge ``--configurations``, a ``tool`` that is not a table, and
``action/try-locally.sh`` on a missing folder."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def dp_audit(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "dp_audit", *args], cwd=cwd, capture_output=True, text=True,
        timeout=240,
    )  # fmt: skip


def one_line_error(proc: subprocess.CompletedProcess, piece: str) -> None:
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("dp-audit: error: "), proc.stderr
    assert piece in proc.stderr


RUN = ("run", "--adapter", "reference.geometric", "--budget", "2000", "--backend", "inline")


def test_out_holding_the_users_files_is_refused_and_left_alone(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "report.md").write_text("my own notes")
    (docs / "guide.md").write_text("more notes")
    proc = dp_audit(tmp_path, *RUN, "--out", "docs")
    one_line_error(proc, "holds files dp-audit did not write (guide.md, report.md)")
    assert sorted(p.name for p in docs.iterdir()) == ["guide.md", "report.md"]
    assert (docs / "report.md").read_text() == "my own notes"


def test_out_beside_a_report_of_ours_is_refused_but_a_rerun_is_not(tmp_path):
    assert dp_audit(tmp_path, *RUN, "--out", "out", "--quiet").returncode == 0
    assert dp_audit(tmp_path, *RUN, "--out", "out", "--quiet").returncode == 0  # a rerun
    (tmp_path / "out" / "notes.txt").write_text("mine")
    proc = dp_audit(tmp_path, *RUN, "--out", "out")
    one_line_error(proc, "holds files dp-audit did not write (notes.txt)")
    assert (tmp_path / "out" / "notes.txt").read_text() == "mine"


@pytest.mark.parametrize("out", ["", "."])
def test_an_empty_out_or_the_current_folder_is_refused(tmp_path, out):
    (tmp_path / "keep.txt").write_text("mine")
    proc = dp_audit(tmp_path, *RUN, "--out", out)
    one_line_error(proc, "--out")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["keep.txt"]


def test_huge_configurations_is_a_usage_error_not_a_memory_error(tmp_path):
    proc = dp_audit(tmp_path, *RUN, "--search", "--configurations", "1000000000", "--out", "o")
    one_line_error(proc, "expected at most 100,000 configurations")
    assert "MemoryError" not in proc.stderr


def test_a_tool_that_is_not_a_table_is_a_usage_error(tmp_path):
    (tmp_path / "pyproject.toml").write_text('tool = "x"\n')
    proc = dp_audit(tmp_path, *RUN, "--out", "o")
    one_line_error(proc, "'tool' must be a table")


def test_run_help_lists_every_project_setting():
    proc = dp_audit(ROOT, "run", "--help")
    assert proc.returncode == 0
    text = " ".join(proc.stdout.split())
    for key in ("loop-budget", "futility", "conditional-test", "timeout", "workers", "out"):
        assert key in text.split("pyproject.toml (")[1].split(")")[0]


def test_try_locally_on_a_missing_folder_is_exit_2_with_a_message(tmp_path):
    proc = subprocess.run(
        ["bash", str(ROOT / "action" / "try-locally.sh"), str(tmp_path / "missing")],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert proc.returncode == 2
    assert "does not exist" in proc.stderr
