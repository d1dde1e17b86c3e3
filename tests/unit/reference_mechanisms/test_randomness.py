from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from reference_mechanisms.randomness import SystemRandomness, randbelow, resolve_rng


def test_system_randomness_shapes_and_ranges() -> None:
    r = SystemRandomness()
    x = r.integers(0, 7, size=10_000)
    assert x.dtype == np.int64 and x.shape == (10_000,)
    assert x.min() >= 0 and x.max() <= 6
    y = r.integers(-3, np.array([1, 2, 3]))
    assert y.shape == (3,) and np.all(y >= -3) and np.all(y < np.array([1, 2, 3]))
    assert isinstance(r.integers(5), np.int64)
    big = r.integers(0, 2**62, size=1000)
    assert big.max() < 2**62 and big.max() > 2**58  # P[all below 2^58] = 2^-4000


def test_system_randomness_uniform() -> None:
    # chi-square on 6 cells, 60k draws: P[p < 1e-6] = 1e-6 for a correct sampler (CSPRNG, not seeded).
    x = SystemRandomness().integers(0, 6, size=60_000)
    assert stats.chisquare(np.bincount(x, minlength=6)).pvalue > 1e-6


def test_system_randomness_rejects_empty_range() -> None:
    with pytest.raises(ValueError, match="high"):
        SystemRandomness().integers(3, 3, size=2)


def test_randbelow_big_is_in_range_and_spread() -> None:
    g = np.random.default_rng(1)
    n = 3 * 2**100 + 1
    vals = [randbelow(g, n) for _ in range(2000)]
    assert all(0 <= v < n for v in vals)
    # top third occupied about 1/3 of the time; binomial(2000, 1/3) outside [550, 790] has P < 1e-8
    top = sum(v >= 2 * 2**100 for v in vals)
    assert 550 < top < 790
    assert randbelow(g, 1) == 0
    with pytest.raises(ValueError):
        randbelow(g, 0)


def test_resolve_rng() -> None:
    assert isinstance(resolve_rng(None), SystemRandomness)
    g = np.random.default_rng(0)
    assert resolve_rng(g) is g
    with pytest.raises(ValueError, match="rng"):
        resolve_rng(object())
