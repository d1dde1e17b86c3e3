"""The conditional test of an event's rate ratio beside the two-limit box, side by side.

``auditor.statistics.conditional`` certifies epsilon from the counts of Poisson-sized samples
by one Clopper-Pearson limit on the share of the x side in the pooled count; the engine's
certificate today is the box of ``auditor.statistics.clopper_pearson`` (a lower limit on x and
an upper limit on x', alpha/2 each).  This script prints, from one run:

1. **Exactness**: at the edge of the null (``p0 = e^epsilon p1`` exactly), how often each test
   certifies more than the true epsilon, over many simulated certifications: the conditional
   test on Poisson-sized samples (must be at most alpha), the same test misused on fixed
   sizes, and the box on fixed sizes.
2. **Tightness**: the bound each test gives at expected counts, and its distance to the
   true log-ratio, for a rare and a common event.
3. **SVT4's limits** (Lyu et al. Alg. 4 at claimed 0.1, true 0.175): the best bound a single
   known event can certify at n outputs per side under each test, for the testers' "first k
   up, the rest down" pairs (``bench_svt_limits``' exact pmf).  StatDP's published 0.1719 is
   the figure to reach.

Run: ``python bench/bench_conditional_test.py [--reps R] [--seed S]`` (about a minute).
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_svt_limits import limit, pmf  # noqa: E402

from auditor.adapters.benchmarks import SVT4  # noqa: E402
from auditor.statistics.clopper_pearson import (  # noqa: E402
    best_predicted_lower_bounds,
    epsilon_lower_bound,
)
from auditor.statistics.conditional import (  # noqa: E402
    conditional_lower_bound,
    predicted_conditional_bounds,
)

ALPHA = 0.05


def exceed_rates(
    epsilon: float, p1: float, n: int, reps: int, rng: np.random.Generator
) -> tuple[float, float, float]:
    """How often each test certifies more than ``epsilon`` when ``p0 = e^epsilon * p1``."""
    p0 = math.exp(epsilon) * p1
    poisson = rng.poisson(n * p0, reps), rng.poisson(n * p1, reps)
    fixed = rng.binomial(n, p0, reps), rng.binomial(n, p1, reps)
    conditional = np.mean(
        [
            conditional_lower_bound(int(a), int(b), n, n, ALPHA) > epsilon
            for a, b in zip(*poisson, strict=True)
        ]
    )
    misused = np.mean(
        [
            conditional_lower_bound(int(a), int(b), n, n, ALPHA) > epsilon
            for a, b in zip(*fixed, strict=True)
        ]
    )
    box = np.mean(
        [
            epsilon_lower_bound(int(a), n, int(b), n, ALPHA) > epsilon
            for a, b in zip(*fixed, strict=True)
        ]
    )
    return float(conditional), float(misused), float(box)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=20_000, help="certifications per cell")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    t0 = time.perf_counter()
    sigma = math.sqrt(ALPHA * (1 - ALPHA) / args.reps)
    print(f"1. Exactness: share of {args.reps:,} certifications above the true epsilon ")
    print(f"   (alpha {ALPHA}; one standard error of a rate near alpha: {sigma:.4f})\n")
    print(
        "| epsilon | p1 | p0 | n | conditional, Poisson sizes | conditional, fixed sizes | box, fixed sizes |"
    )
    print("|---|---|---|---|---|---|---|")
    for epsilon, p1, n in (
        (0.1, 0.01, 10_000),
        (0.1, 0.01, 1_000_000),
        (0.1, 0.3, 10_000),
        (0.1, 0.45, 100_000),
        (1.0, 0.25, 10_000),
        (1.0, 1 / (1 + math.e), 100_000),
    ):
        rates = exceed_rates(epsilon, p1, n, args.reps, rng)
        p0 = math.exp(epsilon) * p1
        print(
            f"| {epsilon} | {p1:.4g} | {p0:.4g} | {n:,} | "
            + " | ".join(f"{r:.4f}" for r in rates)
            + " |"
        )
    print("\n2. Tightness at expected counts: bound (distance to the true log-ratio)\n")
    print("| event | n per side | box | conditional | distance, conditional / box |")
    print("|---|---|---|---|---|")
    for label, epsilon, p1 in (
        ("rare: p1 0.01, ratio e^0.1", 0.1, 0.01),
        ("common: p1 0.3, ratio e^0.1", 0.1, 0.3),
    ):
        p0 = math.exp(epsilon) * p1
        for n in (10**5, 10**6, 10**7, 10**8):
            box = float(best_predicted_lower_bounds(np.array([p0]), np.array([p1]), n, ALPHA)[0])
            cond = float(predicted_conditional_bounds(np.array([p0]), np.array([p1]), n, ALPHA)[0])
            print(
                f"| {label} | {n:.0e} | {box:.5f} ({epsilon - box:.5f}) | "
                f"{cond:.5f} ({epsilon - cond:.5f}) | {(epsilon - cond) / (epsilon - box):.2f} |"
            )
    print(
        "\n3. SVT4 at claimed 0.1 (true 0.175): best single event's limit, box / the better of "
        "the box and the conditional test\n"
    )
    sizes = (2 * 10**7, 10**8, 2 * 10**8, 4 * 10**8)
    print("| pair: first k up | " + " | ".join(f"n = {n:.0e}" for n in sizes) + " |")
    print("|---|" + "---|" * len(sizes))
    mechanism, zero = SVT4(0.1), np.zeros(10)
    for k in range(4, 10):
        y = np.r_[np.ones(k), -np.ones(10 - k)]
        p, q = pmf(mechanism, zero), pmf(mechanism, y)
        cells = [(limit(p, q, n), limit(p, q, n, conditional=True)) for n in sizes]
        print(f"| {k} | " + " | ".join(f"{b:.4f} / {c:.4f}" for b, c in cells) + " |")
    print(f"\n{time.perf_counter() - t0:.0f} s")


if __name__ == "__main__":
    main()
