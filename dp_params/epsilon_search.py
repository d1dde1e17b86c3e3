"""The smallest epsilon whose delta reaches a target: the one bisection every (epsilon, delta)
curve uses, the zCDP conversion (``zcdp``), the vector discrete Gaussian and the f-DP claim kind.

Why here: the bottom layer, so the claim kinds and the mechanisms under audit share it without
importing each other.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

__all__ = ["DEFAULT_WIDTH", "EPSILON_CEILING", "epsilon_bracket", "smallest_epsilon"]

#: epsilons are searched below this; a delta no epsilon below it reaches is reached by none
EPSILON_CEILING = 2.0**40

#: where the bisection stops by default: the bracket this narrow relative to its top (the zCDP
#: conversion's and the vector discrete Gaussian's stated epsilons rest on it)
DEFAULT_WIDTH = 2.0**-30


def epsilon_bracket(delta_of: Callable[[float], Any], delta: float) -> float:
    """The first epsilon of 1, 2, 4, ... with ``delta_of(epsilon) <= delta``; inf when none below
    :data:`EPSILON_CEILING` is (``delta_of`` non-increasing)."""
    hi = 1.0
    while delta_of(hi) > delta:
        hi *= 2.0
        if hi > EPSILON_CEILING:
            return math.inf
    return hi


def smallest_epsilon(
    delta_of: Callable[[float], Any], delta: float, width: float = DEFAULT_WIDTH
) -> float:
    """The smallest epsilon (to a relative ``width``) with ``delta_of(epsilon) <= delta``.

    ``delta_of`` is non-increasing in epsilon and may return floats or mpfr values (compared
    with ``delta`` exactly).  The bisection keeps ``delta_of(hi) <= delta``, so the answer is
    valid whatever the rounding inside ``delta_of``; a smaller ``width`` only takes more steps
    of the same bisection, so its answer is never larger.

    Raises:
        RuntimeError: no epsilon below :data:`EPSILON_CEILING` reaches ``delta``.
    """
    if delta_of(0.0) <= delta:
        return 0.0
    hi = epsilon_bracket(delta_of, delta)
    if math.isinf(hi):
        raise RuntimeError(f"no epsilon below 2^40 reaches delta={delta!r}")
    lo = hi / 2.0 if hi > 1.0 else 0.0  # delta_of(hi / 2) > delta: the bracket passed it
    while hi - lo > hi * width:
        mid = (lo + hi) / 2.0
        if delta_of(mid) <= delta:
            hi = mid
        else:
            lo = mid
    return hi
