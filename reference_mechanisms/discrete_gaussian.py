"""Exact discrete Gaussian sampler on the integers, its pmf and its exact (epsilon, delta) curve.

``sample_discrete_gaussian(sigma2, n)`` returns int64 draws with P[x] proportional to
exp(-x^2 / (2 sigma2)) for rational ``sigma2``, exactly (CKS20 rejection from a discrete Laplace
proposal; every decision is an integer comparison).  Vectorised over rejection rounds.

Fast path: the acceptance probability is exp(-(|c| - sigma2/t)^2 / (2 sigma2)) with proposal
scale ``t``; written over a common denominator that denominator must be <= 2^56 for the batch to
run on int64 arrays.  For ``t = floor(sigma)+1`` it is about 2 sigma^4 (fine up to sigma ~ 2^13);
when ``sigma2`` is a multiple of a power of two near sigma (as the calibrated adapters choose it)
that power of two is used as ``t`` and the denominator drops to 2 sigma2.  Otherwise an exact
per-sample Python-int path takes over.

References:
    Canonne, Kamath, Steinke, "The Discrete Gaussian for Differential Privacy", NeurIPS 2020,
    Algorithm 3 (sampler) and Theorem 7 (exact (epsilon, delta) guarantee).

Assumptions:
    ``rng`` returns exactly uniform integers.
"""

from __future__ import annotations

import functools
import math
from fractions import Fraction
from typing import Any

import gmpy2
import numpy as np

from reference_mechanisms.bernoulli import (
    VEC_DEN_MAX,
    as_fraction,
    bernoulli_exp_many,
    check_size,
    positive_fraction,
)
from reference_mechanisms.discrete_laplace import _discrete_laplace
from reference_mechanisms.params import check_delta, check_epsilon
from reference_mechanisms.randomness import INT64_SAFE, IntegerSource, resolve_rng

__all__ = ["discrete_gaussian_delta", "discrete_gaussian_pmf", "sample_discrete_gaussian"]

#: Tail cut for the high-precision sums: the mass beyond it is < e^-190, far below the 2^-100
#: margin added to delta.
_TAIL_SIGMAS = 20


def sample_discrete_gaussian(
    sigma2: Any, size: int, rng: IntegerSource | None = None
) -> np.ndarray:
    """``size`` exact discrete Gaussian draws, P[x] proportional to exp(-x^2/(2 sigma2)), int64.

    Args:
        sigma2: the variance parameter sigma^2, rational ``> 0`` (Fraction, int, mpq, exact float).
        size: number of draws.
        rng: uniform-integer source; ``None`` means :class:`SystemRandomness`.

    Raises:
        ValueError: ``sigma2`` not > 0, NaN or infinite; ``size`` negative.
    """
    sigma2 = positive_fraction(sigma2, "sigma2")
    size = check_size(size)
    rng = resolve_rng(rng)
    t = _proposal_t(sigma2)
    mult, a, b, den = _bias_terms(sigma2, t)
    out = np.empty(size, dtype=np.int64)
    todo = np.arange(size)
    while todo.size:
        c = _discrete_laplace(Fraction(t), todo.size, rng)
        mag = np.abs(c)
        # bias = (|c| - sigma2/t)^2 / (2 sigma2) = mult (|c| b - a)^2 / den,  sigma2/t = a/b
        if (int(mag.max()) * b + a) ** 2 * mult <= INT64_SAFE:
            num = mult * (mag * b - a) ** 2
        else:
            num = [mult * (int(m) * b - a) ** 2 for m in mag]
        ok = bernoulli_exp_many(num, den, rng)
        out[todo[ok]] = c[ok]
        todo = todo[~ok]
    return out


