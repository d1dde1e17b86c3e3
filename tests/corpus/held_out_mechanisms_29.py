# ruff: noqa: E501
"""Held-out mechanisms, set 29: leaks in delta alone, losses that only a sub-step position
shows, a loss confined to rare outputs at the top of the range, and tight correct twins.

What this is
------------
Eight mechanisms, each as one class with a CORRECT adapter (private as claimed over its whole
declared neighbouring relation, and tight: some neighbouring pair attains the claim) and a
BROKEN twin that differs by one bug, marked `# BUG` beside the line; `broken=True` takes it.
`ADAPTERS` holds the 16 adapters, named `ho29.<mechanism>.correct` / `ho29.<mechanism>.broken`,
each with `broken`, `true_value` (pure claims: eps; (eps, delta) claims: eps at the claimed
delta, math.inf where no eps holds; for the correct (eps, delta) twins the claimed eps, an
upper bound, see the checker for the interval; the GDP claim: mu) and `true_text` (in words,
with the pair that shows it). The noise is integer (discrete Laplace, a difference of
geometrics) except in mechanism 8, whose Gaussian sum is floored to a multiple of 0.25 before
release: no output carries a float noise sample's low bits. Every adapter is seeded
(`seed(entropy)`; a fixed default) and vectorised, except the keyed one, which builds one
mapping per output.

How it was written
------------------
Blind: of the repository only README.md, docs/writing-an-adapter.md, docs/claims.md,
docs/systems-analytics.md and the docstrings / declarations of set 28 (for the file format)
were read, and, to print the claims as labels.toml does, the `describe` methods of
auditor/core/claims.py and auditor/core/claim_kinds/gdp.py.  Nothing under auditor/engine,
auditor/statistics, attacks/ or tests/ (beyond set 28's format) was opened; dp-audit was run
only as `dp-audit check --adapter tests/corpus/held_out_mechanisms_29.py:ADAPTERS` (16 of 16
follow the contract; no audit).  Imports numpy and math only.  Labels and true values are
recomputed exactly by tests/corpus/check_held_out_29.py (integers, fractions, mpmath; see
there).

Mechanisms
----------
| # | name | input; relation | output | claim | bug | broken: truth |
|---|---|---|---|---|---|---|
| 1 | user_partitions | dataset ints 0..7; add/remove, max_contributions 4 | keyed (integer) | (2, 7.69e-5) | threshold solved for one record per user (P(Z >= T-1) <= delta), not four | eps inf; delta 3.44e-4 (4.48x) |
| 2 | stable_mode | dataset ints 0..9; add/remove | real (integer values), nullable | (1.5, 1.01e-4) | threshold solved for a gap of 0 (P(Z >= T) <= delta), not the gap of 1 a tie's neighbour has | eps inf; delta 4.52e-4 (4.48x) |
| 3 | rr_clear | local 0..5 | integer 0..11 | (1.2, 5e-4) | clear-report rate K delta (delta "per category"), not delta | eps inf; delta 3e-3 (6x) |
| 4 | gap_argmax | 5 ints in [0, 40]; linf 1 (not monotone) | index, nullable (-1) | (2.4, 1.73e-4) | threshold solved for a gap move of 1 (monotone counts), not 2 | eps inf; delta 5.74e-4 (3.32x) |
| 5 | grid2d | 2 reals in [-20, 20]; l2 1 | vector of 2 reals (multiples of 0.5) | eps 1 | rate eps g / (sqrt 2 Delta) (the continuous L1 bound of the l2 ball), not eps / 4 (the largest lattice move) | eps 1.41421 |
| 6 | log_buckets | scalar real in [0, 20]; Delta 1 | integer (bucket index) | eps 0.8 | lower clamp at 1.2, off the grid where one bucket holds a move of 1 (needs >= 2) | eps 1.6 |
| 7 | capped_count | scalar int in [0, 40]; Delta 1 | integer | eps 1 | the cap's cached sampler draws its tail beyond |z| = 4 at rate eps / 2 | eps inf (loss > 1 only in outputs of mass <= 0.0085) |
| 8 | snapped_gauss | scalar real in [0, 30]; Delta 1 | real (multiples of 0.25) | 1-GDP | sigma = Delta / mu, not (largest snapped move 1.25) / mu | mu 1.25 |

1. user_partitions.  Each record is one key 0..7 (keys "k0".."k7"); a user holds up to 4
   records (`max_contributions = 4`), so one user moves the count vector by at most 4 in L1.
   Counts get discrete Laplace noise of rate eps/4 (eps-DP for the counts); a key of count
   c >= 1 is released with its noisy count when that reaches T; absent keys never are.  A new
   user's keys are released by one side only: worst when all 4 records are one new key,
   P(Z >= T - 4) (checked against every split of 4 records over new keys).  Correct T = 22:
   delta = 7.6818e-5 <= 7.69e-5 (the claim is that rounded up: tight).  Bug: T = 19, the least
   T with P(Z >= T - 1) <= delta, as for one record per user: a user of 4 copies of a new key
   shows it w.p. P(Z >= 15) = 3.4427e-4.  Pair: D vs D + 4 copies of an absent key; event
   {that key released}: 3.44e-4 vs 0 (about 2,900 outputs per occurrence; 69 in 200,000).
2. stable_mode. The mode of records 0..9 (ties to the smallest value) is released when its gap
   g = (top count) - (second count) plus discrete Laplace noise of rate eps reaches T, else
   NaN. g moves by at most 1 per record, and the mode changes only where the two gaps sum to at
   most 1 (a tie and its neighbour), so the one-sided mass is P(Z >= T - 1). Correct T = 7:
   1.00897e-4 <= 1.01e-4 (tight). Bug: T = 6, the least T with P(Z >= T) <= delta: P(Z >= 5) =
   4.5219e-4. Pair: {1, 2} (tie, mode 1) vs {1, 2, 2} (mode 2, gap 1); event {output = 2}:
   4.52e-4 vs 0 (about 2,200 outputs per occurrence; 90 in 200,000). Integer outputs declared
   `real`.
3. rr_clear.  A local value v in 0..5: with probability q the value is sent in the clear
   (output v + 6), else K-ary randomized response at eps (v w.p. e^eps / (e^eps + 5), each
   other value w.p. 1 / (e^eps + 5)).  delta(eps) = q exactly, and eps is attained by the RR
   part: both tight at q = delta.  Bug: q = 6 delta = 3e-3.  Pair: v = 0 vs v = 1; event
   {output = 6}: 3e-3 vs 0 (about 330 outputs per occurrence; 600 in 200,000).
4. gap_argmax.  Five integer utilities; the index of the largest (ties to the smallest index)
   is released when the gap g = top - second plus discrete Laplace noise of rate eps/2
   reaches T, else -1.  Not monotone: each utility moves by up to 1 either way, so g moves by
   up to 2 (rate eps/2), and when the argmax differs g + g' <= 2: the one-sided mass is at most
   P(Z >= T - 2).  Correct T = 9: 1.72816e-4 <= 1.73e-4 (tight).  Bug: T = 8, the least T
   with P(Z >= T - 1) <= delta (a gap move of 1, as for monotone counts): P(Z >= 6) =
   5.7377e-4.  Pair: (1, 3, 0, 0, 0) vs (2, 2, 0, 0, 0); event {output = 1}: 5.74e-4 vs 0
   (about 1,700 outputs per occurrence; 115 in 200,000).
5. grid2d.  Two reals, neighbours within l2 distance 1, each snapped down to the grid of
   step g = 0.5 (index floor(2 x)), discrete Laplace noise of rate r per index, released as
   multiples of 0.5.  A move (d1, d2) in the unit l2 ball moves index i by at most
   ceil(2 |d_i|) <= 2, and both by 2 when |d1|, |d2| > 1/2: an L1 lattice move of 4, so
   r = eps/4 is exact (tight at (0.3, 0.3) -> (1.0, 1.0)).  Bug: r = eps g / (sqrt 2 Delta)
   = eps / 2.828, the continuous bound: true eps 4 r = 1.41421.  Moves along an axis, and
   pairs with both ends on the grid, move the lattice by at most 2 + 0 or 1 + 1 (loss 0.71):
   only a pair with an end inside a step, moved by 0.5 to 0.71 in both coordinates, shows it.
   Pair (0.3, 0.3) -> (1.0, 1.0); event {both coordinates >= 1.0}: 0.3451 vs 0.0839 (ln
   1.414; easy once the pair is found).
6. log_buckets.  A real answer (Delta 1) clamped to [lo, 20] and bucketed on the grid 1.5^j
   (bucket k: 1.5^k <= y < 1.5^(k+1), so bucket 0 holds [lo, 1.5)), released as the bucket
   index plus discrete Laplace noise of rate eps.  For y >= 2 = Delta / (1.5 - 1), y + 1 <=
   1.5 y, so a move of 1 crosses at most one bucket edge: correct lo = 2 (tight: 2.2 -> 3.2
   crosses 2.25).  Bug: lo = 1.2, off that grid: 1.3 -> 2.3 crosses 1.5 and 2.25, loss 2 eps
   = 1.6.  Only starts in [1.25, 1.5) moved by at least 2.25 - x show it; integer starts never
   do (1 -> 2 and 2 -> 3 cross one edge).  Event {output >= 2} at 2.3 vs 1.3: 0.6900 vs 0.1393
   (ln 1.6).
7. capped_count.  An integer count in [0, 40] (Delta 1) plus discrete Laplace noise of rate
   eps; at the cap x = 40 the noise comes from a cached sampler: |z| <= 4 as the discrete
   Laplace, beyond that z = +-(4 + G) with G >= 1 geometric of ratio p_t.  Correct: p_t =
   e^-eps, so that the law is exactly the discrete Laplace (tight: eps at every pair x,
   x + 1).  Bug: p_t = e^-(eps/2).  The tail {|z| > 4} keeps its mass (0.0049 a side), so the
   pair (40, 39) differs only inside it: {output >= 45 + j} has mass 0.0049 e^-(j/2) at 40
   against 0.0018 e^-j at 39 (loss 1 + j/2: 1.5 at j = 1, mass 0.0030 vs 0.00067; 2 at j = 2,
   0.0018 vs 0.00025), and the output 35 has mass 0.0085 at 39 against 0.0019 at 40 (loss
   1.47, the heaviest output that exceeds eps); unbounded deeper (eps inf).  Only the top of
   the range uses the sampler, and every output whose loss exceeds eps has probability
   <= 0.0085 on the side it favours.
8. snapped_gauss.  A real answer (Delta 1) rounded to the nearest multiple of g = 0.625
   (index floor(x / g + 1/2)), plus N(0, sigma^2), the sum floored to a multiple of 0.25 (a
   post-processing: no float noise bits are released).  A move of 1 moves the index by at most
   ceil(1 / g) = 2, the snapped value by at most 1.25: sigma = 1.25 / mu is exactly mu-GDP,
   and tight: every threshold event {output >= t} of the pair 0.2 -> 1.2 (snapped 0 -> 1.25)
   lies on the Gaussian trade-off curve of mu = 1.  Bug: sigma = Delta / mu = 1, as if the
   snapping kept the sensitivity: true mu 1.25.  Starts whose index moves by one step only
   (60 % of moves of 1 move it by two) show mu 0.625.  Event {output >= 0.75} at 1.2 vs 0.2:
   Phi(0.5) = 0.6915 vs Phi(-0.75) = 0.2266 (mu bound 1.25).
"""

