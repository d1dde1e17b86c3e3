"""Opacus training adapters: contract, the accountant's claim, what one training releases,
each misconfiguration's mechanism, and audits that catch one and clear the correct one
(skipped without opacus, the `opacus` extra)."""

from __future__ import annotations

import numpy as np
import pytest

from auditor.core.claim_kinds import PrivacyProfile
from auditor.core.spec import check_adapter

pytest.importorskip("opacus")

from auditor.adapters import opacus_training as ot  # noqa: E402

N = 150  # trainings per side in the distribution tests (a few seconds each)


@pytest.fixture(scope="module")
def correct():
    return ot.Training("correct", accountant="rdp")


def test_contract_and_the_accountant_s_own_claim(correct):
    from opacus.accountants import RDPAccountant

    spec = check_adapter(correct)
    assert spec.kind_label == "local → real[4]" and not spec.vectorised and spec.seedable
    assert isinstance(correct.claim, PrivacyProfile) and correct.library == "opacus"
    reference = RDPAccountant()
    for _ in range(4):  # 63 records + canary in batches of 32: 2 batches, sample rate 1/2
        reference.step(noise_multiplier=1.0, sample_rate=0.5)
    assert correct.epsilon == pytest.approx(reference.get_epsilon(delta=1e-5), rel=1e-12)
    assert correct.delta == 1e-5
    final = ot.Training("correct", observe="final", accountant="rdp")
    assert check_adapter(final).kind_label == "local → real" and final.claim == correct.claim
    with pytest.raises(ValueError, match="variant"):
        ot.Training("typo")
    with pytest.raises(ValueError, match="different numbers of batches"):
        ot.Training(n_examples=64, batch_size=32)


def test_white_box_steps_are_the_subsampled_gaussian_on_the_grid(correct):
    correct.seed(3)
    absent, present = correct.sample(0, N), correct.sample(1, N)
    assert absent.shape == present.shape == (N, 4)
    assert np.all(np.round(absent / correct.grid) * correct.grid == absent)
    # noise sd 1, canary drawn with probability 1/2: means 0 and 0.5, sds 1 and sqrt(1.25);
    # 5 standard errors of a mean of 4N values (false failure < 1e-5 per check)
    assert abs(absent.mean()) < 5 / np.sqrt(4 * N)
    assert abs(present.mean() - 0.5) < 5 * np.sqrt(1.25 / (4 * N))
    assert abs(absent.std() - 1.0) < 5 / np.sqrt(8 * N)
    correct.seed(3)
    assert np.array_equal(correct.sample(0, N), absent)  # seeded: the same trainings


def test_the_final_score_is_the_sum_of_the_steps_updates():
    steps = ot.Training("correct", accountant="rdp")
    final = ot.Training("correct", observe="final", accountant="rdp")
    for seed in range(5):
        out, _ = steps.train(True, seed)
        score, _ = final.train(True, seed)
        assert score.shape == (1,)
        assert abs(score[0] - out.sum()) <= 6 * steps.grid


def test_the_misconfigurations_change_what_a_training_releases():
    """With almost no noise (noise_multiplier 0.01, 0.04 grid steps) each mistake is seen in
    a handful of trainings; the one statistical check (noise without the clipping norm: sd
    1/2 at max_grad_norm 2, against 1) has a margin of 5 standard errors."""
    noisy = ot.Training("noise-without-clip", max_grad_norm=2.0, accountant="rdp")
    noisy.seed(1)
    assert abs(noisy.sample(0, N).std() - 0.5) < 5 * 0.5 / np.sqrt(8 * N)
    quiet = {"noise_multiplier": 0.01, "accountant": "rdp"}
    summed = ot.Training("clip-after-sum", **quiet)
    summed.seed(1)
    absent, present = summed.sample(0, 20), summed.sample(1, 20)
    # the real records pull the clipped sum's canary coordinate below -1/2; a drawn canary
    # lifts it to +1: a move of more than 1.4 clipping norms (clipped per record: exactly 1)
    assert absent.max() < -0.5 and present.max() > 0.9
    for variant, once in (("fixed-batches", True), ("correct", False)):
        a = ot.Training(variant, **quiet)
        a.seed(1)
        epochs = np.round(a.sample(1, 20).reshape(20, 2, 2).sum(axis=2))
        # shuffled fixed batches: the canary in exactly one step of each two-step epoch
        assert np.all(epochs == 1) == once, (variant, epochs)


