"""Exact additive noise on integer *vectors*: the vector discrete Laplace and discrete Gaussian.

Why this module: histograms and counts-by-category are the most common vector queries, and the
way their sensitivity is stated (L1 or L2, add/remove or substitute) is where implementations
misquote their claims.  These references add independent exact noise to every coordinate, state
the claim as data, and give the exact joint pmf (a product of coordinate pmfs) so that a test or
a white-box audit can check the claim on the output distribution itself.

**VectorDiscreteLaplace** (pure DP).  An integer query q: X -> Z^d with L1 sensitivity Delta_1
(``||q(x) - q(x')||_1 <= Delta_1`` for neighbours; an integer) is released as
``q(x) + (Z_1, ..., Z_d)`` with ``Z_j ~ DLap(Delta_1 / epsilon)`` i.i.d., ``P[Z = z] ∝
exp(-|z| epsilon / Delta_1)``.  Claim: **epsilon-DP**.  Proof (the Laplace mechanism's, Dwork,
McSherry, Nissim, Smith, "Calibrating Noise to Sensitivity in Private Data Analysis", TCC 2006,
Prop. 1; Dwork & Roth, "The Algorithmic Foundations of Differential Privacy", 2014, Thm. 3.6,
with the discrete Laplace of Ghosh, Roughgarden, Sundararajan, STOC 2009): the joint pmf ratio is
``prod_j exp((|y_j - q_j(x')| - |y_j - q_j(x)|) epsilon / Delta_1) <= exp(||q(x) - q(x')||_1
epsilon / Delta_1) <= e^epsilon`` by the triangle inequality, with equality when the shift uses all of
Delta_1 and every coordinate of y lies beyond both centres, on the side of q(x).  A histogram (count per category) has
Delta_1 = 1 under add/remove neighbours (one record changes one count by 1) and Delta_1 = 2
under substitution (one count -1, another +1).

**VectorDiscreteGaussian** (zero-concentrated DP).  An integer query with L2 sensitivity
Delta_2 (``||q(x) - q(x')||_2 <= Delta_2``) is released as ``q(x) + (Y_1, ..., Y_d)`` with
``Y_j ~ N_Z(0, sigma^2)`` i.i.d.  Claim: **rho-zCDP** with ``rho = Delta_2^2 / (2 sigma^2)``
(Canonne, Kamath, Steinke, "The Discrete Gaussian for Differential Privacy", NeurIPS 2020,
Thm. 14, multivariate discrete Gaussian: sum_j (q_j(x) - q_j(x'))^2 / sigma_j^2 <= eps^2 gives
eps^2/2-zCDP).  Given the rho asked for, sigma^2 is ``Delta_2^2 / (2 rho)`` rounded *up* to a
rational the exact sampler handles on int64 arrays, so the rho actually delivered
(``rho_rational``, exact) is at most the one claimed.  The (epsilon, delta) it implies:

* when ``Delta_2^2 < 2`` the only non-zero integer difference vectors are ``±e_j``, other
  coordinates' noise cancels from the privacy loss, and the exact one-dimensional curve of CKS20
  Thm. 7 (:func:`discrete_gaussian.discrete_gaussian_delta`, sensitivity 1) is *the* delta:
  tight;
* otherwise the zCDP conversion of CKS20 Cor. 13 (from their Prop. 12, Renyi DP to approximate
  DP): ``delta = inf_{alpha > 1} exp((alpha-1)(alpha rho - epsilon)) / (alpha-1) *
  (1 - 1/alpha)^alpha`` (:func:`zcdp_delta`): an upper bound, valid for every rho-zCDP
  mechanism, not tight (with several coordinates changed, the exact curve would need the law
  of a sum of per-coordinate privacy losses, maximised over the difference vectors).
  (Numbers as in the arXiv version, arXiv:2004.00010; they shift between its revisions.)

**Exactness.**  epsilon is rounded *down* to a multiple of 2^-30 (``params.rational_floor``) for
the Laplace scale; every draw comes from the exact CKS20 samplers of :mod:`discrete_laplace` and
:mod:`discrete_gaussian` (uniform integers only).  The (epsilon, delta) numbers are computed
with MPFR in directed rounding (every step rounded towards a larger delta), so they certify.

Assumptions:
    ``rng.integers`` is exactly uniform; the query is integer-valued with the stated sensitivity
    (``|q_j| <= 2^52``); the sampling time depends on the noise drawn (timing channel, as for
    every exact rejection sampler).
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import Any

import gmpy2
import numpy as np

from dp_params.zcdp import smallest_epsilon, zcdp_delta, zcdp_epsilon
from reference_mechanisms.bernoulli import as_fraction
from reference_mechanisms.discrete_gaussian import (
    discrete_gaussian_delta,
    discrete_gaussian_pmf,
    round_up_sigma2,
    sample_discrete_gaussian,
)
from reference_mechanisms.discrete_laplace import discrete_laplace_pmf, sample_discrete_laplace
from reference_mechanisms.params import (
    check_count,
    check_delta,
    check_epsilon,
    check_integer_queries,
    check_integer_sensitivity,
    check_real,
    check_sensitivity,
    rational_floor,
)
from reference_mechanisms.randomness import IntegerSource, resolve_rng

__all__ = [
    "VectorDiscreteGaussian",
    "VectorDiscreteLaplace",
    "vector_discrete_gaussian_pmf",
    "vector_discrete_laplace_pmf",
    "zcdp_delta",
    "zcdp_epsilon",
]

#: Bits of the MPFR arithmetic behind the certified delta bounds.
_PREC = 128


def _check_output(output: Any, d: int) -> np.ndarray:
    """One released vector as int64, checked against the query's length ``d``."""
    y = check_integer_queries(output, "output")
    if y.size != d:
        raise ValueError(f"output has {y.size} coordinates, the query has {d}")
    return y


