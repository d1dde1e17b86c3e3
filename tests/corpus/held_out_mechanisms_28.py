# ruff: noqa: SIM108, B905, E501
"""Held-out mechanisms, set 28: leaks in delta alone, losses that only part of a step shows,
tight correct twins, and vector outputs (an ordered top-k, a sparse vector with a threshold).

What this is
------------
Seven mechanisms, each as one class with a CORRECT adapter (private as claimed over its whole
declared neighbouring relation) and a BROKEN twin that differs by one bug, marked `# BUG`
beside the line the correct twin uses; `broken=True` takes it.  `ADAPTERS` holds the 14
adapters, named `ho28.<mechanism>.correct` / `ho28.<mechanism>.broken`, each with a `broken`
attribute, a `true_value` attribute (the true value of its claim's parameter: pure claims eps;
(eps, delta) claims eps at the claimed delta, math.inf where no eps holds; the zCDP claim rho)
and `true_text` (the same in words, with the neighbouring pair that shows it); `TRUE_VALUES`
collects them.  Integer noise is the discrete Laplace (a difference of geometrics) or the
discrete Gaussian (Canonne-Kamath-Steinke rejection sampler); no output carries a float noise
sample (the one continuous Gaussian is compared with a threshold and only the bit is
released; the Gumbel top-k releases indices only).

How it was written
------------------
Blind.  Of the repository the author read only README.md, docs/writing-an-adapter.md,
docs/claims.md, docs/vector-outputs.md and the docstrings / adapter declarations of
bench/held_out_mechanisms_27.py and bench/check_held_out_27.py (the file format).  Nothing
under auditor/, attacks/ or tests/ was opened, and dp-audit was neither imported nor run
except `dp-audit check --adapter tests/corpus/held_out_mechanisms_28.py:ADAPTERS` (the contract
check, no audit: 14 of 14 follow the contract).  This module imports
numpy, scipy.stats and math only.  True values come from tests/corpus/check_held_out_28.py (exact
pmfs in mpmath at 50 digits, exact enumeration; see there).

Mechanisms
----------
| # | name | input; relation | output | claim | bug | broken: truth |
|---|---|---|---|---|---|---|
| 1 | gauss_partition | dataset ints 0..9; add/remove | 10 bits (key released) | (1, 2e-4) | threshold sigma z (for a count of 0), not 1 + sigma z | eps inf; delta 6.69e-4 (3.34x) |
| 2 | truncated_sum | scalar int in +-1e6; Delta 4 | int | (2, 1e-4) | support bound B chosen so P(Z = B) <= delta (as for Delta 1), not P(Z > B - 4) <= delta | eps inf; delta 8.09e-4 (8.09x) |
| 3 | fine_grid | scalar real in +-1000; Delta 1 | real (multiples of 0.4) | eps 0.9 | steps per Delta int(1/0.4) = 2, not ceil = 3 | eps 1.35 |
| 4 | dgauss_histogram | dataset ints 0..5; replace | 6 ints | zCDP rho 0.25 | sigma^2 for L2 sensitivity 1 (one count per record), not sqrt 2 | rho 0.5 |
| 5 | gumbel_top2 | 6 reals in +-1000; linf 1 (not monotone) | ordered index pair | eps 1.2 | rate eps/(k Delta) (the monotone one), not eps/(2 k Delta) | eps 2.4 (a sup) |
| 6 | svt_first | 8 reals in [0, 20]; linf 1 | first index above 10, or -1 | eps 1 | threshold noise drawn afresh for every query | eps 1.95961 |
| 7 | local_buckets | local 0..8 | int | eps 1.6 | bucket floor(v/3 + 1/2) (0..3), not v // 3 (0..2), range still taken as 2 | eps 2.4 |

1. gauss_partition.  Partition selection: each record is one key in 0..9; a key with count
   c >= 1 is released (bit 1) when c + sigma N(0, 1) > T; keys of count 0 never are.  sigma
   is the analytic Gaussian's (Balle and Wang 2018) for (1, 2e-4) at Delta 1 (3.009547, raised
   by 1e-9 of itself), so every pair of counts c -> c + 1 with c >= 1 is a thresholded
   Gaussian within (1, 2e-4); T = 1 + sigma z_{1 - delta} (+ 1e-9) = 11.654: a new key (count
   0 -> 1) is released w.p. delta (tight: delta at eps 1 is 2e-4; eps at delta 2e-4 is
   0.99938).  Bug: T = sigma z_{1 - delta} = 10.654, the threshold for a key of count 0 (the
   new key's count of 1 forgotten): the new key is released w.p. Q(z - 1/sigma) = 6.69e-4.
   Pair: any dataset vs the same plus a record of an absent key; event {that key's bit is 1}:
   6.69e-4 vs 0 (134 outputs in 200,000 vs none).
2. truncated_sum.  An integer sum whose records lie in 0..4 (Delta 4) plus truncated discrete
   Laplace noise: P(z) proportional to exp(-|z| eps/4) on -B..B.  Inside both supports the
   ratio is at most e^eps; the outputs x + B + 1 .. x + B + 4 only x + 4 produces, mass
   P(Z >= B - 3): correct B = 21, the smallest with that mass <= 1e-4 (6.64e-5; eps at delta
   1e-4 is 1.99995).  Bug: B = 16, the smallest with P(Z = B) <= 1e-4 (the bound for a move of
   1): mass P(Z >= 13) = 8.09e-4.  Pair: 0 -> 4; event {output >= 17} (or <= -17 the other
   way): 8.09e-4 vs 0 (162 in 200,000 vs none).  Moves of 1, 2, 3 leak 8.2e-5, 2.2e-4, 4.4e-4.
3. fine_grid.  A real answer (Delta 1) snapped to the nearest multiple of g = 0.4 (index
   k = floor(x / 0.4 + 1/2)), plus discrete Laplace noise on the index, released as k * 0.4.
   A move of at most 1 moves k by 2 or 3 depending on where x sits between grid points (3 when
   the move crosses three of the boundaries 0.2 + 0.4 j), so the rate is eps / ceil(1 / g) =
   0.3 per step: exactly eps 0.9 at a move that crosses three boundaries (tight).  Bug: steps
   int(1 / g) = 2, rate 0.45: a move crossing three boundaries costs 1.35, one crossing two
   0.9.  Pair: 0.19 -> 1.19 (k 0 -> 3); event {output >= 1.2}: 0.6106 vs 0.1583 (ln ratio
   1.35; the correct twin 0.5744 vs 0.2336, ln 0.9).  From 0.3 -> 1.3 (k 1 -> 3) the broken twin
   loses only 0.9: only half of the starting positions inside a step show the bug.
4. dgauss_histogram.  Counts of 6 categories under replace-one (two counts move, by -1 and +1:
   L2 sensitivity sqrt 2), each plus discrete Gaussian noise N_Z(0, sigma^2).  zCDP rho 0.25:
   sigma^2 = Delta_2^2 / (2 rho) = 4.  Bug: sigma^2 = 1 / (2 rho) = 2 (the per-coordinate
   sensitivity 1).  For integer shifts D_a of the discrete Gaussian is a / (2 sigma^2) +
   ln(theta(1 - a) / theta(0)) / (a - 1) with theta(c) = sum_z exp(-(z - c)^2 / (2 sigma^2)) <=
   theta(0), equal at integer a: sup_a D_a / a = 1 / (2 sigma^2) exactly, per moved count.
   True rho: 0.25 (correct, tight at every integer order) and 0.5 (broken).  Pair: one record
   replaced, category 0 -> 1, e.g. counts (1, 0, ...) -> (0, 1, ...); event {o_0 - o_1 >= 7}
   (a level set of the privacy loss): 2.73e-3 vs 7.57e-5, whose Bernoulli rho bound is 0.42
   (546 vs 15 outputs in 200,000); the correct twin's best event of mass >= 1e-3 bounds 0.21.
5. gumbel_top2.  Ordered top 2 of 6 utilities (L-inf neighbours: every utility moves by at
   most 1, in any direction), Gumbel-max without replacement = two exponential mechanisms in
   sequence, each at rate eps / (2 k Delta) = 0.3: eps 1.2 (each step's ratio e^{rate (u'_i -
   u_i)} W / W' is at most e^{2 rate}; approached, not attained).  Bug: rate eps / (k Delta) =
   0.6, the rate for monotone (counting) utilities, which this relation does not promise.
   True eps 2.4 as a sup.  Pair: u = (0, 0, 0, 0, 0, 0) -> (1, 1, -1, -1, -1, -1); event
   {output (0, 1)}: 0.1415 vs 0.0333 (ln ratio 1.446; the correct twin 0.0746 vs 0.0333,
   0.806).  From (0, 0, 3, 3, 3, 3) -> (1, 1, 2, 2, 2, 2): ln ratio 2.149 on an output of mass
   0.013 (the correct twin 0.997); the loss tends to 2.4 as the event's mass falls.
6. svt_first.  AboveThreshold over 8 queries (each clamped to [0, 20] and floored to an
   integer: 1-Lipschitz), threshold 10: rho ~ DLap(rate eps/2), nu_i ~ DLap(rate eps/4);
   release the first i with q_i + nu_i >= 10 + rho, or -1.  The shift proof (rho + 1,
   nu_i + 2) gives exactly eps/2 + 2 eps/4 = eps on the integers (not tight here: the largest
   loss over the pairs checked is 0.839).  Bug: rho drawn afresh for each query (shape (n, 8)
   instead of (n, 1)): the comparisons become independent, each with loss up to 0.245 at a
   move of 1, and they add up over the 8 queries.  True eps 1.95961 (the sup over the bounded
   integer queries, at every query 19 -> 20, output -1).  A pair with mass: every query
   9 -> 10, event {-1}: 7.50e-3 vs 1.92e-3 (ln ratio 1.363; 1,500 vs 384 in 200,000); the
   correct twin at the same pair: 0.0564 vs 0.0345, ln ratio 0.493.
7. local_buckets.  A local value v in 0..8, bucketed into width-3 buckets b = v // 3 (0..2),
   released as b + DLap(rate eps / 2): the buckets lie at most 2 apart, eps 1.6 exactly (tight:
   v = 0 vs v = 8, output >= 2: 0.690 vs 0.139).  Bug: b = floor(v / 3 + 1/2), rounding to the
   nearest bucket: v = 8 alone gets b = 3 (the buckets become {0, 1}, {2, 3, 4}, {5, 6, 7},
   {8}) while the rate still assumes a range of 2: true eps 3 * 0.8 = 2.4.  Pair: v = 0 vs
   v = 8; event {output >= 3}: 0.690 vs 0.0626 (ln ratio 2.4).

Correct twins are tight where the design allows: 1 in delta (exactly 2e-4 at eps 1), 3, 4 and
7 exactly (3 and 7 pointwise in the noise's tails, 4 at every integer Renyi order), 5
approached in a limit (1.17 at mass 5e-4), 2 at 0.66x its delta (B is an integer), 6 loose
(0.84 of 1 on the pairs checked; the proof's bound is not reached on 8 queries).

Effect sizes at 200,000 outputs per side (broken twins): 1 and 2 release an output one side
never produces, w.p. 6.69e-4 and 8.09e-4 (about 134 and 162 outputs vs none; claimed delta
2e-4 and 1e-4); 3 an eps gap of 1.35 vs 0.9 on an event of 0.61 vs 0.16, but only from half
of the positions inside a grid step; 4 rho 0.5 vs 0.25 (an event of 2.7e-3 vs 7.6e-5 bounds
0.42); 5 ln ratio 1.45 vs 1.2 on an event of 0.14 vs 0.033, 2.15 on one of 0.013; 6 ln ratio
1.36 vs 1 on an event of 7.5e-3 vs 1.9e-3, only near the threshold with every query moved
the same way; 7 eps 2.4 vs 1.6 on outputs of mass 0.69 / 0.063, only between v = 8 and the
low values.

One Clopper-Pearson test on the stated event at 200,000 outputs per side, alpha 0.05, at the
exact expected counts (tests/corpus/check_held_out_28.py, Part 3; no multiplicity, the event chosen
knowing the answer): 1 delta >= 5.1e-4 (claim 2e-4), 2 delta >= 5.5e-4 (1e-4), 3 eps >= 1.34
(0.9), 4 rho >= 0.30 (0.25), 5 eps >= 1.41 and, at (0, 0, 3, 3, 3, 3), 2.00 (1.2), 6 eps >= 1.21
(1), 7 eps >= 2.38 (1.6); the correct twins on the same events stay below their claims.

Expected difficulty (a guess, not measured): 1 and 2 for the budget (a one-sided output of
about 7e-4 and 8e-4); 3 for the pairs (half of the starts, and a full move needed); 6 (the
event -1 near the threshold with all eight queries moved up); 4 (a zCDP claim, 2x); 5 and 7
the easiest.

Query bounds: 2, 3 and 5 clamp their queries to the declared `query_bounds` (clamping is
1-Lipschitz, so the claims hold for every query): 2 to keep x + noise inside int64, 3 so that
x / 0.4 is computed to 1e-12 (at 2^50 the rounding of the quotient alone could move the index
by 4), 5 so that u * rate keeps the Gumbel noise's low bits.

Floating point: no output carries a float noise sample.  The Gaussian in 1 and the Gumbel
noise in 5 are numpy's float samplers compared with thresholds or each other; their laws
differ from the ideal ones by rounding of order 1e-16, which the exact check ignores and no
sampling budget resolves.  Likewise the discrete samplers: numpy's geometric, and the discrete
Gaussian's acceptance probability computed in doubles (it underflows to 0 beyond |z| = 77 at
sigma^2 = 4, where the ideal mass is below e^-745).

Check: python tests/corpus/check_held_out_28.py (the table as run is in its docstring).
Run: dp-audit run --adapter tests/corpus/held_out_mechanisms_28.py:ADAPTERS --out held-out-28
(not run by the author).
"""

