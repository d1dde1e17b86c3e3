"""How far apart two query inputs are, decided exactly on the doubles.

A pair of neighbours built in floating point can overshoot the declared sensitivity by
rounding, and a rounded subtraction can hide it: with ``u = 1 - 2**-53``, ``u + 1`` rounds to
``2.0`` and ``2.0 - u`` rounds back to ``1.0``.  A mechanism that floors its input moves by 2 on
that pair, so a correct one would look broken.  Every scalar or vector pair an attack builds is
therefore checked here in rational arithmetic, and pulled back by ulps where it overshoots.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import numpy.typing as npt

from auditor.core.kinds import Norm

#: a float norm of the differences this far inside the bound is inside it exactly: the rounding
#: of m differences and their sum is at most about m * 2^-53 relative (see ``_slack``)
_SLACK = 1e-9


def _slack(m: int) -> float:
    return max(_SLACK, 4.0 * m * 2.0**-53)


def float_norm(v: npt.ArrayLike, norm: Norm) -> float:
    """``v``'s norm in floating point (rounded: for sizes and labels, not for deciding)."""
    size = np.abs(np.asarray(v, dtype=float))
    if norm is Norm.L1:
        return float(size.sum())
    if norm is Norm.L2:
        return float(np.sqrt((size * size).sum()))
    return float(size.max(initial=0.0))


def _gap(u: float, v: float) -> Fraction:
    """|v - u| exactly."""
    return abs(Fraction(v) - Fraction(u))


def _exact_norm_within(a: np.ndarray, b: np.ndarray, norm: Norm, bound: float) -> bool:
    """``a`` and ``b`` as given (integers stay integers: no rounding to doubles)."""
    changed = np.flatnonzero(a != b)
    # inputs repeat values: each distinct (a, b) once for the largest entry
    pairs = list(zip(a[changed].tolist(), b[changed].tolist(), strict=True))
    if norm is Norm.LINF:
        pairs = list(set(pairs))
    diffs = [_gap(u, v) for u, v in pairs]
    limit = Fraction(bound)
    if norm is Norm.L1:
        return sum(diffs, Fraction(0)) <= limit
    if norm is Norm.L2:
        return sum((d * d for d in diffs), Fraction(0)) <= limit * limit
    return max(diffs, default=Fraction(0)) <= limit


def within_norm(x: npt.ArrayLike, x_prime: npt.ArrayLike, norm: Norm, bound: float) -> bool:
    """Whether ``x_prime - x`` is at most ``bound`` in ``norm``, exactly (same shapes, finite
    entries; a scalar is a vector of one entry)."""
    exact_a = np.atleast_1d(np.asarray(x)).ravel()
    exact_b = np.atleast_1d(np.asarray(x_prime)).ravel()
    if exact_a.shape != exact_b.shape:
        return False
    a, b = exact_a.astype(float), exact_b.astype(float)
    if not (np.isfinite(a).all() and np.isfinite(b).all()):
        return False
    if exact_a.dtype.kind in "iu" or exact_b.dtype.kind in "iu":
        # integers beyond 2^53 round as doubles: decided on the integers themselves
        big = max(float(np.abs(a).max(initial=0)), float(np.abs(b).max(initial=0)))
        if big >= 2.0**53:
            return _exact_norm_within(exact_a, exact_b, norm, bound)
    with np.errstate(over="ignore"):
        approx = float_norm(b - a, norm)
    slack = _slack(a.size)
    if approx <= bound * (1 - slack):
        return True
    if approx > bound * (1 + slack):
        return False
    return _exact_norm_within(exact_a, exact_b, norm, bound)


def pull_within(x: npt.ArrayLike, x_prime: npt.ArrayLike, norm: Norm, bound: float) -> np.ndarray:
    """``x_prime`` with its entries moved by ulps towards ``x`` until it is at most ``bound``
    away in ``norm`` exactly (under L∞ each entry alone; under L1 and L2 every moved entry
    alike); unchanged when it already is."""
    a = np.asarray(x, dtype=float)
    out = np.array(x_prime, dtype=float)
    if norm is Norm.LINF:
        limit, fixed = Fraction(bound), {}
        flat_a, flat = a.ravel(), out.ravel()
        for i, key in enumerate(zip(flat_a.tolist(), flat.tolist(), strict=True)):
            if key not in fixed:
                u, v = key
                if abs(v - u) > bound * (1 + 1e-6):
                    raise ValueError(f"an entry moves by {abs(v - u):.6g}, beyond {bound:.6g}")
                while _gap(u, v) > limit:
                    v = float(np.nextafter(v, u))
                fixed[key] = v
            flat[i] = fixed[key]
        return flat.reshape(out.shape)
    with np.errstate(over="ignore"):
        approx = float_norm(out - a, norm)
    if approx > bound * (1 + 1e-6):
        # ulps mend rounding only: a real overshoot would take ~forever to walk back
        raise ValueError(f"the move has {norm} norm {approx:.6g}, beyond {bound:.6g}")
    while not within_norm(a, out, norm, bound):
        moved = out != a
        out[moved] = np.nextafter(out[moved], a[moved])
    return out
