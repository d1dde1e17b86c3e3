#!/usr/bin/env python3
"""Independent check: diffprivlib.tools.sum and diffprivlib.tools.mean (bounds (0, 1),
epsilon = 1) leak one record through the float grid of their output.

Standalone: uses only the Python standard library, numpy, scipy and diffprivlib.  It does
NOT import anything from dp-audit (no auditor, attacks, reports, reference_mechanisms).

Both tools clip the records, compute the float sum (resp. mean) a, and release
LaplaceTruncated(epsilon, sensitivity = 1 (resp. 1/n), lower, upper).randomise(a), i.e.
r = clamp(fl(a + t), lower, upper) for a double t (t = -scale * L).  Datasets differ in one
record (replace-one neighbours, the relation diffprivlib calibrates the sensitivity for).

Floating-point facts the events rest on (IEEE-754 doubles; "exact" by the Sterbenz lemma,
y/2 <= x <= 2y => x - y is representable); the zero count k1 at x' below checks each of
them again on every output drawn:
  * a = 5.5 (sum of [1.0, 0.5 x 9]): an unclamped output r < 1.5 needs t in [-5.5, -4);
    |t| in [4, 8) is a multiple of 2^-50 and 5.5 - |t| is exact (Sterbenz), so r is a
    multiple of 2^-50 (the clamp value 0 is too).  At a = 4.5 (sum of [0.0, 0.5 x 9]) the
    outputs in [0.5, 1.5) come from |t| in (3, 4], which are multiples of 2^-51 only, and
    4.5 - |t| is exact: a part of them (about a third in our runs) are odd multiples of 2^-51.
    Event E_sum = "r < 1.5 and r is not a multiple of 2^-50".
  * a = fl(0.55) in [1/2, 1) (mean of [1.0, 0.5 x 9]): every output r is a multiple of
    2^-54 (|r| >= 1/4 by the format; |r| < 1/4 needs |t| >= 1/4, a multiple of 2^-54, and
    the subtraction is exact).  At a = fl(0.45) (mean of [0.0, 0.5 x 9]) outputs in
    (0.2, 0.25) come from |t| < 1/4 and can be odd multiples of 2^-55.
    Event E_mean = "r is not a multiple of 2^-54".
  * a = 1.0 (sum of [1.0, 0.0 x 9]): r is a multiple of 2^-53; at a = 0.0 (all zeros) r = -t
    (or 0 when clamped) can be finer.  Event "r is not a multiple of 2^-53".
  * a = fl(0.1) in [1/16, 1/8) (mean of [1.0, 0.0 x 9]): r is a multiple of 2^-57; at a = 0.0
    r = -t can be finer.  Event "r is not a multiple of 2^-57".
The first two pairs are the neighbouring datasets dp-audit reported (its events were cells
of binade and last two mantissa bits chosen on training data; the events here are derived
by hand from the float format instead); the last two pairs show the same leak more strongly.  Each event is fixed in advance (not chosen on the data), so one-sided
Clopper-Pearson limits at level a on all outputs are valid:
    eps_lb = ln(p0_lo / p1_hi)     (delta = 0 for these tools)
valid at confidence >= 1 - 2a per test, >= 1 - 8a = 1 - 8e-6 for the four tests together.
Exit status: 1 if any eps_lb exceeds the claimed epsilon = 1, else 0.
"""

from __future__ import annotations

import math
import sys

import diffprivlib
import numpy as np
import scipy
from diffprivlib import BudgetAccountant
from diffprivlib.tools import mean as dp_mean
from diffprivlib.tools import sum as dp_sum
from scipy.stats import beta

A = 1e-6
EPSILON = 1.0
BOUNDS = (0.0, 1.0)


def multiple_of(y: np.ndarray, k: int) -> np.ndarray:
    """True where y is an integer multiple of 2^-k (scaling by 2^k is exact)."""
    q = np.asarray(y, dtype=np.float64) * 2.0**k
    return q == np.floor(q)


def grid_exponent(v: float) -> int:
    """The m such that v != 0 is an odd multiple of 2^-m."""
    mantissa, exponent = math.frexp(v)
    m = int(mantissa * 2**53)
    return 53 - exponent - ((m & -m).bit_length() - 1)


def cp_lower(k: int, n: int, a: float) -> float:
    return 0.0 if k == 0 else float(beta.ppf(a, k, n - k + 1))


def cp_upper(k: int, n: int, a: float) -> float:
    return 1.0 if k == n else float(beta.ppf(1 - a, k + 1, n - k))