def _product_pmf(
    output: Any, center: Any, precision: int, pmf: Callable[[int], gmpy2.mpfr]
) -> gmpy2.mpfr:
    """``prod_j pmf(output_j - center_j)`` at ``precision`` bits: the pmf of a vector of i.i.d.
    integer noise from the pmf of one coordinate's noise."""
    c = check_integer_queries(center, "center")
    y = _check_output(output, c.size)
    with gmpy2.context(gmpy2.get_context(), precision=precision):
        p = gmpy2.mpfr(1)
        for yj, cj in zip(y, c, strict=True):
            p *= pmf(int(yj) - int(cj))
        return p


def vector_discrete_laplace_pmf(
    output: Any, center: Any, scale: Any, precision: int = 256
) -> gmpy2.mpfr:
    """``P[center + Z = output]`` for i.i.d. ``Z_j ~ DLap(scale)`` (mpfr, ``precision`` bits).

    The product of :func:`discrete_laplace.discrete_laplace_pmf` over the coordinates; for tests
    and white-box audits.

    Raises:
        ValueError: center or output not a 1-D integer vector, lengths differ, scale not > 0.
    """
    return _product_pmf(
        output, center, precision, lambda z: discrete_laplace_pmf(z, scale, precision)
    )


def vector_discrete_gaussian_pmf(
    output: Any, center: Any, sigma2: Any, precision: int = 128
) -> gmpy2.mpfr:
    """``P[center + Y = output]`` for i.i.d. ``Y_j ~ N_Z(0, sigma2)`` (mpfr, ``precision`` bits).

    The product of :func:`discrete_gaussian.discrete_gaussian_pmf` over the coordinates.

    Raises:
        ValueError: center or output not a 1-D integer vector, lengths differ, sigma2 not > 0.
    """
    return _product_pmf(
        output, center, precision, lambda z: discrete_gaussian_pmf(z, sigma2, precision)
    )


class _IntegerVectorNoise:
    """What both vector mechanisms share: a release is the integer query vector plus i.i.d.
    integer noise in every coordinate; each writes only how it draws that noise."""

    def _noise(self, size: int, rng: IntegerSource) -> np.ndarray:
        """``size`` i.i.d. integer noise draws (int64)."""
        raise NotImplementedError

    def sample(self, query: Any, n: int, rng: IntegerSource | None = None) -> np.ndarray:
        """``n`` independent releases of the integer vector ``query``: int64 array (n, d); the
        noise is drawn row-major (row i is release i).

        Raises:
            ValueError: query not a non-empty 1-D integer vector (|q_j| <= 2^52); n negative.
        """
        q = check_integer_queries(query, "query")
        n = check_count(n)
        noise = self._noise(n * q.size, resolve_rng(rng))
        rows: np.ndarray = q[None, :] + noise.reshape(n, q.size)
        return rows


class VectorDiscreteLaplace(_IntegerVectorNoise):
    """``q(x) + DLap(Delta_1 / epsilon)^d`` on an integer vector query: pure epsilon-DP.

    Args:
        epsilon: the claim (> 0); the noise uses ``floor(epsilon 2^30) / 2^30``.
        sensitivity: Delta_1, the query's L1 sensitivity, a positive integer (1 for a histogram
            under add/remove, 2 under substitution).

    Claim: ``epsilon``-DP (``delta = 0``).

    Raises:
        ValueError: epsilon not finite and > 0; sensitivity not a positive integer.
    """

    def __init__(self, epsilon: float, sensitivity: Any = 1) -> None:
        self.epsilon = check_epsilon(epsilon)
        self.delta = 0.0
        self.sensitivity = check_integer_sensitivity(sensitivity)
        #: the epsilon the noise is calibrated to (a multiple of 2^-30, <= epsilon)
        self.epsilon_rational = rational_floor(self.epsilon)
        #: discrete Laplace scale of every coordinate's noise, Delta_1 / epsilon_rational
        self.scale: Fraction = Fraction(self.sensitivity) / self.epsilon_rational

    def __repr__(self) -> str:
        return f"VectorDiscreteLaplace(epsilon={self.epsilon!r}, sensitivity={self.sensitivity})"

    def _noise(self, size: int, rng: IntegerSource) -> np.ndarray:
        return sample_discrete_laplace(self.scale, size, rng)

    def probability(self, output: Any, query: Any, precision: int = 256) -> gmpy2.mpfr:
        """P[release = output] on ``query`` (mpfr), for tests and white-box audits."""
        return vector_discrete_laplace_pmf(output, query, self.scale, precision)


