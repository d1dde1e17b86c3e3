"""Built-in adapters for the exact reference mechanisms (negative controls of every audit).

Each adapter states the claim it is *guaranteed* to meet: float parameters are converted to
rationals in the direction that keeps the claim (epsilon rounded down, so noise scales round up).
A correct audit must never report a violation against these.

Randomness comes from the adapter's seeded ``numpy.random.Generator`` (``SeededAdapter``), used
only as a source of uniform integers, so audits are reproducible; production code would pass
``reference_mechanisms.randomness.SystemRandomness`` to the samplers instead.
"""

from __future__ import annotations

import math
from fractions import Fraction
from importlib import metadata
from typing import Any, final

import gmpy2
import numpy as np

from auditor.adapters.base import SeededAdapter
from auditor.core.claim_kinds import ZeroConcentratedDP
from reference_mechanisms.discrete_gaussian import (
    calibrate_discrete_gaussian,
    discrete_gaussian_delta,
    sample_discrete_gaussian,
)
from reference_mechanisms.discrete_laplace import sample_discrete_laplace
from reference_mechanisms.float_noise import (
    calibrate_gaussian_float,
    grid_sensitivity,
    sample_gaussian_float,
    sample_laplace_float,
)
from reference_mechanisms.geometric_rr import (
    rr_probability,
    sample_randomized_response,
    sample_two_sided_geometric_exp,
)
from reference_mechanisms.params import (
    check_count,
    check_delta,
    check_epsilon,
    check_sensitivity,
    rational_floor,
)
from reference_mechanisms.snapping import sample_snapping, snapping_parameters

__all__ = [
    "DiscreteGaussianAdapter",
    "DiscreteLaplaceAdapter",
    "GaussianFloatAdapter",
    "GeometricAdapter",
    "LaplaceFloatAdapter",
    "RandomizedResponseAdapter",
    "SnappingAdapter",
    "builtin_adapters",
]


def _own_version() -> str:
    try:
        return metadata.version("dp-audit")
    except metadata.PackageNotFoundError:
        return "dev"


class _ReferenceAdapter(SeededAdapter):
    """What the reference adapters share: provenance (the mechanisms are this project's own),
    the checked claim, and ``sample`` as a final template: read the query, check ``n``, then
    ``_release`` — the one step each adapter writes."""

    library = "dp-audit"
    library_version = f"{_own_version()} (gmpy2 {gmpy2.version()})"
    integer_queries = False

    def __init__(
        self,
        epsilon: float,
        *,
        delta: float | None = None,
        sensitivity: float | None = None,
    ) -> None:
        """Check and set the claim; ``delta`` (> 0) and ``sensitivity`` when the adapter has
        them (the exact sensitivity is kept as ``_sens``)."""
        super().__init__()
        self.epsilon = check_epsilon(epsilon)
        if delta is not None:
            self.delta = check_delta(delta, positive=True)
        if sensitivity is not None:
            self._sens = check_sensitivity(sensitivity)
            self.sensitivity = float(sensitivity)

    def _query(self, query: Any) -> Any:
        return _integer_query(query) if self.integer_queries else _float_query(query)

    def _release(self, query: Any, n: int) -> np.ndarray:
        raise NotImplementedError

    @final
    def sample(self, query: Any, n: int) -> np.ndarray:
        return self._release(self._query(query), check_count(n))


def _integer_query(query: Any) -> int:
    """The query as a Python int; raises ValueError for non-integral or non-finite values."""
    try:
        q = float(query) if not isinstance(query, (int, np.integer)) else int(query)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"query={query!r} must be an integer") from exc
    if isinstance(q, float):
        if not math.isfinite(q) or q != math.floor(q):
            raise ValueError(f"query={query!r} must be an integer")
        q = int(q)
    return q


def _float_query(query: Any) -> float:
    """The query as a finite float; raises ValueError otherwise."""
    try:
        q = float(query)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"query={query!r} must be a finite number") from exc
    if not math.isfinite(q):
        raise ValueError(f"query={query!r} must be a finite number")
    return q


class MechanismAdapter(_ReferenceAdapter):
    """A reference adapter around a mechanism object with ``sample(query, n, rng)`` that checks
    its queries itself (utility vectors, datasets)."""

    mechanism: Any

    def _query(self, query: Any) -> Any:
        return query

    def _release(self, q: Any, n: int) -> np.ndarray:
        out: np.ndarray = self.mechanism.sample(q, n, self._rng)
        return out


