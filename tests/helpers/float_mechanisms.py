"""Additive mechanisms written out in the tests: textbook float ones (known broken) and exact ones.

Each is a small adapter (duck-typed contract) whose ``seed(entropy)`` makes it reproducible.
The float ones copy code people write; the exact ones put every output on a coarse
power-of-two grid at both inputs and must never be reported as violations.
"""

from __future__ import annotations

import math
import random
from typing import Any

import numpy as np


class _Base:
    family = "additive"
    delta = 0.0
    sensitivity = 1.0

    def __init__(self, epsilon: float = 1.0, sensitivity: float = 1.0, name: str = "") -> None:
        self.epsilon = epsilon
        self.sensitivity = sensitivity
        self.name = name or f"{type(self).__name__}(eps={epsilon:g}, d={sensitivity:g})"
        self.rng = np.random.default_rng(0)
        self.pyrng = random.Random(0)

    @property
    def scale(self) -> float:
        return self.sensitivity / self.epsilon

    def seed(self, entropy: int) -> None:
        self.rng = np.random.default_rng(entropy)
        self.pyrng = random.Random(entropy)


class GeneratorLaplace(_Base):
    """``value + Generator.laplace(0, d/e)``."""

    def sample(self, query: Any, n: int) -> np.ndarray:
        return float(query) + self.rng.laplace(0.0, self.scale, n)


class LegacyLaplace(_Base):
    """``RandomState.laplace(value, d/e)``: numpy's legacy API with the location inside."""

    def sample(self, query: Any, n: int) -> np.ndarray:
        rs = np.random.RandomState(int(self.rng.integers(1 << 32)))
        return rs.laplace(float(query), self.scale, n)


class DividedLaplace(_Base):
    """``value + Generator.laplace(0, 1) / epsilon`` (sensitivity 1): scale applied by division."""

    def sample(self, query: Any, n: int) -> np.ndarray:
        return float(query) + self.rng.laplace(0.0, 1.0, n) / self.epsilon


class PythonInverseCDFLaplace(_Base):
    """The inverse CDF in a Python loop: ``u = random() - 0.5``, C-library ``math.log``."""

    vectorised = False

    def sample(self, query: Any, n: int) -> np.ndarray:
        value, scale, rnd = float(query), self.scale, self.pyrng.random
        out = np.empty(n)
        for i in range(n):
            u = rnd() - 0.5
            out[i] = value - scale * math.copysign(1.0, u) * math.log(1 - 2 * abs(u))
        return out


class ScalarNumpyInverseCDFLaplace(_Base):
    """diffprivlib <= 0.4 style: a Python loop calling ``np.sign``/``np.log`` on scalars.

    numpy's scalar ``np.log`` takes the same SIMD path as the array one, so this is *not* the
    C-library model even though it runs one output at a time.
    """

    vectorised = False

    def sample(self, query: Any, n: int) -> np.ndarray:
        value, scale, rnd = float(query), self.scale, self.pyrng.random
        out = np.empty(n)
        for i in range(n):
            u = rnd() - 0.5
            out[i] = value - scale * np.sign(u) * np.log(1 - 2 * np.abs(u))
        return out


class NumpyInverseCDFLaplace(_Base):
    """The same inverse CDF vectorised with numpy: ``np.sign(u) * np.log(1 - 2|u|)``."""

    def sample(self, query: Any, n: int) -> np.ndarray:
        u = self.rng.random(n) - 0.5
        return float(query) - self.scale * np.sign(u) * np.log(1 - 2 * np.abs(u))


class RandomSignLogULaplace(_Base):
    """``value + (2Z - 1) * scale * ln(U)`` with ``U = 1 - random()`` in (0, 1]."""

    def sample(self, query: Any, n: int) -> np.ndarray:
        z = self.rng.integers(0, 2, n)
        return float(query) + (2 * z - 1) * self.scale * np.log(1.0 - self.rng.random(n))


