"""Adapters for python-dp (PyDP), the Python wrapper of Google's C++ DP library.

``pip install dp-audit[libs]`` installs it (distribution ``python-dp``, imported as ``pydp``).
PyDP releases one value per call (``add_noise``, ``quick_result``), so every adapter loops in
Python (``vectorised = False``).  The C++ library draws from its own secure generator and offers
no seed, so these adapters have no ``seed``.  PyDP is imported lazily; :func:`builtin_adapters`
raises ``ImportError`` when it is missing.

References:
    Google differential-privacy library, "Secure Noise Generation" (granularity-rounded Laplace
    and Gaussian); OpenMined PyDP.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from auditor.adapters._provenance import installed_version

_DISTRIBUTION = "python-dp"


class _PyDPAdapter:
    """Provenance, and the PyDP object rebuilt on demand (pybind11 objects do not pickle)."""

    library = "python-dp"
    vectorised = False
    delta = 0.0
    name = "pydp.?"

    def __init__(self) -> None:
        self.library_version = installed_version(_DISTRIBUTION)
        self._object_cache: Any = None

    def _build(self) -> Any:
        raise NotImplementedError

    @property
    def _object(self) -> Any:
        if self._object_cache is None:
            self._object_cache = self._build()
        return self._object_cache

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state["_object_cache"] = None
        return state

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}>"


def _check_epsilon(epsilon: float) -> float:
    if not epsilon > 0:
        raise ValueError(f"epsilon={epsilon!r} must be > 0")
    return float(epsilon)


class LaplaceMechanism(_PyDPAdapter):
    """``pydp.algorithms.numerical_mechanisms.LaplaceMechanism`` on float queries."""

    name = "pydp.laplace"
    family = "additive"
    description = "python-dp LaplaceMechanism.add_noise (Google's granularity-rounded Laplace)"

    def __init__(self, epsilon: float = 1.0, sensitivity: float = 1.0) -> None:
        super().__init__()
        self.epsilon = _check_epsilon(epsilon)
        self.sensitivity = float(sensitivity)
        self._object  # noqa: B018  (validate through the library now)

    def _build(self) -> Any:
        from pydp.algorithms.numerical_mechanisms import LaplaceMechanism as _Laplace

        return _Laplace(self.epsilon, self.sensitivity)

    def sample(self, query: float, n: int) -> np.ndarray:
        """``n`` independent releases of ``query`` (a float: PyDP's int overload is not used)."""
        add_noise, value = self._object.add_noise, float(query)
        return np.fromiter((add_noise(value) for _ in range(n)), np.float64, count=n)


class GaussianMechanism(LaplaceMechanism):
    """``pydp.algorithms.numerical_mechanisms.GaussianMechanism`` (L2 sensitivity)."""

    name = "pydp.gaussian"
    description = "python-dp GaussianMechanism.add_noise (Google's analytic Gaussian calibration)"

    def __init__(self, epsilon: float = 1.0, delta: float = 1e-5, sensitivity: float = 1.0) -> None:
        if not 0 < delta < 1:
            raise ValueError(f"delta={delta!r} must be in (0, 1)")
        self.delta = float(delta)
        super().__init__(epsilon, sensitivity)

    def _build(self) -> Any:
        from pydp.algorithms.numerical_mechanisms import GaussianMechanism as _Gaussian

        return _Gaussian(self.epsilon, self.delta, self.sensitivity)


class BoundedSum(_PyDPAdapter):
    """``pydp.algorithms.laplacian.BoundedSum`` on float records with explicit bounds.

    One record per user (l0 = linf = 1): adding or removing a record moves the sum by at most
    max(|lower|, |upper|), Google's add/remove neighbour relation.
    """

    name = "pydp.bounded_sum"
    family = "dataset"
    neighbours = "add_remove"
    description = "python-dp BoundedSum (float, clamp to bounds, Laplace)"

    def __init__(self, epsilon: float = 1.0, domain: tuple[float, float] = (0.0, 1.0)) -> None:
        super().__init__()
        self.epsilon = _check_epsilon(epsilon)
        self.domain = (float(domain[0]), float(domain[1]))
        if not self.domain[0] < self.domain[1]:
            raise ValueError(f"domain={domain!r} must have lower < upper")
        self._object  # noqa: B018

    def _build(self) -> Any:
        from pydp.algorithms.laplacian import BoundedSum as _BoundedSum

        lower, upper = self.domain
        return _BoundedSum(
            epsilon=self.epsilon, lower_bound=lower, upper_bound=upper, dtype="float"
        )

    def sample(self, query: Any, n: int) -> np.ndarray:
        """``n`` releases on dataset ``query`` (1-D records; clamped to ``domain`` by PyDP)."""
        records = [float(x) for x in np.asarray(query, dtype=np.float64).ravel()]
        quick_result = self._object.quick_result
        return np.fromiter((quick_result(records) for _ in range(n)), np.float64, count=n)


class Count(BoundedSum):
    """``pydp.algorithms.laplacian.Count``: noisy number of records (add/remove, Δ = 1)."""

    name = "pydp.count"
    description = "python-dp Count (integer Laplace on the record count)"

    def _build(self) -> Any:
        from pydp.algorithms.laplacian import Count as _Count

        return _Count(epsilon=self.epsilon, dtype="float")


def builtin_adapters() -> list[Any]:
    """PyDP's mechanisms at their default audit parameters (raises ImportError if absent)."""
    import pydp  # noqa: F401  (ImportError here means: skipped, install the extra)

    return [LaplaceMechanism(), GaussianMechanism(), BoundedSum(), Count()]
