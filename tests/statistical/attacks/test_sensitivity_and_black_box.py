"""End-to-end audits with the dataset/additive/binary attacks on broken and correct mechanisms.

Every run uses a fixed seed, so the outcome is deterministic.  For the "no violation" tests the
family-wise guarantee bounds the probability that a random seed would flag a correct mechanism
by alpha (ALPHA = 0.01 here; the Clopper-Pearson bounds are conservative, so the real rate is
far lower).  The "violation" tests are the power twins: the same attacks, a broken mechanism.
"""

from __future__ import annotations

import pytest
from attack_fixtures import (
    ExactCount,
    ExactIntegerSum,
    HalfNoiseLaplace,
    NaiveFloatSum,
    NaiveFloatSumWithProbe,
    NoiselessAdditive,
    StabilityPTR,
    WrappingIntegerSum,
    reference_ptr_with_noiseless_test,
)
from audit_fixtures import GeometricLaplace, RandomizedResponse

from attacks import load_attacks
from attacks.sensitivity import WHITE_BOX_SENSITIVITY
from auditor.adapters.reference_dataset import PTRMedianAdapter
from auditor.core.configs import AuditConfig
from auditor.core.results import Verdict
from auditor.engine.runner import run_audit

ALPHA = 0.01
BUDGET = 20_000


def audit(adapters, attacks, budget=BUDGET, seed=1):
    report = run_audit(
        adapters, load_attacks(attacks), AuditConfig(budget=budget, alpha=ALPHA, seed=seed)
    )
    return {r.adapter: r for r in report.results}, report


def assert_named_violation(result, attack):
    """A violation names its attack, its inputs and its event, in the object and in JSON."""
    assert result.verdict is Verdict.VIOLATION, result
    assert result.epsilon_lower_bound > result.claim.epsilon
    best = result.best
    assert best.attack == attack
    assert best.x is not None and best.x_prime is not None and best.trial
    assert best.estimate.event
    row = result.to_dict()
    assert row["attack"] == attack and row["event"] and len(row["queries"]) == 2


# --- additive and binary ------------------------------------------------------------------


def test_half_noise_laplace_is_found_by_the_black_box_search():
    results, _ = audit([HalfNoiseLaplace()], ["black-box"])
    assert_named_violation(results["test.half_noise_laplace"], "black-box")


def test_half_noise_on_integers_is_found_by_the_black_box_search_not_lsb():
    broken = GeometricLaplace(true_epsilon=2.0, name="test.half_noise_discrete")
    results, _ = audit([broken], None)  # the default attacks, LSB included
    result = results["test.half_noise_discrete"]
    assert_named_violation(result, "black-box")
    assert all(f.attack != "lsb-laplace" for f in result.findings)


def test_noiseless_releases_are_found():
    results, _ = audit([NoiselessAdditive(), ExactCount()], ["black-box"])
    for name in ("test.noiseless_additive", "test.exact_count"):
        assert_named_violation(results[name], "black-box")
        assert results[name].best.estimate.event.startswith("output ==")


# --- dataset: sensitivity ------------------------------------------------------------------


def test_large_offset_float_sum_is_found_statistically_without_a_probe():
    results, _ = audit([NaiveFloatSum()], ["sensitivity"])
    result = results["test.naive_float_sum"]
    assert_named_violation(result, "sensitivity")
    assert (
        result.best.estimate.estimator == "clopper-pearson" and not result.best.estimate.white_box
    )


def test_large_offset_float_sum_is_found_white_box_with_the_probe():
    results, _ = audit([NaiveFloatSumWithProbe(name="test.naive_float_sum_probe")], ["sensitivity"])
    result = results["test.naive_float_sum_probe"]
    assert_named_violation(result, "sensitivity")
    est = result.best.estimate
    assert est.white_box and est.estimator == WHITE_BOX_SENSITIVITY  # alpha: the run's per-test
    assert result.samples == 0  # the white-box check ran first and needed no samples


