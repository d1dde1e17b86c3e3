"""OpenDP's selection measurements: report-noisy-max and noisy top-k (also under monotone scores)."""

from __future__ import annotations

from typing import Any

import numpy as np

from auditor.adapters._provenance import as_integer
from auditor.adapters.base import call_source, keywords
from auditor.adapters.opendp_adapters.common import (
    EPSILON,
    FLOAT_VECTORS,
    LINF,
    SCORES,
    SENSITIVITY,
    OpenDPAdapter,
    check_epsilon,
    invoke_many,
    release_rows,
    rows_sample,
)
from auditor.core.space import Range


class NoisyMax(OpenDPAdapter):
    """``make_noisy_max`` under ``max_divergence()``: report-noisy-max with exponential noise.

    With exponential noise, report-noisy-max is permute-and-flip (McKenna & Sheldon 2020).
    Higher score is better; utilities may move by ``sensitivity`` in L∞ (non-monotonic).
    """

    name = "opendp.noisy_max"
    family = "selection"
    delta = 0.0
    maximise = True
    description = "opendp make_noisy_max, pure DP (exponential noise = permute-and-flip)"
    space = {"epsilon": EPSILON, "sensitivity": SENSITIVITY}
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
        return call_source("measurement = dp.m.make_noisy_max", [*SCORES, *scale])

    def sample(self, query: Any, n: int) -> np.ndarray:
        """``n`` selected indices in ``[0, k)`` for score vector ``query``."""
        scores = [float(u) for u in np.asarray(query, dtype=np.float64).ravel()]
        return np.fromiter(invoke_many(self._measurement, scores, n), np.int64, count=n)


class NoisyTopK(OpenDPAdapter):
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
        "epsilon": EPSILON,
        "k": Range(1, 8, integer=True),
        "sensitivity": SENSITIVITY,
    }

    def __init__(self, epsilon: float = 1.0, k: int = 3, sensitivity: float = 1.0) -> None:
        super().__init__()
        self._target_epsilon = check_epsilon(epsilon)
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
        scores = [FLOAT_VECTORS, LINF[self.monotone], "dp.max_divergence()"]
        return call_source("measurement = dp.m.make_noisy_top_k", [*scores, *arguments])

    def _sample_source(self) -> str:
        scores = "[float(u) for u in np.asarray(query, dtype=np.float64).ravel()]"
        return rows_sample("scores", scores, self.k)

    def sample(self, query: Any, n: int) -> np.ndarray:
        """``n`` releases of k indices into the score vector ``query``: shape (n, k)."""
        scores = [float(u) for u in np.asarray(query, dtype=np.float64).ravel()]
        return release_rows(self._measurement, scores, n, self.k)


class NoisyTopKMonotonic(NoisyTopK):
    """:class:`NoisyTopK` under ``linf_distance(monotonic=True)``: scores that all move the same
    way (counts under add/remove), for which OpenDP's ``map`` halves the privacy loss of a
    given noise scale.  Its audit uses only pairs that move every score alike."""

    name = "opendp.noisy_top_k.monotonic"
    monotone = True
