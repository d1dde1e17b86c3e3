#!/usr/bin/env python3
"""Independent check: diffprivlib's float additive mechanisms leak the input through the
float grid of their output (precision-based / Mironov-style attack).

Standalone: uses only the Python standard library, numpy, scipy and diffprivlib.  It does
NOT import anything from dp-audit (no auditor, attacks, reports, reference_mechanisms).

Inputs x = 0.0 and x' = 1.0 (neighbours for sensitivity 1).  Event

    E = "the released double is not an integer multiple of 2^-53".

Why P[M(x') in E] = 0 exactly (a property of IEEE-754 doubles, not of the noise):
every mechanism below returns fl(1.0 + t) for some double t (t = -scale*L for Laplace,
t = scale*Z for the Gaussians), possibly clamped to the bounds +-10.  Let r = fl(1.0 + t).
  * if |r| >= 1/2, r lies in a binade whose spacing is >= 2^-53, so r is a multiple of 2^-53;
  * if |r| <  1/2, then t is in (-3/2, -1/2), so |t| >= 1/2 is itself a multiple of 2^-53 and
    1 + t is computed exactly (Sterbenz lemma), hence r is a multiple of 2^-53;
  * the clamp values +-10 are multiples of 2^-53.
At x = 0.0 the output is fl(0.0 + t) = t itself, and any double t with |t| < 1/2 can be finer
than 2^-53 (e.g. an odd multiple of 2^-54 in [1/4, 1/2)).  So E happens at x, never at x'.

Statistics: E's probability at x is bounded from below by a one-sided Clopper-Pearson lower
limit at level a, and at x' from above by a one-sided Clopper-Pearson upper limit at level a
(each holds with probability >= 1 - a).  The certified bound is
    eps_lb = ln((p0_lo - delta) / p1_hi)
and it is valid at confidence >= 1 - 2a per mechanism, >= 1 - 10a = 1 - 1e-5 for all five
together (union bound).  Exit status: 1 if any eps_lb exceeds the claimed epsilon, else 0.
"""

from __future__ import annotations

import math
import sys

import diffprivlib
import numpy as np
import scipy
from diffprivlib.mechanisms import (
    Gaussian,
    GaussianAnalytic,
    Laplace,
    LaplaceBoundedDomain,
    LaplaceTruncated,
)
from scipy.stats import beta

A = 1e-6  # one-sided level of each Clopper-Pearson limit
N = 100_000  # outputs per input per mechanism (seeded run)
N_DEFAULT_RNG = 20_000  # outputs per input drawn with the library's default (secure) RNG
X, X_PRIME = 0.0, 1.0
GRID = 2.0**-53

MECHANISMS = [
    # (label, class, constructor arguments, claimed epsilon, claimed delta)
    ("Laplace", Laplace, dict(epsilon=1.0, sensitivity=1.0), 1.0, 0.0),
    (
        "LaplaceTruncated",
        LaplaceTruncated,
        dict(epsilon=1.0, sensitivity=1.0, lower=-10.0, upper=10.0),
        1.0,
        0.0,
    ),
    (
        "LaplaceBoundedDomain",
        LaplaceBoundedDomain,
        dict(epsilon=1.0, sensitivity=1.0, lower=-10.0, upper=10.0),
        1.0,
        0.0,
    ),
    ("Gaussian", Gaussian, dict(epsilon=0.5, delta=1e-5, sensitivity=1.0), 0.5, 1e-5),
    (
        "GaussianAnalytic",
        GaussianAnalytic,
        dict(epsilon=1.0, delta=1e-5, sensitivity=1.0),
        1.0,
        1e-5,
    ),
]


def off_grid(y: np.ndarray) -> np.ndarray:
    """True where y is not an integer multiple of 2^-53 (scaling by 2^53 is exact)."""
    q = np.asarray(y, dtype=np.float64) * 2.0**53
    return q != np.floor(q)


def grid_exponent(v: float) -> int:
    """The m such that v is an odd multiple of 2^-m (v != 0)."""
    mantissa, exponent = math.frexp(v)  # v = mantissa * 2^exponent, 0.5 <= |mantissa| < 1
    m = int(mantissa * 2**53)  # exact integer, v = m * 2^(exponent - 53)
    tz = (m & -m).bit_length() - 1  # trailing zero bits
    return 53 - exponent - tz


