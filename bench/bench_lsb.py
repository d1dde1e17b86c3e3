"""Benchmark: time to certify the textbook float Laplace violation (LSB and precision attacks).

Run as a script from the repository root: ``python bench/bench_lsb.py``.  Prints, for the
textbook ``value + numpy Laplace`` at epsilon = 0.1, the wall time, the samples drawn and the
certified epsilon lower bound for several budgets, plus the cost of the exact membership test
relative to drawing the samples (measured side by side in the same run).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from attacks import load_attacks  # noqa: E402
from attacks.laplace_models import numpy_laplace_model  # noqa: E402
from auditor.adapters.textbook import TextbookLaplace  # noqa: E402
from auditor.core.configs import DEFAULT_LOOKS, AuditConfig  # noqa: E402
from auditor.engine.runner import run_audit  # noqa: E402

EPSILON = 0.1


def certify(attack: str, budget: int, looks: tuple[tuple[float, float], ...]) -> None:
    adapter = TextbookLaplace(epsilon=EPSILON)
    t0 = time.perf_counter()
    report = run_audit(
        [adapter], load_attacks([attack]), AuditConfig(budget=budget, seed=1, looks=looks)
    )
    seconds = time.perf_counter() - t0
    r = report.results[0]
    lb = r.best.estimate.epsilon_lower_bound if r.best else float("nan")
    looks_label = "1 look" if len(looks) == 1 else f"{len(looks)} looks"
    print(
        f"{attack:12s} budget {budget:>9,d} ({looks_label:7s}): {seconds:6.2f} s, "
        f"{r.samples:>9,d} samples, eps_lb = {lb:6.2f}, verdict {r.verdict.value}"
    )


def membership_cost(n: int = 1_000_000) -> None:
    rng = np.random.default_rng(0)
    scale = 1.0 / EPSILON
    t0 = time.perf_counter()
    y = rng.laplace(0.0, scale, n)
    t_draw = time.perf_counter() - t0
    model = numpy_laplace_model(scale)
    t0 = time.perf_counter()
    own = model.reachable(y, 0.0)
    t_self = time.perf_counter() - t0
    t0 = time.perf_counter()
    other = model.reachable(y, 1.0)
    t_cross = time.perf_counter() - t0
    print(
        f"membership of {n:,d} outputs: draw {t_draw:.3f} s; at the true input {t_self:.2f} s "
        f"({t_self / t_draw:.0f}x the draw, self-support {own.mean():.4f}); at the neighbour "
        f"{t_cross:.2f} s ({t_cross / t_draw:.0f}x, unreachable {1 - other.mean():.3f})"
    )


def main() -> None:
    print(f"textbook numpy Laplace, epsilon = {EPSILON}, sensitivity 1, inputs 0 and 1")
    membership_cost()
    for budget in (150_000, 1_000_000):
        certify("lsb-laplace", budget, ((1.0, 1.0),))
    certify("lsb-laplace", 1_000_000, DEFAULT_LOOKS)
    certify("precision", 1_000_000, ((1.0, 1.0),))


if __name__ == "__main__":
    main()