@pytest.mark.slow
def test_an_audit_catches_the_forgotten_clipping_norm_and_clears_the_correct_training():
    """Budget 1024 trainings per side, seed 0 (about a minute each).  The violation is a
    stretch beyond 1 at the run's alpha; the correct training is flagged with probability at
    most alpha = 0.05 (seed fixed: the outcome is deterministic)."""
    from attacks import load_attacks
    from auditor.core.configs import AuditConfig
    from auditor.engine.runner import run_audit

    adapters = [ot.Training("noise-without-clip", max_grad_norm=2.0), ot.Training("correct")]
    report = run_audit(adapters, load_attacks(None), AuditConfig(budget=1024, seed=0))
    broken, fine = report.results
    assert str(broken.verdict) == "violation" and broken.best.estimate.bound > 1.0
    assert str(fine.verdict) == "no_violation"


def test_one_run_audit_of_one_training_with_200_canaries():
    """Seed 0 (deterministic).  The bound holds with probability 0.95, so on a correct
    training it stays below the accountant's epsilon (this fixed seed would have to fall in
    the 5 %); forgetting the clipping norm in the noise at max_grad_norm 4 (noise sd 1/4 of
    the canary's step) makes the guesses better and the bound larger."""
    fine = ot.one_run_audit(200, guesses=(20, 50, 100), delta=1e-5, accountant="rdp")
    assert fine.m == 200 and fine.right <= fine.guesses <= 100
    assert 0.0 < fine.epsilon_lower_bound < fine.accountant_epsilon
    loud = ot.one_run_audit(
        200,
        guesses=(20, 50, 100),
        variant="noise-without-clip",
        max_grad_norm=4.0,
        accountant="rdp",
    )
    assert loud.epsilon_lower_bound > fine.epsilon_lower_bound
    with pytest.raises(ValueError, match="canaries=1"):
        ot.Training(n_examples=264, batch_size=232, canaries=200, accountant="rdp").sample(0, 1)


def test_the_report_reads_the_accountant_s_profile_at_each_of_its_deltas():
    """A small audit (256 trainings per side, seed 0) rendered as report.json (schema-checked)
    and report.md: the certified ε beside the RDP accountant's own ε at each δ it was asked
    for, the best ratio being the verdict's stretch."""
    from opacus.accountants import RDPAccountant

    from attacks import load_attacks
    from auditor.core.configs import AuditConfig
    from auditor.engine.runner import run_audit
    from reports.json_report import load_report, render_json
    from reports.markdown import render_markdown

    adapter = ot.Training("correct", accountant="rdp")
    data = run_audit([adapter], load_attacks(None), AuditConfig(budget=256, seed=0)).to_dict()
    report = load_report(render_json(data))
    r = report["results"][0]
    reference = RDPAccountant()
    for _ in range(4):
        reference.step(noise_multiplier=1.0, sample_rate=0.5)
    points = r["epsilon_by_delta"]
    assert len(points) >= 20
    for p in points:
        assert p["claimed_epsilon"] == pytest.approx(
            max(0.0, reference.get_epsilon(delta=p["delta"])), rel=1e-9, abs=1e-12
        )
    ratios = [
        p["epsilon_lower_bound"] / p["claimed_epsilon"] for p in points if p["claimed_epsilon"]
    ]
    assert max(ratios) == pytest.approx(r["claim_bound"], rel=1e-6)
    assert str(r["verdict"]) == "no_violation" and max(ratios) < 1
    md = render_markdown(report)
    assert "### ε by δ" in md and "epsilon-by-delta-opacus.training.correct.white-box.png" in md
