"""Known-good and known-broken mechanisms for the sensitivity, black-box, timing and pair-search
attacks.

Known-good ones are exact (integer arithmetic, exact or numpy-geometric discrete noise, or an
inverse-CDF table whose truncation mass is below 2^-80), so the harness must never call them
broken; known-broken ones leak by construction (half the noise, no noise, an int64 or float sum
whose rounding exceeds the declared sensitivity, a propose-test-release without noise on the
distance, a sampler whose running time grows with |noise|).
"""

from __future__ import annotations

import math
import time

import numpy as np

from auditor.adapters.base import SeededAdapter
from reference_mechanisms.discrete_laplace import sample_discrete_laplace


class _Seeded:
    def __init__(self) -> None:
        self._rng = np.random.default_rng(0)

    def seed(self, entropy: int) -> None:
        self._rng = np.random.default_rng(entropy)


def _two_sided_geometric(rng: np.random.Generator, epsilon: float, n: int) -> np.ndarray:
    """Discrete Laplace with P[z] proportional to exp(-epsilon |z|), via two geometrics."""
    g = rng.geometric(1.0 - math.exp(-epsilon), size=(2, n))
    return g[0] - g[1]


# --- additive ------------------------------------------------------------------------------


class HalfNoiseLaplace(_Seeded):
    """Float Laplace with scale Δ/(2ε): half the noise the claim needs (true ε = 2·claim)."""

    family = "additive"
    delta = 0.0
    sensitivity = 1.0

    def __init__(self, epsilon: float = 1.0, name: str = "test.half_noise_laplace"):
        super().__init__()
        self.epsilon, self.name = epsilon, name

    def sample(self, query, n):
        return float(query) + self._rng.laplace(0.0, self.sensitivity / (2 * self.epsilon), n)


class NoiselessAdditive:
    """Releases the true answer: the differencing attack's target."""

    family = "additive"
    epsilon = 1.0
    delta = 0.0
    sensitivity = 1.0
    name = "test.noiseless_additive"

    def sample(self, query, n):
        return np.full(n, float(query))


class SlowTailDiscreteLaplace(_Seeded):
    """Correct output distribution, but each call spins ``spin_ns`` per unit of |noise|.

    Models an exact sampler whose loop count grows with |noise| (Jin et al. 2022).
    """

    family = "additive"
    delta = 0.0
    sensitivity = 1
    integer_queries = True

    def __init__(self, epsilon: float = 1.0, spin_ns: int = 40_000, name: str = "test.slow_tail"):
        super().__init__()
        self.epsilon, self.spin_ns, self.name = epsilon, spin_ns, name

    def sample(self, query, n):
        z = _two_sided_geometric(self._rng, self.epsilon, n)
        deadline = time.perf_counter_ns() + self.spin_ns * int(np.abs(z).sum())
        while time.perf_counter_ns() < deadline:
            pass
        return int(query) + z


class PaddedDiscreteLaplace(_Seeded):
    """Discrete Laplace whose every call is padded to ``pad_ns``: constant time.

    The noise (numpy geometrics, whose running time grows slightly with the value) is drawn
    first; the call then spins until ``pad_ns`` after it started, so its duration no longer
    depends on the noise (up to the clock-polling period).
    """

    family = "additive"
    delta = 0.0
    sensitivity = 1
    integer_queries = True

    def __init__(
        self,
        epsilon: float = 1.0,
        pad_ns: int = 30_000,
        name: str = "test.padded",
        noise_epsilon: float | None = None,
    ):
        super().__init__()
        self.epsilon, self.pad_ns, self.name = epsilon, pad_ns, name
        # noise at a smaller epsilon leaves the claim slack: the outputs alone then certify
        # less than the claim, so a timing event has to carry a real difference to cross it
        self.noise_epsilon = epsilon if noise_epsilon is None else noise_epsilon

    def sample(self, query, n):
        deadline = time.perf_counter_ns() + self.pad_ns * n
        out = int(query) + _two_sided_geometric(self._rng, self.noise_epsilon, n)
        while time.perf_counter_ns() < deadline:
            pass
        return out


