"""OpenDP's noise on a vector query (Laplace and Gaussian on every entry, one call for all releases)."""

from __future__ import annotations

from typing import Any

import numpy as np

from auditor.adapters._provenance import as_integer
from auditor.adapters.opendp_adapters.common import (
    DELTA,
    EPSILON,
    GAUSSIAN_SCALES,
    SENSITIVITY,
    GaussianApproxDP,
    OpenDPAdapter,
    check_epsilon,
    laplace_float,
    laplace_source,
)
from auditor.core.space import Range


class _VectorQuery(OpenDPAdapter):
    """Noise on a vector query (``input_kind = "vector"``): one call on the n releases' entries
    laid end to end releases them all, as OpenDP adds independent noise to every entry
    (``vectorised = True``, like the scalar adapters above)."""

    input_kind = "vector"
    output_kind = "real"
    output_length = "query"
    vectorised = True
    delta = 0.0
    space = {
        "epsilon": EPSILON,
        "sensitivity": SENSITIVITY,
        "d": Range(1, 64, log=True, integer=True),
    }
    _reproducer_sample = """
        def sample(query, n):
            q = np.asarray(query, dtype=np.float64)
            out = np.asarray(measurement(np.tile(q, n).tolist()), dtype=np.float64)
            return out.reshape(n, q.size)
        """

    def __init__(self, epsilon: float, sensitivity: float, d: int) -> None:
        super().__init__()
        self._target_epsilon = check_epsilon(epsilon)
        self.sensitivity = float(sensitivity)
        self.query_length = as_integer(d, "d")

    def sample(self, query: Any, n: int) -> np.ndarray:
        """``n`` independent releases of the vector ``query``: shape (n, len(query))."""
        q = np.asarray(query, dtype=np.float64)
        if q.ndim != 1 or q.size == 0:
            raise ValueError(f"query must be a non-empty 1-D vector, got shape {q.shape}")
        if n == 0:
            return np.empty((0, q.size), dtype=np.float64)
        out = np.asarray(self._measurement(np.tile(q, n).tolist()), dtype=np.float64)
        return out.reshape(n, q.size)


class VectorLaplace(_VectorQuery):
    """``make_laplace`` on ``vector_domain(atom_domain(T=float))`` with ``l1_distance``: the
    vector Laplace mechanism, scale Δ₁/ε; claim ``measurement.map(Δ₁)`` (pure DP)."""

    name = "opendp.vector_laplace"
    norm = "l1"

    def __init__(self, epsilon: float = 1.0, sensitivity: float = 1.0, d: int = 5) -> None:
        super().__init__(epsilon, sensitivity, d)
        self.epsilon = float(self._measurement.map(self.sensitivity))
        self.description = (
            f"opendp make_laplace on a float vector domain, l1_distance, scale "
            f"{self.sensitivity / self._target_epsilon:g}; claim from measurement.map"
        )

    def _build(self, dp: Any) -> Any:
        return laplace_float(dp, self.sensitivity / self._target_epsilon)

    def _measurement_source(self) -> str:
        return laplace_source(self.sensitivity / self._target_epsilon)


class VectorGaussian(GaussianApproxDP, _VectorQuery):
    """``make_gaussian`` on a float vector domain with ``l2_distance`` (zCDP), converted by
    ``make_zCDP_to_approxDP`` and ``make_fix_delta``; the scale is OpenDP's binary search for
    the smallest one meeting (ε, δ); claim ``measurement.map(Δ₂)``."""

    name = "opendp.vector_gaussian"
    norm = "l2"
    space = {**_VectorQuery.space, "delta": DELTA}
    _scale_bracket = GAUSSIAN_SCALES

    def __init__(
        self, epsilon: float = 1.0, delta: float = 1e-6, sensitivity: float = 1.0, d: int = 5
    ) -> None:
        if not 0 < delta < 1:
            raise ValueError(f"delta={delta!r} must be in (0, 1)")
        self._target_delta = float(delta)
        super().__init__(epsilon, sensitivity, d)
        epsilon_claim, delta_claim = self._measurement.map(self.sensitivity)
        self.epsilon, self.delta = float(epsilon_claim), float(delta_claim)
        self.description = (
            "opendp make_gaussian on a float vector domain, l2_distance, zCDP -> "
            "(eps, delta) by make_zCDP_to_approxDP + make_fix_delta; claim from measurement.map"
        )
