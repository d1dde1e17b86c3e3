"""Sequential certification schemes: how soon a violation stops vs how tight the final bound is.

Deterministic (expected counts plugged into the exact bounds), one event per trial with the
probabilities given, per-test alpha = 0.05 / 16 (one black-box trial: 8 events x 2 directions),
20 % of the budget for training.  Schemes:

* ``single``: one look at the end (share 1) -- the tightest final bound, no early stop;
* ``old``: looks at 1/16, 1/4, 1 of the certification samples with shares 0.1, 0.2, 0.7;
* ``more-looks``: looks at 1/256, 1/64, 1/16, 1/4, 1 with shares .02, .03, .05, .1, .8;
* ``pilot`` (implemented): a pilot stage (2,048 training + 2,048 certification outputs per side,
  10 % of alpha) before the main training, then looks 1/16, 1/4, 1 with shares .05, .1, .85 of
  the remaining 90 %;
* ``robbins``: the anytime-valid Robbins / CSM confidence sequence in place of Clopper-Pearson,
  checked every 1,000 certification outputs (estimators.md section 7.1).

"Stop" is the number of outputs per side drawn (training included) when the bound first exceeds
the claim; "final" is the bound at the end of the budget for a correct mechanism.
Run: ``python bench/bench_sequential.py``.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

from scipy import optimize, stats

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from auditor.engine.schedule import PILOT_SIZE, plan_looks  # noqa: E402
from auditor.statistics.clopper_pearson import epsilon_lower_bound  # noqa: E402

ALPHA_TEST = 0.05 / 16
TRAIN = 0.2


def robbins_limits(k: int, n: int, a: float) -> tuple[float, float]:
    """Robbins confidence sequence {p : (n + 1) * Binom(k; n, p) > a} (anytime-valid)."""

    def f(p: float) -> float:
        return math.log(n + 1) + stats.binom.logpmf(k, n, p) - math.log(a)

    mode = k / n
    lo = 0.0 if k == 0 or f(1e-300) > 0 else optimize.brentq(f, 1e-300, mode)
    hi = 1.0 if k == n or f(1 - 1e-16) > 0 else optimize.brentq(f, mode, 1 - 1e-16)
    return lo, hi


def robbins_bound(p0: float, p1: float, n: int, alpha: float) -> float:
    lo, _ = robbins_limits(round(p0 * n), n, alpha / 2)
    _, hi = robbins_limits(round(p1 * n), n, alpha / 2)
    return max(0.0, math.log(lo / hi)) if lo > 0 else 0.0


def cp_bound(p0: float, p1: float, n: int, alpha: float) -> float:
    return epsilon_lower_bound(round(p0 * n), n, round(p1 * n), n, alpha)


SCHEMES = {
    "single": (False, ((1.0, 1.0),)),
    "old": (False, ((1 / 16, 0.1), (1 / 4, 0.2), (1.0, 0.7))),
    "more-looks": (
        False,
        ((1 / 256, 0.02), (1 / 64, 0.03), (1 / 16, 0.05), (1 / 4, 0.1), (1.0, 0.8)),
    ),
    "pilot": (True, ((1 / 16, 0.05), (1 / 4, 0.1), (1.0, 0.85))),
}


def schedule(name: str, budget: int) -> list[tuple[int, int, float]]:
    """(outputs drawn so far per side, certification n, alpha) at each look of a scheme."""
    n_train = math.ceil(budget * TRAIN)
    n_cert = budget - n_train
    if name == "robbins":
        return [(n_train + n, n, ALPHA_TEST) for n in range(1000, n_cert + 1, 1000)]
    pilot, looks = SCHEMES[name]
    out = []
    main = 1.0
    if pilot:
        p = min(PILOT_SIZE, n_train // 4)
        out.append((2 * p, p, ALPHA_TEST * 0.1))
        main = 0.9
    for n, share in plan_looks(looks, n_cert):
        out.append((n_train + n, n, ALPHA_TEST * main * share))
    return out


def run(name: str, p0: float, p1: float, budget: int, claim: float) -> tuple[str, float]:
    stop = "–"
    final = 0.0
    for drawn, n, alpha in schedule(name, budget):
        bound = (robbins_bound if name == "robbins" else cp_bound)(p0, p1, n, alpha)
        final = bound
        if bound > claim and stop == "–":
            stop = f"{drawn:,}"
    return stop, final


def main() -> None:
    budget = 200_000
    e = math.exp
    cases = [
        ("gross: eps = inf on mass 1/2", 0.5, 0.0, 1.0),
        ("Laplace eps 3 vs claim 1", 0.5, 0.5 * e(-3), 1.0),
        ("Laplace eps 1.5 vs claim 1", 0.5, 0.5 * e(-1.5), 1.0),
        ("Laplace eps 1.1 vs claim 1", 0.5, 0.5 * e(-1.1), 1.0),
    ]
    names = ["single", "old", "more-looks", "pilot", "robbins"]
    print(
        f"budget {budget:,} per side, per-test alpha {ALPHA_TEST:.3g}; outputs per side drawn when the violation is certified"
    )
    print("| case | " + " | ".join(names) + " |")
    print("|---|" + "---|" * len(names))
    for text, p0, p1, claim in cases:
        print(f"| {text} | " + " | ".join(run(n, p0, p1, budget, claim)[0] for n in names) + " |")
    print()
    print("final bound on a correct Laplace eps = 1 (oracle event, claim 1: never stops)")
    print("| budget per side | " + " | ".join(names) + " |")
    print("|---|" + "---|" * len(names))
    for b in (10_000, 100_000, 1_000_000):
        row = [f"{run(n, 0.5, 0.5 * e(-1), b, 99.0)[1]:.4f}" for n in names]
        print(f"| {b:,} | " + " | ".join(row) + " |")


if __name__ == "__main__":
    main()
