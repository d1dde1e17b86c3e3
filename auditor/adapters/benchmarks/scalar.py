"""Benchmarks with a scalar input: Laplace, truncated geometric, Laplace run in parallel."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from auditor.adapters.benchmarks.common import Benchmark, _count, _g, _scalar

# --- scalar inputs ----------------------------------------------------------------------------


class LaplaceMechanism(Benchmark):
    """``value + Laplace(sensitivity / epsilon)``: DP-Sniper's ``LaplaceMechanism``.

    References:
        Dwork, McSherry, Nissim, Smith, TCC 2006.  DP-Sniper (S&P 2021) attacks exactly this
        float sampler (``np.random.laplace``) and finds it is not even 0.25-DP at 0.1.
    """

    input_kind = "scalar"
    output_kind = "real"

    def __init__(self, epsilon: float = 0.1, sensitivity: float = 1.0) -> None:
        super().__init__(epsilon)
        self.sensitivity = float(sensitivity)
        self.name = f"benchmark.laplace(eps={_g(epsilon)})"
        self.description = (
            "Laplace mechanism (Dwork et al. 2006; DP-Sniper's LaplaceMechanism): value + numpy "
            f"Laplace({_g(self.sensitivity / self.epsilon)}); epsilon-DP on paper."
        )

    def sample(self, query: Any, n: int) -> np.ndarray:
        scale = self.sensitivity / self.epsilon
        return _scalar(query) + self._rng.laplace(0.0, scale, size=n)


class TruncatedGeometric(Benchmark):
    """Balcer & Vadhan's ``GeoSample`` (Alg. 4.8) for a count c in [0, n], as DP-Sniper codes it.

    ``k = ceil(ln(2 / epsilon))`` (DP-Sniper takes the natural log), ``d = (2^(k+1) + 1)
    (2^k + 1)^(n-1)``, and the output is the least z with ``F(z) >= u`` for u uniform in
    ``1..d``, where ``F(z) = 2^(k(c-z)) (2^k + 1)^(n-(c-z))`` for z < c, ``d - 2^(k(z-c+1))
    (2^k + 1)^(n-1-(z-c))`` for c <= z < n, and ``F(n) = d``: a geometric distribution of ratio
    ``2^k / (2^k + 1)`` around c, truncated to [0, n].  Integer arithmetic throughout.

    Claim: epsilon (the nominal parameter the testers pass).  Not met: by DP-Sniper's docstring
    (citing Balcer & Vadhan's Thm. 4.7) the sampler is ``ln(1 + 2^-k)``-DP, and neighbouring
    counts change a probability by exactly ``1 + 2^-k`` (9/8 at epsilon 0.1, k = 3):
    ``true_epsilon = ln(9/8) ≈ 0.1178``.

    References:
        Balcer, Vadhan, "Differential Privacy on Finite Computers", arXiv:1709.05396, Alg. 4.8,
        Thm. 4.7; DP-Sniper ``dpsniper/mechanisms/geometric.py``.
    """

    input_kind = "scalar"
    output_kind = "integer"
    integer_queries = True
    sensitivity = 1.0
    correct = False

    def __init__(self, epsilon: float = 0.1, n: int = 5) -> None:
        super().__init__(epsilon)
        if self.epsilon > 2:
            raise ValueError(f"epsilon={epsilon!r} must be <= 2 (k = ceil(ln(2/epsilon)) >= 0)")
        self.n = _count(n, "n")
        self.k = math.ceil(math.log(2.0 / self.epsilon))
        self.d = (2 ** (self.k + 1) + 1) * (2**self.k + 1) ** (self.n - 1)
        if self.d >= 2**62:
            raise ValueError(f"n={n!r} and epsilon={epsilon!r} overflow 64-bit integers")
        self.query_bounds = (0.0, float(self.n))
        self.true_epsilon = math.log1p(2.0**-self.k)
        self.correct = self.true_epsilon <= self.epsilon
        suffix = "" if self.n == 5 else f",n={self.n}"
        self.name = f"benchmark.truncated_geometric(eps={_g(epsilon)}{suffix})"
        self.description = (
            f"Truncated geometric GeoSample (Balcer & Vadhan, Alg. 4.8) on a count in [0, {self.n}]"
            f", as in DP-Sniper with k = ceil(ln(2/eps)) = {self.k}. Broken at the nominal eps: by "
            "DP-Sniper's docstring (Balcer & Vadhan Thm. 4.7) it is only ln(1 + 2^-k)-DP = "
            f"{self.true_epsilon:.4f}."
        )

    def cumulative(self, c: int) -> list[int]:
        """``F(0..n)`` for count ``c``, exact integers (``F(n) = d``)."""
        a, b, n = 2**self.k, 2**self.k + 1, self.n
        out = []
        for z in range(n + 1):
            if z < c:
                out.append(a ** (c - z) * b ** (n - (c - z)))
            elif z < n:
                out.append(self.d - a ** (z - c + 1) * b ** (n - 1 - (z - c)))
            else:
                out.append(self.d)
        return out

    def pmf(self, query: Any) -> list[float]:
        """The exact output probabilities ``P[z | c]`` for z = 0..n (as floats)."""
        f = self.cumulative(self._count(query))
        return [(hi - lo) / self.d for lo, hi in zip([0, *f[:-1]], f, strict=True)]

    def _count(self, query: Any) -> int:
        value = _scalar(query)
        if not value.is_integer() or not 0 <= value <= self.n:
            raise ValueError(f"query={query!r} must be an integer count in [0, {self.n}]")
        return int(value)

    def sample(self, query: Any, n: int) -> np.ndarray:
        f = np.asarray(self.cumulative(self._count(query)), dtype=np.int64)
        u = self._rng.integers(1, self.d + 1, size=n, dtype=np.int64)
        return np.searchsorted(f, u, side="left").astype(np.int64)


class LaplaceParallel(Benchmark):
    """``k`` independent Laplace mechanisms on one value, each with ``epsilon / k``
    (DP-Sniper's ``LaplaceParallel``: 20 copies at 0.005); epsilon-DP by basic composition.

    References:
        Dwork, Roth, "The Algorithmic Foundations of Differential Privacy", 2014, Thm. 3.16.
    """

    input_kind = "scalar"
    output_kind = "real"

    def __init__(self, epsilon: float = 0.1, copies: int = 20, sensitivity: float = 1.0) -> None:
        super().__init__(epsilon)
        self.copies = _count(copies, "copies")
        self.output_length = self.copies
        self.sensitivity = float(sensitivity)
        self.name = f"benchmark.laplace_parallel(eps={_g(epsilon)},k={self.copies})"
        self.description = (
            f"{self.copies} independent Laplace mechanisms on one value, each at eps/{self.copies}"
            f" = {_g(self.epsilon / self.copies)} (DP-Sniper's LaplaceParallel); eps-DP by basic "
            "composition."
        )

    def sample(self, query: Any, n: int) -> np.ndarray:
        scale = self.copies * self.sensitivity / self.epsilon
        return _scalar(query) + self._rng.laplace(0.0, scale, size=(n, self.copies))
