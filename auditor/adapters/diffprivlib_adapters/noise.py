"""diffprivlib's additive mechanisms on a scalar query (Laplace and its bounded variants, geometric,
Gaussian, snapping), with the Gaussians also read as GDP claims.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from auditor.adapters._provenance import (
    as_integer,
)
from auditor.adapters.base import call_source, keywords
from auditor.adapters.diffprivlib_adapters.common import (
    BOUNDS,
    DELTA,
    EPSILON,
    SENSITIVITY,
    DiffprivlibAdapter,
)
from auditor.core.space import Range


class _Additive(DiffprivlibAdapter):
    """An additive mechanism: ``mechanism.randomise(query)`` called ``n`` times."""

    family = "additive"
    integer_queries = False
    _dtype: type = np.float64
    #: ``_value`` in the reproducer
    _value_source = "float(query)"

    #: the class in ``diffprivlib.mechanisms`` this adapter drives
    _class: str = ""
    space = {"epsilon": EPSILON, "sensitivity": SENSITIVITY}

    def __init__(self, epsilon: float, delta: float, sensitivity: float) -> None:
        super().__init__()
        self.epsilon = float(epsilon)
        self.delta = float(delta)
        self.sensitivity = sensitivity
        self._mechanism()  # validate the parameters now, through the library

    def _arguments(self) -> dict[str, Any]:
        """The library constructor's arguments: the claim, and the bounds when declared."""
        arguments: dict[str, Any] = {"epsilon": self.epsilon, "sensitivity": self.sensitivity}
        if self.delta:
            arguments["delta"] = self.delta
        if hasattr(self, "query_bounds"):
            arguments["lower"], arguments["upper"] = self.query_bounds
        return arguments

    def _mechanism(self) -> Any:
        """A fresh library mechanism, seeded with the current ``random_state``."""
        from diffprivlib import mechanisms

        return getattr(mechanisms, self._class)(
            **self._arguments(), random_state=self._random_state
        )

    def _value(self, query: float) -> float | int:
        return float(query)

    def sample(self, query: float, n: int) -> np.ndarray:
        """``n`` independent releases of ``query``; 1-D array of length ``n``."""
        value = self._value(query)
        mechanism = self._mechanism()
        return np.fromiter((mechanism.randomise(value) for _ in range(n)), self._dtype, count=n)

    def _reproducer_code(self) -> str:
        arguments = [*keywords(**self._arguments()), "random_state=random_state"]
        dtype = f"np.{np.dtype(self._dtype).name}"
        return "\n".join(
            [
                "def sample(query, n):",
                f"    value = {self._value_source}",
                call_source(f"    mechanism = mechanisms.{self._class}", arguments),
                "    return np.fromiter("
                f"(mechanism.randomise(value) for _ in range(n)), {dtype}, count=n)",
            ]
        )


class Laplace(_Additive):
    """``diffprivlib.mechanisms.Laplace``: Laplace(Δ/ε) by its four-uniform sampler, in floats."""

    name = "diffprivlib.laplace"
    description = "diffprivlib.mechanisms.Laplace (float Laplace, 4-uniform cos/log sampler)"
    _class = "Laplace"

    def __init__(self, epsilon: float = 1.0, sensitivity: float = 1.0) -> None:
        super().__init__(epsilon, 0.0, float(sensitivity))


class LaplaceTruncated(_Additive):
    """``diffprivlib.mechanisms.LaplaceTruncated``: Laplace output clamped to ``bounds``."""

    name = "diffprivlib.laplace_truncated"
    description = "diffprivlib.mechanisms.LaplaceTruncated (Laplace, output clamped to bounds)"
    _class = "LaplaceTruncated"
    space = {**_Additive.space, "bounds": BOUNDS}

    def __init__(
        self,
        epsilon: float = 1.0,
        sensitivity: float = 1.0,
        bounds: tuple[float, float] = (-10.0, 10.0),
    ) -> None:
        self.query_bounds = (float(bounds[0]), float(bounds[1]))
        super().__init__(epsilon, 0.0, float(sensitivity))


class LaplaceBoundedDomain(LaplaceTruncated):
    """``diffprivlib.mechanisms.LaplaceBoundedDomain``: Laplace conditioned on the bounds."""

    name = "diffprivlib.laplace_bounded_domain"
    description = "diffprivlib.mechanisms.LaplaceBoundedDomain (Laplace conditioned on bounds, scale adjusted)"
    _class = "LaplaceBoundedDomain"
    #: at most the width of the smallest bounds (see ``__init__``)
    space = {**LaplaceTruncated.space, "sensitivity": Range(1e-3, 1.0, log=True)}

    def __init__(
        self,
        epsilon: float = 1.0,
        sensitivity: float = 1.0,
        bounds: tuple[float, float] = (-10.0, 10.0),
    ) -> None:
        # Beyond upper - lower the library's scale equation has no root: its scale is NaN and
        # ``randomise`` rejects every draw forever.
        if not float(sensitivity) <= float(bounds[1]) - float(bounds[0]):
            raise ValueError(f"sensitivity={sensitivity!r} must be at most upper - lower")
        super().__init__(epsilon, sensitivity, bounds)


class Geometric(_Additive):
    """``diffprivlib.mechanisms.Geometric``: two-sided geometric noise on integer queries."""

    name = "diffprivlib.geometric"
    description = "diffprivlib.mechanisms.Geometric (two-sided geometric, float log/floor sampler)"
    integer_queries = True
    _dtype = np.int64
    _value_source = "int(query)"
    _class = "Geometric"
    space = {"epsilon": EPSILON, "sensitivity": Range(1, 1e6, log=True, integer=True)}

    def __init__(self, epsilon: float = 1.0, sensitivity: int = 1) -> None:
        super().__init__(epsilon, 0.0, as_integer(sensitivity, "sensitivity"))

    def _value(self, query: float) -> int:
        return as_integer(query)


