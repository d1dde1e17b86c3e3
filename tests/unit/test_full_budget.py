"""Issue #19: per-call adapters get the full default budget, and trials whose training split
shows no chance are certified at their first look only (futility), decided on training outputs
before any certification output is drawn."""

from __future__ import annotations

from dataclasses import astuple, replace

import numpy as np
import pytest
from audit_fixtures import RandomizedResponse

from attacks.black_box import BlackBoxAttack
from auditor.adapters.textbook import TextbookLaplaceInverseCDF
from auditor.core.configs import (
    DEFAULT_BUDGET,
    DEFAULT_FUTILITY,
    DEFAULT_LOOKS,
    DEFAULT_LOOP_BUDGET,
    AuditConfig,
)
from auditor.core.errors import InvalidArgument
from auditor.core.spec import check_adapter
from auditor.core.trials import Event, Trial
from auditor.engine.certify import Certifier
from auditor.engine.runner import run_audit
from auditor.engine.sampling import InProcessSampler
from auditor.engine.schedule import PILOT_SHARE, plan_looks
from auditor.engine.trial_stages import run_trial
from auditor.statistics.events.event_selection import DataDrivenEvents

# --- the budget -------------------------------------------------------------------------------


def test_per_call_adapters_get_the_full_default_budget() -> None:
    assert DEFAULT_LOOP_BUDGET == DEFAULT_BUDGET == 200_000
    config = AuditConfig()
    per_call = check_adapter(TextbookLaplaceInverseCDF(1.0))
    assert not per_call.vectorised
    assert config.budget_for(per_call) == 200_000
    # the training split and the certification split add up to the whole budget
    trial = BlackBoxAttack().trials(per_call, np.random.default_rng(0))[0]
    schedule = Certifier(per_call, config, 1e-6, lambda n: None)._schedule(trial)
    assert schedule.n_train + schedule.n_cert == 200_000
    # --loop-budget still lowers it, for vectorised = False adapters only
    assert AuditConfig(loop_budget=20_000).budget_for(per_call) == 20_000


def test_the_command_line_defaults_to_the_full_budget_for_per_call_adapters() -> None:
    from dp_audit.cli import build_parser

    args = build_parser().parse_args(["run"])
    assert args.budget == args.loop_budget == 200_000


@pytest.mark.parametrize(
    ("module", "factory"),
    [
        ("auditor.adapters.diffprivlib_adapters", "Laplace"),
        ("auditor.adapters.diffprivlib_adapters", "ToolsSum"),
        ("auditor.adapters.pydp_adapters", "LaplaceMechanism"),
        ("auditor.adapters.opendp_adapters", "NoisyMax"),  # ClampedSum is one call since ee3b7e5
    ],
)
def test_library_per_call_adapters_get_the_full_default_budget(module: str, factory: str) -> None:
    import importlib

    library = {"diffprivlib_adapters": "diffprivlib", "pydp_adapters": "pydp"}
    pytest.importorskip(library.get(module.rsplit(".", 1)[1], "opendp"))
    spec = check_adapter(getattr(importlib.import_module(module), factory)())
    assert not spec.vectorised
    assert AuditConfig().budget_for(spec) == 200_000


# --- futility ---------------------------------------------------------------------------------


def _loose(claim: float = 4.0) -> RandomizedResponse:
    """Randomized response at epsilon 1 that claims ``claim``: nothing can break the claim."""
    adapter = RandomizedResponse(1.0, name="test.loose-rr")
    adapter.epsilon = claim
    return adapter


class Recording(InProcessSampler):
    """In-process sampler that logs every request: training draws and certification counts."""

    def __init__(self) -> None:
        super().__init__()
        self.log: list[tuple[str, int, int]] = []

    def draw(self, spec, query, n, entropy):
        self.log.append(("draw", n, entropy))
        return super().draw(spec, query, n, entropy)

    def start_counts(self, spec, requests, events):
        for _, n, entropy in requests:
            self.log.append(("count", n, entropy))
        return super().start_counts(spec, requests, events)


