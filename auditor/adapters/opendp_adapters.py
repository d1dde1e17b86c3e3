"""Adapters for the OpenDP library, 0.16 API (``pip install dp-audit[libs]``).

Each adapter builds one OpenDP measurement and takes its privacy claim from the library itself
(``measurement.map(d_in)``), so the audit tests what OpenDP states, not what we assume.  Where
OpenDP offers a vector domain (Laplace, geometric, Gaussian) one call on a vector of ``n`` copies
of the query releases ``n`` independent outputs (``vectorised = True``); selection, randomized
response and the dataset pipeline are called once per output.

OpenDP draws from the operating system's CSPRNG and cannot be seeded, so these adapters have no
``seed``.  The library is imported lazily; :func:`builtin_adapters` raises ``ImportError`` when
it is missing.  Building a measurement needs ``dp.enable_features("contrib")``, a process-wide
switch that OpenDP requires for these constructors.

References:
    The OpenDP Library, https://opendp.org (proof documents linked from each constructor).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from auditor.adapters._provenance import as_integer, installed_version

_LIBRARY = "opendp"


def _prelude() -> Any:
    """``opendp.prelude`` with the ``contrib`` feature enabled (ImportError if not installed)."""
    import opendp.prelude as dp

    dp.enable_features("contrib")
    return dp


class _OpenDPAdapter:
    """Provenance, and a measurement rebuilt on demand (OpenDP objects do not pickle)."""

    library = _LIBRARY
    vectorised = False
    name = "opendp.?"

    def __init__(self) -> None:
        self.library_version = installed_version(_LIBRARY)
        self._measurement_cache: Any = None

    def _build(self, dp: Any) -> Any:
        raise NotImplementedError

    @property
    def _measurement(self) -> Any:
        if self._measurement_cache is None:
            self._measurement_cache = self._build(_prelude())
        return self._measurement_cache

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state["_measurement_cache"] = None
        return state

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}>"


class _VectorNoise(_OpenDPAdapter):
    """Additive noise on a vector domain: ``n`` copies of the query in one call."""

    family = "additive"
    vectorised = True
    delta = 0.0
    integer_queries = False

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
        space = dp.vector_domain(dp.atom_domain(T=float, nan=False)), dp.l1_distance(T=float)
        return dp.m.make_laplace(*space, scale=self.sensitivity / self._target_epsilon)


class LaplaceInteger(_VectorNoise):
    """``make_laplace`` on ``vector_domain(atom_domain(T="i64"))``: discrete Laplace."""

    name = "opendp.laplace_int"
    description = "opendp make_laplace on i64 (exact discrete Laplace), vector domain"
    integer_queries = True

    def __init__(self, epsilon: float = 1.0, sensitivity: int = 1) -> None:
        super().__init__(epsilon, as_integer(sensitivity, "sensitivity"))

    def _value(self, query: float) -> int:
        return as_integer(query)

    def _build(self, dp: Any) -> Any:
        space = dp.vector_domain(dp.atom_domain(T="i64")), dp.l1_distance(T="i64")
        return dp.m.make_laplace(*space, scale=self.sensitivity / self._target_epsilon)


class Geometric(LaplaceInteger):
    """``make_geometric`` on an i64 vector domain (integer-support Laplace)."""

    name = "opendp.geometric"
    description = "opendp make_geometric on i64 (two-sided geometric), vector domain"

    def _build(self, dp: Any) -> Any:
        space = dp.vector_domain(dp.atom_domain(T="i64")), dp.l1_distance(T="i64")
        return dp.m.make_geometric(*space, scale=self.sensitivity / self._target_epsilon)


class Gaussian(_VectorNoise):
    """``make_gaussian`` (zCDP) converted to (ε, δ) by ``make_zCDP_to_approxDP`` + ``make_fix_delta``.

    The noise scale is OpenDP's own binary search for the smallest scale meeting (ε, δ).
    """

    name = "opendp.gaussian"
    description = (
        "opendp make_gaussian on floats (discrete Gaussian at a 2^k grid), zCDP -> (eps, delta)"
    )

    def __init__(self, epsilon: float = 1.0, delta: float = 1e-6, sensitivity: float = 1.0) -> None:
        if not 0 < delta < 1:
            raise ValueError(f"delta={delta!r} must be in (0, 1)")
        self._target_delta = float(delta)
        super().__init__(epsilon, float(sensitivity))

    def _chain(self, dp: Any, scale: float) -> Any:
        space = dp.vector_domain(dp.atom_domain(T=float, nan=False)), dp.l2_distance(T=float)
        zcdp = dp.m.make_gaussian(*space, scale=scale)
        return dp.c.make_fix_delta(dp.c.make_zCDP_to_approxDP(zcdp), self._target_delta)

    def _build(self, dp: Any) -> Any:
        scale = dp.binary_search_param(
            lambda s: self._chain(dp, s),
            d_in=self.sensitivity,
            d_out=(self._target_epsilon, self._target_delta),
        )
        return self._chain(dp, scale)

    def _claim(self) -> tuple[float, float]:
        epsilon, delta = self._measurement.map(self.sensitivity)
        return float(epsilon), float(delta)


class NoisyMax(_OpenDPAdapter):
    """``make_noisy_max`` under ``max_divergence()``: report-noisy-max with exponential noise.

    With exponential noise, report-noisy-max is permute-and-flip (McKenna & Sheldon 2020).
    Higher score is better; utilities may move by ``sensitivity`` in L∞ (non-monotonic).
    """

    name = "opendp.noisy_max"
    family = "selection"
    delta = 0.0
    maximise = True
    description = "opendp make_noisy_max, pure DP (exponential noise = permute-and-flip)"

    def __init__(self, epsilon: float = 1.0, sensitivity: float = 1.0) -> None:
        super().__init__()
        if not epsilon > 0:
            raise ValueError(f"epsilon={epsilon!r} must be > 0")
        self._target_epsilon = float(epsilon)
        self.sensitivity = float(sensitivity)
        self.epsilon = float(self._measurement.map(self.sensitivity))

    def _build(self, dp: Any) -> Any:
        return dp.m.make_noisy_max(
            dp.vector_domain(dp.atom_domain(T=float, nan=False)),
            dp.linf_distance(T=float, monotonic=False),
            dp.max_divergence(),
            scale=2.0 * self.sensitivity / self._target_epsilon,
        )

    def sample(self, query: Any, n: int) -> np.ndarray:
        """``n`` selected indices in ``[0, k)`` for score vector ``query``."""
        scores = [float(u) for u in np.asarray(query, dtype=np.float64).ravel()]
        measurement = self._measurement
        return np.fromiter((measurement(scores) for _ in range(n)), np.int64, count=n)


class RandomizedResponseBool(_OpenDPAdapter):
    """``make_randomized_response_bool`` with keep-probability e^ε/(1 + e^ε).

    Not vectorised: the bit-vector variant (``make_randomized_response_bitvec``) needs a
    ``max_weight`` on its domain, and ``n`` copies of a 1 bit fall outside any small one.
    """

    name = "opendp.randomized_response"
    family = "binary"
    delta = 0.0
    description = "opendp make_randomized_response_bool (keep with prob e^eps/(1+e^eps))"

    def __init__(self, epsilon: float = 1.0) -> None:
        super().__init__()
        if not epsilon > 0:
            raise ValueError(f"epsilon={epsilon!r} must be > 0")
        self._target_epsilon = float(epsilon)
        self.epsilon = float(self._measurement.map(1))

    def _build(self, dp: Any) -> Any:
        keep = 1.0 / (1.0 + math.exp(-self._target_epsilon))
        return dp.m.make_randomized_response_bool(prob=keep)

    def sample(self, query: int, n: int) -> np.ndarray:
        """``n`` released bits (0/1) for the true bit ``query``."""
        bit = as_integer(query)
        if bit not in (0, 1):
            raise ValueError(f"query={query!r} must be a bit, 0 or 1")
        measurement, value = self._measurement, bool(bit)
        return np.fromiter((int(measurement(value)) for _ in range(n)), np.int64, count=n)


class ClampedSum(_OpenDPAdapter):
    """Pipeline ``then_clamp(domain) >> then_sum() >> then_laplace(scale)`` on float records.

    The neighbour relation is OpenDP's ``symmetric_distance`` with d_in = 1: add or remove
    one record.  The scale is OpenDP's binary search for the smallest one meeting ε; the
    float sum's rounding error is part of OpenDP's own sensitivity (CSVW22).
    """

    name = "opendp.clamped_sum"
    family = "dataset"
    delta = 0.0
    neighbours = "add_remove"
    description = "opendp clamp >> sum (float, rounding-aware sensitivity) >> laplace"

    def __init__(self, epsilon: float = 1.0, domain: tuple[float, float] = (0.0, 1.0)) -> None:
        super().__init__()
        if not epsilon > 0:
            raise ValueError(f"epsilon={epsilon!r} must be > 0")
        self.domain = (float(domain[0]), float(domain[1]))
        if not self.domain[0] < self.domain[1]:
            raise ValueError(f"domain={domain!r} must have lower < upper")
        self._target_epsilon = float(epsilon)
        self.epsilon = float(self._measurement.map(1))

    def _chain(self, dp: Any, scale: float) -> Any:
        space = dp.vector_domain(dp.atom_domain(T=float, nan=False)), dp.symmetric_distance()
        return space >> dp.t.then_clamp(self.domain) >> dp.t.then_sum() >> dp.m.then_laplace(scale)

    def _build(self, dp: Any) -> Any:
        scale = dp.binary_search_param(
            lambda s: self._chain(dp, s), d_in=1, d_out=self._target_epsilon
        )
        return self._chain(dp, scale)

    def sample(self, query: Any, n: int) -> np.ndarray:
        """``n`` releases on dataset ``query`` (1-D records; clamped to ``domain`` by OpenDP)."""
        records = [float(x) for x in np.asarray(query, dtype=np.float64).ravel()]
        measurement = self._measurement
        return np.fromiter((measurement(records) for _ in range(n)), np.float64, count=n)


def builtin_adapters() -> list[Any]:
    """OpenDP's measurements at their default audit parameters (raises ImportError if absent)."""
    _prelude()
    return [
        Laplace(),
        LaplaceInteger(),
        Geometric(),
        Gaussian(),
        NoisyMax(),
        RandomizedResponseBool(),
        ClampedSum(),
    ]
