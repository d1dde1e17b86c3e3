"""Exact selection probabilities of the textbook exponential mechanism (gmpy2 / MPFR).

Used by white-box attacks to show that an outcome an implementation never outputs has a
positive probability in the mechanism it claims to implement.

Precision: every operation is done in MPFR at ``PRECISION`` = 256 bits.  Utilities, epsilon and
the sensitivity are float64 values and convert to MPFR exactly.  Each weight is
``exp(sign * c * u - max)`` with ``c = epsilon / (2 * sensitivity)``; each of the few roundings
on the way has relative error at most 2^-256 and the exponent's absolute error is at most
|c*u| * 2^-255, so for |c*u| < 2^40 and k < 2^20 outcomes every probability has relative error
below 2^-200 -- many orders of magnitude below anything a float64 implementation can show.
MPFR's exponent range (about 2^±2^30) means no weight under- or overflows.

References:
    McSherry & Talwar, "Mechanism Design via Differential Privacy" (FOCS 2007).
    Ilvento (CCS 2020): exact arithmetic with MPFR for the exponential mechanism.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence

import gmpy2
from gmpy2 import mpfr

#: bits of MPFR precision (see the module docstring for the error bound)
PRECISION = 256


def exact_em_probabilities(
    utilities: Collection[float], epsilon: float, sensitivity: float, sign: int, half: bool = True
) -> list[mpfr]:
    """Selection probabilities of the exponential mechanism, as 256-bit MPFR numbers.

    Args:
        utilities: the k utilities (float64 values, used exactly).
        epsilon: privacy parameter > 0.
        sensitivity: utility sensitivity > 0.
        sign: +1 for weights exp(+c*u) (higher is better), -1 for exp(-c*u) (a loss).
        half: True for the textbook ``c = epsilon/(2*sensitivity)``, False for
            ``epsilon/sensitivity``.

    Raises:
        ValueError: empty utilities, a non-finite utility, epsilon or sensitivity <= 0, or a
            sign other than +-1.
    """
    if sign not in (1, -1):
        raise ValueError(f"sign={sign!r} must be +1 or -1")
    if not (epsilon > 0 and sensitivity > 0):
        raise ValueError(f"epsilon={epsilon!r} and sensitivity={sensitivity!r} must be > 0")
    if len(utilities) == 0:
        raise ValueError("utilities=[] must hold at least one value")
    ctx = gmpy2.context(precision=PRECISION)
    c = ctx.div(mpfr(float(epsilon)), ctx.mul(mpfr(2 if half else 1), mpfr(float(sensitivity))))
    z = []
    for u in utilities:
        u_exact = mpfr(float(u))
        if not gmpy2.is_finite(u_exact):
            raise ValueError(f"utility {u!r} must be finite")
        z.append(ctx.mul(c, u_exact) if sign > 0 else ctx.minus(ctx.mul(c, u_exact)))
    top = max(z)
    # attack queries repeat a few utilities many times: exponentiate each value once
    unique_weights = {zi: ctx.exp(ctx.sub(zi, top)) for zi in set(z)}
    total = ctx.fsum([unique_weights[zi] for zi in z])
    unique_probabilities = {zi: ctx.div(w, total) for zi, w in unique_weights.items()}
    return [unique_probabilities[zi] for zi in z]


def exact_mass(probabilities: Sequence[mpfr], indices: Iterable[int]) -> mpfr:
    """Exact (256-bit) probability of the outcome set ``indices``."""
    ctx = gmpy2.context(precision=PRECISION)
    return ctx.fsum([probabilities[int(i)] for i in indices])
