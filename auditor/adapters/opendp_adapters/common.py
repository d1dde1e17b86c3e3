"""What every OpenDP adapter shares: the library prelude, repeated invocation, the parameter
spaces, the Gaussian calibration and the measurement-building base class.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

from auditor.adapters._provenance import installed_version
from auditor.adapters.base import NamedRepr, call_source, keywords, module_source
from auditor.core.source import literal
from auditor.core.space import Choice, Configurable, Range

_LIBRARY = "opendp"

# Parameter spaces (``dp-audit run --search``, docs/search.md): what OpenDP accepts and users
# plausibly pass.  Each adapter's ``space`` names arguments of its own constructor; epsilon,
# delta and rho are the targets OpenDP calibrates to.
EPSILON = Range(0.01, 10.0, log=True)
DELTA = Range(1e-12, 0.1, log=True)
SENSITIVITY = Range(1e-3, 1e6, log=True)
INTEGER_SENSITIVITY = Range(1, 1e6, log=True, integer=True)
#: bounds of the records: unit, symmetric, wide, large magnitude
BOUNDS = Choice(((0.0, 1.0), (-10.0, 10.0), (-1000.0, 1000.0), (0.0, 1e6)))

#: reproducers' source of the float vector domain the adapters build
FLOAT_VECTORS = "dp.vector_domain(dp.atom_domain(T=float, nan=False))"
#: ... of the L∞ metric of scores, by ``monotonic``
LINF = {m: f"dp.linf_distance(T=float, monotonic={m})" for m in (False, True)}
#: ... and of the input domain, metric and measure of the report-noisy-max adapters
SCORES = [FLOAT_VECTORS, LINF[False], "dp.max_divergence()"]


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
GAUSSIAN_SCALES = (2.0**-5, 2.0**40)


def laplace_float(dp: Any, scale: float) -> Any:
    """``make_laplace`` on float vectors (L1) at ``scale``: the scalar and the vector Laplace."""
    space = dp.vector_domain(dp.atom_domain(T=float, nan=False)), dp.l1_distance(T=float)
    return dp.m.make_laplace(*space, scale=scale)


def laplace_source(scale: float) -> str:
    """Reproducer source building ``measurement``: ``make_laplace`` on float vectors (L1)."""
    space = [FLOAT_VECTORS, "dp.l1_distance(T=float)"]
    return call_source("measurement = dp.m.make_laplace", [*space, *keywords(scale=scale)])


def _gaussian_approx_dp_source(scale: float, delta: float) -> str:
    """:func:`_gaussian_approx_dp` as reproducer source, building ``measurement``."""
    zcdp = call_source(
        "zcdp = dp.m.make_gaussian",
        [FLOAT_VECTORS, "dp.l2_distance(T=float)", *keywords(scale=scale)],
    )
    conversion = "dp.c.make_zCDP_to_approxDP(zcdp)"
    return f"{zcdp}\nmeasurement = dp.c.make_fix_delta({conversion}, {literal(delta)})"


class OpenDPAdapter(NamedRepr, Configurable):
    """Provenance, and a measurement rebuilt on demand (OpenDP objects do not pickle)."""

    library = _LIBRARY
    vectorised = False
    #: OpenDP draws every random bit from OpenSSL's CSPRNG (``fill_bytes``), seeded per
    #: process: copies in several workers never replay one stream, though none can be seeded
    os_entropy = True
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


def check_epsilon(epsilon: float) -> float:
    if not epsilon > 0:
        raise ValueError(f"epsilon={epsilon!r} must be > 0")
    return float(epsilon)


def rows_sample(name: str, value: str, width: int) -> str:
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


def release_rows(measurement: Any, argument: Any, n: int, width: int) -> np.ndarray:
    """``n`` calls of ``measurement(argument)``, each releasing ``width`` integers: int64 array
    (n, width); what :func:`rows_sample`'s reproducer does."""
    out = np.empty((n, width), dtype=np.int64)
    for i in range(n):
        out[i] = measurement(argument)
    return out


class GaussianApproxDP(OpenDPAdapter):
    """The Gaussians under (ε, δ) (scalar and vector): ``make_gaussian`` turned into (ε, δ) at
    the target delta, at the scale OpenDP's search finds for the target (ε, δ)."""

    sensitivity: float
    _target_epsilon: float
    _target_delta: float

    def _chain(self, dp: Any, scale: float) -> Any:
        return _gaussian_approx_dp(dp, scale, self._target_delta)

    def _build(self, dp: Any) -> Any:
        return self._calibrated(dp, self.sensitivity, (self._target_epsilon, self._target_delta))

    def _measurement_source(self) -> str:
        return _gaussian_approx_dp_source(self._calibrated_scale(), self._target_delta)
