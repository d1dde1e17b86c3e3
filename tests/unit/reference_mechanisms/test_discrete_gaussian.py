from __future__ import annotations

import math
from fractions import Fraction

import gmpy2
import numpy as np
import pytest
from scipy import stats

from reference_mechanisms.discrete_gaussian import (
    calibrate_discrete_gaussian,
    discrete_gaussian_delta,
    discrete_gaussian_pmf,
    sample_discrete_gaussian,
)


def test_shapes_and_reproducibility() -> None:
    a = sample_discrete_gaussian(Fraction(9, 2), 1000, np.random.default_rng(3))
    b = sample_discrete_gaussian(Fraction(9, 2), 1000, np.random.default_rng(3))
    assert a.dtype == np.int64 and a.shape == (1000,) and np.array_equal(a, b)
    assert sample_discrete_gaussian(4, 0, np.random.default_rng(3)).shape == (0,)
    assert sample_discrete_gaussian(4, 5).shape == (5,)  # SystemRandomness default


def test_pmf_normalised_and_ratio() -> None:
    s2 = Fraction(7, 3)
    with gmpy2.context(precision=128):
        total = sum(discrete_gaussian_pmf(x, s2) for x in range(-60, 61))
        assert abs(total - 1) < gmpy2.mpfr(2) ** -100
        r = discrete_gaussian_pmf(2, s2) / discrete_gaussian_pmf(3, s2)
        assert abs(r - gmpy2.exp(gmpy2.mpfr(5) / (2 * gmpy2.mpfr(gmpy2.mpq(7, 3))))) < 1e-30


def test_delta_at_epsilon_zero_is_total_variation() -> None:
    s2 = 4
    tv = sum(
        max(0.0, float(discrete_gaussian_pmf(y, s2)) - float(discrete_gaussian_pmf(y - 1, s2)))
        for y in range(-60, 61)
    )
    assert abs(float(discrete_gaussian_delta(0, s2)) - tv) < 1e-12


def test_delta_matches_direct_hockey_stick_sum() -> None:
    # delta(eps) = sum_y max(0, P[y] - e^eps P[y - Delta]) for the worst shift Delta
    s2, eps, d = Fraction(10), 0.5, 2
    direct = sum(
        max(
            0.0,
            float(discrete_gaussian_pmf(y, s2))
            - math.exp(eps) * float(discrete_gaussian_pmf(y - d, s2)),
        )
        for y in range(-100, 101)
    )
    assert abs(float(discrete_gaussian_delta(eps, s2, d)) - direct) < 1e-12


def test_delta_close_to_continuous_for_large_sigma() -> None:
    s, eps = 40.0, 0.1
    a, b = 1 / (2 * s), eps * s
    cont = stats.norm.cdf(a - b) - math.exp(eps) * stats.norm.cdf(-a - b)
    dg = float(discrete_gaussian_delta(eps, Fraction(1600)))
    assert abs(dg - cont) / cont < 1e-3


@pytest.mark.parametrize(
    ("eps", "delta", "sens", "tight"),
    [(1.0, 1e-5, 1, True), (0.3, 1e-8, 3, True), (4.0, 1e-3, 1, False)],
)
def test_calibration_is_certified_and_not_wasteful(eps, delta, sens, tight) -> None:
    s2 = calibrate_discrete_gaussian(eps, delta, sens)
    assert discrete_gaussian_delta(eps, s2, sens) <= delta
    if not tight:  # sigma < 1: lattice effects make the discrete Gaussian more private than
        return  # the continuous guess the search starts from, so it is not tight there
    # within 4 % of the smallest sigma2 that works (the search steps are 2^-8 in sigma)
    assert discrete_gaussian_delta(eps, Fraction(s2) * Fraction(96, 100), sens) > delta


@pytest.mark.parametrize("bad", [0, -2, float("nan"), float("inf")])
def test_bad_sigma2(bad) -> None:
    with pytest.raises(ValueError, match="sigma2="):
        sample_discrete_gaussian(bad, 3, np.random.default_rng(0))


def test_bad_calibration_arguments() -> None:
    with pytest.raises(ValueError, match="epsilon="):
        calibrate_discrete_gaussian(float("nan"), 1e-5, 1)
    with pytest.raises(ValueError, match="epsilon="):
        calibrate_discrete_gaussian(0.0, 1e-5, 1)
    for d in (0.0, 1.0, -1e-3, float("inf")):
        with pytest.raises(ValueError, match="delta="):
            calibrate_discrete_gaussian(1.0, d, 1)
    with pytest.raises(ValueError, match="sensitivity="):
        calibrate_discrete_gaussian(1.0, 1e-5, 0)
    with pytest.raises(ValueError, match="epsilon="):
        discrete_gaussian_delta(-1, 4)
