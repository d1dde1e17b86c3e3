from __future__ import annotations

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
