# ruff: noqa: SIM108, B905, E501
"""Held-out mechanisms, set 27: delta-only leaks in threshold releases, moves shorter than the
sensitivity (a rounding that spreads, a clamp off the grid), and correct twins whose claim is
exactly tight.

What this is
------------
Six mechanisms, each as one class with a CORRECT adapter (private as claimed under its declared
neighbouring relation, the claim the exact true value or rounded up in its last digit) and a
BROKEN twin that differs by one bug, marked `# BUG` beside the line the correct twin uses;
`broken=True` takes it.  `ADAPTERS` holds the 12 adapters, named `ho27.<mechanism>.correct` /
`ho27.<mechanism>.broken`, each with a `broken` attribute and a `true_value` attribute (the
true value of its claim's parameter: pure claims eps; (eps, delta) claims eps at the claimed
delta, math.inf where no eps holds); `TRUE_VALUES` collects them.  Integer noise is the
discrete Laplace (a difference of geometrics); the one Gaussian is rounded to a grid of 2^-20
(post-processing, so as private as the ideal Gaussian).

How it was written
------------------
Blind.  Of the repository the author read only README.md, docs/writing-an-adapter.md, the
head of docs/claims.md, and the docstrings / adapter declarations of
tests/corpus/held_out_mechanisms_26.py and tests/corpus/check_held_out_26.py (the file format).  Nothing
under auditor/, attacks/ or tests/ was opened and dp-audit was neither imported nor run.  This
module imports numpy, scipy.special and math only.  True values come from
tests/corpus/check_held_out_27.py (exact pmfs in mpmath, exhaustive enumeration; see there).

Mechanisms
----------
| # | name | input; relation | output | claim | bug | broken: truth |
|---|---|---|---|---|---|---|
| 1 | threshold_histogram | dataset ints 0..11; add/remove | 12 noisy counts or NaN | (1.2, 1.73e-4) | `>=` for `>` at the threshold | eps inf; delta 5.74e-4 (3.32x) |
| 2 | mode_release_gap | dataset ints 0..3; replace | mode or NaN | (3, 1.01e-4) | threshold for a gap moving by 1, not 2 | eps inf; delta 4.52e-4 (4.48x) |
| 3 | spread_rounded_counts | 3 reals; l1 1 | 3 ints | eps 1 | rate eps/2 (L1 "1 + 1 for rounding"), not eps/3 | eps 1.5 |
| 4 | clamped_rounded_scalar | scalar real; Delta 1 | reals (integers; halves when broken) | eps 1 | clamp at 30.5 after rounding, not before | eps inf (delta 1) |
| 5 | gaussian_linf_counts | 3 reals; linf 1 | 3 reals (grid 2^-20) | (1, 1e-5) | analytic Gaussian with Delta 1, not the L2 Delta sqrt(3) | eps 1.83497; delta at eps 1: 4.17e-3 |
| 6 | local_krr | local 0..5 | int 0..5 | eps 1 | "other" answer drawn from all 6, not the other 5 | eps 1.44972 |

1. threshold_histogram.  Keys from the data: count c_j of each value j in 0..11; a key with
   c_j >= 1 is released with c_j + Z_j (Z_j discrete Laplace, rate eps = 1.2) when
   c_j + Z_j > k, k = 7 the smallest with P(Z >= k) = a^k / (1 + a) <= delta (a = e^-1.2):
   P(Z >= 7) = 1.7285e-4.  Adding one record moves one count by 1; 0 -> 1 releases a new key
   w.p. P(Z >= k) (all of delta), c -> c + 1 (c >= 1) costs at most eps on every output.
   Bug: `c + Z >= k`: the new key is released w.p. P(Z >= k - 1) = 5.74e-4.  Pair: any
   dataset vs the same plus one record of a value not in it; output set {that key released}:
   5.74e-4 vs 0 (115 expected outputs in 200,000).
2. mode_release_gap.  The most frequent of 4 values (ties to the lower value) is released when
   g + Z >= tau, g = top count - second count, Z discrete Laplace of rate eps / 2 = 1.5 (g
   moves by at most 2 when one record is replaced).  The mode can change only from g <= 2 (to
   g' <= 2 - g): tau = k + 2 with P(Z >= k) <= delta, k = 6 (1.0088e-4).  Bug: tau = k + 1
   (the gap taken to move by 1, as under add/remove).  Pair: counts (1, 3, 1, 0) -> (2, 2, 1, 0)
   (a record replaced 1 -> 0: the mode 1 at gap 2 becomes the mode 0 at gap 0); output set
   {1}: P(Z >= 5) = 4.52e-4 vs 0 (90 in 200,000).
3. spread_rounded_counts.  Three real answers (time shares: one person adds at most 1 in total,
   L1 1), each clamped to [0, 20], rounded half up to an integer, plus discrete Laplace.
   Rounding is not Lipschitz: a move of 0.1 spread over three entries sitting at 0.45 flips
   all three roundings, an L1 change of 3 in the rounded vector (and 3 is the most: each entry
   changes by at most 1).  Correct: rate eps / 3: exactly 1 at such a pair.  Bug: rate eps / 2
   (Delta + 1 for the rounding): axis moves of 1 cost 0.5, two crossings 1, three 1.5.
   Pair: (0.45, 0.45, 0.45) -> (0.55, 0.55, 0.55); output set {all three >= 1}: 0.2412 vs
   0.0538 (ratio e^1.5; the correct twin: 0.1977 vs 0.0727, ratio e).
4. clamped_rounded_scalar.  A real answer with Delta 1, clamped to [0, 30.5] (a bound not on
   the integer grid), rounded half up to an integer k, output k + Z (rate 1).  Correct: clamp,
   then round (0 .. 31): a move of 1 moves k by at most 1, eps exactly 1.  Bug: round, then
   clamp at 30.5: every answer >= 30.5 gives 30.5 + Z, a half-integer.  Pair: 30.4 -> 30.6
   (a move of 0.2; also 30 -> 31); output set {non-integers}: 1 vs 0.
5. gaussian_linf_counts.  Three counts, L-inf neighbours (a user moves each by at most 1), so
   the L2 sensitivity is sqrt(3); Gaussian noise of the analytic Gaussian mechanism (Balle and
   Wang 2018) for (1, 1e-5) at Delta_2 = sqrt(3): sigma = 6.46164 (times 1 + 1e-9), exactly
   tight at the corner moves.  Bug: sigma for Delta = 1 (3.73063).  Pair: x -> x + (1, 1, 1);
   true eps at 1e-5: 1.83497, delta at eps 1: 4.17e-3 (417x).  Event sum >= 3 sigma sqrt(3)
   (19.39) from x = 0 vs (1, 1, 1): 5.61e-3 vs 1.35e-3, ln ratio 1.425 (1,122 vs 270 outputs
   in 200,000); exactly on the rounded outputs, the event {every entry >= 3.75}: 0.01225 vs
   0.00390, delta >= 1.65e-3 at eps 1.
6. local_krr.  k-ary randomized response over 6 values: keep w.p. e / (e + 5), else one of
   the other 5 uniformly: exactly eps 1.  Bug: the other answer drawn uniformly from all 6
   (`integers(0, 6)`), keeping the keep probability: P(own) = p + (1 - p) / 6 = 0.4602,
   P(other) = 0.1080: eps ln(1 + 6e / 5) = 1.44972.

Correct twins are tight: 1 and 2 in delta (delta at the claimed eps 0.999x the claim; eps at
the claimed delta 1.19977 and 2.99988), 3, 4 and 6 exactly at eps (pure), 5 at (1, 1e-5) to
2e-8 of delta (sigma raised by 1e-9 of itself above the exact analytic value).

Effect sizes at 200,000 outputs per side (broken twins): 1 and 2 release an output one side
never produces, w.p. 5.74e-4 and 4.52e-4 (about 115 and 90 outputs vs none; claimed delta
1.73e-4 and 1.01e-4); 3 an eps gap of 1.5 vs 1 on an event of 0.24 vs 0.054 (ratio 4.48 vs
the allowed 2.72), but only for a move spread over all three entries with every entry within
the move of a rounding boundary (x.5); 4 disjoint supports, but only for answers on both sides
of 30.5; 5 eps 1.83 vs 1 (417x delta at eps 1); 6 eps 1.45 vs 1 on outputs of mass 0.46 /
0.11.

Expected difficulty (a guess, not measured): 3 (the spread straddle is a thin set of
starts) and 4 (the leak sits at one point of the query range, 30.5 of 0..40) for the pairs;
1 and 2 for the budget (a one-sided output of 5e-4); 6 and 5 the easiest.

Check (python tests/corpus/check_held_out_27.py, about 20 s; output as run)
--------------------------------------------------------------------

    | adapter | claim | truth | neighbouring pair; event | label (computed) | stated true value |
    |---|---|---|---|---|---|
    | ho27.threshold_histogram.correct | (1.2, 0.000173) | eps@delta 1.19977; delta@eps 0.00017282 (0.999x); k = 7; a new key released w.p. 0.0001728 | delta: count 0 -> 1 (D vs D + a record of an absent value), event: that key released; eps: count 7 -> 8 | correct | 1.19977 |
    | ho27.threshold_histogram.broken | (1.2, 0.000173) | eps@delta inf; delta@eps 0.00057377 (3.32x); k = 7; a new key released w.p. 0.0005738 | delta: count 0 -> 1 (D vs D + a record of an absent value), event: that key released; eps: count 0 -> 1 | broken | inf |
    | ho27.mode_release_gap.correct | (3, 0.000101) | eps@delta 2.99988; delta@eps 0.0001009 (0.999x); tau = 8; mode at gap 2 released w.p. 0.0001009 | (mode, gap) (0, 0) -> (1, 2), e.g. counts (1, 3, 1, 0) -> (2, 2, 1, 0); event: output 1; eps: (0, 6) -> (0, 8) | correct | 2.99988 |
    | ho27.mode_release_gap.broken | (3, 0.000101) | eps@delta inf; delta@eps 0.00045219 (4.48x); tau = 7; mode at gap 2 released w.p. 0.0004522 | (mode, gap) (0, 0) -> (1, 2), e.g. counts (1, 3, 1, 0) -> (2, 2, 1, 0); event: output 1; eps: (0, 0) -> (1, 2) | broken | inf |
    | ho27.spread_rounded_counts.correct | pure 1 | eps 1.0; rate 0.33333; rounded L1 change: 3 at most (axis moves: 1); axis eps 0.33333 | (0.45,)*3 -> (0.55,)*3; event all >= 1: 0.1977 vs 0.07274 | correct | 1 |
    | ho27.spread_rounded_counts.broken | pure 1 | eps 1.5; rate 0.5; rounded L1 change: 3 at most (axis moves: 1); axis eps 0.5 | (0.45,)*3 -> (0.55,)*3; event all >= 1: 0.2412 vs 0.05381 | broken | 1.5 |
    | ho27.clamped_rounded_scalar.correct | pure 1 | eps 1.0; centres move by <= 1 (integers 0..31) | 0.4 -> 0.6 (or any half-integer crossing; first on the grid: 0.0 -> 0.5); event: output >= centre + 1 | correct | 1 |
    | ho27.clamped_rounded_scalar.broken | pure 1 | eps inf; delta 1 at every eps (disjoint supports: integers vs half-integers) | 30.4 -> 30.6 (first on the grid: 29.5 -> 30.5); event: output not an integer: 0 vs 1 | broken | inf |
    | ho27.gaussian_linf_counts.correct | (1, 1e-05) | eps@delta 1.0; delta@eps 1.0e-5 (0.99999998x); sigma 6.4616435 | x -> x + (1, 1, 1) (every corner alike) | correct | 1 |
    | ho27.gaussian_linf_counts.broken | (1, 1e-05) | eps@delta 1.834965; delta@eps 0.00417 (417.0x); sigma 3.7306316; rectangle event all >= 3.75: 0.01225 vs 0.0039, delta >= 0.001649 on the rounded outputs | x -> x + (1, 1, 1) | broken | 1.83497 |
    | ho27.local_krr.correct | pure 1 | eps 1.0; P(own) 0.3522, P(other) 0.1296 | any two values (all pairs alike); event: output = the first value | correct | 1 |
    | ho27.local_krr.broken | pure 1 | eps 1.44972; P(own) 0.4602, P(other) 0.108 | any two values (all pairs alike); event: output = the first value | broken | 1.44972 |

    sampling (100,000 per query, seed replay checked; 58 tests; smallest five p-values)
        0.0040  ho27.threshold_histogram.correct  (key 4, count 8)
        0.0322  ho27.spread_rounded_counts.correct  ((0.55, 2.3, 7.5) entry 1)
        0.0327  ho27.mode_release_gap.broken  (counts (0, 1, 9, 4))
        0.0401  ho27.threshold_histogram.broken  (key 1, count 9)
        0.1151  ho27.gaussian_linf_counts.correct  ((0.0, 0.0, 0.0) entry 1 (KS))

    all labels agree with the exact values; every adapter samples its exact law

Run: dp-audit run --adapter tests/corpus/held_out_mechanisms_27.py:ADAPTERS --out held-out-27
(not run by the author).
"""

