"""How far the sparse-vector bounds are from what any sound test could certify at their size.

For SVT1, SVT4 (cutoff 1: the output is where the first ⊤ falls) and SVT6 (no cutoff: one of
2^10 answer patterns), the exact output distribution on any input pair is a one-dimensional
integral over the threshold noise (computed here on a fine grid).  From it, the *statistical
limit* of a pair at n outputs per side: the best event's Clopper-Pearson bound at its expected
counts, with the run's whole family-wise alpha spent on that one event (the best split between
the two limits) -- an upper envelope of what one certified event could show, with the event
known in advance and no multiplicity.

The script audits each mechanism (``bench_benchmarks``' fixed-n run at ``--budget``), then
prints our bound beside the limit of the pair the run chose and of the best pair among the
testers' patterns ("the first k up, the rest down"), both at the run's certification size,
and the published figures.  A published figure above the limit was certified on more outputs
or at a lower confidence (DP-Sniper states 0.9).

``--all-moves N`` instead prints, for SVT4, the limit at N outputs per side of every one of the
3^10 pairs "zero queries, each moved by -1, 0 or +1" (all neighbours of zero under L-inf
sensitivity 1), best first: whether any pair beats the testers' patterns (a few minutes).

Run: ``python bench/bench_svt_limits.py [--budget N] [--seed S] [--conditional-test]
[--all-moves N]`` (about a minute at 2e6).
"""

from __future__ import annotations

import argparse
import itertools
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
from scipy import stats

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from attacks import load_attacks  # noqa: E402
from auditor.adapters.benchmarks import PUBLISHED_FIGURES, SVT1, SVT4, SVT6  # noqa: E402
from auditor.core.configs import AuditConfig, EngineConfig  # noqa: E402
from auditor.engine.runner import run_audit  # noqa: E402
from auditor.statistics.clopper_pearson import best_predicted_lower_bounds  # noqa: E402
from auditor.statistics.conditional import predicted_conditional_bounds  # noqa: E402

#: points of the threshold-noise grid (+-30 scales): the pmfs sum to 1 within 1e-9
GRID = 24_001
ALPHA = 0.05


def first_above_pmf(weight: np.ndarray, above: np.ndarray) -> np.ndarray:
    """The cutoff-1 pmf (position of the first ⊤, or none) from each query's chance of ⊤ at
    every threshold-noise grid point (rows of ``above``; ``weight``: the grid's masses)."""
    out, none_yet = [], np.ones(above.shape[1])
    for a in above:
        out.append(weight @ (none_yet * a))
        none_yet = none_yet * (1 - a)
    return np.array([*out, weight @ none_yet])


def quadrature(mechanism: SVT1 | SVT4 | SVT6) -> tuple[np.ndarray, Callable[[float], np.ndarray]]:
    """The threshold-noise grid's masses, and a query value's chance of ⊤ at every grid point."""
    rho_scale, nu_scale = mechanism.rho_scale(), mechanism.nu_scale()
    assert nu_scale is not None
    rho = np.linspace(-30 * rho_scale, 30 * rho_scale, GRID)
    weight = stats.laplace.pdf(rho, scale=rho_scale) * (rho[1] - rho[0])
    return weight, lambda qi: stats.laplace.sf(mechanism.threshold + rho - qi, scale=nu_scale)


def pmf(mechanism: SVT1 | SVT4 | SVT6, q: np.ndarray) -> np.ndarray:
    """Exact (to quadrature) output distribution of a Lyu et al. SVT on queries ``q``: the
    position of the first ⊤ (or none) with cutoff 1; every answer pattern without cutoff."""
    weight, chance = quadrature(mechanism)
    above = np.stack([chance(qi) for qi in q])
    if mechanism.cutoff == 1:
        return first_above_pmf(weight, above)
    assert mechanism.cutoff is None
    patterns = np.array(list(itertools.product([0.0, 1.0], repeat=len(q))))
    with np.errstate(divide="ignore"):
        log_p = patterns @ np.log(above) + (1 - patterns) @ np.log1p(-above)
    return np.exp(log_p) @ weight


