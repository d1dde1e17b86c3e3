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
    "check_real",
    "check_sensitivity",
    "rational_floor",
]

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