from __future__ import annotations

import math

import numpy as np
from scipy import stats

# ---------------------------------------------------------------------------------------------
# Shared helpers
# ---------------------------------------------------------------------------------------------


def _dlap(rng, rate, size):
    """Discrete Laplace: P(z) proportional to exp(-rate |z|), a difference of geometrics."""
    p = -math.expm1(-rate)
    return rng.geometric(p, size) - rng.geometric(p, size)


def _dgauss(rng, sigma2, size):
    """Discrete Gaussian N_Z(0, sigma2): P(z) proportional to exp(-z^2 / (2 sigma2)), by
    rejection from a discrete Laplace of scale t = floor(sigma) + 1 (Canonne, Kamath and
    Steinke 2020, Algorithm 3), vectorised."""
    t = math.floor(math.sqrt(sigma2)) + 1
    out = np.empty(size, dtype=np.int64).ravel()
    todo = np.arange(out.size)
    while todo.size:
        y = _dlap(rng, 1.0 / t, todo.size)
        accept = rng.random(todo.size) < np.exp(-((np.abs(y) - sigma2 / t) ** 2) / (2 * sigma2))
        out[todo[accept]] = y[accept]
        todo = todo[~accept]
    return out.reshape(size)


def _analytic_gaussian_sigma(eps, delta, sens=1.0):
    """Smallest sigma with Phi(D / (2 s) - eps s / D) - e^eps Phi(-D / (2 s) - eps s / D) <= delta
    (the exact delta of the Gaussian mechanism), by bisection."""

    def dl(s):
        a, b = sens / (2 * s), eps * s / sens
        return stats.norm.cdf(a - b) - math.exp(eps) * stats.norm.cdf(-a - b)

    lo, hi = 1e-3, 1e3
    for _ in range(200):
        mid = (lo + hi) / 2
        if dl(mid) > delta:
            lo = mid
        else:
            hi = mid
    return hi


