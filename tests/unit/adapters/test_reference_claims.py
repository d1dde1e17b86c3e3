"""The reference adapters' privacy claims as properties (hypothesis), checked exactly.

For each adapter the worst-case privacy loss is a closed form of its exact parameters; these
tests check, over random parameters and neighbouring queries, that it never exceeds the claim.
"""

from __future__ import annotations

import math
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from auditor.adapters.reference import (
    DiscreteLaplaceAdapter,
    GeometricAdapter,
    LaplaceFloatAdapter,
    RandomizedResponseAdapter,
)
from reference_mechanisms.float_noise import round_to_grid

eps_st = st.floats(min_value=1e-3, max_value=20.0, allow_nan=False)
sens_st = st.floats(min_value=1e-6, max_value=1e6, allow_nan=False)
query_st = st.floats(min_value=-1e9, max_value=1e9, allow_nan=False)


@given(eps_st, sens_st, query_st, st.sampled_from([1.0, -1.0]) | st.floats(-1.0, 1.0))
@settings(max_examples=200, deadline=None)
def test_float_laplace_loss_within_claim(eps, sens, x, frac) -> None:
    # neighbour x' = x + frac * sens (|x - x'| <= sens, up to the float rounding of x')
    a = LaplaceFloatAdapter(epsilon=eps, sensitivity=sens)
    xp = x + frac * sens
    if abs(Fraction(xp) - Fraction(x)) > Fraction(sens):
        return
    shift = abs(round_to_grid(x, a.k) - round_to_grid(xp, a.k))
    # max_y log P[y|x]/P[y|x'] = shift / scale_int, scale_int = scale 2^-k
    loss = shift / (a.scale / Fraction(2) ** a.k)
    assert loss <= Fraction(eps)


@given(eps_st, st.integers(1, 1000))
@settings(max_examples=100, deadline=None)
def test_integer_laplace_and_geometric_loss_within_claim(eps, sens) -> None:
    assert Fraction(sens) / DiscreteLaplaceAdapter(epsilon=eps, sensitivity=sens).scale <= Fraction(
        eps
    )
    assert sens * GeometricAdapter(epsilon=eps, sensitivity=sens).rate <= Fraction(eps)


@given(eps_st)
@settings(max_examples=100, deadline=None)
def test_randomized_response_ratio_within_claim(eps) -> None:
    p = RandomizedResponseAdapter(epsilon=eps).p
    # exact rational ratio vs e^eps (float e^eps has relative error 1e-16; margin covers it)
    assert float(p / (1 - p)) <= math.exp(eps) * (1 + 1e-12)


def test_reference_gaussians_declare_their_exact_zcdp_curve() -> None:
    # rho = sensitivity^2 / (2 sigma^2) (CKS20 Thm 4), rounded up, for the integer and the grid
    # versions; checked against the Renyi divergence of the discrete Gaussian pair at order 2
    import math
    from fractions import Fraction

    from auditor.adapters.reference import (
        DiscreteGaussianAdapter,
        GaussianFloatAdapter,
        builtin_adapters,
    )
    from auditor.core.claim_kinds import ZeroConcentratedDP

    discrete = DiscreteGaussianAdapter(epsilon=1.0, delta=1e-5, sensitivity=2)
    rho = discrete.zcdp().rho
    exact = Fraction(4) / (2 * discrete.sigma2)
    assert rho >= exact and rho - float(exact) <= 1e-15
    s2 = float(discrete.sigma2)
    support = range(-int(40 * math.sqrt(s2)), int(40 * math.sqrt(s2)))
    z = sum(math.exp(-(k * k) / (2 * s2)) for k in support)
    # D_2(N_Z(0, s2) || N_Z(2, s2)) = ln sum p(k)^2 / q(k), which is 2 rho for the discrete pair
    d2 = math.log(sum(math.exp(-(2 * k * k - (k - 2) ** 2) / (2 * s2)) for k in support) / z)
    assert d2 / 2 == pytest.approx(rho, rel=1e-9)

    grid = GaussianFloatAdapter(epsilon=1.0, delta=1e-5, sensitivity=1.0)
    assert grid.zcdp().rho >= 1.0 / (2 * float(grid.sigma2))  # the grid can only add
    names = {a.name: a for a in builtin_adapters()}
    for name in ("reference.discrete_gaussian.zcdp", "reference.gaussian.zcdp"):
        assert isinstance(names[name].claim, ZeroConcentratedDP)
