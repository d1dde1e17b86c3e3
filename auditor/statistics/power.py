"""What a "no violation found" could have detected: exact binomial power of the certification.

For the best event of an audit, with probability ``p1`` on its less likely side, certification
with ``n`` fresh samples per side at significance ``alpha`` reports a violation when
``ln((CP_lo(K0) - delta) / CP_up(K1)) > epsilon_claim``.  If the mechanism's true privacy loss
on this event were ``epsilon`` (so ``p0 = min(1, e^epsilon * p1 + delta)``), K0 ~ Bin(n, p0)
and K1 ~ Bin(n, p1) are independent and the detection probability is an exact finite sum:

    P = sum_k1  P[K1 = k1] * P[K0 >= k0*(k1)],   k0*(k1) = min{k0 : CP_lo(k0) > delta + e^claim CP_up(k1)}

(the k1 tails beyond 1e-12 are dropped, which only lowers P).  The detectable epsilon is the
smallest epsilon with P >= the target probability, found by bisection (P increases with epsilon).

For the conditional test on Poisson-sized samples (``conditional=True``, pure epsilon:
``auditor.statistics.conditional``) the counts are K0 ~ Poisson(n p0) and K1 ~ Poisson(n p1),
and k0*(k1) is the smallest k0 whose lower limit on x's share of the k0 + k1 pooled outputs
exceeds ``e^claim / (1 + e^claim)``; the sum is the same.

Assumptions:
    The statement is about *this* event at this n and alpha, with p1 held at its estimate
    from the held-out counts; other events or a larger budget may detect smaller violations.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from scipy import special, stats

from auditor.core.errors import InvalidArgument
from auditor.statistics.clopper_pearson import MAX_EXP, cp_lower_array, cp_upper_array

#: target detection probability of the power statement
DEFAULT_PROBABILITY = 0.8
_TAIL = 1e-12


def _first_k0_above(c: np.ndarray, n: int, alpha: float) -> np.ndarray:
    """Smallest k0 in [0, n + 1] with ``CP_lo(k0, n, alpha) > c`` (n + 1 when none).

    CP_lo increases with k0, so the answer is the one point where ``CP_lo(k0) > c`` turns
    true, whatever bracket the bisection starts from.  When ``c`` does not decrease (it grows
    with k1), neither do the answers: they are found on every ``stride``-th entry first, and
    each entry in between is bisected only between its two neighbours' answers, halving the
    stride until every entry has its own (a few steps each instead of ``log2(n)``).
    """
    m = len(c)
    if m < 2 or np.any(np.diff(c) < 0):
        return _bisect_k0(
            c, np.zeros(m, dtype=np.int64), np.full(m, n + 1, dtype=np.int64), n, alpha
        )
    k0 = np.zeros(m, dtype=np.int64)
    stride = 1 << ((m - 1).bit_length() - 1)  # the largest power of two below m
    first = np.unique(np.r_[np.arange(0, m, stride), m - 1])
    k0[first] = _bisect_k0(
        c[first], np.zeros(len(first), dtype=np.int64), np.full(len(first), n + 1), n, alpha
    )
    while stride > 1:
        stride //= 2
        # between answered neighbours at 2 * stride apart (the last entry is answered)
        mid = np.arange(stride, m - 1, 2 * stride)
        # c[mid - stride] <= c[mid] <= c[right], so CP_lo at the left answer's predecessor is
        # at most c[mid] (answers are at least 1), and at the right answer above it (or n + 1)
        right = np.minimum(mid + stride, m - 1)
        k0[mid] = _bisect_k0(c[mid], k0[mid - stride] - 1, k0[right], n, alpha)
    return k0


def _bisect_k0(c: np.ndarray, lo: np.ndarray, hi: np.ndarray, n: int, alpha: float) -> np.ndarray:
    """:func:`_first_k0_above` by bisection in the brackets ``(lo, hi]``."""
    lo, hi = lo.astype(np.int64), hi.astype(np.int64)
    # invariants: CP_lo(lo) <= c (CP_lo(0) = 0); hi = n + 1 or CP_lo(hi) > c
    while True:
        active = hi - lo > 1
        if not active.any():
            return hi
        mid = (lo + hi) // 2
        above = np.zeros(len(c), dtype=bool)
        idx = np.flatnonzero(active)
        above[idx] = cp_lower_array(mid[idx], n, alpha) > c[idx]
        hi = np.where(active & above, mid, hi)
        lo = np.where(active & ~above, mid, lo)


def _check(p1: float, n: int, alpha: float, split: float) -> None:
    if not (0.0 < p1 < 1.0):
        raise InvalidArgument(f"p1={p1!r} must be in (0, 1)")
    if not (isinstance(n, int) and n >= 1):
        raise InvalidArgument(f"n={n!r} must be an integer >= 1")
    if not (0.0 < alpha < 1.0 and 0.0 < split < 1.0):
        raise InvalidArgument(f"alpha={alpha!r} and split={split!r} must be in (0, 1)")


def _critical_counts(
    p1: float, n: int, alpha: float, epsilon_claim: float, delta: float, split: float
) -> tuple[np.ndarray, np.ndarray]:
    """P[K1 = k1] and k0*(k1) over the bulk of K1's distribution; neither depends on epsilon."""
    lo = int(stats.binom.ppf(_TAIL, n, p1))
    hi = int(stats.binom.isf(_TAIL, n, p1))
    k1 = np.arange(max(0, lo), min(n, hi) + 1)
    weights = stats.binom.pmf(k1, n, p1)
    c = delta + math.exp(epsilon_claim) * cp_upper_array(k1, n, alpha * (1.0 - split))
    return weights, _first_k0_above(np.minimum(c, 2.0), n, alpha * split)


