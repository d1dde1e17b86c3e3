"""The staged certification: pilot, look schedule, alpha accounting, early stop, power."""

from __future__ import annotations

import numpy as np
import pytest

from attacks.black_box import BlackBoxAttack
from auditor.core.claims import PrivacyClaim
from auditor.core.configs import DEFAULT_LOOKS, AuditConfig
from auditor.core.errors import InvalidArgument
from auditor.core.spec import check_adapter
from auditor.core.trials import Event, Trial
from auditor.engine.certify import Certifier
from auditor.engine.runner import run_audit
from auditor.engine.schedule import MIN_LOOK, PILOT_SHARE, plan_looks
from auditor.engine.search_units import edge_pairs
from auditor.engine.trial_stages import run_trial, training_rates
from auditor.statistics.clopper_pearson import epsilon_lower_bound
from auditor.statistics.conditional import CONDITIONAL_ESTIMATOR, conditional_lower_bound
from auditor.statistics.events.event_selection import DataDrivenEvents
from bench.correct_mechanisms import HalfLeak, RandomizedResponse, SnappedLaplace


def test_plan_looks_merges_small_looks_and_keeps_total_share() -> None:
    looks = ((1 / 256, 0.02), (1 / 64, 0.03), (1 / 16, 0.05), (1 / 4, 0.1), (1.0, 0.8))
    planned = plan_looks(looks, 16_000)
    assert planned[0][0] >= MIN_LOOK
    assert planned[-1][0] == 16_000
    assert sum(s for _, s in planned) == pytest.approx(1.0)
    assert [n for n, _ in planned] == sorted({n for n, _ in planned})
    tiny = plan_looks(DEFAULT_LOOKS, 100)
    assert tiny == [(100, pytest.approx(1.0))]


class _FixedEvents:
    """A stub distinguisher with fixed events (no training)."""

    max_events = 1
    train_fraction = 0.0

    def propose(self, a, b, plan):
        return [Event("output == 2", lambda y: np.asarray(y) == 2)]


def _certifier(adapter, budget=20_000, alpha_test=0.01, tighten=False):
    spec = check_adapter(adapter)
    seen: list[int] = []
    config = AuditConfig(budget=budget, seed=3, tighten=tighten)
    cert = Certifier(spec, config, alpha_test, seen.append)
    return cert, seen


def test_gross_violation_stops_in_the_pilot() -> None:
    cert, _ = _certifier(HalfLeak(1.0), budget=200_000)
    finding = run_trial(
        cert, BlackBoxAttack(), 0, BlackBoxAttack().trials(cert.spec, np.random.default_rng(0))[0]
    )
    assert finding is not None and finding.estimate.epsilon_lower_bound > 1.0
    assert finding.looks == 0  # the pilot look
    assert cert.samples <= 2 * 2 * 2048  # a few thousand outputs per side
    est = finding.estimate
    assert est.alpha == pytest.approx(0.01 * PILOT_SHARE)
    c = est.counts
    assert est.epsilon_lower_bound == epsilon_lower_bound(
        c.k0, c.n0, c.k1, c.n1, est.alpha, est.delta, est.alpha_split
    )
    assert finding.power is None


def test_a_certified_violation_is_tightened_on_the_later_looks() -> None:
    cert, _ = _certifier(HalfLeak(1.0), budget=16_000, tighten=True)
    finding = run_trial(cert, BlackBoxAttack(), 0, Trial(0, 1, _FixedEvents(), "stub"))
    assert finding is not None and finding.looks == 3 and finding.n_certify == 16_000
    first = finding.first_certified
    assert first is not None and first.looks == 1 and first.n_certify == 1000
    assert first.bound > 1.0 and finding.estimate.bound > first.bound
    # the last look's bound re-derives from its own counts and alpha share
    est, c = finding.estimate, finding.estimate.counts
    assert est.epsilon_lower_bound == epsilon_lower_bound(
        c.k0, c.n0, c.k1, c.n1, est.alpha, est.delta, est.alpha_split
    )
    assert est.alpha == pytest.approx(0.01 * DEFAULT_LOOKS[-1][1])
    # per-call adapters stop at the first certifying look (their outputs are dear)
    looped = HalfLeak(1.0)
    looped.vectorised = False
    cert, _ = _certifier(looped, budget=16_000, tighten=True)
    finding = run_trial(cert, BlackBoxAttack(), 0, Trial(0, 1, _FixedEvents(), "stub"))
    assert finding is not None and finding.looks == 1 and finding.first_certified is None