from __future__ import annotations

import math

import numpy as np
from scipy import special

# ---------------------------------------------------------------------------------------------
# Shared helpers
# ---------------------------------------------------------------------------------------------


def _dlap(rng, rate, size):
    """Discrete Laplace: P(z) proportional to exp(-rate |z|), a difference of geometrics."""
    p = -math.expm1(-rate)
    return rng.geometric(p, size) - rng.geometric(p, size)


def _dlap_tail(rate, k):
    """P(Z >= k) for k >= 1."""
    a = math.exp(-rate)
    return a**k / (1 + a)


def _smallest_k(rate, delta):
    """Smallest k >= 1 with P(Z >= k) <= delta."""
    k = 1
    while _dlap_tail(rate, k) > delta:
        k += 1
    return k


def _round_half_up(x):
    """Round half up, exactly on doubles in [0, 2^52): x - floor(x) is exact there (x < 1, or
    x and floor(x) within a factor 2 of each other)."""
    x = np.asarray(x, dtype=float)
    fl = np.floor(x)
    return (fl + (x - fl >= 0.5)).astype(np.int64)


class _Base:
    vectorised = True
    library = "held-out set 27"

    def __init__(self, broken=False):
        self.broken = broken
        self.name = f"ho27.{self.mechanism}.{'broken' if broken else 'correct'}"
        self.true_value = self.true_values[1 if broken else 0]
        self._rng = np.random.default_rng()

    def seed(self, entropy):
        self._rng = np.random.default_rng(entropy)


