"""Exact checks and distribution tests of the vector discrete Laplace and discrete Gaussian.

Why: both mechanisms claim their privacy from the *joint* pmf of independent coordinates; the
checks verify the claims on that pmf rather than trusting the accounting.  Laplace: over every
neighbouring shift with ``||v||_1 <= Delta_1`` the pmf ratio stays below ``e^epsilon`` and
reaches it (beyond both centres).  Gaussian: the Renyi divergence of every shift with
``||v||_2 <= Delta_2`` is at most ``alpha rho`` (equal for integer alpha and integer shifts), the
directly summed hockey-stick delta matches the tight CKS20 Thm. 7 curve when ``Delta_2^2 < 2``
and stays below the zCDP conversion otherwise.  Each privacy check has a power twin (a mechanism
calibrated for a smaller sensitivity must violate it), and each distribution test compares the
samples with the exact pmf and must *reject* the pmf at a wrong parameter (epsilon or rho x 1.3).

Statistical tests: fixed seeds; every "matches" check requires p > ALPHA = 1e-4, so for a
correct sampler a random seed would fail a test with k such checks with probability <= k 1e-4
(union bound; stated per test).  The fixed seeds make the outcome deterministic.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import gmpy2
import numpy as np
import pytest

from reference_mechanisms.discrete_gaussian import discrete_gaussian_pmf
from reference_mechanisms.discrete_laplace import discrete_laplace_pmf
from reference_mechanisms.gof import chisquare_integer
from reference_mechanisms.randomness import SystemRandomness
from reference_mechanisms.vector_noise import (
    VectorDiscreteGaussian,
    VectorDiscreteLaplace,
    vector_discrete_gaussian_pmf,
    vector_discrete_laplace_pmf,
    zcdp_delta,
    zcdp_epsilon,
)

ALPHA = 1e-4
N = 100_000
PREC = 256


def _mp(x: Fraction) -> gmpy2.mpfr:
    return gmpy2.mpfr(gmpy2.mpq(x.numerator, x.denominator), 128)


def _shifts(d: int, radius: int, norm: int) -> list[tuple[int, ...]]:
    """Integer vectors v in Z^d with ||v||_norm^norm <= radius (norm 1 or 2)."""
    r = radius if norm == 1 else math.isqrt(radius)
    return [
        v
        for v in itertools.product(range(-r, r + 1), repeat=d)
        if sum(abs(c) ** norm for c in v) <= radius
    ]


# ---------------------------------------------------------------------- vector Laplace
def test_laplace_shapes_dtype_and_reproducibility() -> None:
    m = VectorDiscreteLaplace(1.0, 2)
    a = m.sample([3, -1, 0], 500, np.random.default_rng(3))
    b = m.sample(np.array([3, -1, 0]), 500, np.random.default_rng(3))
    assert a.shape == (500, 3) and a.dtype == np.int64 and np.array_equal(a, b)
    assert not np.array_equal(a[:, 0] - 3, a[:, 1] + 1)  # coordinates get their own noise
    assert m.sample([7], 0, np.random.default_rng(3)).shape == (0, 1)
    assert m.sample([1, 2], 4).shape == (4, 2)  # SystemRandomness by default
    assert m.sample([1, 2], 4, SystemRandomness()).dtype == np.int64


def test_laplace_claim_as_data() -> None:
    m = VectorDiscreteLaplace(0.7, 2)
    assert (m.epsilon, m.delta, m.sensitivity) == (0.7, 0.0, 2)
    assert m.epsilon_rational <= Fraction(0.7) < m.epsilon_rational + Fraction(1, 2**30)
    assert m.scale == 2 / m.epsilon_rational
    assert VectorDiscreteLaplace(1.0, 1.0).sensitivity == 1  # an integral float is accepted


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"epsilon": 0}, "epsilon="),
        ({"epsilon": -1.0}, "epsilon="),
        ({"epsilon": float("nan")}, "epsilon="),
        ({"epsilon": float("inf")}, "epsilon="),
        ({"sensitivity": 0}, "sensitivity="),
        ({"sensitivity": 0.5}, "sensitivity="),
        ({"sensitivity": -2}, "sensitivity="),
    ],
)
def test_laplace_bad_constructor_arguments(kwargs: dict, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        VectorDiscreteLaplace(**({"epsilon": 1.0} | kwargs))


@pytest.mark.parametrize(
    ("query", "n", "match"),
    [
        ([], 3, "query"),
        ([0.5, 1], 3, "query must hold integers"),
        ([[1, 2]], 3, "query"),
        ("ab", 3, "query="),
        ([True, False], 3, "query"),
        ([2**53], 3, r"query\[0\]="),
        ([1, 2], -2, "n="),
        ([1, 2], "3", "n="),
    ],
)
def test_bad_sample_arguments(query, n, match: str) -> None:
    for m in (VectorDiscreteLaplace(1.0), VectorDiscreteGaussian(0.5)):
        with pytest.raises(ValueError, match=match):
            m.sample(query, n, np.random.default_rng(0))


def test_pmf_arguments() -> None:
    with pytest.raises(ValueError, match="output has 3 coordinates, the query has 2"):
        vector_discrete_laplace_pmf([0, 0, 0], [0, 0], 1)
    with pytest.raises(ValueError, match="scale="):
        vector_discrete_laplace_pmf([0, 0], [0, 0], 0)
    with pytest.raises(ValueError, match="sigma2="):
        vector_discrete_gaussian_pmf([0], [0], -1)
    with pytest.raises(ValueError, match="output"):
        vector_discrete_gaussian_pmf([0.5], [0], 1)


def test_laplace_joint_pmf_is_the_product_and_sums_to_one() -> None:
    scale = Fraction(1, 2)
    with gmpy2.context(precision=PREC):
        total = sum(
            vector_discrete_laplace_pmf([a, b], [2, -1], scale)
            for a in range(-45, 50)
            for b in range(-48, 47)
        )
        assert abs(total - 1) < gmpy2.mpfr(2) ** -100  # tails beyond 94 scales: < e^-93
        p = vector_discrete_laplace_pmf([4, 0], [2, -1], scale)
        assert p == discrete_laplace_pmf(2, scale) * discrete_laplace_pmf(1, scale)


def _laplace_max_ratio(m: VectorDiscreteLaplace, shifts, window: int) -> gmpy2.mpfr:
    """max over outputs y in [-w, w]^2 and shifts v of P[y | 0] / P[y | v] (exact to ~2^-240)."""
    outs = list(itertools.product(range(-window, window + 1), repeat=2))
    base = {y: m.probability(y, [0, 0], PREC) for y in outs}
    best = gmpy2.mpfr(0)
    with gmpy2.context(precision=PREC):
        for v in shifts:
            for y in outs:
                best = max(best, base[y] / m.probability(y, v, PREC))
    return best


def test_laplace_privacy_ratio_bounded_and_attained() -> None:
    # every shift with ||v||_1 <= Delta_1 = 2 in Z^2: the ratio is <= e^{eps_q} <= e^eps, and
    # equal to e^{eps_q} where y lies beyond both centres (y = (-3, -3), v = (1, 1) or (2, 0))
    m = VectorDiscreteLaplace(0.9, 2)
    worst = _laplace_max_ratio(m, _shifts(2, 2, 1), 3)
    with gmpy2.context(precision=PREC):
        e_q = gmpy2.exp(_mp(m.epsilon_rational))
        assert worst <= e_q * (1 + gmpy2.mpfr(2) ** -200)
        assert worst >= e_q * (1 - gmpy2.mpfr(2) ** -200)  # attained
        assert e_q <= gmpy2.exp(gmpy2.mpfr(0.9))
        r = m.probability([-3, -3], [0, 0], PREC) / m.probability([-3, -3], [1, 1], PREC)
        assert abs(r / e_q - 1) < gmpy2.mpfr(2) ** -200


def test_laplace_privacy_power_twin_under_calibrated() -> None:
    # noise calibrated for Delta_1 = 1 on a substitute-neighbour histogram (Delta_1 = 2)
    m = VectorDiscreteLaplace(0.9, 1)
    worst = _laplace_max_ratio(m, [(1, -1), (2, 0)], 3)
    with gmpy2.context(precision=PREC):
        assert worst > gmpy2.exp(gmpy2.mpfr(0.9)) * 2  # it is e^{1.8}


def _folded(pmf, w: int) -> np.ndarray:
    """P[clip(Z, -w, w) = z] for z = -w..w: the tails folded into the end cells."""
    inner = np.array([float(pmf(z)) for z in range(-w + 1, w)])
    tail = (1.0 - inner.sum()) / 2  # symmetric noise
    return np.concatenate(([tail], inner, [tail]))


def _joint_pvalue(noise: np.ndarray, pmf, w: int) -> float:
    """Chi-square of the clipped pair (Z_1, Z_2) against the product of folded marginals."""
    f = _folded(pmf, w)
    k = f.size
    cells = (np.clip(noise[:, 0], -w, w) + w) * k + (np.clip(noise[:, 1], -w, w) + w)
    return chisquare_integer(cells, np.outer(f, f).ravel(), (0, k * k - 1)).pvalue


def _laplace_pvalues(noise: np.ndarray, scale: Fraction) -> list[float]:
    def pmf(z: int) -> gmpy2.mpfr:
        return discrete_laplace_pmf(z, scale)

    w = int(40 * scale) + 5
    per_coord = [chisquare_integer(noise[:, j], pmf, (-w, w)).pvalue for j in range(3)]
    return per_coord + [_joint_pvalue(noise, pmf, int(3 * scale) + 2)]


def test_laplace_samples_match_exact_pmf_and_reject_wrong_epsilon() -> None:
    # false failure (good pmf rejected): <= 4 checks x 1e-4 = 4e-4 for a random seed
    m = VectorDiscreteLaplace(0.8, 2)
    q = np.array([5, -7, 0])
    noise = m.sample(q, N, np.random.default_rng(41)) - q
    assert min(_laplace_pvalues(noise, m.scale)) > ALPHA
    wrong = VectorDiscreteLaplace(0.8 * 1.3, 2)  # the pmf at epsilon x 1.3
    assert max(_laplace_pvalues(noise, wrong.scale)) < ALPHA


# --------------------------------------------------------------------- vector Gaussian
def test_gaussian_shapes_dtype_and_reproducibility() -> None:
    m = VectorDiscreteGaussian(0.25, 1)
    a = m.sample([3, -1, 0, 9], 400, np.random.default_rng(5))
    b = m.sample([3, -1, 0, 9], 400, np.random.default_rng(5))
    assert a.shape == (400, 4) and a.dtype == np.int64 and np.array_equal(a, b)
    assert m.sample([0, 0], 0, np.random.default_rng(5)).shape == (0, 2)
    assert m.sample([0], 3).shape == (3, 1)


@pytest.mark.parametrize(
    ("rho", "sens", "sigma2"),
    [(0.5, 1, Fraction(1)), (0.5, 2**0.5, None), (0.125, 2, Fraction(16)), (0.01, 1, Fraction(50))],
)
def test_gaussian_claim_as_data(rho: float, sens: float, sigma2: Fraction | None) -> None:
    m = VectorDiscreteGaussian(rho, sens, 1e-6)
    d2 = Fraction(sens) ** 2
    assert m.sigma2 >= d2 / (2 * Fraction(rho))
    assert m.sigma2 <= d2 / (2 * Fraction(rho)) * Fraction(257, 256)  # not wasteful
    if sigma2 is not None:
        assert m.sigma2 == sigma2
    assert m.rho_rational == d2 / (2 * m.sigma2) <= Fraction(rho)
    assert m.tight == (d2 < 2)
    assert (m.rho, m.delta) == (rho, 1e-6)
    # epsilon is certified for delta and is the smallest such (to a relative 2^-30)
    assert m.delta_for_epsilon(m.epsilon) <= gmpy2.mpfr(1e-6, 128)
    assert m.delta_for_epsilon(m.epsilon * (1 - 2.0**-28)) > gmpy2.mpfr(1e-6, 128)


def test_gaussian_tight_epsilon_beats_the_zcdp_conversion() -> None:
    m = VectorDiscreteGaussian(0.5, 1, 1e-6)  # sigma2 = 1, Delta_2 = 1: CKS20 Thm. 7
    assert m.tight and m.epsilon < zcdp_epsilon(m.rho_rational, 1e-6)
    assert zcdp_delta(m.rho_rational, m.epsilon) > m.delta_for_epsilon(m.epsilon)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"rho": 0}, "rho="),
        ({"rho": -0.5}, "rho="),
        ({"rho": float("nan")}, "rho="),
        ({"rho": float("inf")}, "rho="),
        ({"rho": "1"}, "rho="),
        ({"sensitivity": 0}, "sensitivity="),
        ({"sensitivity": float("inf")}, "sensitivity="),
        ({"delta": 0}, "delta="),
        ({"delta": 1.0}, "delta="),
        ({"delta": -1e-6}, "delta="),
    ],
)
def test_gaussian_bad_constructor_arguments(kwargs: dict, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        VectorDiscreteGaussian(**({"rho": 0.5} | kwargs))


def test_conversion_bad_arguments() -> None:
    with pytest.raises(ValueError, match="rho="):
        zcdp_delta(0, 1.0)
    with pytest.raises(ValueError, match="epsilon="):
        zcdp_delta(0.5, -1.0)
    with pytest.raises(ValueError, match="delta="):
        zcdp_epsilon(0.5, 0.0)
    with pytest.raises(ValueError, match="epsilon="):
        VectorDiscreteGaussian(0.5).delta_for_epsilon(-0.1)


@pytest.mark.parametrize(("rho", "eps"), [(0.025, 1.0), (0.5, 3.0), (1.0, 0.5), (2.0, 10.0)])
def test_zcdp_delta_matches_the_authors_formula(rho: float, eps: float) -> None:
    # cdp2adp.py (Steinke): the same infimum over alpha, in floats
    lo, hi = 1.01, (eps + 1) / (2 * rho) + 2
    for _ in range(1000):
        a = (lo + hi) / 2
        if (2 * a - 1) * rho - eps + math.log1p(-1 / a) < 0:
            lo = a
        else:
            hi = a
    ref = math.exp((a - 1) * (a * rho - eps) + a * math.log1p(-1 / a)) / (a - 1)
    got = zcdp_delta(rho, eps)
    assert got == pytest.approx(ref, rel=1e-9)
    # and every alpha gives a bound no smaller than the optimum found
    for alpha in (1.5, 2.0, 4.0):
        other = math.exp((alpha - 1) * (alpha * rho - eps) + alpha * math.log1p(-1 / alpha))
        assert got <= other / (alpha - 1) * (1 + 1e-12)


def test_gaussian_joint_pmf_sums_to_one() -> None:
    s2 = Fraction(2)
    with gmpy2.context(precision=128):
        total = sum(
            vector_discrete_gaussian_pmf([a, b], [1, 0], s2)
            for a in range(-25, 28)
            for b in range(-26, 27)
        )
        assert abs(total - 1) < gmpy2.mpfr(2) ** -100
        p = vector_discrete_gaussian_pmf([3, 2], [1, 0], s2)
        assert p == discrete_gaussian_pmf(2, s2) * discrete_gaussian_pmf(2, s2)


def _joint_table(m: VectorDiscreteGaussian, shift) -> dict[tuple[int, int], tuple]:
    """{y: (P[M(0) = y], P[M(shift) = y])} on a 2-D grid holding all but ~e^-70 of the mass.

    Built from one table of the coordinate pmf (the joint pmf is the product, checked above),
    which keeps the direct sums below fast.
    """
    w = int(12 * math.sqrt(m.sigma2)) + 4
    p1 = {z: discrete_gaussian_pmf(z, m.sigma2) for z in range(-w - 2, w + 3)}
    with gmpy2.context(precision=128):
        return {
            (a, b): (p1[a] * p1[b], p1[a - shift[0]] * p1[b - shift[1]])
            for a in range(-w, w + 1)
            for b in range(-w, w + 1)
        }


def _renyi(m: VectorDiscreteGaussian, shift, alpha: int) -> gmpy2.mpfr:
    """D_alpha(M(0) || M(shift)) by direct summation over the 2-D grid."""
    with gmpy2.context(precision=128):
        s = sum(p**alpha * q ** (1 - alpha) for p, q in _joint_table(m, shift).values())
        return gmpy2.log(s) / (alpha - 1)


def _hockey_stick(m: VectorDiscreteGaussian, shift, eps: float) -> gmpy2.mpfr:
    """sup_E P[M(0) in E] - e^eps P[M(shift) in E], summed directly over the 2-D grid."""
    with gmpy2.context(precision=128):
        e = gmpy2.exp(gmpy2.mpfr(eps))
        return sum(
            (max(gmpy2.mpfr(0), p - e * q) for p, q in _joint_table(m, shift).values()),
            gmpy2.mpfr(0),
        )


def test_gaussian_renyi_divergence_bounded_by_rho_and_attained() -> None:
    # Delta_2^2 = 2 (a histogram under substitution): every integer shift with ||v||^2 <= 2
    m = VectorDiscreteGaussian(0.3, 2**0.5, 1e-5)
    with gmpy2.context(precision=128):
        rho = _mp(m.rho_rational)
        tol = gmpy2.mpfr(2) ** -90
        for alpha in (2, 3):
            worst = max(_renyi(m, v, alpha) for v in _shifts(2, 2, 2) if any(v))
            assert worst <= alpha * rho * (1 + tol)
            # integer alpha and an integer shift: D_alpha = alpha ||v||^2 / (2 sigma2) exactly
            # (as in CKS20's proof that N_Z is zCDP); ||v||^2 = 2, a hair below float(sqrt 2)^2
            assert abs(worst / _mp(alpha * Fraction(2) / (2 * m.sigma2)) - 1) < tol


def test_gaussian_renyi_power_twin_under_calibrated() -> None:
    # noise calibrated for Delta_2 = 1 on a shift of squared norm 2: divergence 2 alpha rho
    m = VectorDiscreteGaussian(0.3, 1, 1e-5)
    assert _renyi(m, (1, -1), 2) > 2 * _mp(m.rho_rational) * 1.9


def test_gaussian_delta_tight_case_equals_direct_sum() -> None:
    # Delta_2 = 1: the only integer shifts are +-e_j; the other coordinate cancels
    m = VectorDiscreteGaussian(0.5, 1, 1e-3)
    for eps in (0.5, m.epsilon):
        direct = _hockey_stick(m, (1, 0), eps)
        assert direct == pytest.approx(float(m.delta_for_epsilon(eps)), rel=1e-12, abs=1e-28)
        assert direct <= m.delta_for_epsilon(eps)


def test_gaussian_delta_non_tight_case_is_an_upper_bound() -> None:
    m = VectorDiscreteGaussian(0.5, 2**0.5, 1e-3)
    assert not m.tight
    for eps in (1.0, m.epsilon):
        worst = max(_hockey_stick(m, v, eps) for v in _shifts(2, 2, 2) if any(v))
        assert worst <= m.delta_for_epsilon(eps)
    assert worst > 0
    # power twin: the Delta_2 = 1 mechanism's tight curve is violated by the shift (1, 1)
    small = VectorDiscreteGaussian(0.5, 1, 1e-3)
    assert _hockey_stick(small, (1, 1), small.epsilon) > small.delta


def _gaussian_pvalues(noise: np.ndarray, sigma2: Fraction) -> list[float]:
    def pmf(z: int) -> gmpy2.mpfr:
        return discrete_gaussian_pmf(z, sigma2)

    w = int(12 * math.sqrt(sigma2)) + 3
    per_coord = [chisquare_integer(noise[:, j], pmf, (-w, w)).pvalue for j in range(3)]
    return per_coord + [_joint_pvalue(noise, pmf, int(2 * math.sqrt(sigma2)) + 2)]


def test_gaussian_samples_match_exact_pmf_and_reject_wrong_rho() -> None:
    # false failure (good pmf rejected): <= 4 checks x 1e-4 = 4e-4 for a random seed
    m = VectorDiscreteGaussian(0.1, 2**0.5, 1e-6)
    q = np.array([0, 12, -3])
    noise = m.sample(q, N, np.random.default_rng(43)) - q
    assert min(_gaussian_pvalues(noise, m.sigma2)) > ALPHA
    wrong = VectorDiscreteGaussian(0.1 * 1.3, 2**0.5, 1e-6)  # the pmf at rho x 1.3
    assert max(_gaussian_pvalues(noise, wrong.sigma2)) < ALPHA


@pytest.mark.slow
@pytest.mark.parametrize("seed", [401, 402])
def test_large_sample_vectors_match_exact_pmf(seed: int) -> None:
    # 2M releases of 3 coordinates each: per-coordinate and joint chi-square against the exact
    # pmfs; false failure <= 8 checks x 1e-4 = 8e-4 per seed
    g = np.random.default_rng(seed)
    lap = VectorDiscreteLaplace(0.5, 1)
    q = np.array([1, 2, 3])
    assert min(_laplace_pvalues(lap.sample(q, 2_000_000, g) - q, lap.scale)) > ALPHA
    gau = VectorDiscreteGaussian(0.02, 2, 1e-6)
    assert min(_gaussian_pvalues(gau.sample(q, 2_000_000, g) - q, gau.sigma2)) > ALPHA
