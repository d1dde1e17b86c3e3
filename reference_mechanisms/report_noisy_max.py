"""Exact report-noisy-max with exponential noise, implemented as permute-and-flip.

Report-noisy-max that adds Exponential(scale 2 Delta / epsilon) noise to each utility and reports
the argmax is *the same distribution* as the permute-and-flip mechanism (Ding et al. 2021):
visit the candidates in a uniformly random order and stop at the first r whose coin
Bernoulli(q_r) succeeds, ``q_r = exp(-epsilon (u* - u_r) / (2 Delta))``, ``u* = max u``.

Claim: pure **epsilon-DP** for utilities of sensitivity Delta (McKenna & Sheldon 2020, Thm. 1;
the argument is the exponential mechanism's, so the factor 2 is needed in general).

Exactness: utilities and Delta are floats taken as exact rationals and epsilon is rounded *down*
to a multiple of 2^-30 (``params.rational_floor``), so every ``q_r`` is ``exp(-gamma)`` with
rational gamma, sampled exactly (CKS20 Bernoulli(exp(-gamma))).  Because the coins are independent
of the order, "first success in a random order" equals "uniform choice among all successes";
the sampler draws all k coins per release (vectorised) and picks a uniform success.

References:
    McKenna, Sheldon, "Permute-and-Flip: A new mechanism for differentially private selection",
    NeurIPS 2020.  Ding, Kifer, Saleh, Dong, Wang, Steinke, "The Permute-and-Flip Mechanism is
    Identical to Report-Noisy-Max with Exponential Noise", 2021.  Canonne, Kamath, Steinke, "The
    Discrete Gaussian for Differential Privacy", NeurIPS 2020 (Bernoulli(exp(-gamma))).

Assumptions:
    ``rng.integers`` is exactly uniform; loop counts depend on the utilities (timing channel).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import gmpy2
import numpy as np

from reference_mechanisms.base2_exponential import check_utilities
from reference_mechanisms.bernoulli import as_fraction, sample_bernoulli
from reference_mechanisms.params import (
    check_count,
    check_epsilon,
    check_sensitivity,
    rational_floor,
)
from reference_mechanisms.randomness import IntegerSource

__all__ = ["ReportNoisyMax"]


def _bernoulli_exp1(g: Fraction, size: int, rng: IntegerSource) -> np.ndarray:
    """Bernoulli(exp(-g)) for rational g in [0, 1]: "k = 1; while Bernoulli(g/k): k += 1;
    return k odd" (CKS20 Alg. 1), vectorised over rounds of k, any denominator size."""
    k = np.ones(size, dtype=np.int64)
    active = np.arange(size)
    step = 1
    while active.size:
        go = sample_bernoulli(g / step, active.size, rng)
        active = active[go]
        k[active] += 1
        step += 1
    odd: np.ndarray = k % 2 == 1
    return odd


def bernoulli_exp_column(gamma: Fraction, size: int, rng: IntegerSource) -> np.ndarray:
    """``size`` exact Bernoulli(exp(-gamma)) draws for one rational ``gamma >= 0``.

    ``exp(-gamma) = exp(-1)^floor(gamma) exp(-frac(gamma))``; unlike the common-denominator
    batch sampler this stays vectorised for the huge denominators that float utilities produce
    (the Bernoulli(g/k) steps compare 62 random bits at a time).
    """
    whole = gamma.numerator // gamma.denominator
    alive = np.arange(size)
    r = 0
    while alive.size and r < whole:
        alive = alive[_bernoulli_exp1(Fraction(1), alive.size, rng)]
        r += 1
    out = np.zeros(size, dtype=bool)
    if alive.size:
        out[alive[_bernoulli_exp1(gamma - whole, alive.size, rng)]] = True
    return out


class ReportNoisyMax:
    """Report-noisy-max with exponential noise (= permute-and-flip), exact.

    Args:
        epsilon: privacy parameter (> 0); the mechanism uses ``floor(epsilon 2^30) / 2^30``.
        sensitivity: utility sensitivity Delta (> 0), taken exactly.

    Raises:
        ValueError: epsilon or sensitivity not finite and > 0.
    """

    def __init__(self, epsilon: float, sensitivity: float = 1.0) -> None:
        self.epsilon = check_epsilon(epsilon)
        self.sensitivity = float(sensitivity)
        self._sens = check_sensitivity(sensitivity)
        self.epsilon_rational = rational_floor(self.epsilon)
        #: gamma_r = rate * (u* - u_r)
        self.rate: Fraction = self.epsilon_rational / (2 * self._sens)

    def _gammas(self, u: np.ndarray) -> list[Fraction]:
        top = as_fraction(float(u.max()), "utility")
        return [self.rate * (top - as_fraction(float(v), "utility")) for v in u]

    def sample(self, utilities: Any, n: int, rng: IntegerSource) -> np.ndarray:
        """``n`` independent releases: int64 indices in ``[0, k)``.

        Raises:
            ValueError: utilities not a non-empty 1-D array of finite numbers; ``n`` negative.
        """
        n = check_count(n)
        u = check_utilities(utilities)
        k = u.size
        coins = np.ones((n, k), dtype=bool)
        for j, g in enumerate(self._gammas(u)):
            if g:  # q = 1 for the maximal utilities
                coins[:, j] = bernoulli_exp_column(g, n, rng)
        if n == 0:
            return np.zeros(0, dtype=np.int64)
        cnt = coins.sum(axis=1)  # >= 1: a maximal utility always succeeds
        pick = np.asarray(rng.integers(0, cnt), dtype=np.int64)
        rank = np.cumsum(coins, axis=1) - 1
        chosen: np.ndarray = np.argmax(coins & (rank == pick[:, None]), axis=1).astype(np.int64)
        return chosen

    def probabilities(self, utilities: Any, precision: int = 128) -> list[gmpy2.mpfr]:
        """Selection probabilities to ``precision`` bits (mpfr), for tests and white-box audits.

        ``P[r] = q_r E[1 / (1 + S_-r)]`` with ``S_-r`` the (Poisson-binomial) number of other
        successful coins; computed by dynamic programming, O(k^2) per outcome.
        """
        u = check_utilities(utilities)
        gam = self._gammas(u)
        with gmpy2.context(precision=precision):
            q = [gmpy2.exp(-gmpy2.mpfr(gmpy2.mpq(g.numerator, g.denominator))) for g in gam]
            out = []
            for r in range(len(q)):
                dist = [gmpy2.mpfr(1)]  # P[S = s] over the other coins
                for j, qj in enumerate(q):
                    if j == r:
                        continue
                    new = [gmpy2.mpfr(0)] * (len(dist) + 1)
                    for s, p in enumerate(dist):
                        new[s] += p * (1 - qj)
                        new[s + 1] += p * qj
                    dist = new
                out.append(q[r] * sum(p / (s + 1) for s, p in enumerate(dist)))
            return out
