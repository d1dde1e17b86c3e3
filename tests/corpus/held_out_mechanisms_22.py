# ruff: noqa: SIM108, B905
"""Held-out mechanisms, set 22: floating-point and implementation hazards in vector, selection
and dataset mechanisms.

What this is
------------
Eight mechanisms, each as one class with a correct adapter and a broken twin
(``broken=True``) that differs from it by one realistic bug, marked ``# BUG`` beside the line
the correct adapter uses.  Every correct twin is private exactly as claimed, in floating point
too: all its noise is drawn by exact integer samplers (Canonne, Kamath and Steinke 2020,
Algorithms 1-3, from exact uniform integers ``rng.integers``), and every float it returns is a
fixed function of an exactly private integer output.  Every correct claim is tight or near
tight (the pair and event are given below).  ``TRUE_VALUES`` holds the true value of each
adapter's claim parameter (``math.inf`` where no finite value holds).

How it was written
------------------
Blind.  Of /work/main the author read only README.md, docs/writing-an-adapter.md,
docs/claims.md and docs/vector-outputs.md (and listed the file names in bench/ to choose an
unused file name).  No source under auditor/, attacks/, reference_mechanisms/, tests/, bench/,
no other doc, no git history, no other held-out set was opened; dp-audit was neither imported
nor run.  The module imports numpy and math only.  The true values were computed by scripts
outside the repository (listed at the end), from the mechanisms' definitions, and the
adapters' own outputs were tested against those exact laws.

Theme
-----
What real DP libraries have got wrong when the arithmetic meets the paper: float noise added
per coordinate of a vector (its low bits reveal the input; Mironov 2012), a Gaussian drawn by
Box-Muller from float uniforms, rounding that is not 1-Lipschitz (numpy's round-half-to-even),
an exponential mechanism whose negligible weights are dropped (as an underflowing float weight
is), a mean divided by the true size where the size is private, subsampling with instead of
without replacement, ties of integer noise broken by the private counts, and a clamp applied
to the noisy output instead of the records.

Mechanisms
----------
| # | name | input; relation | output | claim | bug | true value (broken) |
|---|---|---|---|---|---|---|
| 1 | histogram | dataset 0..5, add/remove | real x 6 | eps 1 | numpy float Laplace per bin instead of discrete Laplace | inf |
| 2 | gaussian_vector | vector of 4 ints, L2 <= 2 | real x 4 | 0.25-zCDP | Box-Muller float normal instead of discrete Gaussian | inf |
| 3 | rounded_vector | vector of 3 reals, Linf <= 1 | integer x 3 | eps 1.5 | np.rint (ties to even) instead of floor before the noise | 3.0 |
| 4 | windowed_mode | dataset 0..7, add/remove | integer (category) | eps ln 1.25 | candidates below the window dropped instead of floored | inf |
| 5 | subsampled_count | dataset of bits, replace, n >= 32 | integer | eps ln((e^2+3)/4) = 0.9545 | subsample drawn with replacement | 1.4563 |
| 6 | count_and_mean | dataset 0..10, add/remove | record (count, mean), nullable | eps 1 | mean = noisy sum / true size | inf |
| 7 | noisy_max_ties | vector of 5 ints, Linf <= 1, monotone | index | eps 1 | ties broken by the true count | 1.9822 |
| 8 | clipped_sums | dataset (category 0..3, amount 0..20), add/remove | integer x 4 | eps 1 | records not clamped to 10 (only the noisy output clamped) | 2.0 |

1. histogram.  Input: records in 0..5 (int domain), add/remove.  Output: the 6 bin counts,
   each plus noise, as reals.  Claim: 1-DP (one record moves one bin by 1; ``sensitivity =
   1``, ``norm = "l1"``, with a ``release_without_noise`` probe).  Correct: exact discrete
   Laplace P(z) ~ e^-|z| per bin, returned as whole-number floats: true eps 1, attained by
   any dataset pair on the moved bin's outputs >= its larger count (ratio exactly e).
   Bug: ``counts + rng.laplace(0, 1)`` in float64.  True value inf: with bin 0 at count 0
   (D = {1, 2, 3}) against count 1 (D' = D + {0}), every output of bin 0 in (-0.5, 0.5)
   that is not a multiple of 2^-53 (probability about 0.37 at D) is impossible at D', where
   fl(1 + n) for n in [-2, -0.5] is exact (Sterbenz) and so a multiple of 2^-53.
   Example output at D: 0x1.26d8dfaa304e7p-2.

2. gaussian_vector.  Input: 4 integer answers, L2 sensitivity 2 (``integer_queries``;
   moves such as (2,0,0,0) and (1,1,1,1)), clamped into ``query_bounds``.  Output: 4 reals.
   Claim ``zcdp:rho=0.25``.  Correct: exact discrete Gaussian N_Z(0, 8) per entry, added in
   int64: true rho 0.25 = 4/(2*8), attained as alpha -> 1 (the KL divergence of an integer
   shift v is exactly |v|^2/16 and D_alpha/alpha < 0.25 for alpha > 1) by the moves
   (2,0,0,0) or (1,1,1,1).  Bug: sqrt(8) * sqrt(-2 ln u1) cos(2 pi u2) with float uniforms,
   added in float.  True value inf: at x = 0 an entry's output in (-1, 1) that is not a
   multiple of 2^-52 is impossible at x' = (2,0,0,0) (fl(2 + n) there is exact), so
   D_alpha = inf; e.g. 0x1.24f2a2ca43be1p-1.

3. rounded_vector.  Input: 3 real answers, Linf sensitivity 1, clamped into
   ``query_bounds``.  Output: 3 integers: each answer rounded to an integer, plus exact
   discrete Laplace P(z) ~ e^(-|z|/2) per entry (eps 1/2 each).  Claim 1.5-DP.  Correct:
   np.floor, which moves by at most 1 when an answer moves by at most 1: true 1.5, attained
   at (0,0,0) vs (1,1,1) on outputs beyond both (ratio e^1.5).  Bug: np.rint, which rounds
   ties to even: rint(0.5) = 0 but rint(1.5) = 2, so an answer moving by 1 moves the rounded
   value by 2.  True value 3.0 (the bound 3 holds since |rint(x) - x| <= 1/2), attained at
   (0.5, 0.5, 0.5) vs (1.5, 1.5, 1.5) (also 2.5 vs 3.5, ...) on outputs >= (2,2,2).  Only
   pairs of half-integers with an even lower neighbour show it: a base of 0 does not.

4. windowed_mode.  Input: records in 0..7 (categories), add/remove.  Output: one category
   (integer), by the exponential mechanism on counts with exact integer weights: P(c) ~
   (5/4)^count'(c) with count' = max(count, max count - 20), weights 5^e 4^(20-e) in int64,
   one exact uniform integer per output against their cumulative sums.  Counts are monotone
   under add/remove and the floor keeps them monotone with sensitivity 1, so the claim is
   ln 1.25 = 0.22314.  Correct: true value 0.2227326 (the exact maximum over all datasets,
   by exhaustive enumeration: 7 categories at 21, one at 1, a record added to the one at 1;
   0.998 of the claim; the claim is approached as more categories sit at the max).  Bug:
   categories more than 20 below the max get weight 0 (their weight would be under 1.2 %
   of the max: the fate of an underflowing float weight, at a visible threshold).  True
   value inf: D = 20 records of one category, D' = 21: each other category has probability
   4^20/(5^20 + 7*4^20) = 0.01067 at D (0.0747 together) and 0 at D'.

5. subsampled_count.  Input: bits (domain (0, 1)), replace-one, ``min_records = 32``
   (refused below; under replace the size is public).  Output: the number of ones among 8
   records drawn without replacement, plus exact discrete Laplace P(z) ~ e^(-2|z|) (2-DP on
   the subsample).  Claim: amplification by subsampling without replacement under
   substitution, ln(1 + (8/n)(e^2 - 1)) at n = 32: ln((e^2 + 3)/4) = 0.954459.  Correct:
   true 0.954459 exactly, attained at n = 32, all zeros vs one 1, at every output y >= 1
   (P about 0.30).  Bug: the 8 draws are with replacement (a binomial count), so the changed
   record can be counted several times.  True value 8 ln(1 + (e^2 - 1)/32) = 1.456292, at
   the same pair for outputs y >= 8 (the event y >= 2 already gives 1.276 at probability
   0.056 at D').  Exact pmfs over n = 32..80, 100, 128, 200, 400 and every count of ones.

6. count_and_mean.  Input: records in 0..10, add/remove.  Output: record {count: integer,
   mean: real}, ``nullable`` (mean NaN when the noisy count is below 1; the count field is
   returned as whole-number floats as the docs ask of a nullable record).  Noisy count
   n + DLap (P ~ e^(-|z|/2), eps 1/2), noisy sum S + DLap (P ~ e^(-|z|/20), sensitivity
   10, eps 1/2).  Claim 1-DP.  Correct: mean = noisy sum / noisy count (post-processing;
   float division of integers is a fixed function, injective in the sum for a given
   count): true 1, attained by adding a record of 10, on outputs with count >= n + 1 and
   sum >= S + 10 (ratio exactly e).  Bug: mean = noisy sum / true n.  True value inf:
   D = {10} gives means that are always whole (s / 1); D' = {10, 10} gives s / 2, not
   whole with probability 0.3853.

7. noisy_max_ties.  Input: 5 integer counts, Linf sensitivity 1, ``monotone``.  Output:
   index of the largest count plus exact discrete Laplace P(z) ~ e^-|z| (report noisy max;
   integer noise makes ties frequent).  Claim 1-DP.  Correct: ties go to the lowest index;
   the threshold argument gives eps 1 for monotone moves, approached as the other counts
   move away (x = (0,4,4,4,4) -> (1,4,4,4,4), index 0: 0.999998; exhaustive search over
   {0..9}^5 and all monotone moves: 1.0000000; at base 0, one down at the start: 0.983).
   Bug: ties go to the candidate with the larger true count (then the lowest index), which
   lets a move of 1 shift a winning threshold by 2.  True value 1.982172 (exhaustive over
   {0..9}^5, every monotone move; the bound is 2), at x = (0,0,0,0,0) vs (-1,0,0,0,0)
   (equivalently (0,1,1,1,1)), output index 0: 0.3339 vs 0.0460.

8. clipped_sums.  Input: records (category 0..3, amount 0..20), two integer columns,
   add/remove.  Output: 4 integers: per-category sums of amounts clamped to [0, 10], plus
   exact discrete Laplace P(z) ~ e^(-|z|/10), clamped at 0 (post-processing).  Claim 1-DP
   (``sensitivity = 10``, ``norm = "l1"``, ``release_without_noise`` probe).  Correct: true
   1, attained by adding a record with amount >= 10 on outputs above both sums.  Bug: no
   upper clamp on the amounts (only the noisy output is clamped), so one record moves a sum
   by 20.  True value 2.0, adding a record (c, 20), on outputs >= the larger sum; the probe
   shows the noiseless sums 20 apart.

Check scripts (in /tmp/ho22/, run with /work/main/.venv/bin/python; not in the repository)
-----------------------------------------------------------------------------------------
- samplers_check.py: chi-square of 4 * 10^6 draws of the exact samplers (discrete Laplace
  of scales 1, 2, 3, 10, 20 and 1/2; discrete Gaussian of variance 2, 8, 9; Bernoulli
  (exp(-gamma))) against their exact laws.
- true_values.py: each true value above from exact pmfs (mpmath), exhaustive enumeration
  (mechanisms 4 and 7), the Renyi divergences of the discrete Gaussian (2), and random and
  half-integer checks of the rounding moves (3).  nm_wide.py widens mechanism 7's search to
  {0..9}^5; extra.py prints mechanism 5's ratio profile and mechanism 7's base-0 pairs.
- float_witness.py: draws outputs from the broken float twins (1, 2) and proves, by a
  monotone bracket on fl(q' + n), that they are impossible at the neighbour (about 37 % of
  outputs); the correct twins' outputs are all whole numbers (positive probability at
  every input); mechanism 6's lattice witness.
- smoke.py: attributes, shapes, dtypes, field names, seed replay, speed (2^18 outputs), and
  every adapter's outputs against the exact laws (chi-square; KS for the float twins),
  including mechanism 7's ratio 1.982 and mechanism 5's refusal below 32 records.

Run: dp-audit run --adapter tests/corpus/held_out_mechanisms_22.py:ADAPTERS --out held-out-22
(not run by the author).
"""

