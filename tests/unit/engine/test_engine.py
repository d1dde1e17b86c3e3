"""The sampling engine: chunking, identical results for any backend and worker count, pinning."""

from __future__ import annotations

import copy
import threading

import numpy as np
import pytest
from audit_fixtures import GeometricLaplace, RandomizedResponse
from engine_fixtures import Counter, Exits, ProcessStamp, SeedIgnored, strip_timing

from attacks import load_attacks
from auditor import AuditConfig, InvalidArgument, run_audit
from auditor.adapters.textbook import TextbookLaplace
from auditor.core.configs import EngineConfig
from auditor.core.errors import AdapterCrashed, EventError
from auditor.core.spec import check_adapter
from auditor.core.trials import Event
from auditor.engine.backends.local import LocalProcessSampler
from auditor.engine.sampling import (
    InProcessSampler,
    chunk_sizes,
    count_events,
    distinct_outputs,
    draw,
)


@pytest.mark.parametrize("n", [0, 1, 4095, 4096, 4097, 100_000, 1 << 20, 3_000_001])
def test_chunks_cover_the_request_within_bounds(n):
    sizes = chunk_sizes(n)
    assert sum(sizes) == n
    assert all(0 < s <= 1 << 18 for s in sizes)
    assert len(set(sizes[:-1])) <= 1  # equal chunks, the last may be shorter
    loop = chunk_sizes(n, vectorised=False)
    assert sum(loop) == n and all(s <= 1024 for s in loop)


def test_unseedable_adapters_stay_on_one_worker_so_no_stream_is_replayed():
    spec = check_adapter(Counter())
    sampler = LocalProcessSampler(workers=2, timeout=30.0)
    try:
        out = sampler.draw(spec, 0.0, 200_000, entropy=1)
    finally:
        sampler.close()
    # copies on two workers would both start at 0 and repeat values
    assert len(np.unique(out)) == 200_000


def test_an_adapter_drawing_from_os_entropy_runs_on_every_worker():
    """``os_entropy = True``: its copies cannot replay one stream, so its chunks are shared;
    the same adapter without the declaration keeps to one worker."""

    class Pinned(ProcessStamp):
        os_entropy = False

    pids = {}
    for adapter in (ProcessStamp(), Pinned()):
        spec = check_adapter(adapter)
        assert spec.many_copies is adapter.os_entropy
        sampler = LocalProcessSampler(workers=2, timeout=30.0)
        try:
            out = sampler.draw(spec, 0.0, 400_000, entropy=1)
        finally:
            sampler.close()
        pids[adapter.os_entropy] = set(np.floor(out).astype(int).tolist())
    assert len(pids[True]) == 2
    assert len(pids[False]) == 1


def test_every_backend_draws_the_same_chunks():
    spec = check_adapter(TextbookLaplace(1.0))
    expected = draw(spec, 0.0, 150_000, entropy=77)
    assert np.array_equal(InProcessSampler(timeout=5.0).draw(spec, 0.0, 150_000, 77), expected)
    for workers in (1, 2):
        sampler = LocalProcessSampler(workers=workers, timeout=30.0)
        try:
            assert np.array_equal(sampler.draw(spec, 0.0, 150_000, 77), expected)
        finally:
            sampler.close()
    # and a different entropy gives different outputs (the test has power)
    assert not np.array_equal(draw(spec, 0.0, 150_000, entropy=78), expected)


ADAPTERS = [
    GeometricLaplace(1.0, name="good.dlap"),
    RandomizedResponse(1.0, name="bad.rr", p_true=0.9),
    TextbookLaplace(1.0),
]


@pytest.fixture(scope="module")
def inline_report():
    return run_audit(
        copy.deepcopy(ADAPTERS), load_attacks(), AuditConfig(budget=150_000, seed=11)
    ).to_dict()


@pytest.mark.parametrize("workers", [1, 2])
def test_reports_are_identical_for_any_worker_count(inline_report, workers):
    report = run_audit(
        copy.deepcopy(ADAPTERS),
        load_attacks(),
        AuditConfig(budget=150_000, seed=11),
        engine=EngineConfig(backend="local", workers=workers),
    ).to_dict()
    assert strip_timing(report) == strip_timing(inline_report)
    verdicts = [r["verdict"] for r in report["results"]]
    assert verdicts == ["no_violation", "violation", "violation"]


