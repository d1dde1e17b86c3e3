# ruff: noqa: SIM108, B905, E501
"""Held-out mechanisms, set 26: delta-only leaks (vectors, selection, local), moves shorter
than the sensitivity or off the axes, and correct mechanisms that look suspicious.

What this is
------------
Ten mechanisms, each as one class with a CORRECT adapter (private as claimed under its
declared neighbouring relation, with the claim set to the exact true value, rounded up at the
fifth decimal where it is not a round number) and a BROKEN twin that differs by one bug,
marked `# BUG` beside the line the correct twin uses; `broken=True` takes it.  `ADAPTERS` holds
the 20 adapters, named `ho26.<mechanism>.correct` / `ho26.<mechanism>.broken`, each with a
`broken` attribute; `TRUE_VALUES` gives each one's true value of its claim's parameter (pure
claims: eps; (eps, delta) claims: eps at the claimed delta, math.inf where no eps holds).
Every output is discrete (integers, bits, indices; NaN for none in one local randomizer):
integer noise is the discrete Laplace (a difference of geometrics), selection is Gumbel-max,
so there are no float artefacts to find.

How it was written
------------------
Blind.  Of the repository the author read only README.md, docs/writing-an-adapter.md,
docs/vector-outputs.md, docs/claims.md, and tests/corpus/held_out_mechanisms_25.py with
tests/corpus/check_held_out_25.py (the file format) and the table of set 24 (to avoid its
mechanisms).  Nothing under auditor/, attacks/ or the certify/search code was opened and
dp-audit was neither imported nor run.  This module imports numpy and math only.  True
values come from tests/corpus/check_held_out_26.py (exact pmfs, exhaustive enumeration of
neighbouring pairs; see there).

Themes
------
(a) leaks in delta alone, delta between 1e-4 and 2e-3, broken twins 3.2x - 4.2x the claimed
    delta at the claimed eps: which counts exceed a threshold under bounded noise (1), a top-2
    set released past a noisy gap test (2), a windowed exponential mechanism (3, selection),
    a local geometric randomizer that answers none outside a window (4);
(b) moves shorter than the sensitivity or off the axes: randomized rounding makes a short
    move cost more than its share (ln(1 + m (e^r - 1)) > r m), so the worst move is spread
    over 4 coordinates by 1/4 under L1 (5), half a rounding step in a scalar (6), and
    (1, 1, 1)/sqrt(3) under L2 (7, the rate normalised by the L1 bound, the wrong norm);
(c) correct but suspicious, and tight: partition selection keeping a 1-user partition w.p.
    exactly delta (8), a noisy max at rate eps (no factor 1/2) beside a none threshold, under
    monotone counts (9), a local randomizer revealing its input w.p. exactly delta (10);
    broken twins 3.3x and 4.0x in delta, 2x in eps.

Input kinds: vector L-inf (1, 2, 9), vector L1 (5, 8), vector L2 (7), selection (3), scalar
(6), local (4, 10).  Outputs: bits (1, 8), integer pairs (2), an index (3), an index or none
(9), integers with none (4), integer vectors (5, 7, 10), integers (6).

Mechanisms
----------
| # | name | input; relation | output | claim | bug | broken: truth |
|---|---|---|---|---|---|---|
| 1 | exceed_bits_truncated | 3 int counts; linf 1 | 3 bits | (1.04687, 9.6e-4) | noise clipped to [-T, T], not resampled | eps inf; delta 3.23e-3 (3.36x) |
| 2 | top2_release_test | 4 int counts; linf 1 | 2 indices or (-1, -1) | (1.49942, 4e-4) | release bar's tail solved at gap 0, not 2 | eps inf; delta 1.68e-3 (4.21x) |
| 3 | windowed_exponential | selection, 3 utilities; Delta 1 | index | (1.45484, 1e-3) | window W without the 2 Delta the gap moves by | eps inf; delta 3.40e-3 (3.40x) |
| 4 | local_windowed_geometric | local {0, 1} | integer or none | (1.2, 4.1e-4) | `abs(z) < T` for `<= T` | eps inf; delta 1.33e-3 (3.25x) |
| 5 | spread_rounded_geometric | 4 reals; l1 1 | 4 ints | eps 1 | rate eps (axis moves) for randomized rounding | eps 1.42950 |
| 6 | coarse_rounded_geometric | scalar real; Delta 1 | even ints | eps 1 | rate 2 eps: a half step taken to cost r / 2 | eps 1.43378 |
| 7 | l2_rounded_geometric | 3 reals; l2 1 | 3 ints | eps 1 | rate eps / sqrt(3), normalised by the L1 bound | eps 1.11695 |
| 8 | vector_partition_selection | 4 int counts; l1 1 | 4 bits | (1.2, 2e-4) | p(n) = e^eps (p(n-1) + delta) | eps inf; delta 6.64e-4 (3.32x) |
| 9 | monotone_max_with_none | 4 counts in [0, 20]; linf 1 (correct: monotone) | index or -1 | eps 1 | the same rate with scores not monotone | eps 1.99997 (2 as bounds widen) |
| 10 | repeated_rr_with_reveal | local 0..3 | 4 ints | (2, 1e-3) | reveal drawn per report, not once | eps inf; delta 3.99e-3 (3.99x) |

1. exceed_bits_truncated.  bit i = [c_i + Z_i >= 20], Z_i discrete Laplace of rate 0.35
   truncated to |Z| <= 18 and renormalised.  Interior loss <= 3 x 0.35; near the edges of
   the noise the bit ratios grow (P(Z >= 17) / P(Z >= 18) = 1 + e^0.35) and a count moving
   from 1 to 2 makes a bit possible (mass P(Z = 18) each, 3 coordinates at once): exhaustive
   over every triple of per-coordinate moves (counts 0..40), delta(1.04687) = 9.59e-4.  Bug:
   np.clip on untruncated noise piles P(Z >= 18) on the edge: 1/(1 - e^-0.35) = 3.4x.
2. top2_release_test.  Top-2 set (ties to the lower index), released when
   g + Z >= tau, g = 2nd minus 3rd largest, Z discrete Laplace of rate 0.75 (eps0 = 1.5).
   The set can flip only from g <= 2: tau = 2 + k, P(Z >= k) <= delta (tau = 12).  Exhaustive
   over counts 0..16 and every L-inf move: eps at 4e-4 is 1.49941.  Bug: tau = k (gap 0):
   (1, 1, 3, 1) -> (0, 0, 2, 2) flips the set at g = 2, e^1.5 x the mass.
3. windowed_exponential.  Gumbel-max with weights exp(0.75 u) over the candidates within W
   of the max.  A candidate at gap g <= W is out of the neighbour's window if g > W - 2; two
   can leave at once: W = ceil4((2/1.5) ln(2000)) + 2 = 12.25.  Exhaustive over utilities
   (0, a, b), a, b in [-15.25, 15.25] on a grid of 1/4, and every L-inf move on that grid:
   eps at 1e-3 is 1.45484.  Bug: W = 10.25 (the gap taken as fixed): (0, 8.5, 0) ->
   (-1, 9.5, -1) drops two candidates of mass 1.7e-3 each.
4. local_windowed_geometric.  v + Z (rate 1.2) if |Z| <= T = 6, else none (NaN); T the
   smallest with P(Z = T) <= delta (P(Z = 6) = 4.01e-4).  Bug: the test `< T`: window 5,
   P(Z = 5) = 1.33e-3.
5. spread_rounded_geometric.  floor(x_i) + Bernoulli(frac x_i) + Z_i, rate r with
   e^r = 1 + 4 (e^{1/4} - 1) (r = 0.759): a move of m in one entry costs at most
   ln(1 + m (e^r - 1)) (checked over every start in the step and every move on a grid of
   1/16, crossings included), concave, so under L1 1 the worst is 1/4 in each of the 4
   entries: eps 1 exactly.  Bug: r = eps: axis moves cost 1, the spread move 1.4295.
6. coarse_rounded_geometric.  x / 2 randomized-rounded to k, output 2 (k + Z): a move of 1 is
   half a step, cost ln(1 + (e^r - 1)/2); e^r = 1 + 2 (e - 1).  Bug: r = 2 (linear in the
   step): 1.43378.
7. l2_rounded_geometric.  As 5, 3 entries, L2 1: the worst move (1, 1, 1)/sqrt(3) costs
   3 ln(1 + (e^r - 1)/sqrt(3)); e^r = 1 + sqrt(3)(e^{1/3} - 1).  Bug: r = 1/sqrt(3) (the
   Laplace rule, normalised by the L1 bound of an L2 move): 1.11695.
8. vector_partition_selection.  Partition i kept w.p. p(c_i), p(0) = 0,
   p(n) = min(1, e^eps p(n-1) + delta, 1 - e^-eps (1 - p(n-1) - delta)); eps 1.2,
   delta 2e-4: exactly (eps, delta) on every step c -> c + 1 (one user, one partition).
   Bug: e^eps (p(n-1) + delta): delta x e^1.2 on each step.
9. monotone_max_with_none.  Gumbel-max with weights exp(u) over 4 counts and a none of
   utility 10.  Under monotone moves (all up or all down by <= 1) the numerator and the
   normaliser cannot both move against an outcome: eps 1, the sup approached where the
   counts dominate none (0.99999999 within bounds 0..20, enumerated on monotone moves of
   1/2).  Broken: the same code with `monotone = False` (scores), as a library offering it
   for general utilities: (20, 20, 20, 0) -> (19, 19, 19, 1), 1.99997.
10. repeated_rr_with_reveal.  With probability delta all 4 reports are v + 4; else 4
   independent 4-ary randomized responses at eps/4: exactly (2, 1e-3).  Bug: a reveal drawn
   per report: 1 - (1 - delta)^4 = 3.99e-3.

Expected difficulty (a guess, not measured): 7 (1.12x, and only off the axes) and 9 (the
factor 2 shows only where the counts move apart) look hardest among the pure ones; among the
delta leaks 1 (the leaking counts sit 18 below the threshold, far from where the bits
respond) and 3 (a candidate 8.5 below the maximum; three quarters of the pairs that move the
window do not leak) look hardest; 10 (3.99x on a plainly distinct output) the easiest.

Check (python tests/corpus/check_held_out_26.py, about 40 s; output as run)
--------------------------------------------------------------------

    | mechanism | claim | truth | worst pair | label |
    |---|---|---|---|---|
    | ho26.exceed_bits_truncated.correct | (1.04687, 0.00096) | eps@delta 1.04687; delta@eps 0.0009591 (1.00x) | eps: c=19->20; c=19->20; c=20->19; delta: c=19->20; c=19->20; c=20->19 | correct |
    | ho26.exceed_bits_truncated.broken | (1.04687, 0.00096) | eps@delta inf; delta@eps 0.003228 (3.36x) | delta: c=2->1; c=2->1; c=2->1 | broken |
    | ho26.top2_release_test.correct | (1.49942, 0.0004) | eps@delta 1.49941; delta@eps 0.0003938 (0.98x); tau = 12 | eps: (1, 1, 14, 12) -> (0, 0, 13, 13); delta: (1, 1, 14, 12) -> (0, 0, 13, 13) | correct |
    | ho26.top2_release_test.broken | (1.49942, 0.0004) | eps@delta inf; delta@eps 0.001684 (4.21x); tau = 10 | eps: (1, 1, 2, 1) -> (0, 0, 1, 1); delta: (1, 1, 3, 1) -> (0, 0, 2, 2) | broken |
    | ho26.windowed_exponential.correct | (1.45484, 0.001) | eps@delta 1.45484; delta@eps 0.0009999 (1.00x); W = 12.25; grid 1/4 | eps: (0, -5.75, 4.75) -> (-1, -6.75, 5.75); delta: (0, -5.75, 4.75) -> (-1, -6.75, 5.75) | correct |
    | ho26.windowed_exponential.broken | (1.45484, 0.001) | eps@delta inf; delta@eps 0.003396 (3.40x); W = 10.25; grid 1/4 | eps: (0, -0.25, 10) -> (-1, -1.25, 9.5); delta: (0, 8.5, 0) -> (-1, 9.5, -1) | broken |
    | ho26.local_windowed_geometric.correct | (1.2, 0.00041) | eps@delta 1.19999; delta@eps 0.000401 (0.98x); window |Z| <= 6 | values 0 vs 1 | correct |
    | ho26.local_windowed_geometric.broken | (1.2, 0.00041) | eps@delta inf; delta@eps 0.001331 (3.25x); window |Z| <= 5 | values 0 vs 1 | broken |
    | ho26.spread_rounded_geometric.correct | pure 1 | eps 1.00000; rate 0.75898; axis move of 1: 0.75898 | x -> x + (0.25, 0.25, 0.25, 0.25) (starts of steps) | correct |
    | ho26.spread_rounded_geometric.broken | pure 1 | eps 1.42950; rate 1.00000; axis move of 1: 1.00000 | x -> x + (0.25, 0.25, 0.25, 0.25) (starts of steps) | broken |
    | ho26.coarse_rounded_geometric.correct | pure 1 | eps 1.00000; rate 1.48988 per step of 2 | x = 1 -> 2 (a move of 1, half a step) | correct |
    | ho26.coarse_rounded_geometric.broken | pure 1 | eps 1.43378; rate 2.00000 per step of 2 | x = 1 -> 2 (a move of 1, half a step) | broken |
    | ho26.l2_rounded_geometric.correct | pure 1 | eps 1.00000 (grid 1/64: 0.99344); rate 0.52190; axis move of 1: 0.52190 | x -> x + (1, 1, 1)/sqrt(3) (starts of steps) | correct |
    | ho26.l2_rounded_geometric.broken | pure 1 | eps 1.11695 (grid 1/64: 1.10975); rate 0.57735; axis move of 1: 0.57735 | x -> x + (1, 1, 1)/sqrt(3) (starts of steps) | broken |
    | ho26.vector_partition_selection.correct | (1.2, 0.0002) | eps@delta 1.20000; delta@eps 0.0002 (1.00x); kept surely from 15 users | eps: count 11 -> 12; delta: 11 -> 12 | correct |
    | ho26.vector_partition_selection.broken | (1.2, 0.0002) | eps@delta inf; delta@eps 0.000664 (3.32x); kept surely from 14 users | eps: count 0 -> 1; delta: 4 -> 5 | broken |
    | ho26.monotone_max_with_none.correct | pure 1 | eps 1.00000 (sup within bounds 0..20; 1 as they widen) | (20, 20, 20, 0) -> (20, 20, 20, 1), index 3 | correct |
    | ho26.monotone_max_with_none.broken | pure 1 | eps 1.99997 (sup within bounds 0..20; 2 as they widen) | (20, 20, 20, 0) -> (19, 19, 19, 1), index 3 | broken |
    | ho26.repeated_rr_with_reveal.correct | (2, 0.001) | eps@delta 2.00000; delta@eps 0.001 (1.00x) | any two values (all pairs alike) | correct |
    | ho26.repeated_rr_with_reveal.broken | (2, 0.001) | eps@delta inf; delta@eps 0.003994 (3.99x) | any two values (all pairs alike) | broken |

    sampling (40,000 per query; chi-square p-values, smallest five of 54 )
        0.0180  ho26.monotone_max_with_none.correct  ([10, 9, 8, 11])
        0.0396  ho26.top2_release_test.correct  ([5, 9, 3, 1])
        0.0480  ho26.local_windowed_geometric.correct  (value 0)
        0.0664  ho26.vector_partition_selection.broken  (count 6)
        0.1203  ho26.spread_rounded_geometric.correct  (coordinate 2)

    all labels agree with the exact values

Run: dp-audit run --adapter tests/corpus/held_out_mechanisms_26.py:ADAPTERS --out held-out-26
(not run by the author).
"""

