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
from collections.abc import Iterator
from typing import Any

import numpy as np

from auditor.adapters._provenance import as_integer, installed_version
from auditor.adapters.base import call_source, keywords, module_source
from auditor.core.source import literal
from auditor.core.space import Choice, Configurable, Range

_LIBRARY = "opendp"

# Parameter spaces (``dp-audit run --search``, docs/search.md): what OpenDP accepts and users
# plausibly pass.  Each adapter's ``space`` names arguments of its own constructor; epsilon,
# delta and rho are the targets OpenDP calibrates to.
_EPSILON = Range(0.01, 10.0, log=True)
_DELTA = Range(1e-12, 0.1, log=True)
_SENSITIVITY = Range(1e-3, 1e6, log=True)
_INTEGER_SENSITIVITY = Range(1, 1e6, log=True, integer=True)
#: bounds of the records: unit, symmetric, wide, large magnitude
_BOUNDS = Choice(((0.0, 1.0), (-10.0, 10.0), (-1000.0, 1000.0), (0.0, 1e6)))

#: reproducers' source of the float vector domain the adapters build
_FLOAT_VECTORS = "dp.vector_domain(dp.atom_domain(T=float, nan=False))"
#: ... of the L∞ metric of scores, by ``monotonic``
_LINF = {m: f"dp.linf_distance(T=float, monotonic={m})" for m in (False, True)}
#: ... and of the input domain, metric and measure of the report-noisy-max adapters
_SCORES = [_FLOAT_VECTORS, _LINF[False], "dp.max_divergence()"]


def _prelude() -> Any:
    """``opendp.prelude`` with the ``contrib`` feature enabled (ImportError if not installed)."""
    import opendp.prelude as dp

    dp.enable_features("contrib")
    return dp


def invoke_many(measurement: Any, arg: Any, n: int) -> Iterator[Any]:
    """``measurement(arg)`` ``n`` times, each an independent release.  The argument is
    converted to OpenDP's carrier once, not at every call: ``Measurement.__call__`` converts
    the same Python value anew each time, half the cost of a call.  The library function
    invoked is the same; with another OpenDP layout, the public call is used."""
    try:
        from opendp._convert import c_to_py, py_to_c
        from opendp._lib import AnyObjectPtr, FfiResult, lib, unwrap
        from opendp.core import measurement_input_carrier_type
        from opendp.mod import Measurement

        c_this = py_to_c(measurement, c_type=Measurement, type_name=None)
        carrier = measurement_input_carrier_type(measurement)
        c_arg = py_to_c(arg, c_type=AnyObjectPtr, type_name=carrier)
        invoke = lib.opendp_core__measurement_invoke
        invoke.argtypes, invoke.restype = [Measurement, AnyObjectPtr], FfiResult
    except (ImportError, AttributeError):
        return (measurement(arg) for _ in range(n))
    return (c_to_py(unwrap(invoke(c_this, c_arg), AnyObjectPtr)) for _ in range(n))


def _gaussian_approx_dp(dp: Any, scale: float, delta: float) -> Any:
    """OpenDP's Gaussian on float vectors (L2), its zCDP turned into (ε, δ) at ``delta`` by the
    library's own conversion: the scalar and the vector adapters audit the same chain."""
    space = dp.vector_domain(dp.atom_domain(T=float, nan=False)), dp.l2_distance(T=float)
    zcdp = dp.m.make_gaussian(*space, scale=scale)
    return dp.c.make_fix_delta(dp.c.make_zCDP_to_approxDP(zcdp), delta)


#: the Gaussians' scale search, per unit of sensitivity: OpenDP's exponential search tries
#: scales so small that its zCDP -> (eps, delta) conversion overflows for sensitivities above
#: about 100 (and takes a minute to fail); 1/32 is below the scale epsilon = 50 needs at
#: delta = 0.1 (0.36), 2^40 far above what epsilon = 1e-4 needs at delta = 1e-30 (1.2e5)
_GAUSSIAN_SCALES = (2.0**-5, 2.0**40)


def _laplace_source(scale: float) -> str:
    """Reproducer source building ``measurement``: ``make_laplace`` on float vectors (L1)."""
    space = [_FLOAT_VECTORS, "dp.l1_distance(T=float)"]
    return call_source("measurement = dp.m.make_laplace", [*space, *keywords(scale=scale)])


