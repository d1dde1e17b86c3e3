# ruff: noqa: SIM108, B905
"""Held-out mechanisms, set 24: leaks in delta alone, moves shorter than the sensitivity.

What this is
------------
Twelve mechanisms, each as one class with a CORRECT adapter (private as claimed under its
declared neighbouring relation, and tight: its true eps at the claimed delta, or its rho, is
the claim or within 0.2% of it) and a BROKEN twin that differs by one bug, marked `# BUG`
beside the line the correct twin uses; `broken=True` takes it.  `ADAPTERS` holds the 24
adapters, named `ho24.<mechanism>.correct` / `ho24.<mechanism>.broken`, each with a `broken`
attribute; `TRUE_VALUES` gives each one's true value of its claim's parameter (pure claims:
eps; (eps, delta) claims: eps at the claimed delta, math.inf where no eps holds; zCDP: rho)
and `TRUE_DETAILS` a one-line reason with the delta at the claimed eps.  All noise is integer
(discrete Laplace as a difference of geometrics, discrete Gaussian by Canonne-Kamath-Steinke
rejection with exact Bernoulli(exp(-num/den)) draws); real outputs are whole multiples of a
grid (1/2, 1 or 4), so no output has low bits to read.

How it was written
------------------
Blind.  Of the repository the author read only README.md, docs/writing-an-adapter.md,
docs/vector-outputs.md, docs/claims.md, tests/corpus/held_out_mechanisms_23.py (the file format; its
exact samplers are copied here) and, in tests/statistical/test_held_out_mechanisms.py, how a
set is loaded and labelled.  Nothing under auditor/, attacks/ or the certify/search code was
opened and dp-audit was neither imported nor run.  This module imports numpy, math and
fractions only.  True values come from tests/corpus/check_held_out_24.py, which recomputes each
algorithm from its description (it imports this module only for the sampling check).

Themes
------
(a) leaks in delta alone: an output, a key or a category that one neighbour shows with
    probability a small multiple of delta and the other never (1, 2, 3, 4, 11; and 12, where
    the excess is delta's but the output exists on both sides);
(b) moves shorter than the sensitivity, or at positions other than the base: snapping to a
    grid that does not divide Delta (5), per-coordinate snapping under L1 and L2 (7, 8), bins
    and buckets whose inner edges are counted twice (6 for dataset records, 9 for local
    values), rounding half to even (10);
(c) tight correct twins throughout, several of which look suspicious: the whole delta spent
    both on the noise and on the threshold (4), thresholds computed from delta exactly at the
    limit (1, 2, 3, 11), a bit reported truthfully with probability delta (12), randomized
    rounding (10), a snapped vector calibrated to Delta/g + m - 1 steps (7).

Input kinds: scalar (5, 10), vector L1 / L2 / Linf (7, 8, 3), dataset add/remove (1, 2, 4,
6), dataset replace (11), local (9), binary (12); outputs bits, nullable integers, an index
with none, grid reals, integers.

Mechanisms
----------
| # | name | input; relation | output | claim | bug | broken: truth |
|---|---|---|---|---|---|---|
| 1 | truncated_geometric_partition_selection | dataset keys 0..7; add/remove | 8 bits | (1, 1e-5) | keep table read one row down | eps inf; delta(1) 3.72e-5 |
| 2 | threshold_histogram | dataset 0..5; add/remove | 6 ints, nullable | (2, 5e-5) | >= k where the tail was solved for > k | eps inf; delta(2) 2.96e-4 |
| 3 | gap_tested_argmax | vector of 4 ints; linf 1 | index or -1 | (1, 1e-3) | bar's tail solved at rate eps, noise at eps/2 | eps inf; delta(1) 1.88e-2 |
| 4 | gaussian_partition_selection | dataset keys 0..7; add/remove | 8 ints, nullable | (1, 1e-5) | keys 4 sigma above tau skip the test | eps inf; delta(1) 5.42e-5 |
| 5 | granular_laplace | scalar real; Delta 5 | reals on grid | eps 1 | grid 4 (largest power of 2 <= Delta), not dividing 5 | eps 1.6 |
| 6 | binned_histogram | dataset ints 0..9; add/remove | 3 ints | eps 1 | bin edges inclusive both sides: 3, 6 in two bins | eps 2 |
| 7 | snapped_vector_laplace | 3 reals; l1 1 | 3 reals on grid 1/2 | eps 1 | L1 move of the snapped vector taken as Delta/g = 2 steps (true 4) | eps 2 |
| 8 | snapped_vector_gaussian | 3 reals; l2 1 | 3 reals on grid 1/2 | zCDP rho 0.5 | squared L2 move taken as (Delta/g)^2 = 4 (true 12) | rho 1.5 |
| 9 | bucketed_unary_encoding | local 0..11 | 4 bits | eps 1 | bucket upper edges inclusive: 3, 6, 9 in two buckets | eps 2 |
| 10 | rounded_discrete_laplace | scalar real; Delta 1 | integer | eps 1 | np.rint (half to even) for randomized rounding | eps 2 |
| 11 | replace_threshold_histogram | dataset 0..5; replace | 6 ints, nullable | (2, 1e-4) | bar's tail solved at the add/remove rate eps, noise at eps/2 | eps inf; delta(2) 4.93e-3 |
| 12 | approximate_randomized_response | binary | bit | (1, 1e-3) | truth probability rr + delta, not delta + (1 - delta) rr | eps 1.0037; delta(1) 3.72e-3 |

1. truncated_geometric_partition_selection.  A key held by n users (one record per user) is
   kept with probability pi(n): pi(0) = 0, pi(n) = min(e^eps pi(n-1) + delta,
   1 + e^-eps (pi(n-1) + delta - 1), 1) (Desfontaines, Voss, Gipson, Mandayam 2022; PipelineDP's
   truncated geometric selection); absent keys are never considered.  The output is one bit
   per key; one record changes one key's n by one, the other keys' bits are identical and
   independent, so the pair's curve is that of Bern(pi(n)) vs Bern(pi(n+1)).  Correct: the
   recurrence binds, delta(1) = 1e-5 exactly (users 1 -> 2 and 19 -> 20), eps at 1e-5 is 1.
   Bug: the table read at n + 1 (as if indexed from pi(1) = delta at row 0): a key held by one
   user is kept with pi(2) = (1 + e) delta = 3.72e-5, never without it.
2. threshold_histogram.  Counts of categories 0..5 plus discrete Laplace of rate eps = 2; a
   present category is released with its noisy count when that exceeds k = 5, the smallest k
   with P(Z >= k) = a^k/(1+a) <= delta (a = e^-2): a category of one record passes w.p.
   P(Z >= 5) = 4.0e-5.  Bug: `>= k`: P(Z >= 4) = 2.96e-4 = 5.9 x delta.
3. gap_tested_argmax (propose-test-release argmax, a thresholded mode).  Scores move by at
   most 1 each, so the gap top1 - top2 moves by up to 2 (noise rate eps/2) and the winner
   can change while the gap is at most 2 (with ties to the lowest index: (0, 2) -> (1, 1));
   release iff gap + Z >= tau = 2 + k, P(Z >= k) <= delta at rate eps/2 (k = 13, tau = 15).
   Correct: one-sided mass P(Z >= 13) = 9.36e-4; eps at 1e-3 is 0.99839 (gap 13 -> 15).  Bug:
   k solved at rate eps (k = 7, tau = 9): a winner released w.p. P(Z >= 7) = 1.88e-2 at gap 2
   that the neighbour never releases.
4. gaussian_partition_selection.  Discrete Gaussian counts, sigma^2 = 14 (delta(1) of a unit
   shift 9.956e-6), a present key released when its noisy count reaches tau = 18 (P(Z >= 17)
   = 4.9e-6).  Looks over budget (delta spent on the noise and again on the threshold) but one
   record touches one key, so the two never add: eps at delta 0.99968 (count 3 -> 4).  Bug: a
   "fast path" keeps keys with count >= tau + ceil(4 sigma) = 33 without the noisy test: a key
   of 32 records is dropped (output none) w.p. P(Z <= -15) = 5.08e-5, one of 33 never:
   delta(1) = 5.42e-5.  Only visible on a key holding 32 records.
5. granular_laplace.  A real answer (Delta 5) snapped to the grid g (round half up, exact on
   the double) plus discrete Laplace in grid steps at rate eps g / Delta; output g x steps.
   Correct g = 1 (the largest power of two dividing 5): a move of at most 5 moves at most 5
   steps.  Bug: g = 4 = 2^floor(log2 5), rate 0.8 per step: a move of 5 from base 0 moves 1
   step (0.8) but a move of 4.02 that straddles two rounding points moves 2 (1.98 -> 6):
   eps 1.6, only off the base.
6. binned_histogram.  Integer values 0..9 counted in bins [0, 3), [3, 6), [6, 9], discrete
   Laplace of rate eps per bin.  Bug: `lo <= x <= hi` for every bin: a record at 3 or 6 (inner
   values only; 0 and 9 are in one bin) moves two counts: eps 2.
7. snapped_vector_laplace.  3 real answers, L1 sensitivity 1, each snapped to the grid 1/2
   and given discrete Laplace in grid steps.  A move of L1 norm <= 1 shifts up to
   Delta/g + m - 1 = 4 steps (each coordinate that moves by a fraction of a step can round up
   one step): x = (0.234, 0.234, 0.234) + (1/64, 1/64, 33/64), L1 norm 0.55, shifts 1 + 1 + 2.
   Correct: rate eps/4 (eps 1 attained).  Bug: rate eps/2 (the scalar rule Delta/g): eps 2.
8. snapped_vector_gaussian.  The same snapping under L2 sensitivity 1 with discrete Gaussian
   noise for rho-zCDP; a move of L2 norm 0.89 shifts every coordinate 2 steps (|s|^2 = 12).
   Correct sigma^2 = 12 (rho 0.5: D_a = a |s|^2 / (2 sigma^2) exactly at integer a).  Bug:
   sigma^2 = 4 from (Delta/g)^2: rho 1.5.
9. bucketed_unary_encoding.  A value 0..11 bucketed into [0,3), [3,6), [6,9), [9,11] and
   one-hot encoded; each bit by optimized unary encoding (1 stays 1 w.p. 1/2, 0 becomes 1 w.p.
   1/(e^eps + 1)).  Bug: inclusive upper edges, the inner values 3, 6, 9 set two bits: 3 vs 9
   differ in four bits, output (1, 1, 0, 0): eps 2.  Values 0, 1, 2, 4, 5, 7, 8, 10, 11 are
   unaffected.
10. rounded_discrete_laplace.  A real answer (Delta 1) made an integer by randomized rounding,
   floor(x) + Bernoulli(frac x), then discrete Laplace of rate eps: eps exactly (x vs x + 1;
   a coupling keeps the rounded values within 1).  Bug: np.rint (half to even): 0.5 -> 0 and
   1.5 -> 2, a shift of 2 for a move of 1 at the ties only: eps 2.
11. replace_threshold_histogram.  As 2 under replace-one (L1 2, noise rate eps/2 = 1,
   k = 9 with P(Z >= 9) = 9.02e-5).  Pairs are products of two categories' pairs (one down,
   one up), computed by convolving their exact loss distributions.  Correct: eps at delta
   1.99981 (counts (10, 9) -> (9, 10)).  Bug: k solved at rate eps = 2 (k = 5): the replaced
   record's category of one, (1, 0) -> (0, 1), is released w.p. P(Z >= 5) = 4.93e-3 (49 x).
12. approximate_randomized_response.  The optimal binary (eps, delta) mechanism: with
   probability delta the bit, else eps-randomized response, truth probability
   delta + (1 - delta) e/(1 + e): P(1|1) - e P(1|0) = delta exactly.  Bug: e/(1 + e) + delta:
   delta(1) = (1 + e) delta = 3.72e-3, but eps at delta only 1.0037 (hard by design: the excess
   is 2.7e-3 of probability on outputs both sides produce).

Expected difficulty (a guess, not measured): 12 (tiny eps excess), 1 (3.7e-5 against 1e-5),
4 (needs a key of exactly 32 records), 5 (needs a straddling move off base 0), 2 and 11
(one-sided outputs of a few delta) are the hard ones; 3, 6, 7, 8, 9, 10 should be found if
their pairs are tried.

Check (python tests/corpus/check_held_out_24.py, ~10 s of CPU; output as run)
-----------------------------------------------------------------------

    | mechanism | claim | truth | worst pair | label |
    |---|---|---|---|---|
    | ho24.truncated_geometric_partition_selection.correct | (1.0, 1e-05) | eps@delta 1.00000; delta@eps 1.0e-5 (1.00x) | eps: key users 1 -> 2; delta: key users 19 -> 20 | correct |
    | ho24.truncated_geometric_partition_selection.broken | (1.0, 1e-05) | eps@delta inf; delta@eps 3.718e-5 (3.72x) | key users 0 -> 1 | broken |
    | ho24.threshold_histogram.correct | (2.0, 5e-05) | eps@delta 1.99994; delta@eps 3.999e-5 (0.80x); k = 5 | eps: category count 5 -> 6; delta: category count 0 -> 1 | correct |
    | ho24.threshold_histogram.broken | (2.0, 5e-05) | eps@delta inf; delta@eps 0.0002955 (5.91x); k = 5 | category count 0 -> 1 | broken |
    | ho24.gap_tested_argmax.correct | (1.0, 0.001) | eps@delta 0.99839; delta@eps 0.0009358 (0.94x); tau = 15 | eps: gap 13 -> 15; delta: (0, 0, 0, 0) -> (-1, -1, -1, 1) | correct |
    | ho24.gap_tested_argmax.broken | (1.0, 0.001) | eps@delta inf; delta@eps 0.0188 (18.80x); tau = 9 | eps: (0, 0, 0, 0) -> (-1, -1, -1, 0); delta: (0, 0, 0, 0) -> (-1, -1, -1, 1) | broken |
    | ho24.gaussian_partition_selection.correct | (1.0, 1e-05) | eps@delta 0.99968; delta@eps 9.956e-6 (1.00x); tau 18, fast path 33, unthresholded shift delta 9.956e-6 | key count 3 -> 4 | correct |
    | ho24.gaussian_partition_selection.broken | (1.0, 1e-05) | eps@delta inf; delta@eps 5.42e-5 (5.42x); tau 18, fast path 33, unthresholded shift delta 9.956e-6 | key count 32 -> 33 | broken |
    | ho24.granular_laplace.correct | pure 1 | eps 1.00000 = 5 steps x rate 1/5; from base 0 by 5: 5 steps | x 0.484375 -> 4.5 (move 4.01562): 5 steps | correct |
    | ho24.granular_laplace.broken | pure 1 | eps 1.60000 = 2 steps x rate 4/5; from base 0 by 5: 1 steps | x 1.98438 -> 6 (move 4.01562): 2 steps | broken |
    | ho24.binned_histogram.correct | pure 1 | eps 1.00000 (record in 1 bin(s)) | add a record 0 | correct |
    | ho24.binned_histogram.broken | pure 1 | eps 2.00000 (record in 2 bin(s)) | add a record 3 | broken |
    | ho24.snapped_vector_laplace.correct | pure 1 | eps 1.00000 = 4 steps x rate 1/4 | x [0.234375, 0.234375, 0.234375] -> x + [0.015625, 0.015625, 0.515625] | correct |
    | ho24.snapped_vector_laplace.broken | pure 1 | eps 2.00000 = 4 steps x rate 1/2 | x [0.234375, 0.234375, 0.234375] -> x + [0.015625, 0.015625, 0.515625] | broken |
    | ho24.snapped_vector_gaussian.correct | zCDP rho 0.5 | rho 0.50000 = |s|^2 12 / (2 sigma^2 = 24); D_a check rel.err 8.4e-40 | x [0.234375, 0.234375, 0.234375] -> x + [0.515625, 0.515625, 0.515625] | correct |
    | ho24.snapped_vector_gaussian.broken | zCDP rho 0.5 | rho 1.50000 = |s|^2 12 / (2 sigma^2 = 8); D_a check rel.err 1.0e-40 | x [0.234375, 0.234375, 0.234375] -> x + [0.515625, 0.515625, 0.515625] | broken |
    | ho24.bucketed_unary_encoding.correct | pure 1 | eps 1.00000 | values 0 vs 3, output (1, 0, 0, 0) | correct |
    | ho24.bucketed_unary_encoding.broken | pure 1 | eps 2.00000 | values 3 vs 9, output (1, 1, 0, 0) | broken |
    | ho24.rounded_discrete_laplace.correct | pure 1 | eps 1.00000 | x 0 vs 1, output -36 | correct |
    | ho24.rounded_discrete_laplace.broken | pure 1 | eps 2.00000 | x 1/2 vs 3/2, output -36 | broken |
    | ho24.replace_threshold_histogram.correct | (2.0, 0.0001) | eps@delta 1.99981; delta@eps 9.022e-5 (0.90x); k = 9 | eps: counts (10, 9) -> (9, 10); delta: counts (1, 0) -> (0, 1) | correct |
    | ho24.replace_threshold_histogram.broken | (2.0, 0.0001) | eps@delta inf; delta@eps 0.004926 (49.26x); k = 5 | counts (1, 0) -> (0, 1) | broken |
    | ho24.approximate_randomized_response.correct | (1.0, 0.001) | eps@delta 1.00000; delta@eps 0.001 (1.00x) | bit 1 vs bit 0 | correct |
    | ho24.approximate_randomized_response.broken | (1.0, 0.001) | eps@delta 1.00373; delta@eps 0.003718 (3.72x) | bit 1 vs bit 0 | broken |

    sampling: 72 chi-square tests at 40,000 outputs; smallest p-values:
      0.0019  ho24.bucketed_unary_encoding.broken  (value 3 bit 0)
      0.0105  ho24.truncated_geometric_partition_selection.broken  (key with 13 users)
      0.0623  ho24.bucketed_unary_encoding.correct  (value 3 bit 3)
      0.0743  ho24.truncated_geometric_partition_selection.correct  (key with 11 users)

    all labels agree with the exact values

Run: dp-audit run --adapter tests/corpus/held_out_mechanisms_24.py:ADAPTERS --out held-out-24
(not run by the author).
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


_LIMIT = 2**62  # answers are kept within +-2^62 (a 1-Lipschitz clamp) so int64 sums cannot overflow


def _snap(value, grid):
    """round(value / grid) half up, exactly (the double read as a Fraction): shifting the value
    by a multiple of the grid shifts the result by exactly that many steps."""
    steps = math.floor(Fraction(float(value)) / grid + Fraction(1, 2))
    return min(max(steps, -_LIMIT), _LIMIT)


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
        table.append(
            min(math.exp(eps) * prev + delta, 1 + math.exp(-eps) * (prev + delta - 1), 1.0)
        )
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
        q = np.clip(np.rint(np.asarray(query, dtype=float)), -_LIMIT, _LIMIT)
        q = q.astype(np.int64).reshape(-1)
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
        x = min(max(float(query), -_LIMIT), _LIMIT)
        if self.broken:
            base = np.full(n, int(np.rint(x)))  # BUG: half to even: 0.5 -> 0, 1.5 -> 2
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
            self._k = _dlap_tail_k(self.epsilon, self.delta)  # BUG: at the add/remove rate
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
            self._truth = rr + self.delta  # BUG: delta added on top, not mixed in
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

TRUE_VALUES = {
    "ho24.truncated_geometric_partition_selection.correct": 1.0,
    "ho24.truncated_geometric_partition_selection.broken": math.inf,
    "ho24.threshold_histogram.correct": 1.99994,
    "ho24.threshold_histogram.broken": math.inf,
    "ho24.gap_tested_argmax.correct": 0.99839,
    "ho24.gap_tested_argmax.broken": math.inf,
    "ho24.gaussian_partition_selection.correct": 0.99968,
    "ho24.gaussian_partition_selection.broken": math.inf,
    "ho24.granular_laplace.correct": 1.0,
    "ho24.granular_laplace.broken": 1.6,
    "ho24.binned_histogram.correct": 1.0,
    "ho24.binned_histogram.broken": 2.0,
    "ho24.snapped_vector_laplace.correct": 1.0,
    "ho24.snapped_vector_laplace.broken": 2.0,
    "ho24.snapped_vector_gaussian.correct": 0.5,
    "ho24.snapped_vector_gaussian.broken": 1.5,
    "ho24.bucketed_unary_encoding.correct": 1.0,
    "ho24.bucketed_unary_encoding.broken": 2.0,
    "ho24.rounded_discrete_laplace.correct": 1.0,
    "ho24.rounded_discrete_laplace.broken": 2.0,
    "ho24.replace_threshold_histogram.correct": 1.99981,
    "ho24.replace_threshold_histogram.broken": math.inf,
    "ho24.approximate_randomized_response.correct": 1.0,
    "ho24.approximate_randomized_response.broken": 1.00373,
}

TRUE_DETAILS = {
    "ho24.truncated_geometric_partition_selection.correct": "eps 1 at delta 1e-5: the keep "
    "table's recurrence binds, delta(1) = 1e-5 exactly (users 1 -> 2).",
    "ho24.truncated_geometric_partition_selection.broken": "eps inf: a key of one user kept "
    "w.p. pi(2) = (1 + e) delta = 3.72e-5 (3.7x delta), never without it.",
    "ho24.threshold_histogram.correct": "eps 1.99994 at 5e-5: a category of one record passes "
    "w.p. P(Z >= 5) = 4.0e-5; counts are 2-DP.",
    "ho24.threshold_histogram.broken": "eps inf: `>= 5` releases a one-record category w.p. "
    "P(Z >= 4) = 2.96e-4 (5.9x delta), never without it.",
    "ho24.gap_tested_argmax.correct": "eps 0.99839 at 1e-3: the winner changes only at gap <= 2, "
    "released there w.p. <= P(Z >= 13) = 9.36e-4 (rate 1/2).",
    "ho24.gap_tested_argmax.broken": "eps inf: bar solved at rate 1, noise at 1/2: at gap 2, "
    "(0, 2) -> (1, 1), index 1 released w.p. 1.88e-2 (18.8x delta), never on the neighbour.",
    "ho24.gaussian_partition_selection.correct": "eps 0.99968 at 1e-5: Gaussian part delta(1) "
    "9.96e-6, threshold part 4.9e-6; one record touches one key, so they never add.",
    "ho24.gaussian_partition_selection.broken": "eps inf: keys of >= 33 records skip the test; "
    "32 -> 33 removes a none of mass 5.08e-5: delta(1) 5.42e-5 (5.4x).",
    "ho24.granular_laplace.correct": "eps 1: grid 1 divides Delta 5, at most 5 steps at rate 1/5.",
    "ho24.granular_laplace.broken": "eps 1.6: grid 4, rate 4/5 per step; a move of 4.02 off the "
    "base (1.98 -> 6) snaps 2 steps; from base 0 a move of 5 snaps only 1.",
    "ho24.binned_histogram.correct": "eps 1: every record in exactly one bin.",
    "ho24.binned_histogram.broken": "eps 2: records at 3 or 6 (inner edges) counted in two bins.",
    "ho24.snapped_vector_laplace.correct": "eps 1: an L1 move <= 1 snaps to <= 4 steps "
    "(Delta/g + m - 1), rate 1/4.",
    "ho24.snapped_vector_laplace.broken": "eps 2: rate 1/2 for 2 steps; (0.234 x3) + (1/64, 1/64, "
    "33/64), L1 0.55, snaps 1 + 1 + 2 = 4 steps.",
    "ho24.snapped_vector_gaussian.correct": "rho 0.5: |steps|^2 <= 12 (2 on each of 3 "
    "coordinates, L2 move 0.89), sigma^2 = 12.",
    "ho24.snapped_vector_gaussian.broken": "rho 1.5: sigma^2 = 4 from (Delta/g)^2; the same move "
    "gives 12 / 8.",
    "ho24.bucketed_unary_encoding.correct": "eps 1: one bit set per value, OUE is eps-LDP, "
    "attained.",
    "ho24.bucketed_unary_encoding.broken": "eps 2: values 3 and 9 set two bits each, disjoint: "
    "four differing bits, output (1, 1, 0, 0).",
    "ho24.rounded_discrete_laplace.correct": "eps 1: randomized rounding keeps neighbours within "
    "one integer (coupling), attained at x vs x + 1.",
    "ho24.rounded_discrete_laplace.broken": "eps 2: rint(0.5) = 0, rint(1.5) = 2, a shift of 2 "
    "at rate 1, only at ties.",
    "ho24.replace_threshold_histogram.correct": "eps 1.99981 at 1e-4: the replaced record's new "
    "or emptied category released w.p. P(Z >= 9) = 9.02e-5 (rate 1).",
    "ho24.replace_threshold_histogram.broken": "eps inf: bar solved at rate 2, noise at 1: "
    "(1, 0) -> (0, 1) releases a category w.p. 4.93e-3 (49x delta).",
    "ho24.approximate_randomized_response.correct": "eps 1 at 1e-3: P(1|1) - e P(1|0) = delta "
    "exactly.",
    "ho24.approximate_randomized_response.broken": "eps 1.00373 at 1e-3: truth probability "
    "rr + delta gives delta(1) = (1 + e) delta = 3.72e-3 (3.7x).",
}