# ---------------------------------------------------------------------------------------------
# 1. Keys from the data released past a threshold (stability histogram).      delta leak
# ---------------------------------------------------------------------------------------------


class ThresholdHistogram(_Base):
    """Counts of the values 0..11 in the data; each value present (count >= 1) is released with
    its count plus discrete Laplace noise (rate eps) when the noisy count exceeds k, the
    smallest with P(Z >= k) <= delta; absent values and values under the bar are NaN.  Adding
    a record releases a new key w.p. P(Z >= k) <= delta (the whole delta); other outputs cost
    at most eps.  Broken (`>=` for `>`): a new key w.p. P(Z >= k - 1) = 5.74e-4, 3.32x delta;
    true eps at delta: inf.  Pair: D vs D + one record of a value absent from D."""

    mechanism = "threshold_histogram"
    description = "stability-based histogram: noisy counts of the keys present, thresholded"
    true_values = (1.19977, math.inf)  # correct: delta(1.2) = 1.7285e-4, 0.999x the claim
    epsilon, delta = 1.2, 1.73e-4
    input_kind = "dataset"
    domain = (0, 11)
    neighbours = "add_remove"
    output_kind = "integer"
    output_length = 12
    nullable = True

    def __init__(self, broken=False):
        super().__init__(broken)
        self.k = _smallest_k(self.epsilon, self.delta)  # 7

    def sample(self, query, n):
        records = np.clip(np.rint(np.asarray(query, dtype=float)), 0, 11).astype(np.int64)
        counts = np.bincount(records, minlength=12)
        noisy = counts[None, :] + _dlap(self._rng, self.epsilon, (n, 12))
        if self.broken:
            keep = noisy >= self.k  # BUG: >= where the bar is > k
        else:
            keep = noisy > self.k
        keep &= counts[None, :] >= 1
        return np.where(keep, noisy.astype(float), np.nan)