def _gaussian_approx_dp_source(scale: float, delta: float) -> str:
    """:func:`_gaussian_approx_dp` as reproducer source, building ``measurement``."""
    zcdp = call_source(
        "zcdp = dp.m.make_gaussian",
        [_FLOAT_VECTORS, "dp.l2_distance(T=float)", *keywords(scale=scale)],
    )
    conversion = "dp.c.make_zCDP_to_approxDP(zcdp)"
    return f"{zcdp}\nmeasurement = dp.c.make_fix_delta({conversion}, {literal(delta)})"


class _OpenDPAdapter(Configurable):
    """Provenance, and a measurement rebuilt on demand (OpenDP objects do not pickle)."""

    library = _LIBRARY
    vectorised = False
    name = "opendp.?"
    #: the noise scale OpenDP's search found (see ``_calibrated``)
    _scale: float
    #: where that search looks, per unit of ``d_in`` (None: OpenDP's own exponential search)
    _scale_bracket: tuple[float, float] | None = None
    #: the reproducer's ``sample``, calling ``measurement`` (see ``_sample_source``)
    _reproducer_sample = ""

    def __init__(self) -> None:
        self.library_version = installed_version(_LIBRARY)
        self._measurement_cache: Any = None

    def _build(self, dp: Any) -> Any:
        raise NotImplementedError

    def _chain(self, dp: Any, scale: float) -> Any:
        raise NotImplementedError

    def _calibrated(self, dp: Any, d_in: Any, d_out: Any) -> Any:
        """``_chain`` at the noise scale OpenDP's own search finds for ``d_in -> d_out``: the
        claim is what the library computes, not what this adapter derives."""
        bounds = {}
        if self._scale_bracket is not None:
            bounds["bounds"] = tuple(float(d_in) * b for b in self._scale_bracket)
        scale = dp.binary_search_param(
            lambda s: self._chain(dp, s), d_in=d_in, d_out=d_out, **bounds
        )
        self._scale = scale
        return self._chain(dp, scale)

    def _calibrated_scale(self) -> float:
        """The scale ``_calibrated`` found for this adapter's measurement."""
        self._measurement  # noqa: B018  (built, so calibrated)
        return self._scale

    def _measurement_source(self) -> str:
        """Reproducer source building ``measurement`` (``dp``: ``opendp.prelude``)."""
        raise NotImplementedError

    def reproducer_source(self) -> str:
        """Python source, runnable on its own, that draws this adapter's outputs without
        dp-audit: the same measurement, then ``sample`` as here (OpenDP cannot be seeded)."""
        return module_source(
            self,
            ["import numpy as np", "import opendp.prelude as dp"],
            f'dp.enable_features("contrib")\n{self._measurement_source()}',
            self._sample_source(),
        )

    def _sample_source(self) -> str:
        return self._reproducer_sample

    @property
    def _measurement(self) -> Any:
        if self._measurement_cache is None:
            self._measurement_cache = self._build(_prelude())
        return self._measurement_cache

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state["_measurement_cache"] = None
        state.pop("_pieces", None)  # OpenDP objects do not pickle; rebuilt on demand
        return state

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}>"


class _VectorNoise(_OpenDPAdapter):
    """Additive noise on a vector domain: ``n`` copies of the query in one call."""

    family = "additive"
    vectorised = True
    delta = 0.0
    integer_queries = False
    space = {"epsilon": _EPSILON, "sensitivity": _SENSITIVITY}

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
        space = dp.vector_domain(dp.atom_domain(T=float, nan=False)), dp.l1_distance(T=float)
        return dp.m.make_laplace(*space, scale=self.sensitivity / self._target_epsilon)

    def _measurement_source(self) -> str:
        return _laplace_source(self.sensitivity / self._target_epsilon)


class LaplaceInteger(_VectorNoise):
    """``make_laplace`` on ``vector_domain(atom_domain(T="i64"))``: discrete Laplace."""

    name = "opendp.laplace_int"
    description = "opendp make_laplace on i64 (exact discrete Laplace), vector domain"
    integer_queries = True
    #: the ``opendp.measurements`` constructor
    _constructor = "make_laplace"
    space = {"epsilon": _EPSILON, "sensitivity": _INTEGER_SENSITIVITY}

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