import math

import numpy as np

# ---------------------------------------------------------------------------------------------
# Exact integer samplers (Canonne, Kamath and Steinke 2020, "The discrete Gaussian for
# differential privacy", Algorithms 1-3).  Every random draw is an exact uniform integer from
# ``rng.integers``; no float enters a probability, so the laws below hold exactly.
# ---------------------------------------------------------------------------------------------


def _bern_exp01(rng, num, den):
    """Bernoulli(exp(-num/den)) element-wise, for integers 0 <= num <= den (CKS Algorithm 1).

    K = 1; while Bernoulli(gamma / K): K += 1; return K odd.  Exact."""
    num = np.asarray(num, dtype=np.int64).ravel()
    den = np.broadcast_to(np.asarray(den, dtype=np.int64), num.shape)
    k = np.ones(num.shape[0], dtype=np.int64)
    idx = np.arange(num.shape[0])
    while idx.size:
        go_on = rng.integers(0, den[idx] * k[idx]) < num[idx]  # Bernoulli(num / (den k))
        idx = idx[go_on]
        k[idx] += 1
    return (k & 1) == 1


def _bern_exp(rng, num, den):
    """Bernoulli(exp(-num/den)) element-wise for any integers num >= 0, den >= 1: floor(gamma)
    Bernoulli(exp(-1)) trials, then one Bernoulli(exp(-frac(gamma))).  Exact."""
    num = np.asarray(num, dtype=np.int64).ravel()
    den = np.broadcast_to(np.asarray(den, dtype=np.int64), num.shape)
    out = np.ones(num.shape[0], dtype=bool)
    whole = num // den
    j = 0
    while True:
        idx = np.nonzero(out & (whole > j))[0]
        if idx.size == 0:
            break
        one = np.ones(idx.size, dtype=np.int64)
        out[idx] = _bern_exp01(rng, one, one)
        j += 1
    idx = np.nonzero(out)[0]
    out[idx] = _bern_exp01(rng, num[idx] - whole[idx] * den[idx], den[idx])
    return out