class _Base:
    vectorised = True
    library = "held-out set 28"

    def __init__(self, broken=False):
        self.broken = broken
        self.name = f"ho28.{self.mechanism}.{'broken' if broken else 'correct'}"
        self.true_value = self.true_values[1 if broken else 0]
        self.true_text = self.true_texts[1 if broken else 0]
        self._rng = np.random.default_rng()

    def seed(self, entropy):
        self._rng = np.random.default_rng(entropy)


# ---------------------------------------------------------------------------------------------
# 1. Gaussian partition selection: which keys are released.                    delta leak
# ---------------------------------------------------------------------------------------------


class GaussPartition(_Base):
    """Partition selection: a key (value 0..9) with count c >= 1 is released when
    c + N(0, sigma^2) > T.  Output: 10 bits, bit j = key j released.  Claim (1, 2e-4)."""

    mechanism = "gauss_partition"
    description = "keys released when their Gaussian-noised count passes a threshold"
    true_values = (0.99938, math.inf)
    true_texts = (
        "eps 0.99938 at delta 2e-4; delta at eps 1: 2e-4 (tight: a new key released w.p. delta)",
        "eps inf at delta 2e-4; delta at eps 1: 6.69e-4 (a record of an absent key added; event: that key's bit)",
    )
    epsilon, delta = 1.0, 2e-4
    input_kind = "dataset"
    domain = (0, 9)
    neighbours = "add_remove"
    output_kind = "boolean"
    output_length = 10

    def __init__(self, broken=False):
        super().__init__(broken)
        self.sigma = _analytic_gaussian_sigma(self.epsilon, self.delta) * (1 + 1e-9)
        z = float(stats.norm.isf(self.delta))
        if self.broken:
            self.threshold = self.sigma * z  # BUG: the threshold for a count of 0
        else:
            self.threshold = 1.0 + self.sigma * z + 1e-9

    def sample(self, query, n):
        keys = np.clip(np.rint(np.asarray(query, dtype=float).ravel()), 0, 9).astype(np.int64)
        counts = np.bincount(keys, minlength=10).astype(float)
        noisy = counts[None, :] + self.sigma * self._rng.standard_normal((n, 10))
        return ((counts[None, :] > 0) & (noisy > self.threshold)).astype(np.int8)


