"""Epsilon from exact output probabilities (white-box: the adapter's own probability oracle).

When an implementation reports its own output distribution (the ``probabilities(query)``
extra of selection adapters), the privacy loss of an event S between neighbours x and x' is
a number, not a statistic:

    epsilon(S) = ln((P[S | x] - delta) / P[S | x'])

There is no sampling error: the bound holds at every significance level (the certifier records
the run's per-test alpha next to it only so that every estimate carries an alpha in (0, 1)).  The one assumption is that the oracle describes
what ``sample`` does; every white-box estimate says so in the report.

When P[S | x'] is exactly 0 and P[S | x] > delta the loss is infinite.  JSON has no infinity,
so the estimate is flagged ``unbounded`` and ``epsilon_lower_bound`` holds the finite stand-in
``ln((P[S | x] - delta) / 2**-1074)``: a true lower bound, since an exact 0 is below the
smallest positive double.  Renderers print "∞" for unbounded estimates.

References:
    Ilvento, "Implementing the Exponential Mechanism with Base-2 Differential Privacy"
    (CCS 2020), section on truncated addition: detect zeroed outcomes by comparing the
    implementation's probabilities with exact ones.
"""

from __future__ import annotations

import math

from auditor.core.errors import InvalidArgument
from auditor.core.results import EpsilonEstimate, EventCounts

#: estimator label of every white-box estimate in report.json / report.md
WHITE_BOX_ESTIMATOR = "white-box-exact"

#: the smallest positive double; an exact 0 probability is below it
SMALLEST_POSITIVE = math.ldexp(1.0, -1074)


def exact_epsilon(p0: float, p1: float, delta: float = 0.0) -> tuple[float, bool]:
    """Privacy loss of an event with exact probabilities ``p0`` (on x) and ``p1`` (on x').

    Returns ``(epsilon, unbounded)``: ``unbounded`` is True when ``p1 == 0 < p0 - delta``, and
    epsilon is then the finite stand-in described in the module docstring.  Never negative.

    Raises:
        InvalidArgument: a probability outside [0, 1] or delta outside [0, 1).
    """
    for name, p in (("p0", p0), ("p1", p1)):
        if not (0.0 <= p <= 1.0):
            raise InvalidArgument(f"{name}={p!r} must be a probability in [0, 1]")
    if not (0.0 <= delta < 1.0):
        raise InvalidArgument(f"delta={delta!r} must be in [0, 1)")
    numerator = p0 - delta
    if numerator <= 0.0:
        return 0.0, False
    if p1 == 0.0:
        # a difference of logs: the ratio itself overflows float64
        return max(0.0, math.log(numerator) - math.log(SMALLEST_POSITIVE)), True
    return max(0.0, math.log(numerator / p1)), False


def exact_estimate(p0: float, p1: float, delta: float, event: str) -> EpsilonEstimate:
    """A white-box :class:`EpsilonEstimate` for event ``event`` with exact probabilities.

    ``alpha`` is 0 here (no sampling error); the certifier replaces it with the run's per-test
    alpha when it records the finding.
    """
    epsilon, unbounded = exact_epsilon(p0, p1, delta)
    return EpsilonEstimate(
        epsilon_lower_bound=epsilon,
        point_estimate=epsilon,
        alpha=0.0,
        delta=delta,
        event=event,
        counts=EventCounts(n0=0, k0=0, n1=0, k1=0),
        estimator=WHITE_BOX_ESTIMATOR,
        white_box=True,
        unbounded=unbounded,
        probabilities=(float(p0), float(p1)),
    )