from __future__ import annotations

import math
import zlib

import numpy as np

# ---------------------------------------------------------------------------------------------
# Shared helpers
# ---------------------------------------------------------------------------------------------


def _dlap(rng, rate, size):
    """Discrete Laplace: P(z) proportional to exp(-rate |z|), a difference of geometrics."""
    p = -math.expm1(-rate)
    return rng.geometric(p, size) - rng.geometric(p, size)


def _dlap_ge(rate, m):
    """P(Z >= m) for the discrete Laplace of `rate` (m an integer)."""
    p = math.exp(-rate)
    if m >= 1:
        return p**m / (1 + p)
    return 1 - p ** (1 - m) / (1 + p)


def _least_threshold(rate, delta, move):
    """Least integer T >= 1 with P(Z >= T - move) <= delta: a count that one neighbour holds at
    `move` (the other side cannot release it) crosses T with probability at most delta."""
    t = 1
    while _dlap_ge(rate, t - move) > delta:
        t += 1
    return t


class _Base:
    vectorised = True
    library = "held-out set 29"

    def __init__(self, broken=False):
        self.broken = broken
        self.name = f"ho29.{self.mechanism}.{'broken' if broken else 'correct'}"
        self.true_value = self.true_values[1 if broken else 0]
        self.true_text = self.true_texts[1 if broken else 0]
        self._rng = np.random.default_rng(zlib.crc32(self.name.encode()))

    def seed(self, entropy):
        self._rng = np.random.default_rng(entropy)


