"""How close the certified bound gets to the statistical limit on a correct Laplace mechanism.

A Laplace mechanism with epsilon = 1 (``SnappedLaplace``: numpy Laplace on a 2^-20 grid, so
that no float artefact exists and only the estimator is measured) is audited by the black-box
attack alone (events learned by ``DataDrivenEvents`` on the training split, certified on fresh
samples, Bonferroni over all events and directions, pilot and staged looks).  ``n`` is the whole
per-side budget (training + certification).  The oracle is the best 95 % Clopper-Pearson bound
with the optimal event known in advance, all n samples used for certification and no
multiplicity, by the box (estimators.md section 5, Appendix F: 0.939, 0.981, 0.994); with
``--conditional-test`` the audits use the conditional test on Poisson-sized samples (section
1.1) and the oracle is the better of the two tests.  Computed here for each n.

Also prints the "no cap" line: a mechanism with epsilon = infinity on an event of probability
1/2 (``HalfLeak``, claimed epsilon 40 so that no look stops early, and no futility check, which
would otherwise cut the trial after its pilot since 40 is out of reach) -- the bound must keep
growing with n (no ln(1/c) cap as in DP-Sniper).

Run: ``python bench/bench_tightness.py [--quick]`` (the n = 1e6 rows take a minute or two).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402
from scipy import stats  # noqa: E402

from attacks.black_box import BlackBoxAttack  # noqa: E402
from auditor.core.configs import AuditConfig  # noqa: E402
from auditor.engine.runner import run_audit  # noqa: E402
from auditor.statistics.clopper_pearson import best_predicted_lower_bounds  # noqa: E402
from auditor.statistics.conditional import predicted_conditional_bounds  # noqa: E402
from bench.correct_mechanisms import HalfLeak, SnappedLaplace  # noqa: E402


def oracle(n: int, conditional: bool = False, alpha: float = 0.05) -> float:
    """The best bound one threshold event on the pair (1, 0) certifies at its expected counts
    on n outputs per side: the box with its best split (``conditional``: or the conditional
    test, whichever is higher)."""
    t = np.linspace(-10.0, 20.0, 30_001)  # the event y > t; y < t gives the same by symmetry
    p0, p1 = stats.laplace.sf(t, loc=1.0), stats.laplace.sf(t, loc=0.0)
    best = float(best_predicted_lower_bounds(p0, p1, n, alpha).max())
    if conditional:
        best = max(best, float(predicted_conditional_bounds(p0, p1, n, alpha).max()))
    return best


def audit(adapter, n: int, seed: int, **settings):
    config = AuditConfig(budget=n, alpha=0.05, seed=seed, **settings)
    report = run_audit([adapter], [BlackBoxAttack()], config)
    return report.results[0], report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="skip n = 1e6, fewer seeds")
    parser.add_argument(
        "--conditional-test", action="store_true", help="certify by the conditional test"
    )
    args = parser.parse_args()
    sizes = [10_000, 100_000] if args.quick else [10_000, 100_000, 1_000_000]
    seeds = {10_000: 5, 100_000: 5, 1_000_000: 3}
    print("Laplace epsilon = 1, alpha = 0.05, black-box events (DataDrivenEvents)")
    print(
        "| n per side (budget) | n certify | tests (Bonferroni) | eps_lb (median of seeds) | min .. max | oracle | ratio | seconds/audit |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for n in sizes:
        values, t0 = [], time.perf_counter()
        for seed in range(seeds[n] if not args.quick else 2):
            result, report = audit(
                SnappedLaplace(1.0), n, seed, conditional_test=args.conditional_test
            )
            values.append(result.epsilon_lower_bound)
            assert result.verdict.value == "no_violation", result
        secs = (time.perf_counter() - t0) / len(values)
        med, limit = statistics.median(values), oracle(n, args.conditional_test)
        print(
            f"| {n:,} | {result.best.n_certify:,} | {report.tests} | {med:.4f} | "
            f"{min(values):.4f} .. {max(values):.4f} | {limit:.4f} | {med / limit:.3f} | {secs:.1f} |"
        )
    print()
    print(
        "No cap: epsilon = infinity on an event of probability 1/2 (claim 40, so no early stop; "
        "no futility check, which would cut the trial after its pilot)"
    )
    print("| n per side (budget) | n certify | eps_lb | event | counts (k0/n0, k1/n1) |")
    print("|---|---|---|---|---|")
    for n in sizes:
        result, _ = audit(HalfLeak(40.0), n, 0, futility=0, conditional_test=args.conditional_test)
        est = result.best.estimate
        c = est.counts
        print(
            f"| {n:,} | {c.n0:,} | {est.epsilon_lower_bound:.3f} | {est.event} | "
            f"{c.k0}/{c.n0}, {c.k1}/{c.n1} |"
        )


if __name__ == "__main__":
    main()