from __future__ import annotations

import math

import numpy as np

# ---------------------------------------------------------------------------------------------
# Shared helpers
# ---------------------------------------------------------------------------------------------


def _dlap(rng, rate, size):
    """Discrete Laplace: P(k) proportional to exp(-rate |k|), a difference of geometrics."""
    p = -math.expm1(-rate)
    return rng.geometric(p, size) - rng.geometric(p, size)


def _dlap_pmf(rate, k):
    a = math.exp(-rate)
    return (1 - a) / (1 + a) * a ** abs(k)


def _dlap_tail(rate, k):
    """P(Z >= k) for k >= 1."""
    a = math.exp(-rate)
    return a**k / (1 + a)


def _randomized_round(rng, x, n):
    """floor(x) + Bernoulli(frac(x)) per entry: x of shape (d,), result (n, d) int64."""
    x = np.asarray(x, dtype=float)
    fl = np.floor(x)
    frac = x - fl
    up = rng.random((n,) + x.shape) < frac
    return fl.astype(np.int64) + up.astype(np.int64)


class _Base:
    vectorised = True
    library = "held-out set 26"

    def __init__(self, broken=False):
        self.broken = broken
        self.name = f"ho26.{self.mechanism}.{'broken' if broken else 'correct'}"
        self._rng = np.random.default_rng()

    def seed(self, entropy):
        self._rng = np.random.default_rng(entropy)


