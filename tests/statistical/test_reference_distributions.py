"""Each reference mechanism's output distribution against its exact pmf (chi-square / binomial).

Fixed seeds; every "matches" test requires p > ALPHA = 1e-4, so for a correct sampler a random
seed would fail with probability 1e-4 (the fixed seed makes the result deterministic).  Each has
a "power" twin with a deliberately wrong parameter (scale x1.1, variance x1.21, p shifted) that
must give p < ALPHA, so the test is able to fail.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

from reference_mechanisms.discrete_gaussian import discrete_gaussian_pmf, sample_discrete_gaussian
from reference_mechanisms.discrete_laplace import discrete_laplace_pmf
from reference_mechanisms.float_noise import (
    calibrate_gaussian_float,
    sample_gaussian_float,
    sample_laplace_float,
)
from reference_mechanisms.geometric_rr import (
    rr_probability,
    sample_randomized_response,
    sample_two_sided_geometric,
    sample_two_sided_geometric_exp,
    two_sided_geometric_pmf,
)
from reference_mechanisms.gof import chisquare_integer
from reference_mechanisms.snapping import sample_snapping, snapping_parameters

ALPHA = 1e-4
N = 200_000


def _dg_test(x: np.ndarray, sigma2: Fraction) -> float:
    w = int(12 * math.sqrt(sigma2)) + 3
    return chisquare_integer(x, lambda k: discrete_gaussian_pmf(k, sigma2), (-w, w)).pvalue


@pytest.mark.parametrize("sigma2", [Fraction(1, 4), Fraction(1), Fraction(9, 2), Fraction(400)])
def test_discrete_gaussian_matches_pmf(sigma2: Fraction) -> None:
    x = sample_discrete_gaussian(sigma2, N, np.random.default_rng(31))
    assert _dg_test(x, sigma2) > ALPHA


@pytest.mark.parametrize("sigma2", [Fraction(1), Fraction(9, 2), Fraction(400)])
def test_discrete_gaussian_wrong_variance_is_rejected(sigma2: Fraction) -> None:
    x = sample_discrete_gaussian(sigma2 * Fraction(121, 100), N, np.random.default_rng(31))
    assert _dg_test(x, sigma2) < ALPHA


def test_discrete_gaussian_power_of_two_proposal_path() -> None:
    # sigma2 = 2^13 (2^13 + 5): the sampler switches to a power-of-two proposal scale t
    s2 = Fraction(2**13 * (2**13 + 5))
    x = sample_discrete_gaussian(s2, N, np.random.default_rng(32))
    # compare the standardised draws with N(0,1) in 40 equiprobable cells (lattice step 1/8200
    # of sigma is far below the cell width, so the continuous pmf is exact to ~1e-8 per cell)
    z = x / math.sqrt(s2)
    edges = stats.norm.ppf(np.linspace(0, 1, 41))
    counts = np.histogram(z, bins=edges)[0]
    assert stats.chisquare(counts).pvalue > ALPHA
    wrong = np.histogram(z / 1.02, bins=edges)[0]  # sigma 2 % too large
    assert stats.chisquare(wrong).pvalue < ALPHA


def _grid_ints(y: np.ndarray, k: int, x: float) -> np.ndarray:
    v = np.ldexp(y, -k)
    assert np.all(v == np.round(v)), "outputs must lie on the 2^k grid"
    return v.astype(np.int64) - round(x * 2.0**-k)


@pytest.mark.parametrize("factor", [Fraction(1), Fraction(11, 10)])
def test_float_laplace_noise_is_discrete_laplace(factor: Fraction) -> None:
    k, x = -3, 2.0  # x is on the grid, so the noise is y - x exactly
    scale = Fraction(3, 2)
    y = sample_laplace_float(x, scale * factor, N, k, np.random.default_rng(33))
    z = _grid_ints(y, k, x)
    s_int = scale / Fraction(2) ** k
    p = chisquare_integer(z, lambda j: discrete_laplace_pmf(j, s_int), (-400, 400)).pvalue
    assert (p > ALPHA) if factor == 1 else (p < ALPHA)


def test_float_laplace_rounds_the_query_to_the_grid() -> None:
    y = sample_laplace_float(0.3, Fraction(1), 50_000, -2, np.random.default_rng(34))
    z = _grid_ints(y, -2, 0.25)  # 0.3 rounds to 0.25 on the 1/4 grid
    p = chisquare_integer(z, lambda j: discrete_laplace_pmf(j, 4), (-120, 120)).pvalue
    assert p > ALPHA


@pytest.mark.parametrize("factor", [Fraction(1), Fraction(121, 100)])
def test_float_gaussian_noise_is_discrete_gaussian(factor: Fraction) -> None:
    k, s2 = calibrate_gaussian_float(2.0, 1e-3, 1.0, sigma_bits=3)  # small grid: sigma ~ 8 steps
    x = 0.0
    y = sample_gaussian_float(x, s2 * factor, N, k, np.random.default_rng(35))
    p = _dg_test(_grid_ints(y, k, x), s2 / Fraction(4) ** k)
    assert (p > ALPHA) if factor == 1 else (p < ALPHA)


def _snapping_pvalue(y: np.ndarray, x: float, lam: float, big_lambda: float) -> float:
    """Snapped outputs vs Laplace(x, lam) rounded to multiples of Lambda (ties up).

    Snapping differs from this idealisation only by binary64 rounding (relative ~2^-50), far
    below what 2e5 samples can detect.
    """

    def cdf(t: float) -> float:
        return 0.5 * math.exp((t - x) / lam) if t < x else 1 - 0.5 * math.exp(-(t - x) / lam)

    j = np.rint(y / big_lambda).astype(np.int64)
    w = int(40 * lam / big_lambda) + 5
    return chisquare_integer(
        j, lambda i: cdf((i + 0.5) * big_lambda) - cdf((i - 0.5) * big_lambda), (-w, w)
    ).pvalue


@pytest.mark.parametrize(("eps", "x"), [(1.0, 0.3), (0.25, -1.7)])
def test_snapping_matches_rounded_laplace(eps: float, x: float) -> None:
    p = snapping_parameters(eps, 1024.0, 1.0)
    y = sample_snapping(x, p, N // 2, np.random.default_rng(36))  # one MPFR log per draw
    assert _snapping_pvalue(y, x, p.lam, p.Lambda) > ALPHA
    assert _snapping_pvalue(y, x, p.lam * 1.1, p.Lambda) < ALPHA


@pytest.mark.parametrize("alpha", [Fraction(1, 2), Fraction(9, 10)])
def test_two_sided_geometric_matches_pmf(alpha: Fraction) -> None:
    z = sample_two_sided_geometric(alpha, N, np.random.default_rng(37))
    good = chisquare_integer(z, lambda j: two_sided_geometric_pmf(j, alpha), (-250, 250))
    wrong = alpha + (1 - alpha) / 10  # alpha moved 10 % of the way towards 1
    bad = chisquare_integer(z, lambda j: two_sided_geometric_pmf(j, wrong), (-250, 250))
    assert good.pvalue > ALPHA and bad.pvalue < ALPHA


def test_geometric_mechanism_agrees_with_discrete_laplace() -> None:
    # alpha = e^-x: the difference-of-geometrics sampler against the discrete Laplace pmf
    x = Fraction(2, 3)
    z = sample_two_sided_geometric_exp(x, N, np.random.default_rng(38))
    assert chisquare_integer(z, lambda j: discrete_laplace_pmf(j, 1 / x), (-60, 60)).pvalue > ALPHA
    bad = chisquare_integer(z, lambda j: discrete_laplace_pmf(j, Fraction(11, 10) / x), (-60, 60))
    assert bad.pvalue < ALPHA


@pytest.mark.parametrize("eps", [0.5, 2.0])
def test_randomized_response_exact_binomial(eps: float) -> None:
    p = rr_probability(eps)
    bits = sample_randomized_response(0, p, N, np.random.default_rng(39))
    kept = int((bits == 0).sum())
    assert stats.binomtest(kept, N, float(p)).pvalue > ALPHA
    # wrong p: e^eps/(1+e^eps) for 1.1 eps
    wrong = math.exp(1.1 * eps) / (1 + math.exp(1.1 * eps))
    assert stats.binomtest(kept, N, wrong).pvalue < ALPHA


@pytest.mark.slow
@pytest.mark.parametrize("seed", [101, 102])
def test_large_sample_discrete_laplace_and_gaussian(seed: int) -> None:
    # 5M draws each: detects pmf errors of ~0.1 % per bin; same 1e-4 false-failure rate
    from reference_mechanisms.discrete_laplace import sample_discrete_laplace

    g = np.random.default_rng(seed)
    x = sample_discrete_laplace(Fraction(5, 2), 5_000_000, g)
    assert (
        chisquare_integer(x, lambda j: discrete_laplace_pmf(j, Fraction(5, 2)), (-150, 150)).pvalue
        > ALPHA
    )
    z = sample_discrete_gaussian(Fraction(25, 3), 5_000_000, g)
    assert _dg_test(z, Fraction(25, 3)) > ALPHA
