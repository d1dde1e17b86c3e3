"""Scheduling for a default audit with per-call adapters at the full budget (issue #19): the
costliest adapters start first, the local pool hands out chunks of adapters without ``seed()``
first and round-robin over adapters within a priority, and none of it changes a number."""

from __future__ import annotations

import time
from concurrent.futures import Future

import numpy as np
from audit_fixtures import GeometricLaplace, RandomizedResponse

from attacks import load_attacks
from auditor.adapters.textbook import TextbookLaplaceInverseCDF
from auditor.core.configs import AuditConfig, EngineConfig
from auditor.core.spec import check_adapter
from auditor.engine.backends.local import PINNED, SHARED, chunk_priority
from auditor.engine.backends.pool import ProcessPool
from auditor.engine.backends.worker import AdapterSource, Task, fingerprint
from auditor.engine.runner import _plan, planned_outputs, run_audit, start_order


class PerCallNoSeed:
    """Calls its 'library' once per output and cannot be seeded (like OpenDP, python-dp)."""

    name, family, epsilon, sensitivity = "test.per-call-no-seed", "additive", 1.0, 1.0
    vectorised = False

    def sample(self, query, n):
        rng = np.random.default_rng()
        return np.fromiter((float(query) + rng.laplace() for _ in range(n)), float, count=n)


def test_per_call_adapters_start_first_and_seedless_ones_before_them() -> None:
    attacks = load_attacks(["black-box"])
    adapters = [
        GeometricLaplace(1.0, name="vectorised"),
        object(),  # not an adapter: an error, planned but never started early
        TextbookLaplaceInverseCDF(1.0),
        PerCallNoSeed(),
        RandomizedResponse(1.0, name="vectorised-binary"),
    ]
    planned = [_plan(a, attacks, 0) for a in adapters]
    config = AuditConfig()
    order = start_order(planned, config)
    assert sorted(order) == list(range(len(adapters)))
    assert order[:2] == [3, 2]  # per-call: without seed() first, then with
    # vectorised ones by planned outputs (3 additive trials before 1 binary one), errors last
    assert planned_outputs(planned[0], config) > planned_outputs(planned[4], config)
    assert order[2:] == [0, 4, 1]


def test_results_keep_the_planned_order_whatever_the_start_order() -> None:
    adapters = [
        GeometricLaplace(1.0, name="a.vectorised"),
        TextbookLaplaceInverseCDF(1.0),
        RandomizedResponse(1.0, name="c.vectorised"),
    ]
    config = AuditConfig(budget=2_000, loop_budget=2_000, seed=3)
    attacks = load_attacks(["black-box"])
    engine = EngineConfig(backend="local", workers=2, timeout=60)
    local = run_audit(adapters, attacks, config, engine=engine)
    assert [r.adapter for r in local.results] == [
        "a.vectorised",
        "textbook.laplace_inverse_cdf(eps=1)",
        "c.vectorised",
    ]
    inline = run_audit(adapters, attacks, config)  # one thread, in planned order
    assert [r.to_dict()["findings"] for r in local.results] == [
        r.to_dict()["findings"] for r in inline.results
    ]


def test_chunks_of_adapters_without_seed_go_first_and_the_rest_share() -> None:
    assert chunk_priority(check_adapter(PerCallNoSeed())) == PINNED
    assert chunk_priority(check_adapter(TextbookLaplaceInverseCDF(1.0))) == SHARED
    assert chunk_priority(check_adapter(GeometricLaplace(1.0))) == SHARED
    assert PINNED < SHARED


def test_the_pool_takes_turns_over_adapters_within_a_priority() -> None:
    from collections import deque
    from types import SimpleNamespace

    from auditor.engine.backends.pool import Job, dispatch_order

    def job(key: str, priority: int) -> Job:
        return Job(SimpleNamespace(key=key), Future(), key, None, priority)  # type: ignore[arg-type]

    queue = deque(
        [job("long", 1), job("long", 1), job("long", 1), job("cheap", 1), job("first", 0)]
    )
    order = [(j.task.key, j.priority) for j in dispatch_order(queue)]
    assert order == [("first", 0), ("long", 1), ("cheap", 1), ("long", 1), ("long", 1)]


def _task(name: str, n: int) -> Task:
    import cloudpickle

    spec = check_adapter(GeometricLaplace(1.0, name=name))
    source = AdapterSource("pickle", cloudpickle.dumps(spec.adapter), name, fingerprint(spec))
    return Task("draw", name, source, 0, n, 1)


def _finish_order(futures: dict[str, Future]) -> list[str]:
    order: list[str] = []
    for name, future in futures.items():
        future.add_done_callback(lambda f, name=name: order.append(name))
    for future in futures.values():
        future.result(timeout=120)
    return order


def _busy(pool: ProcessPool) -> Future:
    """A first task long enough that everything submitted after it is still queued."""
    pool.submit(_task("warm", 10), "warm").result(timeout=120)  # worker started and loaded
    first = pool.submit(_task("warm", 1 << 23), "first", priority=2)
    while not first.running() and not first.done():
        time.sleep(0.001)
    return first


def test_the_pool_hands_out_higher_priority_chunks_first() -> None:
    pool = ProcessPool(workers=1, timeout=60.0, load_timeout=60.0)
    try:
        first = _busy(pool)
        futures = {"first": first}
        for i in range(4):
            futures[f"low{i}"] = pool.submit(_task("warm", 10), f"low{i}", priority=2)
        futures["high"] = pool.submit(_task("warm", 10), "high", priority=1)
        order = _finish_order(futures)
        # at most one low-priority chunk was already in the worker's pipe (DEPTH = 2)
        assert order.index("high") <= 2
        assert order.index("high") < order.index("low2") < order.index("low3")
    finally:
        pool.close()


def test_a_seedless_adapters_first_chunk_gets_a_worker_drained_for_it() -> None:
    # the first chunk of an adapter without seed() needs an idle worker; a stream of other
    # chunks must not keep the only worker busy until they run out
    pool = ProcessPool(workers=1, timeout=60.0, load_timeout=60.0)
    try:
        first = _busy(pool)
        futures = {"first": first}
        for i in range(6):
            futures[f"low{i}"] = pool.submit(_task("warm", 10), f"low{i}", priority=SHARED)
        futures["pinned"] = pool.submit(_task("pin", 10), "pinned", pin="pin", priority=PINNED)
        order = _finish_order(futures)
        assert order.index("pinned") <= 2  # after the running chunk and the one in the pipe
    finally:
        pool.close()


def test_a_long_task_sent_while_a_wide_result_comes_back_does_not_stall_the_pool() -> None:
    # a task larger than the pipe's buffer waits for the worker to read it, and the worker
    # reads its next task only after sending its result: a dispatcher that wrote the task
    # itself would stop reading results, and both would wait for ever (no deadline fires)
    import cloudpickle
    from vector_targets import Wide

    spec = check_adapter(Wide())
    source = AdapterSource("pickle", cloudpickle.dumps(spec.adapter), "wide", fingerprint(spec))
    query = np.zeros(1 << 20)  # 8 MB, and 20,000 x 64 outputs (10 MB) back
    pool = ProcessPool(workers=1, timeout=60.0, load_timeout=60.0)
    try:
        futures = [
            pool.submit(Task("draw", "wide", source, query, 20_000, i), "w") for i in range(4)
        ]
        assert [f.result(timeout=60).shape for f in futures] == [(20_000, 64)] * 4
    finally:
        pool.close()