def test_fixed_events_skip_the_pilot_and_use_the_looks() -> None:
    cert, _ = _certifier(HalfLeak(1.0), budget=16_000)
    finding = run_trial(cert, BlackBoxAttack(), 0, Trial(0, 1, _FixedEvents(), "stub"))
    assert finding is not None and finding.looks == 1  # first main look (1/16 of 16,000)
    assert finding.n_certify == 1000 and finding.n_train == 0
    assert finding.estimate.alpha == pytest.approx(0.01 * DEFAULT_LOOKS[0][1])
    # no training outputs to plot: 2,000 fresh ones per side, drawn after the stop for the plot
    # alone; the next look (sent ahead) was discarded unread, so nothing else was sampled
    sample = finding.output_sample
    assert sample is not None and sample.source == "plot"
    assert len(sample.x) == len(sample.x_prime) == 2000
    assert cert.samples == 2 * 1000 + 2 * 2000


def test_no_violation_carries_power_and_alpha_accounting() -> None:
    report = run_audit(
        [RandomizedResponse(1.0)], [BlackBoxAttack()], AuditConfig(budget=20_000, seed=1)
    )
    result = report.results[0]
    assert result.verdict.value == "no_violation"
    power = result.power
    assert power is not None and power["probability"] == 0.8
    assert 1.0 < power["epsilon_detectable"] < 1.5
    assert "no violation found" in power["statement"]
    # the trial reserves 2 * max_events tests; the final look spends (1 - pilot) * final share
    # of them, half on the test the training split predicts strongest (this one), half evenly
    per_test = report.to_dict()["multiple_comparisons"]["per_test_alpha"]
    reserved = per_test * 2 * DataDrivenEvents().max_events
    assert result.best.estimate.alpha == pytest.approx(
        reserved / 2 * (1 - PILOT_SHARE) * DEFAULT_LOOKS[-1][1]
    )
    assert report.to_dict()["results"][0]["power"] == power


def test_point_estimate_is_from_held_out_counts_and_counts_are_reported() -> None:
    report = run_audit([SnappedLaplace(1.0)], [BlackBoxAttack()], AuditConfig(budget=5_000, seed=2))
    d = report.to_dict()["results"][0]
    assert set(d["counts"]) == {"n0", "k0", "n1", "k1"}
    assert d["counts"]["n0"] == 4_000  # certification samples only (budget minus training)
    assert "poisson_mean" not in d  # the default test: the box on fixed sizes
    for f in d["findings"]:
        assert set(f["counts"]) == {"n0", "k0", "n1", "k1"}
        assert 0 < f["alpha_split"] < 1
    assert 0.0 <= d["point_estimate"] < 3.0


def test_tiny_alpha_audit_is_finite() -> None:
    import json
    import math

    report = run_audit(
        [RandomizedResponse(1.0)],
        [BlackBoxAttack()],
        AuditConfig(budget=2_000, alpha=1e-300, seed=0),
    )
    d = report.to_dict()
    text = json.dumps(d)
    assert "NaN" not in text and "Infinity" not in text
    r = d["results"][0]
    assert r["verdict"] == "no_violation" and math.isfinite(r["epsilon_lower_bound"])


def test_single_look_means_fixed_n_without_pilot() -> None:
    config = AuditConfig(budget=20_000, seed=3, looks=((1.0, 1.0),))
    report = run_audit([HalfLeak(1.0)], [BlackBoxAttack()], config)
    best = report.results[0].best
    assert best.looks == 1 and best.n_certify == 16_000  # no pilot, no early look
    # the whole alpha at the end, half of the trial's reservation on the predicted winner
    reserved = 0.05 / report.tests * 2 * DataDrivenEvents().max_events
    assert best.estimate.alpha == pytest.approx(reserved / 2)


def test_the_trial_alpha_goes_half_to_the_test_training_predicts_strongest() -> None:
    """Weighted Bonferroni inside a trial: the reserved tests' alpha, fixed from training
    outputs only, is spread over the proposed events -- half to the (direction, event) with the
    largest predicted bound, the other half evenly -- and always sums to the reservation."""
    cert, _ = _certifier(HalfLeak(1.0))
    rng = np.random.default_rng(4)
    x = rng.integers(0, 4, 20_000)
    x_prime = np.where(rng.random(20_000) < 0.3, 0, rng.integers(0, 4, 20_000))
    events = [
        Event("output == 1", lambda y: np.asarray(y) == 1),  # a little likelier on x
        Event("output == 0", lambda y: np.asarray(y) == 0),  # much likelier on x'
        Event("output >= 0", lambda y: np.asarray(y) >= 0),  # everything: no information
    ]
    alphas, no_cells = cert._test_alphas(
        events, training_rates(events, [x, x_prime]), 100_000, 0.001, tests=16
    )
    assert no_cells == 0.0
    assert alphas.shape == (2, 3) and alphas.sum() == pytest.approx(0.016)
    assert alphas[1, 1] == pytest.approx(0.008)  # event 1 in direction x' over x
    rest = np.delete(alphas.ravel(), 1 * 3 + 1)
    assert np.allclose(rest, 0.008 / 5)
    # no training outputs (events fixed in advance): even shares of the whole reservation
    even, _ = cert._test_alphas(
        events, training_rates(events, [np.empty(0), np.empty(0)]), 100_000, 0.001, tests=16
    )
    assert np.allclose(even, 0.016 / 6)
    # cells are one test more: half to them when predicted strongest, the sum unchanged
    rates = training_rates(events, [x, x_prime])
    for predicted, winner in ((1e9, True), (0.0, False)):
        alphas, cells = cert._test_alphas(
            events, rates, 100_000, 0.001, tests=16, chain=lambda _a, v=predicted: v
        )
        assert alphas.sum() + cells == pytest.approx(0.016)
        assert cells == pytest.approx(0.008 if winner else 0.008 / 6)


