"""Gaussian differential privacy (mu-GDP; Dong, Roth & Su 2019, DRS19)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import gmpy2
import numpy as np
import numpy.typing as npt

from auditor.core.claim_kinds.base import (
    REPORT_DELTA,
    KeyedCurveClaim,
    epsilon_at_the_ends,
    keyed_kind,
    mpfr_up,
)
from auditor.core.claims import (
    FloatArray,
    check_corner,
    check_delta_arg,
    check_epsilon_arg,
    check_levels,
    lower_curve,
    smallest_valid_epsilon,
)
from dp_params.epsilon_search import epsilon_bracket


def _gdp_delta_mpfr(mu: float, eps: float) -> Any:
    """Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2) at 256 bits, raised by 2^-200 of its
    first term (which dominates every rounding error of the difference) (DRS19 Cor. 2.13)."""
    with gmpy2.context(precision=256):
        m, e = gmpy2.mpfr(mu), gmpy2.mpfr(eps)
        root2 = gmpy2.sqrt(gmpy2.mpfr(2))

        def phi(x: Any) -> Any:
            return gmpy2.erfc(-x / root2) / 2

        first = phi(-e / m + m / 2)
        second = gmpy2.exp(e) * phi(-e / m - m / 2)
        return first - second + first * gmpy2.mpfr(2) ** -200


#: a bound on the relative error of scipy.special.ndtri (Phi^-1), with a margin of 3
_NDTRI_ERROR = 2e-15


@dataclass(frozen=True)
class GaussianDP(KeyedCurveClaim):
    """mu-Gaussian differential privacy: f(a) = Phi(Phi^-1(1 - a) - mu) (DRS19 Def. 2.7).

    The Gaussian mechanism with L2 sensitivity 1 and noise sigma is exactly (1/sigma)-GDP, and
    threshold events attain its curve, so GDP claims are audited tightly.

    Raises:
        InvalidArgument: mu is not a finite number > 0.
    """

    _KIND = "gdp"
    _PARAMETER = "mu"
    _LABEL = "GDP"

    mu: float
    report_delta: float = REPORT_DELTA

    def tradeoff(self, a: npt.ArrayLike) -> FloatArray:
        """Phi(Phi^-1(1 - a) - mu) (DRS19 Def. 2.7), lowered by the tolerance."""
        arr = check_levels(a)
        from scipy import special

        f = special.ndtr(-special.ndtri(arr) - self.mu)  # Phi^-1(1 - a) = -ndtri(a), exact tails
        return lower_curve(np.asarray(f, dtype=np.float64))

    def delta_for_epsilon(self, epsilon: float) -> float:
        """Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2) (DRS19 Cor. 2.13), from above.

        Computed in 256-bit MPFR (no cancellation or underflow trouble) and rounded up; never
        0 (the true value is positive), at least the smallest subnormal.
        """
        e = check_epsilon_arg(epsilon)
        d = mpfr_up(_gdp_delta_mpfr(self.mu, e))
        return min(1.0, max(d, math.ulp(0.0)))

    def epsilon_for_delta(self, delta: float) -> float:
        """Root of delta(eps) = delta by Brent's method on log delta, then made valid."""
        d = check_delta_arg(delta)
        edge = epsilon_at_the_ends(self.delta_for_epsilon, d)
        if edge is not None:
            return edge
        hi = epsilon_bracket(self.delta_for_epsilon, d)
        if math.isinf(hi):
            return math.inf
        log_d = math.log(d)
        from scipy import optimize

        root = optimize.brentq(
            lambda e: math.log(self.delta_for_epsilon(e)) - log_d, 0.0, hi, xtol=1e-15, rtol=1e-14
        )
        return smallest_valid_epsilon(self.delta_for_epsilon, float(root), d)

    def certified(self, p0_lo: float, p1_hi: float) -> float:
        """Phi^-1(p0_lo) - Phi^-1(p1_hi), clipped at 0 and lowered by the rounding error of
        Phi^-1: the largest mu the corner refutes.

        The corner is below the mu-GDP curve iff 1 - p0 < Phi(Phi^-1(1 - p1) - mu) iff
        mu < Phi^-1(p0) - Phi^-1(p1) (DRS19 Def. 2.7); inf when p0_lo == 1 or p1_hi == 0.
        """
        p0, p1 = check_corner(p0_lo, p1_hi)
        if p0 <= p1:
            return 0.0
        from scipy import special

        x0, x1 = float(special.ndtri(p0)), float(special.ndtri(p1))
        if not (math.isfinite(x0) and math.isfinite(x1)):
            return math.inf
        # ndtri is within a relative 6e-16 of Phi^-1 (checked against mpmath over
        # [1e-300, 1 - 1e-16]): lower the difference by that error, so it is from below
        return max(0.0, (x0 - x1) - _NDTRI_ERROR * (abs(x0) + abs(x1)))


KIND = keyed_kind(
    GaussianDP,
    """\
  gdp:mu=1                   mu-Gaussian DP, mu > 0""",
    scaling=(1, "Gaussian, sigma = sensitivity/mu"),
    gaussian_mu=lambda claim: float(claim.value),
)