# ---------------------------------------------------------------------------------------------
# 1. Which of 3 counts exceed a threshold, bounded (truncated) noise.           theme (a)
# ---------------------------------------------------------------------------------------------


class ExceedBitsTruncated(_Base):
    """Which of 3 integer counts exceed tau = 20: bit i = [c_i + Z_i >= tau], Z_i discrete
    Laplace of rate 0.35 truncated to |Z| <= T = 18 (bounded noise, resampled: the pmf is
    renormalised on -T..T).  L-inf neighbours (one user may move every count by 1): interior
    loss 3 x 0.35 = 1.05; a count moving from tau - T - 1 to tau - T makes a bit possible that
    was impossible, mass P(Z = T) each, 3 at once."""

    mechanism = "exceed_bits_truncated"
    description = "noisy-threshold 'which counts exceed' bits with truncated discrete Laplace"
    epsilon, delta = 1.04687, 9.6e-4
    input_kind = "vector"
    norm = "linf"
    sensitivity = 1
    integer_queries = True
    query_length = 3
    query_bounds = (0, 40)
    output_kind = "boolean"
    output_length = 3

    rate, T, tau = 0.35, 18, 20

    def __init__(self, broken=False):
        super().__init__(broken)
        z = np.arange(-self.T, self.T + 1)
        w = np.exp(-self.rate * np.abs(z))
        self._z = z
        self._cdf = np.cumsum(w) / w.sum()

    def sample(self, query, n):
        q = np.clip(np.rint(np.asarray(query, dtype=float)), -(2**40), 2**40).reshape(-1)
        m = q.size
        if self.broken:
            # BUG: the noise is clipped to [-T, T] (its tails piled on +-T), not resampled
            z = np.clip(_dlap(self._rng, self.rate, (n, m)), -self.T, self.T)
        else:
            u = self._rng.random((n, m))
            z = self._z[np.minimum(np.searchsorted(self._cdf, u, side="right"), self._z.size - 1)]
        return (q + z) >= self.tau


