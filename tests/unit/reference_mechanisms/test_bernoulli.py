from __future__ import annotations

import math
from fractions import Fraction

import gmpy2
import numpy as np
import pytest
from scipy import stats

from reference_mechanisms.bernoulli import (
    as_fraction,
    bernoulli_exp_many,
    sample_bernoulli,
    sample_bernoulli_exp,
)

# Each binomial test below uses a fixed seed and threshold p > 1e-4: for a correct sampler the
# chance that a random seed fails is 1e-4; with the fixed seed the outcome is deterministic.
ALPHA = 1e-4


def _binom_p(k: int, n: int, p: float) -> float:
    return stats.binomtest(int(k), n, p).pvalue


@pytest.mark.parametrize(
    "p",
    [
        Fraction(0),
        Fraction(1),
        Fraction(1, 3),
        gmpy2.mpq(2, 7),
        Fraction(1, 3) + Fraction(1, 2**80),
    ],
)
def test_bernoulli_rational(p) -> None:
    g = np.random.default_rng(10)
    n = 100_000
    x = sample_bernoulli(p, n, g)
    assert x.dtype == bool and x.shape == (n,)
    pf = float(Fraction(int(p.numerator), int(p.denominator)))
    if pf in (0.0, 1.0):
        assert x.sum() == pf * n
    else:
        assert _binom_p(x.sum(), n, pf) > ALPHA


def test_bernoulli_has_power() -> None:
    g = np.random.default_rng(10)
    x = sample_bernoulli(Fraction(1, 3) * Fraction(11, 10), 100_000, g)
    assert _binom_p(x.sum(), 100_000, 1 / 3) < ALPHA


@pytest.mark.parametrize("gamma", [Fraction(0), Fraction(1, 7), Fraction(1), Fraction(5, 2), 4])
def test_bernoulli_exp(gamma) -> None:
    g = np.random.default_rng(11)
    n = 100_000
    x = sample_bernoulli_exp(gamma, n, g)
    assert _binom_p(x.sum(), n, math.exp(-float(gamma))) > ALPHA


def test_bernoulli_exp_has_power() -> None:
    g = np.random.default_rng(11)
    x = sample_bernoulli_exp(Fraction(5, 2) * Fraction(11, 10), 100_000, g)
    assert _binom_p(x.sum(), 100_000, math.exp(-2.5)) < ALPHA


def test_bernoulli_exp_many_big_numbers_use_exact_fallback() -> None:
    # denominators beyond int64: exact Python-int path
    g = np.random.default_rng(12)
    den = 2**70 + 1
    num = [den // 2] * 4000 + [3 * den] * 4000
    x = bernoulli_exp_many(num, den, g)
    assert _binom_p(x[:4000].sum(), 4000, math.exp(-0.5)) > ALPHA
    assert _binom_p(x[4000:].sum(), 4000, math.exp(-3.0)) > ALPHA


def test_bernoulli_exp_many_mixed_vector() -> None:
    g = np.random.default_rng(13)
    num = np.array([0, 1, 2, 3] * 25_000, dtype=np.int64)
    x = bernoulli_exp_many(num, 2, g)
    for j in range(4):
        assert _binom_p(x[j::4].sum(), 25_000, math.exp(-j / 2)) > ALPHA


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), -0.5, 1.5, "x", True])
def test_bernoulli_bad_p(bad) -> None:
    with pytest.raises(ValueError, match="p="):
        sample_bernoulli(bad, 3, np.random.default_rng(0))


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), -1])
def test_bernoulli_exp_bad_gamma(bad) -> None:
    with pytest.raises(ValueError, match="gamma="):
        sample_bernoulli_exp(bad, 3, np.random.default_rng(0))


def test_bad_size_and_negative_num() -> None:
    with pytest.raises(ValueError, match="size="):
        sample_bernoulli(Fraction(1, 2), -1, np.random.default_rng(0))
    with pytest.raises(ValueError, match="num"):
        bernoulli_exp_many(np.array([-1]), 2, np.random.default_rng(0))


def test_as_fraction_exact() -> None:
    assert as_fraction(0.1, "x") == Fraction(0.1)
    assert as_fraction(gmpy2.mpq(3, 4), "x") == Fraction(3, 4)
    assert as_fraction(np.int64(5), "x") == 5
