"""Argument checks and the exact value of a number, for the whole project: the bottom layer.

Both the vocabulary (``auditor.core``: claims, configs) and the mechanisms under audit
(``reference_mechanisms``) use them, and neither imports the other.  Each check names the
argument and its value in a one-line message; ``check_integer`` and ``check_real`` take the
exception class their caller raises (``ValueError`` by default, ``InvalidArgument`` in the
auditor).
"""

from __future__ import annotations

import math
from fractions import Fraction
from numbers import Rational
from typing import Any

import numpy as np

__all__ = [
    "as_fraction",
    "check_delta",
    "check_epsilon",
    "check_finite",
    "check_integer",
    "check_real",
]


def as_fraction(x: Any, name: str) -> Fraction:
    """Exact rational value of ``x`` (int, Fraction, gmpy2 mpz/mpq, or a finite float, exactly).

    Raises:
        ValueError: ``x`` is NaN, infinite, or not a number.
    """
    if isinstance(x, Fraction):
        return x
    if isinstance(x, (bool, np.bool_)):
        raise ValueError(f"{name}={x!r} must be a number, not a bool")
    if isinstance(x, (int, np.integer)):
        return Fraction(int(x))
    if isinstance(x, Rational) or (hasattr(x, "numerator") and hasattr(x, "denominator")):
        try:
            return Fraction(int(x.numerator), int(x.denominator))
        except (TypeError, ValueError, ZeroDivisionError) as exc:
            raise ValueError(f"{name}={x!r} is not a valid rational") from exc
    if isinstance(x, (float, np.floating)):
        if not math.isfinite(float(x)):
            raise ValueError(f"{name}={x!r} must be finite")
        return Fraction(float(x))
    raise ValueError(f"{name}={x!r} must be an int, Fraction, gmpy2 mpq or finite float")


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


def check_finite(x: Any, name: str) -> float:
    """``x`` as a float; raises ValueError naming ``name`` unless it is a finite real number."""
    try:
        v = float(x)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name}={x!r} must be a real number") from exc
    if math.isnan(v) or math.isinf(v):
        raise ValueError(f"{name}={x!r} must be finite")
    return v


def check_epsilon(epsilon: Any) -> float:
    """``epsilon`` as a float; raises ValueError unless it is finite and > 0."""
    v = check_finite(epsilon, "epsilon")
    if v <= 0:
        raise ValueError(f"epsilon={epsilon!r} must be > 0")
    return v


def check_delta(delta: Any, *, positive: bool = False) -> float:
    """``delta`` as a float in [0, 1) (or (0, 1) when ``positive``); raises ValueError otherwise."""
    v = check_finite(delta, "delta")
    if not 0 <= v < 1 or (positive and v == 0):
        raise ValueError(f"delta={delta!r} must be in {'(0' if positive else '[0'}, 1)")
    return v