def _conditional_critical_counts(
    p1: float, n: int, alpha: float, epsilon_claim: float
) -> tuple[np.ndarray, np.ndarray]:
    """P[K1 = k1] (Poisson) and the smallest k0 in [1, n + 1] whose conditional bound exceeds
    the claim (n + 1: none, read as never reached, which only lowers the power).  The bound
    exceeds it exactly when ``P[Binomial(k0 + k1, theta) >= k0] < alpha`` at the claim's
    share ``theta``, i.e. ``betainc(k0, k1 + 1, theta) < alpha``, which falls as k0 grows."""
    lam = n * p1
    k1 = np.arange(int(stats.poisson.ppf(_TAIL, lam)), int(stats.poisson.isf(_TAIL, lam)) + 1)
    weights = stats.poisson.pmf(k1, lam)
    theta = 1.0 / (1.0 + math.exp(-epsilon_claim))
    lo, hi = np.zeros(len(k1), dtype=np.int64), np.full(len(k1), n + 1, dtype=np.int64)
    while np.any(hi - lo > 1):  # invariant: lo fails (or is 0), hi passes (or is n + 1)
        mid = (lo + hi) // 2
        passes = special.betainc(np.maximum(mid, 1), k1 + 1, theta) < alpha
        hi, lo = np.where(passes, mid, hi), np.where(passes, lo, mid)
    return weights, hi


def _critical(
    p1: float,
    n: int,
    alpha: float,
    epsilon_claim: float,
    delta: float,
    split: float,
    conditional: bool,
) -> tuple[np.ndarray, np.ndarray]:
    """The critical counts of the test in use: the box's or the conditional test's."""
    if conditional:
        return _conditional_critical_counts(p1, n, alpha, epsilon_claim)
    return _critical_counts(p1, n, alpha, epsilon_claim, delta, split)


def _probability(
    epsilon: float,
    p1: float,
    n: int,
    delta: float,
    weights: np.ndarray,
    k0_star: np.ndarray,
    conditional: bool = False,
) -> float:
    p0 = min(1.0, math.exp(epsilon) * p1 + delta)
    tail = (
        stats.poisson.sf(k0_star - 1, n * p0) if conditional else stats.binom.sf(k0_star - 1, n, p0)
    )
    reach = np.where(k0_star <= n, tail, 0.0)
    return float(min(1.0, np.sum(weights * reach)))


def detection_probability(
    epsilon: float,
    p1: float,
    n: int,
    alpha: float,
    epsilon_claim: float,
    delta: float = 0.0,
    split: float = 0.5,
    conditional: bool = False,
) -> float:
    """Exact probability that certification exceeds ``epsilon_claim`` if the true loss is ``epsilon``.

    Raises:
        InvalidArgument: p1 outside (0, 1), n < 1, alpha or split outside (0, 1).
    """
    _check(p1, n, alpha, split)
    weights, k0_star = _critical(p1, n, alpha, epsilon_claim, delta, split, conditional)
    return _probability(epsilon, p1, n, delta, weights, k0_star, conditional)


