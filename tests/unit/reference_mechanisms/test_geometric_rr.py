from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from reference_mechanisms.geometric_rr import (
    rr_probability,
    sample_randomized_response,
    sample_two_sided_geometric,
    sample_two_sided_geometric_exp,
    two_sided_geometric_pmf,
)


@pytest.mark.parametrize("eps", [1e-6, 0.1, 1.0, 3.0, 20.0])
def test_rr_probability_certified_and_tight(eps) -> None:
    p = rr_probability(eps)
    assert Fraction(1, 2) <= p < 1
    assert math.log(float(p) / (1 - float(p))) <= eps * (1 + 1e-9)
    target = math.exp(eps) / (1 + math.exp(eps))
    assert target - float(p) <= 2.0**-39


def test_rr_outputs() -> None:
    g = np.random.default_rng(0)
    x = sample_randomized_response(1, Fraction(3, 4), 1000, g)
    assert x.dtype == np.int64 and set(np.unique(x)) <= {0, 1}
    assert np.all(sample_randomized_response(0, 1, 50, g) == 0)
    assert np.all(sample_randomized_response(True, 1, 50, g) == 1)


@pytest.mark.parametrize("bad", [2, -1, 0.5, "1", None])
def test_rr_bad_bit(bad) -> None:
    with pytest.raises(ValueError, match="bit="):
        sample_randomized_response(bad, Fraction(3, 4), 3, np.random.default_rng(0))


@pytest.mark.parametrize("bad", [Fraction(1, 3), 1.5, float("nan")])
def test_rr_bad_p(bad) -> None:
    with pytest.raises(ValueError, match="p="):
        sample_randomized_response(1, bad, 3, np.random.default_rng(0))


@pytest.mark.parametrize("bad", [0.0, -1.0, float("nan"), float("inf")])
def test_rr_bad_epsilon(bad) -> None:
    with pytest.raises(ValueError, match="epsilon="):
        rr_probability(bad)


def test_two_sided_geometric_shapes_and_pmf() -> None:
    g = np.random.default_rng(0)
    assert sample_two_sided_geometric(Fraction(1, 2), 100, g).dtype == np.int64
    assert sample_two_sided_geometric_exp(Fraction(1, 3), 100, g).shape == (100,)
    total = sum(float(two_sided_geometric_pmf(z, Fraction(1, 2))) for z in range(-200, 201))
    assert abs(total - 1) < 1e-12


@pytest.mark.parametrize("bad", [0, 1, 1.5, float("nan")])
def test_two_sided_geometric_bad_alpha(bad) -> None:
    with pytest.raises(ValueError, match="alpha="):
        sample_two_sided_geometric(bad, 3, np.random.default_rng(0))
