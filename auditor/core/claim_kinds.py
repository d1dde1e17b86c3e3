"""Claims beyond one (epsilon, delta) point: Gaussian DP, zCDP, Renyi DP, privacy profiles, f-DP.

Why: many implementations state their guarantee as rho-zCDP, mu-GDP or an RDP curve, and the
(epsilon, delta) point derived from it is looser than the claim itself; auditing the claim as
stated catches violations the derived point hides.

The statistical setting.  An attack picks an output event S and counts it on two neighbouring
inputs; Clopper-Pearson gives ``p0_lo <= P[M(x) in S]`` and ``P[M(x') in S] <= p1_hi``.  Read as
a test rejecting x' on S, its type-I error is at most ``p1_hi`` and its type-II error at most
``1 - p0_lo``; a claim is refuted when this corner lies strictly below the claim's trade-off
curve f (Dong, Roth & Su 2019, "Gaussian Differential Privacy", DRS19).  f is non-increasing
and the bounds are one-sided, so the corner is the worst point of the confidence box.

Every claim kind implements :class:`Claim`; :class:`auditor.core.claims.PrivacyClaim` does too.
Every computation is *conservative*: curves are computed from below, deltas from above,
certified bounds from below, and ``violated`` needs the certified bound to exceed the claim by
the tolerance of :func:`auditor.core.claims.exceeds`, so rounding can only hide a violation.

The neighbour relation is symmetric, so a claim binds T(M(x), M(x')) and T(M(x'), M(x)) alike.
The curves of pure/approx DP, GDP, zCDP, RDP and privacy profiles are symmetric (f = f^-1: the
first three by their closed forms, the last two as sups of symmetric (eps, delta) curves), so
the corner test against f covers both readings; the Renyi tests take both divergence orders
explicitly, and f-DP (a user curve, maybe not symmetric) tests the reflected corner as well.
"""

from __future__ import annotations

import dataclasses
import functools
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Protocol, runtime_checkable

import gmpy2
import numpy as np
import numpy.typing as npt

from auditor.core.claims import (
    FloatArray,
    PrivacyClaim,
    check_corner,
    check_delta_arg,
    check_epsilon_arg,
    check_levels,
    event_epsilon,
    exceeds,
    lower_curve,
    profile_tradeoff,
    round_up,
    smallest_valid_epsilon,
)
from auditor.core.errors import InvalidArgument
from reference_mechanisms.vector_noise import zcdp_delta, zcdp_epsilon

__all__ = [
    "CLAIM_SYNTAX",
    "Claim",
    "GaussianDP",
    "PrivacyProfile",
    "RenyiDP",
    "TradeOffDP",
    "ZeroConcentratedDP",
    "as_claim",
    "bernoulli_renyi_lower",
    "claim_from_dict",
    "claim_to_dict",
    "is_point",
    "parse_claim",
]


@runtime_checkable
class Claim(Protocol):
    """A privacy claim as the auditor judges it: a trade-off curve and an event-level test.

    ``kind`` is one of "pure", "approx", "profile", "zcdp", "gdp", "fdp", "rdp"; ``parameter``
    names the quantity certified bounds are reported in and ``value`` is its claimed value.
    ``violated(p0_lo, p1_hi)`` == ``exceeds(certified(p0_lo, p1_hi), value)``.

    ``delta_for_epsilon`` / ``epsilon_for_delta`` are the claim's delta(epsilon) and its
    inverse; they are not called ``delta`` / ``epsilon`` because PrivacyClaim has fields of
    those names.  For zCDP and RDP the event test is the Renyi one (stronger than the corner
    against ``tradeoff``, which comes from their (eps, delta) conversion).
    """

    @property
    def kind(self) -> str: ...

    @property
    def parameter(self) -> str: ...

    @property
    def value(self) -> float: ...

    @property
    def epsilon(self) -> float:
        """The epsilon of the (epsilon, delta) point the claim is or implies."""
        ...

    @property
    def delta(self) -> float:
        """The delta of that point (a curve claim's ``report_delta``)."""
        ...

    def tradeoff(self, a: npt.ArrayLike) -> FloatArray:
        """f(a), never above the true curve."""
        ...

    def delta_for_epsilon(self, epsilon: float) -> float:
        """An upper value of the delta the claim implies at ``epsilon``."""
        ...

    def epsilon_for_delta(self, delta: float) -> float:
        """The smallest epsilon >= 0 with ``delta_for_epsilon(epsilon) <= delta`` (inf if none)."""
        ...

    def violated(self, p0_lo: float, p1_hi: float) -> bool:
        """The corner (p1_hi, 1 - p0_lo) lies strictly below the curve."""
        ...

    def certified(self, p0_lo: float, p1_hi: float) -> float:
        """sup of the parameter values whose claim the corner refutes (0.0 if none)."""
        ...

    def with_value(self, v: float) -> Claim:
        """The same claim with ``parameter`` set to ``v``."""
        ...

    def describe(self) -> str: ...

    def to_dict(self) -> dict[str, Any]: ...


def is_point(claim: Any) -> bool:
    """Whether ``claim`` is one (epsilon, delta) point, whose bound is epsilon at delta (None
    stands for the run's point claim)."""
    return claim is None or getattr(claim, "kind", "approx") in ("pure", "approx")


#: the delta at which a curve claim states the (epsilon, delta) point it implies, unless the
#: claim names its own (``report_delta``; ``gdp:mu=1,delta=1e-5``)
REPORT_DELTA = 1e-6


#: the epsilon where a curve claim with no finite epsilon at its report delta is read instead
_FAR_EPSILON = 64.0


class _ImpliedPoint:
    """``epsilon`` and ``delta`` of a curve claim: the (epsilon, delta) point it implies at its
    ``report_delta``.  Reports state it beside the curve's own bound, and attacks that need a
    noise scale read ``epsilon`` as for a point claim.

    A table that stops above ``report_delta`` (a profile whose smallest delta is 1e-5, f-DP
    points that end before alpha = 1) implies no finite epsilon there; its point is then taken
    at the smallest delta the curve reaches by epsilon = 64, so that epsilon stays a number an
    attack can set a noise scale from."""

    report_delta: float

    @functools.cached_property
    def _point(self) -> tuple[float, float]:
        epsilon_for_delta = self.epsilon_for_delta  # type: ignore[attr-defined]
        eps = float(epsilon_for_delta(self.report_delta))
        if math.isfinite(eps):
            return eps, self.report_delta
        floor = float(self.delta_for_epsilon(_FAR_EPSILON))  # type: ignore[attr-defined]
        if not self.report_delta < floor < 1.0:
            return eps, self.report_delta
        return float(epsilon_for_delta(floor)), floor

    @property
    def delta(self) -> float:
        return self._point[1]

    @property
    def epsilon(self) -> float:
        return self._point[0]


def _report_delta(x: Any) -> float:
    if not _is_number(x) or not 0.0 < float(x) < 1.0:
        raise InvalidArgument(f"report_delta={x!r} must be a number in (0, 1)")
    return float(x)


# -- argument checks -------------------------------------------------------------------------


def _is_number(x: Any) -> bool:
    return not isinstance(x, bool) and isinstance(x, int | float | np.floating | np.integer)


def _positive(x: Any, name: str) -> float:
    if not _is_number(x) or not math.isfinite(float(x)) or float(x) <= 0:
        raise InvalidArgument(f"{name}={x!r} must be a finite number > 0")
    return float(x)


