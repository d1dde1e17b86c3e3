"""The four report files are one unit: a kill while writing, a full disk or a second run into the
same folder never leaves files of two runs side by side."""

from __future__ import annotations

import errno
import random
import subprocess
import sys
import time
from pathlib import Path

import pytest

from reports import writing
from reports.writing import FolderBusy, hold, write_report_set

NAMES = ("report.json", "report.md", "report.html", "junit.xml")
ROOT = Path(__file__).resolve().parents[2]

WRITER = """
import sys
from reports.writing import write_report_set
out, i, NAMES = sys.argv[1], 0, sys.argv[2:]
big = "x" * 2_000_000  # a few ms per file: kills land while files are being written
while True:
    i += 1
    write_report_set(out, {name: f"run {i}\\n{big}" for name in NAMES})
"""


def run_ids(out: Path) -> set[str]:
    return {(out / name).read_text().split("\n", 1)[0] for name in NAMES}


def test_a_kill_at_any_moment_leaves_one_whole_set(tmp_path):
    out = tmp_path / "out"
    write_report_set(out, {name: "run 0\n" for name in NAMES})
    rng = random.Random(7)
    for _trial in range(25):
        writer = subprocess.Popen([sys.executable, "-c", WRITER, str(out), *NAMES], cwd=ROOT)
        time.sleep(rng.uniform(0.3, 0.8))
        writer.kill()
        writer.wait()
        assert sorted(p.name for p in out.iterdir()) == sorted(NAMES)
        assert len(run_ids(out)) == 1  # all four files from one run
    leftovers = [p.name for p in tmp_path.iterdir() if p.name != "out"]
    assert all(name.startswith(".out.") for name in leftovers)  # staging folders only, hidden
    # the next run to take the folder removes them: nobody else can be writing it
    hold(out).close()
    assert [p.name for p in tmp_path.iterdir()] == ["out"]


def test_a_full_disk_leaves_the_previous_set_in_place(tmp_path, monkeypatch):
    out = tmp_path / "out"
    write_report_set(out, {name: "run 1\n" for name in NAMES})
    real, written = writing.write_atomic, []

    def fills_the_disk(path, text):
        if len(written) == 2:
            raise OSError(errno.ENOSPC, "No space left on device")
        written.append(path)
        return real(path, text)

    monkeypatch.setattr(writing, "write_atomic", fills_the_disk)
    with pytest.raises(OSError, match="No space left"):
        write_report_set(out, {name: "run 2\n" for name in NAMES})
    assert run_ids(out) == {"run 1"}
    assert [p.name for p in tmp_path.iterdir() if p.name != "out"] == []  # staging removed


def test_a_second_run_into_the_same_folder_is_refused(tmp_path):
    out = tmp_path / "out"
    held = hold(out)
    try:
        with pytest.raises(FolderBusy):
            hold(out)  # another descriptor: flock locks are per open file
        proc = subprocess.run(
            [sys.executable, "-m", "dp_audit", "run", "--adapter", "textbook.laplace*",
             "--budget", "2000", "--out", str(out)],
            cwd=ROOT, capture_output=True, text=True, timeout=120,
        )  # fmt: skip
    finally:
        held.close()
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "is being written by another dp-audit run" in proc.stderr
    hold(out).close()  # free again once the first run is gone
    assert [p.name for p in tmp_path.iterdir()] == ["out"]  # no lock file left beside it