# ---------------------------------------------------------------------------------------------
# 1. Partition selection per user of up to 4 records: an open key set.          delta leak
# ---------------------------------------------------------------------------------------------


class UserPartitions(_Base):
    """Keys held by users of up to 4 records each, released with their noisy counts when these
    reach T.  Output: keyed, {"k3": 25, ...}.  Claim (2, 7.69e-5) per user.  Correct (T 22):
    delta at eps 2 is 7.68e-5.  Broken (T 19): eps inf at delta 7.69e-5, delta at eps 2 is
    3.44e-4; pair D vs D + 4 copies of an absent key, event: that key released."""

    mechanism = "user_partitions"
    description = "keys released with discrete-Laplace counts above a threshold, users of 4 records"
    true_values = (2.0, math.inf)
    true_texts = (
        "delta at eps 2: 7.6818e-5 (claim 7.69e-5, tight: 4 copies of a new key released w.p. that); eps at delta <= 2",
        "eps inf at delta 7.69e-5; delta at eps 2: 3.4427e-4 (4.48x): D vs D + 4 copies of an absent key, event: that key released",
    )
    epsilon, delta = 2.0, 7.69e-5
    input_kind = "dataset"
    domain = (0, 7)
    neighbours = "add_remove"
    max_contributions = 4
    output_kind = "keyed"
    value_kind = "integer"
    keys = [f"k{j}" for j in range(8)]

    def __init__(self, broken=False):
        super().__init__(broken)
        self.rate = self.epsilon / self.max_contributions
        if self.broken:
            self.threshold = _least_threshold(self.rate, self.delta, 1)  # BUG: one record per user
        else:
            self.threshold = _least_threshold(self.rate, self.delta, self.max_contributions)

    def sample(self, query, n):
        keys = np.clip(np.rint(np.asarray(query, dtype=float).ravel()), 0, 7).astype(np.int64)
        counts = np.bincount(keys, minlength=8)
        present = np.flatnonzero(counts)
        noisy = counts[present][None, :] + _dlap(self._rng, self.rate, (n, present.size))
        names = [self.keys[k] for k in present]
        return [
            {name: int(v) for name, v in zip(names, row, strict=True) if v >= self.threshold}
            for row in noisy.tolist()
        ]