def _name(x: Any) -> str:
    if not isinstance(x, str):
        raise InvalidArgument(f"name={x!r} must be a string")
    return x


def _pairs(table: Any, what: str) -> tuple[tuple[float, float], ...]:
    """A table given as a mapping or a sequence of pairs, as sorted float pairs (x unique)."""
    items = list(table.items()) if isinstance(table, Mapping) else list(table)
    if not items:
        raise InvalidArgument(f"{what}: the table is empty")
    out = []
    for item in items:
        if not isinstance(item, Sequence) or len(item) != 2 or not all(_is_number(v) for v in item):
            raise InvalidArgument(f"{what}: entry {item!r} is not a pair of numbers")
        x, y = float(item[0]), float(item[1])
        if math.isnan(x) or math.isnan(y):
            raise InvalidArgument(f"{what}: entry {item!r} is not a pair of numbers")
        out.append((x, y))
    out.sort()
    for (x0, _), (x1, _) in zip(out, out[1:], strict=False):
        if x0 == x1:
            raise InvalidArgument(f"{what}: {x0!r} appears twice in the table")
    return tuple(out)


def _mpfr_down(x: Any) -> float:
    """An mpfr value as the largest float <= it."""
    with gmpy2.context(precision=53, round=gmpy2.RoundDown):
        return float(gmpy2.mpfr(x))


def _mpfr_up(x: Any) -> float:
    """An mpfr value as the smallest float >= it."""
    with gmpy2.context(precision=53, round=gmpy2.RoundUp):
        return float(gmpy2.mpfr(x))


def _log_bisect_epsilon(delta_of: Callable[[float], float], delta: float) -> float:
    """The smallest epsilon with ``delta_of(epsilon) <= delta`` for a non-increasing delta_of.

    Bisection keeping ``delta_of(hi) <= delta``, so the answer is valid whatever the rounding;
    inf when no epsilon below 2^40 reaches ``delta``.
    """
    if delta_of(0.0) <= delta:
        return 0.0
    hi = 1.0
    while delta_of(hi) > delta:
        hi *= 2.0
        if hi > 2.0**40:
            return math.inf
    lo = hi / 2.0 if hi > 1.0 else 0.0
    while hi - lo > hi * 1e-13:
        mid = (lo + hi) / 2.0
        if delta_of(mid) <= delta:
            hi = mid
        else:
            lo = mid
    return hi


# -- Renyi divergence of two Bernoulli laws, from below ----------------------------------------

#: MPFR precision of the Renyi lower bounds (alpha up to ~1e20 multiplies log errors)
_PREC = 160


def _log_down(x: Any) -> Any:
    with gmpy2.context(precision=_PREC, round=gmpy2.RoundDown):
        return gmpy2.log(x)


def _log_up(x: Any) -> Any:
    with gmpy2.context(precision=_PREC, round=gmpy2.RoundUp):
        return gmpy2.log(x)


def _renyi_lower_mpfr(p: float, q: float, alpha: float) -> Any:
    """D_alpha(Bern(p) || Bern(q)) from below, in MPFR with directed rounding; 0 < p, q < 1.

    D_alpha = ln(p^a q^(1-a) + (1-p)^a (1-q)^(1-a)) / (a - 1) (Renyi 1961; van Erven &
    Harremoes 2014, eq. (1)), a > 1.  Each term is exp(a ln(base) + (1-a) ln(other)) with ln(base)
    rounded down and, (1 - a) being negative, ln(other) rounded up, so every step is <= exact.
    """
    mp = gmpy2.mpfr
    with gmpy2.context(precision=_PREC, round=gmpy2.RoundDown):
        a = mp(alpha)
        one_minus_a = mp(1) - a  # exact: alpha is a double in (1, 2^100)
        p_dn = mp(p)
        p1_dn = mp(1) - p_dn  # 1 - p rounded down
    with gmpy2.context(precision=_PREC, round=gmpy2.RoundUp):
        q_up = mp(q)
        q1_up = mp(1) - mp(q)  # 1 - q rounded up
    terms = []
    for base, other in ((p_dn, q_up), (p1_dn, q1_up)):
        if base <= 0:
            continue
        lb, lo = _log_down(base), _log_up(other)
        with gmpy2.context(precision=_PREC, round=gmpy2.RoundDown):
            terms.append(gmpy2.exp(a * lb + one_minus_a * lo))
    with gmpy2.context(precision=_PREC, round=gmpy2.RoundDown):
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
    if not (_is_number(alpha) and float(alpha) > 1.0 and math.isfinite(float(alpha))):
        raise InvalidArgument(f"alpha={alpha!r} must be a finite number > 1")
    if p <= q:
        return 0.0
    if q == 0.0 or p == 1.0:
        return math.inf
    fwd = _renyi_lower_mpfr(p, q, float(alpha))
    rev = _renyi_lower_mpfr(q, p, float(alpha))
    return _mpfr_down(max(fwd, rev))


def _log_ratios(p: float, q: float) -> tuple[float, float]:
    """ln(p/q) and ln((1-p)/(1-q)), accurate when p and q are close (p - q is exact then)."""

    def log_ratio_of(x: float, y: float, dx: float) -> float:
        # ln(x / y) with dx = x - y: log1p near 1, a difference of logs far from it
        return math.log1p(dx / y) if 0.5 * y <= x <= 2.0 * y else math.log(x) - math.log(y)

    return log_ratio_of(p, q, p - q), log_ratio_of(1.0 - p, 1.0 - q, q - p)


def _renyi_float(p: float, q: float, am1: FloatArray) -> FloatArray:
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


def _sup_renyi_over_alpha(p: float, q: float) -> float:
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
        vals = _renyi_float(p, q, am1) / (1.0 + am1)
    vals = np.where(np.isfinite(vals), vals, -np.inf)
    i = int(np.argmax(vals))
    candidates = [_ALPHA_NEAR_ONE, 1.0 + float(am1[i])]
    lo_t, hi_t = log_am1[max(i - 1, 0)], log_am1[min(i + 1, len(log_am1) - 1)]

    def neg(t: float) -> float:
        x = np.array([10.0**t])
        with np.errstate(all="ignore"):
            v = float((_renyi_float(p, q, x) / (1.0 + x))[0])
        return -v if math.isfinite(v) else math.inf

    from scipy import optimize  # here: scipy takes long to import and few claims need it

    res = optimize.minimize_scalar(neg, bounds=(lo_t, hi_t), method="bounded")
    if math.isfinite(float(res.x)):
        candidates.append(1.0 + 10.0 ** float(res.x))
    best = gmpy2.mpfr(0)
    for al in candidates:
        with gmpy2.context(precision=_PREC, round=gmpy2.RoundDown):
            best = max(best, _renyi_lower_mpfr(p, q, al) / gmpy2.mpfr(al))
    return _mpfr_down(best)