def detectable_epsilon(
    p1: float,
    n: int,
    alpha: float,
    epsilon_claim: float,
    delta: float = 0.0,
    split: float = 0.5,
    probability: float = DEFAULT_PROBABILITY,
    tol: float = 1e-3,
    conditional: bool = False,
) -> float | None:
    """Smallest true epsilon this event would be caught at with ``probability``, or None.

    None means even ``p0 = 1`` (the largest loss this event can carry with this ``p1``) is not
    caught with that probability: the event is too rare for this ``n``.  The value returned is
    the upper end of the final bisection bracket, so it never overstates the power.
    ``conditional``: for the conditional test on Poisson-sized samples (delta 0).
    """
    if not (0.0 < probability < 1.0):
        raise InvalidArgument(f"probability={probability!r} must be in (0, 1)")
    top = math.log((1.0 - delta) / p1) if p1 < 1.0 - delta else epsilon_claim
    if top <= epsilon_claim:
        return None

    _check(p1, n, alpha, split)
    weights, k0_star = _critical(p1, n, alpha, epsilon_claim, delta, split, conditional)

    def power(eps: float) -> float:
        return _probability(eps, p1, n, delta, weights, k0_star, conditional)

    if power(top) < probability:
        return None
    lo, hi = epsilon_claim, top
    while hi - lo > tol * max(1.0, epsilon_claim):
        mid = 0.5 * (lo + hi)
        if power(mid) >= probability:
            hi = mid
        else:
            lo = mid
    return hi


def _why_undetectable(p1: float, no_room: bool) -> str:
    """Why no true loss on this event would be caught: ``no_room`` when even probability 1 on
    its likelier side stays within the claim (the event is too likely, whatever the budget; an
    event never seen on its less likely side does not count: its estimate is a stand-in);
    otherwise the budget is too small for it -- "too rare" only when it is."""
    if no_room:
        return (
            "is too likely on its less likely side to carry a loss above the claim (even "
            "probability 1 on its likelier side would not exceed it)"
        )
    return "is too rare" if p1 < 0.5 else "leaves too little room above the claim"


#: a claim is "near the ceiling" when refuting it takes an event this likely on one side
REACH_PROBABILITY = 0.05


def epsilon_ceiling(n: int, alpha: float, delta: float = 0.0, split: float = 0.5) -> float:
    """The largest epsilon any single-event test certifies on ``n`` outputs per side: every
    output of one neighbour in the event, none of the other's.  It grows only as ln n (about
    ln(n / ln(1/alpha))), so a large claimed epsilon is beyond a black-box test's reach."""
    return _ceiling_and_zero_side(n, alpha, delta, split)[0]


def _ceiling_and_zero_side(n: int, alpha: float, delta: float, split: float) -> tuple[float, float]:
    """:func:`epsilon_ceiling`, and the upper limit of an event never seen on ``n`` outputs."""
    low = float(cp_lower_array(np.array([n]), n, alpha * split)[0])
    high = float(cp_upper_array(np.array([0]), n, alpha * (1.0 - split))[0])
    return (math.log((low - delta) / high) if low > delta else 0.0), high


def reach_sentence(
    n: int, alpha: float, epsilon_claim: float, delta: float = 0.0, split: float = 0.5
) -> str:
    """What a "no violation" is worth when the claim is near the budget's ceiling: the smallest
    likelier-side probability of an event that could refute it (never seen on the other side),
    and the ceiling; "" when refuting the claim needs no event more likely than
    ``REACH_PROBABILITY``."""
    ceiling, high = _ceiling_and_zero_side(n, alpha, delta, split)
    if epsilon_claim >= ceiling:
        return (
            f"; no single-event test on {n:,} outputs per side certifies epsilon above "
            f"{ceiling:.3g} at this significance, so this claim is beyond a black-box test's "
            "reach at this budget (the ceiling grows only as ln n)"
        )
    needed = min(1.0, math.exp(epsilon_claim) * high + delta)
    if needed < REACH_PROBABILITY:
        return ""
    return (
        f"; at this budget a violation of this claim shows only on an event of probability "
        f"≥ {needed:.2g} on one side that the other (almost) never shows, and no event "
        f"certifies epsilon above {ceiling:.3g}: a leak further out in a tail (a Gaussian calibrated "
        "by the classic formula at a large epsilon, say) is beyond a black-box test here"
    )


