from __future__ import annotations

from fractions import Fraction

import gmpy2
import numpy as np
import pytest

from reference_mechanisms.discrete_laplace import (
    discrete_laplace_pmf,
    geometric_exp_pmf,
    sample_discrete_laplace,
    sample_geometric,
    sample_geometric_exp,
)
from reference_mechanisms.randomness import SystemRandomness


def test_shapes_dtypes_and_reproducibility() -> None:
    a = sample_discrete_laplace(Fraction(3, 2), 1000, np.random.default_rng(5))
    b = sample_discrete_laplace(Fraction(3, 2), 1000, np.random.default_rng(5))
    assert a.dtype == np.int64 and a.shape == (1000,)
    assert np.array_equal(a, b)
    assert sample_discrete_laplace(2, 0, np.random.default_rng(5)).shape == (0,)
    assert sample_discrete_laplace(2, 10).shape == (10,)  # default SystemRandomness
    assert sample_geometric_exp(Fraction(1, 2), 10, SystemRandomness()).min() >= 0


def test_pmf_sums_to_one_and_symmetric() -> None:
    with gmpy2.context(precision=256):
        total = sum(discrete_laplace_pmf(x, Fraction(5, 3)) for x in range(-400, 401))
        assert abs(total - 1) < gmpy2.mpfr(2) ** -200
        assert discrete_laplace_pmf(4, 2) == discrete_laplace_pmf(-4, 2)
        gsum = sum(geometric_exp_pmf(k, Fraction(1, 3)) for k in range(0, 2000))
        assert abs(gsum - 1) < gmpy2.mpfr(2) ** -200
    assert geometric_exp_pmf(-1, 1) == 0


def test_pmf_ratio_is_exactly_the_privacy_ratio() -> None:
    # P[x]/P[x+1] = exp(1/scale): the epsilon-DP statement for sensitivity 1.
    with gmpy2.context(precision=256):
        r = discrete_laplace_pmf(3, Fraction(1, 2)) / discrete_laplace_pmf(4, Fraction(1, 2))
        assert abs(r - gmpy2.exp(2)) < gmpy2.mpfr(2) ** -240


def test_huge_numerator_exact_fallback() -> None:
    # scale numerator > 2^52 takes the per-sample Python-int path; still exact and int64 out
    g = np.random.default_rng(7)
    x = sample_discrete_laplace(Fraction(2**60 + 1, 2**59), 500, g)
    assert x.dtype == np.int64
    assert np.abs(x).max() < 60  # P[|X| >= 60] ~ e^-30 at scale ~2


@pytest.mark.parametrize("bad", [0, -1, float("nan"), float("inf"), Fraction(-1, 2), "a"])
def test_bad_scale(bad) -> None:
    with pytest.raises(ValueError, match="scale="):
        sample_discrete_laplace(bad, 3, np.random.default_rng(0))


@pytest.mark.parametrize("bad", [0, -0.1, 1.5, float("nan")])
def test_bad_geometric_p(bad) -> None:
    with pytest.raises(ValueError, match="p="):
        sample_geometric(bad, 3, np.random.default_rng(0))


def test_bad_x_and_size() -> None:
    with pytest.raises(ValueError, match="x="):
        sample_geometric_exp(0, 3, np.random.default_rng(0))
    with pytest.raises(ValueError, match="size="):
        sample_discrete_laplace(1, -2, np.random.default_rng(0))
