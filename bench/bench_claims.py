"""Auditing the whole promise: a Gaussian mechanism against its μ-GDP curve, a discrete
Gaussian against its ρ-zCDP claim, beside the (ε, δ)-point audit of the same outputs' budget.

For each budget n (outputs per side per trial), one fixed-n audit (no early stop) with the
statistical attacks only (``black-box``: the float attacks are about the implementation's
floats, not its curve).  Printed: the certified bound in the claim's own parameter, the true
value, their ratio, and the *statistical limit* at the same n: the largest bound any threshold
event can certify if its counts come out at their expected values, with the same
Clopper-Pearson limits at the significance the audit's certification used (the best a
one-event audit can do; the goal at 10^6 is a ratio to the limit of 0.97 or more).

Run: ``python bench/bench_claims.py [--budgets 10000,100000,1000000] [--seed S]``.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
from scipy import stats

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from attacks import load_attacks  # noqa: E402
from auditor.adapters.reference import DiscreteGaussianAdapter  # noqa: E402
from auditor.core.claim_kinds import GaussianDP, ZeroConcentratedDP  # noqa: E402
from auditor.core.claims import PrivacyClaim  # noqa: E402
from auditor.core.configs import AuditConfig  # noqa: E402
from auditor.engine.runner import run_audit  # noqa: E402
from auditor.statistics.clopper_pearson import SPLITS, cp_lower_array, cp_upper_array  # noqa: E402


class Gaussian:
    """y = q + N(0, sigma^2), numpy float64 noise, outputs rounded to 2^-20 (post-processing:
    the same curve, no float artefacts for the float attacks to find)."""

    family = "additive"
    sensitivity = 1.0

    def __init__(self, sigma: float, claim: Any) -> None:
        self.sigma, self.claim = sigma, claim
        self.name = f"gaussian(sigma={sigma:g})"
        self._rng = np.random.default_rng(0)

    def seed(self, seed: int) -> None:
        self._rng = np.random.default_rng(seed)

    def sample(self, query: float, n: int) -> np.ndarray:
        y = float(query) + self._rng.normal(0.0, self.sigma, size=n)
        return np.round(y * 2.0**20) / 2.0**20


def limit(p0: np.ndarray, p1: np.ndarray, n: int, alpha: float, claim: Any) -> float:
    """Best bound over threshold events (both tails) with expected counts at n per side."""
    best = 0.0
    for a, b in ((p0, p1), (1 - p1, 1 - p0)):
        keep = (a > b) & (a > 1e-12)
        a, b = a[keep], b[keep]
        k0 = np.clip(np.round(a * n), 0, n).astype(np.int64)
        k1 = np.clip(np.round(b * n), 0, n).astype(np.int64)
        for split in SPLITS:
            lo = cp_lower_array(k0, n, alpha * split)
            hi = cp_upper_array(k1, n, alpha * (1 - split))
            # 600 thresholds spread over the range (the best GDP/zCDP events are central,
            # the best (eps, delta) ones in the tails), each exactly
            for i in np.unique(np.linspace(0, len(lo) - 1, 600).astype(int)):
                best = max(best, float(claim.certified(float(lo[i]), float(hi[i]))))
    return best


def audit(adapter: Any, claim: Any, budget: int, seed: int) -> tuple[Any, float]:
    t0 = time.perf_counter()
    config = AuditConfig(budget=budget, seed=seed, looks=((1.0, 1.0),), claim=claim)
    report = run_audit([adapter], load_attacks(["black-box"]), config)
    return report.results[0], time.perf_counter() - t0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budgets", default="10000,100000,1000000")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    budgets = [int(b) for b in args.budgets.split(",")]

    t = np.linspace(-8, 9, 20001)
    gaussian = Gaussian(1.0, GaussianDP(1.0))
    gauss_p = (stats.norm.sf(t - 1.0), stats.norm.sf(t))  # P[y > t] at x = 1 and x = 0
    dg = DiscreteGaussianAdapter(epsilon=1.0, delta=1e-5, name="reference.discrete_gaussian")
    sigma2 = float(dg.sigma2)
    rho = 1.0 / (2.0 * sigma2)  # CKS20: the discrete Gaussian is (Δ^2 / 2σ^2)-zCDP
    ks = np.arange(-int(40 * math.sqrt(sigma2)), int(40 * math.sqrt(sigma2)) + 2)
    w = np.exp(-(ks.astype(float) ** 2) / (2 * sigma2))
    w /= w.sum()
    tail = np.cumsum(w[::-1])[::-1]  # P[Z >= k]
    dg_p = (tail[:-1], tail[1:])  # P[y > k] at x = 1 (P[Z >= k]) and at x = 0 (P[Z >= k + 1])
    point = PrivacyClaim(GaussianDP(1.0).epsilon_for_delta(1e-5), 1e-5)

    cases = [
        ("Gaussian σ=1 as μ-GDP", gaussian, GaussianDP(1.0), 1.0, gauss_p),
        ("discrete Gaussian as ρ-zCDP", dg, ZeroConcentratedDP(rho), rho, dg_p),
        (
            f"Gaussian σ=1 as the (ε, δ) point ({point.epsilon:.3f}, 1e-5)",
            gaussian,
            point,
            point.epsilon,
            gauss_p,
        ),
    ]
    print(f"seed {args.seed}; fixed-n audits, black-box attack; bound / true and bound / limit")
    print(
        "| mechanism and claim | n per side | certified | true | bound / true | limit | "
        "bound / limit | verdict | seconds |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for label, adapter, claim, true, (p0, p1) in cases:
        for n in budgets:
            result, seconds = audit(adapter, claim, n, args.seed)
            best = result.best
            bound = best.estimate.bound if best else 0.0
            n_cert = best.estimate.counts.n0 if best else n
            alpha = best.estimate.alpha if best else 0.05
            lim = limit(np.asarray(p0), np.asarray(p1), n_cert, alpha, claim)
            print(
                f"| {label} | {n:,} | {bound:.4f} | {true:.4f} | {bound / true:.3f} | "
                f"{lim:.4f} | {bound / lim if lim else float('nan'):.3f} | "
                f"{result.verdict.value} | {seconds:.1f} |"
            )


if __name__ == "__main__":
    main()
