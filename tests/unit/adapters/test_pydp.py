"""python-dp adapters: output contract and calibration (skipped without python-dp).

PyDP cannot be seeded, so these checks are not deterministic: each bound is ≥ 6 standard
errors wide, so a correct adapter fails a given check with probability < 1e-8.
"""

from __future__ import annotations

import math
import pickle

import numpy as np
import pytest
from adapter_checks import assert_additive

pytest.importorskip("pydp")

from auditor.adapters import pydp_adapters as pdp  # noqa: E402

N = 4000


def _check(x, n, centre, sd):
    assert_additive(x, n, centre, sd)


def test_provenance_and_names():
    from importlib.metadata import version

    adapters = pdp.builtin_adapters() + pdp.vector_adapters()
    names = [a.name for a in adapters]
    assert len(set(names)) == len(names) and all(n.startswith("pydp.") for n in names)
    for a in adapters:
        assert a.library == "python-dp" and a.library_version == version("python-dp")
        assert a.vectorised is False and not hasattr(a, "seed") and a.description


def test_laplace():
    _check(
        pdp.LaplaceMechanism(epsilon=0.5, sensitivity=1.0).sample(3.0, N), N, 3.0, 2 * math.sqrt(2)
    )


def test_laplace_wrong_scale_would_fail():
    with pytest.raises(AssertionError):
        _check(pdp.LaplaceMechanism(epsilon=0.5).sample(0.0, N), N, 0.0, math.sqrt(2))


def test_laplace_keeps_float_outputs_for_integer_queries():
    x = pdp.LaplaceMechanism().sample(3, 200)
    assert x.dtype == np.float64 and np.any(x != np.round(x))


def test_gaussian():
    a = pdp.GaussianMechanism(epsilon=1.0, delta=1e-5)
    assert (a.epsilon, a.delta) == (1.0, 1e-5)
    x = a.sample(-1.0, N)
    assert x.shape == (N,) and abs(x.mean() + 1.0) < 6 * 4.0 / math.sqrt(N)
    assert 3.0 < x.std() < 4.5  # analytic calibration: about 3.73 (classic bound: 4.84)


def test_bounded_sum_and_count():
    data = np.array([0.5] * 9 + [7.0, -3.0])  # clamped to [0, 1]: sum 5.5, count 11
    s = pdp.BoundedSum(epsilon=1.0, domain=(0.0, 1.0))
    assert s.family == "dataset" and s.neighbours == "add_remove"
    _check(s.sample(data, N), N, 5.5, math.sqrt(2))
    c = pdp.Count(epsilon=1.0)
    x = c.sample(data, N)
    assert x.shape == (N,) and np.all(x == np.round(x))
    assert abs(x.mean() - 11) < 6 * 1.5 / math.sqrt(N)


def test_adapters_pickle_without_their_library_object():
    a = pdp.BoundedSum()
    b = pickle.loads(pickle.dumps(a))
    assert b.sample(np.zeros(3), 4).shape == (4,)


# --- quantiles and partition selection: the kinds contract ---------------------------------


def _draw(adapter, query, n):
    from auditor.core.spec import check_adapter
    from auditor.engine.sampling import draw

    return draw(check_adapter(adapter), query, n, 0)


def test_percentile_and_median():
    data = np.repeat([20.0, 40.0, 60.0, 80.0], 50)
    for adapter, centre in ((pdp.Percentile(percentile=0.9), 80.0), (pdp.Median(), 50.0)):
        assert adapter.family == "dataset" and adapter.neighbours == "add_remove"
        x = _draw(adapter, data, 1000)
        assert x.shape == (1000,) and x.min() >= 0 and x.max() <= 100
        assert abs(np.median(x) - centre) < 25  # the tree's leaves are 100/16^... wide


def test_quantile_tree_vector():
    from auditor.core.spec import check_adapter

    a = pdp.QuantileTree(quantiles=(0.1, 0.5, 0.9))
    spec = check_adapter(a)
    assert spec.kind_label == "dataset → real[3]" and (spec.claim.epsilon, spec.claim.delta) == (
        1.0,
        0.0,
    )
    x = _draw(a, np.linspace(0.0, 100.0, 201), 1000)
    assert x.shape == (1000, 3) and x.min() >= 0 and x.max() <= 100
    assert np.all(np.abs(np.median(x, axis=0) - [10, 50, 90]) < 10)


@pytest.mark.parametrize("strategy", ["truncated_geometric", "laplace"])
def test_partition_selection(strategy):
    from auditor.core.spec import check_adapter

    a = pdp.PartitionSelection(strategy, epsilon=1.0, delta=1e-5)
    spec = check_adapter(a)
    assert a.name == f"pydp.partition_selection.{strategy}"
    assert spec.kind_label == "scalar → boolean" and spec.integer_queries
    assert (spec.claim.epsilon, spec.claim.delta) == (1.0, 1e-5)
    keep = a._object.probability_of_keep
    for users in (0, 1, 15, 40):
        x = _draw(a, users, N)
        p = keep(users)
        assert set(np.unique(x)) <= {0, 1}
        assert abs(x.mean() - p) <= 6 * math.sqrt(p * (1 - p) / N) + 1e-12
    assert keep(0) == 0 and keep(1) <= 1e-5
    with pytest.raises(ValueError):
        a.sample(-1, 1)