# ---------------------------------------------------------------------------------------------
# 2. The mode, released when its noisy lead passes a bar.                     delta leak
# ---------------------------------------------------------------------------------------------


class ModeReleaseGap(_Base):
    """The most frequent of the values 0..3 (ties to the lower value), released when
    g + Z >= tau, g = top count - second count, Z discrete Laplace of rate eps / 2 (one record
    replaced moves g by at most 2); NaN otherwise.  The mode changes only between gaps g and
    g' <= 2 - g, so tau = k + 2 with P(Z >= k) <= delta.  Broken: tau = k + 1, the gap taken to
    move by 1: counts (1, 3, 1, 0) -> (2, 2, 1, 0) release 1 w.p. P(Z >= k - 1) = 4.52e-4 on
    one side only (4.48x delta); true eps at delta: inf."""

    mechanism = "mode_release_gap"
    description = "propose-test-release mode: the mode if its noisy lead passes a bar"
    true_values = (2.99988, math.inf)  # correct: delta(3) = 1.0088e-4, 0.999x the claim
    epsilon, delta = 3.0, 1.01e-4
    input_kind = "dataset"
    domain = (0, 3)
    neighbours = "replace"
    output_kind = "integer"
    nullable = True

    def __init__(self, broken=False):
        super().__init__(broken)
        self.rate = self.epsilon / 2
        k = _smallest_k(self.rate, self.delta)  # 6
        if self.broken:
            self.tau = k + 1  # BUG: the gap moves by up to 2 under replace
        else:
            self.tau = k + 2

    def sample(self, query, n):
        records = np.clip(np.rint(np.asarray(query, dtype=float)), 0, 3).astype(np.int64)
        counts = np.bincount(records, minlength=4)
        mode = int(np.argmax(counts))
        top2 = np.sort(counts)[::-1][:2]
        gap = int(top2[0] - top2[1])
        release = gap + _dlap(self._rng, self.rate, n) >= self.tau
        return np.where(release, float(mode), np.nan)