def _geometric_e(rng, size):
    """V with P(V = v) = (1 - 1/e) e^-v, v = 0, 1, ...: successes of Bernoulli(1/e) before the
    first failure.  Exact."""
    v = np.zeros(size, dtype=np.int64)
    idx = np.arange(size)
    while idx.size:
        one = np.ones(idx.size, dtype=np.int64)
        idx = idx[_bern_exp01(rng, one, one)]
        v[idx] += 1
    return v


def _dlap(rng, t, size, s=1):
    """Discrete Laplace on the integers, P(z) proportional to exp(-|z| s / t), for positive
    integers s, t (CKS Algorithm 2).  Exact; int64 array of length size."""
    size = int(size)
    out = np.empty(size, dtype=np.int64)
    todo = np.arange(size)
    while todo.size:
        m = todo.size
        if t > 1:
            u = rng.integers(0, t, m)
            keep = _bern_exp01(rng, u, t)  # Bernoulli(exp(-u / t))
        else:
            u = np.zeros(m, dtype=np.int64)
            keep = np.ones(m, dtype=bool)
        y = (u + t * _geometric_e(rng, m)) // s
        b = rng.integers(0, 2, m)
        keep &= ~((b == 1) & (y == 0))
        out[todo[keep]] = ((1 - 2 * b) * y)[keep]
        todo = todo[~keep]
    return out


