"""The Scale algorithm (Dwork–Roth Alg. 12): releasing the interquartile range by PTR, exactly.

Book statement implemented (Dwork–Roth §7.2, after Dwork–Lei 2009): for each of two
discretisations of the positive reals into bins of constant width in ``log2`` — (1) ``[2^k,
2^(k+1))`` and (2) ``[2^(k+1/2), 2^(k+3/2))`` — compute ``A_j(x)``, the number of records that must
change to move ``IQR(x)`` into another bin of discretisation j; if ``A_j(x) + z_j <= 1 +
ln(1/delta)/epsilon`` with ``z_j ~ Lap(1/epsilon)`` set ``s_j = ⊥``, else ``s_j = IQR(x) *
2^(z'_j)`` with ``z'_j ~ Lap(1/epsilon)``.  Return ``s_1`` if it is not ⊥, else ``s_2``.
Claim: **(4 epsilon, delta)-DP** (each discretisation spends epsilon on the test and epsilon on the
release, and contributes delta/2 of failure probability).

Exact version (no float decides anything):

* IQR = ``x_(ceil(3n/4)) - x_(ceil(n/4))`` (order statistics, 1-based), computed in rationals; an
  IQR of 0 forms its own bin (it is released as 0.0 when the test passes: every neighbour within
  the bin has IQR 0).
* ``A_j`` is replaced by the lower bound ``A'_j = min t >= 1`` such that the interval
  ``[x_(i3-t) - x_(i1+t), x_(i3+t) - x_(i1-t)]`` (±inf outside 1..n) leaves the bin: it contains
  the IQR of every dataset within t additions/removals, so ``A'_j`` has sensitivity 1 (a
  neighbour's interval at t is inside this one's at t + 1) and ``A'_j >= 2`` means every
  neighbour shares the bin — the properties the proof needs.  Neighbours: add/remove.
* The test is :func:`ptr.noisy_test` on ``A'_j - 1`` (grid 1/G, threshold one grid step higher
  than the book's, failure probability <= delta/2 per discretisation).
* The release is ``2^((l + Z)/G)`` with ``l = floor(G log2 IQR)`` (exact integer: the bit length
  of a rational power) and ``Z ~ DLap(scale G/epsilon)``: within one bin ``l`` moves by at most
  G - 1 (G even), so this is epsilon-DP; the float conversion is post-processing of an integer.

References:
    Dwork, Roth, "The Algorithmic Foundations of Differential Privacy", 2014, §7.2, Algorithm 12.
    Dwork, Lei, "Differential Privacy and Robust Statistics", STOC 2009.

Assumptions:
    ``rng.integers`` is exactly uniform; neighbours differ by adding or removing one record.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np

from reference_mechanisms.discrete_laplace import sample_discrete_laplace
from reference_mechanisms.params import check_count
from reference_mechanisms.ptr import (
    NoisyTestParameters,
    check_dataset,
    noisy_test,
)
from reference_mechanisms.randomness import IntegerSource

__all__ = ["IQRScale", "iqr_bin", "iqr_stability"]

_INF = None  # marker for an unbounded interval end


def _floor_log2(v: Fraction) -> int:
    """floor(log2 v) for a rational v > 0, exactly."""
    k = v.numerator.bit_length() - v.denominator.bit_length()
    if Fraction(2) ** k > v:
        k -= 1
    elif Fraction(2) ** (k + 1) <= v:
        k += 1
    return k


def iqr_bin(v: Fraction | None, j: int) -> int | None | str:
    """Bin of a value in discretisation j (1 or 2): an int k, "zero" for v <= 0, None for +inf."""
    if v is _INF:
        return None
    if v <= 0:
        return "zero"
    if j == 1:
        return _floor_log2(v)
    return (_floor_log2(v * v) - 1) // 2  # floor(log2 v - 1/2)


def _quartile_indices(n: int) -> tuple[int, int]:
    return -(-n // 4), -(-3 * n // 4)  # ceil(n/4), ceil(3n/4), 1-based


def iqr_stability(xs: np.ndarray, j: int) -> tuple[Fraction, int]:
    """``(IQR, A'_j)`` for sorted records ``xs`` (see the module docstring)."""
    vals = [Fraction(float(v)) for v in xs]
    n = len(vals)
    i1, i3 = _quartile_indices(n)
    iqr = vals[i3 - 1] - vals[i1 - 1]
    b = iqr_bin(iqr, j)

    def at(i: int) -> Fraction | None:
        return vals[i - 1] if 1 <= i <= n else _INF

    t = 1
    while True:
        lo3, hi1 = at(i3 - t), at(i1 + t)
        hi3, lo1 = at(i3 + t), at(i1 - t)
        lower = Fraction(0) if lo3 is _INF or hi1 is _INF else max(Fraction(0), lo3 - hi1)
        upper = _INF if hi3 is _INF or lo1 is _INF else hi3 - lo1
        if iqr_bin(lower, j) != b or iqr_bin(upper, j) != b:
            return iqr, t
        t += 1


def _log_units(iqr: Fraction, grid: int) -> int:
    """floor(grid * log2 iqr) exactly, for iqr > 0."""
    return _floor_log2(iqr**grid)


class IQRScale(NoisyTestParameters):
    """Dwork–Roth's Scale algorithm with exact samplers; outputs floats, NaN for ⊥.

    Args:
        epsilon: per-step epsilon (> 0); the claim is ``(4 epsilon, delta)``.
        delta: in (0, 1).
        domain: ``(lo, hi)`` records must lie in.
        grid: G, an even number of grid points per unit (of distance, and of log2 IQR).

    Raises:
        ValueError: bad epsilon, delta, domain or grid.
    """

    def __init__(
        self, epsilon: float, delta: float, domain: tuple[float, float], grid: int = 16
    ) -> None:
        super().__init__(epsilon, delta, domain, grid, min_grid=2, even_grid=True)

    @property
    def claimed_epsilon(self) -> float:
        return 4 * self.epsilon

    def sample(self, x: Any, n: int, rng: IntegerSource) -> np.ndarray:
        """``n`` independent releases on dataset ``x`` (float64; NaN = ⊥)."""
        n = check_count(n)
        xs = check_dataset(x, self.domain)
        out = np.full(n, np.nan)
        todo = np.arange(n)
        for j in (1, 2):
            iqr, a = iqr_stability(xs, j)
            ok = noisy_test(
                np.full(n, (a - 1) * self.grid),
                self.grid,
                self.threshold_units,
                self.epsilon_q,
                rng,
            )
            rel = self._release(iqr, n, rng)  # drawn for all (as the book does), used if passed
            take = todo[ok[todo]]
            out[take] = rel[take]
            todo = todo[~ok[todo]]
        return out

    def _release(self, iqr: Fraction, n: int, rng: IntegerSource) -> np.ndarray:
        z = sample_discrete_laplace(Fraction(self.grid) / self.epsilon_q, n, rng)
        if iqr == 0:
            return np.zeros(n)
        return np.exp2((_log_units(iqr, self.grid) + z) / self.grid)

    def release_units(self, x: Any) -> list[tuple[Fraction, int, int | None]]:
        """Per discretisation: ``(IQR, A'_j, floor(G log2 IQR) or None)`` (for tests/diagnostics)."""
        xs = check_dataset(x, self.domain)
        out: list[tuple[Fraction, int, int | None]] = []
        for j in (1, 2):
            iqr, a = iqr_stability(xs, j)
            out.append((iqr, a, _log_units(iqr, self.grid) if iqr > 0 else None))
        return out
