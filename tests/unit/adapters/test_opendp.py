"""OpenDP adapters: output contract, calibration, claims taken from OpenDP (skipped without it).

OpenDP cannot be seeded, so these checks are not deterministic: each bound is ≥ 6 standard
errors wide, so a correct adapter fails a given check with probability < 1e-8.
"""

from __future__ import annotations

import math
import pickle

import numpy as np
import pytest
from adapter_checks import assert_additive

pytest.importorskip("opendp")

from auditor.adapters import opendp_adapters as odp  # noqa: E402

N = 4000


def _check_additive(adapter, query, sd, dtype=np.float64, n=N):
    x = adapter.sample(query, n)
    assert_additive(x, n, query, sd, dtype=dtype)
    return x


def test_provenance_and_names():
    from importlib.metadata import version

    adapters = odp.builtin_adapters()
    names = [a.name for a in adapters]
    assert len(set(names)) == len(names) and all(n.startswith("opendp.") for n in names)
    for a in adapters:
        assert a.library == "opendp" and a.library_version == version("opendp")
        assert not hasattr(a, "seed")  # OpenDP offers no seed: none is pretended
        assert a.description and a.family in {"additive", "selection", "binary", "dataset"}
        assert a.epsilon == pytest.approx(1.0, rel=1e-6)


def test_laplace_float_vectorised():
    a = odp.Laplace(epsilon=1.0, sensitivity=2.0)
    assert a.vectorised is True and a.epsilon == 1.0
    _check_additive(a, 3.0, math.sqrt(2) * 2.0)


def test_laplace_wrong_scale_would_fail():
    with pytest.raises(AssertionError):
        _check_additive(odp.Laplace(epsilon=0.5), 0.0, math.sqrt(2))


@pytest.mark.parametrize("cls", [odp.LaplaceInteger, odp.Geometric])
def test_integer_laplace_and_geometric(cls):
    a = cls(epsilon=1.0)
    assert a.integer_queries is True and a.vectorised is True
    p = math.exp(-1.0)
    _check_additive(a, 5, math.sqrt(2 * p) / (1 - p), dtype=np.int64)
    with pytest.raises(ValueError, match="query"):
        a.sample(0.5, 1)


def test_gaussian_claim_and_scale():
    a = odp.Gaussian(epsilon=1.0, delta=1e-6)
    assert a.delta == pytest.approx(1e-6) and a.epsilon <= 1.0 + 1e-9
    x = a.sample(2.0, N)
    assert x.shape == (N,) and x.dtype == np.float64
    # smallest sigma with (1, 1e-6)-DP via zCDP is about 4.5; the classic bound would be 5.3
    assert 4.0 < x.std() < 5.0 and abs(x.mean() - 2.0) < 6 * 5.0 / math.sqrt(N)


def test_noisy_max_is_permute_and_flip():
    a = odp.NoisyMax(epsilon=1.0)
    assert a.maximise is True
    x = a.sample(np.array([0.0, 1.0]), N)
    assert x.shape == (N,) and x.dtype == np.int64 and set(np.unique(x)) <= {0, 1}
    # exponential noise of scale 2: P[1] = 1 - exp(-1/2)/2 (Gumbel noise would give 0.62)
    p = 1 - math.exp(-0.5) / 2
    assert abs(x.mean() - p) < 6 * math.sqrt(p * (1 - p) / N)
    assert a.sample([3.0, 1.0, 2.0, 0.0], 50).max() < 4


def test_randomized_response():
    a = odp.RandomizedResponseBool(epsilon=1.0)
    keep = math.e / (1 + math.e)
    for bit in (0, 1):
        x = a.sample(bit, N)
        assert x.dtype == np.int64 and set(np.unique(x)) <= {0, 1}
        assert abs(np.mean(x == bit) - keep) < 6 * math.sqrt(keep * (1 - keep) / N)
    with pytest.raises(ValueError):
        a.sample(2, 1)


def test_clamped_sum_pipeline():
    a = odp.ClampedSum(epsilon=1.0, domain=(0.0, 1.0))
    assert a.family == "dataset" and a.neighbours == "add_remove" and a.epsilon <= 1.0
    data = np.array([0.5] * 9 + [7.0])  # clamped: sum 5.5
    x = a.sample(data, 2000)
    assert x.shape == (2000,) and x.dtype == np.float64 and not np.isnan(x).any()
    assert abs(x.mean() - 5.5) < 6 * 1.5 / math.sqrt(2000)
    assert a.sample(np.array([]), 3).shape == (3,)


def test_adapters_pickle_without_their_measurement():
    a = odp.Laplace()
    a.sample(0.0, 1)
    b = pickle.loads(pickle.dumps(a))
    assert b.sample(0.0, 5).shape == (5,)
