"""What the futility check costs in power: one event, simulated, with and without the check.

Usage: ``python bench/bench_futility.py [--reps 3000] [--futility 0.05 0.1 0.2 0.3]``

A trial of the default audit's shape: budget 200,000 per side, 20 % training (40,000 per side),
looks 1/16, 1/4, 1 of the 160,000 certification outputs (shares 0.05, 0.1, 0.85 of the main
0.9 of the test's alpha), per-test alpha 2.1e-5 (the default run's).  One event with P = p1 on
x' and e^eps * p1 on x.  For each true eps the table shows the probability that the main looks
certify a violation (claim 1), the same probability with the futility check at each level (a
trial it cuts draws no main certification output: its pilot, the same in both designs and not
simulated here, keeps its bound), and how often the check cuts.  The check is the certifier's
own arithmetic (``Certifier._optimistic_bound``) on one event; in an audit it takes the most
hopeful of all proposed events, chosen on the same training split, so it cuts less often than
here.
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from auditor.statistics.clopper_pearson import (  # noqa: E402
    SPLITS,
    best_splits,
    cp_lower_array,
    cp_upper_array,
    epsilon_lower_bound,
    predicted_lower_bounds,
)

ALPHA_TEST, MAIN = 2.1e-5, 0.9
LOOKS = ((10_000, 0.05), (40_000, 0.10), (160_000, 0.85))
N_TRAIN, N_CERT, CLAIM = 40_000, 160_000, 1.0


def certified(
    k0: np.ndarray, k1: np.ndarray, n: int, alpha: float, split: np.ndarray
) -> np.ndarray:
    return np.array(
        [
            epsilon_lower_bound(int(a), n, int(b), n, alpha, 0.0, float(s)) > CLAIM
            for a, b, s in zip(k0, k1, split, strict=True)
        ]
    )


def simulate(
    eps: float, p1: float, levels: list[float], reps: int, rng: np.random.Generator
) -> tuple[float, dict[float, tuple[float, float]]]:
    p0 = min(1.0, p1 * math.exp(eps))
    t0, t1 = rng.binomial(N_TRAIN, p0, reps), rng.binomial(N_TRAIN, p1, reps)
    q0, q1 = (t0 + 0.5) / (N_TRAIN + 1), (t1 + 0.5) / (N_TRAIN + 1)
    final_alpha = ALPHA_TEST * MAIN * LOOKS[-1][1]
    steps = [LOOKS[0][0]] + [LOOKS[i][0] - LOOKS[i - 1][0] for i in range(1, len(LOOKS))]
    c0 = np.cumsum([rng.binomial(m, p0, reps) for m in steps], axis=0)
    c1 = np.cumsum([rng.binomial(m, p1, reps) for m in steps], axis=0)
    split = best_splits(q0, q1, N_CERT, final_alpha)
    full = np.zeros(reps, dtype=bool)
    for i, (n, share) in enumerate(LOOKS):
        full |= certified(c0[i], c1[i], n, ALPHA_TEST * MAIN * share, split)
    out = {}
    for gamma in levels:
        high, low = cp_upper_array(t0, N_TRAIN, gamma), cp_lower_array(t1, N_TRAIN, gamma)
        hope = np.max(
            [predicted_lower_bounds(high, low, N_CERT, final_alpha, 0.0, s) for s in SPLITS],
            axis=0,
        )
        cut = hope <= CLAIM
        out[gamma] = (float((full & ~cut).mean()), float(cut.mean()))
    return float(full.mean()), out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=3000)
    parser.add_argument("--futility", type=float, nargs="+", default=[0.05, 0.1, 0.2, 0.3])
    args = parser.parse_args(argv)
    rng = np.random.default_rng(7)
    head = " | ".join(f"{g:g}: power cut" for g in args.futility)
    print(f"p1     eps   full  | {head}")
    for p1, grid in (
        (0.18, (1.0, 1.02, 1.03, 1.04, 1.05, 1.06)),
        (0.02, (1.0, 1.04, 1.08, 1.1, 1.12, 1.15, 1.2)),
    ):
        for eps in grid:
            full, by_level = simulate(eps, p1, args.futility, args.reps, rng)
            cells = " | ".join(f"{power:.3f} {cut:.2f}" for power, cut in by_level.values())
            print(f"{p1:<6} {eps:.2f}  {full:.3f} | {cells}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
