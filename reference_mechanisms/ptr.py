"""Propose-test-release on exact samplers: the noisy stability test and A_dist for the median.

**The test** (shared by A_dist, A_samp and the Scale algorithm).  Dwork–Roth test a statistic d of
sensitivity 1 with ``d + Lap(1/epsilon) > ln(1/delta)/epsilon``.  Here the Laplace noise lives on a
fine grid of step ``1/G``: ``Z ~ DLap(scale G/epsilon)`` (``P[Z = z] ∝ exp(-epsilon |z| / G)``,
exact CKS20 sampler), the statistic is carried exactly in grid units ``D = G d`` (an integer), and

    pass  <=>  D + Z >= floor(G ln(1/delta) / epsilon) + 2      (i.e. d + Z/G > T + 1/G).

The floor of the irrational ``G ln(1/delta)/epsilon`` is decided with MPFR interval arithmetic
(directed rounding, precision doubled until both ends agree), so no float decides anything.  The
threshold is one grid step above the book's; that makes the failure probability of an unstable
input (d <= 0) at most ``delta r / (1 + r) < delta / 2`` with ``r = exp(-epsilon/G)``, the same
bound the continuous Laplace gives (``delta/2``).  A shift of d by 1 shifts D by G grid points, so
the test is epsilon-DP exactly as with continuous noise.

**A_dist** (Dwork–Roth §7.3, "stability and privacy": propose-test-release for a function g
with its distance to instability): ``d <- dist(g, x); d^ <- d + Lap(1/epsilon); if d^ <=
ln(1/delta)/epsilon output ⊥ else output g(x)``; claim **(epsilon, delta)-DP** under add/remove neighbours.  Here g is the lower median
``x_(ceil(n/2))`` and d is the lower bound ``min(p - s, e - p)`` on its distance to instability,
where positions ``s..e`` (1-based) hold the run of values equal to the median ``x_(p)``.  Why
it suffices: ``I_t = [x_(p-t), x_(p+t)]`` (±inf outside 1..n) contains the median of every dataset
within t additions/removals, a neighbour's ``I_t`` lies inside this one's ``I_{t+1}``, and d is the
smallest t with ``I_{t+1}`` not a single point; so d has sensitivity 1 and d >= 1 implies every
neighbour has the same median — the two facts the proof of A_dist uses.  (It never exceeds the
true distance, so it only makes ⊥ more likely.)  ⊥ is returned as NaN.

References:
    Dwork, Roth, "The Algorithmic Foundations of Differential Privacy", 2014, §7.3 (A_dist,
    Propositions on its privacy and utility).  Dwork, Lei, "Differential Privacy and Robust
    Statistics", STOC 2009.  Canonne, Kamath, Steinke, NeurIPS 2020 (discrete Laplace).

Assumptions:
    ``rng.integers`` is exactly uniform; neighbours differ by adding or removing one record.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import gmpy2
import numpy as np

from reference_mechanisms.discrete_laplace import sample_discrete_laplace
from reference_mechanisms.params import (
    check_count,
    check_delta,
    check_epsilon,
    check_integer,
    rational_floor,
)
from reference_mechanisms.randomness import IntegerSource

__all__ = [
    "PTRMedian",
    "check_dataset",
    "floor_scaled_log_threshold",
    "median_distance",
    "noisy_test",
    "pass_probability",
]


def floor_scaled_log_threshold(grid: int, delta: Fraction, epsilon: Fraction) -> int:
    """``floor(grid * ln(1/delta) / epsilon)`` exactly, for rational ``0 < delta < 1``.

    The value is irrational (Lindemann), so interval arithmetic at increasing precision decides
    the floor.  Raises RuntimeError if 2^16 bits do not (cannot happen for valid inputs).
    """
    p = 128
    while p <= 1 << 16:
        ends = []
        for rnd_num, rnd_den in (
            (gmpy2.RoundDown, gmpy2.RoundUp),
            (gmpy2.RoundUp, gmpy2.RoundDown),
        ):
            with gmpy2.context(precision=p, round=rnd_num):
                num = gmpy2.log(gmpy2.mpfr(gmpy2.mpq(delta.denominator, delta.numerator)))
                num = num * grid
            with gmpy2.context(precision=p, round=rnd_den):
                den = gmpy2.mpfr(gmpy2.mpq(epsilon.numerator, epsilon.denominator))
            with gmpy2.context(precision=p, round=rnd_num):
                ends.append(int(gmpy2.floor(num / den)))
        if ends[0] == ends[1]:
            return ends[0]
        p *= 2
    raise RuntimeError("could not decide floor(G ln(1/delta)/epsilon)")


def noisy_test(
    stat_units: np.ndarray, grid: int, threshold_units: int, epsilon_q: Fraction, rng: IntegerSource
) -> np.ndarray:
    """Pass flags of the PTR test for integer statistics ``D`` (grid units), one draw each.

    ``pass <=> D + Z >= threshold_units + 2`` with ``Z ~ DLap(scale grid/epsilon_q)``.
    """
    stat_units = np.asarray(stat_units, dtype=np.int64)
    z = sample_discrete_laplace(Fraction(grid) / epsilon_q, stat_units.size, rng)
    passed: np.ndarray = stat_units + z >= threshold_units + 2
    return passed


def pass_probability(
    stat_units: int, grid: int, threshold_units: int, epsilon_q: Fraction, precision: int = 128
) -> gmpy2.mpfr:
    """``P[D + Z >= threshold + 2]`` exactly to ``precision`` bits (for tests)."""
    m = threshold_units + 2 - int(stat_units)  # need Z >= m
    with gmpy2.context(precision=precision):
        r = gmpy2.exp(-gmpy2.mpfr(gmpy2.mpq(epsilon_q.numerator, epsilon_q.denominator)) / grid)
        if m >= 1:
            return r**m / (1 + r)
        return 1 - r ** (1 - m) / (1 + r)


def check_dataset(x: Any, domain: tuple[float, float]) -> np.ndarray:
    """The dataset as a sorted float64 array; ValueError if empty, non-finite or outside domain."""
    if isinstance(x, (str, bytes, dict)) or x is None:
        raise ValueError(f"dataset={x!r} must be a 1-D array of numbers")
    try:
        a = np.asarray(x, dtype=np.float64)
    except (TypeError, ValueError, OverflowError) as exc:
        raise ValueError("dataset must be a 1-D array of numbers") from exc
    if a.ndim != 1 or a.size == 0:
        raise ValueError(f"dataset must be a non-empty 1-D array, got shape {a.shape}")
    if not np.all(np.isfinite(a)):
        raise ValueError("dataset must be finite (no NaN/inf)")
    lo, hi = domain
    if a.min() < lo or a.max() > hi:
        raise ValueError(f"dataset has records outside domain=({lo}, {hi})")
    return np.sort(a)


def check_domain(domain: Any) -> tuple[float, float]:
    try:
        lo, hi = (float(v) for v in domain)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"domain={domain!r} must be a pair of numbers") from exc
    if not (math.isfinite(lo) and math.isfinite(hi) and lo < hi):
        raise ValueError(f"domain={domain!r} must be finite with lo < hi")
    return lo, hi


def median_distance(xs: np.ndarray) -> tuple[float, int]:
    """Lower median of sorted ``xs`` and the lower bound on its distance to instability."""
    n = xs.size
    p = (n + 1) // 2  # ceil(n/2), 1-based
    m = xs[p - 1]
    s = int(np.searchsorted(xs, m, side="left")) + 1
    e = int(np.searchsorted(xs, m, side="right"))
    return float(m), min(p - s, e - p)


class NoisyTestParameters:
    """The checked parameters of an exact propose-test-release test, shared by A_dist
    (:class:`PTRMedian`) and the Scale algorithm (``iqr_scale.IQRScale``): epsilon (rounded
    down to ``epsilon_q`` for the noise), delta, the records' domain, the grid G and the
    threshold ``floor(G ln(1/delta) / epsilon_q)`` in grid units.

    Raises:
        ValueError: bad epsilon, delta, domain or grid (an integer >= ``min_grid``, even when
            ``even_grid``).
    """

    def __init__(
        self,
        epsilon: float,
        delta: float,
        domain: tuple[float, float],
        grid: int,
        *,
        min_grid: int = 1,
        even_grid: bool = False,
    ) -> None:
        self.epsilon = check_epsilon(epsilon)
        self.delta = check_delta(delta, positive=True)
        self.domain = check_domain(domain)
        self.grid = check_integer(grid, "grid", minimum=min_grid)
        if even_grid and grid % 2:
            raise ValueError(f"grid={grid!r} must be even")
        self.epsilon_q = rational_floor(self.epsilon)
        self.threshold_units = floor_scaled_log_threshold(
            grid, Fraction(self.delta), self.epsilon_q
        )


class PTRMedian(NoisyTestParameters):
    """A_dist with g = the lower median, exact test; outputs the median or NaN (⊥).

    Args:
        epsilon: > 0 (rounded down to a multiple of 2^-30 for the noise).
        delta: in (0, 1).
        domain: ``(lo, hi)`` records must lie in.
        grid: G, grid points per unit of the noisy distance (default 16).

    Raises:
        ValueError: bad epsilon, delta, domain or grid.
    """

    def __init__(
        self, epsilon: float, delta: float, domain: tuple[float, float], grid: int = 16
    ) -> None:
        super().__init__(epsilon, delta, domain, grid)

    def sample(self, x: Any, n: int, rng: IntegerSource) -> np.ndarray:
        """``n`` independent releases on dataset ``x`` (float64; NaN = ⊥)."""
        n = check_count(n)
        med, d = median_distance(check_dataset(x, self.domain))
        ok = noisy_test(
            np.full(int(n), d * self.grid), self.grid, self.threshold_units, self.epsilon_q, rng
        )
        return np.where(ok, med, np.nan)

    def release_probability(self, x: Any) -> tuple[float, gmpy2.mpfr]:
        """``(median, P[output = median])``; the rest of the mass is ⊥."""
        med, d = median_distance(check_dataset(x, self.domain))
        return med, pass_probability(d * self.grid, self.grid, self.threshold_units, self.epsilon_q)