class Gaussian(_VectorNoise):
    """``make_gaussian`` (zCDP) converted to (ε, δ) by ``make_zCDP_to_approxDP`` + ``make_fix_delta``.

    The noise scale is OpenDP's own binary search for the smallest scale meeting (ε, δ).
    """

    name = "opendp.gaussian"
    description = (
        "opendp make_gaussian on floats (discrete Gaussian at a 2^k grid), zCDP -> (eps, delta)"
    )
    space = {"epsilon": _EPSILON, "delta": _DELTA, "sensitivity": _SENSITIVITY}
    _scale_bracket = _GAUSSIAN_SCALES

    def __init__(self, epsilon: float = 1.0, delta: float = 1e-6, sensitivity: float = 1.0) -> None:
        if not 0 < delta < 1:
            raise ValueError(f"delta={delta!r} must be in (0, 1)")
        self._target_delta = float(delta)
        super().__init__(epsilon, float(sensitivity))

    def _chain(self, dp: Any, scale: float) -> Any:
        return _gaussian_approx_dp(dp, scale, self._target_delta)

    def _build(self, dp: Any) -> Any:
        return self._calibrated(dp, self.sensitivity, (self._target_epsilon, self._target_delta))

    def _measurement_source(self) -> str:
        return _gaussian_approx_dp_source(self._calibrated_scale(), self._target_delta)

    def _claim(self) -> tuple[float, float]:
        epsilon, delta = self._measurement.map(self.sensitivity)
        return float(epsilon), float(delta)


class GaussianZCDP(_VectorNoise):
    """``make_gaussian`` audited against the promise OpenDP makes for it: rho-zCDP, its own
    privacy measure (``opendp.gaussian`` audits the (ε, δ) the library converts it to)."""

    name = "opendp.gaussian_zcdp"
    description = "opendp make_gaussian on floats (discrete Gaussian at a 2^k grid), as rho-zCDP"
    space = {"rho": Range(1e-3, 10.0, log=True), "sensitivity": _SENSITIVITY}

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
            "measurement = dp.m.make_gaussian", [_FLOAT_VECTORS, "dp.l2_distance(T=float)", *scale]
        )

    def _claim(self) -> tuple[float, float]:
        from auditor.core.claim_kinds import ZeroConcentratedDP

        self.claim = ZeroConcentratedDP(float(self._measurement.map(self.sensitivity)))
        return self.claim.epsilon, self.claim.delta


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
    space = {"epsilon": _EPSILON, "sensitivity": _SENSITIVITY}
    _reproducer_sample = """
        def sample(query, n):
            scores = [float(u) for u in np.asarray(query, dtype=np.float64).ravel()]
            return np.fromiter((measurement(scores) for _ in range(n)), np.int64, count=n)
        """

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

    def _measurement_source(self) -> str:
        scale = keywords(scale=2.0 * self.sensitivity / self._target_epsilon)
        return call_source("measurement = dp.m.make_noisy_max", [*_SCORES, *scale])

    def sample(self, query: Any, n: int) -> np.ndarray:
        """``n`` selected indices in ``[0, k)`` for score vector ``query``."""
        scores = [float(u) for u in np.asarray(query, dtype=np.float64).ravel()]
        return np.fromiter(invoke_many(self._measurement, scores, n), np.int64, count=n)


