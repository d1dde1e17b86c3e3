from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from reference_mechanisms.float_noise import (
    calibrate_gaussian_float,
    gaussian_float_delta,
    grid_sensitivity,
    laplace_float_epsilon,
    round_to_grid,
    sample_gaussian_float,
    sample_laplace_float,
)

finite = st.floats(allow_nan=False, allow_infinity=False, min_value=-1e12, max_value=1e12)


def test_round_to_grid_ties_up() -> None:
    assert round_to_grid(0.5, 0) == 1
    assert round_to_grid(-0.5, 0) == 0
    assert round_to_grid(1.25, -1) == 3  # 2.5 -> 3
    assert round_to_grid(3.0, 1) == 2  # 1.5 -> 2
    assert round_to_grid(2.0**60 + 2.0**8, 0) == 2**60 + 2**8


@given(finite, finite, st.integers(-30, 10))
def test_grid_sensitivity_bounds_the_rounded_difference(x, y, k) -> None:
    diff = abs(round_to_grid(x, k) - round_to_grid(y, k))
    if x != y:
        assert diff <= grid_sensitivity(abs(Fraction(x) - Fraction(y)), k)
    assert grid_sensitivity(1, k) <= (1 + 2.0**k) / 2.0**k


def test_laplace_outputs_on_grid_and_epsilon() -> None:
    g = np.random.default_rng(0)
    y = sample_laplace_float(0.1, Fraction(2), 10_000, -10, g)
    assert y.dtype == np.float64 and y.shape == (10_000,)
    assert np.all(np.ldexp(y, 10) == np.round(np.ldexp(y, 10)))
    assert abs(y.mean() - 0.1) < 0.1  # sd 2.8/sqrt(1e4) = 0.028: 3.5 sd
    assert laplace_float_epsilon(Fraction(2), 1, -10) == Fraction(1, 2)
    assert laplace_float_epsilon(Fraction(2), Fraction(3, 2**12), -10) == Fraction(1, 2**10 * 2)


def test_huge_query_goes_through_python_ints() -> None:
    y = sample_laplace_float(1e300, Fraction(2**960), 3, 940, np.random.default_rng(0))
    assert np.all(np.isfinite(y)) and np.all(np.abs(y / 1e300 - 1) < 1e-10)


def test_gaussian_float_calibration_and_samples() -> None:
    k, s2 = calibrate_gaussian_float(1.0, 1e-5, 2.0)
    assert gaussian_float_delta(1.0, s2, 2.0, k) <= 1e-5
    y = sample_gaussian_float(5.0, s2, 20_000, k, np.random.default_rng(1))
    assert np.all(np.ldexp(y, -k) == np.round(np.ldexp(y, -k)))
    sd = math.sqrt(s2)
    assert abs(y.mean() - 5.0) < 5 * sd / math.sqrt(20_000)
    assert abs(y.std() / sd - 1) < 0.03


@pytest.mark.parametrize("bad", [float("nan"), float("inf")])
def test_bad_query(bad) -> None:
    with pytest.raises(ValueError, match="x="):
        sample_laplace_float(bad, 1, 3, 0, np.random.default_rng(0))


@pytest.mark.parametrize("bad", [0, -1, float("nan"), float("inf")])
def test_bad_scale_sigma(bad) -> None:
    with pytest.raises(ValueError, match="scale="):
        sample_laplace_float(0.0, bad, 3, 0, np.random.default_rng(0))
    with pytest.raises(ValueError, match="sigma2="):
        sample_gaussian_float(0.0, bad, 3, 0, np.random.default_rng(0))


def test_bad_calibration() -> None:
    with pytest.raises(ValueError, match="delta="):
        calibrate_gaussian_float(1.0, 1.0, 1.0)
    with pytest.raises(ValueError, match="delta="):
        calibrate_gaussian_float(1.0, float("nan"), 1.0)
    with pytest.raises(ValueError, match="epsilon="):
        calibrate_gaussian_float(-1.0, 1e-5, 1.0)
    with pytest.raises(ValueError, match="sensitivity="):
        calibrate_gaussian_float(1.0, 1e-5, float("inf"))