class DiscreteLaplaceAdapter(_ReferenceAdapter):
    """Integer query plus exact discrete Laplace noise: pure epsilon-DP for integer queries.

    The noise scale is ``sensitivity / epsilon_q`` with ``epsilon_q = floor(epsilon 2^30)/2^30 <=
    epsilon``, so P[x]/P[x'] <= exp(|x - x'|/scale) <= exp(epsilon) for |x - x'| <= sensitivity.

    References:
        Canonne, Kamath, Steinke, "The Discrete Gaussian for Differential Privacy", NeurIPS 2020.
        Ghosh, Roughgarden, Sundararajan, "Universally utility-maximizing privacy mechanisms",
        STOC 2009 (the geometric mechanism is the same distribution).

    Assumptions:
        Queries are integers; the numpy Generator's ``integers`` is exactly uniform.
    """

    family = "additive"
    integer_queries = True
    delta = 0.0

    def __init__(self, epsilon: float = 1.0, sensitivity: float = 1, name: str | None = None):
        super().__init__(epsilon, sensitivity=sensitivity)
        self.epsilon_rational = rational_floor(epsilon)
        #: exact noise scale actually used (>= sensitivity / epsilon)
        self.scale: Fraction = self._sens / self.epsilon_rational
        self.name = name or f"reference.discrete_laplace[eps={self.epsilon:g}]"
        self.description = (
            f"exact discrete Laplace, scale {float(self.scale):.6g} >= sensitivity/epsilon"
        )

    def _release(self, q: Any, n: int) -> np.ndarray:
        out: np.ndarray = q + sample_discrete_laplace(self.scale, n, self._rng)
        return out


class GeometricAdapter(_ReferenceAdapter):
    """The geometric mechanism: integer query plus two-sided geometric noise, alpha = e^-(eps/Delta).

    Same distribution as :class:`DiscreteLaplaceAdapter` but sampled by a different exact
    algorithm (difference of two geometric variables), with epsilon rounded down to a 2^-30
    multiple so the claim holds.

    References:
        Ghosh, Roughgarden, Sundararajan, "Universally Utility-Maximizing Privacy Mechanisms",
        STOC 2009.

    Assumptions:
        Queries are integers; the numpy Generator's ``integers`` is exactly uniform.
    """

    family = "additive"
    integer_queries = True
    delta = 0.0

    def __init__(self, epsilon: float = 1.0, sensitivity: float = 1, name: str | None = None):
        super().__init__(epsilon, sensitivity=sensitivity)
        #: exact rate x with alpha = e^-x, x <= epsilon / sensitivity
        self.rate: Fraction = rational_floor(epsilon) / self._sens
        self.name = name or f"reference.geometric[eps={self.epsilon:g}]"
        self.description = f"exact two-sided geometric, alpha = exp(-{float(self.rate):.6g})"

    def _release(self, q: Any, n: int) -> np.ndarray:
        out: np.ndarray = q + sample_two_sided_geometric_exp(self.rate, n, self._rng)
        return out


class DiscreteGaussianAdapter(_ReferenceAdapter):
    """Integer query plus exact discrete Gaussian noise, certified (epsilon, delta)-DP.

    sigma2 is calibrated with the exact privacy curve of the discrete Gaussian (CKS20 Thm 7,
    evaluated with MPFR as an upper bound), for integer sensitivity max(1, floor(sensitivity)):
    neighbouring integer queries differ by at most that much.

    References:
        Canonne, Kamath, Steinke, "The Discrete Gaussian for Differential Privacy", NeurIPS 2020.

    Assumptions:
        Queries are integers; the numpy Generator's ``integers`` is exactly uniform.
    """

    family = "additive"
    integer_queries = True

    def __init__(
        self,
        epsilon: float = 1.0,
        delta: float = 1e-5,
        sensitivity: float = 1,
        name: str | None = None,
    ):
        super().__init__(epsilon, delta=delta, sensitivity=sensitivity)
        self._sens_int = max(1, math.floor(self._sens))
        self.sigma2: Fraction = calibrate_discrete_gaussian(
            self.epsilon, self.delta, self._sens_int
        )
        self.name = (
            name or f"reference.discrete_gaussian[eps={self.epsilon:g},delta={self.delta:g}]"
        )
        self.description = f"exact discrete Gaussian, sigma^2 = {float(self.sigma2):.6g}"

    def zcdp(self) -> ZeroConcentratedDP:
        """Its exact curve as rho-zCDP: rho = sensitivity^2 / (2 sigma^2) (CKS20 Thm 4)."""
        return _zcdp(Fraction(self._sens_int) ** 2 / (2 * self.sigma2))

    def certified_delta(self) -> float:
        """Upper bound on the true delta at ``epsilon`` (<= the claimed delta)."""
        return float(discrete_gaussian_delta(self.epsilon, self.sigma2, self._sens_int))

    def _release(self, q: Any, n: int) -> np.ndarray:
        out: np.ndarray = q + sample_discrete_gaussian(self.sigma2, n, self._rng)
        return out