def _run(adapter, budget=20_000, alpha_test=0.01, distinguisher=None, **settings):
    spec = check_adapter(adapter)
    sampler = Recording()
    config = AuditConfig(budget=budget, seed=4, **settings)
    cert = Certifier(spec, config, alpha_test, lambda n: None, sampler)
    trial = BlackBoxAttack().trials(spec, np.random.default_rng(0))[0]
    if distinguisher is not None:
        trial = replace(trial, distinguisher=distinguisher)
    return run_trial(cert, BlackBoxAttack(), 0, trial), cert, sampler, trial


#: a training split too small for a pilot (300 outputs per side at budget 6,000) with two looks
NO_PILOT = {"budget": 6_000, "distinguisher": DataDrivenEvents(train_fraction=0.05)}


def test_futility_is_on_by_default_and_checked() -> None:
    assert AuditConfig().futility == DEFAULT_FUTILITY == 0.2
    assert AuditConfig(futility=0).futility == 0
    for bad in (-0.1, 0.5, 1.0, float("nan"), "0.05", True):
        with pytest.raises(InvalidArgument, match="futility"):
            AuditConfig(futility=bad)


def _schedule(config: AuditConfig, trial: Trial | None = None):
    spec = check_adapter(_loose())
    trial = trial or BlackBoxAttack().trials(spec, np.random.default_rng(0))[0]
    return Certifier(spec, config, 0.01, lambda n: None)._schedule(trial)


def test_the_cut_schedule_is_fixed_from_the_configuration() -> None:
    schedule = _schedule(AuditConfig(budget=20_000))
    assert schedule.looks == tuple(plan_looks(DEFAULT_LOOKS, schedule.n_cert))
    assert schedule.futility and schedule.pilot > 0
    assert schedule.short_looks == ()  # with a pilot: its bound stands, no main look
    spec = check_adapter(_loose())
    trial = BlackBoxAttack().trials(spec, np.random.default_rng(0))[0]
    small = _schedule(
        AuditConfig(budget=6_000), replace(trial, distinguisher=NO_PILOT["distinguisher"])
    )
    assert small.pilot == 0 and small.futility and len(small.looks) == 2
    assert small.short_looks == ((small.looks[0][0], 1.0),)  # first look, whole main share
    # off: with futility = 0, with a single look (fixed-n), and without a training split
    assert not _schedule(AuditConfig(budget=20_000, futility=0)).futility
    assert not _schedule(AuditConfig(budget=20_000, looks=((1.0, 1.0),))).futility
    assert not _schedule(AuditConfig(budget=20_000), Trial(0, 1, _FixedEvents(), "fixed")).futility


class _FixedEvents:
    max_events = 1
    train_fraction = 0.0

    def propose(self, a, b, plan):
        return [Event("output == 1", lambda y: np.asarray(y) == 1)]


def test_a_cut_trial_with_a_pilot_draws_no_main_certification_output() -> None:
    finding, cert, sampler, trial = _run(_loose())
    schedule = cert._schedule(trial)
    ((trial, planned, drawn, hope),) = [astuple(cut) for cut in cert.short]
    assert (trial, planned, drawn) == (finding.trial, schedule.n_cert, 0) and 0.5 < hope <= 4.0
    assert not [entry for entry in sampler.log if entry[0] == "count"]
    assert cert.samples == 2 * schedule.n_train  # pilot included: nothing after the proposal
    # the pilot's certified bound is the trial's finding, its power stated at the pilot's size
    assert finding is not None and finding.looks == 0 and finding.n_certify == schedule.pilot
    assert finding.estimate.alpha == pytest.approx(0.01 * PILOT_SHARE)
    assert finding.estimate.epsilon_lower_bound <= 4.0
    assert finding.power is not None and "n = 1,000 per side" in finding.power["statement"]