def draws(tool, data: np.ndarray, n: int, seed: int) -> np.ndarray:
    rng = np.random.RandomState(seed)
    accountant = BudgetAccountant()  # private accountant: no spending limit, no global state
    return np.fromiter(
        (
            tool(data, epsilon=EPSILON, bounds=BOUNDS, random_state=rng, accountant=accountant)
            for _ in range(n)
        ),
        np.float64,
        count=n,
    )


def e_sum_half(y):  # r < 1.5 and not a multiple of 2^-50
    return (y < 1.5) & ~multiple_of(y, 50)


def e_mean_half(y):  # not a multiple of 2^-54
    return ~multiple_of(y, 54)


def e_sum_zero(y):  # not a multiple of 2^-53
    return ~multiple_of(y, 53)


def e_mean_zero(y):  # not a multiple of 2^-57
    return ~multiple_of(y, 57)


HALF_X = np.array([0.0] + [0.5] * 9)
HALF_XP = np.array([1.0] + [0.5] * 9)
ZERO_X = np.zeros(10)
ZERO_XP = np.array([1.0] + [0.0] * 9)

TESTS = [
    # (label, tool, x, x', event, event text, n per side, seed)
    (
        "tools.sum",
        dp_sum,
        HALF_X,
        HALF_XP,
        e_sum_half,
        "output < 1.5 and not a multiple of 2^-50",
        100_000,
        11,
    ),
    (
        "tools.mean",
        dp_mean,
        HALF_X,
        HALF_XP,
        e_mean_half,
        "output not a multiple of 2^-54",
        100_000,
        13,
    ),
    (
        "tools.sum",
        dp_sum,
        ZERO_X,
        ZERO_XP,
        e_sum_zero,
        "output not a multiple of 2^-53",
        40_000,
        15,
    ),
    (
        "tools.mean",
        dp_mean,
        ZERO_X,
        ZERO_XP,
        e_mean_zero,
        "output not a multiple of 2^-57",
        40_000,
        17,
    ),
]


def show(d: np.ndarray) -> str:
    return (
        "[" + ", ".join(f"{v:g}" for v in d[:1]) + f", {d[1]:g} x {len(d) - 1}]"
        if np.all(d[1:] == d[1])
        else str(d.tolist())
    )


def main() -> int:
    print(
        f"python {sys.version.split()[0]}, numpy {np.__version__}, scipy {scipy.__version__}, "
        f"diffprivlib {diffprivlib.__version__}"
    )
    print(
        f"claim: epsilon = {EPSILON} (pure DP), bounds = {BOUNDS}; one-sided Clopper-Pearson "
        f"level a = {A:g} on each side"
    )
    violated = False
    for label, tool, x, xp, event, text, n, seed in TESTS:
        a0 = np.sum(x) if label == "tools.sum" else np.mean(x)
        a1 = np.sum(xp) if label == "tools.sum" else np.mean(xp)
        y0 = draws(tool, x, n, seed)
        y1 = draws(tool, xp, n, seed + 1)
        e0, e1 = event(y0), event(y1)
        k0, k1 = int(e0.sum()), int(e1.sum())
        p0_lo, p1_hi = cp_lower(k0, n, A), cp_upper(k1, n, A)
        eps_lb = math.log(p0_lo / p1_hi) if p0_lo > 0 else float("-inf")
        print(f"\n== diffprivlib.{label}, x = {show(x)} vs x' = {show(xp)}")
        print(
            f"  exact float {label.split('.')[1]}: at x {float(a0)!r} ({float(a0).hex()}), "
            f"at x' {float(a1)!r} ({float(a1).hex()})"
        )
        print(f"  event: {text}")
        print(f"  k0 = {k0}/{n} at x,  k1 = {k1}/{n} at x'")
        print(
            f"  p0 >= {p0_lo:.4g},  p1 <= {p1_hi:.4g}  ->  certified eps >= {eps_lb:.3f} "
            f"(claim {EPSILON}) -> {'VIOLATED' if eps_lb > EPSILON else 'not violated'}"
        )
        if k0:
            print("  three outputs drawn at x that cannot occur at x':")
            for v in y0[e0][:3]:
                print(
                    f"    {float(v).hex():>24}  = {float(v)!r:<22} odd multiple of "
                    f"2^-{grid_exponent(float(v))}"
                )
        violated |= eps_lb > EPSILON
    print(
        f"\nRESULT: {'claim violated' if violated else 'no violation certified'} "
        f"(family-wise confidence >= 1 - {2 * A * len(TESTS):g})"
    )
    return 1 if violated else 0


if __name__ == "__main__":
    sys.exit(main())
