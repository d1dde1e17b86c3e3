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

from auditor.core.spec import check_adapter

pytest.importorskip("opendp")

from auditor.adapters import opendp_adapters as odp  # noqa: E402

N = 4000


def _check_additive(adapter, query, sd, dtype=np.float64, n=N):
    x = adapter.sample(query, n)
    assert_additive(x, n, query, sd, dtype=dtype)
    return x


def test_provenance_and_names():
    from importlib.metadata import version

    adapters = odp.builtin_adapters() + odp.vector_adapters()
    names = [a.name for a in adapters]
    assert len(set(names)) == len(names) and all(n.startswith("opendp.") for n in names)
    for a in adapters:
        assert a.library == "opendp" and a.library_version == version("opendp")
        assert not hasattr(a, "seed")  # OpenDP offers no seed: none is pretended
        assert a.description
        spec = check_adapter(a)  # a family, or input and output kinds
        if hasattr(a, "claim"):  # the promise in the library's own measure (zCDP)
            assert spec.claim.kind == "zcdp" and spec.claim.value == pytest.approx(0.5, rel=1e-6)
        else:
            assert a.epsilon == pytest.approx(1.0, rel=1e-6)


def test_gaussian_is_audited_in_zcdp_and_passes():
    """OpenDP's Gaussian against rho-zCDP, the measure OpenDP states it in."""
    from attacks import load_attacks
    from auditor.core.configs import AuditConfig
    from auditor.core.results import Verdict
    from auditor.engine.runner import run_audit

    a = odp.GaussianZCDP()
    (result,) = run_audit([a], load_attacks(None), AuditConfig(budget=20_000)).results
    assert result.verdict is Verdict.NO_VIOLATION, result.to_dict()
    assert result.to_dict()["claim"]["kind"] == "zcdp"


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


def test_the_clamped_sum_drawn_at_once_has_the_law_of_the_pipeline_called_per_output():
    """``sample`` draws the sum once and the Laplace step on n copies; the pipeline called
    once per output must give the same law (OpenDP cannot be seeded: two-sample tests, at a
    level that fails a correct implementation about once in 10^6 runs)."""
    from scipy import stats

    a = odp.ClampedSum(epsilon=1.0, domain=(0.0, 1.0))
    data = np.array([0.3, 0.7, 1.0, 0.0, 0.55, 4.0])  # clamped: sum 3.55
    at_once, per_call = a.sample(data, 20_000), a.sample_per_call(data, 20_000)
    assert stats.ks_2samp(at_once, per_call).pvalue > 1e-6
    edges = np.quantile(per_call, np.linspace(0, 1, 21))
    table = [np.histogram(x, edges)[0] for x in (at_once, per_call)]
    assert stats.chi2_contingency(np.array(table))[1] > 1e-6
    # the same test sees a sum off by a tenth of the scale
    assert stats.ks_2samp(at_once + 0.1, per_call).pvalue < 1e-6
    assert a.sample(data, 0).shape == (0,)


def test_the_per_user_clamped_sum_is_calibrated_at_d_in_k_and_declares_it():
    """OpenDP's symmetric distance d_in = 3 (one user's up to 3 records): its scale is three
    times the one-record scale at the same epsilon, and the adapter says so to the harness."""
    one, user = odp.ClampedSum(), odp.ClampedSum(max_contributions=3)
    assert user.epsilon <= 1.0 and user.max_contributions == 3
    assert user._calibrated_scale() == pytest.approx(3 * one._calibrated_scale(), rel=1e-6)
    spec = check_adapter(user)
    assert spec.max_contributions == 3 and user.name == "opendp.clamped_sum(max_contributions=3)"
    assert user.with_parameters(epsilon=0.5, domain=(0.0, 1.0)).max_contributions == 3
    with pytest.raises(ValueError, match="max_contributions"):
        odp.ClampedSum(max_contributions=0)


def test_adapters_pickle_without_their_measurement():
    a = odp.Laplace()
    a.sample(0.0, 1)
    b = pickle.loads(pickle.dumps(a))
    assert b.sample(0.0, 5).shape == (5,)


# --- vector releases: the kinds contract --------------------------------------------------


def _draw(adapter, query, n):
    from auditor.engine.sampling import draw

    return draw(check_adapter(adapter), query, n, 0)


def test_vector_laplace_tiles_the_releases():
    a = odp.VectorLaplace(epsilon=1.0, d=5)
    spec = check_adapter(a)
    assert spec.kind_label == "vector(l1) → real[query]" and spec.vectorised
    assert spec.input.length == 5 and a.epsilon == 1.0
    q = np.array([0.0, 1.0, -2.0, 3.5, 10.0])
    x = _draw(a, q, N)
    assert x.shape == (N, 5) and x.dtype == np.float64
    assert np.all(np.abs(x.mean(axis=0) - q) < 6 * math.sqrt(2) / math.sqrt(N))
    assert np.all(np.abs(x.std(axis=0) / math.sqrt(2) - 1) < 0.2)
    assert abs(np.corrcoef(x[:, 0], x[:, 1])[0, 1]) < 6 / math.sqrt(N)  # independent entries
    assert a.sample(q, 0).shape == (0, 5)


