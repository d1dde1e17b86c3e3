"""Targets that mix good adapters with bad entries; loaded by path from the CLI tests."""

from __future__ import annotations

import warnings

import numpy as np


class Geometric:
    """Exact discrete Laplace: never a violation."""

    family = "additive"
    epsilon = 1.0
    delta = 0.0
    sensitivity = 1
    integer_queries = True

    def __init__(self, name: str = "good.geometric") -> None:
        self.name = name
        self._rng = np.random.default_rng(0)

    def seed(self, entropy: int) -> None:
        self._rng = np.random.default_rng(entropy)

    def sample(self, query, n):
        warnings.warn("a library warning", UserWarning, stacklevel=1)
        g = self._rng.geometric(1.0 - np.exp(-self.epsilon), size=(2, n))
        return int(query) + g[0] - g[1]


#: one good adapter, a string, and a name that rewrites the terminal line
with_a_non_adapter = [Geometric(), "not an adapter", Geometric("evil\rname\x1b[2J")]
#: two adapters with one name
same_name_twice = [Geometric("twin"), Geometric("twin")]
#: nothing that is an adapter
nothing = ["a", 1]