def test_a_different_seed_changes_the_counts(inline_report):
    other = run_audit(
        copy.deepcopy(ADAPTERS), load_attacks(), AuditConfig(budget=150_000, seed=12)
    ).to_dict()
    assert strip_timing(other) != strip_timing(inline_report)


class Unpicklable(GeometricLaplace):
    def __init__(self):
        super().__init__(1.0, name="test.unpicklable")
        self.lock = threading.Lock()


def test_adapters_that_cannot_be_pickled_fall_back_to_this_process_and_say_so():
    class Local(GeometricLaplace):  # a local class: only cloudpickle can send it
        pass

    report = run_audit(
        [Unpicklable(), Local(1.0, name="test.local_class")],
        load_attacks(["black-box"]),
        AuditConfig(budget=2000),
        engine=EngineConfig(backend="local", workers=2, timeout=30.0),
    )
    fallback, local = report.results
    assert fallback.verdict.value == "no_violation" and local.verdict.value == "no_violation"
    assert any("sampled in this process" in note for note in fallback.notes)
    assert not local.notes


@pytest.mark.parametrize(
    "kwargs",
    [
        {"backend": "threads"},
        {"workers": 0},
        {"workers": 2.0},
        {"workers": True},
        {"timeout": 0},
        {"timeout": -3.0},
        {"timeout": float("nan")},
        {"timeout": float("inf")},
        {"scheduler": "tcp://127.0.0.1:8786"},
        {"backend": "dask", "scheduler": ""},
    ],
)
def test_engine_settings_are_validated(kwargs):
    with pytest.raises(InvalidArgument):
        EngineConfig(**kwargs)


def test_a_seed_that_does_not_replay_is_refused_in_workers_but_fine_in_process():
    config = AuditConfig(budget=2000)
    attacks = load_attacks(["black-box"])
    (isolated,) = run_audit(
        [SeedIgnored(1.0, name="test.seed_ignored")],
        attacks,
        config,
        engine=EngineConfig(backend="local", workers=2, timeout=30.0),
    ).results
    assert isolated.verdict.value == "error", isolated
    assert "does not replay" in isolated.error
    # every later trial is refused for the same reason, never sampled
    also = [note for note in isolated.notes if note.startswith("also failed")]
    assert all("does not replay" in note for note in also), also
    (inline,) = run_audit([SeedIgnored(1.0, name="test.seed_ignored")], attacks, config).results
    assert inline.verdict.value == "no_violation"


class NullableRecord:
    """A record whose real field is often "no answer" (NaN): seeded, so it replays."""

    name = "test.nullable_record"
    input_kind, output_kind, sensitivity, epsilon = "scalar", "record", 1.0, 1.0
    fields = {"value": "real", "released": "boolean"}
    nullable = True

    def __init__(self):
        self._rng = np.random.default_rng(0)

    def seed(self, entropy):
        self._rng = np.random.default_rng(entropy)

    def sample(self, query, n):
        noisy = query + self._rng.laplace(0.0, 2.0, n)
        out = np.zeros(n, dtype=[("value", float), ("released", bool)])
        out["released"] = noisy > 0
        out["value"] = np.where(noisy > 0, np.round(noisy * 1024) / 1024, np.nan)
        return out


def test_a_record_with_no_answers_replays_in_workers():
    """NaN equals NaN field by field when a worker checks that the seed replays."""
    (result,) = run_audit(
        [NullableRecord()],
        load_attacks(["black-box"]),
        AuditConfig(budget=2000),
        engine=EngineConfig(backend="local", workers=2, timeout=30.0),
    ).results
    assert result.error is None and result.verdict.value == "no_violation", result.to_dict()


