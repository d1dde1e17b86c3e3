"""Timing attack: opt-in timed draws (interleaved, seeded, checked) and joint events."""

import numpy as np
import pytest
from audit_fixtures import GeometricLaplace, RandomizedResponse

from attacks.timing import JointTimingEvents, TimingAttack
from auditor.core.errors import AdapterOutputError, AdapterRaised
from auditor.core.spec import check_adapter
from auditor.core.trials import CertificationPlan
from auditor.engine.timed_sampling import WARM_UP_CALLS, draw_timed_pair, is_timed
from auditor.statistics.events.event_selection import DataDrivenEvents


class _Recorder:
    family = "additive"
    epsilon = 1.0
    delta = 0.0
    sensitivity = 1
    name = "recorder"

    def __init__(self, output=None):
        self.calls, self.seeds, self.output = [], [], output

    def seed(self, entropy):
        self.seeds.append(entropy)

    def sample(self, query, n):
        self.calls.append((query, n))
        return self.output if self.output is not None else np.full(n, float(query))


def test_only_opted_in_distinguishers_are_timed():
    assert is_timed(JointTimingEvents())
    assert not is_timed(DataDrivenEvents())


def test_timed_draws_interleave_single_calls_in_random_order():
    adapter = _Recorder()
    a, b = draw_timed_pair(check_adapter(adapter), 0, 1, 200, entropy=42)
    assert a.shape == b.shape == (200, 2)
    assert np.all(a[:, 0] == 0) and np.all(b[:, 0] == 1)
    assert np.all(a[:, 1] > 0) and np.all(b[:, 1] > 0)
    assert adapter.seeds == [42]  # seeded once, before the warm-up
    assert all(n == 1 for _, n in adapter.calls)
    measured = [q for q, _ in adapter.calls[2 * WARM_UP_CALLS :]]
    pairs = list(zip(measured[::2], measured[1::2], strict=True))
    assert all(set(p) == {0, 1} for p in pairs)
    firsts = [p[0] for p in pairs]
    assert 60 < firsts.count(0) < 140  # both orders, about equally often


def test_timed_draws_are_checked_like_ordinary_draws():
    with pytest.raises(AdapterOutputError):
        draw_timed_pair(check_adapter(_Recorder(output=np.array([1.0, 2.0]))), 0, 1, 3, 0)

    class Raises(_Recorder):
        def sample(self, query, n):
            raise RuntimeError("boom")

    with pytest.raises(AdapterRaised, match="boom"):
        draw_timed_pair(check_adapter(Raises()), 0, 1, 3, 0)


def _rows(outputs, times):
    return np.column_stack([np.asarray(outputs, float), np.asarray(times, float)])


def test_joint_events_find_an_output_whose_time_depends_on_the_input():
    rng = np.random.default_rng(0)
    n = 2000
    y = rng.integers(0, 3, size=(2, n))
    # output 1 is fast on x and slow on x'; everything else takes the same time
    t0 = 1000 + rng.normal(0, 10, n)
    t1 = np.where(y[1] == 1, 2000, 1000) + rng.normal(0, 10, n)
    plan = CertificationPlan(n=5000, alpha=1e-3, epsilon=1.0, delta=0.0)
    events = JointTimingEvents().propose(_rows(y[0], t0), _rows(y[1], t1), plan)
    assert 1 <= len(events) <= JointTimingEvents().max_events
    best = events[0]
    assert "output == 1" in best.description and "call time" in best.description
    a, b = best(_rows(y[0], t0)).mean(), best(_rows(y[1], t1)).mean()
    assert abs(a - b) > 0.2


def test_joint_events_handle_continuous_outputs():
    rng = np.random.default_rng(1)
    rows = _rows(rng.normal(size=500), rng.exponential(1000, 500))
    plan = CertificationPlan(n=5000, alpha=1e-3, epsilon=1.0, delta=0.0)
    events = JointTimingEvents().propose(rows, rows[::-1], plan)
    assert events and all(e(rows).shape == (500,) for e in events)
    assert any("<= output <" in e.description or "any output" in e.description for e in events)


def test_timing_attack_is_additive_only_with_one_trial_and_a_caveat():
    attack = TimingAttack()
    assert not attack.applies_to(check_adapter(RandomizedResponse()))
    spec = check_adapter(GeometricLaplace())
    (trial,) = attack.trials(spec, np.random.default_rng(0))
    assert (trial.x, trial.x_prime) == (0, 1)
    assert is_timed(trial.distinguisher)
    assert "i.i.d." in trial.description and "machine" in trial.description