def _dgauss(rng, sigma2, size):
    """Discrete Gaussian N_Z(0, sigma2), P(z) proportional to exp(-z^2 / (2 sigma2)), for an
    integer sigma2 >= 1 (CKS Algorithm 3: discrete Laplace proposals of scale t = floor(sigma)
    + 1, accepted with probability exp(-(|y| - sigma2/t)^2 / (2 sigma2))).  Exact."""
    size = int(size)
    t = math.isqrt(sigma2) + 1  # floor(sigma) + 1
    out = np.empty(size, dtype=np.int64)
    todo = np.arange(size)
    while todo.size:
        y = _dlap(rng, t, todo.size)
        num = (np.abs(y) * t - sigma2) ** 2
        accept = _bern_exp(rng, num, 2 * sigma2 * t * t)
        out[todo[accept]] = y[accept]
        todo = todo[~accept]
    return out


def _whole(values):
    """Records of an integer domain as int64 (they arrive as whole numbers)."""
    return np.rint(np.asarray(values, dtype=np.float64)).astype(np.int64)


_BOUND = 10**6  # query_bounds of the vector mechanisms: answers are clamped into [-B, B]


def _int_query(query):
    """A vector of whole-number answers as int64, clamped into [-_BOUND, _BOUND] (clamping is
    1-Lipschitz and monotone: neighbours stay neighbours).  Integer arithmetic from here on,
    so no float rounding touches the answers before the noise."""
    q = np.asarray(query)
    if not np.issubdtype(q.dtype, np.integer):
        q = np.asarray(q, dtype=np.float64)
        if not np.all(q == np.rint(q)):
            raise ValueError("integer queries only")
        q = np.clip(q, -_BOUND, _BOUND)
    return np.clip(q.astype(np.int64), -_BOUND, _BOUND).ravel()


