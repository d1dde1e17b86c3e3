"""Power of the certification: exact detection probabilities and the no-violation statement."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from auditor.core.errors import InvalidArgument
from auditor.statistics.clopper_pearson import delta_lower_bound, epsilon_lower_bound
from auditor.statistics.power import (
    detectable_delta,
    detectable_epsilon,
    detection_probability,
    power_statement,
)


def test_exact_probability_matches_simulation() -> None:
    # 4,000 simulated certifications; the standard error of the frequency is <= 0.008, the
    # tolerance 0.035 is > 4 standard errors (false-failure probability < 1e-4, fixed seed)
    rng = np.random.default_rng(1)
    n, p1, eps, alpha, claim = 2000, 0.2, 1.15, 0.05, 1.0
    p0 = math.exp(eps) * p1
    k0, k1 = rng.binomial(n, p0, 4000), rng.binomial(n, p1, 4000)
    freq = np.mean(
        [
            epsilon_lower_bound(int(a), n, int(b), n, alpha) > claim
            for a, b in zip(k0, k1, strict=True)
        ]
    )
    assert detection_probability(eps, p1, n, alpha, claim) == pytest.approx(freq, abs=0.035)


def test_conditional_probability_is_the_exact_sum_over_poisson_counts() -> None:
    """The conditional test's power, checked against a brute-force sum of its own bound over
    every pair of Poisson counts; and it catches smaller violations than the box."""
    from scipy import stats

    from auditor.statistics.conditional import conditional_lower_bound

    n, p1, eps, alpha, claim = 300, 0.1, 1.0, 0.05, 0.5
    lam0, lam1 = n * math.exp(eps) * p1, n * p1
    k0, k1 = np.arange(200), np.arange(120)
    hit = np.array(
        [[conditional_lower_bound(int(a), int(b), n, n, alpha) > claim for b in k1] for a in k0]
    )
    brute = float(stats.poisson.pmf(k0, lam0) @ hit @ stats.poisson.pmf(k1, lam1))
    exact = detection_probability(eps, p1, n, alpha, claim, conditional=True)
    assert exact == pytest.approx(brute, abs=1e-9)
    assert exact > detection_probability(eps, p1, n, alpha, claim)
    box, cond = (detectable_epsilon(0.01, 10**6, 0.05, 0.1, conditional=c) for c in (False, True))
    assert box is not None and cond is not None and 0.1 < cond < box


def test_probability_is_monotone_and_bounded() -> None:
    values = [
        detection_probability(e, 0.1, 5000, 0.01, 1.0) for e in (0.5, 1.0, 1.1, 1.2, 1.5, 2.0)
    ]
    assert all(0.0 <= v <= 1.0 for v in values)
    assert values == sorted(values)
    assert values[0] < 1e-3  # a mechanism inside its claim is (almost) never flagged
    assert values[-1] > 0.999


def test_detectable_epsilon_is_the_smallest_with_power_0_8() -> None:
    eps = detectable_epsilon(0.184, 10_000, 0.05, 1.0)
    assert eps is not None and 1.0 < eps < 1.2
    assert detection_probability(eps, 0.184, 10_000, 0.05, 1.0) >= 0.8
    assert detection_probability(eps - 0.01, 0.184, 10_000, 0.05, 1.0) < 0.8


def test_more_samples_detect_smaller_violations() -> None:
    values = [detectable_epsilon(0.184, n, 0.05, 1.0) for n in (10**3, 10**4, 10**5)]
    assert values[0] > values[1] > values[2] > 1.0


def test_too_rare_event_detects_nothing() -> None:
    # p1 = 1e-6 at n = 1,000: even p0 = 1 cannot push the bound above 30
    assert detectable_epsilon(1e-6, 1000, 0.05, 30.0) is None


def test_delta_is_accounted_for() -> None:
    plain = detectable_epsilon(0.05, 10_000, 0.05, 1.0)
    with_delta = detectable_epsilon(0.05, 10_000, 0.05, 1.0, delta=0.01)
    assert plain is not None and with_delta is not None and abs(with_delta - plain) < 0.1
    # the alternative is p0 = e^eps p1 + delta: power must not come from delta alone
    assert detection_probability(1.0, 0.05, 10_000, 0.05, 1.0, delta=0.01) < 0.05


def test_statement_dict() -> None:
    power = power_statement("output > 1", 1840, 10_000, 10_000, 0.05, 1.0)
    assert set(power) >= {"epsilon_detectable", "probability", "statement"}
    assert power["probability"] == 0.8
    assert 1.0 < power["epsilon_detectable"] < 1.2
    assert "no violation found" in power["statement"]
    assert "0.8" in power["statement"] and "output > 1" in power["statement"]
    rare = power_statement("output == 7", 0, 10, 10, 0.05, 20.0)
    assert rare["epsilon_detectable"] is None and "too rare" in rare["statement"]


def test_a_probability_one_event_is_never_called_rare() -> None:
    certain = power_statement("the output is (0, 0, 0)", 10_000, 10_000, 10_000, 0.05, 1.0)
    assert certain["epsilon_detectable"] is None
    assert "rare" not in certain["statement"] and "too likely" in certain["statement"]


def test_an_event_too_likely_to_exceed_the_claim_is_not_called_rare() -> None:
    # p1 = 0.377 > e^-1: even p0 = 1 is a ratio below e^1, at any budget (an OpenDP top-k
    # audit's statement called this event "too rare")
    likely = power_statement("score > 0.05", 771, 2048, 2048, 8e-6, 1.0)
    assert likely["epsilon_detectable"] is None
    assert "rare" not in likely["statement"] and "too likely" in likely["statement"]
    # under a smaller claim the same event has room (p0 up to 1 is a ratio of 2.65)
    small = power_statement("score > 0.05", 771, 2048, 2048, 8e-6, 0.1)
    assert 0.1 < small["epsilon_detectable"] < math.log(2048 / 771.5)


@pytest.mark.parametrize(
    "kwargs", [{"p1": 0.0}, {"p1": 1.0}, {"n": 0}, {"alpha": 0.0}, {"split": 1.0}]
)
def test_bad_arguments(kwargs: dict) -> None:
    args = {"epsilon": 1.5, "p1": 0.1, "n": 100, "alpha": 0.05, "epsilon_claim": 1.0} | kwargs
    with pytest.raises(InvalidArgument):
        detection_probability(**args)


def test_the_detectable_one_sided_probability_is_where_the_test_passes_with_the_target_power():
    n, alpha, eps, delta = 20_000, 1e-4, 1.0, 1e-4
    p = detectable_delta(n, alpha, eps, delta)
    assert p is not None and delta < p < 0.01
    # the smallest count the test passes with (one side at 0), found directly
    k_star = next(k for k in range(n) if delta_lower_bound(k, n, 0, n, alpha, eps) > delta)
    assert stats.binom.sf(k_star - 1, n, p) == pytest.approx(0.8, abs=1e-6)
    assert stats.binom.sf(k_star - 1, n, 0.95 * p) < 0.8
    # more outputs detect smaller leaks; too few detect none
    assert detectable_delta(10 * n, alpha, eps, delta) < p
    assert detectable_delta(5, alpha, eps, delta) is None
    assert math.isfinite(p)


def test_the_ceiling_is_the_bound_of_an_event_seen_only_on_one_side() -> None:
    from auditor.statistics.clopper_pearson import epsilon_lower_bound
    from auditor.statistics.power import epsilon_ceiling

    for n, alpha, delta in [(160_000, 1e-5, 0.0), (2_048, 0.05, 0.0), (160_000, 1e-4, 1e-5)]:
        ceiling = epsilon_ceiling(n, alpha, delta)
        assert ceiling == pytest.approx(epsilon_lower_bound(n, n, 0, n, alpha, delta), rel=1e-9)
        assert abs(ceiling - math.log(n / math.log(2 / alpha))) < 0.5


def test_a_claim_near_the_ceiling_is_said_to_be_out_of_reach() -> None:
    n, alpha = 160_000, 1e-4
    plain = power_statement("output > 1", 1840, 10_000, n, alpha, 1.0)
    assert "black-box" not in plain["statement"]
    # classic Gaussian sigma at epsilon 8: refuting it needs an event of probability >= 0.1
    near = power_statement("output > 3", 40, 10_000, n, alpha, 8.0, delta=1e-5)
    assert "shows only on an event of probability" in near["statement"]
    beyond = power_statement("output > 3", 40, 10_000, n, alpha, 30.0)
    assert "beyond a black-box test's reach" in beyond["statement"]