# ---------------------------------------------------------------------------------------------
# 2. Top-2 set of 4 counts, released past a noisy test on the 2nd-3rd gap.       theme (a)
# ---------------------------------------------------------------------------------------------


class Top2ReleaseTest(_Base):
    """The set of the 2 largest of 4 integer counts (ties to the lower index), released
    exactly when g + Z >= tau, g = c_(2) - c_(3) the gap between the 2nd and 3rd largest and
    Z discrete Laplace of rate eps0 / 2 = 0.75 (g moves by <= 2 under L-inf 1); else none (-1, -1).
    The set can differ between neighbours only when g <= 2 on the releasing side, so tau is
    the smallest with P(2 + Z >= tau) <= delta.  Output: the 2 indices, sorted."""

    mechanism = "top2_release_test"
    description = "propose-test-release top-2 set on the 2nd-3rd gap"
    epsilon, delta = 1.49942, 4e-4  # the exact eps at delta of eps0 = 1.5 (checker)
    input_kind = "vector"
    norm = "linf"
    sensitivity = 1
    integer_queries = True
    query_length = 4
    query_bounds = (0, 30)
    output_kind = "integer"
    output_length = 2

    eps0 = 1.5

    def __init__(self, broken=False):
        super().__init__(broken)
        self._rate = self.eps0 / 2
        k = 1
        while _dlap_tail(self._rate, k) > self.delta:
            k += 1
        # P(Z >= k) <= delta; the correct bar covers a gap of 2: tau = k + 2
        # BUG (broken): tau = k, the tail solved at gap 0, not the gap 2 that can still flip the set
        self._tau = k if broken else k + 2

    def sample(self, query, n):
        q = np.rint(np.asarray(query, dtype=float)).reshape(-1)
        order = np.argsort(-q, kind="stable")
        gap = q[order[1]] - q[order[2]]
        top = np.sort(order[:2])
        release = gap + _dlap(self._rng, self._rate, n) >= self._tau
        out = np.full((n, 2), -1, dtype=np.int64)
        out[release] = top
        return out