class _Base:
    vectorised = True
    library = "held-out set 22"
    mechanism = "base"

    def __init__(self, broken=False):
        self.broken = broken
        self.name = f"ho22.{self.mechanism}.{'broken' if broken else 'correct'}"
        self._rng = np.random.default_rng()

    def seed(self, entropy):
        self._rng = np.random.default_rng(entropy)


# 1 -------------------------------------------------------------------------------------------
class Histogram(_Base):
    """Histogram of records in 0..5 with noise on every bin: exact discrete Laplace (correct)
    or numpy's float Laplace added to the counts (broken, Mironov 2012)."""

    mechanism = "histogram"
    description = "6-bin histogram, add/remove; discrete Laplace(1) per bin vs float Laplace"
    input_kind = "dataset"
    domain = (0, 5)
    neighbours = "add_remove"
    output_kind = "real"
    output_length = 6
    epsilon, delta = 1.0, 0.0
    sensitivity = 1
    norm = "l1"

    def _counts(self, query):
        cat = np.clip(_whole(query).ravel(), 0, 5)
        return np.bincount(cat, minlength=6).astype(np.int64)

    def release_without_noise(self, query):
        return [int(c) for c in self._counts(query)]

    def sample(self, query, n):
        counts = self._counts(query)
        if self.broken:
            noise = self._rng.laplace(0.0, 1.0 / self.epsilon, size=(n, 6))  # BUG: float noise
        else:
            noise = _dlap(self._rng, 1, n * 6).reshape(n, 6)
        return counts + noise.astype(np.float64)


# 2 -------------------------------------------------------------------------------------------
class GaussianVector(_Base):
    """Integer vector query (L2 sensitivity 2) plus Gaussian noise of variance 8 per entry:
    exact discrete Gaussian (correct) or a Box-Muller normal from float uniforms (broken)."""

    mechanism = "gaussian_vector"
    description = "4 integer answers, L2 sensitivity 2, 0.25-zCDP; discrete Gaussian vs Box-Muller"
    input_kind = "vector"
    norm = "l2"
    sensitivity = 2
    integer_queries = True
    query_length = 4
    query_bounds = (-_BOUND, _BOUND)
    output_kind = "real"
    output_length = "query"
    claim = "zcdp:rho=0.25"
    _sigma2 = 8  # rho = sensitivity^2 / (2 sigma^2) = 4 / 16

    def sample(self, query, n):
        q = _int_query(query)
        d = q.size
        if self.broken:
            u1 = 1.0 - self._rng.random((n, d))
            u2 = self._rng.random((n, d))
            z = np.sqrt(-2.0 * np.log(u1)) * np.cos(2.0 * np.pi * u2)
            return q + math.sqrt(self._sigma2) * z  # BUG: float Box-Muller normal added in float
        else:
            return (q + _dgauss(self._rng, self._sigma2, n * d).reshape(n, d)).astype(np.float64)


