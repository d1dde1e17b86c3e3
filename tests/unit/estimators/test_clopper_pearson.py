import math

import pytest
from statsmodels.stats.proportion import proportion_confint

from auditor.errors import InvalidArgument
from auditor.estimators.clopper_pearson import (
    cp_lower,
    cp_upper,
    epsilon_lower_bound,
    epsilon_point_estimate,
)


@pytest.mark.parametrize(("k", "n"), [(1, 10), (7, 50), (500, 1000), (999, 1000)])
def test_limits_match_statsmodels_beta_interval(k, n):
    # statsmodels' two-sided 'beta' interval at 2a has one-sided CP limits at a on each end.
    low, high = proportion_confint(k, n, alpha=0.1, method="beta")
    assert cp_lower(k, n, 0.05) == pytest.approx(low, rel=1e-12)
    assert cp_upper(k, n, 0.05) == pytest.approx(high, rel=1e-12)


def test_closed_forms_at_the_edges_and_tiny_alpha():
    assert cp_lower(0, 100, 0.05) == 0.0
    assert cp_upper(100, 100, 0.05) == 1.0
    assert cp_upper(0, 1000, 5e-8) == pytest.approx(1 - (5e-8) ** (1 / 1000), rel=1e-12)
    assert cp_lower(1000, 1000, 5e-8) == pytest.approx((5e-8) ** (1 / 1000), rel=1e-12)
    assert 0 < cp_upper(0, 1, 1e-300) <= 1


def test_bound_is_finite_and_zero_without_evidence():
    assert epsilon_lower_bound(0, 10, 0, 10, 0.05) == 0.0
    assert epsilon_lower_bound(10, 10, 10, 10, 0.05) == 0.0
    big = epsilon_lower_bound(10**6, 10**6, 0, 10**6, 1e-300)
    assert math.isfinite(big) and big > 0
    assert (
        epsilon_lower_bound(1, 1, 0, 1, 1e-300) == 0.0
    )  # n = 1 cannot show anything at tiny alpha


def test_delta_above_lower_limit_gives_zero():
    assert epsilon_lower_bound(500, 1000, 0, 1000, 0.05, delta=0.6) == 0.0
    with_delta = epsilon_lower_bound(500, 1000, 10, 1000, 0.05, delta=0.1)
    without = epsilon_lower_bound(500, 1000, 10, 1000, 0.05)
    assert 0 < with_delta < without


def test_bound_matches_formula():
    k0, n0, k1, n1, a = 600, 1000, 200, 1000, 0.01
    expected = math.log(cp_lower(k0, n0, a / 2) / cp_upper(k1, n1, a / 2))
    assert epsilon_lower_bound(k0, n0, k1, n1, a) == pytest.approx(expected)


def test_point_estimate_is_finite_when_an_event_never_happens():
    assert math.isfinite(epsilon_point_estimate(100, 100, 0, 100))


@pytest.mark.parametrize(
    ("k", "n", "alpha"), [(-1, 10, 0.05), (11, 10, 0.05), (1, 0, 0.05), (1, 10, 0), (1, 10, 1)]
)
def test_invalid_counts(k, n, alpha):
    with pytest.raises(InvalidArgument):
        cp_lower(k, n, alpha)
