"""Benchmarks with a vector in and a vector out: noisy histograms and prefix sums."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from auditor.adapters.benchmarks.common import Benchmark, _count, _g, _vector

# --- histograms and prefix sums (vector in, vector out) ---------------------------------------


class _NoisyHist(Benchmark):
    """Each count plus i.i.d. Laplace noise; counts differ in one bin by 1 (L1 sensitivity 1)."""

    input_kind = "vector"
    norm = "l1"
    sensitivity = 1.0
    integer_queries = True
    output_kind = "real"
    output_length = "query"
    _label: ClassVar[str] = ""

    def __init__(self, epsilon: float = 0.1, bins: int = 5) -> None:
        super().__init__(epsilon)
        self.query_length = _count(bins, "bins")
        suffix = "" if self.query_length == 5 else f",d={self.query_length}"
        self.name = f"benchmark.{self._label}(eps={_g(epsilon)}{suffix})"

    @property
    def scale(self) -> float:
        raise NotImplementedError

    def sample(self, query: Any, n: int) -> np.ndarray:
        q = _vector(query, integers=True)
        return q + self._rng.laplace(0.0, self.scale, size=(n, q.size))


class NoisyHist1(_NoisyHist):
    """Noisy histogram, Laplace(1/epsilon) per bin (Ding et al. CCS 2018 Alg. 9; StatDP's
    ``histogram``; DP-Sniper's ``NoisyHist1``): epsilon-DP."""

    _label = "noisy_hist1"
    description = (
        "Noisy histogram (Ding et al. CCS 2018 Alg. 9, StatDP's histogram): each count + "
        "Laplace(1/eps); eps-DP for counts differing by 1 in one bin."
    )

    @property
    def scale(self) -> float:
        return 1.0 / self.epsilon


class NoisyHist2(_NoisyHist):
    """Noisy histogram with Laplace(epsilon) per bin (Ding et al. Alg. 10; StatDP's
    ``histogram_eps``): only (1/epsilon)-DP, 10 at epsilon 0.1."""

    _label = "noisy_hist2"
    correct = False
    description = (
        "Noisy histogram with Laplace(eps) per bin (Ding et al. CCS 2018 Alg. 10, StatDP's "
        "histogram_eps). Broken: 'INCORRECT: using (epsilon) noise instead of (1 / epsilon)' "
        "(StatDP's source); it is only (1/eps)-DP."
    )

    @property
    def scale(self) -> float:
        return self.epsilon


class PrefixSum(Benchmark):
    """Prefix sums of ``q_i + Laplace(1/epsilon)`` (ShadowDP's PrefixSum, Wang et al. PLDI 2019).

    ShadowDP verifies it for ``ONE_DIFFER`` neighbours (one answer moves by at most 1: L1
    sensitivity 1), where it is epsilon-DP (the prefix sums are a bijection of the noisy answers).
    StatDP and DP-Sniper test it with ``ALL_DIFFER`` pairs (every answer may move by 1), where
    it is only ``m * epsilon``-DP: ``norm="linf"`` (the default, the testers' relation, broken at
    the claim) or ``norm="l1"`` (the paper's, correct).
    """

    input_kind = "vector"
    sensitivity = 1.0
    output_kind = "real"
    output_length = "query"

    def __init__(self, epsilon: float = 0.1, queries: int = 10, norm: str = "linf") -> None:
        super().__init__(epsilon)
        if norm not in ("linf", "l1"):
            raise ValueError(f"norm={norm!r} must be 'linf' (the testers') or 'l1' (ShadowDP's)")
        self.norm = norm
        self.query_length = _count(queries, "queries")
        self.correct = norm == "l1"
        label = "prefix_sum" if norm == "linf" else "prefix_sum_l1"
        suffix = "" if self.query_length == 10 else f",m={self.query_length}"
        self.name = f"benchmark.{label}(eps={_g(epsilon)}{suffix})"
        if norm == "l1":
            self.description = (
                "Prefix sums of q_i + Laplace(1/eps) (ShadowDP, Wang et al. PLDI 2019), with "
                "ShadowDP's ONE_DIFFER neighbours (one answer moves by <= 1, L1): eps-DP."
            )
        else:
            self.description = (
                "Prefix sums of q_i + Laplace(1/eps) (ShadowDP, Wang et al. PLDI 2019) with the "
                "testers' ALL_DIFFER neighbours (every answer moves by <= 1, L-inf). Broken for "
                "that relation only: ShadowDP proves eps-DP for ONE_DIFFER neighbours; with all "
                f"{self.query_length} answers moving it is {self.query_length}*eps-DP."
            )

    def sample(self, query: Any, n: int) -> np.ndarray:
        q = _vector(query)
        noisy = q + self._rng.laplace(0.0, 1.0 / self.epsilon, size=(n, q.size))
        return np.cumsum(noisy, axis=1)
