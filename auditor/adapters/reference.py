"""Built-in adapters for the exact reference mechanisms (negative controls of every audit).

Each adapter states the claim it is *guaranteed* to meet: float parameters are converted to
rationals in the direction that keeps the claim (epsilon rounded down, so noise scales round up).
A correct audit must never report a violation against these.

Randomness comes from the adapter's seeded ``numpy.random.Generator`` (``SeededAdapter``), used
only as a source of uniform integers, so audits are reproducible; production code would pass
``reference_mechanisms.randomness.SystemRandomness`` to the samplers instead.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np

from auditor.adapters.base import SeededAdapter
from reference_mechanisms.discrete_laplace import sample_discrete_laplace
from reference_mechanisms.params import check_epsilon, check_sensitivity, rational_floor

__all__ = ["DiscreteLaplaceAdapter", "builtin_adapters"]


def _integer_query(query: Any) -> int:
    """The query as a Python int; raises ValueError for non-integral or non-finite values."""
    try:
        q = float(query) if not isinstance(query, (int, np.integer)) else int(query)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"query={query!r} must be an integer") from exc
    if isinstance(q, float):
        if not math.isfinite(q) or q != math.floor(q):
            raise ValueError(f"query={query!r} must be an integer")
        q = int(q)
    return q


def _check_n(n: Any) -> int:
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 0:
        raise ValueError(f"n={n!r} must be a non-negative int")
    return int(n)


class DiscreteLaplaceAdapter(SeededAdapter):
    """Integer query plus exact discrete Laplace noise: pure epsilon-DP for integer queries.

    The noise scale is ``sensitivity / epsilon_q`` with ``epsilon_q = floor(epsilon 2^30)/2^30 <=
    epsilon``, so P[x]/P[x'] <= exp(|x - x'|/scale) <= exp(epsilon) for |x - x'| <= sensitivity.

    References:
        Canonne, Kamath, Steinke, "The Discrete Gaussian for Differential Privacy", NeurIPS 2020.
        Ghosh, Roughgarden, Sundararajan, "Universally utility-maximizing privacy mechanisms",
        STOC 2009 (the geometric mechanism is the same distribution).

    Assumptions:
        Queries are integers; the numpy Generator's ``integers`` is exactly uniform.
    """

    family = "additive"
    integer_queries = True
    delta = 0.0

    def __init__(self, epsilon: float = 1.0, sensitivity: float = 1, name: str | None = None):
        super().__init__()
        self.epsilon = check_epsilon(epsilon)
        self._sens = check_sensitivity(sensitivity)
        self.sensitivity = float(sensitivity)
        self.epsilon_rational = rational_floor(epsilon)
        #: exact noise scale actually used (>= sensitivity / epsilon)
        self.scale: Fraction = self._sens / self.epsilon_rational
        self.name = name or f"reference.discrete_laplace[eps={self.epsilon:g}]"
        self.description = (
            f"exact discrete Laplace, scale {float(self.scale):.6g} >= sensitivity/epsilon"
        )

    def sample(self, query: Any, n: int) -> np.ndarray:
        q = _integer_query(query)
        n = _check_n(n)
        return q + sample_discrete_laplace(self.scale, n, self._rng)


def builtin_adapters() -> list:
    """The reference adapters the registry lists under library ``dp-audit``."""
    return [DiscreteLaplaceAdapter(epsilon=1.0, name="reference.discrete_laplace")]
