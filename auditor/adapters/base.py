"""Small shared pieces for the built-in adapters.

Third-party adapters never need this module: the contract is duck-typed (see
``auditor.core.interfaces.Adapter``).  Built-ins use :class:`SeededAdapter` so that the runner can
replay every draw from the run's seed.
"""

from __future__ import annotations

import numpy as np


class SeededAdapter:
    """Holds a ``numpy.random.Generator`` that the runner re-seeds before each batch.

    The optional ``seed(entropy)`` extra is how the harness makes seedable adapters
    reproducible: it is called with a fresh non-negative integer before every ``sample`` call.
    """

    #: shown in reports; subclasses override
    library: str = "dp-audit"
    library_version: str = ""
    #: True when ``sample`` is vectorised (no Python loop per output)
    vectorised: bool = True

    def __init__(self) -> None:
        self._rng = np.random.default_rng()

    def seed(self, entropy: int) -> None:
        self._rng = np.random.default_rng(entropy)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {getattr(self, 'name', '?')}>"
