"""Zero-concentrated differential privacy (rho-zCDP; Bun & Steinke 2016), audited by the
Renyi test of ``renyi``."""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property

import numpy as np
import numpy.typing as npt

from auditor.core.claim_kinds.base import (
    PROFILE_POINTS,
    REPORT_DELTA,
    KeyedCurveClaim,
    epsilon_at_the_ends,
    keyed_kind,
    mpfr_up,
)
from auditor.core.claim_kinds.renyi import renyi_float, sup_renyi_over_alpha
from auditor.core.claims import (
    FloatArray,
    check_corner,
    check_delta_arg,
    check_epsilon_arg,
    check_levels,
    profile_tradeoff,
)
from dp_params.zcdp import zcdp_delta, zcdp_epsilon

#: orders of the fast zCDP estimate used to rank events
_ESTIMATE_ORDERS = 1.0 + np.geomspace(1e-4, 1e7, 240)


@dataclass(frozen=True)
class ZeroConcentratedDP(KeyedCurveClaim):
    """rho-zCDP: D_alpha(M(x)||M(x')) <= rho * alpha for every alpha > 1 (Bun & Steinke 2016).

    Audited on an event through the Bernoulli pair it induces: by data processing
    sup_alpha D_alpha(Bern(p0)||Bern(p1)) / alpha (either order) is a lower bound of rho.

    Raises:
        InvalidArgument: rho is not a finite number > 0.
    """

    _KIND = "zcdp"
    _PARAMETER = "rho"
    _LABEL = "zCDP"

    rho: float
    report_delta: float = REPORT_DELTA

    @cached_property
    def _profile(self) -> tuple[FloatArray, FloatArray]:
        top = self.epsilon_for_delta(1e-15)
        eps = np.linspace(0.0, top if math.isfinite(top) else 100.0, PROFILE_POINTS)
        return eps, np.array([self.delta_for_epsilon(float(e)) for e in eps])

    def tradeoff(self, a: npt.ArrayLike) -> FloatArray:
        """sup over an epsilon grid of f_{eps, delta(eps)} (DRS19 Prop. 2.12): below the truth."""
        arr = check_levels(a)
        return profile_tradeoff(arr, *self._profile)

    def delta_for_epsilon(self, epsilon: float) -> float:
        """CKS20 Cor. 13 (``dp_params.zcdp.zcdp_delta``), rounded up."""
        e = check_epsilon_arg(epsilon)
        return min(1.0, mpfr_up(zcdp_delta(self.rho, e)))

    def epsilon_for_delta(self, delta: float) -> float:
        """CKS20 Cor. 13 inverted (``dp_params.zcdp.zcdp_epsilon``)."""
        d = check_delta_arg(delta)
        edge = epsilon_at_the_ends(self.delta_for_epsilon, d)
        if edge is not None:
            return edge
        try:
            return zcdp_epsilon(self.rho, d)
        except RuntimeError:  # no epsilon below 2^40 reaches delta
            return math.inf

    def certified(self, p0_lo: float, p1_hi: float) -> float:
        """sup_{alpha > 1} max(D_alpha(B0||B1), D_alpha(B1||B0)) / alpha, B = Bern(p), from below.

        By data processing for Renyi divergence (van Erven & Harremoes 2014) each value is a
        lower bound of rho; both orders are minimised at the corner (``bernoulli_renyi_lower``).
        0.0 when p0_lo <= p1_hi; inf when p1_hi == 0 < p0_lo or p1_hi < p0_lo == 1.
        """
        p, q = check_corner(p0_lo, p1_hi)
        if p <= q:
            return 0.0
        if q == 0.0 or p == 1.0:
            return math.inf
        return max(sup_renyi_over_alpha(p, q), sup_renyi_over_alpha(q, p))

    def estimate_certified(self, p0_lo: float, p1_hi: float) -> float:
        """A fast float stand-in for :meth:`certified` (a grid of orders, both directions), to
        rank thousands of candidate events; never used for a bound."""
        if not 0.0 < p1_hi < p0_lo < 1.0:
            return self.certified(p0_lo, p1_hi) if p0_lo > p1_hi else 0.0
        am1 = _ESTIMATE_ORDERS - 1.0
        forward = renyi_float(p0_lo, p1_hi, am1)
        backward = renyi_float(p1_hi, p0_lo, am1)
        best = np.nanmax(np.maximum(forward, backward) / _ESTIMATE_ORDERS)
        return float(max(0.0, best))


KIND = keyed_kind(
    ZeroConcentratedDP,
    """\
  zcdp:rho=0.5               rho-zCDP, rho > 0
  gdp:mu=1,delta=1e-5        the same; the report also states the (eps, delta) point the
                             curve implies at this delta (default 1e-6)""",
    scaling=(2, "Gaussian, sigma = sensitivity/sqrt(2 rho)"),
    gaussian_mu=lambda claim: math.sqrt(2.0 * claim.value),
    # rho >= D_a / a at every order: the harness's grid, each order its own divisor
    renyi_orders=lambda claim, grid: (grid, grid),
)
