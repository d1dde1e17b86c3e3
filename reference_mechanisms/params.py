"""Argument checks for the whole project, and exact, claim-preserving rational conversions for
the reference mechanisms.

The checks live here, in the bottom layer, so that every layer above (the claims and configs of
``auditor.core``, the adapters) uses the same ones; each takes the exception class its caller
raises (``ValueError`` here, ``InvalidArgument`` in the auditor) and names the argument and its
value in a one-line message.

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

from reference_mechanisms.bernoulli import as_fraction

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


def check_integer(
    value: Any,
    name: str,
    *,
    minimum: int | None = None,
    maximum: int | None = None,
    error: type[Exception] = ValueError,
) -> int:
    """``value`` as an ``int`` if it is an integer (Python or numpy; never a bool) in
    ``[minimum, maximum]``; raises ``error`` naming ``name`` otherwise."""
    ok = isinstance(value, int | np.integer) and not isinstance(value, bool | np.bool_)
    if ok and (minimum is None or value >= minimum) and (maximum is None or value <= maximum):
        return int(value)
    if minimum is not None and maximum is not None:
        where = f" in [{minimum}, {maximum}]"
    elif minimum is not None:
        where = f" >= {minimum}"
    else:
        where = f" <= {maximum}" if maximum is not None else ""
    raise error(f"{name}={value!r} must be an integer{where}")


def check_count(n: Any, name: str = "n") -> int:
    """A number of outputs to draw: an integer >= 0."""
    return check_integer(n, name, minimum=0)


def check_real(
    value: Any,
    name: str,
    interval: str = "(-inf, inf)",
    *,
    what: str = "a number",
    error: type[Exception] = ValueError,
) -> float:
    """``value`` as a float if it is a real number (not a bool) in ``interval``, written as
    in mathematics: ``"(0, 1)"``, ``"[0, 1)"``, ``"(0, inf)"``; raises ``error`` otherwise.

    A finite bound excludes infinities and NaN; ``what`` words the message ("a number of
    seconds")."""
    left, right = interval[0], interval[-1]
    lo_text, hi_text = (t.strip() for t in interval[1:-1].split(","))
    lo, hi = float(lo_text), float(hi_text)
    ok = isinstance(value, int | float | np.integer | np.floating) and not isinstance(
        value, bool | np.bool_
    )
    v = float(value) if ok else math.nan
    inside = (
        (lo < v or (left == "[" and lo == v))
        and (v < hi or (right == "]" and hi == v))
        and not math.isnan(v)
    )
    if inside:
        return v
    if interval.endswith(", inf)") and left == "(":
        shown = f"a finite number > {lo_text}" if what == "a number" else f"{what} > {lo_text}"
    else:
        shown = f"{what} in {interval}"
    raise error(f"{name}={value!r} must be {shown}")


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
