"""Renyi divergence of two Bernoulli laws, from below: the event test of zCDP and RDP claims.

Why a module of its own: both Renyi kinds (``zcdp``, ``rdp``) certify through it, and its
directed-rounding MPFR code is the part of the claims most in need of a careful reader.
"""

from __future__ import annotations

import math
from typing import Any

import gmpy2
import numpy as np

from auditor.core.claim_kinds.base import is_number, mpfr_down
from auditor.core.claims import FloatArray, check_corner
from auditor.core.errors import InvalidArgument

#: MPFR precision of the Renyi lower bounds (alpha up to ~1e20 multiplies log errors)
PREC = 160


def _log_down(x: Any) -> Any:
    with gmpy2.context(precision=PREC, round=gmpy2.RoundDown):
        return gmpy2.log(x)


def _log_up(x: Any) -> Any:
    with gmpy2.context(precision=PREC, round=gmpy2.RoundUp):
        return gmpy2.log(x)


def _renyi_lower_mpfr(p: float, q: float, alpha: float) -> Any:
    """D_alpha(Bern(p) || Bern(q)) from below, in MPFR with directed rounding; 0 < p, q < 1.

    D_alpha = ln(p^a q^(1-a) + (1-p)^a (1-q)^(1-a)) / (a - 1) (Renyi 1961; van Erven &
    Harremoes 2014, eq. (1)), a > 1.  Each term is exp(a ln(base) + (1-a) ln(other)) with ln(base)
    rounded down and, (1 - a) being negative, ln(other) rounded up, so every step is <= exact.
    """
    mp = gmpy2.mpfr
    with gmpy2.context(precision=PREC, round=gmpy2.RoundDown):
        a = mp(alpha)
        one_minus_a = mp(1) - a  # exact: alpha is a double in (1, 2^100)
        p_dn = mp(p)
        p1_dn = mp(1) - p_dn  # 1 - p rounded down
    with gmpy2.context(precision=PREC, round=gmpy2.RoundUp):
        q_up = mp(q)
        q1_up = mp(1) - mp(q)  # 1 - q rounded up
    terms = []
    for base, other in ((p_dn, q_up), (p1_dn, q1_up)):
        if base <= 0:
            continue
        lb, lo = _log_down(base), _log_up(other)
        with gmpy2.context(precision=PREC, round=gmpy2.RoundDown):
            terms.append(gmpy2.exp(a * lb + one_minus_a * lo))
    with gmpy2.context(precision=PREC, round=gmpy2.RoundDown):
        total = terms[0] + terms[1] if len(terms) == 2 else terms[0]
        log_total = gmpy2.log(total)
        if log_total <= 0:
            return mp(0)
        return log_total / (a - 1)


def bernoulli_renyi_lower(p0: float, p1: float, alpha: float) -> float:
    """A lower bound of max(D_alpha(Bern(p0)||Bern(p1)), D_alpha(Bern(p1)||Bern(p0))), alpha > 1.

    By data processing each order is a lower bound of the same order's divergence between
    M(x) and M(x') (Mironov 2017, RDP; van Erven & Harremoes 2014, Thm. 9).  For p0 > p1 both
    are minimised over the box [p0, 1] x [0, p1] at (p0, p1): Renyi divergence is jointly
    quasi-convex (van Erven & Harremoes 2014, Thm. 13) and 0 on the diagonal, so it does not
    increase as either argument moves towards the other.  0.0 when p0 <= p1 (no evidence);
    inf when p1 == 0 < p0 or p1 < p0 == 1.
    """
    p, q = check_corner(p0, p1)
    if not (is_number(alpha) and float(alpha) > 1.0 and math.isfinite(float(alpha))):
        raise InvalidArgument(f"alpha={alpha!r} must be a finite number > 1")
    if p <= q:
        return 0.0
    if q == 0.0 or p == 1.0:
        return math.inf
    fwd = _renyi_lower_mpfr(p, q, float(alpha))
    rev = _renyi_lower_mpfr(q, p, float(alpha))
    return mpfr_down(max(fwd, rev))


