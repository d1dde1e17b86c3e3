"""The runner's guarantees: planning, family-wise budget, error verdicts, seeding."""

import numpy as np
import pytest
from audit_fixtures import GeometricLaplace, RandomizedResponse

from attacks import load_attacks
from auditor import AuditConfig, InvalidArgument, Verdict, run_audit
from auditor.adapters.textbook import TextbookLaplace


def test_correct_mechanisms_pass_and_broken_ones_fail():
    adapters = [
        GeometricLaplace(1.0, name="good.dlap"),
        GeometricLaplace(1.0, name="bad.dlap", true_epsilon=2.0),
        RandomizedResponse(1.0, name="good.rr"),
        RandomizedResponse(1.0, name="bad.rr", p_true=0.9),
    ]
    report = run_audit(adapters, load_attacks(["black-box"]), AuditConfig(budget=50_000, seed=5))
    verdicts = {r.adapter: r.verdict for r in report.results}
    assert verdicts == {
        "good.dlap": Verdict.NO_VIOLATION,
        "bad.dlap": Verdict.VIOLATION,
        "good.rr": Verdict.NO_VIOLATION,
        "bad.rr": Verdict.VIOLATION,
    }
    bad = next(r for r in report.results if r.adapter == "bad.rr")
    # ln(0.9/0.1) = 2.197 is the true epsilon: the certified bound lies between the claim and it
    assert 1.0 < bad.epsilon_lower_bound < 2.2
    assert report.exit_code == 1


def test_family_wise_budget_counts_every_event_and_direction():
    attacks = load_attacks(["black-box"])
    report = run_audit([RandomizedResponse(1.0)], attacks, AuditConfig(budget=1000))
    # one trial, DataDrivenEvents reserves 8 events, both directions; the trial gives at most
    # half of its 16 shares to one test (the one its training split predicts strongest)
    assert report.tests == 16
    (result,) = report.results
    assert result.best is not None
    assert result.best.estimate.alpha <= 0.05 / 2
    significance = f"significance {result.best.estimate.alpha:.3g}"
    assert result.power is not None and significance in result.power["statement"]


def test_adapter_failure_is_an_error_and_the_rest_goes_on():
    class Raises:
        name, family, epsilon = "bad.raises", "binary", 1.0

        def sample(self, q, n):
            raise RuntimeError("library exploded")

    report = run_audit(
        [Raises(), RandomizedResponse(1.0)], load_attacks(["black-box"]), AuditConfig(budget=2000)
    )
    first, second = report.results
    assert first.verdict is Verdict.ERROR and "library exploded" in first.error
    assert second.verdict is Verdict.NO_VIOLATION
    assert report.exit_code == 2


def test_duplicate_names_are_rejected():
    with pytest.raises(InvalidArgument, match="appears more than once"):
        run_audit(
            [RandomizedResponse(), RandomizedResponse()],
            load_attacks(["black-box"]),
            AuditConfig(budget=1000),
        )


@pytest.mark.parametrize(
    "kwargs",
    [
        {"budget": 10},
        {"budget": 1.5},
        {"alpha": 0.0},
        {"alpha": 1.0},
        {"seed": -1},
        {"looks": ((0.5, 0.5),)},
    ],
)
def test_config_validation(kwargs):
    with pytest.raises(InvalidArgument):
        AuditConfig(**kwargs)


def test_results_do_not_depend_on_other_adapters():
    config = AuditConfig(budget=5000, seed=9)
    attacks = load_attacks()
    alone = run_audit([TextbookLaplace(1.0)], attacks, config).results[0]
    together = run_audit([RandomizedResponse(1.0), TextbookLaplace(1.0)], attacks, config).results[
        1
    ]
    assert alone.best.estimate.counts == together.best.estimate.counts


def test_lsb_event_certified_on_fresh_samples_only():
    report = run_audit(
        [TextbookLaplace(1.0)], load_attacks(["lsb-laplace"]), AuditConfig(budget=20_000, seed=1)
    )
    (r,) = report.results
    assert r.verdict is Verdict.VIOLATION and r.best.estimate.white_box
    # the pilot stage (auditor/engine/certify.py) chooses on 250 outputs and certifies on the next 250;
    # either way the certifying outputs come after the ones the event was chosen on
    assert r.best.n_train in (250, 1000)
    assert r.best.n_train + r.best.estimate.counts.n0 <= 20_000
    assert r.best.estimate.counts.k1 == 0  # the event is impossible on x'
    assert np.isfinite(r.epsilon_lower_bound)


