"""Calibration of the parameter search: seeded searches over correct mechanisms' spaces must
certify no violation (the screening spends no alpha; the finalists share the run's alpha).

Each search screens ``--configurations`` points of an exactly private mechanism's space and
certifies the ``--finalists`` most suspicious ones, with every attack that applies.  The
mechanisms: discrete Laplace (epsilon in [0.05, 5], integer sensitivity in [1, 1000], both on a
log scale) and randomized response (epsilon in [0.05, 5]).  As a power control, the same search
over a discrete Laplace whose sensitivity is silently capped at 16 must find violations.
Writes nothing; paste the printed table into docs/calibration.md.

Run: ``python bench/calibration_search.py [--searches 100] [--budget 20000]``.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from attacks import load_attacks  # noqa: E402
from auditor.adapters.base import SeededAdapter  # noqa: E402
from auditor.core.configs import AuditConfig  # noqa: E402
from auditor.core.space import Range  # noqa: E402
from auditor.engine.parameter_search import SearchConfig, search_audit  # noqa: E402

EPSILON = Range(0.05, 5.0, log=True)


class DiscreteLaplace(SeededAdapter):
    """``query + G1 - G2``, G ~ Geometric(1 - exp(-epsilon / sensitivity)): exactly
    epsilon-DP for integer queries ``sensitivity`` apart; ``cap`` < inf is the planted bug."""

    family = "additive"
    integer_queries = True
    space = {"epsilon": EPSILON, "sensitivity": Range(1, 1000, log=True, integer=True)}

    def __init__(self, epsilon: float = 1.0, sensitivity: int = 1, cap: float = math.inf):
        super().__init__()
        self.epsilon, self.delta, self.sensitivity = float(epsilon), 0.0, int(sensitivity)
        self.cap = cap
        self.name = "calibration.discrete_laplace" + ("" if cap == math.inf else ".capped")

    def with_parameters(self, **values: Any) -> DiscreteLaplace:
        return DiscreteLaplace(cap=self.cap, **values)

    def sample(self, query: Any, n: int) -> np.ndarray:
        p = -math.expm1(-self.epsilon / min(self.sensitivity, self.cap))
        return int(query) + self._rng.geometric(p, n) - self._rng.geometric(p, n)


class RandomizedResponse(SeededAdapter):
    """Warner's randomized response: the true bit with probability e^eps / (1 + e^eps)."""

    family = "binary"
    space = {"epsilon": EPSILON}

    def __init__(self, epsilon: float = 1.0) -> None:
        super().__init__()
        self.epsilon, self.delta = float(epsilon), 0.0
        self.name = "calibration.randomized_response"

    def with_parameters(self, **values: Any) -> RandomizedResponse:
        return RandomizedResponse(**values)

    def sample(self, query: Any, n: int) -> np.ndarray:
        keep = self._rng.random(n) < math.exp(self.epsilon) / (1.0 + math.exp(self.epsilon))
        return np.where(keep, int(query), 1 - int(query)).astype(np.int64)


def violations(adapter: Any, seed: int, args: argparse.Namespace) -> int:
    config = AuditConfig(budget=args.budget, seed=seed, alpha=args.alpha)
    search = SearchConfig(configurations=args.configurations, finalists=args.finalists)
    report = search_audit([adapter], load_attacks(), config, search)
    return sum(r.verdict.value == "violation" for r in report.results)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--searches", type=int, default=100)
    parser.add_argument("--controls", type=int, default=10)
    parser.add_argument("--budget", type=int, default=20_000)
    parser.add_argument("--configurations", type=int, default=16)
    parser.add_argument("--finalists", type=int, default=3)
    parser.add_argument("--alpha", type=float, default=0.05)
    args = parser.parse_args()
    t0 = time.perf_counter()
    rows = []
    for make in (DiscreteLaplace, RandomizedResponse):
        false = sum(violations(make(), seed, args) > 0 for seed in range(args.searches))
        rows.append((make().name, args.searches, false))
        print(
            f"{make().name}: {false} of {args.searches} searches reported a violation", flush=True
        )
    caught = sum(
        violations(DiscreteLaplace(cap=16), seed, args) > 0 for seed in range(args.controls)
    )
    seconds = time.perf_counter() - t0
    print()
    print(
        f"{args.configurations} configurations screened and {args.finalists} certified per "
        f"search, budget {args.budget:,}, alpha {args.alpha:g}, all attacks; {seconds:.0f} s"
    )
    print("| correct mechanism | searches | searches with a violation |")
    print("|---|---|---|")
    for name, n, false in rows:
        print(f"| {name} | {n} | {false} |")
    print(
        f"\npower control: discrete Laplace with its sensitivity capped at 16: "
        f"{caught} of {args.controls} searches found a violation"
    )


if __name__ == "__main__":
    main()
