from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from auditor.adapters.reference import DiscreteLaplaceAdapter, builtin_adapters


def test_builtin_list_has_discrete_laplace() -> None:
    adapters = builtin_adapters()
    names = [a.name for a in adapters]
    assert "reference.discrete_laplace" in names
    assert len(set(names)) == len(names)
    assert all(n.startswith("reference.") for n in names)


def test_discrete_laplace_adapter_contract() -> None:
    a = DiscreteLaplaceAdapter(epsilon=1.0)
    assert a.family == "additive" and a.integer_queries and a.delta == 0.0
    assert a.scale >= 1 / a.epsilon
    a.seed(1)
    x = a.sample(7, 50_000)
    assert x.shape == (50_000,) and x.dtype == np.int64
    # sd of the discrete Laplace at scale 1 is ~1.3; mean of 50k within 0.03 with P > 1 - 1e-10
    assert abs(x.mean() - 7) < 0.03
    a.seed(1)
    assert np.array_equal(a.sample(7.0, 50_000), x)


def test_epsilon_rounds_down_so_claim_holds() -> None:
    a = DiscreteLaplaceAdapter(epsilon=0.1, sensitivity=3)
    assert a.epsilon_rational <= 0.1
    assert a.scale >= 3 / 0.1


@pytest.mark.parametrize("eps", [0, -1, float("nan"), float("inf")])
def test_bad_epsilon(eps) -> None:
    with pytest.raises(ValueError, match="epsilon="):
        DiscreteLaplaceAdapter(epsilon=eps)


@pytest.mark.parametrize("sens", [0, -1, float("nan"), float("inf")])
def test_bad_sensitivity(sens) -> None:
    with pytest.raises(ValueError, match="sensitivity="):
        DiscreteLaplaceAdapter(epsilon=1, sensitivity=sens)


@pytest.mark.parametrize("q", [0.5, float("nan"), "x"])
def test_non_integer_query(q) -> None:
    with pytest.raises(ValueError, match="query="):
        DiscreteLaplaceAdapter().sample(q, 3)


# --- all reference adapters ---------------------------------------------------------------

from auditor.adapters.reference import (  # noqa: E402
    DiscreteGaussianAdapter,
    GaussianFloatAdapter,
    GeometricAdapter,
    LaplaceFloatAdapter,
    RandomizedResponseAdapter,
    SnappingAdapter,
)

_ADAPTERS = builtin_adapters()


@pytest.mark.parametrize("adapter", _ADAPTERS, ids=lambda a: a.name)
def test_contract_shape_dtype_mean_and_seed(adapter) -> None:
    assert adapter.name.startswith("reference.")
    assert adapter.family in ("additive", "binary")
    assert adapter.epsilon > 0 and 0 <= adapter.delta < 1
    n = 20_000
    if adapter.family == "binary":
        adapter.seed(5)
        x = adapter.sample(1, n)
        assert x.shape == (n,) and set(np.unique(x)) <= {0, 1}
        p = float(adapter.p)
        # binomial sd sqrt(p(1-p)/n) ~ 0.003: 0.02 is > 6 sd
        assert abs(x.mean() - p) < 0.02 and abs((1 - adapter.sample(0, n)).mean() - p) < 0.02
        return
    q = 7 if getattr(adapter, "integer_queries", False) else 7.25
    adapter.seed(5)
    x = adapter.sample(q, n)
    assert x.shape == (n,)
    assert x.dtype == (np.int64 if getattr(adapter, "integer_queries", False) else np.float64)
    # every noise here has sd <= 4; 20k draws: mean within 0.15 is > 5 sd (snapping adds a
    # rounding bias <= Lambda/2 = 1 at worst for the default parameters, so allow that)
    tol = 1.1 if isinstance(adapter, SnappingAdapter) else 0.15
    assert abs(x.mean() - q) < tol
    adapter.seed(5)
    assert np.array_equal(adapter.sample(q, n), x)
    assert adapter.sample(q, 0).shape == (0,)


@pytest.mark.parametrize(
    "make",
    [
        lambda e: GeometricAdapter(epsilon=e),
        lambda e: DiscreteGaussianAdapter(epsilon=e),
        lambda e: LaplaceFloatAdapter(epsilon=e),
        lambda e: GaussianFloatAdapter(epsilon=e),
        lambda e: SnappingAdapter(epsilon=e),
        lambda e: RandomizedResponseAdapter(epsilon=e),
    ],
)
@pytest.mark.parametrize("eps", [0.0, -1.0, float("nan"), float("inf")])
def test_bad_epsilon_everywhere(make, eps) -> None:
    with pytest.raises(ValueError, match="epsilon="):
        make(eps)


@pytest.mark.parametrize("cls", [DiscreteGaussianAdapter, GaussianFloatAdapter])
@pytest.mark.parametrize("delta", [0.0, 1.0, 1.5, -0.1, float("nan"), float("inf")])
def test_bad_delta(cls, delta) -> None:
    with pytest.raises(ValueError, match="delta="):
        cls(epsilon=1.0, delta=delta)


def test_claims_are_kept_by_construction() -> None:
    from reference_mechanisms.discrete_gaussian import discrete_gaussian_delta
    from reference_mechanisms.float_noise import gaussian_float_delta

    lap = LaplaceFloatAdapter(epsilon=0.3, sensitivity=2.5)
    assert lap.scale >= Fraction(2.5) / Fraction(0.3)
    dg = DiscreteGaussianAdapter(epsilon=0.5, delta=1e-6, sensitivity=2)
    assert discrete_gaussian_delta(0.5, dg.sigma2, 2) <= 1e-6
    assert dg.certified_delta() <= 1e-6
    ga = GaussianFloatAdapter(epsilon=0.5, delta=1e-6, sensitivity=0.01)
    assert gaussian_float_delta(0.5, ga.sigma2, 0.01, ga.k) <= 1e-6
    assert GeometricAdapter(epsilon=0.7, sensitivity=2).rate <= Fraction(0.7) / 2


@pytest.mark.parametrize("q", [float("nan"), float("inf"), "x", None])
def test_float_adapters_reject_bad_queries(q) -> None:
    for a in (LaplaceFloatAdapter(), SnappingAdapter()):
        with pytest.raises(ValueError, match="query="):
            a.sample(q, 3)


@pytest.mark.parametrize("q", [2, 0.5, -1, "a"])
def test_rr_rejects_non_bits(q) -> None:
    with pytest.raises(ValueError, match="query="):
        RandomizedResponseAdapter().sample(q, 3)


def test_bad_n() -> None:
    with pytest.raises(ValueError, match="n="):
        LaplaceFloatAdapter().sample(0.0, -1)


def test_registry_lists_the_reference_target() -> None:
    from auditor.adapters.builtin import BUILTIN_TARGETS

    assert ("auditor.adapters.reference:builtin_adapters", "dp-audit", None) in BUILTIN_TARGETS


@pytest.mark.parametrize("adapter", _ADAPTERS, ids=lambda a: a.name)
def test_project_conformance_check(adapter) -> None:
    from auditor.testing import check_adapter_conformance

    check_adapter_conformance(adapter)