def test_vector_gaussian_claim_and_scale():
    a = odp.VectorGaussian(epsilon=1.0, delta=1e-6, d=3)
    spec = check_adapter(a)
    assert spec.kind_label == "vector(l2) → real[query]"
    assert a.epsilon <= 1.0 + 1e-9 and a.delta == pytest.approx(1e-6)
    x = _draw(a, np.zeros(3), N)
    assert np.all((x.std(axis=0) > 4.0) & (x.std(axis=0) < 5.0))  # as the scalar Gaussian


def test_count_by_categories_with_a_null_category():
    a = odp.CountByCategories(epsilon=1.0, categories=4)
    spec = check_adapter(a)
    assert spec.kind_label == "dataset → integer[5]" and a.domain == (0, 4)
    assert a.neighbours == "add_remove" and a.epsilon == pytest.approx(1.0)
    data = np.array([0, 0, 1, 2, 2, 2, 4, 4])  # 4: in no category, counted in the null one
    x = _draw(a, data, N)
    assert x.shape == (N, 5) and x.dtype == np.int64
    sd = math.sqrt(2 * math.exp(-1)) / (1 - math.exp(-1))
    assert np.all(np.abs(x.mean(axis=0) - [2, 1, 3, 0, 2]) < 6 * sd / math.sqrt(N))


def test_noisy_top_k_distinct_ranked_indices():
    a = odp.NoisyTopK(epsilon=1.0, k=3)
    spec = check_adapter(a)
    assert spec.kind_label == "vector(linf) → index_set[3]" and spec.output.ordered
    u = np.array([0.0, 0.0, 300.0, 200.0, 100.0, 0.0])
    x = _draw(a, u, 2000)
    assert x.shape == (2000, 3)
    assert all(len(set(row)) == 3 for row in x.tolist())
    assert np.mean(np.all(x == [2, 3, 4], axis=1)) > 0.99  # gaps of 100 >> the noise (scale 6)


def test_monotonic_noisy_top_k_is_declared_monotone_with_openDPs_halved_loss():
    """OpenDP charges half the loss for monotonic scores: at the same ε, half the scale."""
    a, b = odp.NoisyTopKMonotonic(epsilon=1.0, k=3), odp.NoisyTopK(epsilon=1.0, k=3)
    spec = check_adapter(a)
    assert spec.kind_label == "vector(linf, monotone) → index_set[3]"
    assert a.epsilon == pytest.approx(1.0) and b.epsilon == pytest.approx(1.0)
    assert a._calibrated_scale() == pytest.approx(b._calibrated_scale() / 2)
    assert "monotonic=True" in a.reproducer_source()
    assert "monotonic=False" in b.reproducer_source()


def test_private_quantile_returns_candidates():
    a = odp.PrivateQuantile(epsilon=1.0, alpha=0.5, domain=(0.0, 100.0), candidates=21)
    spec = check_adapter(a)
    assert spec.family is not None and spec.family.value == "dataset"
    x = _draw(a, np.arange(101.0), 2000)
    assert set(np.unique(x)) <= set(a.candidates)
    assert np.mean(np.abs(x - 50) <= 10) > 0.9


def test_randomized_response_bitvec_flips_each_bit():
    a = odp.RandomizedResponseBitvec(m=8)
    spec = check_adapter(a)
    assert spec.kind_label == "local → boolean[8]" and a.domain == (0, 7)
    assert a.epsilon == pytest.approx(2 * math.log((2 - a.f) / a.f))
    x = _draw(a, 3, N)
    assert x.shape == (N, 8) and x.dtype == np.int8
    p = np.full(8, a.f / 2)
    p[3] = 1 - a.f / 2
    assert np.all(np.abs(x.mean(axis=0) - p) < 6 * np.sqrt(p * (1 - p) / N))
    with pytest.raises(ValueError):
        a.sample(8, 1)


def test_vector_adapters_pickle_without_their_measurement():
    for a in (odp.VectorLaplace(), odp.NoisyTopK(), odp.CountByCategories()):
        b = pickle.loads(pickle.dumps(a))
        assert b._measurement_cache is None and b.name == a.name


def test_repeated_invocation_converts_the_argument_once_and_keeps_the_law():
    """``invoke_many`` calls OpenDP's own invoke with the argument converted once: the same
    law as the public call, for a selection and a randomized response (two-sample tests at a
    level a correct implementation fails about once in 10^6 runs), and the fallback path
    (any layout without the private converters) is the public call itself."""
    from scipy import stats

    noisy_max = odp.NoisyMax(epsilon=1.0)
    scores = [0.0, 1.0, 0.5, 2.0]
    fast = np.fromiter(odp.invoke_many(noisy_max._measurement, scores, 20_000), np.int64)
    public = np.array([noisy_max._measurement(scores) for _ in range(20_000)])
    table = [np.bincount(x, minlength=4) for x in (fast, public)]
    assert stats.chi2_contingency(np.array(table))[1] > 1e-6
    assert table[0][3] > table[0][1] > table[0][0]  # the law responds to the scores
    rr = odp.RandomizedResponseBool(epsilon=1.0)
    bits = np.fromiter(odp.invoke_many(rr._measurement, True, 20_000), bool)
    keep = math.e / (1 + math.e)
    assert abs(bits.mean() - keep) < 6 * math.sqrt(keep * (1 - keep) / 20_000)


def test_repeated_invocation_falls_back_to_the_public_call(monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "opendp._convert", None)  # an import of it fails
    calls = []

    class Counting:
        def __call__(self, arg):
            calls.append(arg)
            return 7

    assert list(odp.invoke_many(Counting(), [1.0], 3)) == [7, 7, 7] and len(calls) == 3