def limit(p: np.ndarray, q: np.ndarray, n: int, conditional: bool = False) -> float:
    """The largest predicted bound of a top-ranked union of outcomes (either direction, every
    alpha split the engine may choose; ``conditional``: also the conditional test, which the
    engine may choose with ``--conditional-test``)."""
    best = 0.0
    for a, b in ((p, q), (q, p)):
        order = np.argsort(-(np.log(a) - np.log(b)))
        pa, pb = np.cumsum(a[order])[:-1], np.cumsum(b[order])[:-1]
        best = max(best, float(np.max(best_predicted_lower_bounds(pa, pb, n, ALPHA))))
        if conditional:
            best = max(best, float(np.max(predicted_conditional_bounds(pa, pb, n, ALPHA))))
    return best


def all_moves(mechanism: SVT4, n: int, conditional: bool, shown: int = 10) -> None:
    """Print the ``shown`` largest limits at ``n`` over every pair (0, y), y in {-1, 0, 1}^m."""
    weight, chance = quadrature(mechanism)
    above = {v: chance(v) for v in (-1, 0, 1)}
    m = 10
    base = first_above_pmf(weight, np.stack([above[0]] * m))
    t0 = time.perf_counter()
    limits = []
    for y in itertools.product((-1, 0, 1), repeat=m):
        p = first_above_pmf(weight, np.stack([above[v] for v in y]))
        limits.append((limit(base, p, n, conditional), y))
    limits.sort(reverse=True)
    print(
        f"{mechanism.name}: the {shown} largest limits at {n:,} outputs per side of the "
        f"{len(limits):,} pairs (0, y), y in {{-1, 0, 1}}^{m} ({time.perf_counter() - t0:.0f} s)"
    )
    for value, y in limits[:shown]:
        print(f"{value:.5f}  y = {list(y)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budget", type=int, default=2_000_000, help="outputs per side")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--conditional-test", action="store_true", help="certify by the conditional test"
    )
    parser.add_argument(
        "--all-moves",
        type=float,
        default=None,
        metavar="N",
        help="print SVT4's limits at N outputs per side over every move in {-1, 0, 1}^10",
    )
    args = parser.parse_args()
    if args.all_moves is not None:
        all_moves(SVT4(0.1), int(args.all_moves), args.conditional_test)
        return
    print(
        f"Sparse vector at claimed 0.1, budget {args.budget:,} per side, seed {args.seed}, "
        f"fixed-n; limits at the run's certification size, alpha {ALPHA} on one event"
    )
    print(
        "| mechanism | ε_lb | chosen pair | its limit | best pair's limit (k) | "
        "ε_lb / larger limit | DP-Sniper | StatDP | seconds |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for mechanism in (SVT1(0.1), SVT4(0.1), SVT6(0.1)):
        t0 = time.perf_counter()
        report = run_audit(
            [mechanism],
            load_attacks(None),
            AuditConfig(
                budget=args.budget,
                seed=args.seed,
                looks=((1.0, 1.0),),
                conditional_test=args.conditional_test,
            ),
            engine=EngineConfig(),
        )
        seconds = time.perf_counter() - t0
        (result,) = report.results
        best = result.best
        assert best is not None
        n = best.n_certify
        x, x_prime = np.asarray(best.x, dtype=float), np.asarray(best.x_prime, dtype=float)
        chosen = limit(pmf(mechanism, x), pmf(mechanism, x_prime), n, args.conditional_test)
        zero = np.zeros(10)
        pairs = [np.r_[np.ones(k), -np.ones(10 - k)] for k in range(11)]
        limits = [
            limit(pmf(mechanism, zero), pmf(mechanism, y), n, args.conditional_test) for y in pairs
        ]
        k = int(np.argmax(limits))
        sniper, statdp = PUBLISHED_FIGURES.get(mechanism.name, (None, None))
        shown = (x_prime - x).astype(int).tolist()
        print(
            f"| {mechanism.name} | {result.epsilon_lower_bound:.4f} | x' - x = {shown} | "
            f"{chosen:.4f} | {limits[k]:.4f} (k={k}) | "
            f"{result.epsilon_lower_bound / max(chosen, limits[k]):.2f}"
            f" | {sniper} | {statdp} | {seconds:.0f} |"
        )


if __name__ == "__main__":
    main()
