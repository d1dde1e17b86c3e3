"""Certification sends the next look's chunks before it decides this one, and drops them unread
when the trial stops: the workers never idle at a look, and no stop depends on them."""

from __future__ import annotations

import time

import numpy as np
import pytest
from audit_fixtures import GeometricLaplace, RandomizedResponse
from engine_fixtures import SleepsOnLargeCalls

from attacks.black_box import BlackBoxAttack
from auditor.core.configs import DEFAULT_LOOKS, AuditConfig
from auditor.core.errors import AdapterTimeout
from auditor.core.spec import check_adapter
from auditor.engine import trial_stages
from auditor.engine.backends.local import LocalProcessSampler
from auditor.engine.backends.pool import DEPTH, ProcessPool
from auditor.engine.backends.worker import Task
from auditor.engine.certify import Certifier
from auditor.engine.sampling import InProcessSampler, LazyCounts
from auditor.engine.schedule import batch_schedule, plan_looks


class Recording(InProcessSampler):
    """Samples in-process, but logs when each look's counts are sent, waited on, discarded."""

    def __init__(self) -> None:
        super().__init__()
        self.log: list[tuple[str, int]] = []

    def start_counts(self, spec, requests, events):
        sampler, look = self, sum(1 for what, _ in self.log if what == "send")
        counts = LazyCounts(self, spec, requests, events)
        self.log.append(("send", look))

        class Logged:
            def wait(self, on_done):
                sampler.log.append(("wait", look))
                return counts.wait(on_done)

            def discard(self):
                sampler.log.append(("discard", look))

        return Logged()


def run_trial(adapter, budget: int):
    spec = check_adapter(adapter)
    sampler = Recording()
    # futility off: these tests follow every planned look (a tight trial may otherwise be cut
    # to its first look; tests/unit/test_full_budget.py covers that); tightening off: they
    # follow the stop at the first look that certifies (test_certify covers tightening)
    config = AuditConfig(budget=budget, seed=5, futility=0, tighten=False)
    cert = Certifier(spec, config, 0.01, lambda n: None, sampler)
    attack = BlackBoxAttack()
    finding = trial_stages.run_trial(
        cert, attack, 0, attack.trials(spec, np.random.default_rng(0))[0]
    )
    return finding, cert, sampler.log


def test_every_look_is_sent_before_the_previous_one_is_waited_on():
    finding, cert, log = run_trial(GeometricLaplace(1.0), budget=100_000)
    assert finding is None or finding.estimate.epsilon_lower_bound <= 1.0
    sent = [look for what, look in log if what == "send"]
    assert len(sent) == 3  # the three default looks, all counted (training outputs are kept)
    for look in sent[1:]:
        assert log.index(("send", look)) < log.index(("wait", look - 1))
    assert ("discard", 2) not in log
    assert cert.samples == 2 * 100_000  # every output drawn was counted, training included


def test_a_stop_discards_the_next_look_unread_and_counts_only_what_was_used():
    # epsilon = ln(0.76 / 0.24) = 1.15: too close to the claim for the pilot, clear by look 1
    finding, cert, log = run_trial(RandomizedResponse(1.0, p_true=0.76), budget=100_000)
    assert finding is not None and finding.estimate.epsilon_lower_bound > 1.0
    stopped = finding.looks
    assert 1 <= stopped < len(DEFAULT_LOOKS)  # a main look, before the last
    assert log[-1] == ("discard", stopped)  # the look after the stop (numbered from 0)
    assert ("wait", stopped) not in log
    looks = plan_looks(DEFAULT_LOOKS, 100_000 - finding.n_train)
    assert finding.n_certify == looks[stopped - 1][0]
    assert cert.samples == 2 * (finding.n_train + finding.n_certify)


def test_batches_are_numbered_across_looks_and_respect_the_batch_size():
    looks = plan_looks(DEFAULT_LOOKS, 10_000_000)
    schedule = batch_schedule(looks, 1 << 22)
    numbers = [b for batches in schedule for b, _ in batches]
    assert numbers == list(range(len(numbers)))
    previous_targets = [0] + [t for t, _ in looks[:-1]]
    for (target, _), batches, previous in zip(looks, schedule, previous_targets, strict=True):
        assert sum(size for _, size in batches) == target - previous
        assert all(0 < size <= 1 << 22 for _, size in batches)


def _task(name: str, n: int, adapter=None) -> Task:
    import cloudpickle

    from auditor.engine.backends.worker import AdapterSource, fingerprint

    spec = check_adapter(adapter if adapter is not None else GeometricLaplace(1.0, name=name))
    source = AdapterSource("pickle", cloudpickle.dumps(spec.adapter), name, fingerprint(spec))
    return Task("draw", name, source, 0, n, 1)


def test_a_task_waiting_behind_a_hung_one_runs_on_a_fresh_worker_and_is_not_blamed():
    pool = ProcessPool(workers=1, timeout=1.0, load_timeout=60.0)
    try:
        hung = pool.submit(_task("h", 100, SleepsOnLargeCalls(1.0, name="h")), "h")
        behind = pool.submit(_task("g", 100), "g")  # sent to the same worker's pipe
        with pytest.raises(AdapterTimeout, match="did not return within 1 s"):
            hung.result(timeout=60)
        assert len(behind.result(timeout=60)) == 100
    finally:
        pool.close()


def test_the_pool_drops_queued_tasks_and_lets_the_running_one_finish():
    pool = ProcessPool(workers=1, timeout=60.0, load_timeout=60.0)
    try:
        first = pool.submit(_task("a", 1 << 18), "a")
        while not first.running() and not first.done():
            time.sleep(0.001)
        queued = [pool.submit(_task("a", 4096), "a") for _ in range(5)]
        pool.discard([first, *queued])
        assert len(first.result(timeout=60)) == 1 << 18  # ran to the end, not stopped
        # the worker may already hold the next task in its pipe (DEPTH); the rest are dropped
        sent = [f for f in queued if not f.cancelled()]
        assert len(sent) <= DEPTH - 1
        assert all(len(f.result(timeout=60)) == 4096 for f in sent)
        again = pool.submit(_task("a", 10), "a")  # the same worker goes on
        assert len(again.result(timeout=60)) == 10
    finally:
        pool.close()


def test_discarded_counts_do_not_disturb_the_next_request():
    spec = check_adapter(GeometricLaplace(1.0))
    events = [lambda y: np.asarray(y) > 0]
    sampler = LocalProcessSampler(workers=2, timeout=60.0)
    try:
        expected = sampler.start_counts(spec, [(0, 200_000, 9)], events).wait(lambda n: None)
        sampler.start_counts(spec, [(0, 2_000_000, 10)], events).discard()
        again = sampler.start_counts(spec, [(0, 200_000, 9)], events).wait(lambda n: None)
    finally:
        sampler.close()
    assert np.array_equal(again[0], expected[0])
    # P(Y > 0) = e^-1 / (1 + e^-1) for the discrete Laplace at 0 with scale 1
    assert expected[0][0] == pytest.approx(200_000 * np.exp(-1) / (1 + np.exp(-1)), rel=0.02)
