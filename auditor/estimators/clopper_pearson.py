"""Exact Clopper-Pearson limits and the event-based epsilon lower bound.

If a mechanism is (epsilon, delta)-DP then for every event S and every pair of neighbours,
``P[M(x) in S] <= e^epsilon * P[M(x') in S] + delta``.  Replacing the left probability by a
lower confidence limit and the right one by an upper limit gives

    epsilon_lb = ln((p0_low - delta) / p1_high)

which holds with probability at least 1 - alpha when each limit is taken at alpha / 2
(union bound).  Limits are the exact Beta quantiles from scipy, with the closed forms at
k = 0 and k = n so that tiny significance levels stay exact.

References:
    Clopper & Pearson (1934); Jagielski, Ullman, Oprea (NeurIPS 2020) for the event bound;
    Bichsel et al., DP-Sniper (S&P 2021) for the alpha/2 + alpha/2 split.
"""

from __future__ import annotations

import math

from scipy import stats

from auditor.errors import InvalidArgument


def _check_counts(k: int, n: int, alpha: float) -> None:
    if not (isinstance(n, int) and n >= 1):
        raise InvalidArgument(f"n={n!r} must be an integer >= 1")
    if not (isinstance(k, int) and 0 <= k <= n):
        raise InvalidArgument(f"k={k!r} must be an integer in [0, n={n}]")
    if not (0.0 < alpha < 1.0):
        raise InvalidArgument(f"alpha={alpha!r} must be in (0, 1)")


def cp_lower(k: int, n: int, alpha: float) -> float:
    """One-sided lower confidence limit for a binomial proportion, level 1 - alpha.

    ``P[p < cp_lower(K, n, alpha)] <= alpha`` for K ~ Binomial(n, p), whatever p is.
    """
    k, n = int(k), int(n)
    _check_counts(k, n, alpha)
    if k == 0:
        return 0.0
    if k == n:
        return math.exp(math.log(alpha) / n)
    return float(stats.beta.ppf(alpha, k, n - k + 1))


def cp_upper(k: int, n: int, alpha: float) -> float:
    """One-sided upper confidence limit for a binomial proportion, level 1 - alpha."""
    k, n = int(k), int(n)
    _check_counts(k, n, alpha)
    if k == n:
        return 1.0
    if k == 0:
        return -math.expm1(math.log(alpha) / n)
    return float(stats.beta.isf(alpha, k + 1, n - k))


def epsilon_lower_bound(
    k0: int, n0: int, k1: int, n1: int, alpha: float, delta: float = 0.0
) -> float:
    """Certified lower bound on epsilon from event counts ``k0/n0`` (on x) and ``k1/n1`` (on x').

    Holds with probability >= 1 - alpha (alpha/2 on each side).  Returns 0.0 when the data
    cannot show any privacy loss (including when the lower limit on x does not exceed delta).
    The result is always finite: an upper limit from finitely many samples is never 0.
    """
    if not (0.0 <= delta < 1.0):
        raise InvalidArgument(f"delta={delta!r} must be in [0, 1)")
    p0_low = cp_lower(k0, n0, alpha / 2)
    p1_high = cp_upper(k1, n1, alpha / 2)
    if p0_low <= delta:
        return 0.0
    return max(0.0, math.log((p0_low - delta) / p1_high))


def epsilon_point_estimate(k0: int, n0: int, k1: int, n1: int, delta: float = 0.0) -> float:
    """Plug-in estimate of the privacy loss on this event, with the +0.5 adjustment.

    The adjustment keeps it finite when an event never occurs on one side; it is a point
    estimate for reports, never used for a verdict.
    """
    p0 = (k0 + 0.5) / (n0 + 0.5)
    p1 = (k1 + 0.5) / (n1 + 0.5)
    if p0 <= delta:
        return 0.0
    return max(0.0, math.log((p0 - delta) / p1))


def predicted_lower_bound(p0: float, p1: float, n: int, alpha: float, delta: float = 0.0) -> float:
    """The bound certification would give if the counts came out at their expected values.

    Used to rank candidate events on training data: a rare event with a huge ratio and a
    common one with a modest ratio certify very differently at a given ``n``.
    """
    k0 = min(n, max(0, round(p0 * n)))
    k1 = min(n, max(0, round(p1 * n)))
    return epsilon_lower_bound(k0, n, k1, n, alpha, delta)
