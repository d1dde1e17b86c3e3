"""The one-run bound (Steinke, Nasr, Jagielski 2023): closed forms, the Appendix D p-value
recomputed by its loop, monotonicity, and soundness on randomized response."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from auditor.core.errors import InvalidArgument
from auditor.statistics.one_run import one_run_epsilon, one_run_p_value


def _p_value_loop(m, r, v, eps, delta):
    """The p-value as the paper's Appendix D states it, one i at a time."""
    q = math.exp(eps) / (1.0 + math.exp(eps))
    beta = sum(stats.binom.pmf(k, r, q) for k in range(v, r + 1))
    best, running = 0.0, 0.0
    for i in range(1, v + 1):
        running += stats.binom.pmf(v - i, r, q)
        best = max(best, running / i)
    return min(1.0, beta + best * delta * 2 * m)


@pytest.mark.parametrize("r, expected", [(100, 3.49), (1000, 5.81), (10_000, 8.11)])
def test_all_guesses_right_without_delta_is_the_logit_of_alpha_to_the_1_over_r(r, expected):
    eps = one_run_epsilon(r, r, r, delta=0.0, alpha=0.05)
    root = 0.05 ** (1.0 / r)
    assert eps == pytest.approx(math.log(root / (1.0 - root)), abs=1e-8)
    assert round(eps, 2) == expected


@pytest.mark.parametrize(
    "m, r, v, eps, delta",
    [(1000, 600, 600, 5.0, 1e-5), (1000, 100, 90, 1.0, 1e-5), (50, 50, 30, 0.2, 1e-3)],
)
def test_the_p_value_is_appendix_d_s(m, r, v, eps, delta):
    assert one_run_p_value(m, r, v, eps, delta) == pytest.approx(
        _p_value_loop(m, r, v, eps, delta), rel=1e-9
    )


def test_the_bound_is_where_the_p_value_crosses_alpha_and_delta_only_lowers_it():
    eps = one_run_epsilon(1000, 600, 600, delta=1e-5, alpha=0.05)
    assert 5.0 < eps < one_run_epsilon(1000, 600, 600, delta=0.0, alpha=0.05)
    assert one_run_p_value(1000, 600, 600, eps - 1e-6, 1e-5) < 0.05
    assert one_run_p_value(1000, 600, 600, eps + 1e-6, 1e-5) >= 0.05
    assert one_run_epsilon(1000, 100, 50, delta=1e-5) == 0.0  # a coin's accuracy: nothing


def test_randomized_response_is_never_overstated():
    """eps-DP randomized response on 1000 canaries, all guessed: each run's bound exceeds eps
    with probability at most alpha = 0.05, so of 40 seeded runs at most Binomial(40, 0.05) are
    over; allowing 6, a false failure has probability below 0.004."""
    rng = np.random.default_rng(0)
    eps, over = 1.0, 0
    for _ in range(40):
        right = int((rng.random(1000) < math.exp(eps) / (1 + math.exp(eps))).sum())
        over += one_run_epsilon(1000, 1000, right, delta=0.0) > eps
    assert over <= 6
    assert one_run_epsilon(1000, 1000, 731, delta=0.0) > 0.5  # the expected count certifies


def test_arguments_are_checked():
    with pytest.raises(InvalidArgument, match="v <= r <= m"):
        one_run_epsilon(10, 20, 5)
    with pytest.raises(InvalidArgument, match="alpha"):
        one_run_epsilon(10, 10, 5, alpha=1.0)
    with pytest.raises(InvalidArgument, match="epsilon"):
        one_run_p_value(10, 10, 5, -1.0)
