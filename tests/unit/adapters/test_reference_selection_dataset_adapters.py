from __future__ import annotations

import importlib

import numpy as np
import pytest

from auditor.adapters.builtin import BUILTIN_TARGETS
from auditor.adapters.reference_dataset import (
    IQRScaleAdapter,
    PTRMedianAdapter,
    SubsampleAggregateAdapter,
)
from auditor.adapters.reference_dataset import builtin_adapters as dataset_adapters
from auditor.adapters.reference_selection import (
    Base2ExponentialAdapter,
    ReportNoisyMaxAdapter,
)
from auditor.adapters.reference_selection import builtin_adapters as selection_adapters

EXPECTED = {
    "reference.base2_exponential",
    "reference.report_noisy_max",
    "reference.ptr_median",
    "reference.subsample_aggregate",
    "reference.iqr_scale",
}


def test_registered_and_named() -> None:
    targets = [t for t, _, _ in BUILTIN_TARGETS]
    assert "auditor.adapters.reference_selection:builtin_adapters" in targets
    assert "auditor.adapters.reference_dataset:builtin_adapters" in targets
    names = []
    for t in targets:
        if "reference_selection" in t or "reference_dataset" in t:
            mod, attr = t.split(":")
            names += [a.name for a in getattr(importlib.import_module(mod), attr)()]
    assert set(names) == EXPECTED and len(names) == len(set(names))


@pytest.mark.parametrize("adapter", selection_adapters(), ids=lambda a: a.name)
def test_selection_contract(adapter) -> None:
    assert adapter.family == "selection" and adapter.delta == 0.0
    assert 0 < adapter.epsilon <= 1.0 and adapter.sensitivity == 1.0
    q = np.array([0.0, 1.0, 2.0, 5.0, 3.0])
    adapter.seed(3)
    x = adapter.sample(q, 20_000)
    assert x.shape == (20_000,) and x.dtype == np.int64 and x.min() >= 0 and x.max() <= 4
    adapter.seed(3)
    assert np.array_equal(adapter.sample(q, 20_000), x)
    p = adapter.probabilities(q)
    assert p.dtype == np.float64 and p.shape == (5,) and abs(p.sum() - 1) < 1e-12
    # empirical frequencies within 5 sd of the exact probabilities (P[fail] < 1e-5)
    freq = np.bincount(x, minlength=5) / x.size
    assert np.all(np.abs(freq - p) < 5 * np.sqrt(p * (1 - p) / x.size) + 1e-12)
    with pytest.raises(ValueError):
        adapter.sample([1.0, float("nan")], 3)
    with pytest.raises(ValueError):
        adapter.sample([], 3)


def test_base2_adapter_declares_bounds_and_clamps() -> None:
    a = Base2ExponentialAdapter()
    assert a.utility_bounds == (-10_000, 10_000)
    p = a.probabilities([20_000.0, 10_000.0, 1e9])
    assert np.allclose(p, 1 / 3)
    assert a.epsilon <= 1.0 and a.epsilon > 0.99


def test_rnm_adapter_epsilon_and_shift_invariance() -> None:
    a = ReportNoisyMaxAdapter(epsilon=2.0)
    assert a.epsilon == 2.0
    assert np.allclose(a.probabilities([0.0, 1.0, 3.0]), a.probabilities([10.0, 11.0, 13.0]))


@pytest.mark.parametrize("adapter", dataset_adapters(), ids=lambda a: a.name)
def test_dataset_contract(adapter) -> None:
    assert adapter.family == "dataset"
    assert adapter.neighbours in ("add_remove", "replace")
    lo, hi = adapter.domain
    assert lo < hi and 0 < adapter.delta < 1 and adapter.epsilon > 0
    q = np.full(12, (lo + hi) / 2)
    adapter.seed(4)
    x = adapter.sample(q, 2000)
    assert x.shape == (2000,) and x.dtype == np.float64
    adapter.seed(4)
    assert np.array_equal(adapter.sample(q, 2000), x, equal_nan=True)
    for bad in ([], [lo - 1.0], [float("nan")]):
        with pytest.raises(ValueError):
            adapter.sample(bad, 3)


def test_dataset_claims() -> None:
    assert IQRScaleAdapter().epsilon == 1.0  # 4 x 0.25
    assert PTRMedianAdapter().neighbours == "add_remove"
    s = SubsampleAggregateAdapter()
    assert s.neighbours == "replace" and (s.epsilon, s.delta) == (32.0, 0.2)


def test_base2_adapter_probabilities_for_many_fractional_utilities() -> None:
    a = Base2ExponentialAdapter()
    q = np.random.default_rng(0).normal(0, 3, 40)  # 40 non-integers: numerical mixture
    p = a.probabilities(q)
    assert p.shape == (40,) and abs(p.sum() - 1) < 1e-12 and np.all(p > 0)
    q_small = q[:6]
    exact = np.array([float(v) for v in a.exact_probabilities(q_small)])
    assert np.array_equal(a.probabilities(q_small), exact)


@pytest.mark.parametrize("adapter", selection_adapters() + dataset_adapters(), ids=lambda a: a.name)
def test_conformance(adapter) -> None:
    from auditor.testing import check_adapter_conformance

    assert check_adapter_conformance(adapter).name == adapter.name
