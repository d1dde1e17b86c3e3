"""Setting up the Dask backend: the workers' environment and dp-audit version."""

from __future__ import annotations

import pytest

from auditor import InvalidArgument
from auditor.engine.backends.dask_backend import DaskSampler
from auditor.engine.backends.worker import installed_version


class FakeClient:
    def __init__(self, answer):
        self.answer, self.closed = answer, False

    def run(self, function):
        if isinstance(self.answer, Exception):
            raise self.answer
        return {address: version for address, version in self.answer.items()}

    def close(self):
        self.closed = True


def sampler_with(client) -> DaskSampler:
    sampler = DaskSampler.__new__(DaskSampler)  # the cluster part of __init__ is not under test
    sampler._client, sampler._cluster = client, None
    return sampler


def test_a_cluster_running_the_same_version_is_accepted():
    client = FakeClient({"tcp://a": installed_version(), "tcp://b": installed_version()})
    sampler_with(client)._check_workers()
    assert not client.closed


def test_a_cluster_running_another_version_is_refused_with_both_versions_named():
    client = FakeClient({"tcp://a": installed_version(), "tcp://b": "0.0.1"})
    with pytest.raises(InvalidArgument, match=r"workers run dp-audit 0\.0\.1, this process"):
        sampler_with(client)._check_workers()
    assert client.closed


def test_workers_without_dp_audit_are_refused_with_the_workers_error():
    client = FakeClient(ModuleNotFoundError("No module named 'auditor'"))
    with pytest.raises(InvalidArgument, match="cannot run dp-audit: ModuleNotFoundError"):
        sampler_with(client)._check_workers()
    assert client.closed


@pytest.mark.slow
def test_the_local_cluster_workers_start_without_the_malloc_trim_threshold():
    pytest.importorskip("distributed")
    sampler = DaskSampler(workers=1, timeout=60.0)
    try:
        # a lambda travels by value (this test module is not importable on the worker)
        found = sampler._client.run(lambda: __import__("os").environ.get("MALLOC_TRIM_THRESHOLD_"))
        assert list(found.values()) == [None]
    finally:
        sampler.close()
