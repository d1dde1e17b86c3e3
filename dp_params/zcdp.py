"""The zCDP <-> (epsilon, delta) conversion of Canonne, Kamath, Steinke, "The Discrete Gaussian
for Differential Privacy" (NeurIPS 2020), Cor. 13 (from their Prop. 12, Renyi DP to approximate
DP), certified: computed in MPFR with every step rounded towards a larger delta.

Shared by the zCDP claim kind (``auditor.core.claim_kinds.zcdp``) and the vector discrete
Gaussian (``reference_mechanisms.vector_noise``), which states the (epsilon, delta) its rho
implies.  (Numbers as in the arXiv version, arXiv:2004.00010; they shift between its revisions.)
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import gmpy2

from dp_params.checks import as_fraction, check_delta
from dp_params.epsilon_search import smallest_epsilon

__all__ = ["smallest_epsilon", "zcdp_delta", "zcdp_epsilon"]

#: Bits of the MPFR arithmetic behind the certified delta bounds.
_PREC = 128


def zcdp_delta(rho: Any, epsilon: Any) -> gmpy2.mpfr:
    """An upper bound on the delta that rho-zCDP gives at ``epsilon`` (CKS20 Cor. 13), certified.

    ``delta = inf_{alpha > 1} exp((alpha - 1)(alpha rho - epsilon)) / (alpha - 1) *
    (1 - 1/alpha)^alpha``.  Every alpha > 1 gives a valid bound; alpha is located by float
    bisection on the derivative (as in the authors' ``cdp2adp.py``) and the bound is then
    evaluated at that (dyadic) alpha in MPFR with every operation rounded up.  Capped at 1.

    Raises:
        ValueError: rho not > 0 or epsilon < 0 (or either not finite).
    """
    r = as_fraction(rho, "rho")
    if r <= 0:
        raise ValueError(f"rho={rho!r} must be > 0")
    eps = as_fraction(epsilon, "epsilon")
    if eps < 0:
        raise ValueError(f"epsilon={epsilon!r} must be >= 0")
    rf, ef = float(r), float(eps)
    lo, hi = 1.0 + 2.0**-20, (ef + 1) / (2 * rf) + 2
    for _ in range(200):  # d/d alpha of the log of the bound is increasing in alpha
        alpha = (lo + hi) / 2
        if (2 * alpha - 1) * rf - ef + math.log1p(-1 / alpha) < 0:
            lo = alpha
        else:
            hi = alpha
    a = Fraction(hi)  # exact dyadic, > 1
    with gmpy2.context(precision=_PREC, round=gmpy2.RoundUp):
        first = gmpy2.mpfr(gmpy2.mpq(*_ratio((a - 1) * (a * r - eps))))  # >= exact value
        log_term = gmpy2.log(gmpy2.mpfr(gmpy2.mpq(*_ratio(1 - 1 / a))))  # >= ln(1 - 1/a)
        expo = first + gmpy2.mpfr(gmpy2.mpq(*_ratio(a))) * log_term  # a is exact in mpfr
        bound = gmpy2.exp(expo) / gmpy2.mpfr(gmpy2.mpq(*_ratio(a - 1)))
    return min(bound, gmpy2.mpfr(1))


def _ratio(x: Fraction) -> tuple[int, int]:
    return x.numerator, x.denominator


def zcdp_epsilon(rho: Any, delta: float) -> float:
    """The smallest float epsilon (to a relative 2^-30) with ``zcdp_delta(rho, epsilon) <= delta``.

    Raises:
        ValueError: rho not > 0; delta not in (0, 1).
        RuntimeError: no epsilon below 2^40 reaches ``delta``.
    """
    check_delta(delta, positive=True)
    return smallest_epsilon(lambda e: zcdp_delta(rho, e), delta)
