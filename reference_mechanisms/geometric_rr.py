"""The geometric mechanism (two-sided geometric noise) and randomized response, exactly.

Geometric mechanism: integer query plus Z with P[Z = z] proportional to alpha^|z|.  Sampled as
the difference of two i.i.d. geometric variables, an algorithm independent of the CKS20
sign/magnitude sampler of :mod:`reference_mechanisms.discrete_laplace` (same distribution for
alpha = e^-(1/scale)), which lets the tests cross-check the two.

Randomized response: report the true bit with probability p >= 1/2, else its complement.
epsilon-DP iff p/(1-p) <= e^epsilon; :func:`rr_probability` picks the largest dyadic rational p
(2^-bits resolution) with that property, certified with directed-rounding MPFR arithmetic.

References:
    Ghosh, Roughgarden, Sundararajan, "Universally Utility-Maximizing Privacy Mechanisms",
    STOC 2009 (geometric mechanism).  Warner, "Randomized Response", JASA 1965; Dwork & Roth,
    "The Algorithmic Foundations of Differential Privacy" (2014), section 3.2.

Assumptions:
    ``rng`` returns exactly uniform integers.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import gmpy2
import numpy as np

from reference_mechanisms.bernoulli import as_fraction, check_size, sample_bernoulli
from reference_mechanisms.discrete_laplace import sample_geometric, sample_geometric_exp
from reference_mechanisms.params import check_epsilon
from reference_mechanisms.randomness import IntegerSource, resolve_rng

__all__ = [
    "rr_probability",
    "sample_randomized_response",
    "sample_two_sided_geometric",
    "sample_two_sided_geometric_exp",
    "two_sided_geometric_pmf",
]


def sample_two_sided_geometric(
    alpha: Any, size: int, rng: IntegerSource | None = None
) -> np.ndarray:
    """``size`` draws with P[z] = (1-alpha)/(1+alpha) alpha^|z| for rational alpha in (0, 1).

    G1 - G2 with G1, G2 ~ Geometric(1 - alpha) i.i.d. (failures before the first success).
    Cost grows like 1/(1 - alpha): meant for moderate alpha; use
    :func:`sample_two_sided_geometric_exp` for alpha = e^-x.

    Raises:
        ValueError: alpha not in (0, 1) or not finite; size negative.
    """
    a = as_fraction(alpha, "alpha")
    if not 0 < a < 1:
        raise ValueError(f"alpha={alpha!r} must be in (0, 1)")
    size = check_size(size)
    rng = resolve_rng(rng)
    diff: np.ndarray = sample_geometric(1 - a, size, rng) - sample_geometric(1 - a, size, rng)
    return diff


def sample_two_sided_geometric_exp(
    x: Any, size: int, rng: IntegerSource | None = None
) -> np.ndarray:
    """Two-sided geometric with alpha = e^-x for rational x > 0 (the epsilon/Delta of the mechanism).

    Raises:
        ValueError: x not > 0 or not finite; size negative.
    """
    size = check_size(size)
    rng = resolve_rng(rng)
    diff: np.ndarray = sample_geometric_exp(x, size, rng) - sample_geometric_exp(x, size, rng)
    return diff


def two_sided_geometric_pmf(z: int, alpha: Any, precision: int = 256) -> gmpy2.mpfr:
    """P[Z = z] = (1-alpha)/(1+alpha) alpha^|z| (alpha rational or mpfr; result mpfr, for tests)."""
    with gmpy2.context(gmpy2.get_context(), precision=precision):
        if isinstance(alpha, Fraction):
            alpha = gmpy2.mpq(alpha.numerator, alpha.denominator)
        a = gmpy2.mpfr(alpha)
        return (1 - a) / (1 + a) * a ** abs(int(z))


def rr_probability(epsilon: float, bits: int = 40) -> Fraction:
    """Largest multiple p of 2^-bits with p <= e^eps/(1+e^eps), certified: p/(1-p) <= e^epsilon.

    Raises:
        ValueError: epsilon not finite or not > 0.
    """
    eps = check_epsilon(epsilon)
    ctx = gmpy2.context(precision=256, round=gmpy2.RoundDown)
    with gmpy2.context(ctx):
        e = gmpy2.exp(gmpy2.mpfr(eps))  # <= e^eps
        target = e / (1 + e)  # rounded down at each step: <= e^eps / (1 + e^eps)
        p = Fraction(math.floor(gmpy2.mpz(gmpy2.floor(target * (gmpy2.mpz(1) << bits)))), 1 << bits)
    # certificate, independent of the derivation: log(p/(1-p)) rounded up must be <= eps
    with gmpy2.context(gmpy2.context(precision=256, round=gmpy2.RoundUp)):
        ratio = gmpy2.mpq(p.numerator, p.denominator - p.numerator)
        if gmpy2.log(gmpy2.mpfr(ratio)) > gmpy2.mpfr(eps):
            raise AssertionError(f"rr_probability({epsilon}) failed its certificate")
    return max(p, Fraction(1, 2))


def sample_randomized_response(
    bit: Any, p: Any, size: int, rng: IntegerSource | None = None
) -> np.ndarray:
    """``size`` randomized-response reports of ``bit`` (0/1): keep it with probability ``p``.

    Returns an int64 array of 0/1.

    Raises:
        ValueError: bit not 0/1; p not a rational in [1/2, 1]; size negative.
    """
    if isinstance(bit, (bool, np.bool_)):
        bit = int(bit)
    if not isinstance(bit, (int, np.integer, float, np.floating)) or bit not in (0, 1):
        raise ValueError(f"bit={bit!r} must be 0 or 1")
    p = as_fraction(p, "p")
    if not Fraction(1, 2) <= p <= 1:
        raise ValueError(f"p={p} must be in [1/2, 1]")
    size = check_size(size)
    keep = sample_bernoulli(p, size, resolve_rng(rng))
    return np.where(keep, int(bit), 1 - int(bit)).astype(np.int64)