class Gaussian(_Additive):
    """``diffprivlib.mechanisms.Gaussian``: classic σ = Δ·sqrt(2 ln(1.25/δ))/ε (ε ≤ 1)."""

    name = "diffprivlib.gaussian"
    description = "diffprivlib.mechanisms.Gaussian (classic calibration, epsilon <= 1)"
    _class = "Gaussian"
    #: the library rejects epsilon > 1 for the classic calibration
    space = {
        "epsilon": Range(0.01, 1.0, log=True),
        "delta": DELTA,
        "sensitivity": SENSITIVITY,
    }

    def __init__(self, epsilon: float = 0.5, delta: float = 1e-5, sensitivity: float = 1.0) -> None:
        super().__init__(epsilon, delta, float(sensitivity))


class GaussianAnalytic(_Additive):
    """``diffprivlib.mechanisms.GaussianAnalytic``: Balle & Wang's analytic calibration."""

    name = "diffprivlib.gaussian_analytic"
    description = "diffprivlib.mechanisms.GaussianAnalytic (Balle-Wang analytic calibration)"
    _class = "GaussianAnalytic"
    space = {"epsilon": EPSILON, "delta": DELTA, "sensitivity": SENSITIVITY}

    def __init__(self, epsilon: float = 1.0, delta: float = 1e-5, sensitivity: float = 1.0) -> None:
        super().__init__(epsilon, delta, float(sensitivity))


class _NoiseAsGDP(_Additive):
    """A diffprivlib Gaussian audited against the stronger promise its noise makes.

    diffprivlib documents these mechanisms as adding N(0, σ²) noise (``randomise`` adds
    ``standard_normal * self._scale``, the normal drawn as (Z₁ + Z₂)/√2, and ``variance()``
    returns ``self._scale ** 2``).  That noise is exactly μ-GDP with μ = Δ/σ (Dong, Roth & Su,
    "Gaussian Differential Privacy", 2019, Thm. 2.7), a whole trade-off curve that implies the
    (ε, δ) point the parent adapter audits.  σ is the library's own, ``sqrt(variance(0))`` of
    the mechanism built with the library's (ε, δ): nothing is re-derived here.

    ``library_epsilon`` / ``library_delta`` are the parameters the library is called with;
    ``epsilon`` / ``delta`` are the (ε, δ) point the μ-GDP claim implies at its report δ (as
    for ``opendp.gaussian_zcdp``).  Sampling is the parent's.
    """

    #: what the library's documentation calls the mechanism, for the description
    _documented = ""

    def __init__(self, epsilon: float, delta: float, sensitivity: float) -> None:
        self.library_epsilon, self.library_delta = float(epsilon), float(delta)
        super().__init__(epsilon, delta, sensitivity)
        from auditor.core.claim_kinds import GaussianDP

        #: the noise's standard deviation, as the library computes it
        self.sigma = float(np.sqrt(self._mechanism().variance(0.0)))
        self.claim = GaussianDP(self.sensitivity / self.sigma)
        self.epsilon, self.delta = self.claim.epsilon, self.claim.delta
        self.description = (
            f"diffprivlib.mechanisms.{self._class} ({self._documented}, "
            f"eps={self.library_epsilon:g}, delta={self.library_delta:g}): the N(0, σ²) noise "
            f"its docs state, as μ-GDP with μ = Δ/σ = {self.claim.mu:.6g} (σ = {self.sigma:.6g})"
        )

    def _arguments(self) -> dict[str, Any]:
        """The library is called with its own (ε, δ), not the point the GDP claim implies."""
        arguments = super()._arguments()
        arguments["epsilon"], arguments["delta"] = self.library_epsilon, self.library_delta
        return arguments


class GaussianGDP(_NoiseAsGDP, Gaussian):
    """``diffprivlib.mechanisms.Gaussian`` as μ-GDP: σ = Δ·sqrt(2 ln(1.25/δ))/ε, μ = Δ/σ."""

    name = "diffprivlib.gaussian.gdp"
    _documented = "classic calibration"

    def __init__(self, epsilon: float = 0.5, delta: float = 1e-5, sensitivity: float = 1.0) -> None:
        super().__init__(epsilon, delta, float(sensitivity))


class GaussianAnalyticGDP(_NoiseAsGDP, GaussianAnalytic):
    """``diffprivlib.mechanisms.GaussianAnalytic`` as μ-GDP: σ from Balle & Wang's analytic
    calibration (the library's binary search), μ = Δ/σ."""

    name = "diffprivlib.gaussian_analytic.gdp"
    _documented = "Balle-Wang analytic calibration"

    def __init__(self, epsilon: float = 1.0, delta: float = 1e-5, sensitivity: float = 1.0) -> None:
        super().__init__(epsilon, delta, float(sensitivity))


class Snapping(LaplaceTruncated):
    """``diffprivlib.mechanisms.Snapping``: Mironov's snapping mechanism (the LSB fix)."""

    name = "diffprivlib.snapping"
    _class = "Snapping"

    def __init__(
        self,
        epsilon: float = 1.0,
        sensitivity: float = 1.0,
        bounds: tuple[float, float] = (-10.0, 10.0),
    ) -> None:
        super().__init__(epsilon, sensitivity, bounds)
        from diffprivlib.mechanisms import snapping

        # Mironov's proof needs a correctly rounded log; diffprivlib falls back to numpy's.
        log = "crlibm log_rn" if snapping.log_rn is not np.log else "numpy log: crlibm missing"
        self.description = f"diffprivlib.mechanisms.Snapping (snapping mechanism, {log})"