def test_one_failing_trial_does_not_erase_a_certified_violation():
    class RejectsLargeQueries(GeometricLaplace):
        def sample(self, query, n):
            if abs(query) > 10:
                raise ValueError("query out of range")
            return super().sample(query, n)

    broken = RejectsLargeQueries(1.0, name="bad.rejects", true_epsilon=3.0)
    report = run_audit([broken], load_attacks(["black-box"]), AuditConfig(budget=20_000, seed=2))
    (r,) = report.results
    assert r.verdict is Verdict.VIOLATION


def test_failing_trials_without_a_violation_are_an_error_with_the_evidence_kept():
    class RejectsLargeQueries(GeometricLaplace):
        def sample(self, query, n):
            if abs(query) > 10:
                raise ValueError("query out of range")
            return super().sample(query, n)

    good = RejectsLargeQueries(1.0, name="good.rejects")
    report = run_audit([good], load_attacks(["black-box"]), AuditConfig(budget=20_000, seed=2))
    (r,) = report.results
    assert r.verdict is Verdict.ERROR and "query out of range" in r.error
    assert r.findings, "the trials that ran keep their findings"


class _BuggyEvents:
    """A distinguisher with a bug of dp-audit's own kind: its proposal raises."""

    max_events, train_fraction = 4, 0.5

    def propose(self, train_x, train_x_prime, plan):
        return [][0]  # IndexError


class _BuggyAttack:
    name, description = "buggy", "an attack whose event proposal has a bug"

    def applies_to(self, spec):
        return True

    def trials(self, spec, rng):
        from auditor.core.trials import Trial

        return [Trial(0, 1, _BuggyEvents(), "0 vs 1")]


@pytest.mark.parametrize("engine", ["in-process", "local"])
def test_a_bug_in_dp_audit_ends_one_trial_as_an_error_and_the_rest_goes_on(engine):
    """Never a pass (the verdict is error, the exit code 2), never a lost run: the other
    attacks and adapters are audited and the traceback is kept for the bug report."""
    from auditor.core.configs import EngineConfig

    broken = GeometricLaplace(1.0, name="bad.leaks", true_epsilon=3.0)
    report = run_audit(
        [RandomizedResponse(1.0), broken],
        [_BuggyAttack(), *load_attacks(["black-box"])],
        AuditConfig(budget=20_000, seed=2),
        engine=EngineConfig.in_process() if engine == "in-process" else EngineConfig(workers=2),
    )
    correct, leaky = report.results
    assert correct.verdict is Verdict.ERROR
    assert "internal error in dp-audit" in correct.error and "IndexError" in correct.error
    assert "IndexError" in correct.error_traceback and "propose" in correct.error_traceback
    assert correct.findings, "the black-box trials still ran"
    assert leaky.verdict is Verdict.VIOLATION  # a certified violation stands beside the bug
    assert report.exit_code == 1
    alone = run_audit([RandomizedResponse(1.0)], [_BuggyAttack()], AuditConfig(budget=2000))
    assert alone.results[0].verdict is Verdict.ERROR and alone.exit_code == 2


class _NoisyCount:
    """A dataset count plus Laplace(1/eps) noise, on a 2^-10 grid: (1, delta)-DP."""

    input_kind = "dataset"
    domain = (0, 3)
    neighbours = "add_remove"
    output_kind = "real"
    epsilon = 1.0

    def __init__(self, name: str, delta: float) -> None:
        self.name, self.delta = name, delta
        self._rng = np.random.default_rng(0)

    def seed(self, entropy: int) -> None:
        self._rng = np.random.default_rng(entropy)

    def sample(self, query, n: int) -> np.ndarray:
        noisy = len(np.asarray(query)) + self._rng.laplace(0.0, 1.0, n)
        return np.round(noisy * 1024) / 1024


def test_a_screening_too_thin_for_delta_says_so_and_a_pure_claim_does_not():
    """Screening gives each candidate pair a few hundred outputs first: an output of
    probability delta = 1e-3 shows less than once, which the report must not hide."""
    adapters = [_NoisyCount("count.approx", 1e-3), _NoisyCount("count.pure", 0.0)]
    report = run_audit(adapters, load_attacks(None), AuditConfig(budget=20_000, seed=0))
    notes = {r.adapter: " ".join(r.notes) for r in report.results}
    assert all(r.verdict is Verdict.NO_VIOLATION for r in report.results)
    assert "a leak in delta alone" in notes["count.approx"]
    assert "outputs per pair" in notes["count.approx"]
    assert "delta alone" not in notes["count.pure"]
