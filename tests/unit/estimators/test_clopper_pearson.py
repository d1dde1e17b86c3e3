"""Clopper-Pearson limits and the event bound: exactness, edge cases, fuzzing, soundness."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy import special, stats
from statsmodels.stats.proportion import proportion_confint

from auditor.core.errors import InvalidArgument
from auditor.statistics.clopper_pearson import (
    best_split,
    cp_lower,
    cp_lower_array,
    cp_upper,
    cp_upper_array,
    delta_lower_bound,
    epsilon_lower_bound,
    epsilon_point_estimate,
    predicted_lower_bound,
    predicted_lower_bounds,
)


def test_matches_scipy_beta_quantiles_at_ordinary_alpha() -> None:
    assert cp_lower(7, 50, 0.05) == pytest.approx(stats.beta.ppf(0.05, 7, 44), rel=1e-12)
    assert cp_upper(7, 50, 0.05) == pytest.approx(stats.beta.isf(0.05, 8, 43), rel=1e-12)
    # the worked example of estimators.md 1.4: binomtest(7, 50).proportion_ci one-sided
    assert cp_lower(7, 50, 0.05) == pytest.approx(0.067597, abs=1e-6)


@pytest.mark.parametrize("n", [1, 10, 1000, 10**6])
@pytest.mark.parametrize("a", [0.05, 5e-8, 1e-300])
def test_closed_forms_at_k_0_and_k_n(n: int, a: float) -> None:
    assert cp_upper(0, n, a) == pytest.approx(1 - a ** (1 / n), rel=1e-9)
    assert cp_lower(n, n, a) == pytest.approx(a ** (1 / n), rel=1e-9)
    assert cp_lower(0, n, a) == 0.0
    assert cp_upper(n, n, a) == 1.0


def test_statsmodels_issue_9549_case_is_exact() -> None:
    # proportion_confint(0, 500, alpha=0.001/501, 'beta') was reported as ~0.99999 upstream
    a = 0.001 / 501 / 2
    assert cp_upper(0, 500, a) == pytest.approx(1 - a ** (1 / 500), rel=1e-12)
    assert cp_upper(0, 1000, 5e-8) == pytest.approx(0.016670722, rel=1e-6)


@pytest.mark.parametrize(
    ("k", "n", "a"),
    [(3, 7, 5e-301), (2, 10, 1e-300), (5, 100, 1e-200), (4, 8, 5e-301), (50_000, 100_000, 1e-300)],
)
def test_tiny_alpha_limits_are_never_anti_conservative(k: int, n: int, a: float) -> None:
    # scipy's beta.ppf returns 9.6e-22 for (5, 100, 1e-200), whose tail is 6e-98 >> 1e-200
    lo, hi = cp_lower(k, n, a), cp_upper(k, n, a)
    assert 0.0 <= lo < k / n < hi <= 1.0
    assert special.betainc(k, n - k + 1, lo) <= a * (1 + 1e-8)
    assert hi == 1.0 or special.betaincc(k + 1, n - k, hi) <= a * (1 + 1e-8)


def test_tiny_alpha_lower_limit_is_tight_not_just_small() -> None:
    # the limit solves the tail equation, it is not merely some conservative number
    lo = cp_lower(5, 100, 1e-200)
    assert special.betainc(5, 96, lo * 1.001) > 1e-200


def test_array_versions_agree_with_scalar() -> None:
    k = np.arange(0, 51)
    for a in (0.05, 1e-6, 1e-250):
        assert np.allclose(
            cp_lower_array(k, 50, a), [cp_lower(int(i), 50, a) for i in k], rtol=1e-9
        )
        assert np.allclose(
            cp_upper_array(k, 50, a), [cp_upper(int(i), 50, a) for i in k], rtol=1e-9
        )


def test_edge_cases_of_the_bound_are_finite_and_documented() -> None:
    # k0 = 0: nothing seen on x, no evidence
    assert epsilon_lower_bound(0, 100, 0, 100, 0.05) == 0.0
    # k0 = n, k1 = 0: the largest bound these samples allow, finite
    b = epsilon_lower_bound(100, 100, 0, 100, 0.05)
    assert math.isfinite(b) and b == pytest.approx(
        math.log(0.025 ** (1 / 100) / (1 - 0.025 ** (1 / 100)))
    )
    # n = 1
    assert epsilon_lower_bound(1, 1, 0, 1, 0.05) == 0.0  # 0.025 / 0.975 < 1
    # delta >= p0_low: 0.0, whatever the ratio
    assert epsilon_lower_bound(50, 100, 0, 100, 0.05, delta=0.5) == 0.0
    assert epsilon_lower_bound(50, 100, 0, 100, 0.05, delta=0.3) > 0.0
    # tiny alpha: finite, smaller than at ordinary alpha
    tiny = epsilon_lower_bound(10**6, 10**6, 0, 10**6, 1e-300)
    assert math.isfinite(tiny) and 0 < tiny < epsilon_lower_bound(10**6, 10**6, 0, 10**6, 0.05)
    assert epsilon_lower_bound(3, 7, 0, 7, 1e-300) == 0.0


@pytest.mark.parametrize(
    "kwargs",
    [
        {"alpha": 0.0},
        {"alpha": 1.0},
        {"alpha": float("nan")},
        {"delta": 1.0},
        {"delta": -0.1},
        {"delta": float("nan")},
        {"split": 0.0},
        {"split": 1.0},
    ],
)
def test_bad_arguments_raise_invalid_argument(kwargs: dict) -> None:
    args = {"alpha": 0.05, "delta": 0.0, "split": 0.5} | kwargs
    with pytest.raises(InvalidArgument, match=next(iter(kwargs))):
        epsilon_lower_bound(5, 10, 1, 10, **args)


@pytest.mark.parametrize(("k", "n"), [(-1, 10), (11, 10), (0, 0), (1.5, 10)])
def test_bad_counts_raise(k, n) -> None:
    with pytest.raises(InvalidArgument):
        epsilon_lower_bound(k, n, 0, 10, 0.05)


def test_split_moves_alpha_between_the_limits() -> None:
    # more alpha on the rare side (small split) helps when k1 = 0
    assert epsilon_lower_bound(5000, 10000, 0, 10000, 0.05, split=0.1) > epsilon_lower_bound(
        5000, 10000, 0, 10000, 0.05, split=0.5
    )
    assert epsilon_lower_bound(5000, 10000, 0, 10000, 0.05, split=0.3) == pytest.approx(
        math.log(cp_lower(5000, 10000, 0.015) / cp_upper(0, 10000, 0.035))
    )
    assert best_split(0.5, 0.0, 10000, 0.05) < 0.5
    assert best_split(0.5, 0.45, 10000, 0.05) in (0.4, 0.5, 0.6)


def test_point_estimate_is_finite_and_adjusted() -> None:
    assert epsilon_point_estimate(100, 100, 0, 100) == pytest.approx(math.log(100.5 / 0.5))
    assert epsilon_point_estimate(0, 100, 100, 100) == 0.0
    assert epsilon_point_estimate(50, 100, 10, 100, delta=0.6) == 0.0


def test_predicted_bound_vectorised_matches_scalar() -> None:
    rng = np.random.default_rng(0)
    p0, p1 = rng.random(200), rng.random(200)
    want = [
        predicted_lower_bound(a, b, 5000, 0.01, 0.001, 0.3) for a, b in zip(p0, p1, strict=True)
    ]
    assert np.allclose(predicted_lower_bounds(p0, p1, 5000, 0.01, 0.001, 0.3), want)


def test_laplace_oracle_table_is_reproduced() -> None:
    # estimators.md 5.3: eps = 1, p = 1/2, p' = e^-1 / 2, alpha = 0.05 -> 0.9394 / 0.9808 / 0.9939
    for n, want in ((10**4, 0.9394), (10**5, 0.9808), (10**6, 0.9939)):
        got = predicted_lower_bound(0.5, 0.5 * math.exp(-1), n, 0.05)
        assert got == pytest.approx(want, abs=2e-3)


counts = st.integers(min_value=1, max_value=10**9).flatmap(
    lambda n: st.tuples(st.integers(0, n), st.just(n))
)
alphas = st.floats(min_value=1e-300, max_value=0.999, allow_nan=False)
deltas = st.floats(min_value=0.0, max_value=0.999, allow_nan=False)


@settings(
    max_examples=150, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)
@given(c0=counts, c1=counts, alpha=alphas, delta=deltas, split=st.floats(0.01, 0.99))
def test_fuzz_bound_is_finite_and_nonnegative(c0, c1, alpha, delta, split) -> None:
    (k0, n0), (k1, n1) = c0, c1
    bound = epsilon_lower_bound(k0, n0, k1, n1, alpha, delta, split)
    assert math.isfinite(bound) and bound >= 0.0
    assert math.isfinite(epsilon_point_estimate(k0, n0, k1, n1, delta))
    lo, hi = cp_lower(k0, n0, alpha), cp_upper(k1, n1, alpha)
    assert 0.0 <= lo <= 1.0 and 0.0 < hi <= 1.0
    if alpha <= 0.5:  # a confidence limit at level >= 1/2 lies on the far side of the estimate
        assert lo <= k0 / n0 and k1 / n1 <= hi


@settings(max_examples=200, deadline=None, derandomize=True)
@given(
    epsilon=st.floats(0.0, 6.0),
    p1=st.floats(1e-4, 0.5),
    delta=st.sampled_from([0.0, 1e-3, 0.05]),
    n=st.integers(10, 10**6),
    seed=st.integers(0, 2**32 - 1),
)
def test_fuzz_soundness_on_a_known_mechanism(epsilon, p1, delta, n, seed) -> None:
    """A mechanism whose event probabilities sit exactly on the (epsilon, delta) boundary.

    The bound must not exceed the true epsilon.  alpha = 1e-6, so over 200 examples the
    probability that this test fails although the estimator is correct is <= 2e-4
    (derandomized: the examples, and so the outcome, are fixed).
    """
    p0 = min(1.0, math.exp(epsilon) * p1 + delta)
    rng = np.random.default_rng(seed)
    k0, k1 = int(rng.binomial(n, p0)), int(rng.binomial(n, p1))
    true_eps = math.log((p0 - delta) / p1) if p0 > delta else 0.0
    assert epsilon_lower_bound(k0, n, k1, n, 1e-6, delta) <= true_eps + 1e-12


def test_coverage_of_the_bound_by_simulation() -> None:
    """Pr[bound > true eps] <= alpha on the boundary (exact binomial sum, no simulation noise)."""
    n, p1, eps, alpha = 300, 0.1, 1.0, 0.1
    p0 = math.exp(eps) * p1
    k = np.arange(n + 1)
    w0, w1 = stats.binom.pmf(k, n, p0), stats.binom.pmf(k, n, p1)
    exceed = np.array(
        [[epsilon_lower_bound(int(a), n, int(b), n, alpha) > eps for b in k[:90]] for a in k[:200]]
    )
    prob = float(w0[:200] @ exceed @ w1[:90])
    assert prob <= alpha
    # and the bound has power: with a slightly too-high alpha budget the error rises toward alpha
    assert prob > alpha / 20


# --- tests from main (the spine) ---


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


def test_the_delta_bound_reads_the_epsilon_bounds_limits_at_the_claimed_epsilon():
    k0, n0, k1, n1, alpha, split = 300, 100_000, 2, 100_000, 1e-3, 0.3
    lo, hi = cp_lower(k0, n0, alpha * split), cp_upper(k1, n1, alpha * (1 - split))
    assert delta_lower_bound(k0, n0, k1, n1, alpha, 1.0, split) == pytest.approx(
        lo - math.e * hi, rel=1e-12
    )
    # the same test: delta exceeded at epsilon exactly when epsilon is exceeded at delta
    for delta in (1e-4, 1e-3, 2e-3):
        for eps in (0.5, 1.0, 2.0):
            by_delta = delta_lower_bound(k0, n0, k1, n1, alpha, eps, split) > delta
            by_eps = epsilon_lower_bound(k0, n0, k1, n1, alpha, delta, split) > eps
            assert by_delta == by_eps, (delta, eps)
    assert delta_lower_bound(0, n0, 0, n1, alpha, 1.0) == 0.0
    assert delta_lower_bound(5, 100, 90, 100, alpha, 1.0) == 0.0  # never negative
    assert delta_lower_bound(k0, n0, 0, n1, alpha, 1000.0) == 0.0  # e^eps overflows: none
