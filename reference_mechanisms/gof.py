"""Goodness-of-fit check of an integer-valued sampler against its exact pmf (chi-square).

Used by the tests that audit the reference mechanisms themselves: the sampled distribution must
be the one the mechanism promises, and a deliberately wrong parameter must be rejected (power).
Floats are fine here: this only *evaluates* samples, it never decides a mechanism's output.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from scipy import stats

__all__ = ["ChiSquareResult", "chisquare_integer"]


@dataclass(frozen=True)
class ChiSquareResult:
    """Outcome of :func:`chisquare_integer`: statistic, p-value and the pooled bins' edges."""

    statistic: float
    pvalue: float
    bins: int
    observed: tuple[int, ...]
    expected: tuple[float, ...]


def chisquare_integer(
    samples: np.ndarray,
    pmf: Callable[[int], float] | Sequence[float],
    window: tuple[int, int],
    min_expected: float = 5.0,
) -> ChiSquareResult:
    """Chi-square test of integer ``samples`` against ``pmf`` on ``window = (lo, hi)``.

    Consecutive support points are pooled (left to right) until each bin's expected count is at
    least ``min_expected``; samples below ``lo`` join the first bin and above ``hi`` the last, so
    the tails are pooled.  The window must carry all but 1e-9 of the probability mass (checked),
    otherwise the tails would be mis-modelled.

    Args:
        samples: 1-D integer array.
        pmf: callable ``x -> P[X = x]`` or a sequence of probabilities for ``lo..hi``.
        window: inclusive integer range holding essentially all the mass.
        min_expected: minimum expected count per bin (5 is the usual rule).

    Raises:
        ValueError: the window misses more than 1e-9 of the mass, or fewer than 2 bins result.
    """
    lo, hi = int(window[0]), int(window[1])
    xs = np.arange(lo, hi + 1)
    probs = (
        np.array([float(pmf(int(x))) for x in xs])
        if callable(pmf)
        else np.asarray(pmf, dtype=float)
    )
    if probs.shape != xs.shape:
        raise ValueError(f"pmf has {probs.size} values for a window of {xs.size}")
    mass = probs.sum()
    if abs(mass - 1.0) > 1e-9:
        raise ValueError(f"window={window!r} holds mass {mass!r}, not ~1")
    samples = np.asarray(samples)
    n = samples.size
    counts = np.bincount(np.clip(samples, lo, hi).astype(np.int64) - lo, minlength=xs.size)
    expected = n * probs / mass
    obs_bins: list[int] = []
    exp_bins: list[float] = []
    acc_o, acc_e = 0, 0.0
    for c, e in zip(counts, expected, strict=True):
        acc_o += int(c)
        acc_e += float(e)
        if acc_e >= min_expected:
            obs_bins.append(acc_o)
            exp_bins.append(acc_e)
            acc_o, acc_e = 0, 0.0
    if acc_e > 0 or acc_o > 0:
        if not exp_bins:
            raise ValueError("fewer than 2 bins with enough expected count")
        obs_bins[-1] += acc_o
        exp_bins[-1] += acc_e
    if len(exp_bins) < 2:
        raise ValueError("fewer than 2 bins with enough expected count")
    res = stats.chisquare(np.array(obs_bins), np.array(exp_bins))
    return ChiSquareResult(
        statistic=float(res.statistic),
        pvalue=float(res.pvalue),
        bins=len(exp_bins),
        observed=tuple(obs_bins),
        expected=tuple(exp_bins),
    )