# ---------------------------------------------------------------------------------------------
# 2. A sum with truncated discrete Laplace noise.                              delta leak
# ---------------------------------------------------------------------------------------------


def _trunc_dlap_tail(rate, bound, k):
    """P(Z >= k) for Z truncated discrete Laplace on -bound..bound (0 <= k <= bound)."""
    z = np.arange(-bound, bound + 1)
    w = np.exp(-rate * np.abs(z))
    return float(w[z >= k].sum() / w.sum())


class TruncatedSum(_Base):
    """A sum of records in 0..4 (given as the true sum: Delta 4) plus discrete Laplace noise of
    rate eps/4 truncated to -B..B.  Output: the noisy sum, an integer.  Claim (2, 1e-4)."""

    mechanism = "truncated_sum"
    description = "integer sum plus truncated discrete Laplace noise (bounded support)"
    true_values = (1.99995, math.inf)
    true_texts = (
        "eps 1.99995 at delta 1e-4; delta at eps 2: 6.64e-5 (B = 21)",
        "eps inf at delta 1e-4; delta at eps 2: 8.09e-4 (B = 16; pair 0 -> 4, event output >= 17)",
    )
    epsilon, delta = 2.0, 1e-4
    family = "additive"
    sensitivity = 4
    integer_queries = True
    query_bounds = (-(10**6), 10**6)  # clamped (1-Lipschitz): keeps x + noise inside int64

    def __init__(self, broken=False):
        super().__init__(broken)
        self.rate = self.epsilon / self.sensitivity
        b = 1
        if self.broken:
            while _trunc_dlap_tail(self.rate, b, b) > self.delta:  # BUG: P(Z = B), a move of 1
                b += 1
        else:
            while _trunc_dlap_tail(self.rate, b, b - self.sensitivity + 1) > self.delta:
                b += 1
        self.bound = b  # correct 21, broken 16

    def sample(self, query, n):
        x = int(round(min(max(float(query), -1e6), 1e6)))
        out = np.empty(n, dtype=np.int64)
        todo = np.arange(n)
        while todo.size:
            z = _dlap(self._rng, self.rate, todo.size)
            ok = np.abs(z) <= self.bound
            out[todo[ok]] = z[ok]
            todo = todo[~ok]
        return x + out