# ---------------------------------------------------------------------------------------------
# 3. Exponential mechanism restricted to a window below the maximum.           theme (a)
# ---------------------------------------------------------------------------------------------


class WindowedExponential(_Base):
    """Selection among 3 candidates (utilities with sensitivity 1, L-inf) by the exponential
    mechanism with weights exp(0.75 u) (eps0 = 1.5), among the candidates within W of the
    largest utility only (the others get weight 0).  A candidate inside the window has
    probability <= e^{-0.75 g} at gap g, and the gap moves by up to 2 Delta between
    neighbours (the candidate down 1, the maximum up 1): a candidate at gap g <= W can be out
    of the neighbour's window when g > W - 2.  Two may leave at once, so
    W = (2 / eps0) ln(2 / delta0) + 2 Delta, delta0 = 1e-3, the log term rounded up to a
    multiple of 1/4 (W = 12.25).  The claim is the exact (eps, delta) of this mechanism."""

    mechanism = "windowed_exponential"
    description = "exponential mechanism over the candidates within a window of the max"
    epsilon, delta = 1.45484, 1e-3  # the exact eps at delta (checker)
    family = "selection"
    sensitivity = 1
    query_length = 3

    eps0, delta0 = 1.5, 1e-3

    def __init__(self, broken=False):
        super().__init__(broken)
        w = math.ceil(4 * 2 / self.eps0 * math.log(2 / self.delta0)) / 4  # 10.25
        if not broken:
            w += 2  # (broken: BUG, the gap taken as fixed between neighbours; it moves by 2 Delta)
        self._w = w

    def sample(self, query, n):
        u = np.asarray(query, dtype=float).reshape(-1)
        keep = u >= u.max() - self._w
        g = self._rng.gumbel(size=(n, u.size)) + (self.eps0 / 2) * (u - u.max())
        g[:, ~keep] = -np.inf
        return np.argmax(g, axis=1).astype(np.int64)


