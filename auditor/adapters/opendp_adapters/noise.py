"""OpenDP's additive noise on a scalar query: Laplace, integer Laplace, geometric, Gaussian
(approximate DP and zCDP), each drawn as a vector of copies in one call.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from auditor.adapters._provenance import as_integer
from auditor.adapters.base import call_source, keywords
from auditor.adapters.opendp_adapters.common import (
    DELTA,
    EPSILON,
    FLOAT_VECTORS,
    GAUSSIAN_SCALES,
    INTEGER_SENSITIVITY,
    SENSITIVITY,
    GaussianApproxDP,
    OpenDPAdapter,
    laplace_float,
    laplace_source,
)
from auditor.core.space import Range


class _VectorNoise(OpenDPAdapter):
    """Additive noise on a vector domain: ``n`` copies of the query in one call."""

    family = "additive"
    vectorised = True
    delta = 0.0
    integer_queries = False
    space = {"epsilon": EPSILON, "sensitivity": SENSITIVITY}

    def __init__(self, epsilon: float, sensitivity: float) -> None:
        super().__init__()
        if not epsilon > 0:
            raise ValueError(f"epsilon={epsilon!r} must be > 0")
        self._target_epsilon = float(epsilon)
        self.sensitivity = sensitivity
        self.epsilon, self.delta = self._claim()

    def _claim(self) -> tuple[float, float]:
        """The (ε, δ) OpenDP states for one query moving by ``sensitivity``."""
        return float(self._measurement.map(self.sensitivity)), 0.0

    def _value(self, query: float) -> float | int:
        return float(query)

    def _sample_source(self) -> str:
        value, dtype = ("int", "np.int64") if self.integer_queries else ("float", "np.float64")
        return f"""
            def sample(query, n):
                return np.asarray(measurement([{value}(query)] * n), dtype={dtype})
            """

    def sample(self, query: float, n: int) -> np.ndarray:
        """``n`` independent releases of ``query`` as a 1-D array."""
        value = self._value(query)
        dtype = np.int64 if self.integer_queries else np.float64
        if n == 0:
            return np.empty(0, dtype=dtype)
        return np.asarray(self._measurement([value] * n), dtype=dtype)


class Laplace(_VectorNoise):
    """``make_laplace`` on ``vector_domain(atom_domain(T=float))``, scale Δ/ε."""

    name = "opendp.laplace"
    description = "opendp make_laplace on floats (discrete Laplace at a 2^k grid), vector domain"

    def __init__(self, epsilon: float = 1.0, sensitivity: float = 1.0) -> None:
        super().__init__(epsilon, float(sensitivity))

    def _build(self, dp: Any) -> Any:
        return laplace_float(dp, self.sensitivity / self._target_epsilon)

    def _measurement_source(self) -> str:
        return laplace_source(self.sensitivity / self._target_epsilon)


class LaplaceInteger(_VectorNoise):
    """``make_laplace`` on ``vector_domain(atom_domain(T="i64"))``: discrete Laplace."""

    name = "opendp.laplace_int"
    description = "opendp make_laplace on i64 (exact discrete Laplace), vector domain"
    integer_queries = True
    #: the ``opendp.measurements`` constructor
    _constructor = "make_laplace"
    space = {"epsilon": EPSILON, "sensitivity": INTEGER_SENSITIVITY}

    def __init__(self, epsilon: float = 1.0, sensitivity: int = 1) -> None:
        super().__init__(epsilon, as_integer(sensitivity, "sensitivity"))

    def _value(self, query: float) -> int:
        return as_integer(query)

    def _build(self, dp: Any) -> Any:
        space = dp.vector_domain(dp.atom_domain(T="i64")), dp.l1_distance(T="i64")
        make = getattr(dp.m, self._constructor)
        return make(*space, scale=self.sensitivity / self._target_epsilon)

    def _measurement_source(self) -> str:
        space = ['dp.vector_domain(dp.atom_domain(T="i64"))', 'dp.l1_distance(T="i64")']
        scale = keywords(scale=self.sensitivity / self._target_epsilon)
        return call_source(f"measurement = dp.m.{self._constructor}", [*space, *scale])


class Geometric(LaplaceInteger):
    """``make_geometric`` on an i64 vector domain (integer-support Laplace)."""

    name = "opendp.geometric"
    description = "opendp make_geometric on i64 (two-sided geometric), vector domain"
    _constructor = "make_geometric"


class Gaussian(GaussianApproxDP, _VectorNoise):
    """``make_gaussian`` (zCDP) converted to (ε, δ) by ``make_zCDP_to_approxDP`` + ``make_fix_delta``.

    The noise scale is OpenDP's own binary search for the smallest scale meeting (ε, δ).
    """

    name = "opendp.gaussian"
    description = (
        "opendp make_gaussian on floats (discrete Gaussian at a 2^k grid), zCDP -> (eps, delta)"
    )
    space = {"epsilon": EPSILON, "delta": DELTA, "sensitivity": SENSITIVITY}
    _scale_bracket = GAUSSIAN_SCALES

    def __init__(self, epsilon: float = 1.0, delta: float = 1e-6, sensitivity: float = 1.0) -> None:
        if not 0 < delta < 1:
            raise ValueError(f"delta={delta!r} must be in (0, 1)")
        self._target_delta = float(delta)
        super().__init__(epsilon, float(sensitivity))

    def _claim(self) -> tuple[float, float]:
        epsilon, delta = self._measurement.map(self.sensitivity)
        return float(epsilon), float(delta)


class GaussianZCDP(_VectorNoise):
    """``make_gaussian`` audited against the promise OpenDP makes for it: rho-zCDP, its own
    privacy measure (``opendp.gaussian`` audits the (ε, δ) the library converts it to)."""

    name = "opendp.gaussian_zcdp"
    description = "opendp make_gaussian on floats (discrete Gaussian at a 2^k grid), as rho-zCDP"
    space = {"rho": Range(1e-3, 10.0, log=True), "sensitivity": SENSITIVITY}

    def __init__(self, rho: float = 0.5, sensitivity: float = 1.0) -> None:
        if not rho > 0:
            raise ValueError(f"rho={rho!r} must be > 0")
        self._target_rho = float(rho)
        super().__init__(1.0, float(sensitivity))

    def _chain(self, dp: Any, scale: float) -> Any:
        space = dp.vector_domain(dp.atom_domain(T=float, nan=False)), dp.l2_distance(T=float)
        return dp.m.make_gaussian(*space, scale=scale)

    def _build(self, dp: Any) -> Any:
        return self._calibrated(dp, self.sensitivity, self._target_rho)

    def _measurement_source(self) -> str:
        scale = keywords(scale=self._calibrated_scale())
        return call_source(
            "measurement = dp.m.make_gaussian", [FLOAT_VECTORS, "dp.l2_distance(T=float)", *scale]
        )

    def _claim(self) -> tuple[float, float]:
        from auditor.core.claim_kinds import ZeroConcentratedDP

        self.claim = ZeroConcentratedDP(float(self._measurement.map(self.sensitivity)))
        return self.claim.epsilon, self.claim.delta