# ---------------------------------------------------------------------------------------------
# 2. The mode, released when its noisy gap passes a threshold.                   delta leak
# ---------------------------------------------------------------------------------------------


class StableMode(_Base):
    """The most common record (0..9, ties to the smallest), released when its gap to the
    runner-up plus discrete Laplace noise reaches T; NaN otherwise.  Integer values declared
    as real.  Claim (1.5, 1.01e-4).  Correct (T 7): delta at eps 1.5 is 1.009e-4.  Broken
    (T 6): eps inf at delta 1.01e-4, delta at eps 1.5 is 4.52e-4; pair {1, 2} vs {1, 2, 2},
    event: output = 2."""

    mechanism = "stable_mode"
    description = "the mode, released when (top count - second count) + noise reaches T"
    true_values = (1.5, math.inf)
    true_texts = (
        "delta at eps 1.5: 1.00897e-4 (claim 1.01e-4, tight: a tie's neighbour's mode released w.p. that); eps at delta <= 1.5",
        "eps inf at delta 1.01e-4; delta at eps 1.5: 4.5219e-4 (4.48x): {1, 2} vs {1, 2, 2}, event: output = 2",
    )
    epsilon, delta = 1.5, 1.01e-4
    input_kind = "dataset"
    domain = (0, 9)
    neighbours = "add_remove"
    output_kind = "real"
    nullable = True

    def __init__(self, broken=False):
        super().__init__(broken)
        if self.broken:
            self.threshold = _least_threshold(self.epsilon, self.delta, 0)  # BUG: gap of 0
        else:
            self.threshold = _least_threshold(self.epsilon, self.delta, 1)

    def sample(self, query, n):
        values = np.clip(np.rint(np.asarray(query, dtype=float).ravel()), 0, 9).astype(np.int64)
        counts = np.bincount(values, minlength=10)
        mode = int(np.argmax(counts))
        top, second = np.sort(counts)[::-1][:2]
        noisy_gap = int(top - second) + _dlap(self._rng, self.epsilon, n)
        return np.where(noisy_gap >= self.threshold, float(mode), np.nan)


