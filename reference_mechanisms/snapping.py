"""Mironov's snapping mechanism: Laplace noise in floating point, made safe by snapping.

    M(x) = clamp_B( round_Lambda( clamp_B(x) (+) S (x) lambda (x) LN(U*) ) )

with every operation in IEEE binary64 round-to-nearest, ``U*`` uniform over *all* doubles in (0, 1)
(probability proportional to their spacing), ``LN`` the correctly rounded natural log (MPFR at 53
bits, round-to-nearest), ``S`` a fair sign, ``Lambda`` the smallest power of two >= lambda and
``round_Lambda`` rounding to the nearest multiple of Lambda with ties toward +inf.  For a query of
sensitivity 1 this is epsilon-DP with epsilon = (1 + 12 B eta)/lambda + 2 eta, eta = 2^-53; we
invert it exactly (rationals) and round lambda *up* to a double, so the stated epsilon holds.

Sensitivity Delta != 1: the query is divided by D = the smallest power of two >= Delta (exact in
binary64), so its sensitivity is <= 1, and outputs are multiplied back by D (exact).  This wastes
up to a factor 2 of accuracy but needs no unverified generalisation of Mironov's bound.

References:
    Mironov, "On Significance of the Least Significant Bits for Differential Privacy", CCS 2012,
    section 5.2 (snapping mechanism and its privacy proof).  Covington, "Snapping Mechanism
    Notes" (SmartNoise/OpenDP whitepaper) for the exact sampling of U* and rounding.

Assumptions:
    The query is a finite double; numpy's float64 ``*``, ``+`` are IEEE round-to-nearest (no x87,
    no FMA contraction in numpy ufuncs); MPFR's log is correctly rounded.  Mironov's proof also
    assumes lambda < B < 2^46 lambda, which is enforced.
"""

from __future__ import annotations

import math
from fractions import Fraction

import gmpy2
import numpy as np

from reference_mechanisms.bernoulli import check_size
from reference_mechanisms.params import check_epsilon
from reference_mechanisms.randomness import IntegerSource, resolve_rng

__all__ = ["SnappingParameters", "sample_snapping", "sample_uniform_double", "snapping_parameters"]

ETA = Fraction(1, 2**53)
_LOG_CTX = gmpy2.context(precision=53, round=gmpy2.RoundToNearest)


class SnappingParameters:
    """Derived constants of one snapping mechanism (all doubles, chosen so the claim holds)."""

    __slots__ = ("B", "D", "Lambda", "epsilon", "lam", "sensitivity")

    def __init__(self, epsilon: float, bound: float, sensitivity: float) -> None:
        self.epsilon = check_epsilon(epsilon)
        for name, v in (("bound", bound), ("sensitivity", sensitivity)):
            if not (isinstance(v, (int, float)) and math.isfinite(v) and v > 0):
                raise ValueError(f"{name}={v!r} must be finite and > 0")
        if Fraction(self.epsilon) <= 2 * ETA:
            raise ValueError(f"epsilon={epsilon!r} must be > 2^-52 for the snapping mechanism")
        self.sensitivity = float(sensitivity)
        self.D = _pow2_ceil(float(sensitivity))
        # bound in scaled units (sensitivity <= 1), exact: division by a power of two
        self.B = float(bound) / self.D
        lam_exact = (1 + 12 * Fraction(self.B) * ETA) / (Fraction(self.epsilon) - 2 * ETA)
        self.lam = _float_up(lam_exact)
        self.Lambda = _pow2_ceil(self.lam)
        if not self.lam < self.B < 2.0**46 * self.lam:
            raise ValueError(
                f"bound={bound!r} must satisfy lambda < B < 2^46 lambda in sensitivity units "
                f"(lambda*Delta = {self.lam * self.D!r})"
            )

    def __repr__(self) -> str:
        return (
            f"SnappingParameters(epsilon={self.epsilon!r}, B={self.B!r}, D={self.D!r}, "
            f"lam={self.lam!r}, Lambda={self.Lambda!r})"
        )


