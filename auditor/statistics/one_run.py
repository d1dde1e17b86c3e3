"""One-run auditing: an epsilon lower bound from the guesses on m canaries of a single training.

Each of ``m`` canaries is included in the training set independently with probability 1/2.
After the one training, the auditor guesses "in" or "out" for ``r`` of them (abstaining on
the rest); ``v`` guesses are right.  Under (epsilon, delta)-DP the number of right guesses is
at most a Binomial(r, e^eps / (1 + e^eps)) (epsilon-DP randomized response) up to a delta
term, which gives a p-value for the hypothesis "the training is (epsilon, delta)-DP", and the
lower bound is the largest epsilon that hypothesis is rejected at.

The analysis goes through DP's generalisation property, not group privacy, so the m canaries
cost no factor of m in epsilon; the price is that the bound is capped by the number of
guesses: with delta = 0 and every one of r guesses right the p-value is q^r, so the bound is
at most logit(alpha^(1/r)) (3.49, 5.81, 8.11 for r = 100, 1,000, 10,000 at alpha = 0.05).
The guesses must be fixed by a rule that does not look at which canaries were included.

References:
    Steinke, Nasr, Jagielski, "Privacy auditing with one (1) training run" (NeurIPS 2023),
    Theorem 3.1 and the p-value of its Appendix D.

Assumptions:
    The inclusions are independent fair coins drawn by the auditor; nothing else about the
    training is trusted.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import stats

from auditor.core.errors import InvalidArgument

__all__ = ["one_run_epsilon", "one_run_p_value"]

#: the largest epsilon searched (a bound here means "at least this")
MAX_EPSILON = 64.0


def _check(m: int, r: int, v: int, delta: float) -> None:
    for name, x in (("m", m), ("r", r), ("v", v)):
        if isinstance(x, bool) or not isinstance(x, int | np.integer):
            raise InvalidArgument(f"{name}={x!r} must be an integer")
    if not 0 <= v <= r <= m:
        raise InvalidArgument(f"need 0 <= v <= r <= m, got v={v!r}, r={r!r}, m={m!r}")
    if not (isinstance(delta, int | float) and 0.0 <= delta <= 1.0):
        raise InvalidArgument(f"delta={delta!r} must be a number in [0, 1]")


def one_run_p_value(m: int, r: int, v: int, epsilon: float, delta: float = 0.0) -> float:
    """P-value of "(epsilon, delta)-DP" given ``v`` right guesses out of ``r`` on ``m`` canaries.

    ``P[Binomial(r, q) >= v] + 2 m delta max_{1<=i<=v} P[v - i <= Binomial(r, q) < v] / i``
    with ``q = e^eps / (1 + e^eps)``, capped at 1 (Steinke et al., Theorem 3.1).

    Raises:
        InvalidArgument: not ``0 <= v <= r <= m``, epsilon < 0 or not finite, delta outside
            [0, 1].
    """
    _check(m, r, v, delta)
    if not (math.isfinite(epsilon) and epsilon >= 0.0):
        raise InvalidArgument(f"epsilon={epsilon!r} must be a finite number >= 0")
    q = 1.0 / (1.0 + math.exp(-epsilon))
    beta = float(stats.binom.sf(v - 1, r, q))
    term = 0.0
    if delta > 0.0 and v > 0:
        below = stats.binom.pmf(np.arange(v - 1, -1, -1), r, q)  # P[B = v - i], i = 1..v
        term = float(np.max(np.cumsum(below) / np.arange(1, v + 1)))
    return min(1.0, beta + term * delta * 2.0 * m)


def one_run_epsilon(m: int, r: int, v: int, delta: float = 0.0, alpha: float = 0.05) -> float:
    """The largest epsilon whose (epsilon, ``delta``)-DP the guesses reject at level ``alpha``.

    A lower bound on the training's epsilon at ``delta`` that holds with probability at least
    ``1 - alpha`` (0.0 when even epsilon = 0 is not rejected; :data:`MAX_EPSILON` when every
    epsilon searched is).  Bisection to 1e-9: the p-value is non-decreasing in epsilon.

    Raises:
        InvalidArgument: as :func:`one_run_p_value`, or alpha outside (0, 1).
    """
    _check(m, r, v, delta)
    if not (isinstance(alpha, int | float) and 0.0 < alpha < 1.0):
        raise InvalidArgument(f"alpha={alpha!r} must be a number in (0, 1)")
    if one_run_p_value(m, r, v, 0.0, delta) >= alpha:
        return 0.0
    if one_run_p_value(m, r, v, MAX_EPSILON, delta) < alpha:
        return MAX_EPSILON
    lo, hi = 0.0, MAX_EPSILON
    while hi - lo > 1e-9:
        mid = (lo + hi) / 2.0
        if one_run_p_value(m, r, v, mid, delta) < alpha:
            lo = mid
        else:
            hi = mid
    return lo