class LaplaceFloatAdapter(_ReferenceAdapter):
    """Laplace for float queries, OpenDP-style: round to a 2^k grid, exact discrete Laplace noise.

    ``k = floor(log2 sensitivity) - grid_bits``; the rounded query has integer sensitivity
    ``ceil(sensitivity 2^-k)`` and the integer noise scale is that over epsilon rounded down, so
    the output is epsilon-DP; converting the integer back to a double is post-processing.

    References:
        OpenDP >= 0.5 float ``make_laplace``; Google, "Secure Noise Generation" (2020).

    Assumptions:
        Queries are finite doubles; the numpy Generator's ``integers`` is exactly uniform.
    """

    family = "additive"
    delta = 0.0

    def __init__(
        self,
        epsilon: float = 1.0,
        sensitivity: float = 1.0,
        grid_bits: int = 20,
        name: str | None = None,
    ):
        super().__init__(epsilon, sensitivity=sensitivity)
        sens = self._sens
        self.k = math.floor(math.log2(sens)) - int(grid_bits)
        while Fraction(2) ** (self.k + grid_bits) > sens:  # exact floor(log2) for any rational
            self.k -= 1
        while Fraction(2) ** (self.k + grid_bits + 1) <= sens:
            self.k += 1
        #: noise scale in query units: ceil(sens 2^-k) 2^k / epsilon_q >= sensitivity / epsilon
        self.scale: Fraction = (
            grid_sensitivity(sens, self.k) * Fraction(2) ** self.k / rational_floor(epsilon)
        )
        self.name = name or f"reference.laplace[eps={self.epsilon:g}]"
        self.description = (
            f"float Laplace on a 2^{self.k} grid with exact discrete Laplace noise, "
            f"scale {float(self.scale):.6g}"
        )

    def _release(self, q: Any, n: int) -> np.ndarray:
        out: np.ndarray = sample_laplace_float(q, self.scale, n, self.k, self._rng)
        return out


class GaussianFloatAdapter(_ReferenceAdapter):
    """Gaussian for float queries, OpenDP-style: 2^k grid plus exact discrete Gaussian noise.

    The grid puts about 2^12 steps in one sigma; sigma2 (in grid units) is certified against the
    exact discrete-Gaussian privacy curve at the grid sensitivity ``ceil(sensitivity 2^-k)``.

    References:
        OpenDP >= 0.5 float ``make_gaussian``; Canonne, Kamath, Steinke, NeurIPS 2020, Thm 7.

    Assumptions:
        Queries are finite doubles; the numpy Generator's ``integers`` is exactly uniform.
    """

    family = "additive"

    def __init__(
        self,
        epsilon: float = 1.0,
        delta: float = 1e-5,
        sensitivity: float = 1.0,
        name: str | None = None,
    ):
        super().__init__(epsilon, delta=delta, sensitivity=sensitivity)
        self.k, self.sigma2 = calibrate_gaussian_float(self.epsilon, self.delta, sensitivity)
        self.name = name or f"reference.gaussian[eps={self.epsilon:g},delta={self.delta:g}]"
        self.description = (
            f"float Gaussian on a 2^{self.k} grid with exact discrete Gaussian noise, "
            f"sigma {math.sqrt(self.sigma2):.6g}"
        )

    def zcdp(self) -> ZeroConcentratedDP:
        """Its exact curve as rho-zCDP: the discrete Gaussian's on the grid, whose sensitivity
        is ``ceil(sensitivity 2^-k)`` steps (CKS20 Thm 4)."""
        steps = grid_sensitivity(self._sens, self.k)
        return _zcdp((Fraction(steps) * Fraction(2) ** self.k) ** 2 / (2 * self.sigma2))

    def _release(self, q: Any, n: int) -> np.ndarray:
        out: np.ndarray = sample_gaussian_float(q, self.sigma2, n, self.k, self._rng)
        return out