def test_an_unseedable_adapter_whose_worker_was_stopped_is_not_reloaded():
    """A fresh copy would restart its stream (here: 0, 1, 2, ... again) and fake new samples."""
    counter, exits = check_adapter(Counter()), check_adapter(Exits())
    sampler = LocalProcessSampler(workers=1, timeout=30.0)
    try:
        first = sampler.draw(counter, 0.0, 10, entropy=1)
        assert list(first) == list(range(10))
        with pytest.raises(AdapterCrashed, match="exit code 3"):
            sampler.draw(exits, 0.0, 10, entropy=1)
        with pytest.raises(AdapterCrashed, match="replay"):
            sampler.draw(counter, 0.0, 10, entropy=2)
    finally:
        sampler.close()


def test_training_split_is_capped_so_memory_stays_bounded():
    adapter = TextbookLaplace(1.0)
    adapter.epsilon = 1000.0  # nothing to certify: the whole budget is drawn (futility off,
    # or the training split would cut every trial short: it shows there is no chance)
    config = AuditConfig(budget=20_000, max_train=500, futility=0)
    (result,) = run_audit([adapter], load_attacks(["black-box"]), config).results
    assert result.samples >= 2 * 20_000
    assert result.findings and all(f.n_train <= 500 for f in result.findings)
    with pytest.raises(InvalidArgument, match="max_train"):
        AuditConfig(max_train=10)


@pytest.mark.parametrize(
    "outputs",
    [
        np.array([3, -1, 3, 0, 3, -1], dtype=np.int64),
        np.array([5, 200, 7] * 100, dtype=np.uint8),
        np.array([-128, 127, 0] * 100, dtype=np.int8),  # the span does not wrap
        np.array([2**64 - 1, 2**64 - 3] * 2, dtype=np.uint64),
        np.array([True, False, True]),
        # rows: answer patterns, bit vectors (in lexicographic order)
        np.array([[1, -1, 0], [0, 0, 0], [1, -1, 0], [-1, 1, 1]] * 10, dtype=np.int8),
        np.array([[True, False], [False, False], [True, False]]),
        np.array([[2**64 - 1, 0], [2**64 - 2, 1]] * 2, dtype=np.uint64),
    ],
)
def test_distinct_outputs_are_the_values_with_their_multiplicities(outputs):
    values, multiplicities = distinct_outputs(outputs)
    expected, counts = np.unique(outputs, axis=0, return_counts=True)
    np.testing.assert_array_equal(values, expected)
    assert values.dtype == outputs.dtype
    np.testing.assert_array_equal(multiplicities, counts)


@pytest.mark.parametrize(
    "outputs",
    [
        np.array([0.0, 1.0, 1.0]),  # floats are not grouped
        np.array([0, 10**6]),  # a span wider than the outputs
        np.array([-(2**63), 2**63 - 1]),
        np.array([[0, 1], [1, 0], [2, 2]]),  # 9 possible rows, more than the 3 outputs
        np.zeros((3, 2, 2), dtype=np.int64),
        np.zeros(0, dtype=np.int64),
        np.zeros((4, 0), dtype=np.int64),
    ],
)
def test_outputs_that_are_not_few_integers_are_not_grouped(outputs):
    assert distinct_outputs(outputs) is None


def test_counts_on_grouped_outputs_are_the_counts_output_by_output():
    rng = np.random.default_rng(3)
    events = [
        Event("over", lambda y: np.asarray(y) > 2),
        Event("in", lambda y: np.isin(y, [-3, 0, 6])),
        Event("even", lambda y: np.asarray(y) % 2 == 0),
    ]
    for outputs in (rng.integers(-3, 7, 5000), rng.integers(0, 2, 7).astype(bool)):
        expected = [np.count_nonzero(e(outputs)) for e in events]
        np.testing.assert_array_equal(count_events(events, outputs), expected)
        np.testing.assert_array_equal(count_events(events, outputs.astype(float)), expected)
    rows = rng.integers(-1, 2, (5000, 6)).astype(np.int8)  # answer patterns
    row_events = [
        Event("first answered", lambda y: np.asarray(y)[:, 0] == 1),
        Event("sum", lambda y: np.asarray(y).sum(axis=1) > 1),
    ]
    expected = [np.count_nonzero(e(rows)) for e in row_events]
    np.testing.assert_array_equal(count_events(row_events, rows), expected)
    broken = Event("broken", lambda y: y[:1])
    with pytest.raises(EventError, match="broken"):
        count_events([broken], np.array([1, 2, 1]))