def _proposal_t(sigma2: Fraction) -> int:
    """Scale t of the discrete Laplace proposal: floor(sigma)+1 (CKS20), or a nearby power of two
    when that makes the acceptance probability's denominator small enough for int64 arithmetic.
    Any t > 0 gives the exact distribution; t within a factor 2 of sigma keeps acceptance high."""
    t0 = math.isqrt(sigma2.numerator // sigma2.denominator) + 1
    best = t0
    if _bias_terms(sigma2, t0)[3] > VEC_DEN_MAX:
        for t in (1 << (t0.bit_length() - 1), 1 << t0.bit_length()):
            if _bias_terms(sigma2, t)[3] <= VEC_DEN_MAX:
                return t
    return best


def _bias_terms(sigma2: Fraction, t: int) -> tuple[int, int, int, int]:
    """(mult, a, b, den) with bias(|c|) = mult (|c| b - a)^2 / den and sigma2 / t = a / b."""
    r = sigma2 / t
    a, b = r.numerator, r.denominator
    # (|c| - a/b)^2 / (2 sigma2) = (|c| b - a)^2 q / (2 b^2 p)
    p, q = sigma2.numerator, sigma2.denominator
    full = 2 * b * b * p
    g = math.gcd(q, full)
    return q // g, a, b, full // g


@functools.lru_cache(maxsize=64)
def _log_weights_norm(sigma2: Fraction, precision: int) -> gmpy2.mpfr:
    """Z = sum_y exp(-y^2/(2 sigma2)) to ``precision`` bits (tails beyond 20 sigma dropped)."""
    with gmpy2.context(gmpy2.get_context(), precision=precision + 32):
        s2 = gmpy2.mpfr(gmpy2.mpq(sigma2.numerator, sigma2.denominator))
        m = int(_TAIL_SIGMAS * math.isqrt(int(sigma2) + 1)) + 10
        return 2 * _tail_sum(0, m, s2) - 1


def _tail_sum(start: int, stop: int, s2: gmpy2.mpfr) -> gmpy2.mpfr:
    """sum_{y=start}^{stop} exp(-y^2/(2 s2)) for 0 <= start, by the ratio recurrence."""
    term = gmpy2.exp(-(gmpy2.mpfr(start) ** 2) / (2 * s2))
    ratio = gmpy2.exp(-(2 * gmpy2.mpfr(start) + 1) / (2 * s2))
    step = gmpy2.exp(-1 / s2)
    total = gmpy2.mpfr(0)
    for _ in range(start, stop + 1):
        total += term
        term *= ratio
        ratio *= step
    return total


def discrete_gaussian_pmf(x: int, sigma2: Any, precision: int = 128) -> gmpy2.mpfr:
    """P[X = x] for the discrete Gaussian with variance parameter ``sigma2`` (mpfr, for tests)."""
    sigma2 = positive_fraction(sigma2, "sigma2")
    z = _log_weights_norm(sigma2, precision)
    with gmpy2.context(gmpy2.get_context(), precision=precision):
        s2 = gmpy2.mpfr(gmpy2.mpq(sigma2.numerator, sigma2.denominator))
        return gmpy2.exp(-(gmpy2.mpfr(int(x)) ** 2) / (2 * s2)) / z


def discrete_gaussian_delta(
    epsilon: Any, sigma2: Any, sensitivity: int = 1, precision: int = 128
) -> gmpy2.mpfr:
    """Smallest delta for which x + N_Z(0, sigma2) is (epsilon, delta)-DP at integer sensitivity.

    CKS20 Theorem 7:  delta = P[Y > a] - e^epsilon P[Y > a + Delta],  a = epsilon sigma2/Delta -
    Delta/2,  Y ~ N_Z(0, sigma2).  Computed with mpfr; the result is rounded *up* by 2^-100 (plus
    the dropped tails, < e^-190), so it is an upper bound usable to certify a claim.

    Raises:
        ValueError: epsilon < 0 or not finite; sigma2 not > 0; sensitivity not a positive int.
    """
    eps = as_fraction(epsilon, "epsilon")
    if eps < 0:
        raise ValueError(f"epsilon={epsilon!r} must be >= 0")
    sigma2 = positive_fraction(sigma2, "sigma2")
    if isinstance(sensitivity, bool) or int(sensitivity) != sensitivity or sensitivity < 1:
        raise ValueError(f"sensitivity={sensitivity!r} must be a positive integer")
    d = int(sensitivity)
    a = eps * sigma2 / d - Fraction(d, 2)
    z = _log_weights_norm(sigma2, precision)
    with gmpy2.context(gmpy2.get_context(), precision=precision + 32):
        s2 = gmpy2.mpfr(gmpy2.mpq(sigma2.numerator, sigma2.denominator))
        m = int(_TAIL_SIGMAS * math.isqrt(int(sigma2) + 1)) + 10

        def upper_tail(thr: Fraction) -> gmpy2.mpfr:  # P[Y > thr]
            first = math.floor(thr) + 1
            if first <= 0:  # symmetry: P[Y >= first] = 1 - P[Y >= 1 - first]
                return 1 - _tail_sum(1 - first, 1 - first + m, s2) / z
            return _tail_sum(first, first + m, s2) / z

        e = gmpy2.exp(gmpy2.mpfr(gmpy2.mpq(eps.numerator, eps.denominator)))
        delta = upper_tail(a) - e * upper_tail(a + d)
    return max(gmpy2.mpfr(0), delta) + gmpy2.mpfr(2) ** -100


def analytic_gaussian_ratio(epsilon: float, delta: float) -> float:
    """sigma/Delta of the continuous analytic Gaussian mechanism (Balle & Wang 2018): a guess."""
    from scipy import optimize, stats

    def excess(s: float) -> float:
        a, b = 1 / (2 * s), epsilon * s
        gap: float = stats.norm.cdf(a - b) - math.exp(epsilon) * stats.norm.cdf(-a - b) - delta
        return gap

    ratio: float = optimize.brentq(excess, 1e-6, 1e8, xtol=1e-12)
    return ratio


def round_up_sigma2(sigma: float) -> Fraction:
    """A rational >= sigma^2 that the sampler handles on int64 arrays."""
    sq = Fraction(sigma) ** 2
    if sigma < 64:
        return Fraction(math.ceil(sq * 256), 256)
    j = math.floor(math.log2(sigma))
    return Fraction((1 << j) * math.ceil(sq / (1 << j)))


@functools.lru_cache(maxsize=64)
def calibrate_discrete_gaussian(epsilon: float, delta: float, sensitivity: int) -> Fraction:
    """A rational sigma2 for which x + N_Z(0, sigma2) is certified (epsilon, delta)-DP.

    Starts from the continuous analytic-Gaussian sigma, rounds sigma2 up (to a multiple of a
    power of two near sigma when sigma >= 64, so the sampler's fast path applies; to a multiple
    of 2^-8 below) and grows it by 2^-8 steps until
    :func:`discrete_gaussian_delta` (a rigorous upper bound) is <= delta.

    Raises:
        ValueError: epsilon not finite and > 0, delta not in (0, 1), sensitivity not a positive int.
    """
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta, positive=True)
    if isinstance(sensitivity, bool) or int(sensitivity) != sensitivity or sensitivity < 1:
        raise ValueError(f"sensitivity={sensitivity!r} must be a positive integer")
    guess = analytic_gaussian_ratio(epsilon, delta) * int(sensitivity) * (1 + 2.0**-10)
    target = gmpy2.mpfr(delta, 128)
    for _ in range(2000):
        s2 = round_up_sigma2(guess)
        if discrete_gaussian_delta(epsilon, s2, int(sensitivity)) <= target:
            return s2
        guess *= 1 + 2.0**-8
    raise RuntimeError(f"could not calibrate sigma for epsilon={epsilon}, delta={delta}")
