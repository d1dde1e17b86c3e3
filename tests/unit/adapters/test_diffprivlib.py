"""diffprivlib adapters: output contract, calibration, seeding (skipped without diffprivlib).

Fixed seeds; every statistical bound is ≥ 6 standard errors wide (false failure < 1e-8 per check
for a correct adapter, and deterministic under the seed).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from adapter_checks import assert_additive

from auditor.core.spec import check_adapter

pytest.importorskip("diffprivlib")

from auditor.adapters import diffprivlib_adapters as dpl  # noqa: E402

N = 4000


def _seeded(adapter, entropy=2024):
    adapter.seed(entropy)
    return adapter


def _check_additive(adapter, query, sd, dtype=np.float64, n=N):
    x = _seeded(adapter).sample(query, n)
    assert_additive(x, n, query, sd, dtype=dtype)
    return x


def test_provenance_and_names():
    adapters = dpl.builtin_adapters() + dpl.vector_adapters()
    names = [a.name for a in adapters]
    assert len(set(names)) == len(names) and all(n.startswith("diffprivlib.") for n in names)
    import diffprivlib

    for a in adapters:
        assert a.library == "diffprivlib" and a.library_version == diffprivlib.__version__
        assert a.vectorised is False and a.description
        check_adapter(a)  # a family, or input and output kinds


def test_laplace():
    _check_additive(dpl.Laplace(epsilon=1.0, sensitivity=2.0), 3.0, math.sqrt(2) * 2.0)


def test_laplace_wrong_scale_would_fail():
    with pytest.raises(AssertionError):
        _check_additive(dpl.Laplace(epsilon=0.5), 0.0, math.sqrt(2))


def test_laplace_truncated_stays_in_bounds():
    x = _check_additive(dpl.LaplaceTruncated(bounds=(-10.0, 10.0)), 0.0, math.sqrt(2))
    assert x.min() >= -10.0 and x.max() <= 10.0


def test_laplace_bounded_domain_stays_in_bounds():
    x = _seeded(dpl.LaplaceBoundedDomain(bounds=(-3.0, 3.0))).sample(1.0, N)
    assert x.shape == (N,) and x.min() >= -3.0 and x.max() <= 3.0
    assert 0.0 < x.mean() < 1.0  # pulled toward the centre of the domain


def test_geometric_integer_outputs_and_integer_queries_only():
    a = dpl.Geometric(epsilon=1.0)
    assert a.integer_queries is True
    p = math.exp(-1.0)
    _check_additive(a, 4, math.sqrt(2 * p) / (1 - p), dtype=np.int64)
    with pytest.raises(ValueError, match="query"):
        a.sample(0.5, 1)


def test_gaussian_classic_and_analytic():
    sigma = math.sqrt(2 * math.log(1.25 / 1e-5)) / 0.5
    _check_additive(dpl.Gaussian(epsilon=0.5, delta=1e-5), -2.0, sigma)
    a = dpl.GaussianAnalytic(epsilon=1.0, delta=1e-5)
    assert (a.epsilon, a.delta) == (1.0, 1e-5)
    x = _seeded(a).sample(1.0, N)
    assert x.shape == (N,) and abs(x.mean() - 1.0) < 6 * x.std() / math.sqrt(N)
    assert 2.0 < x.std() < sigma / 2  # analytic calibration is tighter than the classic one


def test_snapping_outputs_on_a_power_of_two_grid():
    a = dpl.Snapping(epsilon=1.0, bounds=(-10.0, 10.0))
    x = _seeded(a).sample(0.0, N)
    assert x.shape == (N,) and x.min() >= -10.0 and x.max() <= 10.0
    assert abs(x.mean()) < 6 * 1.5 / math.sqrt(N)
    assert "crlibm" in a.description
    # Lambda = smallest power of two >= 1/epsilon', and epsilon' is just below 1: Lambda = 2
    assert np.all(np.mod(x, 2.0) == 0.0)


def test_exponential_prefers_high_utility_and_reports_probabilities():
    a = _seeded(dpl.Exponential(epsilon=1.0))
    u = np.array([0.0, 1.0, 2.0])
    exact = np.exp(0.5 * u) / np.exp(0.5 * u).sum()
    np.testing.assert_allclose(a.probabilities(u), exact, rtol=1e-12)
    x = a.sample(u, N)
    assert x.shape == (N,) and x.dtype == np.int64 and x.min() >= 0 and x.max() < 3
    freq = np.bincount(x, minlength=3) / N
    assert np.all(np.abs(freq - exact) < 6 * np.sqrt(exact * (1 - exact) / N))


def test_binary_randomized_response():
    a = _seeded(dpl.Binary(epsilon=1.0))
    keep = math.e / (1 + math.e)
    for bit in (0, 1):
        x = a.sample(bit, N)
        assert x.dtype == np.int64 and set(np.unique(x)) <= {0, 1}
        assert abs(np.mean(x == bit) - keep) < 6 * math.sqrt(keep * (1 - keep) / N)
    with pytest.raises(ValueError):
        a.sample(2, 1)


@pytest.mark.parametrize(
    ("adapter", "truth", "sd"),
    [
        (dpl.ToolsSum(epsilon=1.0, domain=(0.0, 1.0)), 5.5, math.sqrt(2)),
        (dpl.ToolsMean(epsilon=1.0, domain=(0.0, 1.0)), 0.55, math.sqrt(2) / 10),
    ],
    ids=["sum", "mean"],
)
def test_dataset_tools(adapter, truth, sd):
    assert adapter.family == "dataset" and adapter.neighbours == "replace"
    data = np.array([0.5] * 9 + [7.0])  # the outlier is clipped to 1.0: sum 5.5, mean 0.55
    x = _seeded(adapter).sample(data, 1000)
    assert x.shape == (1000,) and x.dtype == np.float64 and not np.isnan(x).any()
    assert abs(x.mean() - truth) < 6 * sd / math.sqrt(1000)


def test_seed_reproduces_and_differs():
    for a in (dpl.Laplace(), dpl.Exponential(), dpl.ToolsSum()):
        q = {"additive": 0.0, "selection": [0.0, 1.0, 2.0, 3.0], "dataset": np.zeros(3)}[a.family]
        a.seed(99)
        first = a.sample(q, 20)
        a.seed(99)
        np.testing.assert_array_equal(first, a.sample(q, 20))
        a.seed(100)
        assert not np.array_equal(first, a.sample(q, 20))


# --- vector releases: histograms and quantiles (the kinds contract) -------------------------

M = 2000


def _draw(adapter, query, n=M, entropy=7):
    """``n`` canonical outputs through the engine (the output contract is checked there)."""
    from auditor.engine.sampling import draw

    return draw(check_adapter(adapter), query, n, entropy)


def test_histogram_counts_per_bin():
    a = dpl.ToolsHistogram(epsilon=1.0, bins=5, domain=(0.0, 5.0))
    spec = check_adapter(a)
    assert spec.kind_label == "dataset → integer[5]" and a.neighbours == "add_remove"
    assert (spec.claim.epsilon, spec.claim.delta) == (1.0, 0.0)
    data = np.repeat([0.5, 1.5, 2.5, 3.5, 5.0], [6, 8, 10, 12, 7])  # 5.0: the closed last bin
    x = _draw(a, data)
    assert x.shape == (M, 5) and x.dtype == np.int64 and x.min() >= 0  # truncated at 0
    sd = math.sqrt(2 * math.exp(-1)) / (1 - math.exp(-1))  # two-sided geometric, epsilon 1
    assert np.all(np.abs(x.mean(axis=0) - [6, 8, 10, 12, 7]) < 6 * sd / math.sqrt(M))


def test_histogramdd_flattens_in_c_order():
    a = dpl.ToolsHistogramdd(epsilon=1.0, bins=(2, 3), domain=((0.0, 1.0), (0.0, 3.0)))
    spec = check_adapter(a)
    assert spec.kind_label == "dataset(2 columns) → integer[6]"
    data = np.array([[0.75, 0.5]] * 9 + [[0.25, 2.5]] * 6)  # cells (1, 0) and (0, 2)
    x = _draw(a, data)
    assert x.shape == (M, 6)
    expected = np.array([0, 0, 6, 9, 0, 0])
    busy = expected > 0
    assert np.all(np.abs(x.mean(axis=0)[busy] - expected[busy]) < 0.2)
    with pytest.raises(ValueError, match="shape"):
        a.sample(np.zeros(4), 1)


def test_quantiles_percentile_and_median():
    data = np.arange(101.0)  # uniform on the domain: the q-quantile is 100 q
    q = dpl.ToolsQuantile(epsilon=1.0, quantiles=(0.25, 0.5, 0.75), domain=(0.0, 100.0))
    assert check_adapter(q).kind_label == "dataset → real[3]"
    x = _draw(q, data)
    assert x.shape == (M, 3) and x.min() >= 0 and x.max() <= 100
    assert np.all(np.abs(x.mean(axis=0) - [25, 50, 75]) < 1.5)  # sd ~ 8.5 per column
    for adapter, centre in ((dpl.ToolsPercentile(percent=90.0), 90), (dpl.ToolsMedian(), 50)):
        spec = check_adapter(adapter)
        assert spec.family is not None and spec.family.value == "dataset"
        y = _draw(adapter, data)
        assert y.shape == (M,) and np.mean(np.abs(y - centre) < 10) > 0.95


def test_vector_tools_seed_reproduces():
    for a in (dpl.ToolsHistogram(), dpl.ToolsQuantile()):
        a.seed(5)
        first = a.sample(np.linspace(0, 9, 10), 30)
        a.seed(5)
        np.testing.assert_array_equal(first, a.sample(np.linspace(0, 9, 10), 30))
