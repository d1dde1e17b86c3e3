"""An example dp-audit plugin: one adapter, no dependency on dp-audit.

The adapter contract is duck-typed: a class with ``name``, ``family``, ``epsilon``, ``delta``,
``sensitivity`` and ``sample(query, n)`` is enough.  ``seed``, ``library``,
``library_version``, ``vectorised`` and ``description`` are optional extras that dp-audit uses
when present (reproducible runs, provenance in reports).
"""

from __future__ import annotations

import numpy as np

__all__ = ["ExampleLaplace", "adapters"]


class ExampleLaplace:
    """``query + Laplace(sensitivity / epsilon)`` drawn by numpy, vectorised.

    Correctly calibrated on the real numbers; in floats it is the textbook mechanism, which
    Mironov (CCS 2012) showed can leak through the least significant bits.  Auditing it is the
    point of the example.
    """

    name = "example.laplace"
    family = "additive"
    library = "dp-audit-example-plugin"
    library_version = "0.1.0"
    vectorised = True
    description = "example plugin: query + numpy Generator.laplace(0, sensitivity/epsilon)"

    def __init__(self, epsilon: float = 1.0, sensitivity: float = 1.0) -> None:
        if not epsilon > 0:
            raise ValueError(f"epsilon={epsilon!r} must be > 0")
        if not sensitivity > 0:
            raise ValueError(f"sensitivity={sensitivity!r} must be > 0")
        self.epsilon = float(epsilon)
        self.delta = 0.0
        self.sensitivity = float(sensitivity)
        self._rng = np.random.default_rng()

    def seed(self, entropy: int) -> None:
        """Re-seed; dp-audit calls this with a fresh integer before every ``sample``."""
        self._rng = np.random.default_rng(entropy)

    def sample(self, query: float, n: int) -> np.ndarray:
        """``n`` independent releases of the true answer ``query``: float64 array, shape (n,)."""
        scale = self.sensitivity / self.epsilon
        return float(query) + self._rng.laplace(0.0, scale, size=n)


def adapters() -> list[ExampleLaplace]:
    """The entry point's target: the adapters this plugin contributes."""
    return [ExampleLaplace(epsilon=1.0, sensitivity=1.0)]