# -- Gaussian DP ---------------------------------------------------------------------------------


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
class GaussianDP(_ImpliedPoint):
    """mu-Gaussian differential privacy: f(a) = Phi(Phi^-1(1 - a) - mu) (DRS19 Def. 2.7).

    The Gaussian mechanism with L2 sensitivity 1 and noise sigma is exactly (1/sigma)-GDP, and
    threshold events attain its curve, so GDP claims are audited tightly.

    Raises:
        InvalidArgument: mu is not a finite number > 0.
    """

    mu: float
    report_delta: float = REPORT_DELTA

    def __post_init__(self) -> None:
        object.__setattr__(self, "mu", _positive(self.mu, "mu"))
        object.__setattr__(self, "report_delta", _report_delta(self.report_delta))

    @property
    def kind(self) -> str:
        return "gdp"

    @property
    def parameter(self) -> str:
        return "mu"

    @property
    def value(self) -> float:
        return self.mu

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
        d = _mpfr_up(_gdp_delta_mpfr(self.mu, e))
        return min(1.0, max(d, math.ulp(0.0)))

    def epsilon_for_delta(self, delta: float) -> float:
        """Root of delta(eps) = delta by Brent's method on log delta, then made valid."""
        d = check_delta_arg(delta)
        if self.delta_for_epsilon(0.0) <= d:
            return 0.0
        if d == 0.0:
            return math.inf
        hi = 1.0
        while self.delta_for_epsilon(hi) > d:
            hi *= 2.0
            if hi > 2.0**40:
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

    def violated(self, p0_lo: float, p1_hi: float) -> bool:
        return exceeds(self.certified(p0_lo, p1_hi), self.mu)

    def with_value(self, v: float) -> GaussianDP:
        return dataclasses.replace(self, mu=v)

    def describe(self) -> str:
        return f"{self.mu:g}-GDP"

    def to_dict(self) -> dict[str, Any]:
        return {"kind": "gdp", "mu": self.mu, "report_delta": self.report_delta}


# -- zero-concentrated DP -------------------------------------------------------------------------

#: points of a privacy profile sampled for a trade-off curve (a sup over a grid: conservative)
_PROFILE_POINTS = 200


#: orders of the fast zCDP estimate used to rank events
_ESTIMATE_ORDERS = 1.0 + np.geomspace(1e-4, 1e7, 240)


@dataclass(frozen=True)
class ZeroConcentratedDP(_ImpliedPoint):
    """rho-zCDP: D_alpha(M(x)||M(x')) <= rho * alpha for every alpha > 1 (Bun & Steinke 2016).

    Audited on an event through the Bernoulli pair it induces: by data processing
    sup_alpha D_alpha(Bern(p0)||Bern(p1)) / alpha (either order) is a lower bound of rho.

    Raises:
        InvalidArgument: rho is not a finite number > 0.
    """

    rho: float
    report_delta: float = REPORT_DELTA

    def __post_init__(self) -> None:
        object.__setattr__(self, "rho", _positive(self.rho, "rho"))
        object.__setattr__(self, "report_delta", _report_delta(self.report_delta))

    @property
    def kind(self) -> str:
        return "zcdp"

    @property
    def parameter(self) -> str:
        return "rho"

    @property
    def value(self) -> float:
        return self.rho

    @cached_property
    def _profile(self) -> tuple[FloatArray, FloatArray]:
        top = self.epsilon_for_delta(1e-15)
        eps = np.linspace(0.0, top if math.isfinite(top) else 100.0, _PROFILE_POINTS)
        return eps, np.array([self.delta_for_epsilon(float(e)) for e in eps])

    def tradeoff(self, a: npt.ArrayLike) -> FloatArray:
        """sup over an epsilon grid of f_{eps, delta(eps)} (DRS19 Prop. 2.12): below the truth."""
        arr = check_levels(a)
        return profile_tradeoff(arr, *self._profile)

    def delta_for_epsilon(self, epsilon: float) -> float:
        """CKS20 Cor. 13 (``reference_mechanisms.vector_noise.zcdp_delta``), rounded up."""
        e = check_epsilon_arg(epsilon)
        return min(1.0, _mpfr_up(zcdp_delta(self.rho, e)))

    def epsilon_for_delta(self, delta: float) -> float:
        """CKS20 Cor. 13 inverted (``reference_mechanisms.vector_noise.zcdp_epsilon``)."""
        d = check_delta_arg(delta)
        if self.delta_for_epsilon(0.0) <= d:
            return 0.0
        if d == 0.0:
            return math.inf
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
        return max(_sup_renyi_over_alpha(p, q), _sup_renyi_over_alpha(q, p))

    def violated(self, p0_lo: float, p1_hi: float) -> bool:
        return exceeds(self.certified(p0_lo, p1_hi), self.rho)

    def estimate_certified(self, p0_lo: float, p1_hi: float) -> float:
        """A fast float stand-in for :meth:`certified` (a grid of orders, both directions), to
        rank thousands of candidate events; never used for a bound."""
        if not 0.0 < p1_hi < p0_lo < 1.0:
            return self.certified(p0_lo, p1_hi) if p0_lo > p1_hi else 0.0
        am1 = _ESTIMATE_ORDERS - 1.0
        forward = _renyi_float(p0_lo, p1_hi, am1)
        backward = _renyi_float(p1_hi, p0_lo, am1)
        best = np.nanmax(np.maximum(forward, backward) / _ESTIMATE_ORDERS)
        return float(max(0.0, best))

    def with_value(self, v: float) -> ZeroConcentratedDP:
        return dataclasses.replace(self, rho=v)

    def describe(self) -> str:
        return f"{self.rho:g}-zCDP"

    def to_dict(self) -> dict[str, Any]:
        return {"kind": "zcdp", "rho": self.rho, "report_delta": self.report_delta}


# -- Renyi DP ----------------------------------------------------------------------------------------


def _default_rdp_orders() -> tuple[float, ...]:
    from dp_accounting.rdp import rdp_privacy_accountant

    return tuple(float(a) for a in rdp_privacy_accountant.DEFAULT_RDP_ORDERS)


def _call(fn: Callable[[float], Any], x: float, what: str) -> float:
    try:
        y = fn(x)
    except Exception as exc:  # the user's function: say which and where
        raise InvalidArgument(f"{what}: the function raised {exc!r} at {x!r}") from exc
    if isinstance(y, np.ndarray) and y.size == 1:
        y = y.reshape(()).item()
    if not _is_number(y) or math.isnan(float(y)):
        raise InvalidArgument(f"{what}: the function returned {y!r} at {x!r}, not a number")
    return float(y)


