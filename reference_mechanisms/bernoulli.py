"""Exact Bernoulli samplers: Bernoulli(p) for rational p and Bernoulli(exp(-gamma)) for rational gamma.

No floating-point number ever decides an outcome: every event is ``uniform integer < integer``.
Batches are vectorised with numpy int64 arrays and masks (a loop over *rounds*, never over
samples); parameters whose integers would overflow int64 fall back to an exact per-sample path on
Python ints.

References:
    Canonne, Kamath, Steinke, "The Discrete Gaussian for Differential Privacy", NeurIPS 2020,
    Algorithm 1 (Bernoulli(exp(-gamma)) from Bernoulli(gamma/k) trials, after von Neumann/Forsythe).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np

from dp_params.checks import as_fraction
from reference_mechanisms.randomness import INT64_SAFE, IntegerSource, randbelow, resolve_rng

__all__ = [
    "as_fraction",
    "bernoulli_exp_many",
    "sample_bernoulli",
    "sample_bernoulli_exp",
]

#: Denominators up to this size take the vectorised path of ``bernoulli_exp_many`` (leaves room
#: for the factor ``k`` in Bernoulli(gamma/k) before reaching ``INT64_SAFE``).
VEC_DEN_MAX = 1 << 56


def positive_fraction(x: Any, name: str) -> Fraction:
    """:func:`as_fraction` of a parameter that must be > 0 (a scale, a variance, a sensitivity).

    Raises:
        ValueError: ``x`` is not > 0, NaN or infinite; the message names ``name``.
    """
    f = as_fraction(x, name)
    if f <= 0:
        raise ValueError(f"{name}={x!r} must be > 0")
    return f


def check_size(size: int) -> int:
    if isinstance(size, (bool, np.bool_)) or not isinstance(size, (int, np.integer)) or size < 0:
        raise ValueError(f"size={size!r} must be a non-negative int")
    return int(size)


def sample_bernoulli(p: Any, size: int, rng: IntegerSource | None = None) -> np.ndarray:
    """``size`` exact Bernoulli(p) draws as a bool array, for rational ``p`` in [0, 1].

    Small denominators: one draw ``u ~ U{0..d-1}``, outcome ``u < n``.  Large denominators:
    compare a uniform real in [0,1) with ``p`` 62 bits at a time, drawing further chunks only for
    the (probability 2^-62) ties, which is still exact.

    Raises:
        ValueError: ``p`` outside [0, 1], NaN/inf, or ``size`` negative.
    """
    p = as_fraction(p, "p")
    if not 0 <= p <= 1:
        raise ValueError(f"p={p} must be in [0, 1]")
    size = check_size(size)
    rng = resolve_rng(rng)
    n, d = p.numerator, p.denominator
    if size == 0:
        return np.zeros(0, dtype=bool)
    if d <= INT64_SAFE:
        below: np.ndarray = np.asarray(rng.integers(0, d, size=size)) < n
        return below
    out = np.zeros(size, dtype=bool)
    undecided = np.arange(size)
    rest = p  # the part of p's binary expansion not yet compared, scaled to [0, 1)
    while undecided.size:
        scaled = rest * INT64_SAFE
        chunk = scaled.numerator // scaled.denominator
        rest = scaled - chunk
        u = np.asarray(rng.integers(0, INT64_SAFE, size=undecided.size))
        out[undecided[u < chunk]] = True
        # u == chunk ties with a still-positive remainder stay undecided; with zero remainder
        # the real U is >= p, i.e. False.
        tie = u == chunk
        undecided = undecided[tie] if rest > 0 else undecided[:0]
    return out


def sample_bernoulli_exp(gamma: Any, size: int, rng: IntegerSource | None = None) -> np.ndarray:
    """``size`` exact Bernoulli(exp(-gamma)) draws as a bool array, for rational ``gamma >= 0``.

    Raises:
        ValueError: ``gamma`` negative, NaN/inf, or ``size`` negative.
    """
    gamma = as_fraction(gamma, "gamma")
    if gamma < 0:
        raise ValueError(f"gamma={gamma} must be >= 0")
    size = check_size(size)
    rng = resolve_rng(rng)
    if gamma.numerator <= INT64_SAFE:
        num = np.full(size, gamma.numerator, dtype=np.int64)
        return bernoulli_exp_many(num, gamma.denominator, rng)
    return bernoulli_exp_many([gamma.numerator] * size, gamma.denominator, rng)


def bernoulli_exp_many(num: Any, den: int, rng: IntegerSource) -> np.ndarray:
    """Exact Bernoulli(exp(-num[i]/den)) for each i, as a bool array (vectorised).

    ``num`` holds non-negative integers (an int64 array, or Python ints of any size) and ``den`` a
    positive int common to all.  This is the workhorse behind the discrete Laplace/Gaussian
    samplers, whose acceptance probabilities are exp(-u/t) and exp(-bias) with per-sample
    numerators.

    Algorithm (CKS20, Alg. 1): exp(-gamma) = exp(-1)^floor(gamma) * exp(-frac(gamma)), and
    Bernoulli(exp(-g)) for g in [0,1] is "k=1; while Bernoulli(g/k): k+=1; return k odd".
    """
    den = int(den)
    if den < 1:
        raise ValueError(f"den={den!r} must be >= 1")
    if isinstance(num, np.ndarray) and num.dtype != object:
        arr = num.astype(np.int64, copy=False)
        if arr.size and int(arr.min()) < 0:
            raise ValueError("num must be >= 0")
        if den <= VEC_DEN_MAX and (arr.size == 0 or int(arr.max()) <= INT64_SAFE):
            return _bernoulli_exp_vec(arr, den, rng)
        num = [int(v) for v in arr]
    vals = [int(v) for v in num]
    if any(v < 0 for v in vals):
        raise ValueError("num must be >= 0")
    out = np.zeros(len(vals), dtype=bool)
    if den <= VEC_DEN_MAX:
        small = np.array([v <= INT64_SAFE for v in vals], dtype=bool)
        idx = np.flatnonzero(small)
        out[idx] = _bernoulli_exp_vec(np.array([vals[i] for i in idx], dtype=np.int64), den, rng)
        big = np.flatnonzero(~small)
    else:
        big = np.arange(len(vals))
    # numerators beyond int64 (or a huge denominator): exact per-sample path on Python ints
    for i in big:
        out[i] = bernoulli_exp_scalar(Fraction(vals[i], den), rng)
    return out


def _bernoulli_exp_vec(arr: np.ndarray, den: int, rng: IntegerSource) -> np.ndarray:
    """Vectorised core of :func:`bernoulli_exp_many` for int64 numerators and a modest ``den``."""
    size = arr.shape[0]
    if size == 0:
        return np.zeros(0, dtype=bool)
    whole = arr // den
    frac = arr - whole * den
    alive = np.ones(size, dtype=bool)
    # exp(-1)^whole: each survivor with whole > r needs one more Bernoulli(exp(-1)) success.
    r = 0
    while True:
        idx = np.flatnonzero(alive & (whole > r))
        if idx.size == 0:
            break
        ok = _bernoulli_exp1_vec(np.full(idx.size, 1, dtype=np.int64), 1, rng)
        alive[idx[~ok]] = False
        r += 1
    idx = np.flatnonzero(alive)
    if idx.size:
        alive[idx] = _bernoulli_exp1_vec(frac[idx], den, rng)
    return alive


def _bernoulli_exp1_vec(a: np.ndarray, den: int, rng: IntegerSource) -> np.ndarray:
    """Bernoulli(exp(-a[i]/den)) for 0 <= a[i] <= den, vectorised over rounds of k.

    CKS20: k = 1; while Bernoulli(a/(den k)): k += 1; return k odd.  Every sample still active
    in round k has the same k, so each round is one draw of uniform integers below ``den * k``.
    """
    size = a.shape[0]
    result = np.empty(size, dtype=bool)
    active = np.arange(size)
    k = 1
    while active.size:
        if den * k > INT64_SAFE:  # astronomically rare: finish exactly on Python ints
            for i in active:
                ki = k
                while randbelow(rng, den * ki) < int(a[i]):
                    ki += 1
                result[i] = ki % 2 == 1
            break
        hit = np.asarray(rng.integers(0, den * k, size=active.size)) < a[active]
        result[active[~hit]] = k % 2 == 1
        active = active[hit]
        k += 1
    return result


def bernoulli_exp_scalar(gamma: Fraction, rng: IntegerSource) -> bool:
    """Exact Bernoulli(exp(-gamma)) on Python ints (any size): the per-sample fallback."""
    while gamma > 1:
        if not _bernoulli_exp1_scalar(Fraction(1), rng):
            return False
        gamma -= 1
    return _bernoulli_exp1_scalar(gamma, rng)


def _bernoulli_exp1_scalar(gamma: Fraction, rng: IntegerSource) -> bool:
    n, d = gamma.numerator, gamma.denominator
    k = 1
    while randbelow(rng, d * k) < n:
        k += 1
    return k % 2 == 1
