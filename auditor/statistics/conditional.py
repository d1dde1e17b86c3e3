"""The conditional test of an event's rate ratio, for outputs drawn in Poisson-sized samples.

Draw ``N0 ~ Poisson(mean0)`` outputs on x and ``N1 ~ Poisson(mean1)`` on x', the sizes
independent of each other and of the outputs.  The counts of an event S are then independent
``Poisson(mean0 * p0)`` and ``Poisson(mean1 * p1)``, and given their sum k,

    K0 ~ Binomial(k, theta),   theta = mean0 * p0 / (mean0 * p0 + mean1 * p1),

exactly, whatever p0 and p1 are.  Pure epsilon-DP gives ``p0 <= e^epsilon * p1``, i.e.
``theta <= mean0 e^epsilon / (mean0 e^epsilon + mean1)``, so the one-sided Clopper-Pearson
lower limit of theta at level 1 - alpha certifies

    epsilon >= ln(theta_low / (1 - theta_low)) + ln(mean1 / mean0)

with probability at least 1 - alpha.  No union bound: the two-limit box of
:func:`auditor.statistics.clopper_pearson.epsilon_lower_bound` spends alpha/2 on each side.
For a rare event the distance from the bound to the event's true log-ratio is about
``z_alpha * sqrt(2 / k)`` here against ``2 * z_(alpha/2) / sqrt(k)`` for the box (k the count on
either side): 0.59 of it at alpha = 0.05, so the box needs about 2.8 times the outputs for
the same bound.  ``bench/bench_conditional_test.py`` measures both, and the size of the error
when the sizes are fixed instead of Poisson (the conditional law is then not binomial).

Pure epsilon only: ``p0 <= e^epsilon p1 + delta`` has no ratio to condition on.

References: Przyborowski & Wilenski (Biometrika 1940) for the conditional test of two Poisson
rates; Lehmann & Romano, *Testing Statistical Hypotheses* (3rd ed., Sec. 4.5).
"""

from __future__ import annotations

import math
import numbers
import warnings

import numpy as np
from scipy import special

from auditor.core.errors import InvalidArgument
from auditor.statistics.clopper_pearson import cp_lower, cp_upper

#: the ``EpsilonEstimate.estimator`` of a bound certified by this test
CONDITIONAL_ESTIMATOR = "poisson-conditional"


def _check(mean0: float, mean1: float, alpha: float) -> None:
    for name, mean in (("mean0", mean0), ("mean1", mean1)):
        if isinstance(mean, bool) or not isinstance(mean, numbers.Real) or not mean > 0:
            raise InvalidArgument(f"{name}={mean!r} must be a positive number of outputs")
        if not math.isfinite(mean):
            raise InvalidArgument(f"{name}={mean!r} must be finite")
    if not (0.0 < alpha < 1.0):
        raise InvalidArgument(f"alpha={alpha!r} must be in (0, 1)")


def conditional_lower_bound(k0: int, k1: int, mean0: float, mean1: float, alpha: float) -> float:
    """Certified lower bound on epsilon from counts ``k0`` (on x) and ``k1`` (on x') of
    Poisson-sized samples with means ``mean0`` and ``mean1``, at level 1 - ``alpha``.

    The means are the Poisson parameters the sizes were drawn with, not the sizes drawn.
    Returns 0.0 when the counts show no loss (``k0 == 0`` included); finite when ``k1 == 0``
    (``theta_low = alpha ** (1 / k0)``), growing with ``k0``.

    Raises:
        InvalidArgument: negative or non-integral counts, non-positive means, alpha outside (0, 1).
    """
    _check_counts(k0, k1, mean0, mean1, alpha)
    if k0 == 0:
        return 0.0
    theta = cp_lower(int(k0), int(k0 + k1), alpha)
    return max(0.0, _log_ratio(theta, mean0, mean1))


def conditional_upper_bound(k0: int, k1: int, mean0: float, mean1: float, alpha: float) -> float:
    """The same test's upper limit on the event's log-ratio ln(p0 / p1) at level 1 - ``alpha``
    (infinite when ``k1 == 0``, -inf when ``k0 == 0`` and ``k1 > 0`` cannot bound it below):
    with :func:`conditional_lower_bound`, the interval a report prints for the event."""
    _check_counts(k0, k1, mean0, mean1, alpha)
    if k1 == 0:
        return math.inf
    return _log_ratio(cp_upper(int(k0), int(k0 + k1), alpha), mean0, mean1)


def _check_counts(k0: int, k1: int, mean0: float, mean1: float, alpha: float) -> None:
    _check(mean0, mean1, alpha)
    for name, k in (("k0", k0), ("k1", k1)):
        if isinstance(k, bool) or not isinstance(k, int | np.integer) or k < 0:
            raise InvalidArgument(f"{name}={k!r} must be a non-negative integer")


def _log_ratio(theta: float, mean0: float, mean1: float) -> float:
    """ln(p0 / p1) at x's share ``theta`` of the pooled count (infinite at the ends)."""
    if theta >= 1.0:
        return math.inf
    if theta <= 0.0:
        return -math.inf
    return math.log(theta) - math.log1p(-theta) + math.log(mean1 / mean0)


def predicted_conditional_bounds(
    p0: np.ndarray, p1: np.ndarray, n: float, alpha: float
) -> np.ndarray:
    """The bound :func:`conditional_lower_bound` would give with the counts at their expected
    values ``n * p`` (both means ``n``): for ranking events and comparing tests on training
    data, never a certificate."""
    _check(n, n, alpha)
    k0 = np.round(np.atleast_1d(np.asarray(p0, dtype=float)) * n)
    k1 = np.round(np.atleast_1d(np.asarray(p1, dtype=float)) * n)
    with warnings.catch_warnings(), np.errstate(divide="ignore", invalid="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)
        theta = special.betaincinv(np.maximum(k0, 1), k1 + 1, alpha)
        value = np.log(theta) - np.log1p(-theta)
    return np.asarray(np.where((k0 > 0) & np.isfinite(value), np.maximum(value, 0.0), 0.0))