# ---------------------------------------------------------------------------------------------
# 4. Local randomizer: windowed geometric with a none.                          theme (a)
# ---------------------------------------------------------------------------------------------


class LocalWindowedGeometric(_Base):
    """One person's bit v in {0, 1} released as v + Z, Z discrete Laplace of rate eps, when
    |Z| <= T; else none (NaN).  The none has the same probability for both values; the
    output v - T exists only for v (mass P(Z = T)), so T is the smallest with
    P(Z = T) <= delta: T = 6."""

    mechanism = "local_windowed_geometric"
    description = "local geometric randomizer that answers none outside a window"
    epsilon, delta = 1.2, 4.1e-4
    input_kind = "local"
    domain = (0, 1)
    output_kind = "integer"
    nullable = True

    def __init__(self, broken=False):
        super().__init__(broken)
        t = 1
        while _dlap_pmf(self.epsilon, t) > self.delta:
            t += 1
        self._t = t

    def sample(self, query, n):
        v = int(min(max(int(query), 0), 1))
        z = _dlap(self._rng, self.epsilon, n)
        if self.broken:
            inside = np.abs(z) < self._t  # BUG: strict test, the window is T - 1 wide
        else:
            inside = np.abs(z) <= self._t
        return np.where(inside, (v + z).astype(float), np.nan)


# ---------------------------------------------------------------------------------------------
# 5. Randomized rounding + discrete Laplace per coordinate, L1 moves.            theme (b)
# ---------------------------------------------------------------------------------------------


class SpreadRoundedGeometric(_Base):
    """A vector of 4 reals with L1 sensitivity 1, each entry randomized-rounded to an integer
    (floor + Bernoulli(frac)) and given discrete Laplace noise of rate r.  A move of m < 1 in
    one entry costs ln(1 + m (e^r - 1)) > r m (the rounding is a mixture): spread over the 4
    entries, 4 ln(1 + (e^r - 1) / 4).  Correct r solves that for eps: e^r = 1 + 4 (e^{eps/4} - 1)."""

    mechanism = "spread_rounded_geometric"
    description = "randomized rounding and discrete Laplace on a vector, L1 sensitivity 1"
    epsilon = 1.0
    input_kind = "vector"
    norm = "l1"
    sensitivity = 1
    query_length = 4
    output_kind = "integer"
    output_length = "query"

    _d = 4

    def __init__(self, broken=False):
        super().__init__(broken)
        if broken:
            self._rate = self.epsilon  # BUG: rate eps / Delta, right for axis moves of 1 only
        else:
            self._rate = math.log1p(self._d * math.expm1(self.epsilon / self._d))

    def sample(self, query, n):
        x = np.asarray(query, dtype=float).reshape(-1)
        k = _randomized_round(self._rng, x, n)
        return k + _dlap(self._rng, self._rate, k.shape)


# ---------------------------------------------------------------------------------------------
# 6. Scalar: randomized rounding to a step of 2 (twice the sensitivity).          theme (b)
# ---------------------------------------------------------------------------------------------


