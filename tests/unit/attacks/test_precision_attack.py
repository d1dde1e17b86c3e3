"""The precision-based attack: the grid facts it relies on, test choice, and audits.

Property tests check the zero-probability side exactly (any double noise).  Audits are seeded;
over seeds the float mechanisms fail to be certified only if the off-grid event, with
probability >= 3 % at input 0, is hit far less often in ~6000 draws (chance < 1e-20); the exact
mechanisms get no event at all, so they cannot be reported.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from float_mechanisms import (
    DiscretisedLaplace,
    GeneratorLaplace,
    RescaledLaplace,
    SnappingLike,
    TextbookGaussian,
)
from hypothesis import given, settings
from hypothesis import strategies as st

from attacks import load_attacks
from attacks.precision import (
    GridTest,
    PrecisionAttack,
    PrecisionDistinguisher,
    coarsest_grid,
    grid_pair,
    neighbour_power_of_two,
    not_multiple,
    rescaled_tests,
)
from auditor.core.configs import AuditConfig
from auditor.core.results import Verdict
from auditor.core.spec import check_adapter
from auditor.core.trials import CertificationPlan
from auditor.engine.runner import run_audit

PLAN = CertificationPlan(n=1000, alpha=0.01, epsilon=1.0, delta=0.0)
finite = st.floats(allow_nan=False, allow_infinity=False, width=64)


@settings(max_examples=200, deadline=None)
@given(j=st.integers(-60, 60), noise=finite)
def test_power_of_two_plus_any_double_is_on_the_grid(j: int, noise: float) -> None:
    y = math.ldexp(1.0, j) + noise
    if math.isfinite(y):
        assert not GridTest(math.ldexp(1.0, j - 53)).off_grid(np.array([y]))[0]


@settings(max_examples=150, deadline=None)
@given(
    epsilon=st.floats(1e-3, 1e3),
    sensitivity=st.sampled_from([1.0, 2.0, 0.5, 3.0]),
    noise=st.floats(-1e8, 1e8),
)
def test_rescaled_outputs_are_never_judged_impossible(
    epsilon: float, sensitivity: float, noise: float
) -> None:
    x_prime = math.ldexp(1.0, neighbour_power_of_two(sensitivity))
    for test in rescaled_tests(x_prime, sensitivity, epsilon):
        kind, s = test.rescale
        y = (x_prime / s + noise) * s if kind == "mul" else (x_prime * s + noise) / s
        assert not test.off_grid(np.array([y]))[0]


@pytest.mark.parametrize("epsilon", [0.3, 1.0, 7.0, 0.01])
def test_no_output_at_the_grid_input_is_judged_impossible_near_cancellation(epsilon) -> None:
    # the hard cases: noise close to -x' so the sum is tiny (exact by Sterbenz)
    rng = np.random.default_rng(8)
    for x_prime in (1.0, 0.5, 4.0):
        near = -x_prime * (1 + rng.normal(0, 0.3, 20_000)) * rng.choice([1, 1, 1, -1], 20_000)
        assert not GridTest(x_prime * 2.0**-53).off_grid(x_prime + near).any()
        for test in rescaled_tests(x_prime, x_prime, epsilon):
            kind, s = test.rescale
            c = x_prime / s if kind == "mul" else x_prime * s
            r = c + (near / x_prime) * c
            y = r * s if kind == "mul" else r / s
            assert not test.off_grid(y).any()
            assert test.off_grid(r * 2.0**-20 * s if kind == "mul" else r * 2.0**-20 / s).any()


def test_small_noise_at_zero_is_off_the_grid() -> None:
    test = GridTest(2.0**-53)
    assert test.off_grid(np.array([0.1, 1e-20])).all()
    assert not test.off_grid(np.array([0.0, 0.5, 3.0, -0.75])).any()


def test_not_multiple_is_exact_at_the_extremes() -> None:
    tiny = 5e-324
    assert not_multiple(np.array([tiny, 3 * tiny]), 2 * tiny).tolist() == [True, True]
    assert not_multiple(np.array([2 * tiny, 0.0]), 2 * tiny).tolist() == [False, False]
    big = np.array([2.0**1000, 2.0**1000 + 2.0**948, 1.0, 1e308])
    assert not_multiple(big, 2.0**1000).tolist() == [False, True, True, True]
    assert not_multiple(np.array([1e308, 1.5]), 2.0**-53).tolist() == [False, False]


def test_coarsest_grid() -> None:
    assert coarsest_grid(np.array([0.75, 1.5, -3.0, 0.0])) == 0.25
    assert coarsest_grid(np.array([0.0])) == math.inf
    # "no answer" (NaN) and infinities carry no grid, and make no invalid cast
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert coarsest_grid(np.array([np.nan, 0.75, np.inf, 1.5])) == 0.25
        assert coarsest_grid(np.array([np.nan])) == math.inf
    assert coarsest_grid(np.array([5e-324])) == 5e-324
    assert coarsest_grid(np.float32([0.1, 2.3]).astype(np.float64)) == 2.0**-27


def test_neighbour_power_of_two() -> None:
    assert neighbour_power_of_two(1.0) == 0
    assert neighbour_power_of_two(3.0) == 1
    assert neighbour_power_of_two(0.3) == -2
    assert neighbour_power_of_two(0.0) is None
    assert neighbour_power_of_two(1e-320) is None


def trained(mech, n: int = 5000) -> PrecisionDistinguisher:
    spec = check_adapter(mech)
    (trial,) = PrecisionAttack().trials(spec, np.random.default_rng(0))
    mech.seed(1)
    a = mech.sample(trial.x, n)
    mech.seed(2)
    b = mech.sample(trial.x_prime, n)
    trial.distinguisher.propose(a, b, PLAN)
    return trial.distinguisher


def float32_laplace():
    mech = GeneratorLaplace(1.0)
    inner = mech.sample
    mech.sample = lambda q, n: (np.float32(q) + inner(0.0, n).astype(np.float32)).astype(np.float32)
    return mech


@pytest.mark.parametrize(
    ("mech", "origin"),
    [
        (GeneratorLaplace(1.0), "theory"),
        (TextbookGaussian(1.0), "theory"),
        (RescaledLaplace(0.3), "rescaled by 3.3333333333333335"),
        (float32_laplace(), "learned"),
    ],
    ids=["laplace", "gaussian", "rescaled", "float32"],
)
def test_distinguisher_learns_the_right_test(mech, origin: str) -> None:
    d = trained(mech)
    assert d.chosen is not None and d.chosen.origin == origin


@pytest.mark.parametrize(
    "mech", [DiscretisedLaplace(), SnappingLike(1.0)], ids=["discretised", "snapping"]
)
def test_exact_mechanisms_get_no_event(mech) -> None:
    assert trained(mech).chosen is None


def test_plain_test_is_rejected_when_outputs_are_rescaled() -> None:
    # power check: the plain grid test fires at x' for the rescaled mechanism, so training
    # must exclude it (otherwise its zero-probability claim would be false)
    mech = RescaledLaplace(0.3)
    mech.seed(5)
    b = mech.sample(1.0, 5000)
    assert GridTest(2.0**-53).off_grid(b).any()


def audit(adapter, budget: int = 100_000):
    report = run_audit([adapter], load_attacks(["precision"]), AuditConfig(budget=budget, seed=4))
    return report.results[0]


@pytest.mark.parametrize(
    "mech",
    [GeneratorLaplace(1.0), GeneratorLaplace(0.1), TextbookGaussian(1.0), RescaledLaplace(0.3)],
    ids=["laplace-1", "laplace-0.1", "gaussian", "rescaled"],
)
def test_float_noise_is_a_certified_violation(mech) -> None:
    result = audit(mech)
    assert result.verdict is Verdict.VIOLATION
    assert result.best.estimate.counts.k1 == 0
    assert not result.best.estimate.white_box


@pytest.mark.parametrize(
    "mech", [DiscretisedLaplace(), SnappingLike(1.0)], ids=["discretised", "snapping"]
)
def test_exact_mechanisms_are_not_reported(mech) -> None:
    result = audit(mech, budget=20_000)
    assert result.verdict is Verdict.NO_VIOLATION
    assert result.best is None


def test_applies_only_where_the_neighbour_is_admissible() -> None:
    attack = PrecisionAttack()
    mech = GeneratorLaplace(1.0, sensitivity=0.5)
    assert attack.applies_to(check_adapter(mech))
    mech.integer_queries = True
    assert not attack.applies_to(check_adapter(mech))


def bounded(mech, lo: float, hi: float):
    mech.query_bounds = (lo, hi)
    return mech


@pytest.mark.parametrize(
    ("bounds", "sensitivity", "epsilon", "integer", "pair"),
    [
        ((-5.0, 5.0), 1.0, 1.0, False, (0.0, 1.0, 0)),  # 0 admissible: the noise alone
        ((1.0, 100.0), 1.0, 0.5, False, (3.0, 4.0, 2)),  # scale 2: 2**(e-1) = 2
        ((1.0, 100.0), 1.0, 0.1, False, (15.0, 16.0, 4)),  # scale 10: 2**(e-1) = 8
        ((20.0, 100.0), 1.0, 0.1, False, (31.0, 32.0, 5)),  # the near end is above
        ((-100.0, -10.0), 1.0, 0.1, False, (-15.0, -16.0, 4)),  # nearest power above the end
        ((0.001, 0.5), 1.0, 1.0, False, (0.001, 0.5, -1)),  # x kept inside the bounds
        ((3.0, 1000.0), 2.5, 0.5, True, (6.0, 8.0, 3)),  # integer step
        ((0.5, 1000.0), 2.0, 8.0, True, (1.0, 2.0, 1)),  # integer inputs only
        ((0.5, 0.7), 1.0, 1.0, False, None),  # no power of two above the near end fits
    ],
)
def test_grid_pair_away_from_zero(bounds, sensitivity, epsilon, integer, pair) -> None:
    mech = bounded(GeneratorLaplace(epsilon, sensitivity=sensitivity), *bounds)
    mech.integer_queries = integer
    assert grid_pair(check_adapter(mech)) == pair


@settings(max_examples=150, deadline=None)
@given(x=st.floats(0.01, 1e6), noise=finite)
def test_the_other_input_away_from_zero_is_on_its_grid(x: float, noise: float) -> None:
    # the event's zero-probability side for any bounds: fl(x' + n) at x' = 2**e
    mech = bounded(GeneratorLaplace(1.0), x, 4 * x + 4)
    x, x_prime, e = grid_pair(check_adapter(mech))
    y = x_prime + noise
    if math.isfinite(y):
        assert not GridTest(math.ldexp(1.0, e - 53)).off_grid(np.array([y]))[0]


@pytest.mark.parametrize("bounds", [(1.0, 100.0), (-100.0, -10.0)], ids=["above", "below"])
def test_float_noise_away_from_zero_is_a_certified_violation(bounds) -> None:
    # missed before: the attack needed input 0
    result = audit(bounded(TextbookGaussian(1.0), *bounds))
    assert result.verdict is Verdict.VIOLATION
    assert result.best.estimate.counts.k1 == 0
    lo, hi = bounds
    assert all(lo <= float(q) <= hi for q in (result.best.x, result.best.x_prime))


@pytest.mark.parametrize(
    "mech", [DiscretisedLaplace(), SnappingLike(1.0)], ids=["discretised", "snapping"]
)
def test_exact_mechanisms_away_from_zero_are_not_reported(mech) -> None:
    result = audit(bounded(mech, 1.0, 100.0), budget=20_000)
    assert result.verdict is Verdict.NO_VIOLATION
