"""The textbook float mechanisms: output contract, calibration, and the naive arithmetic.

Statistical checks use fixed seeds; each bound is ≥ 6 standard errors wide, so a correct
adapter fails one with probability < 1e-8 (and with a fixed seed the outcome is deterministic).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from adapter_checks import assert_additive

from auditor.adapters import textbook

N = 20_000


def _seeded(adapter, entropy=12345):
    adapter.seed(entropy)
    return adapter


def _assert_additive(x, n, centre, sd):
    assert_additive(x, n, centre, sd, sd_tolerance=0.1)


def test_inverse_cdf_laplace_is_calibrated_and_seedable():
    a = _seeded(textbook.TextbookLaplaceInverseCDF(epsilon=0.5, sensitivity=2.0))
    assert a.name.startswith("textbook.") and a.family == "additive" and a.vectorised is False
    _assert_additive(a.sample(3.0, N), N, 3.0, math.sqrt(2) * 4.0)
    a.seed(7)
    first = a.sample(0.0, 10)
    a.seed(7)
    np.testing.assert_array_equal(first, a.sample(0.0, 10))
    a.seed(8)
    assert not np.array_equal(first, a.sample(0.0, 10))


def test_inverse_cdf_laplace_wrong_scale_would_fail():
    # power check: a Laplace of twice the scale is outside the tolerance used above
    a = _seeded(textbook.TextbookLaplaceInverseCDF(epsilon=0.5))
    with pytest.raises(AssertionError):
        _assert_additive(a.sample(0.0, N), N, 0.0, math.sqrt(2) * 1.0)


def test_textbook_gaussian_uses_the_classic_sigma():
    a = _seeded(textbook.TextbookGaussian(epsilon=0.5, delta=1e-5))
    sigma = math.sqrt(2 * math.log(1.25 / 1e-5)) / 0.5
    assert a.sigma == pytest.approx(sigma)
    assert (a.epsilon, a.delta) == (0.5, 1e-5)
    _assert_additive(a.sample(-1.0, N), N, -1.0, sigma)


@pytest.mark.parametrize("epsilon", [0.0, 1.0, 2.0])
def test_textbook_gaussian_rejects_epsilon_outside_classic_range(epsilon):
    with pytest.raises(ValueError, match="epsilon"):
        textbook.TextbookGaussian(epsilon=epsilon)


def test_naive_exponential_prefers_low_utility_and_matches_its_probabilities():
    a = _seeded(textbook.NaiveExponential(epsilon=1.0))
    u = np.array([0.0, 1.0, 2.0])
    p = a.probabilities(u)
    exact = np.exp(-0.5 * u) / np.exp(-0.5 * u).sum()
    np.testing.assert_allclose(p, exact, rtol=1e-12)
    x = a.sample(u, N)
    assert x.shape == (N,) and x.dtype == np.int64 and x.min() >= 0 and x.max() < 3
    freq = np.bincount(x, minlength=3) / N
    assert np.all(np.abs(freq - exact) < 6 * np.sqrt(exact * (1 - exact) / N))


def test_naive_exponential_underflows_where_the_min_shift_does_not():
    # Ilvento's zero-rounding pair at eps = 0.5: exp(-0.25*2980) > 0 but exp(-0.25*2981) == 0
    naive = _seeded(textbook.NaiveExponential(epsilon=0.5))
    u = np.array([2980.0] + [2981.0] * 9)
    assert naive.probabilities(u)[0] == 1.0 and np.all(naive.probabilities(u)[1:] == 0.0)
    assert np.all(naive.sample(u, 1000) == 0)
    shifted = _seeded(textbook.MinShiftedExponential(epsilon=0.5))
    assert np.all(shifted.probabilities(u)[1:] > 0)
    assert np.any(shifted.sample(u, 1000) != 0)
    assert shifted.name.startswith("textbook.exponential_min_shifted")


def test_naive_exponential_keeps_indices_in_range_when_every_weight_underflows():
    a = _seeded(textbook.NaiveExponential(epsilon=1.0))
    x = a.sample(np.full(4, 5000.0), 100)
    # every weight is 0.0, the sums are NaN, no index is ever "found": all mass on the last one
    assert np.array_equal(a.probabilities(np.full(4, 5000.0)), [0.0, 0.0, 0.0, 1.0])
    assert np.all(x == 3)


def test_naive_exponential_oracle_shows_absorbed_weights():
    a = textbook.NaiveExponential(epsilon=30.0)
    # one big weight first, then small ones below half an ulp of the running sum
    u = np.array([-0.5] + [2.0] * 5)
    p = a.probabilities(u)
    assert p[0] == 1.0 and np.all(p[1:] == 0.0)
    assert np.isclose(p.sum(), 1.0)


def test_textbook_randomized_response_keep_rate():
    a = _seeded(textbook.TextbookRandomizedResponse(epsilon=1.0))
    keep = math.e / (1 + math.e)
    for bit in (0, 1):
        x = a.sample(bit, N)
        assert x.shape == (N,) and x.dtype == np.int64 and set(np.unique(x)) <= {0, 1}
        rate = np.mean(x == bit)
        assert abs(rate - keep) < 6 * math.sqrt(keep * (1 - keep) / N)
    with pytest.raises(ValueError, match="query"):
        a.sample(2, 1)


def test_naive_bounded_sum_clamps_and_calibrates_to_max_abs_bound():
    a = _seeded(textbook.NaiveBoundedSum(epsilon=1.0, domain=(-2.0, 1.0)))
    assert a.family == "dataset" and a.neighbours == "add_remove" and a.sensitivity == 2.0
    data = np.array([5.0, -5.0, 0.5])  # clamps to 1, -2, 0.5
    _assert_additive(a.sample(data, N), N, -0.5, math.sqrt(2) * 2.0)


def test_builtin_adapters_have_unique_textbook_names():
    adapters = textbook.builtin_adapters()
    names = [a.name for a in adapters]
    assert len(set(names)) == len(names)
    assert all(name.startswith("textbook.") for name in names)
    assert all(a.family in {"additive", "selection", "binary", "dataset"} for a in adapters)