class CoarseRoundedGeometric(_Base):
    """A real x with sensitivity 1 released on the even integers: x / 2 randomized-rounded to
    an integer k, output 2 (k + Z), Z discrete Laplace of rate r.  A move of 1 is half a step:
    its loss is ln(1 + (e^r - 1) / 2) from the start of a step (less elsewhere), so
    e^r = 1 + 2 (e^eps - 1)."""

    mechanism = "coarse_rounded_geometric"
    description = "randomized rounding to a step of 2 and discrete Laplace, sensitivity 1"
    epsilon = 1.0
    input_kind = "scalar"
    sensitivity = 1
    output_kind = "integer"

    def __init__(self, broken=False):
        super().__init__(broken)
        if broken:
            self._rate = 2 * self.epsilon  # BUG: a move of 1 taken as half a step of loss r / 2
        else:
            self._rate = math.log1p(2 * math.expm1(self.epsilon))

    def sample(self, query, n):
        x = float(query) / 2
        k = _randomized_round(self._rng, np.array([x]), n)[:, 0]
        return 2 * (k + _dlap(self._rng, self._rate, n))


# ---------------------------------------------------------------------------------------------
# 7. L2 vector: randomized rounding + discrete Laplace, rate normalised by the L1 bound.  (b)
# ---------------------------------------------------------------------------------------------


class L2RoundedGeometric(_Base):
    """A vector of 3 reals with L2 sensitivity 1 (an L1 move up to sqrt(3)), each entry
    randomized-rounded and given discrete Laplace noise of rate r.  The loss of moves m_i is
    sum ln(1 + |m_i| (e^r - 1)) (concave), largest at m_i = 1/sqrt(3) each:
    3 ln(1 + (e^r - 1)/sqrt(3)) = eps."""

    mechanism = "l2_rounded_geometric"
    description = "randomized rounding and discrete Laplace on a vector, L2 sensitivity 1"
    epsilon = 1.0
    input_kind = "vector"
    norm = "l2"
    sensitivity = 1
    query_length = 3
    output_kind = "integer"
    output_length = "query"

    _d = 3

    def __init__(self, broken=False):
        super().__init__(broken)
        s = math.sqrt(self._d)
        if broken:
            self._rate = self.epsilon / s  # BUG: normalised by the L1 bound sqrt(d), as for Laplace
        else:
            self._rate = math.log1p(s * math.expm1(self.epsilon / self._d))

    def sample(self, query, n):
        x = np.asarray(query, dtype=float).reshape(-1)
        k = _randomized_round(self._rng, x, n)
        return k + _dlap(self._rng, self._rate, k.shape)


# ---------------------------------------------------------------------------------------------
# 8. Partition selection over a vector of counts (optimal keep probabilities).   theme (c)
# ---------------------------------------------------------------------------------------------


def _keep_probabilities(eps, delta, broken, nmax=200):
    p = [0.0]
    e = math.exp(eps)
    for _ in range(nmax):
        prev = p[-1]
        if broken:
            up = e * (prev + delta)  # BUG: delta inside the bracket (scaled by e^eps)
        else:
            up = e * prev + delta
        p.append(min(1.0, up, 1 - (1 - prev - delta) / e))
    return np.array(p)


class VectorPartitionSelection(_Base):
    """Which of 4 partitions (a vector of user counts, one user in one partition: L1 1) are
    kept: partition i is kept w.p. p(c_i), p(0) = 0 and
    p(n) = min(1, e^eps p(n-1) + delta, 1 - e^-eps (1 - p(n-1) - delta)), the largest
    keep probabilities an (eps, delta) claim allows (a partition of 1 user kept w.p. delta)."""

    mechanism = "vector_partition_selection"
    description = "optimal partition selection over a vector of counts"
    epsilon, delta = 1.2, 2e-4
    input_kind = "vector"
    norm = "l1"
    sensitivity = 1
    integer_queries = True
    query_length = 4
    query_bounds = (0, 40)
    output_kind = "boolean"
    output_length = "query"

    def __init__(self, broken=False):
        super().__init__(broken)
        self._p = _keep_probabilities(self.epsilon, self.delta, broken)

    def sample(self, query, n):
        c = np.clip(np.rint(np.asarray(query, dtype=float)), 0, self._p.size - 1).astype(np.int64)
        c = c.reshape(-1)
        return self._rng.random((n, c.size)) < self._p[c]


# ---------------------------------------------------------------------------------------------
# 9. Report-noisy-max with a release threshold, monotone counts, rate eps.        theme (c)
# ---------------------------------------------------------------------------------------------