class RandomizedResponseBool(_OpenDPAdapter):
    """``make_randomized_response_bool`` with keep-probability e^ε/(1 + e^ε).

    Not vectorised: the bit-vector variant (``make_randomized_response_bitvec``) needs a
    ``max_weight`` on its domain, and ``n`` copies of a 1 bit fall outside any small one.
    """

    name = "opendp.randomized_response"
    family = "binary"
    delta = 0.0
    description = "opendp make_randomized_response_bool (keep with prob e^eps/(1+e^eps))"
    space = {"epsilon": _EPSILON}
    _reproducer_sample = """
        def sample(query, n):
            value = bool(int(query))
            return np.fromiter((int(measurement(value)) for _ in range(n)), np.int64, count=n)
        """

    def __init__(self, epsilon: float = 1.0) -> None:
        super().__init__()
        if not epsilon > 0:
            raise ValueError(f"epsilon={epsilon!r} must be > 0")
        self._target_epsilon = float(epsilon)
        self.epsilon = float(self._measurement.map(1))

    def _keep(self) -> float:
        return 1.0 / (1.0 + math.exp(-self._target_epsilon))

    def _build(self, dp: Any) -> Any:
        return dp.m.make_randomized_response_bool(prob=self._keep())

    def _measurement_source(self) -> str:
        probability = keywords(prob=self._keep())
        return call_source("measurement = dp.m.make_randomized_response_bool", probability)

    def sample(self, query: int, n: int) -> np.ndarray:
        """``n`` released bits (0/1) for the true bit ``query``."""
        bit = as_integer(query)
        if bit not in (0, 1):
            raise ValueError(f"query={query!r} must be a bit, 0 or 1")
        releases = invoke_many(self._measurement, bool(bit), n)
        return np.fromiter((int(r) for r in releases), np.int64, count=n)


#: the reproducer's ``sample`` of adapters called on a dataset of float records once per output
_RECORDS_SAMPLE = """
    def sample(query, n):
        records = [float(x) for x in np.asarray(query, dtype=np.float64).ravel()]
        return np.fromiter((measurement(records) for _ in range(n)), np.float64, count=n)
    """


class ClampedSum(_OpenDPAdapter):
    """Pipeline ``then_clamp(domain) >> then_sum() >> then_laplace(scale)`` on float records.

    The neighbour relation is OpenDP's ``symmetric_distance`` with d_in = ``max_contributions``
    (1: add or remove one record; k: one user's up to k records).  The scale is OpenDP's binary
    search for the smallest one meeting ε at that d_in; the float sum's rounding error is part
    of OpenDP's own sensitivity (CSVW22).

    Sampled in one call (``vectorised``): the pipeline's clamp >> sum, OpenDP's own
    transformation, once per dataset, then ``n`` copies of that sum through OpenDP's Laplace on
    a float vector at the calibrated scale, which adds independent noise to every entry by the
    same sampler the scalar step uses (a test compares the two laws; the reproducer calls the
    whole pipeline once per output).  Per-output calls cost five times as much.
    """

    name = "opendp.clamped_sum"
    vectorised = True
    family = "dataset"
    delta = 0.0
    neighbours = "add_remove"
    description = "opendp clamp >> sum (float, rounding-aware sensitivity) >> laplace"
    space = {"epsilon": _EPSILON, "domain": _BOUNDS}
    _reproducer_sample = _RECORDS_SAMPLE

    def __init__(
        self,
        epsilon: float = 1.0,
        domain: tuple[float, float] = (0.0, 1.0),
        max_contributions: int = 1,
    ) -> None:
        super().__init__()
        if not epsilon > 0:
            raise ValueError(f"epsilon={epsilon!r} must be > 0")
        self.domain = (float(domain[0]), float(domain[1]))
        if not self.domain[0] < self.domain[1]:
            raise ValueError(f"domain={domain!r} must have lower < upper")
        if not (isinstance(max_contributions, int) and max_contributions >= 1):
            raise ValueError(f"max_contributions={max_contributions!r} must be a whole number >= 1")
        self.max_contributions = max_contributions
        if max_contributions > 1:
            self.name = f"opendp.clamped_sum(max_contributions={max_contributions})"
        self._target_epsilon = float(epsilon)
        self.epsilon = float(self._measurement.map(max_contributions))

    def _chain(self, dp: Any, scale: float) -> Any:
        space = dp.vector_domain(dp.atom_domain(T=float, nan=False)), dp.symmetric_distance()
        return space >> dp.t.then_clamp(self.domain) >> dp.t.then_sum() >> dp.m.then_laplace(scale)

    def with_parameters(self, **values: Any) -> ClampedSum:
        """The same per-user relation at another point of ``space``."""
        return type(self)(**values, max_contributions=self.max_contributions)

    def _build(self, dp: Any) -> Any:
        return self._calibrated(dp, self.max_contributions, self._target_epsilon)

    def _measurement_source(self) -> str:
        clamp, scale = literal(self.domain), literal(self._calibrated_scale())
        return (
            f"space = {_FLOAT_VECTORS}, dp.symmetric_distance()\n"
            f"clamped_sum = space >> dp.t.then_clamp({clamp}) >> dp.t.then_sum()\n"
            f"measurement = clamped_sum >> dp.m.then_laplace({scale})"
        )

    @property
    def _sum_then_noise(self) -> tuple[Any, Any]:
        """The pipeline's transformation and its Laplace step on float vectors (n at once)."""
        if self.__dict__.get("_pieces") is None:
            dp, scale = _prelude(), self._calibrated_scale()
            space = dp.vector_domain(dp.atom_domain(T=float, nan=False)), dp.symmetric_distance()
            clamped_sum = space >> dp.t.then_clamp(self.domain) >> dp.t.then_sum()
            floats = dp.vector_domain(dp.atom_domain(T=float, nan=False)), dp.l1_distance(T=float)
            self._pieces = (clamped_sum, dp.m.make_laplace(*floats, scale=scale))
        return self._pieces

    def sample(self, query: Any, n: int) -> np.ndarray:
        """``n`` releases on dataset ``query`` (1-D records; clamped to ``domain`` by OpenDP)."""
        records = [float(x) for x in np.asarray(query, dtype=np.float64).ravel()]
        if n == 0:
            return np.empty(0, dtype=np.float64)
        clamped_sum, noise = self._sum_then_noise
        return np.asarray(noise([clamped_sum(records)] * n), dtype=np.float64)

    def sample_per_call(self, query: Any, n: int) -> np.ndarray:
        """``n`` releases by the whole pipeline, one call each (what users call; the test of
        ``sample``'s law compares against it)."""
        records = [float(x) for x in np.asarray(query, dtype=np.float64).ravel()]
        measurement = self._measurement
        return np.fromiter((measurement(records) for _ in range(n)), np.float64, count=n)