# ---------------------------------------------------------------------------------------------
# 3. Rounded counts with noise: a spread move flips every rounding.            short moves
# ---------------------------------------------------------------------------------------------


class SpreadRoundedCounts(_Base):
    """Three real answers (a person's time split across three activities: L1 sensitivity 1),
    clamped to [0, 20], rounded half up, plus discrete Laplace noise per entry.  Rounding can
    move all three entries by a step for a move of any size (0.45 -> 0.55 in each), so the
    rounded vector's L1 sensitivity is 3: rate eps / 3, exactly eps at such a pair.  Broken:
    rate eps / 2; true eps 1.5, only on moves spread over all three entries (axis moves: 0.5).
    Pair: (0.45, 0.45, 0.45) -> (0.55, 0.55, 0.55)."""

    mechanism = "spread_rounded_counts"
    description = "integer release of real answers: round half up, then discrete Laplace"
    true_values = (1.0, 1.5)
    epsilon = 1.0
    input_kind = "vector"
    norm = "l1"
    sensitivity = 1
    query_length = 3
    query_bounds = (0, 20)
    output_kind = "integer"
    output_length = 3

    def __init__(self, broken=False):
        super().__init__(broken)
        if self.broken:
            self.rate = self.epsilon / 2  # BUG: "Delta + 1 for the rounding"
        else:
            self.rate = self.epsilon / 3

    def sample(self, query, n):
        x = np.clip(np.asarray(query, dtype=float), 0.0, 20.0)
        k = _round_half_up(x)
        return k[None, :] + _dlap(self._rng, self.rate, (n, 3))


# ---------------------------------------------------------------------------------------------
# 4. A clamp at a bound off the integer grid.                                  short moves
# ---------------------------------------------------------------------------------------------


class ClampedRoundedScalar(_Base):
    """A real answer (Delta 1) clamped to [0, 30.5], rounded half up to an integer k, released
    as k + Z (discrete Laplace, rate eps): a move of 1 moves k by at most 1, eps exactly.
    Broken: rounds first and clamps the rounded value at 30.5, a bound not on the grid: every
    answer >= 30.5 is released on the half-integers, every answer below on the integers.
    True eps inf (delta 1): 30.4 -> 30.6 (a move of 0.2) or 30 -> 31."""

    mechanism = "clamped_rounded_scalar"
    description = "bounded answer, rounded to integers, geometric noise"
    true_values = (1.0, math.inf)
    epsilon = 1.0
    input_kind = "scalar"
    sensitivity = 1
    query_bounds = (0, 40)
    output_kind = "real"
    upper = 30.5

    def sample(self, query, n):
        x = max(float(query), 0.0)
        if self.broken:
            k = min(float(_round_half_up(x)), self.upper)  # BUG: clamp after rounding
        else:
            k = float(_round_half_up(min(x, self.upper)))
        return k + _dlap(self._rng, self.epsilon, n).astype(float)


