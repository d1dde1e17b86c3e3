"""The Dask backend on a real LocalCluster gives the local backend's results."""

from __future__ import annotations

import copy

import pytest
from audit_fixtures import GeometricLaplace, RandomizedResponse
from engine_fixtures import strip_timing

from attacks import load_attacks
from auditor import AuditConfig, run_audit
from auditor.adapters.textbook import TextbookLaplace
from auditor.core.configs import EngineConfig

# every test here is slow; importing distributed inside them keeps the default run free of a
# "skipped" line when the dask extra is not installed
pytestmark = pytest.mark.slow

ADAPTERS = [
    GeometricLaplace(1.0, name="good.dlap"),
    RandomizedResponse(1.0, name="bad.rr", p_true=0.9),
    TextbookLaplace(1.0),
]


def _bad_adapters():
    """tests/reliability/bad_adapters.py, importable by name (also in the workers)."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "reliability"))
    import bad_adapters

    return bad_adapters


def _beside_a_good_adapter(bad) -> tuple:
    """Audit ``bad`` and a good adapter on a 2-worker LocalCluster with a 2 s timeout; ``bad``
    is made seedable, so that it runs on the cluster.  (bad's result, good's, seconds)."""
    import time

    bad.seed = lambda entropy: None
    start = time.monotonic()
    report = run_audit(
        [bad, GeometricLaplace(1.0, name="good.dlap")],
        load_attacks(["black-box"]),
        AuditConfig(budget=100_000, seed=4),
        engine=EngineConfig(backend="dask", workers=2, timeout=2.0),
    )
    return (*report.results, time.monotonic() - start)


def test_local_cluster_of_two_processes_matches_the_local_backend():
    pytest.importorskip("distributed")
    config = AuditConfig(budget=150_000, seed=3)
    local = run_audit(
        copy.deepcopy(ADAPTERS),
        load_attacks(),
        config,
        engine=EngineConfig(backend="local", workers=2),
    ).to_dict()
    dask = run_audit(
        copy.deepcopy(ADAPTERS),
        load_attacks(),
        config,
        engine=EngineConfig(backend="dask", workers=2, timeout=60.0),
    ).to_dict()
    assert strip_timing(dask) == strip_timing(local)
    assert [r["verdict"] for r in dask["results"]] == ["no_violation", "violation", "violation"]
    # all sampled on the cluster (other notes, such as a futility cut, are the local run's too)
    assert not [n for r in dask["results"] for n in r["notes"] if "sampled in this process" in n]


def test_dask_reports_adapter_errors():
    pytest.importorskip("distributed")
    bad_adapters = _bad_adapters()
    adapters = [bad_adapters.Raises("bad.raises"), bad_adapters.ReturnsNaN("bad.nan")]
    for a in adapters:  # make them seedable so that they run on the cluster
        a.seed = lambda entropy: None
    report = run_audit(
        adapters,
        load_attacks(["black-box"]),
        AuditConfig(budget=2000),
        engine=EngineConfig(backend="dask", workers=2, timeout=60.0),
    )
    for r in report.results:
        assert r.verdict.value == "error"
        assert bad_adapters.EXPECTED[r.adapter] in r.error


def test_a_hung_task_on_dask_is_an_error_after_the_timeout_and_the_audit_goes_on():
    pytest.importorskip("distributed")
    # it answers its load check's small calls, then hangs sampling: the sampling gets the 2 s,
    # also on a worker that loads the adapter for that very chunk (the load has its own clock)
    hung, good, seconds = _beside_a_good_adapter(_bad_adapters().HangsOnLargeCalls("bad.hangs"))
    assert seconds < 50
    assert hung.verdict.value == "error"
    assert "did not return within 2 s on the Dask cluster" in hung.error
    assert good.verdict.value == "no_violation"


def test_a_cluster_that_lost_every_worker_ends_the_request_with_an_error(monkeypatch):
    pytest.importorskip("distributed")
    import time

    from auditor.core.errors import BackendUnavailable
    from auditor.core.spec import check_adapter
    from auditor.engine.backends import dask_backend, local

    monkeypatch.setattr(local, "MIN_LOAD_TIMEOUT", 2.0)
    spec = check_adapter(GeometricLaplace(1.0, name="good.dlap"))
    sampler = dask_backend.DaskSampler(workers=1, timeout=1.0)
    try:
        sampler.prepare(spec)
        assert len(sampler.draw(spec, 0, 1000, 1)) == 1000
        sampler._cluster.scale(0)
        while sampler._client.nthreads():
            time.sleep(0.1)
        start = time.monotonic()
        with pytest.raises(BackendUnavailable, match="no workers for 2 s"):
            sampler.draw(spec, 0, 1000, 2)
        assert time.monotonic() - start < 10
    finally:
        sampler.close()


def test_a_call_that_holds_the_gil_is_an_error_once_the_scheduler_restarts_its_worker(
    monkeypatch,
):
    """Its worker cannot answer how long its chunk has run; the worker TTL catches it."""
    pytest.importorskip("distributed")
    from auditor.engine.backends import local

    monkeypatch.setattr(local, "MIN_LOAD_TIMEOUT", 3.0)  # the worker TTL: max(2, 3) s
    holds = _bad_adapters().HoldsTheGILOnLargeCalls("bad.holds_gil")
    stuck, good, seconds = _beside_a_good_adapter(holds)
    assert seconds < 120
    assert stuck.verdict.value == "error"
    assert "held it silent past the cluster's worker-ttl (twice)" in stuck.error
    # its chunks waited at the scheduler, not in the silenced worker: never killed with it
    assert good.verdict.value == "no_violation", good.error