# ---------------------------------------------------------------------------------------------
# 3. Snapping to a grid finer than Delta.                               part of a step
# ---------------------------------------------------------------------------------------------


class FineGrid(_Base):
    """A real answer (Delta 1) snapped to the nearest multiple of 0.4, plus discrete Laplace
    noise on the grid index, released as index * 0.4.  Claim eps 0.9."""

    mechanism = "fine_grid"
    description = "snap to a 0.4 grid, then integer noise in grid steps"
    true_values = (0.9, 1.35)
    true_texts = (
        "eps 0.9 (a move of 1 moves the index by at most 3; 3 steps at 0.3)",
        "eps 1.35 (rate 0.45 per step; pair 0.19 -> 1.19 moves the index 0 -> 3; event output >= 1.2)",
    )
    epsilon = 0.9
    family = "additive"
    sensitivity = 1.0
    grid = 0.4
    query_bounds = (-1000.0, 1000.0)  # clamped (1-Lipschitz): x / 0.4 stays exact to 1e-12

    def __init__(self, broken=False):
        super().__init__(broken)
        if self.broken:
            self.steps = int(self.sensitivity / self.grid)  # BUG: 2, a move can cross 3
        else:
            self.steps = math.ceil(self.sensitivity / self.grid)  # 3
        self.rate = self.epsilon / self.steps

    def sample(self, query, n):
        x = min(max(float(query), -1000.0), 1000.0)
        k = math.floor(x / self.grid + 0.5)
        return (k + _dlap(self._rng, self.rate, n)) * self.grid


