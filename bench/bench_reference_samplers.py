"""Throughput of the exact reference samplers vs numpy's float Laplace vs OpenDP's exact sampler.

Run:  python bench/bench_reference_samplers.py [n]

All contenders are timed in the same process, interleaved (best of ``REPEATS``), at the same
scale, and the table prints samples/s plus the ratio to the reference discrete Laplace.  numpy's
``Generator.laplace`` is the fast-but-unsafe baseline (float sampler, attackable); OpenDP's
``make_laplace`` on an integer vector domain is the exact-sampler baseline (CKS20 in Rust,
OS randomness) and is skipped with a note when ``opendp`` is not importable.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from fractions import Fraction

import numpy as np

sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parents[1]))

from reference_mechanisms.discrete_gaussian import sample_discrete_gaussian  # noqa: E402
from reference_mechanisms.discrete_laplace import sample_discrete_laplace  # noqa: E402
from reference_mechanisms.float_noise import sample_laplace_float  # noqa: E402
from reference_mechanisms.randomness import SystemRandomness  # noqa: E402
from reference_mechanisms.snapping import sample_snapping, snapping_parameters  # noqa: E402

REPEATS = 3
SCALE = 10


def _best(fn: Callable[[], object]) -> float:
    best = float("inf")
    for _ in range(REPEATS):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def main(n: int = 1_000_000) -> None:
    gen = np.random.default_rng(0)
    sysrng = SystemRandomness()
    contenders: dict[str, Callable[[], object]] = {
        "reference discrete Laplace (numpy Generator)": lambda: sample_discrete_laplace(
            Fraction(SCALE), n, gen
        ),
        "reference discrete Laplace (SystemRandomness)": lambda: sample_discrete_laplace(
            Fraction(SCALE), n, sysrng
        ),
        "reference discrete Gaussian sigma=10 (Generator)": lambda: sample_discrete_gaussian(
            Fraction(SCALE**2), n, gen
        ),
        "reference float Laplace, 2^-20 grid (Generator)": lambda: sample_laplace_float(
            0.5, Fraction(SCALE), n, -20, gen
        ),
        "numpy Generator.laplace (float, unsafe)": lambda: gen.laplace(0.0, SCALE, n),
    }
    snap = snapping_parameters(1.0 / SCALE, 1e4)
    n_snap = max(1, n // 10)
    notes = []
    try:
        import opendp.prelude as dp

        dp.enable_features("contrib")
        meas = dp.m.make_laplace(
            dp.vector_domain(dp.atom_domain(T=int), size=n),
            dp.l1_distance(T=int),
            scale=float(SCALE),
        )
        zeros = [0] * n
        contenders[
            f"OpenDP {dp.__version__ if hasattr(dp, '__version__') else ''} make_laplace (int vector)"
        ] = lambda: meas(zeros)
    except ImportError:
        notes.append("opendp not importable: OpenDP row skipped (pip install 'dp-audit[libs]')")

    rates: dict[str, float] = {}
    for name, fn in contenders.items():
        rates[name] = n / _best(fn)
    rates[f"reference snapping (Generator, n={n_snap})"] = n_snap / _best(
        lambda: sample_snapping(0.0, snap, n_snap, gen)
    )

    ref = rates["reference discrete Laplace (numpy Generator)"]
    print(f"n = {n:,} samples per call, scale {SCALE}, best of {REPEATS}")
    print(f"{'sampler':<62} {'samples/s':>14} {'vs ref DLap':>12}")
    for name, r in rates.items():
        print(f"{name:<62} {r:>14,.0f} {r / ref:>11.2f}x")
    for note in notes:
        print("note:", note)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000)
