"""What every diffprivlib adapter shares: the parameter spaces, seeding through ``random_state`` and
the reproducer's frame.
"""

from __future__ import annotations

import numpy as np

from auditor.adapters._provenance import (
    LEGACY_RANDOM_STATE_SOURCE,
    installed_version,
    legacy_random_state,
)
from auditor.adapters.base import NamedRepr, module_source
from auditor.core.space import Choice, Configurable, Range

_LIBRARY = "diffprivlib"

# Parameter spaces (``dp-audit run --search``, docs/search.md): what diffprivlib accepts and
# users plausibly pass.  Each adapter's ``space`` names arguments of its own constructor.
EPSILON = Range(0.01, 10.0, log=True)
DELTA = Range(1e-12, 0.1, log=True)
SENSITIVITY = Range(1e-3, 1e6, log=True)
#: bounds of a query or of the records: unit, symmetric, wide, large magnitude
BOUNDS = Choice(((0.0, 1.0), (-10.0, 10.0), (-1000.0, 1000.0), (0.0, 1e6)))


class DiffprivlibAdapter(NamedRepr, Configurable):
    """Common provenance and seeding for the diffprivlib adapters."""

    library = _LIBRARY
    vectorised = False

    def __init__(self) -> None:
        self.library_version = installed_version(_LIBRARY)
        self._random_state: np.random.RandomState | None = None

    def seed(self, entropy: int) -> None:
        """Re-seed: the library's mechanisms draw from a RandomState made from ``entropy``."""
        self._random_state = legacy_random_state(entropy)

    name = "diffprivlib.?"

    #: what the reproducer imports from ``diffprivlib``
    _reproducer_imports = "mechanisms"

    def _reproducer_code(self) -> str:
        """The reproducer's ``sample`` (and ``probabilities``), drawing from ``random_state``."""
        raise NotImplementedError

    def reproducer_source(self) -> str:
        """Python source, runnable on its own, that draws this adapter's outputs without
        dp-audit (``seed`` and ``sample`` as here, bitwise)."""
        return module_source(
            self,
            ["import numpy as np", f"from diffprivlib import {self._reproducer_imports}"],
            LEGACY_RANDOM_STATE_SOURCE,
            self._reproducer_code(),
        )
