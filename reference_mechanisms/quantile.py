"""A private quantile by the exponential mechanism on an integer grid, sampled exactly.

Why this module: the exponential-mechanism quantile is the standard private median/quantile
(and the building block of the many-quantile algorithms), and its utility's sensitivity is easy
to misstate when n itself changes between neighbours.  This reference states the claim for both
neighbour relations, samples exactly and gives the exact pmf.

**Statement implemented** (single-quantile exponential mechanism: Smith, "Privacy-preserving
Statistical Estimation with Optimal Convergence Rates", STOC 2011; the single-quantile case of
Gillenwater, Joseph, Kulesza, "Differentially Private Quantiles", ICML 2021; exponential
mechanism: McSherry & Talwar, FOCS 2007, Thm. 6, Dwork & Roth 2014, Thm. 3.10).  Records are
integers in a public grid ``[lo, hi]`` (at most 2^16 points); for a quantile q in [0, 1] and a
dataset of n records, output the grid point y with probability

    P[y] ∝ exp(-epsilon' |c(y) - q n| / 2),      c(y) = #{i : x_i < y}.

**Sensitivity 1 under both neighbour relations.**  Let u(y) = -|c(y) - q n|.  *Substitute* (n
fixed): moving one record changes each c(y) by at most 1, so |u| moves by at most 1.
*Add/remove*: adding a record raises c(y) by 0 or 1 and q n by q, so c(y) - q n moves by
``1 - q`` or ``-q``: at most ``max(q, 1 - q) <= 1``.  The exponential mechanism with
``exp(epsilon u / (2 Delta))``, Delta = 1, is therefore **epsilon'-DP** for either relation
(the factor 2 is needed: the normaliser moves too, and u is not monotone in the data).

**Why base 2 (Ilvento).**  The weights exp(-epsilon |c - q n| / 2) are irrational, and exact
sampling from irrational weights needs interval arithmetic on their cumulative sums.  Instead
the utility is made an integer, ``U(y) = -|D c(y) - N n|`` for ``q = N / D`` (sensitivity D,
by the argument above scaled by D), and handed to :class:`Base2ExponentialMechanism`, whose
weights ``b^(U_top - U(y))`` with a *dyadic* base ``b = 2^-eta`` are exact binary fractions,
sampled division-free with no rounding of the utilities (they are integers), i.e. exactly
``P[y] ∝ 2^(eta U(y)) = exp(-epsilon' |c(y) - q n| / 2)`` with ``epsilon' = 2 D eta ln 2``.
``eta_from_epsilon`` picks eta so that ``epsilon' <= epsilon`` and within 0.1 % of it, so the
pmf is exactly the one above at a representable epsilon' slightly below the requested one.
(Permute-and-flip with exact Bernoulli(exp(-gamma)) coins, as in :mod:`report_noisy_max`, would
be exact too, but it samples a *different* distribution than the exponential mechanism; uniform
proposals with Bernoulli(exp(-gamma)) acceptance give the exponential mechanism but need up to
2^16 proposals per draw when the distribution is concentrated.)

Claim: **epsilon-DP** (``delta = 0``), for add/remove *and* substitute neighbours; the mechanism
spends ``epsilon_used = 2 D eta ln 2 <= epsilon`` (rounded up to a float).

q is taken exactly when it is an int, ``Fraction`` or gmpy2 mpq (denominator at most 2^16); a
float is replaced by the nearest rational with denominator <= 2^16 (``0.3`` becomes 3/10), which
is public and only changes which quantile is targeted, not the privacy.

Assumptions:
    ``rng.integers`` is exactly uniform; records are integers inside the public grid (records
    outside are rejected, not clamped); sampling time depends on the data (timing channel).
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import gmpy2
import numpy as np

from reference_mechanisms.base2_exponential import Base2ExponentialMechanism
from reference_mechanisms.bernoulli import as_fraction
from reference_mechanisms.params import (
    QUERY_BOUND,
    check_count,
    check_epsilon,
    check_integer,
    check_integer_queries,
)
from reference_mechanisms.randomness import IntegerSource, resolve_rng

__all__ = [
    "MAX_GRID",
    "MAX_Q_DENOMINATOR",
    "ExponentialQuantile",
    "exponential_quantile_pmf",
    "rank_below",
]

#: Largest number of grid points ``hi - lo + 1``.
MAX_GRID = 1 << 16
#: Largest denominator of q (floats are rounded to the nearest such rational).
MAX_Q_DENOMINATOR = 1 << 16
#: Utilities are clamped to [-UTILITY_BOUND, 0] by the base-2 mechanism: never reached (checked).
UTILITY_BOUND = 1 << 52


def _check_q(q: Any) -> Fraction:
    if isinstance(q, float | np.floating) and not isinstance(q, bool | np.bool_):
        if not math.isfinite(float(q)):
            raise ValueError(f"q={q!r} must be a number in [0, 1]")
        fr = Fraction(float(q)).limit_denominator(MAX_Q_DENOMINATOR)
    else:
        fr = as_fraction(q, "q")
        if fr.denominator > MAX_Q_DENOMINATOR:
            raise ValueError(f"q={q!r} must have a denominator <= 2^16")
    if not 0 <= fr <= 1:
        raise ValueError(f"q={q!r} must be in [0, 1]")
    return fr


def _check_domain(domain: Any) -> tuple[int, int]:
    try:
        if isinstance(domain, (str, bytes)):
            raise TypeError
        lo, hi = domain
    except (TypeError, ValueError) as exc:
        raise ValueError(f"domain={domain!r} must be a pair of integers (lo, hi)") from exc
    lo = check_integer(lo, "domain[0]", minimum=-QUERY_BOUND, maximum=QUERY_BOUND)
    hi = check_integer(hi, "domain[1]", minimum=lo, maximum=QUERY_BOUND)
    if hi - lo + 1 > MAX_GRID:
        raise ValueError(f"domain={domain!r} has {hi - lo + 1} grid points, more than 2^16")
    return lo, hi


def _check_dataset(x: Any, domain: tuple[int, int]) -> np.ndarray:
    """The records as a sorted int64 array (possibly empty), all inside ``domain``."""
    if isinstance(x, (str, bytes, dict)) or x is None:
        raise ValueError(f"dataset={x!r} must be a 1-D array of integers")
    a = np.asarray(x)
    if a.ndim == 1 and a.size == 0:
        return np.zeros(0, dtype=np.int64)
    a = check_integer_queries(a, "dataset")
    lo, hi = domain
    bad = np.flatnonzero((a < lo) | (a > hi))
    if bad.size:
        raise ValueError(f"dataset[{bad[0]}]={int(a[bad[0]])} is outside domain=({lo}, {hi})")
    return np.sort(a)


def _ranks(xs: np.ndarray, domain: tuple[int, int]) -> np.ndarray:
    grid = np.arange(domain[0], domain[1] + 1, dtype=np.int64)
    return np.searchsorted(xs, grid, side="left").astype(np.int64)


def rank_below(dataset: Any, domain: tuple[int, int]) -> np.ndarray:
    """``c(y) = #{i : x_i < y}`` for every grid point y = lo..hi (int64 array).

    Raises:
        ValueError: bad domain, or records not integers inside it.
    """
    dom = _check_domain(domain)
    return _ranks(_check_dataset(dataset, dom), dom)


def exponential_quantile_pmf(
    dataset: Any, q: Any, epsilon: Any, domain: tuple[int, int], precision: int = 128
) -> list[gmpy2.mpfr]:
    """``P[y] ∝ exp(-epsilon |c(y) - q n| / 2)`` over the grid, normalised (mpfr), for tests.

    ``epsilon`` may be any real > 0: a float or rational (taken exactly) or an mpfr such as the
    mechanism's ``2 D eta ln 2``; q is converted as by :class:`ExponentialQuantile`.

    Raises:
        ValueError: bad domain, dataset, q or epsilon.
    """
    qq = _check_q(q)
    dom = _check_domain(domain)
    xs = _check_dataset(dataset, dom)
    c = _ranks(xs, dom)
    with gmpy2.context(gmpy2.get_context(), precision=precision + 32):
        if isinstance(epsilon, type(gmpy2.mpfr(0))):
            eps = gmpy2.mpfr(epsilon)
        else:
            e = as_fraction(epsilon, "epsilon")
            eps = gmpy2.mpfr(gmpy2.mpq(e.numerator, e.denominator))
        if not eps > 0:
            raise ValueError(f"epsilon={epsilon!r} must be > 0")
        target = gmpy2.mpq(qq.numerator * int(xs.size), qq.denominator)
        weight = {
            int(v): gmpy2.exp(-eps * gmpy2.mpfr(abs(int(v) - target)) / 2) for v in np.unique(c)
        }
        total = sum((weight[int(v)] for v in c), gmpy2.mpfr(0))
        out = [weight[int(v)] / total for v in c]
    with gmpy2.context(gmpy2.get_context(), precision=precision):
        return [+p for p in out]


class ExponentialQuantile:
    """Private q-quantile of integer records on the grid ``[lo, hi]``: exponential mechanism,
    exact (base-2 weights, Ilvento 2020).

    Args:
        epsilon: the claim (> 0); the mechanism spends ``epsilon_used <= epsilon`` (within 0.1 %
            for usual parameters, see ``eta_from_epsilon``).
        q: the quantile in [0, 1] (0.5: the median); see the module doc for floats.
        domain: ``(lo, hi)``, integers with at most 2^16 grid points.

    Claim: ``epsilon``-DP (``delta = 0``) for add/remove and for substitute neighbours.

    Raises:
        ValueError: an argument out of range (the message names it and its value).
    """

    def __init__(self, epsilon: float, q: Any, domain: tuple[int, int]) -> None:
        self.epsilon = check_epsilon(epsilon)
        self.delta = 0.0
        self.q = _check_q(q)
        self.domain = _check_domain(domain)
        #: D: the integer utility -|D c(y) - N n| has sensitivity D (1 in units of ranks)
        self.utility_scale = self.q.denominator
        self.mechanism = Base2ExponentialMechanism(
            self.epsilon, self.utility_scale, (-UTILITY_BOUND, 0)
        )
        self.eta = self.mechanism.eta
        #: the epsilon spent, 2 D eta ln 2 rounded up to a float (<= epsilon)
        self.epsilon_used = self.mechanism.epsilon

    def __repr__(self) -> str:
        return f"ExponentialQuantile(epsilon={self.epsilon!r}, q={self.q}, domain={self.domain})"

    def grid(self) -> np.ndarray:
        """The outcomes lo..hi (int64)."""
        return np.arange(self.domain[0], self.domain[1] + 1, dtype=np.int64)

    def utilities(self, dataset: Any) -> np.ndarray:
        """Integer utilities ``-|D c(y) - N n|`` for every grid point (float64, exact).

        Raises:
            ValueError: records not integers inside the domain, or ``D n`` above 2^52.
        """
        xs = _check_dataset(dataset, self.domain)
        n = int(xs.size)
        if self.utility_scale * n > UTILITY_BOUND:
            raise ValueError(f"dataset has n={n} records, too many for q={self.q} (D n > 2^52)")
        c = _ranks(xs, self.domain)
        u: np.ndarray = -np.abs(self.utility_scale * c - self.q.numerator * n)
        return u.astype(np.float64)

    def sample(self, dataset: Any, n: int, rng: IntegerSource | None = None) -> np.ndarray:
        """``n`` independent releases on ``dataset``: grid points, int64 array of shape (n,).

        Raises:
            ValueError: dataset not integers inside the domain; n negative.
        """
        u = self.utilities(dataset)
        n = check_count(n)
        idx = self.mechanism.sample(u, n, resolve_rng(rng))
        return self.domain[0] + idx

    def probabilities(self, dataset: Any) -> list[Fraction]:
        """Exact P[y] for y = lo..hi (``Fraction``s: dyadic weights), for tests and audits."""
        return self.mechanism.probabilities(self.utilities(dataset))
