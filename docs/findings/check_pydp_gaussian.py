#!/usr/bin/env python3
"""Independent check: python-dp (PyDP) GaussianMechanism.add_noise leaks its input through the
float grid of its output.

Standalone: uses only the Python standard library, numpy, scipy and python-dp (pydp).  It
does NOT import anything from dp-audit (no auditor, attacks, reports, reference_mechanisms).
PyDP draws from the C++ library's own secure generator and cannot be seeded, so every run
draws different outputs (the counts vary from run to run; the zero at x' does not).

Claim: (epsilon, delta) = (1, 1e-5)-DP, L2 sensitivity 1.  Inputs x = 0.0 and x' = 1.0.
Event E = "the released double is not an integer multiple of 2^-53".

Why P[M(x') in E] = 0 exactly: add_noise returns fl(r + t) with r = x rounded to the noise
granularity (1.0 stays 1.0) and t a double.  For any double t, fl(1.0 + t) is a multiple
of 2^-53: if |result| >= 1/2 by the float format (spacing >= 2^-53 there); otherwise
t is in (-3/2, -1/2), a multiple of 2^-53 itself, and 1.0 + t is exact (Sterbenz lemma).
At x = 0.0 the output is t itself; the noise is a multiple of its granularity, which the
script observes to be 2^-54 here (finer than 2^-53), so outputs with |t| < 1/2 can be odd
multiples of 2^-54.

Statistics: one-sided Clopper-Pearson limits at level a on each side, then
    eps_lb = ln((p0_lo - delta) / p1_hi),
valid at confidence >= 1 - 2a.  Exit status: 1 if eps_lb > epsilon, else 0.
"""

from __future__ import annotations

import math
import sys
from importlib.metadata import version

import numpy as np
import pydp
import scipy
from pydp.algorithms.numerical_mechanisms import GaussianMechanism, LaplaceMechanism
from scipy.stats import beta

EPSILON, DELTA, SENSITIVITY = 1.0, 1e-5, 1.0
X, X_PRIME = 0.0, 1.0
N = 400_000
A = 1e-6


def multiple_of(y: np.ndarray, k: int) -> np.ndarray:
    q = np.asarray(y, dtype=np.float64) * 2.0**k
    return q == np.floor(q)


def finest_grid(y: np.ndarray) -> int:
    """The smallest k such that every output is a multiple of 2^-k."""
    k = 0
    while not np.all(multiple_of(y, k)):
        k += 1
    return k


def grid_exponent(v: float) -> int:
    mantissa, exponent = math.frexp(v)
    m = int(mantissa * 2**53)
    return 53 - exponent - ((m & -m).bit_length() - 1)


def draws(mech, value: float, n: int) -> np.ndarray:
    add_noise = mech.add_noise
    out = [add_noise(value) for _ in range(n)]
    assert all(type(v) is float for v in out[:100]), "expected the float overload of add_noise"
    return np.array(out, dtype=np.float64)


def main() -> int:
    print(
        f"python {sys.version.split()[0]}, numpy {np.__version__}, scipy {scipy.__version__}, "
        f"python-dp {version('python-dp')} (pydp {pydp.__version__})"
    )
    mech = GaussianMechanism(EPSILON, DELTA, SENSITIVITY)
    print(
        f"pydp.algorithms.numerical_mechanisms.GaussianMechanism(epsilon={EPSILON}, "
        f"delta={DELTA:g}, sensitivity={SENSITIVITY}); std = {mech.std!r}"
    )
    expected_granularity = 2.0 ** math.ceil(math.log2(2 * mech.std / 2.0**57))
    print(
        f"  granularity by the upstream formula next_power_of_two(2*std/2^57) = "
        f"2^{int(math.log2(expected_granularity))}"
    )
    y0, y1 = draws(mech, X, N), draws(mech, X_PRIME, N)
    print(
        f"  observed: every output at x=0.0 is a multiple of 2^-{finest_grid(y0)}; "
        f"every output at x'=1.0 is a multiple of 2^-{finest_grid(y1)}"
    )

    e0, e1 = ~multiple_of(y0, 53), ~multiple_of(y1, 53)
    k0, k1 = int(e0.sum()), int(e1.sum())
    p0_lo = 0.0 if k0 == 0 else float(beta.ppf(A, k0, N - k0 + 1))
    p1_hi = float(beta.ppf(1 - A, k1 + 1, N - k1))
    eps_lb = math.log((p0_lo - DELTA) / p1_hi) if p0_lo > DELTA else float("-inf")
    print("event E: output not a multiple of 2^-53")
    print(f"  k0 = {k0}/{N} at x = {X},  k1 = {k1}/{N} at x' = {X_PRIME}")
    print(
        f"  p0 >= {p0_lo:.4g} (CP lower, level {A:g}),  p1 <= {p1_hi:.4g} (CP upper, level {A:g})"
    )
    print(
        f"  certified eps >= ln((p0_lo - delta)/p1_hi) = {eps_lb:.3f}  (claim {EPSILON}, "
        f"delta {DELTA:g}) -> {'VIOLATED' if eps_lb > EPSILON else 'not violated'}"
    )
    fine = y0[e0]
    if k0:
        print(
            f"  off-grid outputs at x all have |y| < 1/2: {bool(np.all(np.abs(fine) < 0.5))}; "
            f"share of outputs with |y| < 1/2 that are off-grid: "
            f"{k0 / max(1, int((np.abs(y0) < 0.5).sum())):.3f}"
        )
        print("  three outputs drawn at x=0.0 that cannot occur at x'=1.0:")
        for v in fine[:3]:
            print(
                f"    {float(v).hex():>24}  = {float(v)!r:<24} odd multiple of 2^-{grid_exponent(float(v))}"
            )

    # control: PyDP's Laplace uses a coarse granularity (2^-40 at these parameters), so its
    # outputs near 0 are never finer than 2^-53 and the same event is empty on both sides
    lap = LaplaceMechanism(EPSILON, SENSITIVITY)
    l0, l1 = draws(lap, X, 100_000), draws(lap, X_PRIME, 100_000)
    print(
        f"control, LaplaceMechanism(epsilon={EPSILON}, sensitivity={SENSITIVITY}): outputs at x "
        f"are multiples of 2^-{finest_grid(l0)}, at x' of 2^-{finest_grid(l1)}; "
        f"E at x: {int((~multiple_of(l0, 53)).sum())}/100000, at x': {int((~multiple_of(l1, 53)).sum())}/100000"
    )

    violated = eps_lb > EPSILON
    print(
        f"\nRESULT: {'claim violated' if violated else 'no violation certified'} "
        f"(confidence >= 1 - {2 * A:g})"
    )
    return 1 if violated else 0


if __name__ == "__main__":
    sys.exit(main())