class TableDiscreteLaplace(_Seeded):
    """Discrete Laplace by inverse CDF over a fixed table: the same work for every output.

    The support is truncated to |z| <= 64; the missing mass is below e^-64 for epsilon = 1.
    """

    family = "additive"
    delta = 0.0
    sensitivity = 1
    integer_queries = True

    def __init__(self, epsilon: float = 1.0, name: str = "test.table_discrete_laplace"):
        super().__init__()
        self.epsilon, self.name = epsilon, name
        support = np.arange(-64, 65)
        weights = np.exp(-epsilon * np.abs(support))
        self._support = support
        self._cdf = np.cumsum(weights) / weights.sum()

    def sample(self, query, n):
        u = self._rng.random(n)
        idx = np.minimum(np.searchsorted(self._cdf, u, side="right"), len(self._support) - 1)
        return int(query) + self._support[idx]


# --- dataset: sums -------------------------------------------------------------------------


class NaiveFloatSum(_Seeded):
    """Clamp, float64 ``np.sum``, add numpy Laplace(Δ/ε): the textbook bounded sum.

    With a large-offset narrow domain (e.g. [2^50, 2^50 + 1], replace, Δ = 1) the float sum's
    rounding moves by far more than Δ when one record changes (Casacuberta et al. 2022).
    """

    family = "dataset"
    delta = 0.0

    def __init__(
        self,
        domain=(2.0**50, 2.0**50 + 1.0),
        neighbours: str = "replace",
        epsilon: float = 1.0,
        name: str = "test.naive_float_sum",
    ):
        super().__init__()
        self.domain, self.neighbours, self.epsilon, self.name = domain, neighbours, epsilon, name
        lo, hi = domain
        self.sensitivity = hi - lo if neighbours == "replace" else max(abs(lo), abs(hi))

    def _sum(self, query) -> float:
        return float(np.sum(np.clip(np.asarray(query, dtype=np.float64), *self.domain)))

    def sample(self, query, n):
        return self._sum(query) + self._rng.laplace(0.0, self.sensitivity / self.epsilon, n)


class NaiveFloatSumWithProbe(NaiveFloatSum):
    """The same, offering the noiseless probe ``release_without_noise``."""

    def release_without_noise(self, query) -> float:
        return self._sum(query)


class ExactIntegerSum(_Seeded):
    """Clamp integer records, sum them as Python ints, add exact discrete Laplace(Δ/ε).

    Correct for any integer domain: the sum never wraps and never rounds, so neighbours' sums
    differ by at most Δ; the output is converted to float afterwards (post-processing).
    ``release_without_noise`` returns the exact sum.
    """

    family = "dataset"
    delta = 0.0

    def __init__(
        self,
        domain=(0, 2**50),
        neighbours: str = "add_remove",
        epsilon: float = 1.0,
        name: str = "test.exact_integer_sum",
        probe: bool = True,
    ):
        super().__init__()
        self.domain, self.neighbours, self.epsilon, self.name = domain, neighbours, epsilon, name
        lo, hi = domain
        self._delta = hi - lo if neighbours == "replace" else max(abs(lo), abs(hi))
        if probe:
            self.release_without_noise = self._sum

    def _sum(self, query) -> int:
        lo, hi = self.domain
        x = np.asarray(query)
        if not np.issubdtype(x.dtype, np.integer):
            return sum(min(max(int(v), lo), hi) for v in x.tolist())
        x = np.clip(x.astype(np.int64), lo, hi)
        # exact: 32-bit halves summed separately cannot overflow int64 for < 2**31 records
        high, low = np.sum(x >> 32, dtype=np.int64), np.sum(x & 0xFFFFFFFF, dtype=np.int64)
        return (int(high) << 32) + int(low)

    def sample(self, query, n):
        from fractions import Fraction

        total = self._sum(query)
        noise = sample_discrete_laplace(
            Fraction(self._delta) / Fraction(self.epsilon), n, self._rng
        )
        # exact integer addition, then one correctly rounded conversion per output
        return (np.asarray(noise, dtype=object) + total).astype(np.float64)


class WrappingIntegerSum(ExactIntegerSum):
    """Like :class:`ExactIntegerSum` but sums in int64, which wraps around at 2^63."""

    def _sum(self, query) -> int:
        lo, hi = self.domain
        return int(np.sum(np.clip(np.asarray(query, dtype=np.int64), lo, hi), dtype=np.int64))


class ExactCount:
    """Releases the number of records exactly: no noise at all."""

    family = "dataset"
    epsilon = 1.0
    delta = 0.0
    domain = (0.0, 1.0)
    neighbours = "add_remove"
    name = "test.exact_count"

    def sample(self, query, n):
        return np.full(n, float(len(query)))


