# ruff: noqa: SIM108, B905
"""Held-out mechanisms, set 24: leaks in delta alone, moves shorter than the sensitivity.

DOCSTRING_PLACEHOLDER
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

# ---------------------------------------------------------------------------------------------
# Exact samplers shared by the mechanisms (integer noise; all randomness from the generator
# passed in).  The same constructions as set 23's.
# ---------------------------------------------------------------------------------------------


def _dlap(rng, rate, size):
    """Discrete Laplace: P(k) proportional to exp(-rate * |k|), as the difference of two
    geometric variables (integer noise: no floating-point output to leak through)."""
    p = -math.expm1(-rate)
    return rng.geometric(p, size) - rng.geometric(p, size)


def _bern_exp_frac(rng, r, d):
    """Bernoulli(exp(-r/d)) for integer arrays 0 <= r <= d, d > 0 (Canonne, Kamath and Steinke
    2020, Algorithm 1), exact: only uniform integers are drawn."""
    k = np.ones(r.shape, dtype=np.int64)
    idx = np.nonzero(r > 0)[0]
    while idx.size:
        a = rng.integers(0, d[idx] * k[idx]) < r[idx]
        idx = idx[a]
        k[idx] += 1
    return (k % 2) == 1


def _bern_exp(rng, num, den):
    """Bernoulli(exp(-num/den)) for integer arrays num >= 0, den > 0, exact: the integer part
    as that many Bernoulli(exp(-1)) in a row, the fraction by `_bern_exp_frac`."""
    num = np.asarray(num, dtype=np.int64)
    den = np.asarray(den, dtype=np.int64)
    whole, frac = np.divmod(num, den)
    alive = _bern_exp_frac(rng, frac, den)
    idx = np.nonzero(alive & (whole > 0))[0]
    j = 0
    while idx.size:
        one = np.ones(idx.size, dtype=np.int64)
        ok = _bern_exp_frac(rng, one, one)
        alive[idx[~ok]] = False
        idx = idx[ok]
        j += 1
        idx = idx[whole[idx] > j]
    return alive


def _dgauss(rng, sigma2, size):
    """Discrete Gaussian N_Z(0, sigma2) for a rational sigma2 (a Fraction), by rejection from a
    discrete Laplace of integer scale t (Canonne, Kamath and Steinke 2020, Algorithm 3); the
    acceptance test is the exact Bernoulli above with a rational exponent."""
    p, q = sigma2.numerator, sigma2.denominator
    t = math.isqrt(p // q) + 1
    total = int(np.prod(size))
    out = np.empty(total, dtype=np.int64)
    todo = np.arange(total)
    while todo.size:
        y = _dlap(rng, 1.0 / t, todo.size)
        # exponent (|y| - sigma2/t)^2 / (2 sigma2) = (|y| q t - p)^2 / (2 p q t^2)
        num = (np.abs(y) * (q * t) - p) ** 2
        ok = _bern_exp(rng, num, np.full(todo.size, 2 * p * q * t * t, dtype=np.int64))
        out[todo[ok]] = y[ok]
        todo = todo[~ok]
    return out.reshape(size)


def _ints(values, lo, hi):
    """Records as whole numbers clamped to [lo, hi] (the domain's bounds are ints)."""
    return np.clip(np.rint(np.asarray(values, dtype=float)), lo, hi).astype(np.int64)


def _snap(value, grid):
    """round(value / grid) half up, exactly (the double read as a Fraction): shifting the value
    by a multiple of the grid shifts the result by exactly that many steps."""
    return math.floor(Fraction(float(value)) / grid + Fraction(1, 2))


def _dlap_tail_k(rate, delta):
    """Smallest integer k with P(Z >= k) = a^k / (1 + a) <= delta for the discrete Laplace
    Z of rate `rate` (a = e^-rate)."""
    a = math.exp(-rate)
    return math.ceil(math.log(delta * (1 + a)) / math.log(a))


class _Base:
    vectorised = True
    library = "held-out set 24"

    def __init__(self, broken=False):
        self.broken = broken
        self.name = f"ho24.{self.mechanism}.{'broken' if broken else 'correct'}"
        self._rng = np.random.default_rng()

    def seed(self, entropy):
        self._rng = np.random.default_rng(entropy)


# ---------------------------------------------------------------------------------------------
# 1. Partition selection by the truncated-geometric keep probabilities (Desfontaines et al.).
# ---------------------------------------------------------------------------------------------


def _keep_table(eps, delta):
    """pi(n): the optimal probability of keeping a key held by n users (Desfontaines, Voss,
    Gipson, Mandayam 2022): pi(0) = 0, pi(n) = min(e^eps pi(n-1) + delta,
    1 + e^-eps (pi(n-1) + delta - 1), 1).  Returned up to the first n with pi(n) = 1."""
    table = [0.0]
    while table[-1] < 1.0:
        prev = table[-1]
        table.append(min(math.exp(eps) * prev + delta, 1 + math.exp(-eps) * (prev + delta - 1), 1.0))
    return np.array(table)


class TruncatedGeometricSelection(_Base):
    """Which of the keys 0..7 to release (one record per user, add/remove): a key held by n
    users is kept with probability pi(n), the truncated-geometric table, independently of the
    others; keys absent from the data are never considered.  Output: one bit per key."""

    mechanism = "truncated_geometric_partition_selection"
    description = "partition selection with the optimal keep probabilities pi(n)"
    epsilon, delta = 1.0, 1e-5
    input_kind = "dataset"
    domain = (0, 7)
    neighbours = "add_remove"
    output_kind = "boolean"
    output_length = 8

    _keys = 8

    def __init__(self, broken=False):
        super().__init__(broken)
        self._table = _keep_table(self.epsilon, self.delta)

    def sample(self, query, n):
        x = _ints(np.asarray(query).reshape(-1), 0, self._keys - 1)
        users = np.bincount(x, minlength=self._keys)
        last = self._table.size - 1
        if self.broken:
            row = np.minimum(users + 1, last)  # BUG: table read one row down (pi[0] taken as n = 1)
        else:
            row = np.minimum(users, last)
        prob = np.where(users > 0, self._table[row], 0.0)  # only keys present are considered
        return self._rng.random((n, self._keys)) < prob


# ---------------------------------------------------------------------------------------------
# 2. Stability histogram: noisy counts released above a threshold.
# ---------------------------------------------------------------------------------------------


class ThresholdHistogram(_Base):
    """Counts of the categories 0..5 (one record per user, add/remove), each present category
    with discrete Laplace noise of rate eps, released (with its noisy count) when the noisy
    count exceeds k, the smallest k with P(Z >= k) <= delta: a category held by one record then
    passes with probability P(1 + Z > k) = P(Z >= k) <= delta."""

    mechanism = "threshold_histogram"
    description = "stability histogram, release if noisy count > k"
    epsilon, delta = 2.0, 5e-5
    input_kind = "dataset"
    domain = (0, 5)
    neighbours = "add_remove"
    output_kind = "integer"
    output_length = 6
    nullable = True

    _keys = 6

    def __init__(self, broken=False):
        super().__init__(broken)
        self._k = _dlap_tail_k(self.epsilon, self.delta)  # 5

    def sample(self, query, n):
        x = _ints(np.asarray(query).reshape(-1), 0, self._keys - 1)
        counts = np.bincount(x, minlength=self._keys)
        noisy = counts + _dlap(self._rng, self.epsilon, (n, self._keys))
        if self.broken:
            passes = noisy >= self._k  # BUG: >= where the tail bound was solved for >
        else:
            passes = noisy > self._k
        keep = passes & (counts > 0)
        return np.where(keep, noisy.astype(float), np.nan)


# ---------------------------------------------------------------------------------------------
# 3. Propose-test-release argmax: the winner released only when its noisy gap passes a bar.
# ---------------------------------------------------------------------------------------------


class GapTestedArgmax(_Base):
    """Index of the largest of 4 integer scores (ties to the lowest index), released only when
    the gap to the runner-up plus discrete Laplace noise reaches tau, else none (-1).
    Neighbouring score vectors differ by at most 1 in every entry: the gap moves by up to 2
    (noise rate eps/2), and the released index can change only while the gap is at most 2, so
    tau = 2 + k with P(Z >= k) <= delta for the gap's noise."""

    mechanism = "gap_tested_argmax"
    description = "propose-test-release argmax, (1, 1e-3)"
    epsilon, delta = 1.0, 1e-3
    input_kind = "vector"
    norm = "linf"
    sensitivity = 1
    integer_queries = True
    query_length = 4
    output_kind = "index"
    nullable = True

    def __init__(self, broken=False):
        super().__init__(broken)
        self._rate = self.epsilon / (2 * self.sensitivity)  # gap sensitivity 2
        if self.broken:
            k = _dlap_tail_k(self.epsilon, self.delta)  # BUG: tail solved at the scores' rate eps
        else:
            k = _dlap_tail_k(self._rate, self.delta)
        self._tau = 2 * self.sensitivity + k

    def sample(self, query, n):
        q = np.rint(np.asarray(query, dtype=float)).astype(np.int64).reshape(-1)
        top = int(np.argmax(q))
        gap = int(q[top] - np.max(np.delete(q, top)))
        noisy_gap = gap + _dlap(self._rng, self._rate, n)
        return np.where(noisy_gap >= self._tau, top, -1)


# ---------------------------------------------------------------------------------------------
# 4. Partition selection with discrete Gaussian noise, the whole delta spent twice.
# ---------------------------------------------------------------------------------------------


class GaussianPartitionSelection(_Base):
    """Counts of keys 0..7 (one record per user, add/remove) with discrete Gaussian noise
    (sigma^2 = 14: delta(eps = 1) of one unit shift is 9.96e-6 <= 1e-5), a present key released
    with its noisy count when that reaches tau = 1 + t, t the smallest with P(Z >= t) <= delta
    (tau = 18).  One record touches one key, so the two deltas are never spent together: each
    may be the whole delta (the correct twin is tight, not over-budget)."""

    mechanism = "gaussian_partition_selection"
    description = "discrete Gaussian counts, keys released above tau"
    epsilon, delta = 1.0, 1e-5
    input_kind = "dataset"
    domain = (0, 7)
    neighbours = "add_remove"
    output_kind = "integer"
    output_length = 8
    nullable = True

    _keys = 8
    _sigma2 = Fraction(14)

    def __init__(self, broken=False):
        super().__init__(broken)
        s2 = float(self._sigma2)
        support = np.arange(-200, 201)
        pmf = np.exp(-(support.astype(float) ** 2) / (2 * s2))
        pmf /= pmf.sum()
        tail = np.cumsum(pmf[::-1])[::-1]  # tail[i] = P(Z >= support[i])
        t = int(support[np.nonzero(tail <= self.delta)[0][0]])
        self._tau = 1 + t
        self._fast = self._tau + math.ceil(4 * math.sqrt(s2))  # 33

    def sample(self, query, n):
        x = _ints(np.asarray(query).reshape(-1), 0, self._keys - 1)
        counts = np.bincount(x, minlength=self._keys)
        noisy = counts + _dgauss(self._rng, self._sigma2, (n, self._keys))
        keep = (noisy >= self._tau) & (counts > 0)
        if self.broken:
            keep |= counts >= self._fast  # BUG: "4 sigma above tau" keys skip the noisy test
        return np.where(keep, noisy.astype(float), np.nan)


# ---------------------------------------------------------------------------------------------
# 5. Laplace at a granularity: the query snapped to a grid, noise in whole grid steps.
# ---------------------------------------------------------------------------------------------


class GranularLaplace(_Base):
    """A real answer (sensitivity 5) snapped to the grid g (round half up, exact) plus discrete
    Laplace noise in grid steps at rate eps g / Delta; output g (steps + noise), exact on the
    grid.  Correct when g divides Delta (a move of at most Delta then moves at most Delta / g
    steps): g = 1, the largest power of two dividing 5."""

    mechanism = "granular_laplace"
    description = "snapped answer plus discrete Laplace in grid steps"
    epsilon, delta = 1.0, 0.0
    input_kind = "scalar"
    sensitivity = 5
    output_kind = "real"

    def __init__(self, broken=False):
        super().__init__(broken)
        if self.broken:
            self._grid = 2 ** math.floor(math.log2(self.sensitivity))  # BUG: 4, does not divide 5
        else:
            self._grid = self._largest_power_of_two_dividing(self.sensitivity)  # 1
        self._rate = self.epsilon * self._grid / self.sensitivity

    @staticmethod
    def _largest_power_of_two_dividing(value):
        value = Fraction(value)
        g = Fraction(1)
        while (value / (2 * g)).denominator == 1:
            g *= 2
        while (value / g).denominator != 1:
            g /= 2
        return g

    def sample(self, query, n):
        steps = _snap(query, Fraction(self._grid))
        return float(self._grid) * (steps + _dlap(self._rng, self._rate, n)).astype(float)


# ---------------------------------------------------------------------------------------------
# 6. Histogram over value bins with the bins' edges.
# ---------------------------------------------------------------------------------------------


class BinnedHistogram(_Base):
    """Counts of integer values in [0, 9] in the bins [0, 3), [3, 6), [6, 9] (add/remove one
    record: L1 sensitivity 1), discrete Laplace noise of rate eps per bin."""

    mechanism = "binned_histogram"
    description = "histogram over three value bins"
    epsilon, delta = 1.0, 0.0
    input_kind = "dataset"
    domain = (0, 9)
    neighbours = "add_remove"
    output_kind = "integer"
    output_length = 3

    _edges = (0, 3, 6, 9)

    def sample(self, query, n):
        x = _ints(np.asarray(query).reshape(-1), 0, 9)
        counts = []
        for b in range(3):
            lo, hi = self._edges[b], self._edges[b + 1]
            if self.broken:
                inside = (x >= lo) & (x <= hi)  # BUG: both edges inclusive, 3 and 6 in two bins
            else:
                inside = (x >= lo) & ((x < hi) | (b == 2))  # half-open, the last bin closed
            counts.append(int(inside.sum()))
        return np.asarray(counts) + _dlap(self._rng, self.epsilon, (n, 3))


# ---------------------------------------------------------------------------------------------
# 7. and 8. A real vector snapped to a grid per coordinate, then integer noise.
# ---------------------------------------------------------------------------------------------


class _SnappedVector(_Base):
    input_kind = "vector"
    sensitivity = 1
    query_length = 3
    output_kind = "real"
    output_length = "query"

    _grid = Fraction(1, 2)

    def _steps(self, query):
        q = np.asarray(query, dtype=float).reshape(-1)
        return np.array([_snap(v, self._grid) for v in q], dtype=np.int64)


class SnappedVectorLaplace(_SnappedVector):
    """Three real answers, L1 sensitivity 1, each snapped to the grid 1/2 and given discrete
    Laplace noise in grid steps.  Snapping adds up to one step per coordinate that moves by a
    fraction of a step: a move of L1 norm Delta shifts at most Delta / g + m - 1 = 4 steps in
    all (0.51 on one entry, 0.245 on each other: 2 + 1 + 1), rate eps / 4 per step."""

    mechanism = "snapped_vector_laplace"
    description = "per-coordinate snapping to 1/2, L1 discrete Laplace"
    epsilon, delta = 1.0, 0.0
    norm = "l1"

    def __init__(self, broken=False):
        super().__init__(broken)
        per_move = Fraction(self.sensitivity) / self._grid  # 2 steps for a move of Delta
        if self.broken:
            steps = per_move  # BUG: the snapped vector's L1 move taken as Delta / g
        else:
            steps = per_move + self.query_length - 1
        self._rate = self.epsilon / float(steps)

    def sample(self, query, n):
        s = self._steps(query)
        noise = _dlap(self._rng, self._rate, (n, s.size))
        return float(self._grid) * (s + noise).astype(float)


class SnappedVectorGaussian(_SnappedVector):
    """Three real answers, L2 sensitivity 1, each snapped to the grid 1/2, discrete Gaussian
    noise in grid steps for rho-zCDP.  A move of L2 norm 1 can shift every coordinate by
    ceil(Delta / g) = 2 steps (0.51 on each: norm 0.88), so the steps' L2^2 is up to
    m ceil(Delta / g)^2 = 12 and sigma^2 = 12 / (2 rho) = 12 steps^2."""

    mechanism = "snapped_vector_gaussian"
    description = "per-coordinate snapping to 1/2, discrete Gaussian, zCDP"
    claim = "zcdp:rho=0.5"
    _rho = Fraction(1, 2)
    norm = "l2"

    def __init__(self, broken=False):
        super().__init__(broken)
        per_coordinate = math.ceil(Fraction(self.sensitivity) / self._grid)  # 2
        if self.broken:
            l2_squared = (Fraction(self.sensitivity) / self._grid) ** 2  # BUG: (Delta / g)^2 = 4
        else:
            l2_squared = Fraction(self.query_length * per_coordinate**2)  # 12
        self._sigma2 = l2_squared / (2 * self._rho)

    def sample(self, query, n):
        s = self._steps(query)
        noise = _dgauss(self._rng, self._sigma2, (n, s.size))
        return float(self._grid) * (s + noise).astype(float)


# ---------------------------------------------------------------------------------------------
# 9. Local: optimized unary encoding of a bucketed value.
# ---------------------------------------------------------------------------------------------


class BucketedUnaryEncoding(_Base):
    """One person's value in 0..11, bucketed into [0, 3), [3, 6), [6, 9), [9, 11]; the bucket
    one-hot encoded and each bit reported by optimized unary encoding (Wang et al. 2017): a 1
    stays 1 with probability 1/2, a 0 becomes 1 with probability 1 / (e^eps + 1): eps-LDP."""

    mechanism = "bucketed_unary_encoding"
    description = "OUE over 4 value buckets"
    epsilon, delta = 1.0, 0.0
    input_kind = "local"
    domain = (0, 11)
    output_kind = "boolean"
    output_length = 4

    _edges = (0, 3, 6, 9, 12)

    def _onehot(self, value):
        bits = np.zeros(4, dtype=bool)
        for b in range(4):
            lo, hi = self._edges[b], self._edges[b + 1]
            if self.broken:
                bits[b] = lo <= value <= hi  # BUG: inclusive upper edge, 3, 6 and 9 in two buckets
            else:
                bits[b] = lo <= value < hi
        return bits

    def sample(self, query, n):
        bits = self._onehot(int(query))
        q = 1.0 / (math.exp(self.epsilon) + 1.0)
        u = self._rng.random((n, 4))
        ones = self._rng.integers(0, 2, size=(n, 4)) == 1  # probability 1/2, exactly
        return np.where(bits, ones, u < q)


# ---------------------------------------------------------------------------------------------
# 10. A real answer rounded to an integer before discrete Laplace noise.
# ---------------------------------------------------------------------------------------------


class RoundedDiscreteLaplace(_Base):
    """A real answer (sensitivity 1) made an integer for the discrete Laplace mechanism (rate
    eps) by unbiased randomized rounding: floor(x) + Bernoulli(frac(x)).  With one uniform for
    both neighbours the rounded values differ by at most 1, so the release is eps-DP (a mixture
    of pairs each eps apart), exactly eps at x vs x + 1."""

    mechanism = "rounded_discrete_laplace"
    description = "randomized rounding then discrete Laplace"
    epsilon, delta = 1.0, 0.0
    input_kind = "scalar"
    sensitivity = 1
    output_kind = "integer"

    def sample(self, query, n):
        x = float(query)
        if self.broken:
            base = np.full(n, int(np.rint(x)), dtype=np.int64)  # BUG: half to even, 0.5 -> 0, 1.5 -> 2
        else:
            whole = math.floor(x)
            frac = x - whole  # exact for doubles
            base = whole + (self._rng.random(n) < frac).astype(np.int64)
        return base + _dlap(self._rng, self.epsilon / self.sensitivity, n)


# ---------------------------------------------------------------------------------------------
# 11. Stability histogram under replace-one neighbours.
# ---------------------------------------------------------------------------------------------


class ReplaceThresholdHistogram(_Base):
    """Counts of the categories 0..5 under replace-one neighbours (one count down, another up:
    L1 sensitivity 2, discrete Laplace noise of rate eps/2 per category); a present category is
    released with its noisy count when that exceeds k, the smallest k with P(Z >= k) <= delta
    for that noise.  The replaced record's new category (count 1) is then released with
    probability at most delta, and its old one, if it empties, likewise on the other side."""

    mechanism = "replace_threshold_histogram"
    description = "stability histogram, replace-one, release if noisy count > k"
    epsilon, delta = 2.0, 1e-4
    input_kind = "dataset"
    domain = (0, 5)
    neighbours = "replace"
    output_kind = "integer"
    output_length = 6
    nullable = True

    _keys = 6

    def __init__(self, broken=False):
        super().__init__(broken)
        self._rate = self.epsilon / 2  # replace-one: L1 sensitivity 2
        if self.broken:
            self._k = _dlap_tail_k(self.epsilon, self.delta)  # BUG: tail solved at add/remove rate eps
        else:
            self._k = _dlap_tail_k(self._rate, self.delta)  # 9

    def sample(self, query, n):
        x = _ints(np.asarray(query).reshape(-1), 0, self._keys - 1)
        counts = np.bincount(x, minlength=self._keys)
        noisy = counts + _dlap(self._rng, self._rate, (n, self._keys))
        keep = (noisy > self._k) & (counts > 0)
        return np.where(keep, noisy.astype(float), np.nan)


# ---------------------------------------------------------------------------------------------
# 12. (eps, delta) randomized response on one bit.
# ---------------------------------------------------------------------------------------------


class ApproximateRandomizedResponse(_Base):
    """One bit, reported truthfully with probability delta + (1 - delta) e^eps / (1 + e^eps)
    (with probability delta the bit itself, else eps-randomized response), the optimal binary
    (eps, delta) mechanism: P(1 | 1) - e^eps P(1 | 0) = delta exactly."""

    mechanism = "approximate_randomized_response"
    description = "(eps, delta) randomized response on a bit"
    family = "binary"
    epsilon, delta = 1.0, 1e-3

    def __init__(self, broken=False):
        super().__init__(broken)
        rr = math.exp(self.epsilon) / (1 + math.exp(self.epsilon))
        if self.broken:
            self._truth = rr + self.delta  # BUG: delta added on top, not mixed in: (1 + e^eps) delta
        else:
            self._truth = self.delta + (1 - self.delta) * rr

    def sample(self, query, n):
        bit = int(query)
        truthful = self._rng.random(n) < self._truth
        return np.where(truthful, bit, 1 - bit).astype(np.int64)


_CLASSES = (
    TruncatedGeometricSelection,
    ThresholdHistogram,
    GapTestedArgmax,
    GaussianPartitionSelection,
    GranularLaplace,
    BinnedHistogram,
    SnappedVectorLaplace,
    SnappedVectorGaussian,
    BucketedUnaryEncoding,
    RoundedDiscreteLaplace,
    ReplaceThresholdHistogram,
    ApproximateRandomizedResponse,
)

ADAPTERS = [cls(broken=b) for cls in _CLASSES for b in (False, True)]
