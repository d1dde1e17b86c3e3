"""Chi-square tests of the exact discrete Laplace / geometric samplers against their exact pmfs.

Each test runs at a fixed seed and requires p > 1e-4, so for a correct sampler the probability
that a randomly chosen seed would fail is 1e-4 (the fixed seed makes the outcome deterministic).
The "power" twins run the same test with the scale (or p) off by 10 % and must be rejected.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from reference_mechanisms.discrete_laplace import (
    discrete_laplace_pmf,
    geometric_exp_pmf,
    sample_discrete_laplace,
    sample_geometric,
    sample_geometric_exp,
)
from reference_mechanisms.gof import chisquare_integer

ALPHA = 1e-4
N = 200_000


@pytest.mark.parametrize("scale", [Fraction(1, 3), Fraction(1), Fraction(7, 2), Fraction(20)])
def test_discrete_laplace_matches_pmf(scale: Fraction) -> None:
    x = sample_discrete_laplace(scale, N, np.random.default_rng(2024))
    w = int(60 * scale) + 5
    res = chisquare_integer(x, lambda k: discrete_laplace_pmf(k, scale), (-w, w))
    assert res.bins >= 3
    assert res.pvalue > ALPHA, res


@pytest.mark.parametrize("scale", [Fraction(1), Fraction(7, 2), Fraction(20)])
def test_discrete_laplace_wrong_scale_is_rejected(scale: Fraction) -> None:
    x = sample_discrete_laplace(scale * Fraction(11, 10), N, np.random.default_rng(2024))
    w = int(70 * scale) + 5
    res = chisquare_integer(x, lambda k: discrete_laplace_pmf(k, scale), (-w, w))
    assert res.pvalue < ALPHA, res


def test_geometric_exp_matches_pmf_and_has_power() -> None:
    x = sample_geometric_exp(Fraction(2, 5), N, np.random.default_rng(7))
    good = chisquare_integer(x, lambda k: geometric_exp_pmf(k, Fraction(2, 5)), (0, 150))
    bad = chisquare_integer(
        x, lambda k: geometric_exp_pmf(k, Fraction(2, 5) * Fraction(11, 10)), (0, 150)
    )
    assert good.pvalue > ALPHA, good
    assert bad.pvalue < ALPHA, bad


def test_geometric_rational_p_matches_pmf_and_has_power() -> None:
    p = Fraction(1, 5)
    x = sample_geometric(p, N, np.random.default_rng(8))

    def pmf(q):
        return lambda k: float(q * (1 - q) ** k)

    assert chisquare_integer(x, pmf(p), (0, 200)).pvalue > ALPHA
    assert chisquare_integer(x, pmf(p * Fraction(11, 10)), (0, 200)).pvalue < ALPHA
