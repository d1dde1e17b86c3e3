"""A reproducer that cannot replay the audit's draws says so and exits 2 (issue #52, probes 2
and 13): a mechanism whose outputs changed shape or dtype since the audit, or that left its
module's list, is not "not reproduced" (exit 0, read as fixed), nor a traceback."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

LEAKY = """\
import math

import numpy as np


class Leaky:
    name = "leaky.geometric"
    family = "additive"
    epsilon = 0.1
    delta = 0.0
    sensitivity = 1.0
    integer_queries = True

    def __init__(self):
        self._rng = np.random.default_rng()

    def seed(self, entropy):
        self._rng = np.random.default_rng(entropy)

    def sample(self, query, n):
        g = self._rng.geometric(1.0 - math.exp(-3.0), size=(2, n))
        return RETURN


def leaky():
    return ADAPTERS
"""
RELEASE = "int(query) + g[0] - g[1]"
CHANGES = {
    "shape": (f"np.repeat(({RELEASE})[:, None], 3, axis=1)", "[Leaky()]", "have shape (1"),
    "dtype": (f"({RELEASE}) + 0.5", "[Leaky()]", "are float64, the audit's were int64"),
    "missing": (RELEASE, "[]", "holds no adapter named 'leaky.geometric' any more"),
}


@pytest.fixture(scope="module")
def audited(tmp_path_factory) -> Path:
    """A folder with the adapter and the report of its certified violation."""
    folder = tmp_path_factory.mktemp("leaky")
    write(folder, RELEASE, "[Leaky()]")
    proc = subprocess.run(
        [sys.executable, "-m", "dp_audit", "run", "--adapter", f"{folder / 'leaky.py'}:leaky",
         "--budget", "2000", "--attack", "black-box", "--backend", "inline",
         "--out", str(folder / "out")],
        cwd=ROOT, capture_output=True, text=True, timeout=240,
    )  # fmt: skip
    assert proc.returncode == 1, proc.stderr
    return folder


def write(folder: Path, release: str, adapters: str) -> None:
    text = LEAKY.replace("RETURN", release).replace("ADAPTERS", adapters)
    (folder / "leaky.py").write_text(text)


def replay(folder: Path) -> subprocess.CompletedProcess:
    script = folder / "out" / "reproduce" / "leaky.geometric.py"
    return subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=120
    )


def test_the_unchanged_mechanism_reproduces(audited):
    write(audited, RELEASE, "[Leaky()]")
    proc = replay(audited)
    assert proc.returncode == 1 and "VIOLATION REPRODUCED" in proc.stdout, proc.stderr


@pytest.mark.parametrize("change", sorted(CHANGES))
def test_a_mechanism_that_cannot_replay_is_exit_2_in_one_line(audited, change):
    release, adapters, message = CHANGES[change]
    write(audited, release, adapters)
    try:
        proc = replay(audited)
    finally:
        write(audited, RELEASE, "[Leaky()]")
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    assert "Traceback" not in proc.stderr
    assert proc.stderr.strip().startswith("cannot replay: ") and message in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1
    assert "not reproduced" not in proc.stdout
