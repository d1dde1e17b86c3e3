"""Exact, claim-preserving rational conversions and the argument checks of the reference
mechanisms.

The checks every layer shares (``check_integer``, ``check_real``, ``check_epsilon``,
``check_delta``) live in the bottom package ``dp_params`` and are importable from here too; the
ones here are the mechanisms' own (counts, sensitivities, integer queries).

A float privacy parameter is turned into a rational *in the direction that keeps the claim*:
epsilon is rounded down (less budget spent means more noise), sensitivity is taken exactly (floats
are dyadic rationals), so a mechanism calibrated with the rational is at least as private as the
float claim says.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np

from dp_params.checks import (
    as_fraction,
    check_delta,
    check_epsilon,
    check_finite,
    check_integer,
    check_real,
)

__all__ = [
    "check_count",
    "check_delta",
    "check_epsilon",
    "check_integer",
    "check_integer_queries",
    "check_integer_sensitivity",
    "check_real",
    "check_sensitivity",
    "rational_floor",
]

#: Largest |query| / |threshold| accepted: exact as float64 and far from int64 overflow.
QUERY_BOUND = 2**52
#: Default number of binary digits kept when rounding epsilon down to a dyadic rational.
EPSILON_BITS = 30


def check_count(n: Any, name: str = "n") -> int:
    """A number of outputs to draw: an integer >= 0."""
    return check_integer(n, name, minimum=0)


def check_sensitivity(sensitivity: Any) -> Fraction:
    """Exact rational value of ``sensitivity``; raises ValueError unless finite and > 0."""
    check_finite(sensitivity, "sensitivity")
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


def check_integer_queries(queries: Any, name: str = "queries") -> np.ndarray:
    """``queries`` as an int64 array; ValueError unless a non-empty 1-D array of integers.

    Integer dtypes, Python ints and integral finite floats are accepted; every entry must satisfy
    ``|q| <= 2^52`` (exact as float64, no int64 overflow once noise is added).
    """
    if isinstance(queries, (str, bytes, dict)) or queries is None:
        raise ValueError(f"{name}={queries!r} must be a non-empty 1-D array of integers")
    try:
        a = np.asarray(queries)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be a non-empty 1-D array of integers ({exc})") from exc
    if a.ndim != 1 or a.size == 0:
        raise ValueError(f"{name} must be a non-empty 1-D array of integers, got shape {a.shape}")
    if a.dtype.kind == "b":
        raise ValueError(f"{name} must hold integers, not bools")
    if a.dtype.kind in "iu":
        big = np.flatnonzero((a > QUERY_BOUND) | (a < -QUERY_BOUND))
    elif a.dtype.kind == "f":
        bad = np.flatnonzero(~np.isfinite(a) | (a != np.floor(a)))
        if bad.size:
            raise ValueError(f"{name} must hold integers; entry {bad[0]} is {a[bad[0]].item()!r}")
        big = np.flatnonzero(np.abs(a) > QUERY_BOUND)
    elif a.dtype.kind == "O":  # Python ints of any size, checked one by one
        for i, v in enumerate(a):
            check_integer(v, f"{name}[{i}]", minimum=-QUERY_BOUND, maximum=QUERY_BOUND)
        return np.array([int(v) for v in a], dtype=np.int64)
    else:
        raise ValueError(f"{name} must hold integers, got dtype {a.dtype}")
    if big.size:
        raise ValueError(f"{name}[{big[0]}]={a[big[0]].item()!r} must satisfy |value| <= 2^52")
    return a.astype(np.int64)


def check_integer_sensitivity(sensitivity: Any) -> int:
    """``sensitivity`` as a positive ``int`` (an integral float such as 1.0 is accepted)."""
    sens = check_sensitivity(sensitivity)
    if sens.denominator != 1:
        raise ValueError(f"sensitivity={sensitivity!r} must be an integer (integer-valued queries)")
    return int(sens)
