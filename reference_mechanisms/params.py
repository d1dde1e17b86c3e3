"""Parameter checks and exact, claim-preserving rational conversions for the reference mechanisms.

A float privacy parameter is turned into a rational *in the direction that keeps the claim*:
epsilon is rounded down (less budget spent means more noise), sensitivity is taken exactly (floats
are dyadic rationals), so a mechanism calibrated with the rational is at least as private as the
float claim says.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

from reference_mechanisms.bernoulli import as_fraction

__all__ = ["check_delta", "check_epsilon", "check_sensitivity", "rational_floor"]

#: Default number of binary digits kept when rounding epsilon down to a dyadic rational.
EPSILON_BITS = 30


def _finite_float(x: Any, name: str) -> float:
    try:
        v = float(x)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name}={x!r} must be a real number") from exc
    if math.isnan(v) or math.isinf(v):
        raise ValueError(f"{name}={x!r} must be finite")
    return v


def check_epsilon(epsilon: Any) -> float:
    """``epsilon`` as a float; raises ValueError unless it is finite and > 0."""
    v = _finite_float(epsilon, "epsilon")
    if v <= 0:
        raise ValueError(f"epsilon={epsilon!r} must be > 0")
    return v


def check_delta(delta: Any, *, positive: bool = False) -> float:
    """``delta`` as a float in [0, 1) (or (0, 1) when ``positive``); raises ValueError otherwise."""
    v = _finite_float(delta, "delta")
    if not 0 <= v < 1 or (positive and v == 0):
        raise ValueError(f"delta={delta!r} must be in {'(0' if positive else '[0'}, 1)")
    return v


def check_sensitivity(sensitivity: Any) -> Fraction:
    """Exact rational value of ``sensitivity``; raises ValueError unless finite and > 0."""
    _finite_float(sensitivity, "sensitivity")
    f = as_fraction(sensitivity, "sensitivity")
    if f <= 0:
        raise ValueError(f"sensitivity={sensitivity!r} must be > 0")
    return f


def rational_floor(x: Any, bits: int = EPSILON_BITS, name: str = "epsilon") -> Fraction:
    """The largest multiple of 2^-bits that is <= ``x`` (exact), for rounding epsilon down.

    Raises:
        ValueError: ``x`` is not finite or the result would be 0 (``x`` < 2^-bits).
    """
    f = as_fraction(x, name)
    q = Fraction(math.floor(f * (1 << bits)), 1 << bits)
    if q <= 0:
        raise ValueError(
            f"{name}={x!r} is too small to round down to a positive 2^-{bits} multiple"
        )
    return q