# 3 -------------------------------------------------------------------------------------------
class RoundedVector(_Base):
    """Three real answers (L-infinity sensitivity 1) released as integers: each answer is
    rounded to an integer, then exact discrete Laplace noise of scale 2 is added per entry.
    Correct: round down (floor moves by at most 1 when the answer moves by 1).  Broken:
    np.rint, which rounds ties to even (0.5 -> 0 but 1.5 -> 2: a move of 2)."""

    mechanism = "rounded_vector"
    description = "3 real answers, Linf sensitivity 1, rounded then discrete Laplace(2) each"
    input_kind = "vector"
    norm = "linf"
    sensitivity = 1
    query_length = 3
    query_bounds = (-_BOUND, _BOUND)
    output_kind = "integer"
    output_length = "query"
    epsilon, delta = 1.5, 0.0

    def sample(self, query, n):
        q = np.clip(np.asarray(query, dtype=np.float64).ravel(), -_BOUND, _BOUND)
        if self.broken:
            r = np.rint(q)  # BUG: round half to even
        else:
            r = np.floor(q)
        d = q.size
        return r.astype(np.int64) + _dlap(self._rng, 2, n * d).reshape(n, d)


# 4 -------------------------------------------------------------------------------------------
class WindowedMode(_Base):
    """Most common of 8 categories by the exponential mechanism with exact integer weights:
    P(c) proportional to (5/4)^count(c) (monotone counts, epsilon = ln 1.25).  To keep the
    weights in int64, counts are raised to at least max - 20 (correct: this keeps sensitivity
    1 and monotonicity).  Broken: candidates more than 20 below the max get weight 0 (their
    float weight would be under 1.2 % of the max), as an underflowing float weight does."""

    mechanism = "windowed_mode"
    description = "exponential-mechanism mode of 8 categories, exact base-5/4 weights, window 20"
    input_kind = "dataset"
    domain = (0, 7)
    neighbours = "add_remove"
    output_kind = "integer"
    epsilon, delta = math.log(1.25), 0.0
    _window = 20

    def sample(self, query, n):
        cat = np.clip(_whole(query).ravel(), 0, 7)
        counts = np.bincount(cat, minlength=8).astype(np.int64)
        w = self._window
        e = counts - counts.max() + w  # position in the window [0, w]; below it when < 0
        if self.broken:
            keep = e >= 0  # BUG: drops the candidates below the window instead of flooring them
        else:
            keep = np.ones(8, dtype=bool)
        e = np.maximum(e, 0)
        weights = np.where(keep, np.int64(5) ** e * np.int64(4) ** (w - e), 0)
        cum = np.cumsum(weights)
        u = self._rng.integers(0, cum[-1], n)
        return np.searchsorted(cum, u, side="right").astype(np.int64)


# 5 -------------------------------------------------------------------------------------------
class SubsampledCount(_Base):
    """Count of ones among 8 records drawn without replacement from a dataset of n >= 32
    bits, plus exact discrete Laplace noise with P(z) ~ e^(-2|z|) (2-DP on the subsample).
    Amplification by subsampling without replacement under replace-one (Balle, Barthe and
    Gaboardi 2018): ln(1 + (8/n)(e^2 - 1)), largest at n = 32.  Broken: the 8 records are
    drawn with replacement, so the changed record can be counted up to 8 times."""

    mechanism = "subsampled_count"
    description = "count of ones in 8 records subsampled without replacement, n >= 32, replace"
    input_kind = "dataset"
    domain = (0, 1)
    neighbours = "replace"
    min_records = 32
    output_kind = "integer"
    epsilon, delta = math.log((math.e**2 + 3.0) / 4.0), 0.0
    _draws = 8

    def sample(self, query, n):
        x = _whole(query).ravel()
        m = x.size
        if m < self.min_records:
            raise ValueError("subsampled_count: needs at least 32 records")
        k = int(np.count_nonzero(x >= 1))
        count = np.zeros(n, dtype=np.int64)
        for t in range(self._draws):
            if self.broken:
                pick = self._rng.integers(0, m, n) < k  # BUG: sampling with replacement
            else:
                pick = self._rng.integers(0, m - t, n) < k - count
            count += pick
        return count + _dlap(self._rng, 1, n, s=2)