def test_wrapping_int64_sum_is_found_statistically():
    broken = WrappingIntegerSum(domain=(0, 2**50), neighbours="add_remove", probe=False)
    results, _ = audit([broken], ["sensitivity"])
    assert_named_violation(results["test.exact_integer_sum"], "sensitivity")
    assert "overflow" in results["test.exact_integer_sum"].best.trial


EXACT_SUMS = [
    ExactIntegerSum(domain=(0, 2**50), neighbours="add_remove", name="exact.wide.probe"),
    ExactIntegerSum(domain=(0, 2**50), neighbours="add_remove", name="exact.wide", probe=False),
    ExactIntegerSum(domain=(2**50, 2**50 + 1), neighbours="replace", name="exact.narrow.probe"),
    ExactIntegerSum(
        domain=(2**50, 2**50 + 1), neighbours="replace", name="exact.narrow", probe=False
    ),
]


@pytest.mark.parametrize(
    ("adapters", "budget"),
    [
        (EXACT_SUMS, BUDGET),
        pytest.param(EXACT_SUMS, 200_000, marks=pytest.mark.slow, id="all-full-budget"),
    ],
)
def test_exact_integer_sums_are_not_flagged(adapters, budget):
    results, _ = audit(adapters, ["sensitivity", "black-box"], budget=budget)
    for name, result in results.items():
        assert result.verdict is Verdict.NO_VIOLATION, (name, result.best)
        # the sensitivity attack did plan trials here (it was not vacuous)
        assert any(f.attack == "sensitivity" for f in result.findings), name


# --- dataset: propose-test-release ---------------------------------------------------------


def test_ptr_without_noise_on_the_distance_leaks_through_bottom():
    results, _ = audit([StabilityPTR(noisy=False)], ["black-box"])
    result = results["test.ptr_median_noiseless_test"]
    assert_named_violation(result, "black-box")
    assert result.best.estimate.event == "output is ⊥ (no answer, NaN)"
    assert result.best.trial.startswith("stability chain")


def test_correct_ptr_is_not_flagged():
    results, _ = audit([StabilityPTR(noisy=True)], ["black-box", "sensitivity"])
    result = results["test.ptr_median"]
    assert result.verdict is Verdict.NO_VIOLATION, result.best
    assert result.findings  # the chain did certify something, below the claim


def test_reference_ptr_with_a_noiseless_test_leaks_through_bottom():
    """The same attack on the reference A_dist (add/remove neighbours) with its noise removed."""
    results, _ = audit([reference_ptr_with_noiseless_test()], ["black-box"])
    result = results["test.reference_ptr_noiseless_test"]
    assert_named_violation(result, "black-box")
    assert result.best.estimate.event == "output is ⊥ (no answer, NaN)"


def test_reference_ptr_is_not_flagged():
    results, _ = audit(
        [PTRMedianAdapter(name="reference.ptr_median")], ["black-box", "sensitivity"]
    )
    assert results["reference.ptr_median"].verdict is Verdict.NO_VIOLATION


# --- correct mechanisms with every attack of this module -----------------------------------


@pytest.mark.parametrize("seed", [1, 2])
def test_correct_mechanisms_are_not_flagged(seed):
    adapters = [GeometricLaplace(), RandomizedResponse()]
    results, _ = audit(adapters, ["black-box", "sensitivity"], seed=seed)
    for result in results.values():
        assert result.verdict is Verdict.NO_VIOLATION, result.best


@pytest.mark.slow
def test_correct_mechanisms_at_the_default_budget():
    """Soundness at the CLI's default budget (200,000 outputs per input per trial)."""
    adapters = [
        GeometricLaplace(),
        RandomizedResponse(),
        StabilityPTR(noisy=True),
        PTRMedianAdapter(name="reference.ptr_median"),
    ]
    results, _ = audit(adapters, ["black-box", "sensitivity"], budget=200_000, seed=7)
    for result in results.values():
        assert result.verdict is Verdict.NO_VIOLATION, (result.adapter, result.best)
