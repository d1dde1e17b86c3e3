"""Benchmark: base-2 exponential mechanism on 75,000 outcomes with u(o) = o.

Prints the time to the first sample (validation, rounding/clamping, exact weight tables) and the
throughput of repeated draws from the same prepared utilities, next to a naive float64
exponential mechanism (numpy, the zero-rounding attack's target) measured in the same run, and
the ratio between them.  Run: ``python bench/bench_base2_exponential.py``.
"""

from __future__ import annotations

import time

import numpy as np

from reference_mechanisms.base2_exponential import Base2ExponentialMechanism

K = 75_000
DRAWS = 200_000


def _naive_float(u: np.ndarray, epsilon: float, n: int, rng: np.random.Generator) -> np.ndarray:
    w = np.exp((epsilon / 2.0) * (u - u.max()))
    c = np.cumsum(w / w.sum())
    return np.searchsorted(c, rng.random(n), side="left")


def main() -> None:
    u = np.arange(K, dtype=float)
    rng = np.random.default_rng(0)
    for eps, frac in ((1.0, 0.0), (0.1, 0.0), (0.01, 0.0), (1.0, 0.5)):
        m = Base2ExponentialMechanism(eps, 1.0, (0, K))
        uu = u + frac
        t0 = time.perf_counter()
        m.sample(uu, 1, rng)
        first = time.perf_counter() - t0
        prep = m.prepare(uu)
        t0 = time.perf_counter()
        prep.sample(DRAWS, rng)
        rate = DRAWS / (time.perf_counter() - t0)
        t0 = time.perf_counter()
        _naive_float(uu, eps, DRAWS, rng)
        naive_rate = DRAWS / (time.perf_counter() - t0)
        print(
            f"eps={eps:<4} utilities {'integer' if not frac else 'o + 0.5'}: "
            f"first sample {first * 1e3:7.1f} ms | repeated {rate:12,.0f} samples/s | "
            f"naive float {naive_rate:12,.0f} samples/s | exact/naive = {rate / naive_rate:.2f} | "
            f"refinements {prep.table.refinements}"
        )


if __name__ == "__main__":
    main()
