"""Small adapters shared by tests: known-good and known-broken mechanisms.

Known-good ones are exact in distribution up to float coins of error < 2^-53, far below what any
test budget can see, so the harness must never call them broken; known-broken ones leak by
construction.
"""

from __future__ import annotations

import math

import numpy as np


class _Seeded:
    def __init__(self) -> None:
        self._rng = np.random.default_rng(0)

    def seed(self, entropy: int) -> None:
        self._rng = np.random.default_rng(entropy)


class GeometricLaplace(_Seeded):
    """Discrete Laplace on integers: query + G1 - G2 with G ~ Geometric(1 - e^(-true_epsilon)).

    Correct when ``true_epsilon`` is left at the claimed ``epsilon``; a larger ``true_epsilon`` is
    too little noise for the claim.
    """

    family = "additive"
    delta = 0.0
    sensitivity = 1
    integer_queries = True

    def __init__(
        self,
        epsilon: float = 1.0,
        name: str = "test.discrete_laplace",
        true_epsilon: float | None = None,
    ):
        super().__init__()
        self.epsilon, self.name = epsilon, name
        self._p = 1.0 - math.exp(-(true_epsilon or epsilon))

    def sample(self, query, n):
        g = self._rng.geometric(self._p, size=(2, n))
        return int(query) + g[0] - g[1]


class RandomizedResponse(_Seeded):
    """Tells the truth with probability e^eps/(1+e^eps), or ``p_true`` when given (broken if larger)."""

    family = "binary"
    delta = 0.0

    def __init__(
        self,
        epsilon: float = 1.0,
        name: str = "test.randomized_response",
        p_true: float | None = None,
    ):
        super().__init__()
        self.epsilon, self.name = epsilon, name
        self._p = p_true if p_true is not None else math.exp(epsilon) / (1 + math.exp(epsilon))

    def sample(self, query, n):
        keep = self._rng.random(n) < self._p
        return np.where(keep, int(query), 1 - int(query))
