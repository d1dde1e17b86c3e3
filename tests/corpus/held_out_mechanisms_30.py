# ruff: noqa: E501
"""Held-out mechanisms, set 30: leaks in delta alone, losses that only a sub-step position or
a move spread over coordinates shows, a loss in a rare output at the top of the range, and
tight correct twins.

What this is
------------
Eight mechanisms, each one class with a CORRECT adapter (private as claimed over its whole
declared neighbouring relation, and tight: some neighbouring pair attains the claim) and a
BROKEN twin that differs by one bug, marked `# BUG` beside the line; `broken=True` takes it.
`ADAPTERS` holds the 16 adapters, named `ho30.<mechanism>.correct` / `ho30.<mechanism>.broken`,
each with `broken`, `true_value` (pure claims: eps; (eps, delta) claims: eps at the claimed
delta, math.inf where no eps holds; for the correct (eps, delta) twins the claimed eps) and
`true_text` (in words, with the pair that shows it).  The noise is integer (discrete Laplace,
a difference of geometrics) except in mechanism 7, whose Laplace outputs are rounded to
multiples of 0.25 before release.  Every adapter is seeded (`seed(entropy)`; a fixed default)
and vectorised, except the keyed one, which builds one mapping per output.

How it was written
------------------
Blind: of the repository only README.md, docs/writing-an-adapter.md, docs/claims.md,
docs/systems-analytics.md, and, for the file format, set 29's module docstring (which lists
its mechanisms: the designs here were chosen to differ), helpers, first two classes and its
checker's layout were read, and labels.toml's records.  Nothing under auditor/engine,
auditor/statistics or attacks/ was opened; dp-audit was run only as `dp-audit check
--adapter tests/corpus/held_out_mechanisms_30.py:ADAPTERS` (16 of 16 follow the contract; no
audit).  Imports numpy and math only.
Labels and true values are recomputed exactly by tests/corpus/check_held_out_30.py.

Mechanisms
----------
| # | name | input; relation | output | claim | bug | broken: truth |
|---|---|---|---|---|---|---|
| 1 | keyed_bins | dataset ints 0..9; add/remove | keyed (integer) | (1, 9.03e-5) | threshold solved for delta x 10 keys | eps inf; delta 6.67e-4 (7.38x) |
| 2 | local_truncated | local 0..3 | real (integer values) | (1.5, 9.84e-5) | truncation A solved for a move of 1, not the domain width 3 | eps inf; delta 4.41e-4 (4.48x) |
| 3 | top_value | dataset ints 0..15; add/remove | real (integer values), nullable | (2, 4e-5) | threshold solved for P(Z >= T), forgetting a new value's count of 1 | eps inf; delta 2.95e-4 (7.39x) |
| 4 | gated_argmax | 6 ints in [0, 40]; l1 1, monotone | index, nullable (-1) | (1.6, 5.64e-5) | threshold 1 + floor(.) where 1 + ceil(.) | eps inf; delta 2.79e-4 (4.95x) |
| 5 | snap_bound | scalar real in [0, 10.5]; Delta 1 | real | eps 1 | snapping grid holds the bound 10.5 (off the integer grid) | eps inf: 10.3 vs 10.0 |
| 6 | round_l1 | 2 reals in [-10, 10]; l1 1 | vector of 2 integers | eps 1 | rate eps (Delta 1), where rounding moves two coordinates by 1 each | eps 2: (0.4, 0.4) vs (0.6, 0.6) |
| 7 | spread_l2 | 3 reals in [-10, 10]; l2 1 | vector of 3 reals (multiples of 0.25) | eps 1 | Laplace scale 1/eps per coordinate, not sqrt(3)/eps | eps sqrt 3: 0 vs (1, 1, 1)/sqrt 3 |
| 8 | retry_cap | scalar int in [0, 20]; Delta 1 | integer, nullable | eps 0.714014 | rejection sampler gives up (NaN) after 5 tries | eps 2.4996 at 20 vs 19, event NaN (0.0077 vs 0.00063) |
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


def _trunc_mass(rate, a, lo, hi):
    """P(lo <= Z <= hi) for the discrete Laplace of `rate` conditioned on |Z| <= a."""
    p = math.exp(-rate)
    total = sum(p ** abs(z) for z in range(-a, a + 1))
    return sum(p ** abs(z) for z in range(lo, hi + 1)) / total


def _ints(query, lo, hi):
    return np.clip(np.rint(np.asarray(query, dtype=float).ravel()), lo, hi).astype(np.int64)


class _Base:
    vectorised = True
    library = "held-out set 30"

    def __init__(self, broken=False):
        self.broken = broken
        self.name = f"ho30.{self.mechanism}.{'broken' if broken else 'correct'}"
        self.true_value = self.true_values[1 if broken else 0]
        self.true_text = self.true_texts[1 if broken else 0]
        self._rng = np.random.default_rng(zlib.crc32(self.name.encode()))

    def seed(self, entropy):
        self._rng = np.random.default_rng(entropy)


# ---------------------------------------------------------------------------------------------
# 1. Stability histogram over 10 categories, an open key set.                     delta leak
# ---------------------------------------------------------------------------------------------


class KeyedBins(_Base):
    """Counts of the categories present (records 0..9, keys "c0".."c9"), discrete Laplace of
    rate eps, a key released with its noisy count when that reaches T.  Claim (1, 9.03e-5).
    Correct (T 10): delta at eps 1 is 9.022e-5.  Broken (T 8, solved for 10 x delta, "delta
    per key"): eps inf at the claimed delta; delta at eps 1 is 6.666e-4; pair D vs D + one
    record of an absent category, event: that key released."""

    mechanism = "keyed_bins"
    description = "categories released with discrete-Laplace counts above a threshold"
    true_values = (1.0, math.inf)
    true_texts = (
        "delta at eps 1: 9.0220e-5 (claim 9.03e-5, tight: one record of a new category released w.p. that); eps at delta <= 1",
        "eps inf at delta 9.03e-5; delta at eps 1: 6.6664e-4 (7.38x): D vs D + one record of an absent category, event: that key released",
    )
    epsilon, delta = 1.0, 9.03e-5
    input_kind = "dataset"
    domain = (0, 9)
    neighbours = "add_remove"
    output_kind = "keyed"
    value_kind = "integer"
    keys = [f"c{j}" for j in range(10)]

    def __init__(self, broken=False):
        super().__init__(broken)
        budget = 10 * self.delta if broken else self.delta  # BUG when broken: delta x keys
        self.threshold = 1
        while _dlap_ge(self.epsilon, self.threshold - 1) > budget:
            self.threshold += 1

    def sample(self, query, n):
        counts = np.bincount(_ints(query, 0, 9), minlength=10)
        present = np.flatnonzero(counts)
        noisy = counts[present][None, :] + _dlap(self._rng, self.epsilon, (n, present.size))
        names = [self.keys[k] for k in present]
        return [
            {name: int(v) for name, v in zip(names, row, strict=True) if v >= self.threshold}
            for row in noisy.tolist()
        ]


# ---------------------------------------------------------------------------------------------
# 2. Local truncated discrete Laplace.                                            delta leak
# ---------------------------------------------------------------------------------------------


class LocalTruncated(_Base):
    """One person's value v in 0..3 plus discrete Laplace noise of rate eps/3 truncated to
    |Z| <= A (redrawn until inside).  Local: any two values are neighbours, the worst 0 vs 3;
    the outputs 3 + A - 2 .. 3 + A only v = 3 gives.  Integer values declared as real.  Claim
    (1.5, 9.84e-5).  Correct (A 19): delta at eps 1.5 is 9.840e-5.  Broken (A 16, the tail of
    one step, as for neighbours 1 apart): eps inf at the claimed delta; delta at eps 1.5 is
    4.411e-4; pair v = 0 vs v = 3, event: output >= 17 (correct: >= 20)."""

    mechanism = "local_truncated"
    description = "value + truncated discrete Laplace, local"
    true_values = (1.5, math.inf)
    true_texts = (
        "delta at eps 1.5: 9.8397e-5 (claim 9.84e-5, tight: v = 3 gives 20..22, v = 0 never); eps at delta <= 1.5",
        "eps inf at delta 9.84e-5; delta at eps 1.5: 4.4107e-4 (4.48x): v = 0 vs v = 3, event: output >= 17 (outputs 17..19)",
    )
    epsilon, delta = 1.5, 9.84e-5
    input_kind = "local"
    domain = (0, 3)
    output_kind = "real"

    def __init__(self, broken=False):
        super().__init__(broken)
        self.rate = self.epsilon / 3
        move = 1 if broken else 3  # BUG when broken: one step, not the domain's width
        self.bound = 1
        while _trunc_mass(self.rate, self.bound, self.bound - move + 1, self.bound) > self.delta:
            self.bound += 1

    def sample(self, query, n):
        v = int(min(max(int(query), 0), 3))
        z = _dlap(self._rng, self.rate, n)
        bad = np.abs(z) > self.bound
        while bad.any():
            z[bad] = _dlap(self._rng, self.rate, int(bad.sum()))
            bad = np.abs(z) > self.bound
        return (v + z).astype(float)


# ---------------------------------------------------------------------------------------------
# 3. The largest value present, released when its noisy count passes T.          delta leak
# ---------------------------------------------------------------------------------------------


class TopValue(_Base):
    """The largest record value (0..15) whose count plus discrete Laplace noise of rate eps
    reaches T (values absent from the data are never candidates); NaN when none does.
    Integer values declared as real.  Claim (2, 4e-5).  Correct (T 6): delta at eps 2 is
    3.9988e-5.  Broken (T 5, solved for P(Z >= T) <= delta): eps inf at the claimed delta;
    delta at eps 2 is 2.9547e-4; pair {0} vs {0, 15}, event: output = 15."""

    mechanism = "top_value"
    description = "the largest value whose noisy count passes a threshold"
    true_values = (2.0, math.inf)
    true_texts = (
        "delta at eps 2: 3.9988e-5 (claim 4e-5, tight: a new largest value released w.p. that); eps at delta <= 2",
        "eps inf at delta 4e-5; delta at eps 2: 2.9547e-4 (7.39x): {0} vs {0, 15}, event: output = 15",
    )
    epsilon, delta = 2.0, 4e-5
    input_kind = "dataset"
    domain = (0, 15)
    neighbours = "add_remove"
    output_kind = "real"
    nullable = True

    def __init__(self, broken=False):
        super().__init__(broken)
        move = 0 if broken else 1  # BUG when broken: a new value's count of 1 forgotten
        self.threshold = 1
        while _dlap_ge(self.epsilon, self.threshold - move) > self.delta:
            self.threshold += 1

    def sample(self, query, n):
        counts = np.bincount(_ints(query, 0, 15), minlength=16)
        present = np.flatnonzero(counts)
        noisy = counts[present][None, :] + _dlap(self._rng, self.epsilon, (n, present.size))
        passed = noisy >= self.threshold
        # the last passing column is the largest value (present is sorted)
        last = present.size - 1 - np.argmax(passed[:, ::-1], axis=1)
        return np.where(passed.any(axis=1), present[last].astype(float), np.nan)


# ---------------------------------------------------------------------------------------------
# 4. The largest count's index, released when its noisy count passes T.          delta leak
# ---------------------------------------------------------------------------------------------


class GatedArgmax(_Base):
    """Six category counts; among the categories with a count >= 1, the index of the largest
    count plus discrete Laplace noise of rate eps (ties to the smaller index), released when
    that noisy count reaches T = 1 + ceil(ln(1 / (delta (1 + e^-eps))) / eps); -1 otherwise.
    Claim (1.6, 5.64e-5).  Correct (T 7): delta at eps 1.6 is 5.635e-5.  Broken (T 6: floor
    for ceil): eps inf at the claimed delta; delta at eps 1.6 is 2.791e-4; pair 0 vs e_j,
    event: output = j."""

    mechanism = "gated_argmax"
    description = "noisy argmax over the categories present, released above a threshold"
    true_values = (1.6, math.inf)
    true_texts = (
        "delta at eps 1.6: 5.6352e-5 (claim 5.64e-5, tight: (0,...,0) vs e_j, j released w.p. that); eps at delta <= 1.6",
        "eps inf at delta 5.64e-5; delta at eps 1.6: 2.7911e-4 (4.95x): (0, 0, 0, 0, 0, 0) vs (0, 0, 1, 0, 0, 0), event: output = 2",
    )
    epsilon, delta = 1.6, 5.64e-5
    input_kind = "vector"
    norm, sensitivity = "l1", 1
    query_length = 6
    integer_queries = True
    monotone = True
    query_bounds = (0, 40)
    output_kind = "index"
    nullable = True

    def __init__(self, broken=False):
        super().__init__(broken)
        x = math.log(1 / (self.delta * (1 + math.exp(-self.epsilon)))) / self.epsilon
        self.threshold = 1 + (math.floor(x) if broken else math.ceil(x))  # BUG when broken

    def sample(self, query, n):
        counts = _ints(query, 0, 40)
        noisy = (counts[None, :] + _dlap(self._rng, self.epsilon, (n, counts.size))).astype(float)
        noisy[:, counts < 1] = -np.inf
        best = np.argmax(noisy, axis=1)
        top = noisy[np.arange(n), best]
        return np.where(top >= self.threshold, best, -1).astype(np.int64)


# ---------------------------------------------------------------------------------------------
# 5. Snapping to the integer grid with the bound off the grid.                    sub-step
# ---------------------------------------------------------------------------------------------


class SnapBound(_Base):
    """A real answer in [0, 10.5] (Delta 1) snapped to the nearest point of a grid, plus
    discrete Laplace noise of rate eps.  Correct: the grid 0..10 (the bound 10.5 snaps to 10):
    any move of <= 1 moves the snapped answer by <= 1 step; eps 1, tight at 3 vs 4.  Broken:
    the grid 0..10 plus the bound 10.5 itself, so answers in [10.25, 10.5] release 10.5 + Z,
    off the integer lattice every other answer releases on: eps inf, pair 10.0 vs 10.3 (a
    move of 0.3), event: output not an integer.  Moves between grid points never show it."""

    mechanism = "snap_bound"
    description = "answer snapped to an integer grid, plus discrete Laplace noise"
    true_values = (1.0, math.inf)
    true_texts = (
        "eps 1 (tight: 3 vs 4, any output's ratio in the tails)",
        "eps inf: 10.0 vs 10.3 (a move of 0.3), event: output not a whole number (prob 0 vs 1)",
    )
    epsilon = 1.0
    input_kind = "scalar"
    sensitivity = 1
    query_bounds = (0, 10.5)
    output_kind = "real"

    def sample(self, query, n):
        y = min(max(float(query), 0.0), 10.5)
        snapped = min(math.floor(y) + (y - math.floor(y) >= 0.5), 10)  # exact: no y + 0.5 rounding
        if self.broken and y >= 10.25:
            snapped = 10.5  # BUG: the bound is a grid point
        return snapped + _dlap(self._rng, self.epsilon, n).astype(float)


# ---------------------------------------------------------------------------------------------
# 6. Rounding a 2-vector, then discrete Laplace per coordinate.     sub-step, neighbour relation
# ---------------------------------------------------------------------------------------------


class RoundL1(_Base):
    """Two reals with l1 sensitivity 1, each rounded to the nearest integer (halves up), plus
    discrete Laplace noise per coordinate.  A move of l1 norm 1 split over both coordinates
    can cross a rounding boundary in each (0.4 -> 0.6 and 0.4 -> 0.6): the rounded vector moves
    by 2 in l1, where a move along one axis moves it by at most 1.  Correct: rate eps/2;
    eps 1, tight at (0.4, 0.4) vs (0.6, 0.6).  Broken: rate eps; eps 2 at that pair (an axis
    move, or any move between integer points, shows eps 1 only)."""

    mechanism = "round_l1"
    description = "rounded 2-vector plus discrete Laplace per coordinate"
    true_values = (1.0, 2.0)
    true_texts = (
        "eps 1 (tight: (0.4, 0.4) vs (0.6, 0.6), the rounded answers (0, 0) vs (1, 1))",
        "eps 2: (0.4, 0.4) vs (0.6, 0.6) (l1 move 0.4), event: both outputs >= 1; axis moves show 1",
    )
    epsilon = 1.0
    input_kind = "vector"
    norm, sensitivity = "l1", 1
    query_length = 2
    query_bounds = (-10, 10)
    output_kind = "integer"
    output_length = 2

    def sample(self, query, n):
        x = np.clip(np.asarray(query, dtype=float).ravel(), -10, 10)
        whole = np.floor(x)
        rounded = (whole + (x - whole >= 0.5)).astype(np.int64)  # halves up, exactly
        rate = self.epsilon if self.broken else self.epsilon / 2  # BUG when broken: Delta 1
        return rounded[None, :] + _dlap(self._rng, rate, (n, 2))


# ---------------------------------------------------------------------------------------------
# 7. Laplace per coordinate for an l2-bounded 3-vector.                        neighbour relation
# ---------------------------------------------------------------------------------------------


class SpreadL2(_Base):
    """Three reals with l2 sensitivity 1 plus Laplace noise per coordinate, each output rounded
    to a multiple of 0.25.  A unit l2 move has l1 norm up to sqrt 3, spread evenly.  Correct:
    scale sqrt(3)/eps; eps 1, tight in the tails at 0 vs (1, 1, 1)/sqrt 3.  Broken: scale
    1/eps (a unit move taken as one coordinate's): eps sqrt 3 = 1.732 at that pair, sqrt 2
    at a move spread over two coordinates, 1 along an axis."""

    mechanism = "spread_l2"
    description = "3-vector plus Laplace per coordinate, rounded to 0.25"
    true_values = (1.0, math.sqrt(3))
    true_texts = (
        "eps 1 (tight: 0 vs (1, 1, 1)/sqrt 3, outputs above both answers in every coordinate)",
        "eps 1.7321: 0 vs (1, 1, 1)/sqrt 3, event: all three outputs >= 1 (axis moves show 1)",
    )
    epsilon = 1.0
    input_kind = "vector"
    norm, sensitivity = "l2", 1
    query_length = 3
    query_bounds = (-10, 10)
    output_kind = "real"
    output_length = 3

    def sample(self, query, n):
        x = np.clip(np.asarray(query, dtype=float).ravel(), -10, 10)
        scale = 1 / self.epsilon if self.broken else math.sqrt(3) / self.epsilon  # BUG if broken
        y = x[None, :] + self._rng.laplace(0.0, scale, (n, 3))
        return np.floor(y * 4 + 0.5) / 4


# ---------------------------------------------------------------------------------------------
# 8. A count kept inside its range by rejection.                           rare output at the top
# ---------------------------------------------------------------------------------------------


class RetryCap(_Base):
    """A count in [0, 20] (Delta 1) plus discrete Laplace noise of rate 0.5, redrawn until the
    output lies in [0, 20] (the truncated law; its normaliser makes the edge pair the worst:
    eps = 0.5 + ln(N(1) / N(0)) = 0.7140139, the claim 0.714014).  Broken: the sampler gives up after
    5 draws and returns NaN, which the top count 20 does w.p. 0.0077 and 19 w.p. 0.00063 (and
    mid-range counts almost never): eps 2.4996 at 20 vs 19 (or 0 vs 1), event: NaN."""

    mechanism = "retry_cap"
    description = "count + discrete Laplace redrawn until in range"
    true_values = (0.714014, 2.4996)
    true_texts = (
        "eps 0.7140139 (claim 0.714014, tight: 0 vs 1, output 0; 20 vs 19, output 20)",
        "eps 2.4996: 20 vs 19, event: NaN (0.00767 vs 0.00063; 5 failed draws, each failing w.p. about P(Z >= 1) vs P(Z >= 2))",
    )
    epsilon = 0.714014
    rate = 0.5
    input_kind = "scalar"
    sensitivity = 1
    integer_queries = True
    query_bounds = (0, 20)
    output_kind = "integer"
    nullable = True

    def sample(self, query, n):
        x = int(min(max(round(float(query)), 0), 20))
        out = np.full(n, np.nan)
        pending = np.arange(n)
        tries = 0
        while pending.size and not (self.broken and tries == 5):  # BUG when broken: 5 tries
            y = x + _dlap(self._rng, self.rate, pending.size)
            ok = (y >= 0) & (y <= 20)
            out[pending[ok]] = y[ok]
            pending = pending[~ok]
            tries += 1
        return out


_CLASSES = [
    KeyedBins,
    LocalTruncated,
    TopValue,
    GatedArgmax,
    SnapBound,
    RoundL1,
    SpreadL2,
    RetryCap,
]

ADAPTERS = [cls(broken=b) for cls in _CLASSES for b in (False, True)]
TRUE_VALUES = {a.name: a.true_value for a in ADAPTERS}