# 6 -------------------------------------------------------------------------------------------
class CountAndMean(_Base):
    """Noisy count (discrete Laplace, epsilon 1/2) and a mean of records in 0..10: the noisy
    sum (discrete Laplace of scale 20, epsilon 1/2) divided by the noisy count (correct:
    post-processing), or divided by the true number of records (broken: under add/remove the
    size is private, and the mean's lattice shows it).  No mean (NaN) when the noisy count
    is below 1."""

    mechanism = "count_and_mean"
    description = "record (noisy count, noisy sum / count), add/remove, epsilon 1/2 + 1/2"
    input_kind = "dataset"
    domain = (0, 10)
    neighbours = "add_remove"
    output_kind = "record"
    fields = {"count": "integer", "mean": "real"}
    nullable = True
    epsilon, delta = 1.0, 0.0

    def sample(self, query, n):
        x = np.clip(_whole(query).ravel(), 0, 10)
        size, total = x.size, int(x.sum())
        c = size + _dlap(self._rng, 2, n)
        s = total + _dlap(self._rng, 20, n)
        if self.broken:
            denominator = np.full(n, size)  # BUG: the true size
        else:
            denominator = c
        mean = np.where(c >= 1, s / np.maximum(denominator, 1), np.nan)
        out = np.empty(n, dtype=[("count", np.float64), ("mean", np.float64)])
        out["count"] = c
        out["mean"] = mean
        return out


# 7 -------------------------------------------------------------------------------------------
class NoisyMaxTies(_Base):
    """Report noisy max of 5 counts (monotone, L-infinity 1) with exact discrete Laplace noise
    of scale 1.  Integer noise makes ties common.  Correct: ties go to the lowest index.
    Broken: ties go to the candidate with the larger true count (then the lowest index)."""

    mechanism = "noisy_max_ties"
    description = "report noisy max of 5 counts, discrete Laplace(1), ties broken by index"
    input_kind = "vector"
    norm = "linf"
    sensitivity = 1
    monotone = True
    integer_queries = True
    query_length = 5
    query_bounds = (-_BOUND, _BOUND)
    output_kind = "index"
    epsilon, delta = 1.0, 0.0

    def sample(self, query, n):
        q = _int_query(query)
        m = q.size
        noisy = q + _dlap(self._rng, 1, n * m).reshape(n, m)
        top = noisy == noisy.max(axis=1, keepdims=True)
        if self.broken:
            idx = np.argmax(np.where(top, q, -2 * _BOUND), axis=1)  # BUG: ties by the true count
        else:
            idx = np.argmax(top, axis=1)
        return idx.astype(np.int64)


# 8 -------------------------------------------------------------------------------------------
class ClippedSums(_Base):
    """Per-category sums of amounts: records (category 0..3, amount 0..20), each amount
    clamped to [0, 10], exact discrete Laplace of scale 10 per category, outputs clamped at 0
    (post-processing).  Broken: the amounts are not clamped to 10 (only the noisy outputs
    are clamped), so one record moves a sum by up to 20."""

    mechanism = "clipped_sums"
    description = "sums of amounts by 4 categories, contribution clamp 10, discrete Laplace(10)"
    input_kind = "dataset"
    columns = 2
    domain = ((0, 3), (0, 20))
    neighbours = "add_remove"
    output_kind = "integer"
    output_length = 4
    epsilon, delta = 1.0, 0.0
    sensitivity = 10
    norm = "l1"
    _clamp = 10

    def _sums(self, query):
        rec = _whole(query).reshape(-1, 2)
        cat = np.clip(rec[:, 0], 0, 3)
        if self.broken:
            amount = np.maximum(rec[:, 1], 0)  # BUG: no upper clamp on the records
        else:
            amount = np.clip(rec[:, 1], 0, self._clamp)
        sums = np.zeros(4, dtype=np.int64)
        np.add.at(sums, cat, amount)
        return sums

    def release_without_noise(self, query):
        return [int(v) for v in self._sums(query)]

    def sample(self, query, n):
        sums = self._sums(query)
        noisy = sums + _dlap(self._rng, 10, n * 4).reshape(n, 4)
        return np.maximum(noisy, 0)