def snapping_parameters(
    epsilon: float, bound: float, sensitivity: float = 1.0
) -> SnappingParameters:
    """Validate and derive the constants; raises ValueError on bad or out-of-theorem arguments."""
    return SnappingParameters(epsilon, bound, sensitivity)


def _pow2_ceil(x: float) -> float:
    """Smallest power of two >= x > 0 (exact)."""
    m, e = math.frexp(x)  # x = m 2^e, 0.5 <= m < 1
    return x if m == 0.5 else math.ldexp(1.0, e)


def _float_up(q: Fraction) -> float:
    """Smallest double >= q (q > 0)."""
    f = float(q)  # correctly rounded
    return f if Fraction(f) >= q else math.nextafter(f, math.inf)


def sample_uniform_double(size: int, rng: IntegerSource | None = None) -> np.ndarray:
    """``size`` draws of U*: each double u in (0, 1) with probability equal to its spacing.

    Exponent ``e >= 1`` with P[e] = 2^-e (position of the first 1 in a stream of fair bits, drawn
    31 at a time), then 52 uniform mantissa bits: u = (2^52 + m) 2^(-52-e), exact.  The
    subnormal range (reached with probability 2^-1022) is handled exactly as well.
    """
    size = check_size(size)
    rng = resolve_rng(rng)
    e = np.ones(size, dtype=np.int64)
    todo = np.arange(size)
    while todo.size:
        r = np.asarray(rng.integers(0, 1 << 31, size=todo.size), dtype=np.int64)
        hit = r > 0
        # bit_length of r via frexp (exact: r < 2^31 is exactly representable)
        bl = np.frexp(r[hit].astype(np.float64))[1]
        e[todo[hit]] += 31 - bl
        e[todo[~hit]] += 31
        todo = todo[~hit]
    m = np.asarray(rng.integers(0, 1 << 52, size=size), dtype=np.int64)
    u: np.ndarray = np.ldexp(
        (m + (1 << 52)).astype(np.float64), (-52 - e).astype(np.int32).clip(-2000)
    )
    sub = e > 1022
    if np.any(sub):  # spacing 2^-1074 below 2^-1022: uniform over the subnormals (never 0)
        for i in np.flatnonzero(sub):
            v = 0
            while v == 0:
                v = int(rng.integers(0, 1 << 52))
            u[i] = math.ldexp(float(v), -1074)
    return u


def _ln_correctly_rounded(u: np.ndarray) -> np.ndarray:
    with gmpy2.context(_LOG_CTX):
        return np.array([float(gmpy2.log(gmpy2.mpfr(v))) for v in u.tolist()], dtype=np.float64)


def _round_to_multiple(x: np.ndarray, big_lambda: float) -> np.ndarray:
    """Nearest multiple of the power of two Lambda, ties toward +inf, exactly in binary64."""
    v = x / big_lambda  # exact: power-of-two division (outputs are far from the subnormal range)
    f = np.floor(v)
    n = f + ((v - f) >= 0.5)  # v - f is exact; no rounding in v + 0.5
    return n * big_lambda


def sample_snapping(
    x: float, params: SnappingParameters, size: int, rng: IntegerSource | None = None
) -> np.ndarray:
    """``size`` outputs of the snapping mechanism on query ``x`` as float64.

    Raises:
        ValueError: ``x`` not finite; ``size`` negative.
    """
    if not math.isfinite(float(x)):
        raise ValueError(f"x={x!r} must be finite")
    size = check_size(size)
    rng = resolve_rng(rng)
    b = params.B
    xs = min(max(float(x) / params.D, -b), b)
    sign = np.where(np.asarray(rng.integers(0, 2, size=size)) == 1, -1.0, 1.0)
    noise = sign * (params.lam * _ln_correctly_rounded(sample_uniform_double(size, rng)))
    y = _round_to_multiple(xs + noise, params.Lambda)
    released: np.ndarray = np.clip(y, -b, b) * params.D
    return released