def test_screening_keeps_the_pairs_whose_one_sided_events_owe_the_most_under_a_delta_claim():
    """Under (1, 1e-3) an event seen k times in 1000 on one side owes the other about
    (k - 1) / e outputs: pair 3's (9 times) owes 2.9, pair 4's (4 times) 1.1, pair 1's (once)
    nothing; pair 2's event was seen on both sides.  A pure claim keeps none."""
    k = {
        1: [np.array([1, 40]), np.array([0, 30])],
        2: [np.array([9, 40]), np.array([1, 30])],
        3: [np.array([9, 40]), np.array([0, 30])],
        4: [np.array([0, 3]), np.array([4, 0])],
    }
    m = {i: [1000, 1000] for i in k}
    claim = PrivacyClaim(1.0, 1e-3)
    assert edge_pairs([1, 2, 3, 4], k, m, 1, claim) == [3]
    assert edge_pairs([1, 2, 3, 4], k, m, 4, claim) == [3, 4]
    assert edge_pairs([1, 2, 4], k, m, 4, PrivacyClaim(1.5, 1e-3)) == []  # 3 / e^1.5 < 1
    assert edge_pairs([1, 2, 3, 4], k, m, 4, PrivacyClaim(1.0)) == []


def test_pure_epsilon_is_certified_by_the_conditional_test_on_poisson_sized_samples() -> None:
    """``conditional_test``, pure epsilon: the sizes are Poisson draws around the planned look
    (seeded, so a rerun gives the same counts) and the bound is the conditional test's on the
    counts; with a delta the sizes are fixed and the box certifies."""
    config = AuditConfig(budget=20_000, seed=1, looks=((1.0, 1.0),), conditional_test=True)
    runs = [run_audit([RandomizedResponse(1.0)], [BlackBoxAttack()], config) for _ in range(2)]
    est = runs[0].results[0].best.estimate
    assert runs[1].results[0].best.estimate == est
    assert est.estimator == CONDITIONAL_ESTIMATOR
    m, c = est.poisson_mean, est.counts
    assert m == runs[0].results[0].best.n_certify
    assert c.n0 != c.n1 and max(abs(c.n0 - m), abs(c.n1 - m)) < 6 * m**0.5
    assert est.epsilon_lower_bound == conditional_lower_bound(c.k0, c.k1, m, m, est.alpha)
    assert 0.5 < est.epsilon_lower_bound <= 1.0  # a correct mechanism, tight claim

    with_delta = RandomizedResponse(1.0)
    with_delta.delta = 1e-6
    est = run_audit([with_delta], [BlackBoxAttack()], config).results[0].best.estimate
    assert est.estimator == "clopper-pearson" and est.poisson_mean is None
    assert est.counts.n0 == est.counts.n1


def test_the_conditional_test_keeps_the_look_schedule_and_counts_every_output() -> None:
    """With ``conditional_test`` the looks draw Poisson sizes around their plan; every output
    drawn is counted (training, the look's sizes drawn, the plot's) and the report says so."""
    spec = check_adapter(HalfLeak(1.0))
    config = AuditConfig(budget=16_000, seed=3, conditional_test=True, tighten=False)
    cert = Certifier(spec, config, 0.01, lambda n: None)
    finding = run_trial(cert, BlackBoxAttack(), 0, Trial(0, 1, _FixedEvents(), "stub"))
    assert finding is not None and finding.looks == 1 and finding.n_certify == 1000
    est, c = finding.estimate, finding.estimate.counts
    assert est.estimator == CONDITIONAL_ESTIMATOR and est.poisson_mean == 1000
    assert c.n0 != c.n1 and max(abs(c.n0 - 1000), abs(c.n1 - 1000)) < 6 * 1000**0.5
    assert cert.samples == c.n0 + c.n1 + 2 * 2000
    assert est.epsilon_lower_bound == conditional_lower_bound(c.k0, c.k1, 1000, 1000, est.alpha)
    with pytest.raises(InvalidArgument):
        AuditConfig(conditional_test=1)