def _log_ratios(p: float, q: float) -> tuple[float, float]:
    """ln(p/q) and ln((1-p)/(1-q)), accurate when p and q are close (p - q is exact then)."""

    def log_ratio_of(x: float, y: float, dx: float) -> float:
        # ln(x / y) with dx = x - y: log1p near 1, a difference of logs far from it
        return math.log1p(dx / y) if 0.5 * y <= x <= 2.0 * y else math.log(x) - math.log(y)

    return log_ratio_of(p, q, p - q), log_ratio_of(1.0 - p, 1.0 - q, q - p)


def renyi_float(p: float, q: float, am1: FloatArray) -> FloatArray:
    """D_alpha(Bern(p)||Bern(q)) in floats at alpha = 1 + am1, for locating a maximum only.

    (alpha - 1) D_alpha = ln(p (p/q)^(alpha-1) + (1-p) ((1-p)/(1-q))^(alpha-1)): with
    r_i = (alpha - 1) ln(ratio_i) it is log1p(p expm1(r1) + (1-p) expm1(r2)) while the r_i are
    moderate (no cancellation against 1 when p and q are close), logaddexp beyond.
    """
    l1, l2 = _log_ratios(p, q)
    r1, r2 = am1 * l1, am1 * l2
    with np.errstate(all="ignore"):
        near = np.log1p(p * np.expm1(r1) + (1.0 - p) * np.expm1(r2))
        far = np.logaddexp(math.log(p) + r1, math.log1p(-p) + r2)
        both = np.where(np.maximum(np.abs(r1), np.abs(r2)) < 30.0, near, far)
    return np.asarray(both / am1, dtype=np.float64)


#: alpha = 1 + 2^-30 stands for the alpha -> 1 limit (KL): D_alpha is increasing in alpha
_ALPHA_NEAR_ONE = 1.0 + 2.0**-30


def sup_renyi_over_alpha(p: float, q: float) -> float:
    """sup_{alpha > 1} D_alpha(Bern(p)||Bern(q)) / alpha from below, 0 < p, q < 1, p != q.

    Located in floats on a log grid of alpha - 1 from 1e-6 to well past 1/|ln ratio| (for
    close p and q the sup can sit at alpha ~ 10 / |ln(p/q)|, e.g. 1e8, and be 10 times the
    KL limit) and a bounded refinement; the value is then the MPFR lower bound at the alphas
    found, so a poor location only lowers the bound.  D_alpha / alpha -> 0 as alpha -> inf
    (D_alpha <= D_inf = ln max(p/q, (1-p)/(1-q)) < inf), so the sup is at a finite alpha or at
    alpha -> 1 (KL), which ``_ALPHA_NEAR_ONE`` covers.
    """
    span = max(abs(v) for v in _log_ratios(p, q))
    top = max(5.0, math.log10(1e3 / span)) if span > 0 else 5.0
    log_am1 = np.linspace(-6.0, top, int(20 * (top + 6.0)) + 1)
    am1 = 10.0**log_am1
    with np.errstate(all="ignore"):
        vals = renyi_float(p, q, am1) / (1.0 + am1)
    vals = np.where(np.isfinite(vals), vals, -np.inf)
    i = int(np.argmax(vals))
    candidates = [_ALPHA_NEAR_ONE, 1.0 + float(am1[i])]
    lo_t, hi_t = log_am1[max(i - 1, 0)], log_am1[min(i + 1, len(log_am1) - 1)]

    def neg(t: float) -> float:
        x = np.array([10.0**t])
        with np.errstate(all="ignore"):
            v = float((renyi_float(p, q, x) / (1.0 + x))[0])
        return -v if math.isfinite(v) else math.inf

    from scipy import optimize  # here: scipy takes long to import and few claims need it

    res = optimize.minimize_scalar(neg, bounds=(lo_t, hi_t), method="bounded")
    if math.isfinite(float(res.x)):
        candidates.append(1.0 + 10.0 ** float(res.x))
    best = gmpy2.mpfr(0)
    for al in candidates:
        with gmpy2.context(precision=PREC, round=gmpy2.RoundDown):
            best = max(best, _renyi_lower_mpfr(p, q, al) / gmpy2.mpfr(al))
    return mpfr_down(best)