def _zcdp(rho: Fraction) -> ZeroConcentratedDP:
    """A zCDP claim at the double just above ``rho`` (a larger rho is still a true claim)."""
    return ZeroConcentratedDP(math.nextafter(float(rho), math.inf))


def with_curve(adapter: Any, name: str) -> Any:
    """``adapter`` claiming its exact zCDP curve instead of its (epsilon, delta) point."""
    adapter.claim = adapter.zcdp()
    adapter.name = name
    return adapter


class SnappingAdapter(_ReferenceAdapter):
    """Mironov's snapping mechanism (float Laplace made safe by clamping and snapping to Lambda).

    References:
        Mironov, "On Significance of the Least Significant Bits for Differential Privacy",
        CCS 2012, section 5.2.

    Assumptions:
        Queries are finite doubles; numpy float64 arithmetic is IEEE round-to-nearest; MPFR's log
        is correctly rounded; |query| <= bound for outputs to be unbiased (clamped otherwise).
    """

    family = "additive"
    delta = 0.0
    vectorised = False  # one correctly rounded MPFR log per output

    def __init__(
        self,
        epsilon: float = 1.0,
        bound: float = 1000.0,
        sensitivity: float = 1.0,
        name: str | None = None,
    ):
        super().__init__(epsilon, sensitivity=sensitivity)
        self.params = snapping_parameters(epsilon, bound, sensitivity)
        self.epsilon = self.params.epsilon
        self.bound = float(bound)
        self.name = name or f"reference.snapping[eps={self.epsilon:g}]"
        self.description = (
            f"snapping mechanism, lambda {self.params.lam * self.params.D:.6g}, "
            f"Lambda {self.params.Lambda * self.params.D:g}, clamp +-{self.bound:g}"
        )

    def _release(self, q: Any, n: int) -> np.ndarray:
        out: np.ndarray = sample_snapping(q, self.params, n, self._rng)
        return out


class RandomizedResponseAdapter(_ReferenceAdapter):
    """Randomized response on one bit with an exact rational keep-probability p.

    p is the largest multiple of 2^-40 with p/(1-p) <= e^epsilon (certified with MPFR).

    References:
        Warner, JASA 1965; Dwork & Roth (2014), section 3.2.

    Assumptions:
        The numpy Generator's ``integers`` is exactly uniform.
    """

    family = "binary"
    delta = 0.0

    def __init__(self, epsilon: float = 1.0, name: str | None = None):
        super().__init__(epsilon)
        self.p: Fraction = rr_probability(self.epsilon)
        self.name = name or f"reference.randomized_response[eps={self.epsilon:g}]"
        self.description = f"randomized response, keep probability {float(self.p):.12g}"

    def _query(self, query: Any) -> int:
        try:
            bit = int(query)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"query={query!r} must be a bit 0 or 1") from exc
        if bit != query or bit not in (0, 1):
            raise ValueError(f"query={query!r} must be a bit 0 or 1")
        return bit

    def _release(self, q: Any, n: int) -> np.ndarray:
        out: np.ndarray = sample_randomized_response(q, self.p, n, self._rng)
        return out


def builtin_adapters() -> list[Any]:
    """The reference adapters the registry lists under library ``dp-audit`` (all correct)."""
    return [
        DiscreteLaplaceAdapter(epsilon=1.0, name="reference.discrete_laplace"),
        GeometricAdapter(epsilon=1.0, name="reference.geometric"),
        DiscreteGaussianAdapter(epsilon=1.0, delta=1e-5, name="reference.discrete_gaussian"),
        LaplaceFloatAdapter(epsilon=1.0, name="reference.laplace"),
        GaussianFloatAdapter(epsilon=1.0, delta=1e-5, name="reference.gaussian"),
        with_curve(
            DiscreteGaussianAdapter(epsilon=1.0, delta=1e-5), "reference.discrete_gaussian.zcdp"
        ),
        with_curve(GaussianFloatAdapter(epsilon=1.0, delta=1e-5), "reference.gaussian.zcdp"),
        SnappingAdapter(epsilon=1.0, bound=1000.0, name="reference.snapping"),
        RandomizedResponseAdapter(epsilon=1.0, name="reference.randomized_response"),
    ]
