"""Built-in adapters for the exact selection mechanisms (negative controls of selection audits).

* ``reference.base2_exponential`` — Ilvento's base-2 exponential mechanism, "higher utility is
  better" (weights proportional to ``2^(eta u)``), utilities clamped to the declared
  ``utility_bounds``; the claim is the *guaranteed* ``epsilon = 2 ceil(Delta) eta ln 2`` (just
  below the requested 1.0).  ``probabilities(query)`` returns the exact probabilities as float64.
* ``reference.report_noisy_max`` — report-noisy-max with exponential noise (= permute-and-flip),
  epsilon-DP; ``probabilities(query)`` from a 128-bit computation, as float64.

Both sample with the adapter's seeded ``numpy.random.Generator`` used only through ``integers``.
Cost: the base-2 mechanism tabulates a utility vector once (cached for repeated ``sample`` calls
on the same query) and then draws millions of outcomes per second for integer utilities; RNM draws
k exact coins per release (about 10^6 coins/s), so a 100k-sample audit on 10 outcomes takes ~1 s.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

import numpy as np

from auditor.adapters.reference import MechanismAdapter
from reference_mechanisms.base2_exponential import (
    MAX_FRACTIONAL_FOR_PROBABILITIES,
    Base2ExponentialMechanism,
    PreparedUtilities,
)
from reference_mechanisms.report_noisy_max import ReportNoisyMax

__all__ = ["Base2ExponentialAdapter", "ReportNoisyMaxAdapter", "builtin_adapters"]


class Base2ExponentialAdapter(MechanismAdapter):
    """Exact base-2 exponential mechanism (Ilvento 2020) as a selection adapter.

    References:
        Ilvento, "Implementing the Exponential Mechanism with Base-2 Differential Privacy",
        CCS 2020.

    Assumptions:
        Utilities of neighbouring queries differ by at most ``sensitivity`` per outcome; higher
        utility is better; values outside ``utility_bounds`` are clamped (a declared property).
    """

    family = "selection"
    delta = 0.0

    def __init__(
        self,
        epsilon: float = 1.0,
        sensitivity: float = 1.0,
        utility_bounds: tuple[int, int] = (-10_000, 10_000),
        convention: str = "utility",
        name: str | None = None,
    ) -> None:
        super().__init__(epsilon, sensitivity=sensitivity)
        self.mechanism = Base2ExponentialMechanism(
            epsilon, sensitivity, utility_bounds, convention=convention
        )
        self.epsilon = self.mechanism.epsilon
        self.utility_bounds = self.mechanism.utility_bounds
        self.convention = convention
        self.name = name or f"reference.base2_exponential[eps={epsilon:g}]"
        e = self.mechanism.eta
        self.description = (
            f"exact base-2 exponential mechanism, eta=-log2({e.x}/2^{e.y}) (x{e.z}), "
            f"utilities clamped to {self.utility_bounds}, {convention} convention"
        )
        self._cache: OrderedDict[tuple[Any, ...], PreparedUtilities] = OrderedDict()

    def _prepared(self, query: Any) -> PreparedUtilities:
        """The tabulated query, cached (LRU of 8) so repeated batches on one query are cheap."""
        try:
            u = np.asarray(query, dtype=np.float64)
        except (TypeError, ValueError):
            prepared: PreparedUtilities = self.mechanism.prepare(query)
            return prepared  # (it raises the mechanism's clear ValueError)
        key = (u.shape, u.tobytes())
        hit = self._cache.get(key)
        if hit is None:
            hit = self.mechanism.prepare(u)
            self._cache[key] = hit
            if len(self._cache) > 8:
                self._cache.popitem(last=False)
        else:
            self._cache.move_to_end(key)
        return hit

    def _release(self, q: Any, n: int) -> np.ndarray:
        return self._prepared(q).sample(n, self._rng)

    def probabilities(self, query: Any) -> np.ndarray:
        """Selection probabilities as float64: the exact ones rounded at the end.

        Exact (Fractions) when at most 12 utilities are non-integers inside the bounds; beyond
        that the mixture over random roundings is integrated numerically (relative error ~1e-15).
        Exact probabilities below ~1e-308 underflow to 0.0 here; use
        :meth:`exact_probabilities` where that matters.
        """
        prep = self._prepared(query)
        if int(prep.is_frac.sum()) > MAX_FRACTIONAL_FOR_PROBABILITIES:
            return prep.numeric_probabilities()
        return np.array([float(p) for p in prep.probabilities()])

    def exact_probabilities(self, query: Any) -> list[Any]:
        """Exact probabilities as Fractions (see ``PreparedUtilities.probabilities``)."""
        return self._prepared(query).probabilities()


class ReportNoisyMaxAdapter(MechanismAdapter):
    """Exact report-noisy-max with exponential noise (permute-and-flip) as a selection adapter.

    References:
        McKenna, Sheldon, NeurIPS 2020; Ding et al., 2021 (RNM with exponential noise = PF).

    Assumptions:
        Utilities of neighbouring queries differ by at most ``sensitivity``; higher is better.
    """

    family = "selection"
    delta = 0.0

    def __init__(
        self, epsilon: float = 1.0, sensitivity: float = 1.0, name: str | None = None
    ) -> None:
        super().__init__(epsilon, sensitivity=sensitivity)
        self.mechanism = ReportNoisyMax(epsilon, sensitivity)
        self.epsilon = self.mechanism.epsilon
        self.name = name or f"reference.report_noisy_max[eps={epsilon:g}]"
        self.description = (
            "exact report-noisy-max with exponential noise (permute-and-flip), "
            f"epsilon rounded down to {float(self.mechanism.epsilon_rational):.10g}"
        )

    def probabilities(self, query: Any) -> np.ndarray:
        return np.array([float(p) for p in self.mechanism.probabilities(query)])


def builtin_adapters() -> list[Any]:
    """The exact selection adapters, listed under library ``dp-audit``."""
    return [
        Base2ExponentialAdapter(epsilon=1.0, name="reference.base2_exponential"),
        ReportNoisyMaxAdapter(epsilon=1.0, name="reference.report_noisy_max"),
    ]