# --- dataset: propose-test-release ---------------------------------------------------------


def median_stability(records: np.ndarray, lo: int, hi: int) -> tuple[int, int]:
    """(lower median, fewest replaced records that change it) for integer records in [lo, hi]."""
    x = np.sort(np.asarray(records, dtype=np.int64))
    k = len(x) // 2
    v = int(x[k])
    below, at_most = int(np.count_nonzero(x < v)), int(np.count_nonzero(x <= v))
    down = k + 1 - below if v > lo else math.inf
    up = at_most - k if v < hi else math.inf
    return v, int(min(down, up))


class StabilityPTR(_Seeded):
    """Propose-test-release of the median: release it exactly if it is stable, else ⊥ (NaN).

    d = the number of records that must be replaced to change the median (1-Lipschitz under
    replace).  With ``noisy`` the test is d + Z > ln(1/δ)/ε + 1 with Z exact discrete Laplace
    of parameter e^-ε, which is (ε, δ)-DP (Dwork-Roth section 7.3; the +1 covers the neighbour
    whose median differs).  Without noise the ⊥ decision is a deterministic function of d and
    leaks on neighbours that straddle the threshold.
    """

    family = "dataset"
    neighbours = "replace"

    def __init__(
        self,
        noisy: bool = True,
        epsilon: float = 1.0,
        delta: float = 1e-6,
        domain=(0, 100),
        name: str | None = None,
    ):
        super().__init__()
        self.noisy, self.epsilon, self.delta, self.domain = noisy, epsilon, delta, domain
        self.name = name or ("test.ptr_median" if noisy else "test.ptr_median_noiseless_test")
        self._threshold = math.log(1 / delta) / epsilon + 1

    def sample(self, query, n):
        median, d = median_stability(query, *self.domain)
        if self.noisy:
            z = sample_discrete_laplace(1 / self.epsilon, n, self._rng) if n else np.zeros(0)
            release = d + z > self._threshold
        else:
            release = np.full(n, d > self._threshold)
        return np.where(release, float(median), np.nan)


# --- checks shared by the attack tests ------------------------------------------------------


def are_neighbours(x, y, relation: str) -> bool:
    """Whether datasets ``x`` and ``y`` (sequences) are neighbours, comparing values exactly.

    replace: same length, exactly one position differs.  add_remove: one is the other with
    exactly one record deleted somewhere (order of the rest kept).
    """
    a = [v for v in np.asarray(x).tolist()]
    b = [v for v in np.asarray(y).tolist()]
    if relation == "replace":
        return len(a) == len(b) and sum(u != v for u, v in zip(a, b, strict=True)) == 1
    if len(a) < len(b):
        a, b = b, a
    if len(a) != len(b) + 1:
        return False
    return any(a[:i] + a[i + 1 :] == b for i in range(len(a)))


def within(x, lo, hi) -> bool:
    """Every record of ``x`` in [lo, hi], compared exactly (Python ints for integer arrays)."""
    return all(lo <= v <= hi for v in np.asarray(x).tolist())


def reference_ptr_with_noiseless_test():
    """The reference A_dist median (add/remove) with its noisy test replaced by ``d > T``."""
    from auditor.adapters.reference_dataset import PTRMedianAdapter
    from reference_mechanisms.ptr import check_dataset, median_distance

    class NoiselessTestPTR(PTRMedianAdapter):
        def sample(self, query, n):
            med, d = median_distance(check_dataset(query, self.domain))
            released = d > math.log(1 / self.delta) / self.epsilon
            return np.full(n, med if released else np.nan)

    return NoiselessTestPTR(name="test.reference_ptr_noiseless_test")


class DataCategories(SeededAdapter):
    """Noisy counts of the three smallest values present: the categories come from the data."""

    input_kind = "dataset"
    domain = (0, 9)
    output_kind = "real"
    output_length = 3
    nullable = True
    delta = 0.0
    name = "data_categories"
    epsilon = 1.0

    def sample(self, query, n):
        values, counts = np.unique(np.asarray(query), return_counts=True)
        out = np.full((n, 3), np.nan)
        k = min(3, len(values))
        out[:, :k] = counts[:k] + self._rng.laplace(0, 2.0, size=(n, k))
        return out
