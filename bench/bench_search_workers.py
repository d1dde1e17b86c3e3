"""Wall time of ``dp-audit run --search`` over a *file* target, with 1 and 2 worker processes.

Usage: ``python bench/bench_search_workers.py [--configurations 8] [--budget 20000]``

The adapter (written to a temporary file, as a user's would be) spends about 0.1 s of pure
Python per ``sample`` call, holding the GIL: sampled in worker processes, two workers take
about half the time of one; sampled in the main process (what issue #52 found for file
targets under ``--search``), they cannot.  Prints both wall times, their ratio, and whether
any result carries the "sampled in this process" note.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ADAPTER = """
import math

import numpy as np

from auditor.core.space import Configurable, Range


class Busy(Configurable):
    name = "bench.busy_geometric"
    family = "additive"
    integer_queries = True
    sensitivity = 1.0
    delta = 0.0
    space = {"epsilon": Range(0.5, 2.0, log=True)}

    def __init__(self, epsilon=1.0):
        self.epsilon = float(epsilon)
        self._rng = np.random.default_rng()

    def seed(self, entropy):
        self._rng = np.random.default_rng(entropy)

    def sample(self, query, n):
        sum(i * i for i in range(400_000))  # ~0.1 s of pure Python, GIL held
        p = -math.expm1(-self.epsilon)
        return int(query) + self._rng.geometric(p, n) - self._rng.geometric(p, n)


def adapters():
    return [Busy()]
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--configurations", type=int, default=8)
    parser.add_argument("--budget", type=int, default=20_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        target = Path(tmp) / "busy.py"
        target.write_text(ADAPTER)
        seconds, notes = {}, {}
        for workers in (1, 2):
            out = Path(tmp) / f"out{workers}"
            start = time.monotonic()
            proc = subprocess.run(
                [sys.executable, "-m", "dp_audit", "run", "--adapter", f"{target}:adapters",
                 "--search", "--configurations", str(args.configurations), "--finalists", "2",
                 "--budget", str(args.budget), "--attack", "black-box", "--workers",
                 str(workers), "--quiet", "--out", str(out)],
                capture_output=True, text=True,
            )  # fmt: skip
            seconds[workers] = time.monotonic() - start
            if proc.returncode != 0:
                print(proc.stderr)
                return 2
            results = json.loads((out / "report.json").read_text())["results"]
            notes[workers] = any("in this process" in n for r in results for n in r["notes"])
    for workers in (1, 2):
        print(
            f"--workers {workers}: {seconds[workers]:.1f} s; "
            f"sampled in the main process: {'yes' if notes[workers] else 'no'}"
        )
    print(f"ratio 1 worker / 2 workers: {seconds[1] / seconds[2]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
