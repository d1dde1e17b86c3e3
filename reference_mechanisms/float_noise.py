"""Laplace and Gaussian noise for float queries, exact in the OpenDP sense.

Discretise, add exact integer noise, scale back: the query ``x`` is rounded to the nearest
multiple of ``2^k`` (ties toward +inf, computed exactly), exact discrete Laplace/Gaussian noise
in units of ``2^k`` is added, and the integer result times ``2^k`` is returned as the nearest
double.  The last step is post-processing of an integer, so floating-point rounding cannot leak
(no porous output set, no Mironov attack).

Privacy accounting of the input rounding (proof in one line): with ``n(x) = floor(x 2^-k + 1/2)``,
``|n(x) - n(x')| < |x - x'| 2^-k + 1``, and being an integer it is ``<= ceil(|x - x'| 2^-k)``.
So a query of sensitivity Delta becomes an integer query of sensitivity
``Delta_int = ceil(Delta 2^-k) <= (Delta + 2^k) 2^-k`` (the bound OpenDP and Google use).

References:
    OpenDP >= 0.5, ``make_laplace``/``make_gaussian`` on float domains ("find_nearest_multiple_of
    _2k", CKS20 noise on bignums, ``from_rational``); Google, "Secure Noise Generation" (2020),
    Prop. 1 (granularity accounting Delta + r); Canonne, Kamath, Steinke, NeurIPS 2020.

Assumptions:
    ``x`` is a finite double (or exact rational); ``rng`` returns exactly uniform integers.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import gmpy2
import numpy as np

from reference_mechanisms.bernoulli import as_fraction, check_size, positive_fraction
from reference_mechanisms.discrete_gaussian import (
    analytic_gaussian_ratio,
    calibrate_discrete_gaussian,
    discrete_gaussian_delta,
    sample_discrete_gaussian,
)
from reference_mechanisms.discrete_laplace import sample_discrete_laplace
from reference_mechanisms.params import check_delta, check_epsilon
from reference_mechanisms.randomness import IntegerSource, resolve_rng

__all__ = [
    "calibrate_gaussian_float",
    "gaussian_float_delta",
    "grid_sensitivity",
    "laplace_float_epsilon",
    "round_to_grid",
    "sample_gaussian_float",
    "sample_laplace_float",
]

_INT64_LIM = 1 << 62


def round_to_grid(x: Any, k: int) -> int:
    """The integer ``n`` nearest to ``x 2^-k`` (ties toward +inf), computed exactly.

    Raises:
        ValueError: ``x`` is NaN or infinite.
    """
    v = as_fraction(x, "x") / Fraction(2) ** k
    return math.floor(v + Fraction(1, 2))


def grid_sensitivity(sensitivity: Any, k: int) -> int:
    """``ceil(Delta 2^-k)``: the sensitivity, in grid units, of a query rounded to the 2^k grid."""
    d = positive_fraction(sensitivity, "sensitivity")
    return math.ceil(d / Fraction(2) ** k)


def _from_grid(y: np.ndarray | list[int], k: int) -> np.ndarray:
    """Nearest doubles to ``y * 2^k`` (post-processing of integers; exact when |y| <= 2^53)."""
    if (
        isinstance(y, np.ndarray)
        and y.dtype == np.int64
        and (y.size == 0 or int(np.abs(y).max()) <= 1 << 53)
    ):
        return np.ldexp(y.astype(np.float64), k)
    scale = Fraction(2) ** k
    return np.array([float(int(v) * scale) for v in y], dtype=np.float64)


def _grid_release(
    x: Any,
    k: int,
    size: int,
    rng: IntegerSource | None,
    draw: Callable[[int, IntegerSource], np.ndarray],
) -> np.ndarray:
    """``size`` releases ``round_2^k(x) + z`` as doubles, ``z = draw(size, source)`` the integer
    noise in grid units: what the float Laplace and Gaussian share but their noise."""
    size = check_size(size)
    x_int = round_to_grid(x, k)
    noise = draw(size, resolve_rng(rng))
    if abs(x_int) < _INT64_LIM and (noise.size == 0 or int(np.abs(noise).max()) < _INT64_LIM):
        return _from_grid(x_int + noise, k)
    return _from_grid([x_int + int(z) for z in noise], k)


def sample_laplace_float(
    x: Any, scale: Any, size: int, k: int, rng: IntegerSource | None = None
) -> np.ndarray:
    """``size`` draws of ``round_2^k(x) + 2^k * DLap(scale 2^-k)`` as float64.

    Args:
        x: the true query answer (finite double or rational).
        scale: noise scale in the query's units (rational > 0); the integer noise has scale
            ``scale 2^-k``, so P[output = (n+z) 2^k] is proportional to exp(-|z| 2^k / scale).
        size: number of draws.
        k: grid exponent (granularity 2^k).
        rng: uniform-integer source; ``None`` means ``SystemRandomness``.

    The mechanism is ``laplace_float_epsilon(scale, Delta, k)``-DP for sensitivity ``Delta``.

    Raises:
        ValueError: x or scale not finite, scale <= 0, size negative.
    """
    grid_scale = positive_fraction(scale, "scale") / Fraction(2) ** k
    return _grid_release(
        x, k, size, rng, lambda m, src: sample_discrete_laplace(grid_scale, m, src)
    )


def laplace_float_epsilon(scale: Any, sensitivity: Any, k: int) -> Fraction:
    """Exact pure-DP epsilon of :func:`sample_laplace_float`: ``ceil(Delta 2^-k) 2^k / scale``."""
    scale = positive_fraction(scale, "scale")
    epsilon: Fraction = grid_sensitivity(sensitivity, k) * Fraction(2) ** k / scale
    return epsilon


def sample_gaussian_float(
    x: Any, sigma2: Any, size: int, k: int, rng: IntegerSource | None = None
) -> np.ndarray:
    """``size`` draws of ``round_2^k(x) + 2^k * N_Z(0, sigma2 4^-k)`` as float64.

    ``sigma2`` is the variance parameter in the query's units squared (rational > 0).  The
    mechanism is ``(epsilon, gaussian_float_delta(epsilon, sigma2, Delta, k))``-DP.

    Raises:
        ValueError: x or sigma2 not finite, sigma2 <= 0, size negative.
    """
    grid_sigma2 = positive_fraction(sigma2, "sigma2") / Fraction(4) ** k
    return _grid_release(
        x, k, size, rng, lambda m, src: sample_discrete_gaussian(grid_sigma2, m, src)
    )


def gaussian_float_delta(epsilon: Any, sigma2: Any, sensitivity: Any, k: int) -> gmpy2.mpfr:
    """Upper bound on the delta of :func:`sample_gaussian_float` at ``epsilon`` (CKS20 Thm 7)."""
    sigma2 = as_fraction(sigma2, "sigma2")
    return discrete_gaussian_delta(
        epsilon, sigma2 / Fraction(4) ** k, grid_sensitivity(sensitivity, k)
    )


def calibrate_gaussian_float(
    epsilon: float, delta: float, sensitivity: Any, sigma_bits: int = 12
) -> tuple[int, Fraction]:
    """Grid exponent ``k`` and variance ``sigma2`` (query units) certified (epsilon, delta)-DP.

    The grid is chosen so that sigma is about ``2^sigma_bits`` grid steps; ``sigma2 4^-k`` is an
    integer multiple of a power of two near sigma (fast exact sampling) and is increased until
    :func:`gaussian_float_delta` (a rigorous upper bound) is at most ``delta``.

    Raises:
        ValueError: epsilon not > 0 / delta not in (0, 1) / sensitivity not > 0 (finite).
    """
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta, positive=True)
    sens = positive_fraction(sensitivity, "sensitivity")
    ratio = analytic_gaussian_ratio(epsilon, delta)
    k = math.floor(math.log2(ratio * float(sens))) - sigma_bits
    s2_grid = calibrate_discrete_gaussian(float(epsilon), float(delta), grid_sensitivity(sens, k))
    return k, s2_grid * Fraction(4) ** k
