"""Exact Clopper-Pearson limits and the event-based epsilon lower bound.

If a mechanism is (epsilon, delta)-DP then for every event S and every pair of neighbours,
``P[M(x) in S] <= e^epsilon * P[M(x') in S] + delta``.  Replacing the left probability by a
lower confidence limit (at significance ``split * alpha``) and the right one by an upper limit
(at ``(1 - split) * alpha``) gives

    epsilon_lb = ln((p0_low - delta) / p1_high)

which holds with probability at least 1 - alpha (union bound).  ``split = 0.5`` is the usual
alpha/2 + alpha/2; another split is valid only when it is fixed before the certification counts
are seen (the certifier chooses it on the training split).

Limits are Beta quantiles (``scipy.special.betaincinv`` / ``betainccinv``, the functions behind
``scipy.stats.beta.ppf`` / ``isf`` without their per-call overhead), with the closed forms at
k = 0 and k = n.  These quantiles are wrong for extreme significance levels
(``beta.ppf(1e-200, 5, 96)`` returns 9.6e-22, whose tail probability is 6e-98, not 1e-200;
``beta.isf(5e-301, 4, 4)`` is NaN), so
every limit is checked against the regularized incomplete beta function and, when the check
fails, recomputed by bisection on log p, keeping the conservative end of the bracket.  A limit
is therefore never anti-conservative, whatever alpha is.

For a claim other than one (epsilon, delta) point (``auditor.core.claim_kinds``: a trade-off
curve, zCDP, GDP, Renyi DP, a delta(epsilon) profile), the same corner of the confidence box,
``(p0_low, p1_high)``, is handed to the claim, which says which value of its own parameter the
corner certifies (``claim.certified``): the box lies below the claimed curve exactly when that
value exceeds the claimed one.  Pass ``claim=`` to the functions below for that unit.

References:
    Clopper & Pearson (1934); Jagielski, Ullman, Oprea (NeurIPS 2020) for the event bound;
    Bichsel et al., DP-Sniper (S&P 2021) for the alpha/2 + alpha/2 split.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
from scipy import special

from auditor.core.claim_kinds import is_point
from auditor.core.errors import InvalidArgument

#: relative slack accepted when checking a scipy quantile against the incomplete beta function
_CHECK_RTOL = 1e-9
#: alpha shares on the x side (the lower limit) that the certifier may pick from training data
SPLITS: tuple[float, ...] = (0.5, 0.4, 0.3, 0.2, 0.1, 0.05, 0.6, 0.7, 0.8, 0.9)


def _as_count(name: str, value: object) -> int:
    """An integer count; integral floats are accepted, anything else raises."""
    try:
        as_float = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise InvalidArgument(f"{name}={value!r} must be an integer") from None
    if not as_float.is_integer():
        raise InvalidArgument(f"{name}={value!r} must be an integer")
    return int(as_float) if not isinstance(value, int) else int(value)


def _check_counts(k: int, n: int, alpha: float) -> None:
    if not (isinstance(n, int) and n >= 1):
        raise InvalidArgument(f"n={n!r} must be an integer >= 1")
    if not (isinstance(k, int) and 0 <= k <= n):
        raise InvalidArgument(f"k={k!r} must be an integer in [0, n={n}]")
    if not (0.0 < alpha < 1.0):
        raise InvalidArgument(f"alpha={alpha!r} must be in (0, 1)")


def _bisect_log(tail: Callable[[float], float], alpha: float, increasing: bool) -> float:
    """Find p with ``tail(p) = alpha`` by bisection on log p; return the conservative end.

    ``tail`` is monotone in p.  For a lower limit (``increasing``) the returned p has
    ``tail(p) <= alpha``; for an upper limit the returned p also has ``tail(p) <= alpha``.
    """
    lo, hi = -745.0, 0.0  # log of the smallest subnormal and of 1
    for _ in range(90):
        mid = 0.5 * (lo + hi)
        below = tail(math.exp(mid)) <= alpha
        if below == increasing:
            lo = mid
        else:
            hi = mid
    return math.exp(lo) if increasing else min(1.0, math.exp(hi))


def cp_lower(k: int, n: int, alpha: float) -> float:
    """One-sided lower confidence limit for a binomial proportion, level 1 - alpha.

    ``P[p < cp_lower(K, n, alpha)] <= alpha`` for K ~ Binomial(n, p), whatever p is.
    Raises InvalidArgument for k outside [0, n], n < 1 or alpha outside (0, 1).
    """
    k, n = _as_count("k", k), _as_count("n", n)
    _check_counts(k, n, alpha)
    if k == 0:
        return 0.0
    if k == n:
        return math.exp(math.log(alpha) / n)
    a, b = k, n - k + 1

    def tail(p: float) -> float:  # P[Binomial(n, p) >= k]
        return float(special.betainc(a, b, p))

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        p = float(special.betaincinv(a, b, alpha))
    if math.isfinite(p) and 0.0 <= p < 1.0 and tail(p) <= alpha * (1 + _CHECK_RTOL):
        return p
    return _bisect_log(tail, alpha, increasing=True)


def cp_upper(k: int, n: int, alpha: float) -> float:
    """One-sided upper confidence limit for a binomial proportion, level 1 - alpha.

    ``P[p > cp_upper(K, n, alpha)] <= alpha``; always > 0, so a ratio over it stays finite.
    """
    k, n = _as_count("k", k), _as_count("n", n)
    _check_counts(k, n, alpha)
    if k == n:
        return 1.0
    if k == 0:
        return -math.expm1(math.log(alpha) / n)
    a, b = k + 1, n - k

    def tail(p: float) -> float:  # P[Binomial(n, p) <= k]
        return float(special.betaincc(a, b, p))

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        p = float(special.betainccinv(a, b, alpha))
    if math.isfinite(p) and 0.0 < p <= 1.0 and tail(p) <= alpha * (1 + _CHECK_RTOL):
        return p
    return _bisect_log(tail, alpha, increasing=False)


def cp_lower_array(k: np.ndarray, n: int, alpha: float) -> np.ndarray:
    """Vectorised :func:`cp_lower` for many counts at one ``n`` (used by power computations)."""
    k = np.asarray(k, dtype=np.int64)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        p = special.betaincinv(np.maximum(k, 1), n - k + 1, alpha)
        ok = np.isfinite(p) & (special.betainc(np.maximum(k, 1), n - k + 1, p) <= alpha * 1.000001)
    out = np.where(k == 0, 0.0, np.where(k == n, math.exp(math.log(alpha) / n), p))
    for i in np.flatnonzero(~ok & (k > 0) & (k < n)):
        out[i] = cp_lower(int(k[i]), n, alpha)
    return out


def cp_upper_array(k: np.ndarray, n: int, alpha: float) -> np.ndarray:
    """Vectorised :func:`cp_upper` for many counts at one ``n``."""
    k = np.asarray(k, dtype=np.int64)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        p = special.betainccinv(k + 1, np.maximum(n - k, 1), alpha)
        ok = np.isfinite(p) & (special.betaincc(k + 1, np.maximum(n - k, 1), p) <= alpha * 1.000001)
    out = np.where(k == n, 1.0, np.where(k == 0, -math.expm1(math.log(alpha) / n), p))
    for i in np.flatnonzero(~ok & (k > 0) & (k < n)):
        out[i] = cp_upper(int(k[i]), n, alpha)
    return out


def _check_bound_args(alpha: float, delta: float, split: float) -> None:
    if not (0.0 < alpha < 1.0):
        raise InvalidArgument(f"alpha={alpha!r} must be in (0, 1)")
    if not (0.0 <= delta < 1.0):
        raise InvalidArgument(f"delta={delta!r} must be in [0, 1)")
    if not (0.0 < split < 1.0):
        raise InvalidArgument(f"split={split!r} must be in (0, 1)")


def corner_bounds(lo: np.ndarray, hi: np.ndarray, delta: float, claim: Any = None) -> np.ndarray:
    """What the box corners certify: ``ln((lo - delta) / hi)`` (0 when no loss shows) for a
    point claim, else ``claim.certified(lo, hi)`` in the claim's own parameter."""
    lo, hi = np.asarray(lo, dtype=float), np.asarray(hi, dtype=float)
    if not is_point(claim):
        # a claim may offer a fast stand-in for ranking (predictions only, never a bound)
        one = getattr(claim, "estimate_certified", claim.certified)
        return np.asarray(np.vectorize(one, otypes=[float])(lo, hi), dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        value = np.log((lo - delta) / hi)
    return np.asarray(np.where(lo > delta, np.maximum(value, 0.0), 0.0), dtype=float)


def epsilon_lower_bound(
    k0: int,
    n0: int,
    k1: int,
    n1: int,
    alpha: float,
    delta: float = 0.0,
    split: float = 0.5,
    claim: Any = None,
) -> float:
    """Certified lower bound on epsilon from event counts ``k0/n0`` (on x) and ``k1/n1`` (on x').

    Holds with probability >= 1 - alpha: ``split * alpha`` is spent on the lower limit of
    P[M(x) in S], the rest on the upper limit of P[M(x') in S].  Returns 0.0 when the data
    cannot show any privacy loss, including when the lower limit on x does not exceed delta.
    The result is always finite: an upper limit from finitely many samples is never 0.
    With a ``claim`` that is not a point, the bound is in the claim's parameter instead.

    Raises:
        InvalidArgument: counts outside [0, n], alpha or split outside (0, 1), delta outside [0, 1).
    """
    _check_bound_args(alpha, delta, split)
    p0_low = cp_lower(k0, n0, alpha * split)
    p1_high = cp_upper(k1, n1, alpha * (1.0 - split))
    if not is_point(claim):
        return float(claim.certified(p0_low, p1_high))
    if p0_low <= delta:
        return 0.0
    return max(0.0, math.log((p0_low - delta) / p1_high))


#: above this, e^epsilon overflows a double (and times any upper limit exceeds 1)
MAX_EXP = 700.0


def delta_lower_bound(
    k0: int, n0: int, k1: int, n1: int, alpha: float, epsilon: float, split: float = 0.5
) -> float:
    """Certified lower bound on delta at ``epsilon`` from the same counts and limits as
    :func:`epsilon_lower_bound`: P[M(x) in S] - e^epsilon P[M(x') in S] at the lower limit on x
    and the upper limit on x' (0.0 when that is not positive).

    Both numbers read the same two Clopper-Pearson limits, which hold together with probability
    >= 1 - alpha, so stating this beside the epsilon bound spends no further alpha.  It is the
    bound that shows a leak in delta alone: an output x produces with probability a few times
    delta and x' never, whose epsilon bound alone reads "infinite at this delta".

    Raises:
        InvalidArgument: counts outside [0, n], alpha or split outside (0, 1), epsilon < 0.
    """
    _check_bound_args(alpha, 0.0, split)
    if not epsilon >= 0:
        raise InvalidArgument(f"epsilon={epsilon!r} must be >= 0")
    p0_low = cp_lower(k0, n0, alpha * split)
    p1_high = cp_upper(k1, n1, alpha * (1.0 - split))
    if epsilon > MAX_EXP:  # e^epsilon times a positive upper limit: beyond any probability
        return 0.0
    return max(0.0, p0_low - math.exp(epsilon) * p1_high)


def epsilon_point_estimate(k0: int, n0: int, k1: int, n1: int, delta: float = 0.0) -> float:
    """Plug-in estimate of the privacy loss on this event, with the +0.5 adjustment.

    Computed on the certification (held-out) counts, never on the training split the event was
    chosen on, so it is not inflated by the selection.  The adjustment keeps it finite when an
    event never occurs on one side; it is a number for reports, never used for a verdict.
    """
    p0 = (k0 + 0.5) / (n0 + 0.5)
    p1 = (k1 + 0.5) / (n1 + 0.5)
    if p0 <= delta:
        return 0.0
    return max(0.0, math.log((p0 - delta) / p1))


def predicted_lower_bound(
    p0: float,
    p1: float,
    n: int,
    alpha: float,
    delta: float = 0.0,
    split: float = 0.5,
    claim: Any = None,
) -> float:
    """The bound certification would give if the counts came out at their expected values.

    Used to rank candidate events on training data: a rare event with a huge ratio and a
    common one with a modest ratio certify very differently at a given ``n``.
    """
    k0 = min(n, max(0, round(p0 * n)))
    k1 = min(n, max(0, round(p1 * n)))
    return epsilon_lower_bound(k0, n, k1, n, alpha, delta, split, claim)


def predicted_lower_bounds(
    p0: np.ndarray,
    p1: np.ndarray,
    n: int,
    alpha: float,
    delta: float = 0.0,
    split: float = 0.5,
    claim: Any = None,
) -> np.ndarray:
    """Vectorised :func:`predicted_lower_bound` over arrays of probabilities (same n, alpha)."""
    _check_bound_args(alpha, delta, split)
    k0 = np.clip(np.round(np.asarray(p0, dtype=float) * n), 0, n).astype(np.int64)
    k1 = np.clip(np.round(np.asarray(p1, dtype=float) * n), 0, n).astype(np.int64)
    lo = cp_lower_array(k0, n, alpha * split)
    hi = cp_upper_array(k1, n, alpha * (1.0 - split))
    return corner_bounds(lo, hi, delta, claim)


def best_predicted_lower_bounds(
    p0: np.ndarray,
    p1: np.ndarray,
    n: int,
    alpha: float,
    delta: float = 0.0,
    claim: Any = None,
) -> np.ndarray:
    """Per pair of probabilities, the largest :func:`predicted_lower_bounds` over the alpha
    splits in :data:`SPLITS` (what the pair would certify with its best split)."""
    best: np.ndarray = _bounds_by_split(p0, p1, n, alpha, delta, claim).max(axis=0)
    return best


def best_splits(
    p0: np.ndarray,
    p1: np.ndarray,
    n: int,
    alpha: float,
    delta: float = 0.0,
    claim: Any = None,
) -> np.ndarray:
    """Per pair of probabilities, the alpha share for the x side (from :data:`SPLITS`) with the
    largest predicted bound; 0.5 unless another split is strictly better.

    Call it with probabilities estimated on *training* data only; the returned split is then
    fixed before certification and the bound it is used in stays valid.
    """
    values = _bounds_by_split(p0, p1, n, alpha, delta, claim)
    improved = values.max(axis=0) > values[0] + 1e-12
    best = np.where(improved, np.argmax(values, axis=0), 0)  # index 0 is split 0.5
    return np.asarray(SPLITS)[best]


def _bounds_by_split(
    p0: np.ndarray, p1: np.ndarray, n: int, alpha: float, delta: float, claim: Any
) -> np.ndarray:
    """:func:`predicted_lower_bounds` for each split in :data:`SPLITS`, one row per split."""
    p0, p1 = np.atleast_1d(np.asarray(p0, dtype=float)), np.atleast_1d(np.asarray(p1, dtype=float))
    return np.stack([predicted_lower_bounds(p0, p1, n, alpha, delta, s, claim) for s in SPLITS])


def best_split(p0: float, p1: float, n: int, alpha: float, delta: float = 0.0) -> float:
    """Scalar :func:`best_splits`."""
    return float(best_splits(np.array([p0]), np.array([p1]), n, alpha, delta)[0])