# ---------------------------------------------------------------------------------------------
# 3. Local randomized response with a budget of clear reports.                   delta leak
# ---------------------------------------------------------------------------------------------


class RRClear(_Base):
    """Local value v in 0..5: sent in the clear (output v + 6) with probability q, else
    6-ary randomized response at eps (output 0..5).  Claim (1.2, 5e-4).  Correct (q = 5e-4):
    exactly (1.2, 5e-4), tight in both.  Broken (q = 3e-3): eps inf at delta 5e-4, delta at
    eps 1.2 is 3e-3; pair v = 0 vs v = 1, event: output = 6."""

    mechanism = "rr_clear"
    description = "6-ary randomized response, a fraction q of reports sent in the clear"
    true_values = (1.2, math.inf)
    true_texts = (
        "delta at eps 1.2: 5e-4 exactly (q); eps at delta: 1.2 exactly (the RR part)",
        "eps inf at delta 5e-4; delta at eps 1.2: 3e-3 (6x): v = 0 vs v = 1, event: output = 6",
    )
    epsilon, delta = 1.2, 5e-4
    input_kind = "local"
    domain = (0, 5)
    output_kind = "integer"
    categories = 6

    def __init__(self, broken=False):
        super().__init__(broken)
        if self.broken:
            self.clear_rate = self.categories * self.delta  # BUG: delta "per category"
        else:
            self.clear_rate = self.delta

    def sample(self, query, n):
        v, k = int(query), self.categories
        keep = math.exp(self.epsilon) / (math.exp(self.epsilon) + k - 1)
        u = self._rng.random(n)
        other = self._rng.integers(0, k - 1, n)
        other = other + (other >= v)  # uniform over the k - 1 values other than v
        out = np.where(self._rng.random(n) < keep, v, other)
        return np.where(u < self.clear_rate, v + k, out).astype(np.int64)


# ---------------------------------------------------------------------------------------------
# 4. The argmax, released when its noisy gap passes a threshold.                 delta leak
# ---------------------------------------------------------------------------------------------


class GapArgmax(_Base):
    """The index of the largest of 5 integer utilities (ties to the smallest index), released
    when its gap to the runner-up plus discrete Laplace noise of rate eps/2 reaches T; -1
    otherwise.  Claim (2.4, 1.73e-4).  Correct (T 9): delta at eps 2.4 is 1.728e-4.  Broken
    (T 8): eps inf at delta 1.73e-4, delta at eps 2.4 is 5.74e-4; pair (1, 3, 0, 0, 0) vs
    (2, 2, 0, 0, 0), event: output = 1."""

    mechanism = "gap_argmax"
    description = "the argmax, released when (top - second) + noise reaches T"
    true_values = (2.4, math.inf)
    true_texts = (
        "delta at eps 2.4: 1.72816e-4 (claim 1.73e-4, tight: (1, 3, 0, 0, 0) vs (2, 2, 0, 0, 0), index 1); eps at delta <= 2.4",
        "eps inf at delta 1.73e-4; delta at eps 2.4: 5.7377e-4 (3.32x): (1, 3, 0, 0, 0) vs (2, 2, 0, 0, 0), event: output = 1",
    )
    epsilon, delta = 2.4, 1.73e-4
    input_kind = "vector"
    norm, sensitivity = "linf", 1
    integer_queries = True
    query_length = 5
    query_bounds = (0, 40)
    output_kind = "index"
    nullable = True

    def __init__(self, broken=False):
        super().__init__(broken)
        self.rate = self.epsilon / 2  # the gap moves by up to 2
        if self.broken:
            self.threshold = _least_threshold(self.rate, self.delta, 1)  # BUG: a move of 1
        else:
            self.threshold = _least_threshold(self.rate, self.delta, 2)

    def sample(self, query, n):
        u = np.rint(np.asarray(query, dtype=float).ravel()).astype(np.int64)
        best = int(np.argmax(u))
        top, second = np.sort(u)[::-1][:2]
        noisy_gap = int(top - second) + _dlap(self._rng, self.rate, n)
        return np.where(noisy_gap >= self.threshold, best, -1).astype(np.int64)