# ---------------------------------------------------------------------------------------------
# 4. Histogram with discrete Gaussian noise, zCDP, replace-one.            per-coordinate Delta
# ---------------------------------------------------------------------------------------------


class DGaussHistogram(_Base):
    """Counts of 6 categories (records 0..5, one record replaced) plus discrete Gaussian noise.
    Claim: rho-zCDP with rho = 0.25."""

    mechanism = "dgauss_histogram"
    description = "histogram plus discrete Gaussian noise, zCDP"
    true_values = (0.25, 0.5)
    true_texts = (
        "rho 0.25 (sigma^2 4, two counts move by 1: 2 / (2 * 4))",
        "rho 0.5 (sigma^2 2; a record replaced 0 -> 1: 2 / (2 * 2))",
    )
    claim = "zcdp:rho=0.25"
    rho = 0.25
    input_kind = "dataset"
    domain = (0, 5)
    neighbours = "replace"
    output_kind = "integer"
    output_length = 6

    def __init__(self, broken=False):
        super().__init__(broken)
        if self.broken:
            self.sigma2 = 1.0 / (2 * self.rho)  # BUG: L2 sensitivity 1 (one count per record)
        else:
            self.sigma2 = 2.0 / (2 * self.rho)  # L2 sensitivity sqrt(2) under replace

    def sample(self, query, n):
        cats = np.clip(np.rint(np.asarray(query, dtype=float).ravel()), 0, 5).astype(np.int64)
        counts = np.bincount(cats, minlength=6)
        return counts[None, :] + _dgauss(self._rng, self.sigma2, (n, 6))


# ---------------------------------------------------------------------------------------------
# 5. Ordered top-2 by Gumbel noise (peeling exponential mechanism).           vector, index set
# ---------------------------------------------------------------------------------------------


class GumbelTop2(_Base):
    """The two largest of u * rate + Gumbel noise, in order: two exponential mechanisms without
    replacement.  Utilities move by at most 1 each, in any direction (L-inf, not monotone).
    Claim eps 1.2."""

    mechanism = "gumbel_top2"
    description = "ordered top-2 by Gumbel-max (peeling exponential mechanism)"
    true_values = (1.2, 2.4)
    true_texts = (
        "eps 1.2 (two steps of 2 * 0.3; approached, not attained)",
        "eps 2.4 as a sup (rate 0.6 per step); pair (0,)*6 -> (1, 1, -1, -1, -1, -1), event output (0, 1): ln ratio 1.446",
    )
    epsilon = 1.2
    input_kind = "vector"
    norm = "linf"
    sensitivity = 1.0
    query_length = 6
    query_bounds = (-1000.0, 1000.0)  # clamped (1-Lipschitz): u * rate keeps the Gumbel's bits
    output_kind = "index_set"
    output_length = 2
    ordered = True
    k = 2

    def __init__(self, broken=False):
        super().__init__(broken)
        if self.broken:
            self.rate = self.epsilon / (self.k * self.sensitivity)  # BUG: the monotone rate
        else:
            self.rate = self.epsilon / (2 * self.k * self.sensitivity)

    def sample(self, query, n):
        u = np.clip(np.asarray(query, dtype=float).ravel(), -1000.0, 1000.0)
        scores = u[None, :] * self.rate + self._rng.gumbel(size=(n, u.size))
        order = np.argsort(-scores, axis=1, kind="stable")
        return order[:, : self.k]