def cp_lower(k: int, n: int, a: float) -> float:
    return 0.0 if k == 0 else float(beta.ppf(a, k, n - k + 1))


def cp_upper(k: int, n: int, a: float) -> float:
    return 1.0 if k == n else float(beta.ppf(1 - a, k + 1, n - k))


def draws(cls, kwargs, value: float, n: int, random_state) -> np.ndarray:
    mech = cls(**kwargs, random_state=random_state)
    return np.fromiter((mech.randomise(value) for _ in range(n)), np.float64, count=n)


def main() -> int:
    print(
        f"python {sys.version.split()[0]}, numpy {np.__version__}, scipy {scipy.__version__}, "
        f"diffprivlib {diffprivlib.__version__}"
    )
    print(
        f"inputs x = {X}, x' = {X_PRIME}; event E = output not a multiple of 2^-53; "
        f"{N} seeded outputs per input; one-sided Clopper-Pearson level a = {A:g} each side"
    )
    violated = False
    for i, (label, cls, kwargs, eps, delta) in enumerate(MECHANISMS):
        y0 = draws(cls, kwargs, X, N, np.random.RandomState(1000 + 2 * i))
        y1 = draws(cls, kwargs, X_PRIME, N, np.random.RandomState(1001 + 2 * i))
        e0, e1 = off_grid(y0), off_grid(y1)
        k0, k1 = int(e0.sum()), int(e1.sum())
        p0_lo, p1_hi = cp_lower(k0, N, A), cp_upper(k1, N, A)
        eps_lb = math.log((p0_lo - delta) / p1_hi) if p0_lo > delta else float("-inf")
        print(
            f"\n== diffprivlib.mechanisms.{label}({', '.join(f'{k}={v}' for k, v in kwargs.items())})"
            f"  claim: ({eps}, {delta:g})-DP"
        )
        print(f"  E at x=0.0: k0 = {k0}/{N};  E at x'=1.0: k1 = {k1}/{N}")
        print(
            f"  p0 >= {p0_lo:.4g} (CP lower, level {A:g}),  p1 <= {p1_hi:.4g} (CP upper, level {A:g})"
        )
        print(
            f"  certified eps >= ln((p0_lo - delta)/p1_hi) = {eps_lb:.3f}   (claim {eps})"
            f"  -> {'VIOLATED' if eps_lb > eps else 'not violated'}"
        )
        # the mechanism behind the event, checked on the same outputs
        fine = y0[e0]
        print(f"  all {N} outputs at x'=1.0 are multiples of 2^-53: {k1 == 0}")
        if k0:
            print(
                f"  outputs at x=0.0 off the 2^-53 grid: all have |y| < 1/2: "
                f"{bool(np.all(np.abs(fine) < 0.5))} (max |y| = {float(np.abs(fine).max())!r}); "
                f"share of outputs with |y| < 1/2 that are off-grid: "
                f"{k0 / max(1, int((np.abs(y0) < 0.5).sum())):.3f}"
            )
            print("  three outputs drawn at x=0.0 that cannot occur at x'=1.0:")
            for v in fine[:3]:
                print(
                    f"    {float(v).hex():>24}  = {float(v)!r:<24} odd multiple of 2^-{grid_exponent(float(v))}"
                )
        # the library's default (cryptographically secure, unseedable) generator
        d0 = off_grid(draws(cls, kwargs, X, N_DEFAULT_RNG, None)).sum()
        d1 = off_grid(draws(cls, kwargs, X_PRIME, N_DEFAULT_RNG, None)).sum()
        print(
            f"  default RNG (random_state=None, secrets.SystemRandom, unseeded): "
            f"E at x: {d0}/{N_DEFAULT_RNG}, at x': {d1}/{N_DEFAULT_RNG}"
        )
        violated |= eps_lb > eps
    print(
        f"\nRESULT: {'claim violated' if violated else 'no violation certified'} "
        f"(family-wise confidence >= 1 - {2 * A * len(MECHANISMS):g})"
    )
    return 1 if violated else 0


if __name__ == "__main__":
    sys.exit(main())
