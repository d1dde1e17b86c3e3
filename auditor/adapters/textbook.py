"""Textbook floating-point mechanisms: the code people write from the definitions.

They are correct on paper and leak in practice; the harness must find that.  Each one is a
faithful copy of the naive formula, not a strawman.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from auditor.adapters.base import SeededAdapter


class TextbookLaplace(SeededAdapter):
    """``value + numpy Laplace(0, sensitivity / epsilon)`` in float64.

    References:
        Dwork, McSherry, Nissim, Smith (2006): the Laplace mechanism.
        Mironov (CCS 2012): why this float implementation is not differentially private.
    """

    family = "additive"
    library = "numpy"
    description = "value + numpy.random.Generator.laplace(0, sensitivity/epsilon)"

    def __init__(
        self, epsilon: float = 1.0, sensitivity: float = 1.0, name: str | None = None
    ) -> None:
        super().__init__()
        self.epsilon = epsilon
        self.delta = 0.0
        self.sensitivity = sensitivity
        self.name = name or f"textbook.laplace(eps={epsilon:g})"
        self.library_version = np.__version__

    def sample(self, query: Any, n: int) -> np.ndarray:
        return float(query) + self._rng.laplace(0.0, self.sensitivity / self.epsilon, size=n)


def builtin_adapters() -> list[Any]:
    return [TextbookLaplace(epsilon=1.0)]