def _ratio(x: Fraction) -> tuple[int, int]:
    return x.numerator, x.denominator


class VectorDiscreteGaussian(_IntegerVectorNoise):
    """``q(x) + N_Z(0, sigma^2)^d`` on an integer vector query: rho-zCDP (CKS20 Thm. 14).

    Args:
        rho: the zCDP claim (> 0); sigma^2 >= Delta_2^2 / (2 rho), rounded up to a rational the
            exact sampler handles fast, so the delivered ``rho_rational`` is <= rho.
        sensitivity: Delta_2, the query's L2 sensitivity (> 0, taken exactly; for a histogram 1
            under add/remove, sqrt(2) under substitution: pass a value >= the true one).
        delta: the delta of the (epsilon, delta)-DP statement also claimed (in (0, 1)).

    Claim: ``rho``-zCDP, and (``epsilon``, ``delta``)-DP with ``epsilon =
    self.epsilon_for_delta(delta)`` (tight for Delta_2^2 < 2, else CKS20 Cor. 13).

    Raises:
        ValueError: rho not finite and > 0, sensitivity not finite and > 0, delta not in (0, 1).
    """

    def __init__(self, rho: float, sensitivity: Any = 1, delta: float = 1e-6) -> None:
        self.rho = check_real(rho, "rho", "(0, inf)")
        self.sensitivity = check_sensitivity(sensitivity)
        self.delta = check_delta(delta, positive=True)
        target = self.sensitivity**2 / (2 * as_fraction(self.rho, "rho"))
        # sqrt(target) rounded down and up to floats; the sampler-friendly rounding of the lower
        # one is kept when it is already >= target (exact check), e.g. target = 2 gives 2.
        sigmas = []
        for rnd in (gmpy2.RoundDown, gmpy2.RoundUp):
            with gmpy2.context(precision=53, round=rnd):
                sigmas.append(float(gmpy2.sqrt(gmpy2.mpfr(gmpy2.mpq(*_ratio(target))))))
        low = round_up_sigma2(sigmas[0])
        #: the variance parameter of every coordinate's noise (exact, >= Delta_2^2 / (2 rho))
        self.sigma2: Fraction = low if low >= target else round_up_sigma2(sigmas[1])
        if self.sigma2 < target:  # cannot happen: sigmas[1]^2 >= target, rounding goes up
            raise AssertionError(f"sigma2={self.sigma2} below Delta^2/(2 rho)={target}")
        #: the rho delivered, Delta_2^2 / (2 sigma2), exact and <= rho
        self.rho_rational: Fraction = self.sensitivity**2 / (2 * self.sigma2)
        #: True when the delta(epsilon) curve is the exact CKS20 Thm. 7 one (Delta_2^2 < 2)
        self.tight = self.sensitivity**2 < 2
        self.epsilon = self.epsilon_for_delta(self.delta)

    def __repr__(self) -> str:
        return (
            f"VectorDiscreteGaussian(rho={self.rho!r}, sensitivity={self.sensitivity}, "
            f"delta={self.delta!r})"
        )

    def delta_for_epsilon(self, epsilon: float) -> gmpy2.mpfr:
        """A certified delta at ``epsilon`` (mpfr): exact CKS20 Thm. 7 when ``self.tight``,
        else the zCDP conversion :func:`zcdp_delta` at ``rho_rational``.

        Raises:
            ValueError: epsilon negative or not finite.
        """
        eps = check_real(epsilon, "epsilon", "[0, inf)")
        if self.tight:
            return discrete_gaussian_delta(eps, self.sigma2, 1, _PREC)
        return zcdp_delta(self.rho_rational, eps)

    def epsilon_for_delta(self, delta: float) -> float:
        """The smallest float epsilon (to a relative 2^-30) whose certified delta is <= ``delta``.

        Raises:
            ValueError: delta not in (0, 1).
        """
        check_delta(delta, positive=True)
        return smallest_epsilon(self.delta_for_epsilon, delta)

    def _noise(self, size: int, rng: IntegerSource) -> np.ndarray:
        return sample_discrete_gaussian(self.sigma2, size, rng)

    def probability(self, output: Any, query: Any, precision: int = 128) -> gmpy2.mpfr:
        """P[release = output] on ``query`` (mpfr), for tests and white-box audits."""
        return vector_discrete_gaussian_pmf(output, query, self.sigma2, precision)
