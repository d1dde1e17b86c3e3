"""The conditional test on Poisson-sized samples: exact level, power, edges, arguments."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from auditor.core.errors import InvalidArgument
from auditor.statistics.clopper_pearson import cp_lower, cp_upper, epsilon_lower_bound
from auditor.statistics.conditional import (
    conditional_lower_bound,
    conditional_upper_bound,
    predicted_conditional_bounds,
)


def exceed_probability(
    epsilon_true: float,
    epsilon: float,
    p1: float,
    mean0: float,
    mean1: float,
    alpha: float,
    told: tuple[float, float] | None = None,
) -> float:
    """Pr[bound > epsilon] when p0 = e^epsilon_true * p1 and the sizes are Poisson(mean0) and
    Poisson(mean1), summed exactly over the counts (no simulation noise; the mass left out of
    the grid is below 1e-12).  ``told``: the means the bound is computed with (default: the
    true ones)."""
    p0 = math.exp(epsilon_true) * p1
    told0, told1 = told or (mean0, mean1)
    lam0, lam1 = mean0 * p0, mean1 * p1
    top0 = int(stats.poisson.isf(1e-13, lam0)) + 1
    top1 = int(stats.poisson.isf(1e-13, lam1)) + 1
    a, b = np.arange(top0 + 1), np.arange(top1 + 1)
    w0, w1 = stats.poisson.pmf(a, lam0), stats.poisson.pmf(b, lam1)
    exceed = np.array(
        [
            [conditional_lower_bound(int(i), int(j), told0, told1, alpha) > epsilon for j in b]
            for i in a
        ]
    )
    return float(w0 @ exceed @ w1)


@pytest.mark.parametrize(
    ("epsilon", "p1", "mean0", "mean1"),
    [(0.5, 0.1, 300, 300), (1.0, 0.02, 2000, 2000), (0.2, 0.3, 200, 200), (0.5, 0.1, 200, 500)],
)
def test_level_is_exact_at_the_edge_of_the_null(epsilon, p1, mean0, mean1) -> None:
    """At p0 = e^epsilon p1 the bound exceeds epsilon with probability at most alpha, and
    close to it (the test spends its alpha, unlike the box's union bound)."""
    alpha = 0.1
    prob = exceed_probability(epsilon, epsilon, p1, mean0, mean1, alpha)
    assert prob <= alpha
    assert prob > alpha / 2
    # the two-limit box on the same counts' expected size spends far less of it
    n, p0 = mean0, math.exp(epsilon) * p1
    if mean0 == mean1:
        k = np.arange(min(n, int(3 * n * p0) + 20) + 1)
        w0, w1 = stats.binom.pmf(k, n, p0), stats.binom.pmf(k, n, p1)
        box = np.array(
            [[epsilon_lower_bound(int(i), n, int(j), n, alpha) > epsilon for j in k] for i in k]
        )
        assert float(w0 @ box @ w1) < prob


def test_it_fails_when_the_means_or_the_truth_are_wrong() -> None:
    """The exactness check is not vacuous: a mechanism above the tested epsilon is caught
    often, and a bound computed with the means swapped loses its level."""
    alpha, p1 = 0.1, 0.1
    assert exceed_probability(0.9, 0.5, p1, 300, 300, alpha) > 0.5
    right = exceed_probability(0.5, 0.5, p1, 500, 200, alpha)
    wrong = exceed_probability(0.5, 0.5, p1, 500, 200, alpha, told=(200, 500))
    assert right <= alpha < wrong


def test_formula_edges_and_unequal_means() -> None:
    assert conditional_lower_bound(0, 10, 100, 100, 0.05) == 0.0
    assert conditional_lower_bound(0, 0, 100, 100, 0.05) == 0.0
    assert conditional_lower_bound(3, 40, 100, 100, 0.05) == 0.0  # no loss shows
    # k1 = 0: theta_low = alpha^(1/k0), a finite bound that grows with k0
    for k0 in (1, 10, 1000):
        theta = 0.05 ** (1 / k0)
        expected = max(0.0, math.log(theta / (1 - theta)))
        assert conditional_lower_bound(k0, 0, 100, 100, 0.05) == pytest.approx(expected)
    assert conditional_lower_bound(1000, 0, 10**4, 10**4, 0.05) > conditional_lower_bound(
        10, 0, 10**4, 10**4, 0.05
    )
    theta = cp_lower(300, 500, 0.05)
    assert conditional_lower_bound(300, 200, 1000, 2000, 0.05) == pytest.approx(
        math.log(theta / (1 - theta)) + math.log(2.0)
    )


def test_tighter_than_the_box_on_a_rare_event() -> None:
    """Same expected counts, rare event: the conditional bound is closer to the truth."""
    n, p1, eps = 10**6, 0.01, 0.1
    k0, k1 = round(n * p1 * math.exp(eps)), round(n * p1)
    box = epsilon_lower_bound(k0, n, k1, n, 0.05)
    conditional = conditional_lower_bound(k0, k1, n, n, 0.05)
    assert box < conditional < eps
    assert (eps - conditional) < 0.7 * (eps - box)


def test_predictions_match_the_bound_at_expected_counts() -> None:
    p0, p1 = np.array([0.0111, 0.5, 0.0, 0.2]), np.array([0.01, 0.3, 0.1, 0.0])
    n = 50_000
    predicted = predicted_conditional_bounds(p0, p1, n, 0.05)
    for got, a, b in zip(predicted, p0, p1, strict=True):
        exact = conditional_lower_bound(round(a * n), round(b * n), n, n, 0.05)
        assert got == pytest.approx(exact, rel=1e-9, abs=1e-12)


@pytest.mark.parametrize(
    "args",
    [
        (-1, 3, 10, 10, 0.05),
        (1.5, 3, 10, 10, 0.05),
        (True, 3, 10, 10, 0.05),
        (1, 3, 0, 10, 0.05),
        (1, 3, 10, math.inf, 0.05),
        (1, 3, 10, "10", 0.05),
        (1, 3, 10, 10, 0.0),
        (1, 3, 10, 10, 1.0),
    ],
)
def test_bad_arguments_raise_invalid_argument(args) -> None:
    with pytest.raises(InvalidArgument):
        conditional_lower_bound(*args)


def test_the_upper_limit_is_the_same_test_read_the_other_way() -> None:
    theta = cp_upper(300, 500, 0.05)
    assert conditional_upper_bound(300, 200, 1000, 2000, 0.05) == pytest.approx(
        math.log(theta / (1 - theta)) + math.log(2.0)
    )
    assert conditional_upper_bound(300, 200, 1000, 1000, 0.05) > conditional_lower_bound(
        300, 200, 1000, 1000, 0.05
    )
    assert conditional_upper_bound(5, 0, 100, 100, 0.05) == math.inf
    assert conditional_upper_bound(0, 40, 100, 100, 0.05) < 0