_CLASSES = (
    Histogram,
    GaussianVector,
    RoundedVector,
    WindowedMode,
    SubsampledCount,
    CountAndMean,
    NoisyMaxTies,
    ClippedSums,
)

ADAPTERS = [cls(broken=b) for cls in _CLASSES for b in (False, True)]

TRUE_DETAILS = {
    "ho22.histogram.correct": "exact discrete Laplace(1) per bin; one bin moves by 1: eps 1, attained",
    "ho22.histogram.broken": "float Laplace: bin-0 outputs in (-0.5, 0.5) off the 2^-53 grid at count 0 are impossible at count 1",
    "ho22.gaussian_vector.correct": "exact discrete Gaussian, variance 8: rho = |v|^2/16 <= 0.25, attained as alpha -> 1",
    "ho22.gaussian_vector.broken": "Box-Muller float normal: outputs in (-1, 1) off the 2^-52 grid at x=0 are impossible at (2,0,0,0)",
    "ho22.rounded_vector.correct": "floor moves by <= 1; (0,0,0) vs (1,1,1): 3 x 0.5 = 1.5, attained",
    "ho22.rounded_vector.broken": "rint ties to even: (0.5,0.5,0.5) vs (1.5,1.5,1.5) round to 0 vs 2: 3 x 2 x 0.5 = 3",
    "ho22.windowed_mode.correct": "exhaustive max 0.2227326 (claim ln 1.25 = 0.2231436): 7 categories at 21, one at 1 gaining a record",
    "ho22.windowed_mode.broken": "20 vs 21 records of one category: other categories 0.0107 each vs 0 (dropped below the window)",
    "ho22.subsampled_count.correct": "n=32, all zeros vs one 1, outputs >= 1: ln((e^2+3)/4) = 0.954459, attained",
    "ho22.subsampled_count.broken": "with replacement: same pair, outputs >= 8: 8 ln(1 + (e^2-1)/32) = 1.456292",
    "ho22.count_and_mean.correct": "count eps 1/2 + sum eps 1/2, mean post-processing; a record of 10 added: e on both tails",
    "ho22.count_and_mean.broken": "mean = noisy sum / true n: {10} gives whole means only, {10,10} half-integers w.p. 0.385",
    "ho22.noisy_max_ties.correct": "ties by index: eps 1 for monotone moves, approached as the other counts move away",
    "ho22.noisy_max_ties.broken": "ties by true count: (0,0,0,0,0) vs (-1,0,0,0,0), index 0: 0.3339 vs 0.0460, ln = 1.982172",
    "ho22.clipped_sums.correct": "amounts clamped to 10, DLap(10): a record (c, >=10) added: eps 1, attained",
    "ho22.clipped_sums.broken": "no record clamp: a record (c, 20) moves a sum by 20 under noise of scale 10: eps 2",
}

TRUE_VALUES = {
    "ho22.histogram.correct": 1.0,
    "ho22.histogram.broken": math.inf,
    "ho22.gaussian_vector.correct": 0.25,
    "ho22.gaussian_vector.broken": math.inf,
    "ho22.rounded_vector.correct": 1.5,
    "ho22.rounded_vector.broken": 3.0,
    "ho22.windowed_mode.correct": 0.222732555167,
    "ho22.windowed_mode.broken": math.inf,
    "ho22.subsampled_count.correct": 0.954458592793,
    "ho22.subsampled_count.broken": 1.45629215001,
    "ho22.count_and_mean.correct": 1.0,
    "ho22.count_and_mean.broken": math.inf,
    "ho22.noisy_max_ties.correct": 1.0,
    "ho22.noisy_max_ties.broken": 1.98217213305,
    "ho22.clipped_sums.correct": 1.0,
    "ho22.clipped_sums.broken": 2.0,
}