def _check_epsilon(epsilon: float) -> float:
    if not epsilon > 0:
        raise ValueError(f"epsilon={epsilon!r} must be > 0")
    return float(epsilon)


class _VectorQuery(_OpenDPAdapter):
    """Noise on a vector query (``input_kind = "vector"``): one call on the n releases' entries
    laid end to end releases them all, as OpenDP adds independent noise to every entry
    (``vectorised = True``, like the scalar adapters above)."""

    input_kind = "vector"
    output_kind = "real"
    output_length = "query"
    vectorised = True
    delta = 0.0
    space = {
        "epsilon": _EPSILON,
        "sensitivity": _SENSITIVITY,
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
        self._target_epsilon = _check_epsilon(epsilon)
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
        space = dp.vector_domain(dp.atom_domain(T=float, nan=False)), dp.l1_distance(T=float)
        return dp.m.make_laplace(*space, scale=self.sensitivity / self._target_epsilon)

    def _measurement_source(self) -> str:
        return _laplace_source(self.sensitivity / self._target_epsilon)


class VectorGaussian(_VectorQuery):
    """``make_gaussian`` on a float vector domain with ``l2_distance`` (zCDP), converted by
    ``make_zCDP_to_approxDP`` and ``make_fix_delta``; the scale is OpenDP's binary search for
    the smallest one meeting (ε, δ); claim ``measurement.map(Δ₂)``."""

    name = "opendp.vector_gaussian"
    norm = "l2"
    space = {**_VectorQuery.space, "delta": _DELTA}
    _scale_bracket = _GAUSSIAN_SCALES

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

    def _chain(self, dp: Any, scale: float) -> Any:
        return _gaussian_approx_dp(dp, scale, self._target_delta)

    def _build(self, dp: Any) -> Any:
        return self._calibrated(dp, self.sensitivity, (self._target_epsilon, self._target_delta))

    def _measurement_source(self) -> str:
        return _gaussian_approx_dp_source(self._calibrated_scale(), self._target_delta)


def _rows_sample(name: str, value: str, width: int) -> str:
    """The reproducer's ``sample`` of an adapter releasing ``width`` integers per call on the
    list ``name`` (``value``: its source, from ``query``)."""
    return f"""
        def sample(query, n):
            {name} = {value}
            out = np.empty((n, {width}), dtype=np.int64)
            for i in range(n):
                out[i] = measurement({name})
            return out
        """


class CountByCategories(_OpenDPAdapter):
    """``then_count_by_categories`` (one count per category plus a null category for records
    outside them) ``>> then_laplace`` on the integer counts (discrete Laplace).

    Records are integers in ``domain``; the categories are ``0 .. categories - 1`` and the
    domain's last value falls in the null category.  Neighbours: OpenDP's
    ``symmetric_distance`` with d_in = 1, i.e. add or remove one record.  The scale is OpenDP's
    binary search for ε; the claim is ``measurement.map(1)``.
    """

    name = "opendp.count_by_categories"
    input_kind = "dataset"
    neighbours = "add_remove"
    output_kind = "integer"
    delta = 0.0
    space = {"epsilon": _EPSILON, "categories": Range(1, 64, log=True, integer=True)}

    def __init__(self, epsilon: float = 1.0, categories: int = 4) -> None:
        super().__init__()
        self._target_epsilon = _check_epsilon(epsilon)
        self.categories = list(range(as_integer(categories, "categories")))
        self.domain = (0, len(self.categories))  # the last value: outside every category
        self.output_length = len(self.categories) + 1
        self.epsilon = float(self._measurement.map(1))
        self.description = (
            f"opendp then_count_by_categories(categories={self.categories}, null_category=True)"
            " >> then_laplace (discrete Laplace on i64 counts); claim from measurement.map(1)"
        )

    def _chain(self, dp: Any, scale: float) -> Any:
        space = dp.vector_domain(dp.atom_domain(T="i64")), dp.symmetric_distance()
        counts = dp.t.then_count_by_categories(
            categories=self.categories, null_category=True, MO=dp.L1Distance[int], TOA=int
        )
        return space >> counts >> dp.m.then_laplace(scale)

    def _build(self, dp: Any) -> Any:
        return self._calibrated(dp, 1, self._target_epsilon)

    def _measurement_source(self) -> str:
        arguments = keywords(categories=self.categories, null_category=True)
        counts = call_source(
            "counts = dp.t.then_count_by_categories",
            [*arguments, "MO=dp.L1Distance[int]", "TOA=int"],
        )
        scale = literal(self._calibrated_scale())
        return (
            'space = dp.vector_domain(dp.atom_domain(T="i64")), dp.symmetric_distance()\n'
            f"{counts}\nmeasurement = space >> counts >> dp.m.then_laplace({scale})"
        )

    def _sample_source(self) -> str:
        records = "[int(x) for x in np.asarray(query).ravel()]"
        return _rows_sample("records", records, self.output_length)

    def sample(self, query: Any, n: int) -> np.ndarray:
        """``n`` releases on dataset ``query`` (integer records): shape (n, categories + 1)."""
        records = [as_integer(x, "record") for x in np.asarray(query).ravel()]
        measurement = self._measurement
        out = np.empty((n, self.output_length), dtype=np.int64)
        for i in range(n):
            out[i] = measurement(records)
        return out


class NoisyTopK(_OpenDPAdapter):
    """``make_noisy_top_k`` under ``max_divergence()``: the k best noisy scores' indices, best
    first (exponential noise; scale by OpenDP's binary search for ε); claim
    ``measurement.map(Δ)``.  Scores may move by Δ in L∞ (``monotonic=False``)."""

    name = "opendp.noisy_top_k"
    input_kind = "vector"
    norm = "linf"
    monotone = False
    output_kind = "index_set"
    ordered = True
    delta = 0.0
    #: k from 1 to 8: the attacks' score vectors have 10
    #: entries (``attacks.neighbours``)
    space = {
        "epsilon": _EPSILON,
        "k": Range(1, 8, integer=True),
        "sensitivity": _SENSITIVITY,
    }

    def __init__(self, epsilon: float = 1.0, k: int = 3, sensitivity: float = 1.0) -> None:
        super().__init__()
        self._target_epsilon = _check_epsilon(epsilon)
        self.k = self.output_length = as_integer(k, "k")
        self.sensitivity = float(sensitivity)
        self.epsilon = float(self._measurement.map(self.sensitivity))
        self.description = (
            f"opendp make_noisy_top_k(k={self.k}), max_divergence (exponential noise), "
            f"{'monotonic' if self.monotone else 'non-monotonic'} linf scores; claim from "
            "measurement.map"
        )

    def _chain(self, dp: Any, scale: float) -> Any:
        return dp.m.make_noisy_top_k(
            dp.vector_domain(dp.atom_domain(T=float, nan=False)),
            dp.linf_distance(T=float, monotonic=self.monotone),
            dp.max_divergence(),
            k=self.k,
            scale=scale,
        )

    def _build(self, dp: Any) -> Any:
        return self._calibrated(dp, self.sensitivity, self._target_epsilon)

    def _measurement_source(self) -> str:
        arguments = keywords(k=self.k, scale=self._calibrated_scale())
        scores = [_FLOAT_VECTORS, _LINF[self.monotone], "dp.max_divergence()"]
        return call_source("measurement = dp.m.make_noisy_top_k", [*scores, *arguments])

    def _sample_source(self) -> str:
        scores = "[float(u) for u in np.asarray(query, dtype=np.float64).ravel()]"
        return _rows_sample("scores", scores, self.k)

    def sample(self, query: Any, n: int) -> np.ndarray:
        """``n`` releases of k indices into the score vector ``query``: shape (n, k)."""
        scores = [float(u) for u in np.asarray(query, dtype=np.float64).ravel()]
        measurement = self._measurement
        out = np.empty((n, self.k), dtype=np.int64)
        for i in range(n):
            out[i] = measurement(scores)
        return out


class PrivateQuantile(_OpenDPAdapter):
    """``make_private_quantile`` (Smith's quantile scores over public candidates, selected by
    report-noisy-max) under ``symmetric_distance`` and ``max_divergence()``: one candidate per
    release.  Claim ``measurement.map(1)``: add or remove one record."""

    name = "opendp.private_quantile"
    input_kind = "dataset"
    neighbours = "add_remove"
    output_kind = "real"
    delta = 0.0
    _reproducer_sample = _RECORDS_SAMPLE
    space = {
        "epsilon": _EPSILON,
        "alpha": Range(0.05, 0.95),
        "domain": _BOUNDS,
        "candidates": Range(3, 201, log=True, integer=True),
    }

    def __init__(
        self,
        epsilon: float = 1.0,
        alpha: float = 0.5,
        domain: tuple[float, float] = (0.0, 100.0),
        candidates: int = 21,
    ) -> None:
        super().__init__()
        self._target_epsilon = _check_epsilon(epsilon)
        self.alpha = float(alpha)
        self.domain = (float(domain[0]), float(domain[1]))
        if not self.domain[0] < self.domain[1]:
            raise ValueError(f"domain={domain!r} must have lower < upper")
        self.candidates = [float(c) for c in np.linspace(*self.domain, as_integer(candidates))]
        self.epsilon = float(self._measurement.map(1))
        self.description = (
            f"opendp make_private_quantile(alpha={self.alpha:g}, {len(self.candidates)} "
            f"candidates over {self.domain}), max_divergence; claim from measurement.map(1)"
        )

    def _chain(self, dp: Any, scale: float) -> Any:
        return dp.m.make_private_quantile(
            dp.vector_domain(dp.atom_domain(T=float, nan=False)),
            dp.symmetric_distance(),
            dp.max_divergence(),
            candidates=self.candidates,
            alpha=self.alpha,
            scale=scale,
        )

    def _build(self, dp: Any) -> Any:
        return self._calibrated(dp, 1, self._target_epsilon)

    def _measurement_source(self) -> str:
        candidates = call_source("candidates = ", [*map(literal, self.candidates)], "[]")
        space = [_FLOAT_VECTORS, "dp.symmetric_distance()", "dp.max_divergence()"]
        arguments = [*space, "candidates=candidates"]
        arguments += keywords(alpha=self.alpha, scale=self._calibrated_scale())
        return f"{candidates}\n" + call_source(
            "measurement = dp.m.make_private_quantile", arguments
        )

    def sample(self, query: Any, n: int) -> np.ndarray:
        """``n`` releases on dataset ``query`` (1-D float records): one candidate each."""
        records = [float(x) for x in np.asarray(query, dtype=np.float64).ravel()]
        return np.fromiter(invoke_many(self._measurement, records, n), np.float64, count=n)


class RandomizedResponseBitvec(_OpenDPAdapter):
    """``make_randomized_response_bitvec`` (RAPPOR's permanent randomized response: each bit
    replaced by a fair coin with probability f) on the one-hot encoding of a value in
    ``0 .. m - 1`` (``bitvector_domain(max_weight=1)``, the unary encoding); local DP.

    Claim ``measurement.map(1)`` under ``discrete_distance``: any two inputs of weight <= 1,
    ``2 * 1 * ln((2 - f) / f)`` by its docstring.  The default f makes that 1.
    """

    name = "opendp.randomized_response_bitvec"
    input_kind = "local"
    output_kind = "boolean"
    delta = 0.0
    #: f from 0.01 to 0.99 claims epsilon from about 10.6 down to 0.04
    space = {"f": Range(0.01, 0.99, log=True), "m": Range(2, 64, log=True, integer=True)}

    def __init__(self, f: float = 2 / (1 + math.exp(0.5)), m: int = 8) -> None:
        super().__init__()
        if not 0 < f <= 1:
            raise ValueError(f"f={f!r} must be in (0, 1]")
        self.f = float(f)
        self.output_length = as_integer(m, "m")
        self.domain = (0, self.output_length - 1)
        self.epsilon = float(self._measurement.map(1))
        self.description = (
            f"opendp make_randomized_response_bitvec(f={self.f:.6g}) on the one-hot encoding "
            f"of a value in 0..{self.output_length - 1} (max_weight=1); claim from "
            "measurement.map(1)"
        )

    def _build(self, dp: Any) -> Any:
        return dp.m.make_randomized_response_bitvec(
            dp.bitvector_domain(max_weight=1), dp.discrete_distance(), f=self.f
        )

    def _measurement_source(self) -> str:
        space = ["dp.bitvector_domain(max_weight=1)", "dp.discrete_distance()"]
        f = keywords(f=self.f)
        return call_source("measurement = dp.m.make_randomized_response_bitvec", [*space, *f])

    def _sample_source(self) -> str:
        m = self.output_length
        return f"""
            def sample(query, n):
                bits = np.zeros({m}, dtype=np.uint8)
                bits[int(query)] = 1
                data = np.packbits(bits).tobytes()
                out = np.empty((n, {m}), dtype=np.int8)
                for i in range(n):
                    out[i] = np.unpackbits(np.frombuffer(measurement(data), dtype=np.uint8))[:{m}]
                return out
            """

    def sample(self, query: int, n: int) -> np.ndarray:
        """``n`` released bit vectors (0/1, shape (n, m)) for the value ``query``."""
        value = as_integer(query)
        if not 0 <= value < self.output_length:
            raise ValueError(f"query={query!r} must be in 0..{self.output_length - 1}")
        bits = np.zeros(self.output_length, dtype=np.uint8)
        bits[value] = 1
        data = np.packbits(bits).tobytes()
        measurement = self._measurement
        out = np.empty((n, self.output_length), dtype=np.int8)
        for i in range(n):
            released = np.frombuffer(measurement(data), dtype=np.uint8)
            out[i] = np.unpackbits(released)[: self.output_length]
        return out


class NoisyTopKMonotonic(NoisyTopK):
    """:class:`NoisyTopK` under ``linf_distance(monotonic=True)``: scores that all move the same
    way (counts under add/remove), for which OpenDP's ``map`` halves the privacy loss of a
    given noise scale.  Its audit uses only pairs that move every score alike."""

    name = "opendp.noisy_top_k.monotonic"
    monotone = True


def builtin_adapters() -> list[Any]:
    """OpenDP's measurements at their default audit parameters (raises ImportError if absent)."""
    _prelude()
    return [
        Laplace(),
        LaplaceInteger(),
        Geometric(),
        Gaussian(),
        GaussianZCDP(),
        NoisyMax(),
        RandomizedResponseBool(),
        ClampedSum(),
    ]


def vector_adapters() -> list[Any]:
    """OpenDP's vector, sequence and dataset-output measurements (opt-in, like every library
    vector group: several call the library once per output)."""
    _prelude()
    return [
        VectorLaplace(),
        VectorGaussian(),
        CountByCategories(),
        NoisyTopK(),
        NoisyTopKMonotonic(),
        PrivateQuantile(),
        RandomizedResponseBitvec(),
        ClampedSum(max_contributions=3),  # user-level: one user's up to 3 records
    ]