class ScipyLaplace(_Base):
    """``scipy.stats.laplace.rvs(loc=value, scale=d/e)`` (numpy's sampler, then ``*scale + loc``)."""

    def sample(self, query: Any, n: int) -> np.ndarray:
        from scipy import stats

        return stats.laplace.rvs(loc=float(query), scale=self.scale, size=n, random_state=self.rng)


class ExpovariateLaplace(_Base):
    """``value +- random.expovariate(e/d)``: ``-log(1 - random()) / lambd`` with a random sign."""

    vectorised = False

    def sample(self, query: Any, n: int) -> np.ndarray:
        value, rate, rnd = float(query), self.epsilon / self.sensitivity, self.pyrng
        out = np.empty(n)
        for i in range(n):
            noise = rnd.expovariate(rate)
            out[i] = value + noise if rnd.random() < 0.5 else value - noise
        return out


class TextbookGaussian(_Base):
    """``value + Generator.normal(0, sigma)``, sigma from the classic (e, d) calibration."""

    def __init__(self, epsilon: float = 1.0, delta: float = 1e-5, name: str = "") -> None:
        super().__init__(epsilon, 1.0, name or f"gaussian(eps={epsilon:g})")
        self.delta = delta

    def sample(self, query: Any, n: int) -> np.ndarray:
        sigma = self.sensitivity * math.sqrt(2 * math.log(1.25 / self.delta)) / self.epsilon
        return float(query) + self.rng.normal(0.0, sigma, n)


class RescaledLaplace(_Base):
    """Noise added in the rescaled space: ``(value / s + Laplace(1)) * s`` (OpenDP <= 0.4 style)."""

    def sample(self, query: Any, n: int) -> np.ndarray:
        s = self.scale
        return (float(query) / s + self.rng.laplace(0.0, 1.0, n)) * s


class DiscretisedLaplace(_Base):
    """Exact: ``(round(x * 2**10) + G1 - G2) * 2**-10`` with G1, G2 iid geometric.

    G1 - G2 is a two-sided geometric with ``P[k] ~ exp(-step_epsilon * |k|)``.  Rounding the
    input moves neighbours by up to ``1024 * sensitivity + 1`` grid steps, which the claim
    accounts for: ``epsilon = step_epsilon * (1024 * sensitivity + 1)``.
    """

    def __init__(self, step_epsilon: float = 1e-3, sensitivity: float = 1.0) -> None:
        super().__init__(step_epsilon * (1024 * sensitivity + 1), sensitivity, "")
        self.step_epsilon = step_epsilon
        self.name = f"discretised-laplace(eps={self.epsilon:g})"

    def sample(self, query: Any, n: int) -> np.ndarray:
        p = -math.expm1(-self.step_epsilon)
        k = round(float(query) * 1024) + self.rng.geometric(p, n) - self.rng.geometric(p, n)
        return k * 2.0**-10


class SnappingLike(_Base):
    """Snapping-style: clamp, add ``sign * lam * ln(U)``, round to ``Lambda`` = 2^ceil(log2 lam), clamp.

    The claim follows Mironov's accounting, ``lam = (1 + 12 B eta) / (epsilon - 2 eta)``; the
    logarithm here is numpy's (not correctly rounded), hence "like".
    """

    def __init__(self, epsilon: float = 1.0, bound: float = 10.0) -> None:
        super().__init__(epsilon, 1.0, f"snapping-like(eps={epsilon:g})")
        eta = 2.0**-53
        self.bound = bound
        self.lam = (1 + 12 * bound * eta) / (epsilon - 2 * eta)
        self.grid = 2.0 ** math.ceil(math.log2(self.lam))

    def sample(self, query: Any, n: int) -> np.ndarray:
        b = self.bound
        x = min(max(float(query), -b), b)
        sign = 2.0 * self.rng.integers(0, 2, n) - 1
        noisy = x + sign * self.lam * np.log(1.0 - self.rng.random(n))
        return np.clip(np.round(noisy / self.grid) * self.grid, -b, b)
