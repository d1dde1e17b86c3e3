"""Chi-square tests: report-noisy-max and the Dwork–Roth ch. 7 mechanisms against exact pmfs.

Each test uses a fixed seed and requires p > 1e-4 (a random seed would fail with probability 1e-4
per test for a correct sampler).  Each has a power twin: the same samples against the pmf of a
deliberately wrong parameter must give p < 1e-4.
"""

from __future__ import annotations

from fractions import Fraction
from math import comb

import gmpy2
import numpy as np
import pytest

from reference_mechanisms.discrete_laplace import discrete_laplace_pmf
from reference_mechanisms.gof import chisquare_integer
from reference_mechanisms.iqr_scale import IQRScale
from reference_mechanisms.ptr import PTRMedian, pass_probability
from reference_mechanisms.report_noisy_max import ReportNoisyMax
from reference_mechanisms.subsample_aggregate import SubsampleAndAggregate

ALPHA = 1e-4


def _pvalue(codes: np.ndarray, probs) -> float:
    p = np.array([float(v) for v in probs])
    return chisquare_integer(codes, p / p.sum(), (0, p.size - 1)).pvalue


# ------------------------------------------------------------------- report noisy max
@pytest.mark.parametrize("eps", [0.5, 2.0])
def test_report_noisy_max_matches_exact_pmf(eps: float) -> None:
    u = np.array([0.0, 1.0, 2.0, 2.0, 3.5, -1.0, 0.25])
    m = ReportNoisyMax(eps)
    x = m.sample(u, 200_000, np.random.default_rng(21))
    assert _pvalue(x, m.probabilities(u)) > ALPHA
    assert _pvalue(x, ReportNoisyMax(eps * 1.2).probabilities(u)) < ALPHA


def test_report_noisy_max_is_not_the_exponential_mechanism() -> None:
    # same epsilon, exponential-mechanism probabilities exp(eps u / 2) / sum: must be rejected
    u = np.array([0.0, 1.0, 2.0, 3.0])
    x = ReportNoisyMax(1.0).sample(u, 200_000, np.random.default_rng(22))
    w = np.exp(0.5 * u)
    assert _pvalue(x, w / w.sum()) < ALPHA


# ------------------------------------------------------------------------ PTR median
def _ptr_codes(out: np.ndarray) -> np.ndarray:
    return np.where(np.isnan(out), 0, 1)


def test_ptr_median_release_probability() -> None:
    x = np.array([1, 2] + [5] * 5 + [8, 9], dtype=float)  # median 5, distance bound 2
    m = PTRMedian(1.0, 0.1, (0, 10))
    med, p = m.release_probability(x)
    assert med == 5.0 and 0.2 < p < 0.8
    out = m.sample(x, 100_000, np.random.default_rng(23))
    assert set(np.unique(out[~np.isnan(out)])) == {5.0}
    assert _pvalue(_ptr_codes(out), [1 - p, p]) > ALPHA
    _, p_wrong = PTRMedian(1.3, 0.1, (0, 10)).release_probability(x)
    assert _pvalue(_ptr_codes(out), [1 - p_wrong, p_wrong]) < ALPHA


# ------------------------------------------------------------------------- IQR scale
def test_iqr_scale_matches_exact_pmf() -> None:
    x = np.array([0] * 12 + [5] * 8 + [10] * 8 + [15] * 12, dtype=float)
    eps, grid = 1.0, 16
    mech = IQRScale(eps, 0.1, (0, 20), grid=grid)
    units = mech.release_units(x)
    out = mech.sample(x, 100_000, np.random.default_rng(24))

    def pmf(mech_eps: float):
        e = Fraction(mech_eps)
        scale = Fraction(grid) / e
        thr = (
            mech.threshold_units
            if mech_eps == eps
            else IQRScale(mech_eps, 0.1, (0, 20), grid=grid).threshold_units
        )
        passes = [float(pass_probability((a - 1) * grid, grid, thr, e)) for _, a, _ in units]
        ls = [lu for _, _, lu in units]
        lo, hi = min(ls) - 40 * grid, max(ls) + 40 * grid
        probs = [(1 - passes[0]) * (1 - passes[1])]  # code 0 = ⊥
        for t in range(lo, hi + 1):
            v = passes[0] * float(discrete_laplace_pmf(t - ls[0], scale))
            v += (1 - passes[0]) * passes[1] * float(discrete_laplace_pmf(t - ls[1], scale))
            probs.append(v)
        return lo, probs

    lo, probs = pmf(eps)
    codes = np.where(
        np.isnan(out), 0, np.rint(grid * np.log2(np.where(np.isnan(out), 1, out))) - lo + 1
    ).astype(np.int64)
    assert 0.05 < np.isnan(out).mean() < 0.95
    assert _pvalue(codes, probs) > ALPHA
    lo_w, probs_w = pmf(1.25)
    codes_w = np.where(codes == 0, 0, codes + lo - lo_w)
    assert _pvalue(codes_w, probs_w) < ALPHA


# --------------------------------------------------------------- subsample and aggregate
def _samp_release_probability(mech: SubsampleAndAggregate, q: Fraction) -> float:
    """One record: C ~ Bin(m, q) subsamples hold it; categories {record: C, empty: m - C}."""
    m = mech.rounds(1)
    grid, units = mech.ptr_grid(m)
    from reference_mechanisms.ptr import floor_scaled_log_threshold

    thr = floor_scaled_log_threshold(grid, Fraction(mech.delta), mech.epsilon_q)
    total = gmpy2.mpfr(0)
    with gmpy2.context(precision=128):
        for c in range(m + 1):
            if c * mech.q.denominator * 1 > 2 * m * mech.q.numerator:  # abort: c > 2 m q
                continue
            pc = (
                comb(m, c)
                * gmpy2.mpfr(gmpy2.mpq(q.numerator, q.denominator)) ** c
                * (1 - gmpy2.mpfr(gmpy2.mpq(q.numerator, q.denominator))) ** (m - c)
            )
            gap = abs(m - 2 * c)
            total += pc * pass_probability(gap * units - grid, grid, thr, mech.epsilon_q)
    return float(total)


def test_subsample_aggregate_matches_exact_pmf_for_one_record() -> None:
    mech = SubsampleAndAggregate(24.0, 0.1, (0, 10))
    assert mech.rounds(1) % 2 == 1  # no ties between the two categories
    out = mech.sample(np.array([7.0]), 100_000, np.random.default_rng(25))
    # with q < 1/2 the mode is the "empty subsample" category, f(empty) = lo - 1 = -1
    assert set(np.unique(out[~np.isnan(out)])) <= {-1.0}
    p = _samp_release_probability(mech, mech.q)
    assert 0.05 < p < 0.95
    codes = np.where(np.isnan(out), 0, 1)
    assert _pvalue(codes, [1 - p, p]) > ALPHA
    p_wrong = _samp_release_probability(mech, mech.q * Fraction(11, 10))
    assert _pvalue(codes, [1 - p_wrong, p_wrong]) < ALPHA
