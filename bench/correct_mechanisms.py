"""Small *correct* mechanisms used by the estimator benches and calibration tests.

They stand in for the reference mechanisms (whose exact implementations live elsewhere in the
project): each is exactly, or up to float error far below anything a sample can resolve, as
private as it claims, and its outputs carry no floating-point artefact (integers, or values on a
coarse binary grid), so that any certified violation on them is a false one.  Plus one
deliberately broken mechanism (``HalfLeak``) with epsilon = infinity on an event of mass 1/2.

Assumptions:
    numpy's ``laplace``, ``geometric`` and ``choice`` samplers are accurate to double precision.

References:
    Dwork & Roth (2014), ch. 3: Laplace, randomized response, exponential mechanism.
    Inusah & Kozubowski (2006): the discrete Laplace as a difference of two geometrics.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from auditor.adapters.base import SeededAdapter

#: grid of ``SnappedLaplace`` outputs (2^-20): coarse enough that no output shows float bits
GRID = 2.0**-20


class SnappedLaplace(SeededAdapter):
    """``query + round(Lap(1/epsilon) / GRID) * GRID`` for integer queries (sensitivity 1).

    Rounding to a grid that contains the neighbour shift keeps the likelihood ratio of every
    output cell within e^epsilon (it is an integral of the continuous ratio), and removes the
    porous low bits Mironov's attack uses.  Continuous enough (2^20 cells per unit) that the
    best events and the oracle limits are those of the continuous Laplace mechanism.
    """

    family = "additive"
    integer_queries = True

    def __init__(self, epsilon: float = 1.0, name: str | None = None) -> None:
        super().__init__()
        self.epsilon, self.delta, self.sensitivity = epsilon, 0.0, 1.0
        self.name = name or f"test.snapped-laplace(eps={epsilon:g})"

    def sample(self, query: Any, n: int) -> np.ndarray:
        noise = np.round(self._rng.laplace(0.0, 1.0 / self.epsilon, size=n) / GRID) * GRID
        return float(query) + noise


class DiscreteLaplace(SeededAdapter):
    """``query + G1 - G2`` with G ~ Geometric(1 - e^-epsilon): P(k) proportional to e^(-epsilon |k|)."""

    family = "additive"
    integer_queries = True

    def __init__(self, epsilon: float = 1.0, name: str | None = None) -> None:
        super().__init__()
        self.epsilon, self.delta, self.sensitivity = epsilon, 0.0, 1.0
        self.name = name or f"test.discrete-laplace(eps={epsilon:g})"

    def sample(self, query: Any, n: int) -> np.ndarray:
        p = -math.expm1(-self.epsilon)
        return int(query) + self._rng.geometric(p, n) - self._rng.geometric(p, n)


class RandomizedResponse(SeededAdapter):
    """Keep the bit with probability at most e^epsilon / (1 + e^epsilon), in exact integers."""

    family = "binary"

    def __init__(self, epsilon: float = 1.0, name: str | None = None) -> None:
        super().__init__()
        self.epsilon, self.delta = epsilon, 0.0
        self.name = name or f"test.randomized-response(eps={epsilon:g})"
        # a few units below the float value, so the kept probability never exceeds the ideal one
        self._keep = math.floor(2**53 / (1.0 + math.exp(-epsilon))) - 4

    def sample(self, query: Any, n: int) -> np.ndarray:
        keep = self._rng.integers(0, 2**53, size=n) < self._keep
        return np.where(keep, int(query), 1 - int(query))


class ExponentialMechanism(SeededAdapter):
    """Index i with probability proportional to exp(epsilon * u_i / (2 * sensitivity))."""

    family = "selection"

    def __init__(self, epsilon: float = 1.0, name: str | None = None) -> None:
        super().__init__()
        self.epsilon, self.delta, self.sensitivity = epsilon, 0.0, 1.0
        self.name = name or f"test.exponential(eps={epsilon:g})"

    def sample(self, query: Any, n: int) -> np.ndarray:
        u = np.asarray(query, dtype=float)
        w = np.exp(self.epsilon * (u - u.max()) / (2.0 * self.sensitivity))
        return self._rng.choice(len(u), size=n, p=w / w.sum())


class HalfLeak(SeededAdapter):
    """Broken on purpose: ``query + Bernoulli(1/2)``, so output ``query + 1`` never occurs at
    ``query - 1``: epsilon is infinite on an event of probability 1/2."""

    family = "additive"
    integer_queries = True

    def __init__(self, epsilon: float = 1.0, name: str | None = None) -> None:
        super().__init__()
        self.epsilon, self.delta, self.sensitivity = epsilon, 0.0, 1.0
        self.name = name or f"test.half-leak(claim={epsilon:g})"

    def sample(self, query: Any, n: int) -> np.ndarray:
        return int(query) + self._rng.integers(0, 2, size=n)