def power_statement(
    event: str,
    k1: int,
    n1: int,
    n: int,
    alpha: float,
    epsilon_claim: float,
    delta: float = 0.0,
    split: float = 0.5,
    probability: float = DEFAULT_PROBABILITY,
    conditional: bool = False,
) -> dict[str, Any]:
    """The ``AdapterResult.power`` dict for a "no violation found" verdict.

    ``k1`` of ``n1`` is the held-out count on the event's less likely side; the estimate
    ``(k1 + 0.5) / (n1 + 1)`` stands in for its probability (finite also when k1 = 0).
    ``n`` and ``alpha`` are the per-side size and significance of the final certification look
    (``conditional``: its test, the conditional one on Poisson-sized samples of mean ``n``).
    """
    p1 = (k1 + 0.5) / (n1 + 1.0)
    eps = detectable_epsilon(
        p1, n, alpha, epsilon_claim, delta, split, probability, conditional=conditional
    )
    where = f"event {event!r} (probability ≈ {p1:.3g} on its less likely side), n = {n:,} per side, significance {alpha:.3g}"
    if eps is None:
        # no p0 <= 1 exceeds the claim when p1 >= (1 - delta) e^-eps
        why = _why_undetectable(p1, k1 > 0 and p1 * math.exp(epsilon_claim) + delta >= 1.0)
        statement = (
            f"no violation found; the best event, {where}, {why} to catch any violation "
            f"with probability {probability:g} at this budget"
        ) + reach_sentence(n, alpha, epsilon_claim, delta, split)
        return {"epsilon_detectable": None, "probability": probability, "statement": statement}
    statement = (
        f"no violation found; a true ε ≥ {eps:.3g} on the best event would have been caught with "
        f"probability ≥ {probability:g} ({where})"
    ) + reach_sentence(n, alpha, epsilon_claim, delta, split)
    return {
        "epsilon_detectable": round(eps, 6),
        "probability": probability,
        "p1": p1,
        "n": n,
        "alpha": alpha,
        "statement": statement,
    }


def _claim_critical_counts(
    p1: float, n: int, alpha: float, claim: Any, split: float
) -> tuple[np.ndarray, np.ndarray]:
    """P[K1 = k1] and k0*(k1) = the smallest k0 whose box corner violates ``claim``."""
    lo = int(stats.binom.ppf(_TAIL, n, p1))
    hi = int(stats.binom.isf(_TAIL, n, p1))
    k1 = np.arange(max(0, lo), min(n, hi) + 1)
    weights = stats.binom.pmf(k1, n, p1)
    upper = cp_upper_array(k1, n, alpha * (1.0 - split))
    k0_star = np.empty(len(k1), dtype=np.int64)

    def violates(k0: int, u: float) -> bool:
        return bool(claim.violated(float(cp_lower_array(np.array([k0]), n, alpha * split)[0]), u))

    # violated(., u) is monotone in the lower limit, and a larger upper limit u needs a larger
    # k0: so k0*(k1) is non-decreasing and each search starts where the last one ended,
    # galloping up from it (a few exact corner tests per k1 instead of a bisection of [0, n])
    low = -1  # invariant: k0 = low does not violate at the current u (nor at any smaller one)
    for i, u in enumerate(upper):
        step, high = 1, low + 1
        while high <= n and not violates(high, u):
            low, step = high, 2 * step
            high = low + step
        high = min(high, n + 1)
        while high - low > 1:  # low does not violate, high does (or is n + 1)
            mid = (low + high) // 2
            if violates(mid, u):
                high = mid
            else:
                low = mid
        k0_star[i] = high
    return weights, k0_star