# ---------------------------------------------------------------------------------------------
# 5. Two reals snapped to a grid, l2 neighbours.                      sub-step positions
# ---------------------------------------------------------------------------------------------


class Grid2D(_Base):
    """Two answers within l2 distance 1 of their neighbours' answers, each floored to the grid
    of step 0.5, discrete Laplace noise per grid index, released as multiples of 0.5.
    Claim eps 1.  Correct (rate 1/4): eps 1.  Broken (rate 0.354): eps 1.41421; pair
    (0.3, 0.3) vs (1.0, 1.0), event: both coordinates >= 1.0."""

    mechanism = "grid2d"
    description = "a 2-vector floored to a 0.5 grid plus discrete Laplace steps"
    true_values = (1.0, 4 / (2 * math.sqrt(2)))
    true_texts = (
        "eps 1 (rate 1/4, largest lattice move 4: (0.3, 0.3) -> (1.0, 1.0))",
        "eps 1.41421 (rate 0.35355, lattice move 4): (0.3, 0.3) -> (1.0, 1.0), event: both coordinates >= 1.0",
    )
    epsilon = 1.0
    input_kind = "vector"
    norm, sensitivity = "l2", 1.0
    query_length = 2
    query_bounds = (-20.0, 20.0)
    output_kind = "real"
    output_length = 2
    step = 0.5

    def __init__(self, broken=False):
        super().__init__(broken)
        if self.broken:
            self.rate = self.epsilon * self.step / (math.sqrt(2) * self.sensitivity)  # BUG
        else:
            self.rate = self.epsilon / 4  # ceil(2 |d_i|) <= 2 in each coordinate

    def sample(self, query, n):
        x = np.clip(np.asarray(query, dtype=float).ravel()[:2], -20.0, 20.0)
        index = np.floor(x / self.step).astype(np.int64)
        return (index[None, :] + _dlap(self._rng, self.rate, (n, 2))) * self.step


# ---------------------------------------------------------------------------------------------
# 6. Log-scale buckets with a lower clamp.                             sub-step positions
# ---------------------------------------------------------------------------------------------


class LogBuckets(_Base):
    """A real answer (Delta 1) clamped to [lo, 20], bucketed on the grid 1.5^k, released as the
    bucket index plus discrete Laplace noise of rate eps.  Claim eps 0.8.  Correct (lo 2):
    eps 0.8.  Broken (lo 1.2): eps 1.6; pair 1.3 vs 2.3, event: output >= 2."""

    mechanism = "log_buckets"
    description = "log-scale bucket index (base 1.5) plus discrete Laplace noise"
    true_values = (0.8, 1.6)
    true_texts = (
        "eps 0.8 (one bucket edge per move: 2.2 -> 3.2 crosses 2.25)",
        "eps 1.6 (two edges: 1.3 -> 2.3 crosses 1.5 and 2.25), event: output >= 2",
    )
    epsilon = 0.8
    input_kind = "scalar"
    sensitivity = 1.0
    query_bounds = (0.0, 20.0)
    output_kind = "integer"
    edges = np.array([1.5**j for j in range(1, 9)])  # exact doubles: 3^j / 2^j

    def __init__(self, broken=False):
        super().__init__(broken)
        self.lower = 1.2 if self.broken else 2.0  # BUG: 1.2, where a step holds a move of 1

    def sample(self, query, n):
        y = min(max(float(query), self.lower), 20.0)
        bucket = int(np.searchsorted(self.edges, y, side="right"))
        return bucket + _dlap(self._rng, self.epsilon, n)