# ---------------------------------------------------------------------------------------------
# 5. Gaussian noise on counts with L-inf neighbours.                           tight / norm
# ---------------------------------------------------------------------------------------------


def _analytic_gaussian_sigma(eps, delta, l2):
    """Smallest sigma with Phi(D/(2s) - eps s/D) - e^eps Phi(-D/(2s) - eps s/D) <= delta
    (Balle and Wang 2018), D = l2, by bisection, then raised by 1e-9 of itself."""

    def d(s):
        return special.ndtr(l2 / (2 * s) - eps * s / l2) - math.exp(eps) * special.ndtr(
            -l2 / (2 * s) - eps * s / l2
        )

    lo, hi = 1e-3, 1e3
    for _ in range(200):
        mid = math.sqrt(lo * hi)
        if d(mid) > delta:
            lo = mid
        else:
            hi = mid
    return hi * (1 + 1e-9)


class GaussianLinfCounts(_Base):
    """Three counts, each moved by at most 1 by one user (L-inf 1, so L2 sqrt(3)), plus
    Gaussian noise from the analytic Gaussian mechanism at Delta_2 = sqrt(3): exactly tight at
    (1, 1e-5) on the corner moves (1, 1, 1).  Outputs rounded to multiples of 2^-20.  Broken:
    sigma calibrated to Delta = 1 (the L-inf bound read as the L2 one); true eps at 1e-5
    1.83497, delta at eps 1 4.17e-3.  Pair: x -> x + (1, 1, 1)."""

    mechanism = "gaussian_linf_counts"
    description = "analytic Gaussian mechanism on three counts"
    true_values = (1.0, 1.83497)
    epsilon, delta = 1.0, 1e-5
    input_kind = "vector"
    norm = "linf"
    sensitivity = 1
    query_length = 3
    output_kind = "real"
    output_length = 3

    def __init__(self, broken=False):
        super().__init__(broken)
        if self.broken:
            self.sigma = _analytic_gaussian_sigma(self.epsilon, self.delta, 1.0)  # BUG: L-inf as L2
        else:
            self.sigma = _analytic_gaussian_sigma(self.epsilon, self.delta, math.sqrt(3))

    def sample(self, query, n):
        x = np.asarray(query, dtype=float)
        y = x[None, :] + self._rng.normal(0.0, self.sigma, (n, 3))
        return np.round(y * 2.0**20) / 2.0**20


# ---------------------------------------------------------------------------------------------
# 6. k-ary randomized response.                                                tight / local
# ---------------------------------------------------------------------------------------------


class LocalKRR(_Base):
    """k-ary randomized response over 6 values: the true value w.p. e^eps / (e^eps + 5), else
    one of the other 5 uniformly; exactly eps.  Broken: the other answer drawn uniformly from
    all 6 values (the true one included) with the same keep probability: eps
    ln(1 + 6 e / 5) = 1.44972, any two values."""

    mechanism = "local_krr"
    description = "generalized randomized response over 6 categories"
    true_values = (1.0, 1.44972)
    epsilon = 1.0
    input_kind = "local"
    domain = (0, 5)
    output_kind = "integer"

    def sample(self, query, n):
        v = int(min(max(int(query), 0), 5))
        e = math.exp(self.epsilon)
        keep = self._rng.random(n) < e / (e + 5)
        if self.broken:
            other = self._rng.integers(0, 6, n)  # BUG: may draw the true value again
        else:
            other = self._rng.integers(0, 5, n)
            other = other + (other >= v)
        return np.where(keep, v, other).astype(np.int64)


_CLASSES = (
    ThresholdHistogram,
    ModeReleaseGap,
    SpreadRoundedCounts,
    ClampedRoundedScalar,
    GaussianLinfCounts,
    LocalKRR,
)

ADAPTERS = [cls(broken=b) for cls in _CLASSES for b in (False, True)]

TRUE_VALUES = {a.name: a.true_value for a in ADAPTERS}
