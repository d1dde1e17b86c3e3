"""How the Dask backend waits: per-chunk timeouts from the workers' own report, no blame for a
task that waits for a worker, and an error (not a hang) when the cluster has no workers."""

from __future__ import annotations

import time

import cloudpickle
import pytest
from audit_fixtures import GeometricLaplace

from auditor.core.errors import BackendUnavailable
from auditor.core.spec import check_adapter
from auditor.engine.backends import dask_backend, local, worker
from auditor.engine.backends.dask_backend import DaskSampler, Group
from auditor.engine.backends.worker import AdapterSource, Task, fingerprint


class FakeFuture:
    """Done after ``done_after`` seconds; ``result`` waits like a Dask future."""

    key = "run_tasks_remote-1"

    def __init__(self, done_after: float = float("inf")) -> None:
        self.ready_at = time.monotonic() + done_after

    def done(self) -> bool:
        return time.monotonic() >= self.ready_at

    def result(self, timeout=None):
        left = self.ready_at - time.monotonic()
        if left > 0:
            if timeout is None or left > timeout:
                time.sleep(timeout)
                raise TimeoutError
            time.sleep(left)
        return b"packed"


class FakeClient:
    """``run(running_chunks)`` answers with ``report()``: worker -> {task key: (age, loading)}."""

    def __init__(self, report) -> None:
        self.report, self.calls = report, 0

    def run(self, function):
        assert function is worker.running_chunks
        self.calls += 1
        return self.report()


def sampler(client, timeout: float) -> DaskSampler:
    s = DaskSampler.__new__(DaskSampler)  # the cluster part of __init__ is not under test
    s._client, s.timeout = client, timeout
    return s


def wait(s: DaskSampler, future: FakeFuture):
    return s._wait(Group(future, []), "adapter 'x': sample(query, n=400)")


def test_a_chunk_running_longer_than_the_timeout_is_timed_out():
    client = FakeClient(lambda: {"tcp://a": {FakeFuture.key: (0.5, False)}})
    with pytest.raises(TimeoutError):
        wait(sampler(client, timeout=0.4), FakeFuture())


def test_a_chunk_that_loads_its_adapter_gets_the_load_allowance_too(monkeypatch):
    monkeypatch.setattr(local, "MIN_LOAD_TIMEOUT", 10.0)
    client = FakeClient(lambda: {"tcp://a": {FakeFuture.key: (0.5, True)}})
    assert wait(sampler(client, timeout=0.4), FakeFuture(done_after=0.6)) == b"packed"
    assert client.calls >= 2  # it was asked, and found within its allowance


def test_a_task_waiting_for_a_worker_is_never_timed_out():
    # the only worker runs another adapter's chunk far past its timeout; ours is queued
    client = FakeClient(lambda: {"tcp://a": {"other-task": (100.0, False)}})
    assert wait(sampler(client, timeout=0.2), FakeFuture(done_after=0.5)) == b"packed"
    assert client.calls >= 2


def test_a_cluster_without_workers_ends_the_wait_with_an_error(monkeypatch):
    monkeypatch.setattr(local, "MIN_LOAD_TIMEOUT", 0.3)
    client = FakeClient(dict)
    start = time.monotonic()
    with pytest.raises(BackendUnavailable, match="the Dask cluster has had no workers for 0.3 s"):
        wait(sampler(client, timeout=0.2), FakeFuture())
    assert time.monotonic() - start < 2


def test_workers_coming_back_reset_the_wait_for_workers(monkeypatch):
    monkeypatch.setattr(local, "MIN_LOAD_TIMEOUT", 0.3)
    answers = iter([{}, {}, {"tcp://a": {}}, {}, {}])
    client = FakeClient(lambda: next(answers, {"tcp://a": {}}))
    # 0.05 s per probe: no workers for 0.1 s, then one, then none for 0.1 s: never 0.3 s in a row
    assert wait(sampler(client, timeout=0.2), FakeFuture(done_after=0.45)) == b"packed"


def test_without_a_timeout_the_workers_are_not_asked(monkeypatch):
    monkeypatch.setattr(dask_backend, "PROBE_INTERVAL", 0.05)
    client = FakeClient(dict)
    assert wait(sampler(client, timeout=None), FakeFuture(done_after=0.2)) == b"packed"
    assert client.calls == 0


#: what ReportsWhileSampling saw (module level: a pickled copy of the adapter appends here too)
SEEN: list[dict] = []


class ReportsWhileSampling(GeometricLaplace):
    """Records, while it samples, what ``running_chunks`` would tell the main process."""

    def sample(self, query, n):
        SEEN.append(worker.running_chunks(None))
        return super().sample(query, n)


def test_a_worker_reports_how_long_its_current_chunk_has_run(monkeypatch):
    """``run_tasks_remote`` records each chunk's start under the Dask task's key."""
    import sys
    import types

    class FakeWorker:
        def get_current_task(self):
            return "group-7"

    # a stand-in for distributed (an optional extra): only get_worker is used
    monkeypatch.setitem(sys.modules, "distributed", types.SimpleNamespace(get_worker=FakeWorker))
    adapter = ReportsWhileSampling(1.0, name="test.reports")
    spec = check_adapter(adapter)
    source = AdapterSource("pickle", cloudpickle.dumps(adapter), spec.name, fingerprint(spec))
    monkeypatch.setattr(worker, "_SPECS", {})
    tasks = [Task("draw", "k", source, 0, 100, 1), Task("draw", "k", None, 0, 100, 2)]
    worker.run_tasks_remote(tasks)
    # the replay check draws twice right after the load, then each chunk samples once: all
    # four calls run on the call clock (--timeout), the load's allowance ends before them
    during = [entry["group-7"] for entry in SEEN if "group-7" in entry]
    assert [loading for _, loading in during] == [False, False, False, False]
    assert all(0 <= age < 5 for age, _ in during)
    assert worker.running_chunks(None) == {}  # forgotten once the task returns