# ---------------------------------------------------------------------------------------------
# 7. A capped count whose cap has its own sampler.                         rare far end
# ---------------------------------------------------------------------------------------------


class CappedCount(_Base):
    """An integer count in [0, 40] plus discrete Laplace noise of rate eps; at the cap x = 40
    the noise comes from a cached sampler whose tail beyond |z| = 4 is drawn on its own.
    Claim eps 1.  Correct (tail ratio e^-1): eps 1.  Broken (tail ratio e^-1/2): eps inf;
    pair 40 vs 39, event: output >= 47 (0.0018 vs 0.00025, loss 2)."""

    mechanism = "capped_count"
    description = "count plus discrete Laplace noise; the cap's sampler draws its own tail"
    true_values = (1.0, math.inf)
    true_texts = (
        "eps 1 (exact discrete Laplace at every input; tight at every pair x, x + 1)",
        "eps inf (tail ratio grows as e^(j/2)): 40 vs 39, event: output >= 47, mass 0.0018 vs 0.00025 (loss 2)",
    )
    epsilon = 1.0
    input_kind = "scalar"
    sensitivity = 1
    integer_queries = True
    query_bounds = (0, 40)
    output_kind = "integer"
    cap, core = 40, 4

    def __init__(self, broken=False):
        super().__init__(broken)
        if self.broken:
            self.tail_rate = self.epsilon / 2  # BUG: the tail's rate halved
        else:
            self.tail_rate = self.epsilon

    def sample(self, query, n):
        x = int(min(max(round(float(query)), 0), self.cap))
        z = _dlap(self._rng, self.epsilon, n)
        if x == self.cap:  # the cached sampler: |z| <= core as is, the tail redrawn
            far = np.abs(z) > self.core
            depth = self._rng.geometric(-math.expm1(-self.tail_rate), n)
            z = np.where(far, np.sign(z) * (self.core + depth), z)
        return x + z


# ---------------------------------------------------------------------------------------------
# 8. A snapped answer plus Gaussian noise, claimed as mu-GDP.               sub-step positions
# ---------------------------------------------------------------------------------------------


class SnappedGauss(_Base):
    """A real answer (Delta 1) rounded to the nearest multiple of 0.625, plus N(0, sigma^2),
    released floored to a multiple of 0.25.  Claim 1-GDP.  Correct (sigma 1.25): mu 1.
    Broken (sigma 1): mu 1.25; pair 0.2 vs 1.2, event: output >= 0.75."""

    mechanism = "snapped_gauss"
    description = "answer snapped to a 0.625 grid, Gaussian noise, output floored to 0.25"
    true_values = (1.0, 1.25)
    true_texts = (
        "mu 1 (sigma 1.25 = the largest snapped move 2 x 0.625): 0.2 -> 1.2 (snapped 0 -> 1.25), every event output >= t on the mu = 1 curve",
        "mu 1.25 (sigma 1 = Delta): 0.2 -> 1.2 (snapped 0 -> 1.25), event output >= 0.75: mu bound 1.25",
    )
    claim = "gdp:mu=1"
    mu = 1.0
    input_kind = "scalar"
    sensitivity = 1.0
    query_bounds = (0.0, 30.0)
    output_kind = "real"
    step = 0.625  # 5/8: x / step and k * step are exact where it matters; shifts <= 2 steps

    def __init__(self, broken=False):
        super().__init__(broken)
        if self.broken:
            self.sigma = self.sensitivity / self.mu  # BUG: Delta, not the snapped move
        else:
            self.sigma = 2 * self.step / self.mu  # a move of 1 moves the grid point by <= 2 steps

    def sample(self, query, n):
        x = min(max(float(query), 0.0), 30.0)
        y = math.floor(x / self.step + 0.5) * self.step
        return np.floor((y + self.sigma * self._rng.standard_normal(n)) * 4) / 4


_CLASSES = [
    UserPartitions,
    StableMode,
    RRClear,
    GapArgmax,
    Grid2D,
    LogBuckets,
    CappedCount,
    SnappedGauss,
]

ADAPTERS = [cls(broken=b) for cls in _CLASSES for b in (False, True)]
TRUE_VALUES = {a.name: a.true_value for a in ADAPTERS}
