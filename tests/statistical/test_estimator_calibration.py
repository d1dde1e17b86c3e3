"""Whole-audit calibration and the no-cap property of the certified bound.

False-failure probabilities: each audit of a correct mechanism reports a violation with
probability <= alpha = 0.05 (union bound over every test of the audit).  For N audits, the
count of false violations is stochastically below Binomial(N, 0.05); the tests allow alpha * N
(for N = 20: P[Bin(20, 0.05) > 1] = 0.26 at worst, but the estimator is far more conservative
than the worst case -- measured 0 / 200, see docs/calibration.md -- and the seeds are fixed, so
the outcome is deterministic).
"""

from __future__ import annotations

import pytest

from attacks.black_box import BlackBoxAttack
from auditor.core.configs import AuditConfig
from auditor.engine.runner import run_audit
from bench.calibration import run_calibration
from bench.correct_mechanisms import HalfLeak, RandomizedResponse


def test_calibration_small() -> None:
    result = run_calibration(audits=20, budget=2_000)
    assert len(result["violations"]) <= 0.05 * 20
    # the bounds are informative, not all zero (a test that cannot fail is a defect)
    assert max(result["ratios"]) > 0.5


def test_audit_has_power_on_a_broken_mechanism() -> None:
    # randomized response with true epsilon 2 claiming 1: caught at a small budget
    adapter = RandomizedResponse(2.0, name="rr-claims-1")
    adapter.epsilon = 1.0
    report = run_audit([adapter], [BlackBoxAttack()], AuditConfig(budget=5_000, seed=0))
    assert report.results[0].verdict.value == "violation"


@pytest.mark.slow
def test_calibration_200_audits() -> None:
    result = run_calibration(audits=200, budget=20_000)
    assert len(result["violations"]) <= 0.05 * 200


def test_no_cap_bound_grows_with_n() -> None:
    values = []
    for budget in (2_500, 25_000):
        # the estimator's own property, on its whole certification split: the futility check
        # would rightly stop early, since no bound near the claim of 40 is reachable here
        config = AuditConfig(budget=budget, seed=0, futility=0)
        report = run_audit([HalfLeak(40.0)], [BlackBoxAttack()], config)
        values.append(report.results[0].epsilon_lower_bound)
    assert values[0] > 4.5 and values[1] > values[0] + 2.0  # ~ +ln(10) per decade of n


@pytest.mark.slow
def test_no_cap_reaches_10_at_a_million() -> None:
    # epsilon = infinity on an event of probability 1/2; claim 40 so that no look stops early;
    # 1e6 outputs per side certify (budget 1.25e6, 20 % training); as above, without the
    # futility check, which would rightly cut the trial after its pilot (40 is out of reach)
    config = AuditConfig(budget=1_250_000, seed=0, futility=0)
    report = run_audit([HalfLeak(40.0)], [BlackBoxAttack()], config)
    est = report.results[0].best.estimate
    assert est.counts.n0 == 1_000_000
    assert 10.0 <= est.epsilon_lower_bound < 40.0
