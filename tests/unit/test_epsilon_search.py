"""The one epsilon search (``dp_params.epsilon_search.smallest_epsilon``) against the two it
replaced: the zCDP conversion's bisection (stopped at a relative 2^-30, used by the zCDP claim
kind and the vector discrete Gaussian) and the claim kinds' ``log_bisect_epsilon`` (1e-13,
used by f-DP).  Both ran the same bisection steps and differed only in where they stopped; each
caller keeps its width, so every caller's answer is the old one to the bit, and a finer width
only ever gives a smaller valid answer."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import gmpy2
import pytest

from auditor.core.claim_kinds import TradeOffDP
from dp_params.epsilon_search import epsilon_bracket, smallest_epsilon
from dp_params.zcdp import zcdp_delta, zcdp_epsilon
from reference_mechanisms.vector_noise import VectorDiscreteGaussian


def _old_bisection(delta_of: Callable[[float], Any], delta: float, width: float) -> float:
    """The replaced searches, as they were (the zCDP one compared with an mpfr target)."""
    target = gmpy2.mpfr(delta, 128)
    if delta_of(0.0) <= target:
        return 0.0
    hi = 1.0
    while delta_of(hi) > target:
        hi *= 2
        if hi > 2.0**40:
            return math.inf
    lo = 0.0
    while hi - lo > hi * width:
        mid = (lo + hi) / 2
        if delta_of(mid) <= target:
            hi = mid
        else:
            lo = mid
    return hi


@pytest.mark.parametrize("rho", [1e-4, 0.02, 0.5, 3.0, 400.0])
@pytest.mark.parametrize("delta", [1e-12, 1e-6, 0.05])
def test_zcdp_epsilon_is_the_old_one_or_tighter(rho: float, delta: float) -> None:
    old = _old_bisection(lambda e: zcdp_delta(rho, e), delta, 2.0**-30)
    new = zcdp_epsilon(rho, delta)
    assert new == old
    finer = smallest_epsilon(lambda e: zcdp_delta(rho, e), delta, width=1e-13)
    assert zcdp_delta(rho, finer) <= delta  # still certified
    assert old * (1 - 2.0**-29) <= finer <= old  # tighter, by at most the old width


@pytest.mark.parametrize(("rho", "sensitivity"), [(0.5, 1), (0.1, 3)])
def test_vector_discrete_gaussian_epsilon_is_the_old_one_or_tighter(
    rho: float, sensitivity: int
) -> None:
    mech = VectorDiscreteGaussian(rho, sensitivity, 1e-6)
    old = _old_bisection(mech.delta_for_epsilon, 1e-6, 2.0**-30)
    assert mech.epsilon == old


def _f(a: Any) -> Any:
    return max(0.0, 1.0 - a - 0.3) ** 2


@pytest.mark.parametrize("delta", [1e-9, 1e-4, 0.1])
def test_fdp_epsilon_is_the_old_one(delta: float) -> None:
    claim = TradeOffDP(_f, name="f")
    assert claim.epsilon_for_delta(delta) == _old_bisection(claim.delta_for_epsilon, delta, 1e-13)


def test_no_epsilon_below_the_ceiling() -> None:
    """A delta nothing reaches: the bracket is inf and the search says so."""
    assert epsilon_bracket(lambda e: 1.0, 0.5) == math.inf
    with pytest.raises(RuntimeError, match="2\\^40"):
        smallest_epsilon(lambda e: 1.0, 0.5)
    assert epsilon_bracket(lambda e: math.exp(-e), 0.1) == 4.0  # e^-2 > 0.1 >= e^-4