class MonotoneMaxWithNone(_Base):
    """The largest of 4 counts by Gumbel-max with weights exp(eps u) (no factor 1/2: under
    monotone neighbours, every count up or every count down by <= 1, the numerator and the
    normaliser cannot both move against an outcome), beside a "none" candidate of constant
    utility tau = 10 (output -1): pure eps, the sup approached as counts dominate none."""

    mechanism = "monotone_max_with_none"
    description = "exponential-mechanism max at rate eps with a none threshold, monotone counts"
    epsilon = 1.0
    input_kind = "vector"
    norm = "linf"
    sensitivity = 1
    query_length = 4
    query_bounds = (0, 20)
    output_kind = "index"
    nullable = True

    tau = 10.0

    def __init__(self, broken=False):
        super().__init__(broken)
        # BUG (broken): the same rate for scores that may move in opposite directions
        self.monotone = not broken

    def sample(self, query, n):
        u = np.clip(np.asarray(query, dtype=float).reshape(-1), -1e6, 1e6)
        s = np.append(u, self.tau)
        s = self.epsilon * (s - s.max())
        g = self._rng.gumbel(size=(n, s.size)) + s
        win = np.argmax(g, axis=1)
        return np.where(win == u.size, -1, win).astype(np.int64)


# ---------------------------------------------------------------------------------------------
# 10. Local: 4 k-ary randomized responses, the input revealed w.p. delta.        theme (c)
# ---------------------------------------------------------------------------------------------


class RepeatedRRWithReveal(_Base):
    """One person's value v in 0..3: with probability delta the randomizer reveals it (all 4
    reports are v + 4); otherwise 4 independent 4-ary randomized responses at eps / 4 each
    (truth w.p. e^{eps/4} / (e^{eps/4} + 3)).  Exactly (eps, delta): the revealed outputs
    carry delta, every other output a ratio <= e^eps."""

    mechanism = "repeated_rr_with_reveal"
    description = "repeated k-ary randomized response that reveals its input w.p. delta"
    epsilon, delta = 2.0, 1e-3
    input_kind = "local"
    domain = (0, 3)
    output_kind = "integer"
    output_length = 4

    _k, _reports = 4, 4

    def sample(self, query, n):
        v = int(min(max(int(query), 0), self._k - 1))
        e = math.exp(self.epsilon / self._reports)
        truth = e / (e + self._k - 1)
        keep = self._rng.random((n, self._reports)) < truth
        other = self._rng.integers(0, self._k - 1, (n, self._reports))
        other = other + (other >= v)
        out = np.where(keep, v, other)
        if self.broken:
            reveal = self._rng.random((n, self._reports)) < self.delta  # BUG: delta per report
            reveal = reveal.any(axis=1)
        else:
            reveal = self._rng.random(n) < self.delta
        out[reveal] = v + self._k
        return out.astype(np.int64)


_CLASSES = (
    ExceedBitsTruncated,
    Top2ReleaseTest,
    WindowedExponential,
    LocalWindowedGeometric,
    SpreadRoundedGeometric,
    CoarseRoundedGeometric,
    L2RoundedGeometric,
    VectorPartitionSelection,
    MonotoneMaxWithNone,
    RepeatedRRWithReveal,
)

ADAPTERS = [cls(broken=b) for cls in _CLASSES for b in (False, True)]

TRUE_VALUES = {
    "ho26.exceed_bits_truncated.correct": 1.04687,
    "ho26.exceed_bits_truncated.broken": math.inf,
    "ho26.top2_release_test.correct": 1.49941,
    "ho26.top2_release_test.broken": math.inf,
    "ho26.windowed_exponential.correct": 1.45484,
    "ho26.windowed_exponential.broken": math.inf,
    "ho26.local_windowed_geometric.correct": 1.19999,
    "ho26.local_windowed_geometric.broken": math.inf,
    "ho26.spread_rounded_geometric.correct": 1.0,
    "ho26.spread_rounded_geometric.broken": 1.4295,
    "ho26.coarse_rounded_geometric.correct": 1.0,
    "ho26.coarse_rounded_geometric.broken": 1.43378,
    "ho26.l2_rounded_geometric.correct": 1.0,
    "ho26.l2_rounded_geometric.broken": 1.11695,
    "ho26.vector_partition_selection.correct": 1.2,
    "ho26.vector_partition_selection.broken": math.inf,
    "ho26.monotone_max_with_none.correct": 1.0,
    "ho26.monotone_max_with_none.broken": 1.99997,
    "ho26.repeated_rr_with_reveal.correct": 2.0,
    "ho26.repeated_rr_with_reveal.broken": math.inf,
}
