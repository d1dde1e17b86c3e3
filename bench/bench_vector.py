"""Vector outputs: tightness on a correct vector Laplace, and memory on a 1,000-bin histogram.

1. **Tightness.**  A correct vector Laplace (d = 5, L1 sensitivity 1, epsilon = 1; noise on a
   2^-20 grid so that no float artefact exists) is audited by the pair search alone at
   ``--n`` outputs per side (default 10^6).  The statistical limit is the best bound any
   single event can certify at that n with the run's alpha and no multiplicity: the event is
   a threshold on the moved coordinate, ``y_0 > t``, with its exact probabilities
   (``S(t - 1)`` vs ``S(t)``, S the Laplace survival function), maximised over t and the
   alpha split.  The goal is eps_lb >= 0.95 x limit.  The audit certifies fixed-n (as
   ``--no-early-stop``): with the default early stop, the futility check cuts a trial on a
   correct mechanism after its pilot (no violation is possible), and the bound reported is
   then the pilot's, on 2,048 outputs (docs/estimators.md, "Futility").
2. **Memory.**  A d = 1,000 histogram (vector discrete Laplace, integer counts) audited at the
   default budget in a child process (in-process sampling, so the child's peak RSS is the
   audit's): verdict, wall time and peak RSS.

Run: ``python bench/bench_vector.py [--n N] [--skip-memory]``.
"""

from __future__ import annotations

import argparse
import math
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from attacks.pair_search import PairSearchAttack  # noqa: E402
from auditor.adapters.base import SeededAdapter  # noqa: E402
from auditor.core.configs import AuditConfig  # noqa: E402
from auditor.engine.runner import run_audit  # noqa: E402
from auditor.statistics.clopper_pearson import SPLITS, epsilon_lower_bound  # noqa: E402
from auditor.statistics.conditional import conditional_lower_bound  # noqa: E402

GRID = 2.0**-20


class SnappedVectorLaplace(SeededAdapter):
    """``query + Lap(1/epsilon)`` per entry, on a 2^-20 grid (L1 sensitivity 1)."""

    input_kind = "vector"
    norm = "l1"
    output_kind = "real"
    output_length = "query"
    integer_queries = True

    def __init__(self, epsilon: float = 1.0, d: int = 5) -> None:
        super().__init__()
        self.epsilon, self.delta, self.sensitivity, self.query_length = epsilon, 0.0, 1, d
        self.name = f"bench.vector-laplace(eps={epsilon:g},d={d})"

    def sample(self, query: Any, n: int) -> np.ndarray:
        q = np.asarray(query, dtype=float)
        noise = self._rng.laplace(0.0, 1.0 / self.epsilon, size=(n, len(q)))
        return q + np.round(noise / GRID) * GRID


class Histogram(SeededAdapter):
    """Counts plus two-sided geometric (discrete Laplace) noise per bin: epsilon-DP for L1
    sensitivity 1."""

    input_kind = "vector"
    norm = "l1"
    output_kind = "integer"
    output_length = "query"
    integer_queries = True

    def __init__(self, epsilon: float = 1.0, d: int = 1000) -> None:
        super().__init__()
        self.epsilon, self.delta, self.sensitivity, self.query_length = epsilon, 0.0, 1, d
        self.name = f"bench.histogram(eps={epsilon:g},d={d})"

    def sample(self, query: Any, n: int) -> np.ndarray:
        q = np.asarray(query, dtype=np.int64)
        p = -math.expm1(-self.epsilon)
        shape = (n, len(q))
        return q + self._rng.geometric(p, shape) - self._rng.geometric(p, shape)


def laplace_limit(epsilon: float, n: int, alpha: float, conditional: bool = False) -> float:
    """Best certifiable bound of one threshold event on a Laplace pair one apart: by the box
    with its best split, or (``conditional``: as the certifier chooses with
    ``--conditional-test``) by the better of that and the conditional test."""
    best = 0.0
    for t in np.linspace(-2, 12, 2001):
        # x = 1 (numerator) and x' = 0: P(1 + L > t) and P(L > t)
        p0 = 0.5 * math.exp(-epsilon * (t - 1)) if t >= 1 else 1 - 0.5 * math.exp(epsilon * (t - 1))
        p1 = 0.5 * math.exp(-epsilon * t) if t >= 0 else 1 - 0.5 * math.exp(epsilon * t)
        k0, k1 = round(p0 * n), round(p1 * n)
        for split in SPLITS:
            best = max(best, epsilon_lower_bound(k0, n, k1, n, alpha, 0.0, split))
        if conditional:
            best = max(best, conditional_lower_bound(k0, k1, n, n, alpha))
    return best


def tightness(n: int, seeds: int, conditional: bool = False) -> None:
    print(f"Tightness: vector Laplace d = 5, L1 sensitivity 1, eps = 1, n = {n:,} per side")
    print("| seed | eps_lb | statistical limit | ratio | pair | event | seconds |")
    print("|---|---|---|---|---|---|---|")
    limit = laplace_limit(1.0, n, 0.05, conditional)
    for seed in range(seeds):
        t0 = time.perf_counter()
        config = AuditConfig(budget=n, seed=seed, looks=((1.0, 1.0),), conditional_test=conditional)
        report = run_audit([SnappedVectorLaplace()], [PairSearchAttack()], config)
        (r,) = report.results
        assert r.verdict.value == "no_violation", r
        pair = r.best.trial.split(" (chosen")[0]
        print(
            f"| {seed} | {r.epsilon_lower_bound:.4f} | {limit:.4f} | "
            f"{r.epsilon_lower_bound / limit:.3f} | {pair} | {r.best.estimate.event} | "
            f"{time.perf_counter() - t0:.1f} |"
        )


def memory() -> None:
    root = str(Path(__file__).resolve().parents[1])
    code = (
        f"import sys, time; sys.path.insert(0, {root!r});"
        "from bench.bench_vector import Histogram, PairSearchAttack, AuditConfig, run_audit;"
        "from attacks import load_attacks;"
        "t = time.perf_counter();"
        "r = run_audit([Histogram()], load_attacks(None), AuditConfig()).results[0];"
        "print(r.verdict.value, round(r.epsilon_lower_bound, 4), r.samples, "
        "round(time.perf_counter() - t, 1))"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    verdict, bound, samples, seconds = proc.stdout.split()
    rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    print()
    print("Memory: d = 1,000 histogram (vector discrete Laplace, eps = 1), default budget, all")
    print("default attacks, sampled in-process")
    print("| verdict | eps_lb | outputs drawn | seconds | peak RSS (MB) |")
    print("|---|---|---|---|---|")
    print(f"| {verdict} | {bound} | {int(samples):,} | {seconds} | {rss:.0f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1_000_000, help="outputs per side")
    parser.add_argument("--seeds", type=int, default=1)
    parser.add_argument("--skip-memory", action="store_true")
    parser.add_argument(
        "--conditional-test", action="store_true", help="certify by the conditional test"
    )
    args = parser.parse_args()
    tightness(args.n, args.seeds, args.conditional_test)
    if not args.skip_memory:
        memory()


if __name__ == "__main__":
    main()