def test_a_cut_trial_without_a_pilot_is_certified_at_its_first_look_only() -> None:
    finding, cert, _, trial = _run(_loose(), **NO_PILOT)
    schedule = cert._schedule(trial)
    first = schedule.looks[0][0]
    ((trial, planned, drawn, hope),) = [astuple(cut) for cut in cert.short]
    assert (trial, planned, drawn) == (finding.trial, schedule.n_cert, first) and 0.5 < hope <= 4.0
    assert finding is not None and finding.looks == 1 and finding.n_certify == first
    # the whole main alpha at that look; the trial's 2 * 8 reserved tests went to the events
    # it proposed, half of them to the one training predicted strongest (this one)
    reserved = 0.01 * 2 * DataDrivenEvents().max_events
    assert finding.estimate.alpha == pytest.approx(reserved / 2)
    assert cert.samples == 2 * (schedule.n_train + first)


def test_the_decision_sees_training_outputs_only_and_comes_before_any_certification() -> None:
    for settings in ({}, NO_PILOT):
        spec = check_adapter(_loose())
        sampler = Recording()
        config = AuditConfig(budget=settings.get("budget", 20_000), seed=4)
        cert = Certifier(spec, config, 0.01, lambda n: None, sampler)
        seen: list[int] = []
        decide = cert._optimistic_bound

        def spy(events, train, n, alpha, *more, decide=decide, seen=seen, sampler=sampler):
            seen.append(len(train[0]))
            assert all(what == "draw" for what, _, _ in sampler.log)  # no certification yet
            return decide(events, train, n, alpha, *more)

        cert._optimistic_bound = spy  # type: ignore[method-assign]
        trial = BlackBoxAttack().trials(spec, np.random.default_rng(0))[0]
        if "distinguisher" in settings:
            trial = replace(trial, distinguisher=settings["distinguisher"])
        run_trial(cert, BlackBoxAttack(), 0, trial)
        assert seen == [cert._schedule(trial).n_train]  # the whole training split, only it


def test_the_first_look_draws_exactly_the_first_look_of_the_full_schedule() -> None:
    _, _, short, trial = _run(_loose(), **NO_PILOT)
    _, cert, full, _ = _run(_loose(), futility=0, **NO_PILOT)
    first, last = cert._schedule(trial).looks[0][0], cert._schedule(trial).looks[-1][0]
    short_counts = [entry for entry in short.log if entry[0] == "count"]
    full_counts = [entry for entry in full.log if entry[0] == "count"]
    assert sum(n for _, n, _ in short_counts) == 2 * first
    assert full_counts[: len(short_counts)] == short_counts  # same sizes, same seeds
    assert sum(n for _, n, _ in full_counts) == 2 * last  # no violation: every look taken
    # training is the same in both: the decision changes nothing that was drawn before it
    assert [e for e in short.log if e[0] == "draw"] == [e for e in full.log if e[0] == "draw"]


def test_a_trial_with_a_chance_keeps_the_full_schedule() -> None:
    # epsilon = ln(0.76 / 0.24) = 1.15 > 1: training sees the chance, certification finds it
    finding, cert, _, _ = _run(RandomizedResponse(1.0, p_true=0.76), budget=100_000)
    assert cert.short == []
    assert finding is not None and finding.estimate.epsilon_lower_bound > 1.0


def test_futility_off_certifies_on_the_whole_budget() -> None:
    finding, cert, _, _ = _run(_loose(), futility=0)
    assert cert.short == []
    assert finding is not None and finding.n_certify == 16_000


def test_the_report_says_which_trials_were_cut_short() -> None:
    report = run_audit([_loose()], [BlackBoxAttack()], AuditConfig(budget=20_000, seed=1))
    (result,) = report.results
    assert result.verdict.value == "no_violation"
    notes = [n for n in result.notes if n.startswith("futility:")]
    assert len(notes) == 1
    assert "none instead of 16,000 (the pilot's bound stands)" in notes[0]
    assert f"{1 - DEFAULT_FUTILITY:.4g} confidence" in notes[0]
    assert report.to_dict()["settings"]["futility"] == DEFAULT_FUTILITY


def test_the_futility_note_says_how_far_below_the_claim_each_cut_trial_could_reach() -> None:
    from auditor.engine.runner import futility_notes

    finding, cert, _, _ = _run(_loose())
    (note,) = futility_notes(cert, cert.config)
    hope = cert.short[0].hope
    assert "claimed epsilon 4" in note
    assert f"{finding.trial!r} (reachable at best: epsilon >= {hope:.3g})" in note
