"""Subsample-and-aggregate A_samp (Dwork–Roth §7.3) with an exact mode/PTR step.

Statement implemented (Dwork–Roth §7.3, "Stability and privacy" A_samp, mode aggregation through
A_dist), for a dataset ``x`` of n records and a function f with a finite range:

1. ``q <- epsilon / (64 ln(1/delta))``, ``m <- log(n/delta) / q^2``.
2. Subsample m datasets ``x^_1..x^_m``, each keeping every *position* of x independently with
   probability q.
3. If some position appears in more than ``2mq`` subsamples: halt and output ⊥.
4. Else ``z = (f(x^_1), ..., f(x^_m))``; with ``count(1) >= count(2)`` the two largest counts of
   values in z, ``d <- (count(1) - count(2)) / (4mq) - 1`` and run A_dist on (mode, z): output
   ``mode(z)`` if ``d + Lap(1/epsilon) > ln(1/delta)/epsilon``, else ⊥.

Claim: **(epsilon, delta)-DP** for neighbours that *replace* one record (n fixed).  Why it holds
for this implementation: couple the membership bits of the two neighbours (they are drawn per
position), so the abort event is identical; without abort the changed position is in at most 2mq
subsamples, so ``count(1) - count(2)`` moves by at most 4mq and d by at most 1 (test epsilon-DP);
and if ``d > 0`` the mode cannot change, while for ``d <= 0`` the test passes with probability
< delta/2.  (The book's choice of m is for accuracy, not privacy.)

Exactness: ``q`` is rounded *down* to a multiple of 2^-20 (rigorous MPFR bound) and m up to an
integer; memberships are ``uniform integer < q 2^20``; the abort test and d are integer/rational
arithmetic; the PTR step is :func:`ptr.noisy_test` on a grid of step ``1/G`` with ``G`` the
smallest integer making ``G d`` an integer.  Records are first discretised to ``floor(record)``
(a per-record map, so replace-neighbours stay neighbours); the example f is ``floor(mean)`` of a
subsample's integer records (exact integer division); an empty subsample maps to ``lo - 1``.
⊥ = NaN.

Cost per release: ``m * n`` membership draws (vectorised in chunks).  Keep ``epsilon`` large and
``delta`` not tiny in audits: ``m`` grows like ``ln(n/delta) (64 ln(1/delta) / epsilon)^2``.

References:
    Dwork, Roth, "The Algorithmic Foundations of Differential Privacy", 2014, §7.3.
    Nissim, Raskhodnikova, Smith, "Smooth Sensitivity and Sampling in Private Data Analysis",
    STOC 2007 (sample-and-aggregate).  Smith, "Privacy-preserving statistical estimation with
    optimal convergence rates", STOC 2011.

Assumptions:
    ``rng.integers`` is exactly uniform; records lie in the declared (integer-bounded) domain.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import gmpy2
import numpy as np

from reference_mechanisms.params import check_count, check_delta, check_epsilon, rational_floor
from reference_mechanisms.ptr import (
    check_dataset,
    check_domain,
    floor_scaled_log_threshold,
    noisy_test,
)
from reference_mechanisms.randomness import IntegerSource

__all__ = ["SubsampleAndAggregate"]

Q_BITS = 20
_CHUNK = 1 << 21  # membership draws per vectorised chunk


def subsampling_rate(epsilon: Fraction, delta: Fraction) -> Fraction:
    """``q``: the largest multiple of 2^-20 that is <= epsilon / (64 ln(1/delta)) (rigorous)."""
    with gmpy2.context(precision=128, round=gmpy2.RoundUp):
        den = gmpy2.log(gmpy2.mpfr(gmpy2.mpq(delta.denominator, delta.numerator))) * 64
    with gmpy2.context(precision=128, round=gmpy2.RoundDown):
        q = gmpy2.mpfr(gmpy2.mpq(epsilon.numerator, epsilon.denominator)) / den
        a = int(gmpy2.floor(q * (1 << Q_BITS)))
    a = min(a, 1 << Q_BITS)
    if a <= 0:
        raise ValueError(f"epsilon={float(epsilon)!r} too small: q would round to 0")
    return Fraction(a, 1 << Q_BITS)


class SubsampleAndAggregate:
    """A_samp with f = floor(mean) on integer records; outputs the mode or NaN (⊥).

    Args:
        epsilon: > 0 (rounded down to a multiple of 2^-30).
        delta: in (0, 1).
        domain: ``(lo, hi)``, integer bounds of the records.

    Raises:
        ValueError: bad epsilon, delta or domain (non-integer bounds).
    """

    def __init__(self, epsilon: float, delta: float, domain: tuple[float, float]) -> None:
        self.epsilon = check_epsilon(epsilon)
        self.delta = check_delta(delta, positive=True)
        self.domain = check_domain(domain)
        if any(v != math.floor(v) for v in self.domain):
            raise ValueError(f"domain={domain!r} must have integer bounds")
        self.epsilon_q = rational_floor(self.epsilon)
        self.q = subsampling_rate(self.epsilon_q, Fraction(self.delta))

    def rounds(self, n_records: int) -> int:
        """m = ceil(ln(n/delta) / q^2) (rounded up with a rigorous upper bound of the log)."""
        d = Fraction(self.delta)
        with gmpy2.context(precision=128, round=gmpy2.RoundUp):
            v = gmpy2.log(gmpy2.mpfr(gmpy2.mpq(n_records * d.denominator, d.numerator)))
            v = v / gmpy2.mpfr(gmpy2.mpq(self.q.numerator, self.q.denominator)) ** 2
            return max(1, int(gmpy2.ceil(v)))

    def statistics(
        self, xs: np.ndarray, n: int, rng: IntegerSource
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
        """For n releases: (aborted, mode, gap = count(1) - count(2), m) — the exact internals."""
        recs = xs.astype(np.int64)
        size = recs.size
        m = self.rounds(size)
        lo = int(self.domain[0])
        a = self.q.numerator * ((1 << Q_BITS) // self.q.denominator)
        ncat = int(self.domain[1]) - lo + 2  # values lo-1 (empty) .. hi
        aborted = np.empty(n, dtype=bool)
        mode = np.empty(n, dtype=np.int64)
        gap = np.empty(n, dtype=np.int64)
        batch = max(1, _CHUNK // (m * size))
        for start in range(0, n, batch):
            b = min(batch, n - start)
            bits = np.asarray(rng.integers(0, 1 << Q_BITS, size=(b, m, size))) < a
            b8 = bits.view(np.uint8)
            per_pos = b8.sum(axis=1, dtype=np.int64)  # (b, size): subsamples holding a position
            aborted[start : start + b] = np.any(per_pos * (1 << Q_BITS) > 2 * m * a, axis=1)
            cnt = b8.sum(axis=2, dtype=np.int64)
            tot = np.einsum("bms,s->bm", b8, recs)
            val = np.where(cnt > 0, np.floor_divide(tot, np.maximum(cnt, 1)), lo - 1)
            flat = (np.arange(b)[:, None] * ncat + (val - (lo - 1))).ravel()
            counts = np.bincount(flat, minlength=b * ncat).reshape(b, ncat)
            top = np.argmax(counts, axis=1)  # ties: smallest value
            srt = np.sort(counts, axis=1)
            mode[start : start + b] = top + lo - 1
            gap[start : start + b] = srt[:, -1] - srt[:, -2]
        return aborted, mode, gap, m

    def sample(self, x: Any, n: int, rng: IntegerSource) -> np.ndarray:
        """``n`` independent releases on dataset ``x`` (float64; NaN = ⊥).

        Raises:
            ValueError: empty, non-finite or out-of-domain records; ``n`` negative.
        """
        n = check_count(n)
        xs = check_dataset(x, self.domain)
        xs = np.floor(xs)  # per-record discretisation: replace-neighbours stay neighbours
        aborted, mode, gap, m = self.statistics(xs, n, rng)
        grid, units = self.ptr_grid(m)
        stat = gap * units - grid  # G d = G gap / (4mq) - G, an integer
        thr = floor_scaled_log_threshold(grid, Fraction(self.delta), self.epsilon_q)
        ok = noisy_test(stat, grid, thr, self.epsilon_q, rng) & ~aborted
        return np.where(ok, mode.astype(np.float64), np.nan)

    def ptr_grid(self, m: int) -> tuple[int, int]:
        """(G, G/(4mq)): the smallest G making G/(4mq) an integer."""
        four_mq = 4 * m * self.q
        grid = four_mq.numerator
        return grid, int(Fraction(grid) / four_mq)