# ---------------------------------------------------------------------------------------------
# 6. AboveThreshold over 8 queries, first index above.                   vector, nullable index
# ---------------------------------------------------------------------------------------------


class SVTFirst(_Base):
    """AboveThreshold: the first of 8 queries (clamped to [0, 20], floored) whose noisy value
    reaches the noisy threshold 10, or -1.  Discrete Laplace noise: threshold rate eps/2,
    queries rate eps/4.  Claim eps 1."""

    mechanism = "svt_first"
    description = "sparse vector (AboveThreshold), index of the first query above 10"
    true_values = (1.0, 1.9596)
    true_texts = (
        "eps 1 (shift proof: threshold + 1 at eps/2, the answer's noise + 2 at eps/4 each)",
        "eps 1.9596 (the sup over queries in [0, 20]: every query 19 -> 20, output -1); with mass: every query 9 -> 10, output -1, ln ratio 1.363",
    )
    epsilon = 1.0
    input_kind = "vector"
    norm = "linf"
    sensitivity = 1
    integer_queries = True
    query_length = 8
    query_bounds = (0, 20)
    output_kind = "index"
    nullable = True
    threshold = 10

    def sample(self, query, n):
        q = np.floor(np.clip(np.asarray(query, dtype=float).ravel(), 0, 20)).astype(np.int64)
        m = q.size
        if self.broken:
            rho = _dlap(self._rng, self.epsilon / 2, (n, m))  # BUG: a fresh threshold per query
        else:
            rho = _dlap(self._rng, self.epsilon / 2, (n, 1))
        nu = _dlap(self._rng, self.epsilon / 4, (n, m))
        above = q[None, :] + nu >= self.threshold + rho
        first = np.argmax(above, axis=1)
        return np.where(above.any(axis=1), first, -1)


# ---------------------------------------------------------------------------------------------
# 7. Local value bucketed, then integer noise.                                 local, buckets
# ---------------------------------------------------------------------------------------------


class LocalBuckets(_Base):
    """One person's value v in 0..8, bucketed by width 3, released as bucket + DLap(eps/2)
    (buckets assumed 0..2, two apart at most).  Claim eps 1.6."""

    mechanism = "local_buckets"
    description = "local value in width-3 buckets plus discrete Laplace noise"
    true_values = (1.6, 2.4)
    true_texts = (
        "eps 1.6 (buckets 0..2, rate 0.8; tight at v = 0 vs 8)",
        "eps 2.4 (buckets 0..3 by rounding; v = 0 vs 8, event output >= 3)",
    )
    epsilon = 1.6
    input_kind = "local"
    domain = (0, 8)
    output_kind = "integer"
    width = 3

    def __init__(self, broken=False):
        super().__init__(broken)
        self.rate = self.epsilon / ((self.domain[1] - self.domain[0]) // self.width)

    def sample(self, query, n):
        v = int(query)
        if self.broken:
            b = math.floor(v / self.width + 0.5)  # BUG: nearest bucket: 0..3
        else:
            b = v // self.width  # 0..2
        return b + _dlap(self._rng, self.rate, n)


_CLASSES = [
    GaussPartition,
    TruncatedSum,
    FineGrid,
    DGaussHistogram,
    GumbelTop2,
    SVTFirst,
    LocalBuckets,
]

ADAPTERS = [cls(broken=b) for cls in _CLASSES for b in (False, True)]
TRUE_VALUES = {a.name: a.true_value for a in ADAPTERS}