def claim_power_statement(
    event: str,
    k1: int,
    n1: int,
    n: int,
    alpha: float,
    claim: Any,
    split: float = 0.5,
    probability: float = DEFAULT_PROBABILITY,
    tol: float = 1e-3,
) -> dict[str, Any]:
    """:func:`power_statement` for a claim that is a curve (zCDP, GDP, RDP, a profile, f-DP).

    If the mechanism's true parameter were ``v``, the event could be as likely as
    ``p0 = 1 - f_v(p1)`` on its likelier side (``f_v``: the trade-off curve of the claim with
    parameter ``v``); the detectable value is the smallest ``v`` caught with ``probability``
    by the same certification (the corner test of ``claim.violated``), found by bisection.
    """
    p1 = (k1 + 0.5) / (n1 + 1.0)
    _check(p1, n, alpha, split)
    weights, k0_star = _claim_critical_counts(p1, n, alpha, claim, split)

    def power(v: float) -> float:
        p0 = float(np.clip(1.0 - claim.with_value(v).tradeoff(p1), 0.0, 1.0))
        reach = np.where(k0_star <= n, stats.binom.sf(k0_star - 1, n, p0), 0.0)
        return float(min(1.0, np.sum(weights * reach)))

    where = (
        f"event {event!r} (probability ≈ {p1:.3g} on its less likely side), n = {n:,} per "
        f"side, significance {alpha:.3g}"
    )
    value, top = claim.value, claim.value
    found = False
    for _ in range(12):  # the true value could be far above the claim: widen the bracket
        top *= 2.0
        if power(top) >= probability:
            found = True
            break
    if not found:
        why = _why_undetectable(p1, k1 > 0 and float(claim.tradeoff(p1)) <= 0.0)
        statement = (
            f"no violation found; the best event, {where}, {why} to catch any violation of "
            f"{claim.describe()} with probability {probability:g} at this budget"
        )
        return {"value_detectable": None, "probability": probability, "statement": statement}
    lo, hi = value, top
    while hi - lo > tol * max(1.0, value):
        mid = 0.5 * (lo + hi)
        if power(mid) >= probability:
            hi = mid
        else:
            lo = mid
    statement = (
        f"no violation found; a true {claim.parameter} ≥ {hi:.3g} (claimed {value:g}) on the best "
        f"event would have been caught with probability ≥ {probability:g} ({where})"
    )
    return {
        "parameter": claim.parameter,
        "value_detectable": round(hi, 6),
        "probability": probability,
        "p1": p1,
        "n": n,
        "alpha": alpha,
        "statement": statement,
    }


def detectable_delta(
    n: int,
    alpha: float,
    epsilon: float,
    delta: float,
    probability: float = DEFAULT_PROBABILITY,
) -> float | None:
    """The smallest probability p of an output one neighbour never produces that a test on
    ``n`` outputs per side at significance ``alpha`` (even split) certifies as exceeding
    ``delta`` at ``epsilon`` with probability at least ``probability``: K0 ~ Bin(n, p), K1 = 0,
    and the test passes when CP_lo(K0) - e^epsilon CP_up(0) > delta.  None when no p <= 1
    reaches it at this n (the upper limit of a zero count alone outweighs the room left).

    What a "no violation found" says about leaks in delta alone (a key, a category, a
    threshold crossing on one side only): the budget an audit needs to see them grows as
    e^epsilon / delta."""
    if n < 1 or not 0 < alpha < 1:
        raise InvalidArgument(f"n={n!r} must be >= 1 and alpha={alpha!r} in (0, 1)")
    if epsilon > MAX_EXP:
        return None  # e^epsilon times the upper limit of a zero count exceeds 1
    hi = float(cp_upper_array(np.array([0]), n, alpha / 2)[0])
    need = delta + math.exp(epsilon) * hi
    if need >= 1 or float(cp_lower_array(np.array([n]), n, alpha / 2)[0]) <= need:
        return None
    lo_k, hi_k = 0, n  # the test fails at lo_k and passes at hi_k (the lower limit rises with k)
    while hi_k - lo_k > 1:
        mid = (lo_k + hi_k) // 2
        if float(cp_lower_array(np.array([mid]), n, alpha / 2)[0]) > need:
            hi_k = mid
        else:
            lo_k = mid
    k_star = hi_k
    # the smallest p with P[Bin(n, p) >= k_star] >= probability
    lo_p, hi_p = 0.0, 1.0
    for _ in range(60):
        mid_p = (lo_p + hi_p) / 2
        if stats.binom.sf(k_star - 1, n, mid_p) >= probability:
            hi_p = mid_p
        else:
            lo_p = mid_p
    return hi_p


def outputs_for_one_sided(
    epsilon: float,
    delta: float,
    multiple: float,
    alpha: float,
    most: int,
    probability: float = DEFAULT_PROBABILITY,
) -> int | None:
    """The fewest outputs per side (a power of two, at most ``most``) on which an output one
    neighbour never shows, of probability ``multiple`` x ``delta``, is certified above delta
    at ``epsilon`` with probability ``probability`` (:func:`detectable_delta`): about
    e^epsilon ln(1/alpha) / ((multiple - 1) delta), what a leak in delta alone costs to see.
    None when more than ``most`` would be needed."""
    n = 1024
    while n <= most:
        p = detectable_delta(n, alpha, epsilon, delta, probability)
        if p is not None and p <= multiple * delta:
            return n
        n *= 2
    return None
