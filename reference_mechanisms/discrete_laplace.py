"""Exact discrete Laplace (two-sided geometric) and geometric samplers on the integers.

``sample_discrete_laplace(scale, n)`` returns int64 draws with P[x] proportional to
exp(-|x|/scale), exactly: every decision is a comparison of uniform integers, never a float.
The batch is vectorised (numpy arrays with masks; Python loops only over rejection *rounds*).

Fast path: the numerator ``t`` of ``scale = t/s`` is at most 2^56 (true for every scale the
built-in adapters build, e.g. ``Delta * 2^k / floor(epsilon * 2^k)``).  Larger numerators use an
exact per-sample Python-int path (correct but slow).

References:
    Canonne, Kamath, Steinke, "The Discrete Gaussian for Differential Privacy", NeurIPS 2020,
    Algorithm 2 (geometric via ``u < t`` rejection plus Geometric(1)) and the discrete Laplace
    sampler of their reference code.

Assumptions:
    ``rng`` returns exactly uniform integers (a seeded numpy Generator in tests,
    ``SystemRandomness`` in production).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import gmpy2
import numpy as np

from reference_mechanisms.bernoulli import (
    VEC_DEN_MAX,
    as_fraction,
    bernoulli_exp_many,
    bernoulli_exp_scalar,
    check_size,
    positive_fraction,
    sample_bernoulli,
)
from reference_mechanisms.randomness import INT64_SAFE, IntegerSource, randbelow, resolve_rng

__all__ = [
    "discrete_laplace_pmf",
    "geometric_exp_pmf",
    "sample_discrete_laplace",
    "sample_geometric",
    "sample_geometric_exp",
]

_INT64_MAX = (1 << 63) - 1


def sample_geometric_exp(x: Any, size: int, rng: IntegerSource | None = None) -> np.ndarray:
    """``size`` exact draws with P[k] = (1 - e^{-x}) e^{-x k}, k = 0, 1, ... (int64 array).

    Raises:
        ValueError: ``x`` not > 0 or not finite; ``size`` negative.
        OverflowError: a draw does not fit int64 (only for absurdly small ``x``).
    """
    x = positive_fraction(x, "x")
    size = check_size(size)
    rng = resolve_rng(rng)
    return _geometric_exp(x, size, rng)


def _geometric_exp(x: Fraction, size: int, rng: IntegerSource) -> np.ndarray:
    s, t = x.numerator, x.denominator
    if size == 0:
        return np.zeros(0, dtype=np.int64)
    if t > VEC_DEN_MAX:
        return np.fromiter((_geometric_exp_scalar(s, t, rng) for _ in range(size)), np.int64, size)
    # u ~ U{0..t-1} accepted with probability exp(-u/t): u is the remainder of the
    # Geometric(1/t)-distributed variable modulo t (acceptance >= 1 - 1/e per round).
    u = np.empty(size, dtype=np.int64)
    todo = np.arange(size)
    while todo.size:
        cand = np.asarray(rng.integers(0, t, size=todo.size), dtype=np.int64)
        ok = bernoulli_exp_many(cand, t, rng)
        u[todo[ok]] = cand[ok]
        todo = todo[~ok]
    # v ~ Geometric(1): number of Bernoulli(exp(-1)) successes before the first failure.
    v = np.zeros(size, dtype=np.int64)
    active = np.arange(size)
    ones = np.ones(size, dtype=np.int64)
    while active.size:
        ok = bernoulli_exp_many(ones[: active.size], 1, rng)
        v[active[ok]] += 1
        active = active[ok]
    if t * (int(v.max()) + 1) <= INT64_SAFE:
        return (u + t * v) // s
    big = [(int(a) + t * int(b)) // s for a, b in zip(u, v, strict=True)]
    if max(big) > _INT64_MAX:
        raise OverflowError(f"geometric draw exceeds int64 (x={x})")
    return np.asarray(big, dtype=np.int64)


def _geometric_exp_scalar(s: int, t: int, rng: IntegerSource) -> int:
    """CKS20 geometric_exp_fast on Python ints (any size): the per-sample fallback."""
    while True:
        u = randbelow(rng, t)
        if bernoulli_exp_scalar(Fraction(u, t), rng):
            break
    v = 0
    while bernoulli_exp_scalar(Fraction(1), rng):
        v += 1
    k = (u + t * v) // s
    if k > _INT64_MAX:
        raise OverflowError(f"geometric draw exceeds int64 (x={Fraction(s, t)})")
    return k


def sample_discrete_laplace(scale: Any, size: int, rng: IntegerSource | None = None) -> np.ndarray:
    """``size`` exact discrete Laplace draws, P[x] = tanh(1/(2 scale)) exp(-|x|/scale), as int64.

    Args:
        scale: rational ``> 0`` (Fraction, int, gmpy2 mpq, or a float taken exactly).
        size: number of draws.
        rng: uniform-integer source; ``None`` means :class:`SystemRandomness`.

    Raises:
        ValueError: ``scale`` not > 0, NaN or infinite; ``size`` negative.
    """
    scale = positive_fraction(scale, "scale")
    size = check_size(size)
    rng = resolve_rng(rng)
    return _discrete_laplace(scale, size, rng)


def _discrete_laplace(scale: Fraction, size: int, rng: IntegerSource) -> np.ndarray:
    """Sign and magnitude, rejecting "negative zero" so 0 is not counted twice (CKS20)."""
    x = 1 / scale
    out = np.empty(size, dtype=np.int64)
    todo = np.arange(size)
    while todo.size:
        neg = np.asarray(rng.integers(0, 2, size=todo.size)) == 1
        mag = _geometric_exp(x, todo.size, rng)
        ok = ~(neg & (mag == 0))
        out[todo[ok]] = np.where(neg[ok], -mag[ok], mag[ok])
        todo = todo[~ok]
    return out


def sample_geometric(p: Any, size: int, rng: IntegerSource | None = None) -> np.ndarray:
    """``size`` exact Geometric(p) draws: failures before the first success, P[k] = p (1-p)^k.

    For rational ``p`` in (0, 1].  Vectorised over rounds of Bernoulli(p) trials, so the number of
    rounds grows like log(size)/p: meant for moderate ``p``; for p = 1 - e^{-x} use
    :func:`sample_geometric_exp`, whose cost does not depend on ``x``.

    Raises:
        ValueError: ``p`` outside (0, 1], NaN/inf; ``size`` negative.
    """
    p = as_fraction(p, "p")
    if not 0 < p <= 1:
        raise ValueError(f"p={p} must be in (0, 1]")
    size = check_size(size)
    rng = resolve_rng(rng)
    k = np.zeros(size, dtype=np.int64)
    active = np.arange(size)
    while active.size:
        fail = ~sample_bernoulli(p, active.size, rng)
        k[active[fail]] += 1
        active = active[fail]
    return k


def _mpfr(x: Fraction) -> gmpy2.mpfr:
    return gmpy2.mpfr(gmpy2.mpq(x.numerator, x.denominator))


def discrete_laplace_pmf(x: int, scale: Any, precision: int = 256) -> gmpy2.mpfr:
    """P[X = x] for the discrete Laplace with ``scale``, to ``precision`` bits (mpfr), for tests.

    P[x] = (e^{1/scale} - 1)/(e^{1/scale} + 1) * e^{-|x|/scale} = tanh(1/(2 scale)) e^{-|x|/scale}.
    """
    scale = positive_fraction(scale, "scale")
    with gmpy2.context(gmpy2.get_context(), precision=precision):
        a = _mpfr(1 / scale)
        return gmpy2.tanh(a / 2) * gmpy2.exp(-a * abs(int(x)))


def geometric_exp_pmf(k: int, x: Any, precision: int = 256) -> gmpy2.mpfr:
    """P[K = k] = (1 - e^{-x}) e^{-x k} for :func:`sample_geometric_exp`, as mpfr (for tests)."""
    x = positive_fraction(x, "x")
    if k < 0:
        return gmpy2.mpfr(0)
    with gmpy2.context(gmpy2.get_context(), precision=precision):
        a = _mpfr(x)
        return -gmpy2.expm1(-a) * gmpy2.exp(-a * int(k))
