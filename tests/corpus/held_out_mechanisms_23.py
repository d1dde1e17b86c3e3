# ruff: noqa: SIM108, B905
"""Held-out mechanisms, set 23: production DP library algorithms, each with a realistic bug.

What this is
------------
Nine mechanisms, each as one class with a CORRECT adapter (private exactly as claimed under
its declared neighbouring relation, and tight or near tight) and a BROKEN twin that differs
by one bug of the kind found in DP libraries' issue trackers and audits.  The broken branch
is marked `# BUG` beside the line the correct adapter uses; `broken=True` takes it.
`ADAPTERS` holds the 18 adapters; `TRUE_VALUES` gives each one's true value of its claim's
parameter (for (eps, delta) claims, eps at the claimed delta; math.inf where none holds) and
`TRUE_DETAILS` a one-line reason.  Every correct twin is exact: integer noise (discrete
Laplace as the difference of two geometrics; a discrete Gaussian and an exponential
mechanism sampled by Canonne-Kamath-Steinke rejection with exact Bernoulli(exp(-num/den))
draws from uniform integers), integer or index outputs, no float output anywhere.

How it was written
------------------
Blind.  Of /work/main the author read only README.md, docs/writing-an-adapter.md,
docs/claims.md and docs/vector-outputs.md (and listed bench/ to pick an unused file name).
No source under auditor/, attacks/, reference_mechanisms/, tests/, bench/ (no other held-out
set), no other doc and no git history was opened; dp-audit was neither imported nor run.
The module imports numpy, math and fractions only.  True values were computed by separate
scripts (below) that do not import this module, and the adapters' outputs were compared
with independently computed pmfs.

Theme
-----
Algorithms as production DP libraries implement them (Google's differential-privacy
building blocks and PipelineDP, OpenDP, diffprivlib, Tumult, SmartNoise), each broken by a
bug of the kind their issue trackers and audits report: a midpoint normalisation forgotten,
a selection threshold off by one, a sensitivity computed for the wrong neighbouring relation
(twice), clamping bounds looked up for the wrong column, a bounded domain enforced by
resampling, the classical Gaussian calibration used far outside eps < 1, an L2 sensitivity
used for Laplace noise, and a "monotonic" shortcut on scores that are not monotone.

Mechanisms
----------
| # | name | input; relation | output | claim | bug | true value, broken |
|---|---|---|---|---|---|---|
| 1 | google_bounded_mean | dataset [0,10] ints; add/remove | record (count, sum) ints | eps 1 | sum of x, not of x - midpoint | eps 1.5 |
| 2 | threshold_partition_selection | dataset keys 0..7; add/remove | 8 ints, nullable | (2, 3e-4) | threshold tau one too low | eps inf (delta 2.18e-3) |
| 3 | opendp_count_by_categories_dgauss | vector of 6 counts; l2 <= sqrt 2, ints | 6 ints | zCDP rho 0.5 | add/remove sensitivity 1 used under replace | rho 1.0 |
| 4 | exponential_median | dataset [0,10] ints; replace | integer | eps 1 | score sensitivity 1 (add/remove) under replace | eps 2 (sup) |
| 5 | two_column_sums | dataset 2 cols [0,12]; replace | 2 ints | eps 1 | clamping bounds read in sorted column order | eps 2.125 |
| 6 | bounded_geometric | scalar int in [0,10]; |x-x'| <= 1 | integer | eps 0.5 | range kept by resampling, not clamping | eps 0.71266 |
| 7 | gaussian_large_epsilon | scalar int; |x-x'| <= 20 | integer | (10, 0.05) | classical sigma at eps = 10 | eps 13.43 (delta(10) 0.212) |
| 8 | users_per_partition | dataset (user, partition 0..5); user-level add/remove | 6 ints | eps 1 | Laplace scale from sqrt(L0), the L2 sensitivity | eps 2 |
| 9 | exponential_selection | vector of 5 ints; linf <= 1 | index | eps 1 | exponent eps u / Delta (monotone shortcut) | eps 2 (sup) |

The correct twins' true values: 1, 1.99966 (eps at delta 3e-4), rho 0.5, 1 (sup), 1, 0.5,
9.99953 (eps at delta 0.05), 1, 1 (sup).

1. google_bounded_mean.  Input: a dataset of integers in [0, 10], add/remove one record.
   Output: a record (count, sum): the count plus discrete Laplace noise of rate eps/2, and
   the sum of (x - 5) plus discrete Laplace of rate (eps/2)/5 (|x - 5| <= 5), as Google's
   BoundedMean computes before returning 5 + sum/count (post-processing).  Claim: pure
   eps = 1.  Bug: the sum is of the clamped x themselves (normalisation forgotten) while the
   noise is still calibrated to the half-range 5.  Broken true eps 1.5: add a record at 10
   to any dataset; the sum moves by 10 at rate 0.1 (1.0), the count by 1 at rate 0.5, and
   the product of the two discrete Laplace ratios is attained on outputs of the right sign.
   Correct: 1.0, attained by adding a record at 0 or 10 (5 x 0.1 + 0.5).

2. threshold_partition_selection.  Input: a dataset of keys 0..7 (one record per user),
   add/remove.  Output: 8 integers, NaN for a key not released: each key present in the
   data gets its count plus discrete Laplace noise of rate eps = 2, and is released with
   that noisy count when it is >= tau; absent keys are never released.  tau = 1 + k with k
   the smallest integer with P(Z >= k) = a^k/(1+a) <= delta (a = e^-2): tau = 5.  Claim:
   (2, 3e-4).  Bug: tau = k = 4 (the "1 +" for the new key's own count dropped).  Broken
   true value: a key held by one record is released w.p. a^3/(1+a) = 2.18e-3 = 7.4 x delta
   and never on the neighbour without it, so delta(eps') >= 2.18e-3 for every eps': eps is
   infinite at delta 3e-4.  Pair: any dataset, plus one record of a key it lacks; event:
   that key released.  Correct: 2.95e-4 for that event; counts of existing keys are 2-DP;
   eps at delta 3e-4 is 1.99966 (exact hockey-stick over counts 0..40).  A leak in delta
   only (docs/vector-outputs.md, Limits): one of the harder ones.

3. opendp_count_by_categories_dgauss.  Input: a vector of 6 integer counts; neighbours are
   a histogram under change-one (one count -1, another +1), declared as l2 <= sqrt(2) with
   integer queries.  Output: the 6 counts plus independent discrete Gaussian noise with
   sigma^2 = Delta_2^2/(2 rho) = 2.  Claim: rho-zCDP, rho = 0.5.  Bug: Delta_2^2 = 1, the
   add/remove histogram's sensitivity, so sigma^2 = 1.  Broken true rho = 1.0: the pair
   (x, x + e_i - e_j) gives D_a = 2 a/(2 sigma^2) exactly at every integer order a (the
   discrete Gaussian's bound is attained when (1 - a) Delta is an integer), so
   sup D_a/a = 1.  Correct: 0.5, attained the same way.

4. exponential_median.  Input: a dataset of integers in [0, 10], replace one record.
   Output: a candidate c in 0..10 with probability proportional to exp(eps u(c)/(2 Delta)),
   u(c) = -|#{x < c} - #{x > c}| (OpenDP/diffprivlib-style quantile score), sampled
   exactly (uniform proposal, exact Bernoulli acceptance).  Under replace one record moves
   u by up to Delta = 2.  Claim: eps = 1.  Bug: Delta = 1, the add/remove sensitivity.
   Broken true value: eps 2, a supremum approached, not attained: {0, 5 x k, 9} ->
   {5 x k, 9, 10} at output 6 gives 0.84, 1.22, 1.85, 1.999 for k = 2, 5, 10, 20 (output
   probability 0.04 at k = 10); small datasets: {0,0,8,9,9} -> {0,8,9,9,10} at output 9,
   1.72; 20 records at 5 with one replaced by 10: 1.50.  Correct: sup 1 (the standard
   bound 2 x eps/(2 Delta) x 2), approached by the same family (0.95 at k = 20); at most
   0.847 over all datasets of up to 5 records.

5. two_column_sums.  Input: records (quantity, price), each column an integer in [0, 12],
   replace one record.  The analyst's metadata bounds are quantity [0, 3], price [0, 12].
   Output: 2 integers, SUM(clamp(quantity)) and SUM(clamp(price)), each plus discrete
   Laplace noise of rate (eps/2)/width (widths 3 and 12), SmartNoise-SQL style.  Claim:
   eps = 1.  Bug: clamping bounds are read in sorted column-name order (price, quantity)
   while the columns are in table order, so quantity is clamped to [0, 12] and price to
   [0, 3]; the noise still uses each column's own width.  Broken true eps 2.125: replace
   (0, 0) by (12, >= 3): quantity sum moves 12 at rate 1/6 (2.0), price 3 at rate 1/24
   (0.125), attained.  Correct: 1.0, (0, 0) -> (>= 3, 12), attained.

6. bounded_geometric.  Input: an integer answer in [0, 10] (query_bounds), sensitivity 1.
   Output: an integer in [0, 10]: the answer plus two-sided geometric noise of rate 0.5,
   clamped to the range (diffprivlib's GeometricTruncated).  Claim: eps = 0.5.  Bug: the
   range is kept by resampling out-of-range outputs (a bounded-domain mechanism) without
   recalibrating the noise, i.e. conditioning on [0, 10].  Broken true eps
   0.5 + ln(Z(1)/Z(0)) = 0.71266 with Z(x) = sum_{o=0..10} a^|o-x|: answers 0 vs 1, output
   0 (probability 0.395 vs 0.194).  Correct: 0.5, attained at inner outputs.

7. gaussian_large_epsilon (hard).  Input: an integer sum with sensitivity 20.  Output: the
   sum plus discrete Gaussian noise.  Claim: (10, 0.05)-DP.  Correct twin: sigma^2 = 37.14,
   the smallest multiple of 1/100 whose exact hockey-stick divergence at e^10 is <= 0.05
   for every shift 1..20 (0.049985 at shift 20); eps at delta 0.05: 9.99953.  Bug: the
   classical calibration sigma = Delta sqrt(2 ln(1.25/delta))/eps = 5.0745, valid only for
   eps < 1, used at eps = 10.  Broken: delta(10) = 0.212 (4.2 x the claim), eps 13.430 at
   delta 0.05 (mu = 3.94), pair x vs x + 20, event output >= x + 23.  Hard: the evidence
   sits where one side's probability is ~e^-10 times the other's; by a rough estimate (the
   continuous Gaussian) a threshold event at 10^6 outputs per side certifies only about
   eps 9.8, even with exact counts.

8. users_per_partition.  Input: records (user id in [0, 10^6], partition in 0..5), user
   level: one user and all their records added or removed (user_column = 0).  Each user
   keeps its first 4 distinct partitions (L0 = 4) and counts once in each (Linf = 1).
   Output: 6 integers, distinct users per partition plus discrete Laplace noise of rate
   eps/(L0 Linf).  Claim: eps = 1.  Bug: the scale uses sqrt(L0) Linf = 2, the L2
   sensitivity Google's library uses for Gaussian noise, with Laplace noise.  Broken true
   eps 2: a new user in 4 or more partitions adds 1 to 4 counts at rate 1/2, attained.
   Correct: 1.0 (4 x 1/4), attained by the same user.

9. exponential_selection.  Input: a vector of 5 integer scores, neighbours move every
   score by at most 1 in any direction (linf, not monotone).  Output: an index, with
   probability proportional to exp(eps u_i/(2 Delta)), sampled exactly.  Claim: eps = 1.
   Bug: the "monotonic" calibration exp(eps u_i / Delta) (diffprivlib's Exponential with
   monotonic=True), valid only when all scores move the same way.  Broken true value: eps 2,
   a supremum: u_0 lowered by 1 and the other four raised, output 0: 1.810 at base 0,
   1.971 with u_0 two below the rest, -> 2 as u_0 falls.  Correct: sup 1 (0.865 at base 0,
   0.945 with u_0 two below).

Check scripts (in /tmp/ho23/, not in the repository)
-----------------------------------------------------
- calib_gauss.py: exact hockey-stick divergences of the discrete Gaussian (mpmath, 40
  digits, every shift 1..20); calibrates mechanism 7's sigma^2 and evaluates the classical
  sigma.
- check_true_values.py: the true value of every twin without importing this module:
  exhaustive enumeration over small datasets (1: up to 3 records plus every added value;
  4: every multiset of up to 5 records and every replacement, plus a family of growing
  datasets; 5: every pair of records; 8: every new user of up to 6 records inserted at 3
  places), exact pmfs for 2 and 6 (hockey-stick and eps at delta by bisection), Renyi
  divergences of the discrete Gaussian over orders 1.001..64 for 3, enumeration of score
  vectors in {-2..2}^5 with every linf move for 9, and 7 via calib_gauss.
- smoke.py: imports this module; names, dicts, shapes, dtypes and seed replay of all 18
  adapters; 101 chi-square (and z) tests of the adapters' outputs against independently
  computed pmfs (marginals, a joint independence check for 1, the one-record key's release
  rate for 2, the exact Bernoulli sampler directly): smallest p-value 0.03; speed 0.7-28
  million outputs/s.
- explore46.py, explore4.py, explore_gauss*.py: parameter exploration.

Run: dp-audit run --adapter tests/corpus/held_out_mechanisms_23.py:ADAPTERS --out held-out-23
(not run by the author).
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

# ---------------------------------------------------------------------------------------------
# Exact samplers shared by the mechanisms.  All randomness comes from the generator passed in.
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


def _exp_mech(rng, gap, den, n):
    """Index i with probability proportional to exp(-gap[i] / den) (integer gaps >= 0), exactly:
    a uniform proposal accepted with the exact Bernoulli(exp(-gap/den))."""
    gap = np.asarray(gap, dtype=np.int64)
    k = gap.size
    out = np.empty(n, dtype=np.int64)
    todo = np.arange(n)
    while todo.size:
        i = rng.integers(0, k, size=todo.size)
        ok = _bern_exp(rng, gap[i], np.full(todo.size, den, dtype=np.int64))
        out[todo[ok]] = i[ok]
        todo = todo[~ok]
    return out


def _ints(values, lo, hi):
    """Records as whole numbers clamped to [lo, hi] (the domain's bounds are ints)."""
    return np.clip(np.rint(np.asarray(values, dtype=float)), lo, hi).astype(np.int64)


class _Base:
    vectorised = True
    library = "held-out set 23"

    def __init__(self, broken=False):
        self.broken = broken
        self.name = f"ho23.{self.mechanism}.{'broken' if broken else 'correct'}"
        self._rng = np.random.default_rng()

    def seed(self, entropy):
        self._rng = np.random.default_rng(entropy)


# ---------------------------------------------------------------------------------------------
# 1. Google-style BoundedMean: noisy count and noisy *normalised* sum (midpoint trick).
# ---------------------------------------------------------------------------------------------


class GoogleBoundedMean(_Base):
    """Releases (noisy count, noisy sum of (x - midpoint)) of values clamped to [0, 10], each
    half of the budget, as Google's BoundedMean computes before dividing; the mean
    midpoint + sum / count is post-processing of the pair."""

    mechanism = "google_bounded_mean"
    description = "noisy count + noisy sum of (clamped x - midpoint), eps/2 each"
    epsilon, delta = 1.0, 0.0
    input_kind = "dataset"
    domain = (0, 10)
    neighbours = "add_remove"
    output_kind = "record"
    fields = {"count": "integer", "sum": "integer"}

    _lower, _upper = 0, 10

    def sample(self, query, n):
        x = _ints(np.asarray(query).reshape(-1), self._lower, self._upper)
        midpoint = (self._lower + self._upper) // 2  # 5: the range is even, exact
        half_range = (self._upper - self._lower) // 2  # |x - midpoint| <= 5
        if self.broken:
            total = int(x.sum())  # BUG: normalisation forgotten, |x| <= 10 moves the sum
        else:
            total = int((x - midpoint).sum())
        e = self.epsilon / 2
        out = np.empty(n, dtype=[("count", np.int64), ("sum", np.int64)])
        out["count"] = x.size + _dlap(self._rng, e, n)
        out["sum"] = total + _dlap(self._rng, e / half_range, n)
        return out


# ---------------------------------------------------------------------------------------------
# 2. Partition (key) selection by a noisy threshold, releasing the kept keys' noisy counts.
# ---------------------------------------------------------------------------------------------


class ThresholdPartitionSelection(_Base):
    """Counts per key (keys 0..7, one record per user) with discrete Laplace noise of rate eps;
    a key present in the data is released with its noisy count when that count reaches a
    threshold tau, chosen so that a key held by a single record passes with probability at
    most delta.  Keys absent from the data are never released (NaN)."""

    mechanism = "threshold_partition_selection"
    description = "keys with noisy count >= tau, released with the noisy count"
    epsilon, delta = 2.0, 3e-4
    input_kind = "dataset"
    domain = (0, 7)
    neighbours = "add_remove"
    output_kind = "integer"
    output_length = 8
    nullable = True

    _keys = 8

    def __init__(self, broken=False):
        super().__init__(broken)
        a = math.exp(-self.epsilon)
        # P(Z >= k) = a^k / (1 + a) for the two-sided geometric Z; smallest k with it <= delta
        k = math.ceil(math.log(self.delta * (1 + a)) / math.log(a))
        if self.broken:
            self._tau = k  # BUG: off by one, forgets that a new key's true count is already 1
        else:
            self._tau = 1 + k

    def sample(self, query, n):
        x = _ints(np.asarray(query).reshape(-1), 0, self._keys - 1)
        counts = np.bincount(x, minlength=self._keys)
        noisy = counts + _dlap(self._rng, self.epsilon, (n, self._keys))
        keep = (noisy >= self._tau) & (counts > 0)
        return np.where(keep, noisy.astype(float), np.nan)


# ---------------------------------------------------------------------------------------------
# 3. OpenDP-style count by categories with discrete Gaussian noise, rho-zCDP.
# ---------------------------------------------------------------------------------------------


class DiscreteGaussianCounts(_Base):
    """Counts of 6 categories (the query vector) under replace-one neighbours: one count down
    and another up, L2 sensitivity sqrt(2).  Discrete Gaussian noise with
    sigma^2 = Delta_2^2 / (2 rho) in every entry: rho-zCDP."""

    mechanism = "opendp_count_by_categories_dgauss"
    description = "histogram under change-one, discrete Gaussian, rho-zCDP"
    claim = "zcdp:rho=0.5"
    _rho = Fraction(1, 2)
    input_kind = "vector"
    norm = "l2"
    sensitivity = math.sqrt(2)
    integer_queries = True
    query_length = 6
    output_kind = "integer"
    output_length = "query"

    def __init__(self, broken=False):
        super().__init__(broken)
        if self.broken:
            l2_squared = 1  # BUG: the add/remove (symmetric distance) sensitivity of a histogram
        else:
            l2_squared = 2  # change-one: one count -1, another +1
        self._sigma2 = Fraction(l2_squared) / (2 * self._rho)

    def sample(self, query, n):
        q = np.rint(np.asarray(query, dtype=float)).astype(np.int64).reshape(-1)
        return q + _dgauss(self._rng, self._sigma2, (n, q.size))


# ---------------------------------------------------------------------------------------------
# 4. Median by the exponential mechanism over the candidates 0..10.
# ---------------------------------------------------------------------------------------------


class ExponentialMedian(_Base):
    """Median of values in [0, 10] by the exponential mechanism over the 11 candidates, score
    u(c) = -|#{x < c} - #{x > c}|, under replace-one neighbours (score sensitivity 2),
    P(c) proportional to exp(eps u(c) / (2 Delta)), sampled exactly."""

    mechanism = "exponential_median"
    description = "exponential-mechanism median, replace-one"
    epsilon, delta = 1.0, 0.0
    input_kind = "dataset"
    domain = (0, 10)
    neighbours = "replace"
    output_kind = "integer"

    _candidates = np.arange(11)

    def sample(self, query, n):
        x = np.sort(_ints(np.asarray(query).reshape(-1), 0, 10))
        below = np.searchsorted(x, self._candidates, side="left")
        above = x.size - np.searchsorted(x, self._candidates, side="right")
        score = -np.abs(below - above)
        if self.broken:
            score_sensitivity = 1  # BUG: the add/remove sensitivity, used under replace-one
        else:
            score_sensitivity = 2
        eps = Fraction(self.epsilon).limit_denominator(1000)
        # exp(eps * (score - max) / (2 Delta)) = exp(-gap / den), integer gap and den
        gap = (score.max() - score) * eps.numerator
        den = eps.denominator * 2 * score_sensitivity
        return self._candidates[_exp_mech(self._rng, gap, den, n)]


# ---------------------------------------------------------------------------------------------
# 5. Two clamped column sums whose clamping bounds are looked up by the wrong column.
# ---------------------------------------------------------------------------------------------


class TwoColumnSums(_Base):
    """SUM(quantity), SUM(price) over records (quantity, price), each in [0, 12] as data; the
    metadata bounds the analyst declared are quantity in [0, 3] and price in [0, 12].  Each
    column is clamped to its bounds, summed, and gets discrete Laplace noise calibrated to its
    bounds' width (replace-one), eps/2 per column."""

    mechanism = "two_column_sums"
    description = "SQL-style SUM of two columns with per-column metadata bounds"
    epsilon, delta = 1.0, 0.0
    input_kind = "dataset"
    columns = 2
    domain = ((0, 12), (0, 12))
    neighbours = "replace"
    output_kind = "integer"
    output_length = 2

    _column_names = ("quantity", "price")
    _bounds = {"quantity": (0, 3), "price": (0, 12)}

    def sample(self, query, n):
        rec = _ints(np.asarray(query).reshape(-1, 2), 0, 12)
        if self.broken:
            order = sorted(self._column_names)  # BUG: metadata in sorted, not table order
        else:
            order = self._column_names
        e = self.epsilon / 2
        out = np.empty((n, 2), dtype=np.int64)
        for j, col in enumerate(self._column_names):
            lo, hi = self._bounds[order[j]]  # clamping bounds of column j
            total = int(np.clip(rec[:, j], lo, hi).sum())
            c_lo, c_hi = self._bounds[col]  # noise calibrated to the column's own metadata
            out[:, j] = total + _dlap(self._rng, e / (c_hi - c_lo), n)
        return out


# ---------------------------------------------------------------------------------------------
# 6. Geometric mechanism on a bounded integer range.
# ---------------------------------------------------------------------------------------------


class BoundedGeometric(_Base):
    """An integer answer in [0, 10] plus two-sided geometric noise of rate eps, kept in the
    range by clamping (diffprivlib's GeometricTruncated)."""

    mechanism = "bounded_geometric"
    description = "geometric mechanism truncated to [0, 10]"
    epsilon, delta = 0.5, 0.0
    input_kind = "scalar"
    sensitivity = 1
    integer_queries = True
    query_bounds = (0, 10)
    output_kind = "integer"

    _lower, _upper = 0, 10

    def sample(self, query, n):
        x = int(np.clip(np.rint(float(query)), self._lower, self._upper))
        out = x + _dlap(self._rng, self.epsilon, n)
        if self.broken:
            out = self._resample(x, out)  # BUG: redrawn into range, noise not recalibrated
        else:
            out = np.clip(out, self._lower, self._upper)
        return out

    def _resample(self, x, out):
        """A bounded domain by rejection: out-of-range outputs are drawn again."""
        bad = np.nonzero((out < self._lower) | (out > self._upper))[0]
        while bad.size:
            out[bad] = x + _dlap(self._rng, self.epsilon, bad.size)
            bad = bad[(out[bad] < self._lower) | (out[bad] > self._upper)]
        return out


# ---------------------------------------------------------------------------------------------
# 7. (eps, delta) Gaussian on an integer sum, at a large epsilon.
# ---------------------------------------------------------------------------------------------


class LargeEpsilonGaussian(_Base):
    """An integer sum (sensitivity 20) plus discrete Gaussian noise for (10, 0.05)-DP.  The
    correct twin's sigma^2 = 1857/50 (sigma = 6.094) is the smallest multiple of 1/100 whose
    exact hockey-stick divergence at e^10 is at most 0.05 for every shift 1..20 (0.049985 at
    shift 20)."""

    mechanism = "gaussian_large_epsilon"
    description = "discrete Gaussian sum, (10, 0.05)-DP"
    epsilon, delta = 10.0, 0.05
    input_kind = "scalar"
    sensitivity = 20
    integer_queries = True
    output_kind = "integer"

    def __init__(self, broken=False):
        super().__init__(broken)
        if self.broken:
            self._sigma2 = self._classical_sigma2()  # BUG: classical formula, valid for eps < 1
        else:
            self._sigma2 = Fraction(1857, 50)

    def _classical_sigma2(self):
        """sigma = Delta sqrt(2 ln(1.25 / delta)) / eps (Dwork and Roth, Theorem A.1)."""
        sigma = self.sensitivity * math.sqrt(2 * math.log(1.25 / self.delta)) / self.epsilon
        return Fraction(sigma * sigma).limit_denominator(10**4)

    def sample(self, query, n):
        x = int(np.rint(float(query)))
        return x + _dgauss(self._rng, self._sigma2, (n,))


# ---------------------------------------------------------------------------------------------
# 8. Users per partition with a bound on the partitions a user contributes to.
# ---------------------------------------------------------------------------------------------


class UsersPerPartition(_Base):
    """Records (user id, partition in 0..5).  Each user keeps at most 4 distinct partitions
    (its first 4 in record order) and counts once in each: the number of distinct users per
    partition, L1 sensitivity L0 * Linf = 4 per user, discrete Laplace noise of rate eps / 4."""

    mechanism = "users_per_partition"
    description = "distinct users per partition, max_partitions_contributed = 4"
    epsilon, delta = 1.0, 0.0
    input_kind = "dataset"
    columns = 2
    user_column = 0
    domain = ((0, 10**6), (0, 5))
    neighbours = "add_remove"
    output_kind = "integer"
    output_length = 6

    _partitions = 6
    _max_partitions = 4  # L0
    _max_per_partition = 1  # Linf

    def _bounded_counts(self, rec):
        users, parts = rec[:, 0], rec[:, 1]
        key = users * self._partitions + parts
        uniq, first = np.unique(key, return_index=True)  # one contribution per (user, partition)
        u = uniq // self._partitions
        p = uniq % self._partitions
        order = np.lexsort((first, u))  # each user's partitions in order of first appearance
        u, p = u[order], p[order]
        start = np.r_[0, np.nonzero(np.diff(u))[0] + 1]
        rank = np.arange(u.size) - np.repeat(start, np.diff(np.r_[start, u.size]))
        return np.bincount(p[rank < self._max_partitions], minlength=self._partitions)

    def sample(self, query, n):
        rec = np.rint(np.asarray(query, dtype=float).reshape(-1, 2)).astype(np.int64)
        rec[:, 1] = np.clip(rec[:, 1], 0, self._partitions - 1)
        counts = self._bounded_counts(rec)
        if self.broken:
            l1 = math.sqrt(self._max_partitions) * self._max_per_partition  # BUG: L2 norm
        else:
            l1 = self._max_partitions * self._max_per_partition
        return counts + _dlap(self._rng, self.epsilon / l1, (n, self._partitions))


# ---------------------------------------------------------------------------------------------
# 9. Exponential mechanism over a score vector, with a "monotonic" flag.
# ---------------------------------------------------------------------------------------------


class ExponentialSelection(_Base):
    """Index of one of 5 integer scores (neighbours: every score moves by at most 1, in any
    direction), P(i) proportional to exp(eps u_i / (2 Delta)), sampled exactly.  The halved
    exponent eps u_i / Delta is valid only when neighbouring scores all move the same way."""

    mechanism = "exponential_selection"
    description = "exponential mechanism, scores not monotone"
    epsilon, delta = 1.0, 0.0
    input_kind = "vector"
    norm = "linf"
    sensitivity = 1
    integer_queries = True
    query_length = 5
    output_kind = "index"

    def sample(self, query, n):
        u = np.rint(np.asarray(query, dtype=float)).astype(np.int64).reshape(-1)
        if self.broken:
            monotonic = True  # BUG: library default for counting queries, scores here are not
        else:
            monotonic = False
        eps = Fraction(self.epsilon).limit_denominator(1000)
        den = eps.denominator * self.sensitivity * (1 if monotonic else 2)
        return _exp_mech(self._rng, (u.max() - u) * eps.numerator, den, n)


_CLASSES = (
    GoogleBoundedMean,
    ThresholdPartitionSelection,
    DiscreteGaussianCounts,
    ExponentialMedian,
    TwoColumnSums,
    BoundedGeometric,
    LargeEpsilonGaussian,
    UsersPerPartition,
    ExponentialSelection,
)

ADAPTERS = [cls(broken=b) for cls in _CLASSES for b in (False, True)]

TRUE_DETAILS = {
    "ho23.google_bounded_mean.correct": "eps 1: adding a record at 0 or 10 moves count by 1 "
    "(rate 0.5) and the normalised sum by 5 (rate 0.1): 0.5 + 0.5, attained.",
    "ho23.google_bounded_mean.broken": "eps 1.5: adding a record at 10 moves the raw sum by 10 at "
    "rate 0.1 (1.0) and the count by 1 (0.5), attained on every output pair of the right signs.",
    "ho23.threshold_partition_selection.correct": "eps 1.99966 at delta 3e-4: a one-record key is "
    "released w.p. e^-8/(1+e^-2) = 2.95e-4 <= 3e-4; counts are 2-DP; exact hockey-stick.",
    "ho23.threshold_partition_selection.broken": "eps inf at delta 3e-4: tau 4 instead of 5, a "
    "one-record key is released w.p. e^-6/(1+e^-2) = 2.18e-3 (7.4x delta), never without it.",
    "ho23.opendp_count_by_categories_dgauss.correct": "rho 0.5: sigma^2 = 2, two unit moves "
    "(one count -1, another +1) give D_a = 2 a / (2 sigma^2) exactly at integer orders.",
    "ho23.opendp_count_by_categories_dgauss.broken": "rho 1.0: sigma^2 = 1 from the add/remove "
    "sensitivity 1; the replace pair (+1, -1) gives sup D_a / a = 2 / 2 = 1.",
    "ho23.exponential_median.correct": "eps 1 (supremum, not attained): bound 2 * eps/4 * 2; "
    "{0, 5 x k, 9} -> {5 x k, 9, 10}, output 6 approaches it as k grows (0.95 at k = 20).",
    "ho23.exponential_median.broken": "eps 2 (supremum): score sensitivity 1 under replace; "
    "{0,0,8,9,9} -> {0,8,9,9,10} output 9: 1.72; {0, 5 x 10, 9} -> {5 x 10, 9, 10}: 1.85.",
    "ho23.two_column_sums.correct": "eps 1: replacing (0, 0) by (3+, 12) moves the sums by 3 and "
    "12 at rates 1/6 and 1/24: 0.5 + 0.5, attained.",
    "ho23.two_column_sums.broken": "eps 2.125: quantity clamped to [0, 12] but noised for width 3: "
    "(0, 0) -> (12, 3+) moves it by 12 at rate 1/6 (2.0) plus price by 3 at 1/24 (0.125).",
    "ho23.bounded_geometric.correct": "eps 0.5: clamping is post-processing of the two-sided "
    "geometric; attained at inner outputs.",
    "ho23.bounded_geometric.broken": "eps 0.71266: rejection renormalises by Z(x); x = 0 vs 1 at "
    "output 0: 0.5 + ln(Z(1)/Z(0)).",
    "ho23.gaussian_large_epsilon.correct": "eps 9.99953 at delta 0.05: sigma^2 = 37.14 gives "
    "hockey-stick 0.049985 at e^10 (shift 20), exact sums of the discrete Gaussian.",
    "ho23.gaussian_large_epsilon.broken": "eps 13.430 at delta 0.05: classical sigma = 5.0745 "
    "(mu 3.94) has delta(10) = 0.212 (4.2x the claim) at shift 20.",
    "ho23.users_per_partition.correct": "eps 1: a new user in 4 (or more) partitions adds 1 to "
    "4 counts, each at rate 1/4, attained.",
    "ho23.users_per_partition.broken": "eps 2: same user, noise rate 1/2 (scale sqrt(4) = 2 "
    "instead of 4): 4 x 0.5.",
    "ho23.exponential_selection.correct": "eps 1 (supremum): u_0 far below the others, u_0 - 1 "
    "and the rest + 1: 1 + ln(Z/Z') -> 1; at base 0 with one down, rest up: 0.865.",
    "ho23.exponential_selection.broken": "eps 2 (supremum): exponent eps u / Delta; base 0, "
    "(-1, 1, 1, 1, 1), output 0: 1.810; 1.971 with u_0 = -2.",
}

TRUE_VALUES = {
    "ho23.google_bounded_mean.correct": 1.0,
    "ho23.google_bounded_mean.broken": 1.5,
    "ho23.threshold_partition_selection.correct": 1.99966,
    "ho23.threshold_partition_selection.broken": math.inf,
    "ho23.opendp_count_by_categories_dgauss.correct": 0.5,
    "ho23.opendp_count_by_categories_dgauss.broken": 1.0,
    "ho23.exponential_median.correct": 1.0,
    "ho23.exponential_median.broken": 2.0,
    "ho23.two_column_sums.correct": 1.0,
    "ho23.two_column_sums.broken": 2.125,
    "ho23.bounded_geometric.correct": 0.5,
    "ho23.bounded_geometric.broken": 0.71266,
    "ho23.gaussian_large_epsilon.correct": 9.99953,
    "ho23.gaussian_large_epsilon.broken": 13.430,
    "ho23.users_per_partition.correct": 1.0,
    "ho23.users_per_partition.broken": 2.0,
    "ho23.exponential_selection.correct": 1.0,
    "ho23.exponential_selection.broken": 2.0,
}
