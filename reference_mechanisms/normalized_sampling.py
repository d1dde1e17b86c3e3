"""Division-free exact sampling from weights ``base^d`` (Ilvento's normalized sampling).

The textbook algorithm: t = sum of the (exact) weights; k = smallest integer with 2^k >= t; draw a
uniform dyadic s in [0, 2^k) from random integers; reject and redraw if s >= t; otherwise return
the first index whose cumulative weight exceeds s.  The output is exactly ``w_i / t``.

:class:`LevelSampler` runs the same algorithm without materialising ``t`` to full precision
(which for 75,000 distinct utilities would need hundreds of thousands of bits per cumulative
weight).  Outcomes are grouped by level d (weight ``base^d``); at a working scale ``2^-P`` it keeps
integer bounds ``CL_d <= 2^P S_d <= CU_d`` on the cumulative weights ``S_d``: floor and ceil of
exact partial sums of exact MPFR weights for the h levels above ``2^-P / k``, and one shared bound
for the tail below (whose total is < 2^-P).  A draw reveals the first P bits of s, i.e. s in
[r, r+1) 2^-P.  When that interval decides both the rejection test and the level, the answer is
the one exact arithmetic would give; otherwise (each boundary is uncertain over at most 2 of the
``~2^P t`` values of r, so this happens with probability below ``2 (h + 1) / 2^P``, about 1e-10 for
75,000 outcomes) the draw *refines*: more bits of the same s are drawn and the bounds recomputed at
twice the precision, until they decide (at full precision the bounds are exact, so this ends).  So
the sampled distribution is exactly ``c_d base^d / t`` per level, then uniform within the level.

References:
    Ilvento, "Implementing the Exponential Mechanism with Base-2 Differential Privacy", CCS 2020
    (normalized_sample); ``cilvento/b2dp`` ``exactarithmetic.rs``.

Assumptions:
    ``rng.integers`` is exactly uniform.  Timing: the rare refinement and the rejection loop take
    data-dependent time (documented in Ilvento's code as well); this reference implementation is
    for auditing, not for production use against timing adversaries.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Sequence
from typing import Any

import gmpy2
import numpy as np

from reference_mechanisms.base2_arithmetic import Eta, empirical_precision, iter_exact_weights
from reference_mechanisms.randomness import IntegerSource, randbelow

__all__ = ["LevelSampler", "normalized_sample"]


def normalized_sample(weights: Sequence[Any], rng: IntegerSource) -> int:
    """Ilvento's division-free sampler on *exact* non-negative weights (ints, Fractions, mpfr, mpq).

    Returns index i with probability ``weights[i] / sum(weights)`` exactly.  Weights are brought to
    a common integer scale first (exact), so this is only practical for modest precision; it is
    the literal algorithm the fast :class:`LevelSampler` is tested against.

    Raises:
        ValueError: empty weights, a negative weight, or all weights zero.
    """
    if len(weights) == 0:
        raise ValueError("weights must be non-empty")
    ratios = [
        w.as_integer_ratio() if hasattr(w, "as_integer_ratio") else (int(w), 1) for w in weights
    ]
    den = math.lcm(*(d for _, d in ratios))
    ints = [n * (den // d) for n, d in ratios]
    if any(v < 0 for v in ints):
        raise ValueError("weights must be >= 0")
    t = sum(ints)
    if t == 0:
        raise ValueError("weights must not all be zero")
    k = (t - 1).bit_length()  # smallest k with 2^k >= t (weights scaled to integers)
    while True:
        s = randbelow(rng, 1 << k)
        if s >= t:
            continue
        acc = 0
        for i, w in enumerate(ints):
            acc += w
            if acc > s:
                return i


class LevelSampler:
    """Exact sampler of an outcome index i with probability proportional to ``base^levels[i]``.

    Args:
        levels: 1-D non-negative integer array (the distance of each outcome from the best).
        eta: the base-2 parameter; ``base = (x / 2^y)^z``.
        precision: working scale P in bits (default: the largest keeping int64 sums safe).  A
            smaller value only makes refinements more frequent (tests use it to exercise them);
            the distribution is the same.
        weight_precision: how the MPFR precision of the exact weights is chosen (inexact
            operations are trapped either way): ``"analytic"`` (default) gives each weight
            ``base^d`` the analytic bound for its own mantissa; ``"empirical"`` runs Ilvento's
            doubling search (:func:`empirical_precision`) over the weights in use.

    Raises:
        ValueError: empty or negative levels, precision not in [1, 60 - bitlen(k)], unknown
            weight_precision.
    """

    def __init__(
        self,
        levels: np.ndarray,
        eta: Eta,
        precision: int | None = None,
        weight_precision: str = "analytic",
    ) -> None:
        levels = np.asarray(levels, dtype=np.int64)
        if levels.ndim != 1 or levels.size == 0:
            raise ValueError(f"levels must be a non-empty 1-D array, got shape {levels.shape}")
        if levels.min() < 0:
            raise ValueError("levels must be >= 0")
        if weight_precision not in ("analytic", "empirical"):
            raise ValueError(
                f"weight_precision={weight_precision!r} must be 'analytic' or 'empirical'"
            )
        self.weight_precision = weight_precision
        self.eta = eta
        self.k = int(levels.size)
        self.counts = np.bincount(levels)
        self.order = np.argsort(levels, kind="stable")
        self.starts = np.concatenate(([0], np.cumsum(self.counts)[:-1]))
        self.d_max = int(self.counts.size - 1)
        # working scale: CU_total <= k 2^P + k + 1 < 2^61 keeps int64 arithmetic safe
        p_max = 60 - self.k.bit_length()
        if precision is not None and not 1 <= precision <= p_max:
            raise ValueError(f"precision={precision!r} must be in [1, {p_max}]")
        self.precision = p_max if precision is None else int(precision)
        self._cl, self._cu = self._cumulative_bounds(self.precision)
        self._cl_tot, self._cu_tot = int(self._cl[-1]), int(self._cu[-1])
        self._k_bits = self._cu_tot.bit_length()  # 2^K > CU_total >= 2^P t
        self.refinements = 0  # how often a draw needed more precision (diagnostics)

    @property
    def cumulative_bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """Copies of ``(CL, CU)``: integer bounds on ``2^P`` times the cumulative level weights."""
        return self._cl.copy(), self._cu.copy()

    # ---------------------------------------------------------------- bounds
    def _head_size(self, p: int) -> int:
        """Smallest h with k * base^h * 2^p <= 1 (exact check), capped at d_max + 1."""
        x, y, z = self.eta.x, self.eta.y, self.eta.z
        eta_bits = self.eta.eta  # float estimate only; the loop below checks exactly
        if eta_bits <= 0:
            return self.d_max + 1
        h = min(self.d_max + 1, max(0, math.ceil((p + math.log2(self.k)) / eta_bits) - 1))
        while h <= self.d_max and (x ** (z * h)) * self.k << p > 1 << (y * z * h):
            h += 1
        return min(h, self.d_max + 1)

    def _cumulative_lists(self, p: int) -> tuple[list[int], list[int]]:
        """floor/ceil of ``2^p S_d`` for every level d, ``S_d`` the exact cumulative weight.

        Head levels (d < h) use exact partial sums of the exact MPFR weights, so each bound is
        within 1 of the truth; tail levels share one bound, since the whole tail is < 2^-p.
        """
        h = self._head_size(p)
        wp = None
        if self.weight_precision == "empirical" and h > 0:
            wp = empirical_precision(self.eta, h - 1, self.k)
        acc, acc_exp = gmpy2.mpz(0), 0  # exact partial sum acc / 2^acc_exp (dyadic weights)
        cl: list[int] = []
        cu: list[int] = []
        for d, w in enumerate(iter_exact_weights(self.eta, h - 1, wp)):
            cnt = int(self.counts[d])
            if cnt:
                num, den = w.as_integer_ratio()  # gmpy2 mpz: no conversion of big integers
                e = den.bit_length() - 1  # den is a power of two
                if e > acc_exp:
                    acc <<= e - acc_exp
                    acc_exp = e
                acc += (cnt * num) << (acc_exp - e)
            if p >= acc_exp:
                f = int(acc << (p - acc_exp))
                cl.append(f)
                cu.append(f)
            else:
                sh = acc_exp - p
                f = int(acc >> sh)
                cl.append(f)
                cu.append(f + 1 if gmpy2.f_mod_2exp(acc, sh) else f)  # bits below 2^sh?
        if h <= self.d_max:  # tail: total tail weight * 2^p <= 1
            lo_tail, hi_tail = (cl[-1], cu[-1] + 1) if h else (0, 1)
            cl.extend([lo_tail] * (self.d_max + 1 - h))
            cu.extend([hi_tail] * (self.d_max + 1 - h))
        return cl, cu

    def _cumulative_bounds(self, p: int) -> tuple[np.ndarray, np.ndarray]:
        cl, cu = self._cumulative_lists(p)
        return np.asarray(cl, dtype=np.int64), np.asarray(cu, dtype=np.int64)

    # --------------------------------------------------------------- drawing
    def sample_levels(self, n: int, rng: IntegerSource) -> np.ndarray:
        """``n`` exact draws of the level d, P[d] = counts[d] base^d / t."""
        out = np.empty(n, dtype=np.int64)
        todo = np.arange(n)
        while todo.size:
            r = np.asarray(rng.integers(0, 1 << self._k_bits, size=todo.size), dtype=np.int64)
            sure = r < self._cl_tot  # r + 1 <= CL_total: s < t for sure
            a = np.searchsorted(self._cl, r + 1, side="left")  # first d with CL_d >= r + 1
            b = np.searchsorted(self._cu, r, side="right")  # first d with CU_d > r
            done = sure & (a == b)
            out[todo[done]] = a[done]
            ambiguous = np.flatnonzero(~done & (r < self._cu_tot))
            refined = np.zeros(todo.size, dtype=bool)
            for i in ambiguous:
                level = self._refine(int(r[i]), rng)
                if level is not None:
                    out[todo[i]] = level
                    refined[i] = True
            todo = todo[~done & ~refined]
        return out

    def _refine(self, r: int, rng: IntegerSource) -> int | None:
        """Decide an ambiguous draw exactly: more bits of s, doubled precision, until decided.

        Returns the level, or None when s >= t (the draw is rejected and redrawn).
        """
        self.refinements += 1
        p = self.precision
        while True:
            extra = p
            r = (r << extra) | randbelow(rng, 1 << extra)
            p += extra
            cl, cu = self._cumulative_lists(p)
            if r >= cu[-1]:
                return None  # s >= t: reject
            if r + 1 > cl[-1]:
                continue
            a = bisect.bisect_left(cl, r + 1)  # first d with CL_d >= r + 1
            if a == bisect.bisect_right(cu, r):  # ... and the first d with CU_d > r
                return a

    def sample(self, n: int, rng: IntegerSource) -> np.ndarray:
        """``n`` outcome indices, P[i] = base^levels[i] / t exactly (int64)."""
        levels = self.sample_levels(n, rng)
        cnt = self.counts[levels]
        within = np.asarray(rng.integers(0, cnt), dtype=np.int64) if n else levels
        picked: np.ndarray = self.order[self.starts[levels] + within]
        return picked
