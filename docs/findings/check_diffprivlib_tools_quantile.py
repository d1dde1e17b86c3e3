#!/usr/bin/env python3
"""Independent check: diffprivlib's private quantiles (``tools.median``, ``tools.percentile``,
``tools.quantile``) leak a record through the float grid of their output.

Standalone: uses only the Python standard library, numpy, scipy and diffprivlib.  It does
NOT import anything from dp-audit (no auditor, attacks, reports, reference_mechanisms).

diffprivlib 0.6.6 computes a quantile as Smith's exponential mechanism over the intervals
between the sorted, clipped records and the bounds, then returns a uniform point of the chosen
interval [a, b] as ``random_state.random() * (b - a) + a``.  ``random()`` is j * 2^-53 for an
integer j, so the output's float bits depend on the interval's width, which is data.

Neighbours (add/remove one record), bounds (0, 100):
    x  = twenty records at 0.0 and one at 50.0
    x' = twenty records at 0.0
Event E = "0 < output < 1 and output * 2^53 is an integer that is 2 modulo 4".

Why P[M(x') in E] = 0 exactly: at x' every interval but [0, 100] has length 0, so the output
is fl(j * 2^-53 * 100).  When it is below 1, j * 100 < 2^53, so the product is exact and
output * 2^53 = 100 j, a multiple of 4.
At x the interval [0, 50] has positive probability, and its outputs below 1 are exactly
j * 50 * 2^-53, where 50 j = 2 modulo 4 for every odd j.  So E happens at x and never at x'.

Statistics: E's probability at x is bounded from below by a one-sided Clopper-Pearson lower
limit at level a, and at x' from above by an upper limit at level a.  The certified bound
eps_lb = ln(p0_lo / p1_hi) holds at confidence >= 1 - 2a per API, >= 1 - 6a for all three
(union bound).  Exit status: 1 if any eps_lb exceeds the claimed epsilon (1), else 0.
"""

from __future__ import annotations

import math
import sys
import warnings

import diffprivlib
import numpy as np
import scipy
from diffprivlib.tools import median, percentile, quantile
from scipy.stats import beta

A = 1e-6  # one-sided level of each Clopper-Pearson limit
N = 100_000  # outputs per dataset per API (seeded)
EPSILON = 1.0
BOUNDS = (0.0, 100.0)
X = [0.0] * 20 + [50.0]
X_PRIME = [0.0] * 20

APIS = [
    # (label, function of (data, random_state) -> one output)
    ("median", lambda d, rs: median(d, epsilon=EPSILON, bounds=BOUNDS, random_state=rs)),
    (
        "percentile(90)",
        lambda d, rs: percentile(d, 90, epsilon=EPSILON, bounds=BOUNDS, random_state=rs),
    ),
    (
        "quantile(0.5)",
        lambda d, rs: quantile(d, 0.5, epsilon=EPSILON, bounds=BOUNDS, random_state=rs),
    ),
]


def in_event(y: np.ndarray) -> np.ndarray:
    """0 < y < 1 and y * 2^53 an integer equal to 2 modulo 4 (scaling by 2^53 is exact)."""
    q = np.asarray(y, dtype=np.float64) * 2.0**53
    whole = q == np.floor(q)
    return (y > 0) & (y < 1) & whole & (np.mod(np.where(whole, q, 0.0), 4.0) == 2.0)


def cp_lower(k: int, n: int, a: float) -> float:
    return 0.0 if k == 0 else float(beta.ppf(a, k, n - k + 1))


def cp_upper(k: int, n: int, a: float) -> float:
    return 1.0 if k == n else float(beta.ppf(1 - a, k + 1, n - k))


def draws(api, data: list[float], n: int, seed: int) -> np.ndarray:
    rs = np.random.RandomState(seed)
    return np.fromiter((api(data, rs) for _ in range(n)), np.float64, count=n)


def main() -> int:
    warnings.simplefilter("ignore")  # diffprivlib's budget warnings
    print(
        f"python {sys.version.split()[0]}, numpy {np.__version__}, scipy {scipy.__version__}, "
        f"diffprivlib {diffprivlib.__version__}"
    )
    print(
        f"x = 20 records at 0 and one at 50, x' = 20 records at 0, bounds {BOUNDS}, "
        f"epsilon {EPSILON}; event E = 0 < output < 1 and output * 2^53 = 2 (mod 4); "
        f"{N} seeded outputs per dataset; one-sided Clopper-Pearson level a = {A:g} each side"
    )
    violated = False
    for i, (label, api) in enumerate(APIS):
        y0, y1 = draws(api, X, N, 2000 + 2 * i), draws(api, X_PRIME, N, 2001 + 2 * i)
        k0, k1 = int(in_event(y0).sum()), int(in_event(y1).sum())
        examples = [float(v).hex() for v in y0[in_event(y0)][:3]]
        p0_lo, p1_hi = cp_lower(k0, N, A), cp_upper(k1, N, A)
        eps_lb = math.log(p0_lo / p1_hi) if p0_lo > 0 else 0.0
        verdict = "VIOLATED" if eps_lb > EPSILON else "not shown"
        violated |= eps_lb > EPSILON
        print(
            f"{label:15s} E at x: {k0}/{N}, at x': {k1}/{N}; eps >= {eps_lb:.3f} "
            f"(claim {EPSILON}) {verdict}; examples at x: {', '.join(examples)}"
        )
    print("RESULT:", "privacy claim violated" if violated else "no violation shown")
    return 1 if violated else 0


if __name__ == "__main__":
    sys.exit(main())
