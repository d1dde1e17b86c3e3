from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

from reference_mechanisms.snapping import (
    ETA,
    sample_snapping,
    sample_uniform_double,
    snapping_parameters,
)


@pytest.mark.parametrize(
    ("eps", "bound", "sens"), [(1.0, 64.0, 1.0), (0.5, 1000.0, 3.0), (2.0, 10.0, 0.1)]
)
def test_parameters_keep_the_claim(eps, bound, sens) -> None:
    p = snapping_parameters(eps, bound, sens)
    # Mironov: epsilon_actual = (1 + 12 B eta)/lambda + 2 eta must not exceed the claim (exactly)
    actual = (1 + 12 * Fraction(p.B) * ETA) / Fraction(p.lam) + 2 * ETA
    assert actual <= Fraction(eps)
    m, _ = math.frexp(p.Lambda)
    assert m == 0.5 and p.lam <= p.Lambda < 2 * p.lam
    m, _ = math.frexp(p.D)
    assert m == 0.5 and sens <= p.D < 2 * sens


def test_outputs_on_lattice_and_clamped() -> None:
    p = snapping_parameters(1.0, 16.0, 1.0)
    g = np.random.default_rng(0)
    y = sample_snapping(3.3, p, 20_000, g)
    assert y.dtype == np.float64 and y.shape == (20_000,)
    inside = np.abs(y) < 16.0
    assert np.all(y[inside] / p.Lambda == np.round(y[inside] / p.Lambda))
    assert np.all(np.abs(y) <= 16.0)
    # query beyond the bound is clamped first
    assert np.all(sample_snapping(1e9, p, 100, g) <= 16.0)


def test_scaled_sensitivity_outputs_scale_back() -> None:
    p = snapping_parameters(1.0, 300.0, 3.0)
    y = sample_snapping(0.0, p, 1000, np.random.default_rng(1))
    assert np.all(y / (p.Lambda * p.D) == np.round(y / (p.Lambda * p.D)))


def test_uniform_double_exponent_and_mantissa() -> None:
    u = sample_uniform_double(200_000, np.random.default_rng(2))
    assert np.all((u > 0) & (u < 1))
    # P[u < 2^-j] = 2^-j exactly for the ulp-weighted uniform; binomial tests, P[fail] <= 3e-4
    for j in (1, 3, 8):
        k = int((u < 2.0**-j).sum())
        assert stats.binomtest(k, u.size, 2.0**-j).pvalue > 1e-4
    # low mantissa bit is a fair coin (the draw really has 52 random mantissa bits)
    lsb = (np.frexp(u)[0] * 2.0**53).astype(np.int64) & 1
    assert stats.binomtest(int(lsb.sum()), u.size, 0.5).pvalue > 1e-4


@pytest.mark.parametrize("eps", [0.0, -1.0, float("nan"), float("inf"), 2.0**-53])
def test_bad_epsilon(eps) -> None:
    with pytest.raises(ValueError, match="epsilon="):
        snapping_parameters(eps, 100.0)


@pytest.mark.parametrize("bound", [0.0, -1.0, float("nan"), float("inf"), 0.5, 1e20])
def test_bad_bound(bound) -> None:
    with pytest.raises(ValueError, match="bound="):
        snapping_parameters(1.0, bound)


def test_bad_query_and_sensitivity() -> None:
    p = snapping_parameters(1.0, 100.0)
    with pytest.raises(ValueError, match="x="):
        sample_snapping(float("nan"), p, 3, np.random.default_rng(0))
    with pytest.raises(ValueError, match="sensitivity="):
        snapping_parameters(1.0, 100.0, 0.0)
