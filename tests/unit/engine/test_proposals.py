"""Screening's proposals give the same events and counts in worker processes as here."""

from __future__ import annotations

import os
import sys

import cloudpickle
import numpy as np
import pytest

from auditor.core.trials import CertificationPlan
from auditor.engine.proposals import ProposalJob, Proposer
from auditor.statistics.events.event_selection import DataDrivenEvents
from auditor.statistics.events.vector_events import VectorEvents

PLAN = CertificationPlan(n=100_000, alpha=1e-3, epsilon=0.5, delta=0.0, quick=True)


def _jobs() -> list[ProposalJob]:
    rng = np.random.default_rng(5)
    jobs = []
    for shift in (0.0, 0.5, 1.0):
        a, b = rng.laplace(0.0, 2.0, 8_000), rng.laplace(shift, 2.0, 8_000)
        jobs.append(
            ProposalJob(DataDrivenEvents(), (a[:4000], b[:4000]), (a[4000:], b[4000:]), PLAN)
        )
        # answer patterns of a sparse vector: rows of 0/1 (outcome events, a classifier)
        x = (rng.laplace(0.0, 2.0, (6_000, 4)) > 1).astype(float)
        y = (rng.laplace(shift, 2.0, (6_000, 4)) > 1).astype(float)
        jobs.append(ProposalJob(VectorEvents(), (x[:3000], y[:3000]), (x[3000:], y[3000:]), PLAN))
    return jobs


def test_worker_processes_propose_and_count_as_this_process_does() -> None:
    jobs = _jobs()
    here = Proposer(1).map(jobs)
    there = Proposer(2).map(jobs)
    assert len(here) == len(there) == len(jobs)
    for (events, counts), (events2, counts2), job in zip(here, there, jobs, strict=True):
        assert events, "every job proposes something"
        assert [e.description for e in events] == [e.description for e in events2]
        for k, k2 in zip(counts, counts2, strict=True):
            np.testing.assert_array_equal(k, k2)
        # the events that came back decide outputs as the ones computed here
        fresh = job.counted[0]
        for e, e2 in zip(events, events2, strict=True):
            np.testing.assert_array_equal(e(fresh), e2(fresh))


class Failing(DataDrivenEvents):
    def propose(self, train_x, train_x_prime, plan):  # type: ignore[no-untyped-def]
        raise ZeroDivisionError("the distinguisher's own fault")


def test_a_failing_proposal_raises_its_own_error_as_it_would_here() -> None:
    a = np.zeros(100)
    job = ProposalJob(Failing(), (a, a), (a, a), PLAN)
    with pytest.raises(ZeroDivisionError, match="own fault"):
        Proposer(2).map([job, job])


# the worker processes cannot import this test module: its classes travel by value
cloudpickle.register_pickle_by_value(sys.modules[__name__])


class WherePid(DataDrivenEvents):
    def propose(self, train_x, train_x_prime, plan):  # type: ignore[no-untyped-def]
        from auditor.core.trials import Event

        return [Event(f"pid {os.getpid()}", lambda y: np.ones(len(y), dtype=bool))]


def test_several_jobs_run_in_other_processes_and_one_job_here() -> None:
    a = np.zeros(100)
    job = ProposalJob(WherePid(), (a, a), (a, a), PLAN)
    pids = {events[0].description for events, _ in Proposer(2).map([job] * 4)}
    assert f"pid {os.getpid()}" not in pids
    ((events, counts),) = Proposer(2).map([job])
    assert events[0].description == f"pid {os.getpid()}"
    assert [int(k[0]) for k in counts] == [100, 100]


class Constant:
    """A scalar adapter (never sampled here: the runs below have no attack)."""

    family, epsilon, delta, sensitivity = "additive", 1.0, 0.0, 1.0

    def __init__(self, name: str) -> None:
        self.name = name

    def sample(self, query, n):  # type: ignore[no-untyped-def]
        return np.zeros(n)


def test_proposals_use_worker_processes_only_when_one_adapter_is_audited(monkeypatch) -> None:
    from auditor.core.configs import AuditConfig, EngineConfig
    from auditor.engine import runner

    sizes: list[int] = []

    class Recording(Proposer):
        def __init__(self, processes: int = 1) -> None:
            sizes.append(processes)
            super().__init__(processes)

    monkeypatch.setattr(runner, "Proposer", Recording)
    local, inline = EngineConfig(workers=2), EngineConfig.in_process()
    runner.run_audit([Constant("a")], [], AuditConfig(budget=1000), engine=local)
    runner.run_audit([Constant("a"), Constant("b")], [], AuditConfig(budget=1000), engine=local)
    runner.run_audit([Constant("a")], [], AuditConfig(budget=1000), engine=inline)
    assert sizes == [2, 1, 1]