@dataclass(frozen=True)
class RenyiDP(_ImpliedPoint):
    """Renyi DP with a curve alpha -> eps(alpha) (Mironov 2017, Def. 4), scaled by ``scale``.

    ``curve``: a callable (read at dp_accounting's default RDP orders) or a table ``{alpha:
    eps}`` / pairs (alpha, eps), orders > 1, eps >= 0 (inf allowed: no bound at that order).
    The claim is ``D_alpha <= scale * eps(alpha)`` at those orders.  ``parameter`` is "scale"
    (value ``scale``): ``certified`` is the largest factor by which the curve could be scaled and
    still be refuted, max over orders of D_alpha(corner) / eps(alpha); ``order_bounds`` and
    ``most_violated_order`` say which order, for reports ("eps(alpha=2) >= 0.61, claimed 0.5").

    Raises:
        InvalidArgument: an order <= 1 or not finite, an eps < 0 or NaN, an empty table, a
            callable that fails, scale not finite > 0, name not a string.
    """

    curve: Callable[[float], float] | Mapping[float, float] | Sequence[tuple[float, float]]
    name: str = ""
    scale: float = 1.0
    report_delta: float = REPORT_DELTA
    _table: tuple[tuple[float, float], ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        _name(self.name)
        object.__setattr__(self, "scale", _positive(self.scale, "scale"))
        if callable(self.curve):
            fn = self.curve
            table = tuple((a, _call(fn, a, "RDP curve")) for a in _default_rdp_orders())
        else:
            table = _pairs(self.curve, "RDP curve")
            object.__setattr__(self, "curve", table)
        for alpha, eps in table:
            if not (alpha > 1.0 and math.isfinite(alpha)):
                raise InvalidArgument(f"RDP order alpha={alpha!r} must be a finite number > 1")
            if not eps >= 0.0:
                raise InvalidArgument(f"RDP eps(alpha={alpha!r})={eps!r} must be >= 0")
        object.__setattr__(self, "_table", table)

    @property
    def kind(self) -> str:
        return "rdp"

    @property
    def parameter(self) -> str:
        return "scale"

    @property
    def value(self) -> float:
        return self.scale

    @property
    def orders(self) -> tuple[float, ...]:
        return tuple(a for a, _ in self._table)

    @property
    def epsilons(self) -> tuple[float, ...]:
        """The claimed eps(alpha) at ``orders``, scale applied."""
        return tuple(self.scale * e for _, e in self._table)

    @property
    def unscaled_epsilons(self) -> tuple[float, ...]:
        """The curve's eps(alpha) at ``orders`` before ``scale``: a divergence D_alpha shows
        the scale is at least D_alpha / eps(alpha)."""
        return tuple(e for _, e in self._table)

    @cached_property
    def _profile(self) -> tuple[FloatArray, FloatArray]:
        top = self.epsilon_for_delta(1e-15)
        eps = np.linspace(0.0, min(top, 1000.0) if math.isfinite(top) else 100.0, _PROFILE_POINTS)
        return eps, np.array([self.delta_for_epsilon(float(e)) for e in eps])

    def tradeoff(self, a: npt.ArrayLike) -> FloatArray:
        """sup over an epsilon grid of f_{eps, delta(eps)} (DRS19 Prop. 2.12): below the truth."""
        arr = check_levels(a)
        return profile_tradeoff(arr, *self._profile)

    def delta_for_epsilon(self, epsilon: float) -> float:
        """dp_accounting's RDP -> (eps, delta) conversion (CKS20 Prop. 12 / ALCKS20; KL bound),
        raised by a relative 1e-9 (its float exponent (alpha-1)(r - eps) may be large)."""
        from dp_accounting.rdp import rdp_privacy_accountant

        e = check_epsilon_arg(epsilon)
        d, _ = rdp_privacy_accountant.compute_delta(self.orders, self.epsilons, e)
        return min(1.0, float(d) * (1.0 + 1e-9))

    def epsilon_for_delta(self, delta: float) -> float:
        """dp_accounting's ``compute_epsilon``, raised until ``delta_for_epsilon`` agrees."""
        from dp_accounting.rdp import rdp_privacy_accountant

        d = check_delta_arg(delta)
        if self.delta_for_epsilon(0.0) <= d:
            return 0.0
        if d == 0.0:
            return math.inf
        e, _ = rdp_privacy_accountant.compute_epsilon(self.orders, self.epsilons, d)
        e = float(e)
        if not math.isfinite(e):
            return math.inf
        return smallest_valid_epsilon(self.delta_for_epsilon, e, d)

    def order_bounds(self, p0_lo: float, p1_hi: float) -> list[tuple[float, float, float]]:
        """(alpha, lower bound of D_alpha from the corner, claimed scale * eps(alpha)) per order."""
        p0, p1 = check_corner(p0_lo, p1_hi)
        return [
            (alpha, bernoulli_renyi_lower(p0, p1, alpha), self.scale * eps)
            for alpha, eps in self._table
        ]

    def _ratios(self, p0: float, p1: float) -> list[tuple[float, float]]:
        """(order, D_alpha lower bound / unscaled eps(alpha)) for the best orders (float search
        then MPFR at the three best; the MPFR value is the one used)."""
        if p0 <= p1:
            return [(self._table[0][0], 0.0)]
        if p1 == 0.0 or p0 == 1.0:
            return [(self._table[0][0], math.inf)]
        alphas = np.array(self.orders)
        eps = np.array([e for _, e in self._table])
        with np.errstate(all="ignore"):
            am1 = alphas - 1.0
            d = np.maximum(_renyi_float(p0, p1, am1), _renyi_float(p1, p0, am1))
            r = np.where(eps > 0, d / eps, np.where(d > 0, np.inf, 0.0))
        r = np.where(np.isnan(r), 0.0, r)
        out = []
        for i in np.argsort(-r, kind="stable")[:3].tolist():
            alpha, e = self._table[i]
            dl = bernoulli_renyi_lower(p0, p1, alpha)
            if e == 0.0:
                ratio = math.inf if dl > 0 else 0.0
            elif math.isinf(e):
                ratio = 0.0
            else:
                with gmpy2.context(precision=_PREC, round=gmpy2.RoundDown):
                    ratio = _mpfr_down(gmpy2.mpfr(dl) / gmpy2.mpfr(e))
            out.append((alpha, ratio))
        return out

    def certified(self, p0_lo: float, p1_hi: float) -> float:
        """max over orders of D_alpha(corner) / eps(alpha) (both divergence orders), from below:
        the curve scaled by any smaller factor is refuted at some order (Mironov 2017)."""
        p0, p1 = check_corner(p0_lo, p1_hi)
        return max(r for _, r in self._ratios(p0, p1))

    def most_violated_order(self, p0_lo: float, p1_hi: float) -> tuple[float, float, float]:
        """(alpha, D_alpha lower bound, claimed scale * eps(alpha)) at the order with the largest
        ratio D_alpha / eps(alpha)."""
        p0, p1 = check_corner(p0_lo, p1_hi)
        alpha, _ = max(self._ratios(p0, p1), key=lambda t: t[1])
        eps = dict(self._table)[alpha]
        return alpha, bernoulli_renyi_lower(p0, p1, alpha), self.scale * eps

    def violated(self, p0_lo: float, p1_hi: float) -> bool:
        return exceeds(self.certified(p0_lo, p1_hi), self.scale)

    def with_value(self, v: float) -> RenyiDP:
        return dataclasses.replace(self, scale=v)

    def describe(self) -> str:
        if callable(self.curve):
            text = f"RDP eps(alpha) = {self.name or 'curve'}"
        else:
            pairs = ", ".join(f"{a:g}: {e:g}" for a, e in self._table)
            text = f"RDP eps(alpha) = {{{pairs}}}" + (f" ({self.name})" if self.name else "")
        return text if self.scale == 1.0 else f"{text} x {self.scale:g}"

    def to_dict(self) -> dict[str, Any]:
        """Orders with eps = inf are left out: they bound nothing (and JSON has no inf)."""
        return {
            "kind": "rdp",
            "name": self.name,
            "table": [[a, e] for a, e in self._table if math.isfinite(e)],
            "scale": self.scale,
        }


# -- privacy profiles ------------------------------------------------------------------------------

#: where a callable profile delta(eps) is read: 0 and a geometric grid up to 64
_PROFILE_EPS = np.concatenate([[0.0], np.geomspace(1e-3, 64.0, 300)])


@dataclass(frozen=True)
class PrivacyProfile(_ImpliedPoint):
    """A delta(eps) curve: (eps, delta(eps))-DP for every eps (a privacy profile).

    ``delta_of_eps``: a callable eps -> delta (read on a grid of eps in [0, 64]) or a table of
    (eps, delta) points (a mapping or pairs).  Between table points the claim is the delta at
    the next smaller eps of the table: a mechanism's true delta(eps) is non-increasing, so the
    claimed delta at eps_k also holds at every eps >= eps_k; below the first point nothing is
    claimed.  ``scale`` s stretches the epsilons: the claim at scale s is delta(eps / s), so a
    larger s is a weaker claim.  ``certified`` is the largest s the corner refutes.

    Raises:
        InvalidArgument: an eps < 0 or not finite, a delta outside [0, 1], an empty table, a
            callable that fails, scale not finite > 0, name not a string.
    """

    delta_of_eps: Callable[[float], float] | Mapping[float, float] | Sequence[tuple[float, float]]
    name: str = ""
    scale: float = 1.0
    report_delta: float = REPORT_DELTA
    _table: tuple[tuple[float, float], ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        _name(self.name)
        object.__setattr__(self, "scale", _positive(self.scale, "scale"))
        if callable(self.delta_of_eps):
            fn = self.delta_of_eps
            table = tuple((e, _call(fn, e, "privacy profile")) for e in _PROFILE_EPS.tolist())
        else:
            table = _pairs(self.delta_of_eps, "privacy profile")
            object.__setattr__(self, "delta_of_eps", table)
        for eps, delta in table:
            if not (eps >= 0.0 and math.isfinite(eps)):
                raise InvalidArgument(f"privacy profile: eps={eps!r} must be a finite number >= 0")
            if not 0.0 <= delta <= 1.0:
                raise InvalidArgument(
                    f"privacy profile: delta({eps!r})={delta!r} must be in [0, 1]"
                )
        object.__setattr__(self, "_table", table)

    @property
    def kind(self) -> str:
        return "profile"

    @property
    def parameter(self) -> str:
        return "scale"

    @property
    def value(self) -> float:
        return self.scale

    def _arrays(self) -> tuple[FloatArray, FloatArray]:
        eps = np.array([e for e, _ in self._table], dtype=np.float64)
        dlt = np.array([d for _, d in self._table], dtype=np.float64)
        return eps, dlt

    def tradeoff(self, a: npt.ArrayLike) -> FloatArray:
        """sup over the points of f_{s eps_k, delta_k} (DRS19 Prop. 2.12).

        Exact for a table (between points the delta is constant and f_{eps,delta} is highest at
        the smallest eps); below the truth for a callable (a sup over its grid).
        """
        arr = check_levels(a)
        eps, dlt = self._arrays()
        return profile_tradeoff(arr, self.scale * eps, dlt)

    def _delta_base(self, eps: float) -> float:
        """delta at eps of the unscaled claim."""
        if callable(self.delta_of_eps):
            d = _call(self.delta_of_eps, eps, "privacy profile")
            if not 0.0 <= d <= 1.0:
                raise InvalidArgument(f"privacy profile: delta({eps!r})={d!r} must be in [0, 1]")
            return d
        below = [d for e, d in self._table if e <= eps]
        return below[-1] if below else 1.0

    def delta_for_epsilon(self, epsilon: float) -> float:
        """delta(eps / scale): the callable's value, or the table's step value (1.0 below it)."""
        e = check_epsilon_arg(epsilon)
        return self._delta_base(e / self.scale)

    def epsilon_for_delta(self, delta: float) -> float:
        """For a table, the smallest scaled table eps whose delta is <= ``delta``; for a
        callable, bisection between the grid points around the first one that is (inf when no
        grid point reaches ``delta``)."""
        d = check_delta_arg(delta)
        if not callable(self.delta_of_eps):
            hits = [self.scale * e for e, dk in self._table if dk <= d]
            return min(hits) if hits else math.inf
        prev = 0.0
        for e, dk in self._table:
            if dk <= d:
                if e == 0.0:
                    return 0.0
                lo, hi = prev, e
                while hi - lo > hi * 1e-13:
                    mid = (lo + hi) / 2.0
                    if self._delta_base(mid) <= d:
                        hi = mid
                    else:
                        lo = mid
                return smallest_valid_epsilon(self.delta_for_epsilon, self.scale * hi, d)
            prev = e
        return math.inf

    def certified(self, p0_lo: float, p1_hi: float) -> float:
        """The largest scale s whose claim the corner refutes.

        At scale s the point (s e_k, delta_k) is refuted iff p0 - e^(s e_k) p1 > delta_k or
        (1 - p1) - e^(s e_k)(1 - p0) > delta_k (the two branches of f_{eps,delta}, DRS19
        Prop. 2.12), i.e. s < r_k / e_k with r_k = max(ln((p0 - delta_k)/p1),
        ln((1 - delta_k - p1)/(1 - p0))); a point at e_k = 0 with r_k > 0 is refuted at every
        scale (inf).  The sup over the points is the answer (monotone in p0_lo and p1_hi).
        """
        p0, p1 = check_corner(p0_lo, p1_hi)
        best = 0.0
        for e, dk in self._table:
            r = event_epsilon(p0, p1, dk)
            if e == 0.0:
                if exceeds(r, 0.0):  # refuted at eps = 0 (beyond rounding): at every scale
                    return math.inf
            elif r > 0.0:
                best = max(best, r / e)
        return best

    def violated(self, p0_lo: float, p1_hi: float) -> bool:
        return exceeds(self.certified(p0_lo, p1_hi), self.scale)

    def with_value(self, v: float) -> PrivacyProfile:
        return dataclasses.replace(self, scale=v)

    def describe(self) -> str:
        what = self.name or ("callable" if callable(self.delta_of_eps) else "table")
        text = f"delta(eps) profile {what} ({len(self._table)} points)"
        return text if self.scale == 1.0 else f"{text}, eps x {self.scale:g}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": "profile",
            "name": self.name,
            "table": [[e, d] for e, d in self._table],
            "scale": self.scale,
        }


# -- f-DP --------------------------------------------------------------------------------------------


def _level_grid(n_lin: int, n_log: int) -> FloatArray:
    """0, 1 and points dense near both ends, where trade-off curves are steep."""
    tail = np.geomspace(1e-15, 1e-3, n_log)
    mid = np.linspace(1e-3, 1.0 - 1e-3, n_lin)
    return np.unique(np.concatenate([[0.0, 1.0], tail, mid, 1.0 - tail]))


#: where delta(eps) = sup_a (1 - e^eps a - f(a)) is bounded, and a callable f is checked
_FDP_GRID = _level_grid(2000, 600)
#: where a callable f is sampled for ``to_dict``
_FDP_SAVE_GRID = _level_grid(300, 150)
#: evaluations of a callable f one delta bound may spend refining the grid (vectorised f;
#: a function called point by point gets a tenth)
_FDP_REFINE_BUDGET = 20_000
#: slack of the checks that f is a trade-off function (values from numerical code)
_FDP_SLACK = 1e-9


def _vectorised(fn: Callable[[Any], Any]) -> bool:
    """Whether ``fn`` maps an array of levels to an array of the same shape."""
    try:
        with np.errstate(all="ignore"):
            out = np.asarray(fn(_FDP_GRID[:5]), dtype=np.float64)
    except Exception:  # the user's function: anything may be raised on an array
        return False
    return out.shape == (5,)


def _times_exp(a: FloatArray, eps: float) -> FloatArray:
    """e^eps * a, with 0 where a == 0 even when e^eps overflows."""
    growth = math.exp(eps) if eps < 700.0 else math.inf
    with np.errstate(invalid="ignore"):
        return np.asarray(np.where(a > 0.0, growth * a, 0.0), dtype=np.float64)


@dataclass(frozen=True)
class TradeOffDP(_ImpliedPoint):
    """f-DP with a user-given trade-off function f (DRS19 Def. 2.3).

    ``f``: a callable on [0, 1] (vectorised or not) or a table of (a, f(a)) points; between
    table points f is read as the value at the next larger a (f is non-increasing, so this is
    below it), and 0 beyond the last point.  f must be non-increasing, in [0, 1] and <= 1 - a
    (checked on a grid for a callable, with slack 1e-9).

    There is no natural parameter, so ``parameter`` is "scale" s, on a family of trade-off
    functions that moves f towards perfect privacy (s < 1) or towards none (s > 1)::

        f_s(a) = (1 - s)(1 - a) + s f(a)    for 0 < s <= 1  (mixed with the curve 1 - a)
        f_s(a) = (2 - s) f(a)               for 1 <= s < 2  (shrunk towards 0)
        f_s(a) = 0                          for s >= 2      (no claim)

    Every f_s is convex, non-increasing and <= 1 - a when f is, and f_s decreases as s grows, so
    the corner remains the worst point of the confidence box at every scale (a plain
    extrapolation of the mix beyond s = 1 would not be non-increasing).  ``certified`` is the
    largest s the corner refutes, in [0, 2]: above 1 the claim is refuted.  f need not be
    symmetric, so the reflected corner (1 - p0_lo, p1_hi) is tested too (the claim binds
    T(M(x'), M(x)) as well, for symmetric neighbours).

    Raises:
        InvalidArgument: f fails, returns a non-number, or is not a trade-off function on the
            grid; a bad table; scale not finite > 0; name not a string.
    """

    f: Callable[[Any], Any] | Mapping[float, float] | Sequence[tuple[float, float]]
    name: str = ""
    scale: float = 1.0
    report_delta: float = REPORT_DELTA
    _points: tuple[tuple[float, float], ...] = field(init=False, repr=False, compare=False)
    _grid: FloatArray = field(init=False, repr=False, compare=False)
    _grid_f: FloatArray = field(init=False, repr=False, compare=False)
    #: a callable that is not vectorised is called point by point, each point once
    _vectorised: bool = field(init=False, repr=False, compare=False)
    _cache: dict[float, float] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        _name(self.name)
        object.__setattr__(self, "scale", _positive(self.scale, "scale"))
        object.__setattr__(self, "_cache", {})
        object.__setattr__(self, "_vectorised", callable(self.f) and _vectorised(self.f))
        table: tuple[tuple[float, float], ...] = ()
        if not callable(self.f):
            table = _pairs(self.f, "trade-off table")
            object.__setattr__(self, "f", table)
        object.__setattr__(self, "_points", table)
        if table:
            xs = np.array([x for x, _ in table])
            ys = np.array([y for _, y in table])
            self._check(xs, ys)
        else:
            self._check(_FDP_GRID, self._raw(_FDP_GRID, clip=False))
        # where delta(eps) is bounded: a table's own points (exact for its step function) or
        # the fixed grid for a callable (refined around the maximiser, see _delta_bound)
        grid = (
            np.unique(np.concatenate([[0.0, 1.0], [x for x, _ in table]])) if table else _FDP_GRID
        )
        object.__setattr__(self, "_grid", grid)
        object.__setattr__(self, "_grid_f", self._raw(grid))

    @staticmethod
    def _check(xs: FloatArray, ys: FloatArray) -> None:
        if not np.all((xs >= 0.0) & (xs <= 1.0)):
            bad = xs[~((xs >= 0.0) & (xs <= 1.0))][0]
            raise InvalidArgument(f"trade-off function: a={float(bad)!r} is outside [0, 1]")
        bad_y = ~((ys >= 0.0) & (ys <= 1.0 + _FDP_SLACK))
        if np.any(bad_y):
            i = int(np.argmax(bad_y))
            raise InvalidArgument(
                f"trade-off function: f({float(xs[i])!r})={float(ys[i])!r} is not in [0, 1]"
            )
        above = ys > 1.0 - xs + _FDP_SLACK
        if np.any(above):
            i = int(np.argmax(above))
            raise InvalidArgument(
                f"trade-off function: f({float(xs[i])!r})={float(ys[i])!r} > 1 - a: not a trade-off function"
            )
        rising = np.diff(ys) > _FDP_SLACK
        if np.any(rising):
            i = int(np.argmax(rising))
            raise InvalidArgument(
                f"trade-off function: f rises from f({float(xs[i])!r})={float(ys[i])!r} to "
                f"f({float(xs[i + 1])!r})={float(ys[i + 1])!r}; it must be non-increasing"
            )

    def _raw(self, a: FloatArray, *, clip: bool = True) -> FloatArray:
        """f(a) as given (table: the step from below), clipped to [0, 1] unless ``clip`` is False."""
        fn = self.f
        if not callable(fn):
            xs = np.array([x for x, _ in self._points])
            ys = np.append(np.array([y for _, y in self._points]), 0.0)
            return np.asarray(ys[np.searchsorted(xs, a, side="left")], dtype=np.float64)
        out: Any = None
        if self._vectorised:
            with np.errstate(all="ignore"):
                out = np.asarray(fn(a), dtype=np.float64)
        else:
            cache = self._cache
            values = []
            for x in a.ravel().tolist():
                y = cache.get(x)
                if y is None:
                    y = cache[x] = _call(fn, x, "trade-off function")
                values.append(y)
            out = np.array(values, dtype=np.float64).reshape(a.shape)
        if np.any(np.isnan(out)):
            i = int(np.argmax(np.isnan(out).ravel()))
            raise InvalidArgument(
                f"trade-off function: f({float(a.ravel()[i])!r}) is NaN, not a number"
            )
        return np.asarray(np.clip(out, 0.0, 1.0) if clip else out, dtype=np.float64)

    def _f_low(self, a: FloatArray) -> FloatArray:
        return lower_curve(self._raw(a))

    @property
    def kind(self) -> str:
        return "fdp"

    @property
    def parameter(self) -> str:
        return "scale"

    @property
    def value(self) -> float:
        return self.scale

    def _family(self, a: FloatArray, f_low: FloatArray) -> FloatArray:
        """f_s at levels a, from values of f already lowered by the tolerance."""
        s = self.scale
        if s <= 1.0:
            out = (1.0 - s) * (1.0 - a) + s * f_low
        elif s < 2.0:
            out = (2.0 - s) * f_low
        else:
            out = np.zeros_like(a)
        return lower_curve(np.asarray(out, dtype=np.float64))

    def tradeoff(self, a: npt.ArrayLike) -> FloatArray:
        """f_s(a) (see the class), f lowered by the tolerance."""
        arr = check_levels(a)
        return self._family(arr, self._f_low(arr))

    def _delta_bound(self, eps: float) -> float:
        """An upper bound of sup_a (1 - e^eps a - f_s(a)) (DRS19 Prop. 2.12, convex conjugate).

        A sup over grid points would be *below* the true sup; instead, on [a_i, a_{i+1}]
        1 - e^eps a <= 1 - e^eps a_i and f_s(a) >= f_s(a_{i+1}) (f_s is non-increasing): the
        max over intervals of the resulting bound is >= the sup.
        For a table this is exact for its step function.  For a callable, intervals whose bound
        exceeds the best value at a grid point (a value the sup reaches, so the others cannot
        matter) are split 16 ways, up to three rounds within a budget of evaluations of f.
        """
        left, right = self._grid[:-1], self._grid[1:]
        f_right = self._grid_f[1:]
        b = self._interval_bounds(left, right, f_right, eps)
        if not callable(self.f):
            return float(np.max(b))
        reached = float(np.max(self._point_values(self._grid, self._grid_f, eps)))
        for _ in range(3):
            keep = b > reached
            budget = _FDP_REFINE_BUDGET if self._vectorised else _FDP_REFINE_BUDGET // 10
            if not np.any(keep) or 15 * int(np.count_nonzero(keep)) > budget:
                break
            steps = np.linspace(0.0, 1.0, 17)
            lo, hi = left[keep], right[keep]
            pts = lo[:, None] + (hi - lo)[:, None] * steps[None, :]
            pts[:, -1] = hi  # the right ends exactly
            inner = pts[:, 1:-1]
            f_inner = self._raw(inner.ravel()).reshape(inner.shape)
            f_pts = np.concatenate([f_inner, f_right[keep][:, None]], axis=1)
            reached = max(reached, float(np.max(self._point_values(inner, f_inner, eps))))
            left, right = pts[:, :-1].ravel(), pts[:, 1:].ravel()
            f_right = f_pts.ravel()
            b = self._interval_bounds(left, right, f_right, eps)
        return max(reached, float(np.max(b)))

    def _interval_bounds(
        self, left: FloatArray, right: FloatArray, f_right: FloatArray, eps: float
    ) -> FloatArray:
        """Per interval [left, right], an upper bound of 1 - e^eps a - f_s(a) on it."""
        g_low = self._family(right, lower_curve(f_right))
        return np.asarray(1.0 - _times_exp(left, eps) - g_low, dtype=np.float64)

    def _point_values(self, a: FloatArray, fa: FloatArray, eps: float) -> FloatArray:
        """1 - e^eps a - f_s(a) at points (f lowered: values the sup reaches or exceeds)."""
        g = self._family(a, lower_curve(fa))
        return np.asarray(1.0 - _times_exp(a, eps) - g, dtype=np.float64)

    def delta_for_epsilon(self, epsilon: float) -> float:
        """An upper value of delta(eps) = 1 + f_s*(-e^eps) (DRS19 Prop. 2.12), see _delta_bound."""
        e = check_epsilon_arg(epsilon)
        return min(1.0, max(0.0, round_up(self._delta_bound(e))))

    def epsilon_for_delta(self, delta: float) -> float:
        """Bisection on the (non-increasing) bound; inf when it never reaches ``delta``."""
        d = check_delta_arg(delta)
        return _log_bisect_epsilon(self.delta_for_epsilon, d)

    def certified(self, p0_lo: float, p1_hi: float) -> float:
        """The largest s with the corner (p1, 1 - p0) or the reflected one (1 - p0, p1) below f_s.

        For a point (x, y) (type-I, type-II error): if y < f(x) it is below f_s for
        s < 2 - y / f(x) (the shrunk part); otherwise, on the mixed part,
        y < (1 - x) - s((1 - x) - f(x)) gives s < ((1 - x) - y) / ((1 - x) - f(x)) (<= 1).
        f is lowered by the tolerance first, which lowers both, so rounding lowers the bound.
        0.0 when p0_lo <= p1_hi.
        """
        p0, p1 = check_corner(p0_lo, p1_hi)
        if p0 <= p1:
            return 0.0
        f_at = self._f_low(np.array([p1, 1.0 - p0])).tolist()
        best = 0.0
        for (x, y), fx in zip(((p1, 1.0 - p0), (1.0 - p0, p1)), f_at, strict=True):
            if y < fx:
                best = max(best, 2.0 - y / fx)
            elif (1.0 - x) - y > 0.0 and (1.0 - x) - fx > 0.0:
                best = max(best, min(1.0, ((1.0 - x) - y) / ((1.0 - x) - fx)))
        return best

    def violated(self, p0_lo: float, p1_hi: float) -> bool:
        return exceeds(self.certified(p0_lo, p1_hi), self.scale)

    def with_value(self, v: float) -> TradeOffDP:
        return dataclasses.replace(self, scale=v)

    def describe(self) -> str:
        what = self.name or ("callable" if callable(self.f) else "table")
        text = f"f-DP ({what})"
        return text if self.scale == 1.0 else f"{text} at scale {self.scale:g}"

    def to_dict(self) -> dict[str, Any]:
        """A callable is sampled on a grid (read back as a table, which is below it)."""
        if callable(self.f):
            a = _FDP_SAVE_GRID
            table = [[x, y] for x, y in zip(a.tolist(), self._raw(a).tolist(), strict=True)]
        else:
            table = [[x, y] for x, y in self._points]
        return {"kind": "fdp", "name": self.name, "table": table, "scale": self.scale}


# -- serialisation -------------------------------------------------------------------------------


def claim_to_dict(claim: Claim) -> dict[str, Any]:
    """A JSON-able dict with a "kind" for every claim (PrivacyClaim: kind, epsilon, delta)."""
    if isinstance(claim, PrivacyClaim):
        return {"kind": claim.kind, **claim.to_dict()}
    return claim.to_dict()


_DICT_KEYS = {
    "pure": {"kind", "epsilon", "delta"},
    "approx": {"kind", "epsilon", "delta"},
    "gdp": {"kind", "mu", "report_delta"},
    "zcdp": {"kind", "rho", "report_delta"},
    "rdp": {"kind", "name", "table", "scale"},
    "profile": {"kind", "name", "table", "scale"},
    "fdp": {"kind", "name", "table", "scale"},
}


def claim_from_dict(d: Mapping[str, Any]) -> Claim:
    """The claim :func:`claim_to_dict` wrote; also the old ``{"epsilon", "delta"}`` shape.

    Raises:
        InvalidArgument: not a mapping, unknown kind, missing or unknown keys, bad values.
    """
    if not isinstance(d, Mapping):
        raise InvalidArgument(f"claim={d!r} must be a dict")
    kind = d.get("kind")
    if kind is None:
        if "epsilon" in d and set(d) <= {"epsilon", "delta"}:
            return PrivacyClaim(d["epsilon"], d.get("delta", 0.0))
        raise InvalidArgument(f"claim={dict(d)!r} has no 'kind' and is not {{epsilon, delta}}")
    if kind not in _DICT_KEYS:
        raise InvalidArgument(f"claim kind={kind!r} must be one of {sorted(_DICT_KEYS)}")
    unknown = set(d) - _DICT_KEYS[kind]
    if unknown:
        raise InvalidArgument(f"claim of kind {kind!r}: unknown keys {sorted(unknown)}")

    def need(key: str) -> Any:
        if key not in d:
            raise InvalidArgument(f"claim of kind {kind!r}: missing key {key!r}")
        return d[key]

    if kind in ("pure", "approx"):
        claim = PrivacyClaim(need("epsilon"), d.get("delta", 0.0))
        if claim.kind != kind:
            raise InvalidArgument(f"claim of kind {kind!r} has delta={claim.delta!r}")
        return claim
    report = d.get("report_delta", REPORT_DELTA)
    if kind == "gdp":
        return GaussianDP(need("mu"), report)
    if kind == "zcdp":
        return ZeroConcentratedDP(need("rho"), report)
    table = need("table")
    name, scale = d.get("name", ""), d.get("scale", 1.0)
    if isinstance(table, str | bytes) or not isinstance(table, Sequence):
        raise InvalidArgument(f"claim of kind {kind!r}: table={table!r} must be a list of pairs")
    if kind == "rdp":
        return RenyiDP(table, name=name, scale=scale)
    if kind == "profile":
        return PrivacyProfile(table, name=name, scale=scale)
    return TradeOffDP(table, name=name, scale=scale)


# -- the command line ----------------------------------------------------------------------------

CLAIM_SYNTAX = """\
claim forms (kind is case-insensitive; keys eps|epsilon, delta, mu, rho):
  pure:eps=1                 epsilon-DP (alias: dp:eps=1)
  approx:eps=1,delta=1e-5    (epsilon, delta)-DP, delta in [0, 1)
  gdp:mu=1                   mu-Gaussian DP, mu > 0
  zcdp:rho=0.5               rho-zCDP, rho > 0
  gdp:mu=1,delta=1e-5        the same; the report also states the (eps, delta) point the
                             curve implies at this delta (default 1e-6)
  rdp:2=0.5,4=1.2,8=2.0      Renyi DP: order=eps pairs, orders > 1, eps >= 0
  profile:0.5=1e-3,1=1e-5    a delta(eps) curve: eps=delta pairs, eps >= 0, delta in [0, 1]
                             (the delta at each eps also holds at every larger eps)
  fdp:0.01=0.9,0.1=0.6       f-DP: alpha=beta points of a trade-off function f(alpha),
                             non-increasing, beta <= 1 - alpha"""

_KINDS = {"pure": "pure", "dp": "pure", "approx": "approx", "gdp": "gdp", "zcdp": "zcdp"}
_KEYS = {"eps": "epsilon", "epsilon": "epsilon", "delta": "delta", "mu": "mu", "rho": "rho"}
_NEEDED = {
    "pure": ("epsilon",),
    "approx": ("epsilon", "delta"),
    "gdp": ("mu", "delta"),
    "zcdp": ("rho", "delta"),
}
#: keys a curve claim may leave out (its report delta)
_OPTIONAL = (("gdp", "delta"), ("zcdp", "delta"))


def _parse_error(text: str, what: str) -> InvalidArgument:
    return InvalidArgument(f"claim {text!r}: {what}\n{CLAIM_SYNTAX}")


def _parse_number(text: str, key: str, raw: str) -> float:
    try:
        return float(raw)
    except ValueError:
        raise _parse_error(text, f"{key}={raw!r} is not a number") from None


@dataclass(frozen=True)
class _TableForm:
    """How a claim written as key=value points reads (``rdp:2=0.5,4=1.2``)."""

    key: str
    value: str
    key_ok: Callable[[float], bool]
    key_rule: str
    value_ok: Callable[[float], bool]
    value_rule: str
    build: Callable[[dict[float, float]], Claim]


_TABLES = {
    "rdp": _TableForm(
        "order",
        "eps",
        lambda a: a > 1,
        "a finite number > 1",
        lambda e: e >= 0,
        "a finite number >= 0",
        RenyiDP,
    ),
    "profile": _TableForm(
        "eps",
        "delta",
        lambda e: e >= 0,
        "a finite number >= 0",
        lambda d: 0 <= d <= 1,
        "in [0, 1]",
        PrivacyProfile,
    ),
    "fdp": _TableForm(
        "alpha",
        "beta",
        lambda a: 0 <= a <= 1,
        "in [0, 1]",
        lambda b: 0 <= b <= 1,
        "in [0, 1]",
        TradeOffDP,
    ),
}


def _parse_table(text: str, kind: str, pairs: list[tuple[str, str]]) -> Claim:
    """A claim given as key=value points (``rdp``, ``profile``, ``fdp``)."""
    form = _TABLES[kind]
    if not pairs:
        raise _parse_error(text, f"{kind} needs {form.key}={form.value} pairs")
    table: dict[float, float] = {}
    for key, raw in pairs:
        point = _parse_number(text, form.key, key)
        value = _parse_number(text, key, raw)
        if not (math.isfinite(point) and form.key_ok(point)):
            raise _parse_error(text, f"{form.key} {key!r} must be {form.key_rule}")
        if not (math.isfinite(value) and form.value_ok(value)):
            raise _parse_error(text, f"{form.value}({key})={raw!r} must be {form.value_rule}")
        if point in table:
            raise _parse_error(text, f"{form.key} {key!r} appears twice")
        table[point] = value
    try:
        return form.build(table)
    except InvalidArgument as exc:
        raise _parse_error(text, str(exc)) from None


def parse_claim(text: str) -> Claim:
    """A claim from its command-line form (see ``CLAIM_SYNTAX``).

    Raises:
        InvalidArgument: unknown kind, missing/unknown/repeated key, a value that is not a
            number or out of range; the message lists the accepted forms.
    """
    if not isinstance(text, str):
        raise InvalidArgument(f"claim={text!r} must be a string\n{CLAIM_SYNTAX}")
    head, sep, rest = text.strip().partition(":")
    kind = head.strip().lower()
    if not sep:
        raise _parse_error(text, "expected kind:key=value,...")
    items = [part.strip() for part in rest.split(",")] if rest.strip() else []
    pairs: list[tuple[str, str]] = []
    for item in items:
        key, eq, raw = item.partition("=")
        if not eq or not key.strip() or not raw.strip():
            raise _parse_error(text, f"{item!r} is not key=value")
        pairs.append((key.strip(), raw.strip()))
    if kind in _TABLES:
        return _parse_table(text, kind, pairs)
    if kind not in _KINDS:
        raise _parse_error(text, f"unknown kind {head.strip()!r}")
    kind = _KINDS[kind]
    values: dict[str, float] = {}
    for key, raw in pairs:
        canon = _KEYS.get(key.lower())
        if canon is None or canon not in _NEEDED[kind]:
            raise _parse_error(text, f"{kind} takes no key {key!r}")
        if canon in values:
            raise _parse_error(text, f"{key!r} is given twice")
        values[canon] = _parse_number(text, key, raw)
    missing = [k for k in _NEEDED[kind] if k not in values and (kind, k) not in _OPTIONAL]
    if missing:
        raise _parse_error(text, f"{kind} needs {', '.join(missing)}")
    try:
        if kind == "pure":
            return PrivacyClaim(values["epsilon"])
        if kind == "approx":
            return PrivacyClaim(values["epsilon"], values["delta"])
        report = values.get("delta", REPORT_DELTA)
        if kind == "gdp":
            return GaussianDP(values["mu"], report)
        return ZeroConcentratedDP(values["rho"], report)
    except InvalidArgument as exc:
        raise _parse_error(text, str(exc)) from None


def as_claim(claim: Any) -> Claim:
    """A claim given as an object of any kind, its command-line text or its dict.

    Raises:
        InvalidArgument: text or a dict that does not parse, or anything else.
    """
    if isinstance(claim, str):
        return parse_claim(claim)
    if isinstance(claim, Mapping):
        return claim_from_dict(claim)
    if isinstance(claim, Claim):
        return claim
    raise InvalidArgument(
        f"claim={claim!r} must be a claim (PrivacyClaim, GaussianDP, ZeroConcentratedDP, "
        f"RenyiDP, PrivacyProfile, TradeOffDP), its dict or its text\n{CLAIM_SYNTAX}"
    )


def _is_claim(
    claim: PrivacyClaim | GaussianDP | ZeroConcentratedDP | RenyiDP | PrivacyProfile | TradeOffDP,
) -> Claim:
    """Static check (mypy): every kind, PrivacyClaim included, satisfies Claim structurally."""
    return claim
