"""Chi-square tests of the base-2 exponential mechanism's samples against its exact pmf.

Each test uses a fixed seed and requires p > 1e-4, so for a correct sampler a randomly chosen
seed would fail with probability 1e-4 per test (the fixed seed makes the outcome deterministic).
The power twins compare the same kind of samples with the pmf of a mechanism whose epsilon is off
by ~20 % (or whose rounding is ignored) and must be rejected.
"""

from __future__ import annotations

import numpy as np
import pytest

from reference_mechanisms.base2_arithmetic import Eta
from reference_mechanisms.base2_exponential import Base2ExponentialMechanism
from reference_mechanisms.gof import chisquare_integer
from reference_mechanisms.normalized_sampling import LevelSampler, normalized_sample

ALPHA = 1e-4
N = 200_000


def _gof(x: np.ndarray, probs) -> float:
    p = np.array([float(v) for v in probs])
    return chisquare_integer(x, p, (0, p.size - 1)).pvalue


@pytest.mark.parametrize("convention", ["utility", "loss"])
def test_integer_utilities_match_exact_pmf(convention: str) -> None:
    m = Base2ExponentialMechanism(1.0, 1.0, (-20, 20), convention=convention)
    u = np.array([0, 1, 2, 2, 3, 5, -1, 8, 30])  # 30 clamps to 20
    x = m.sample(u, N, np.random.default_rng(11))
    assert _gof(x, m.probabilities(u)) > ALPHA


@pytest.mark.parametrize("convention", ["utility", "loss"])
def test_fractional_utilities_match_exact_mixture_pmf(convention: str) -> None:
    m = Base2ExponentialMechanism(1.5, 1.0, (-20, 20), convention=convention)
    u = np.array([0.5, 1.25, 2.0, 3.7, 0.1, -0.9, 2.5])
    x = m.sample(u, N, np.random.default_rng(12))
    assert _gof(x, m.probabilities(u)) > ALPHA


def test_power_wrong_epsilon_is_rejected() -> None:
    u = np.array([0, 1, 2, 2, 3, 5, -1, 8])
    m = Base2ExponentialMechanism(1.0, 1.0, (-20, 20))
    wrong = Base2ExponentialMechanism(1.2, 1.0, (-20, 20))
    x = m.sample(u, N, np.random.default_rng(13))
    assert _gof(x, wrong.probabilities(u)) < ALPHA


def test_power_ignoring_randomized_rounding_is_rejected() -> None:
    m = Base2ExponentialMechanism(1.5, 1.0, (-20, 20))
    u = np.array([0.5, 1.25, 2.0, 3.7])
    x = m.sample(u, N, np.random.default_rng(14))
    assert _gof(x, m.probabilities(np.floor(u + 0.5))) < ALPHA  # deterministic rounding


def test_refinement_path_is_exact() -> None:
    # precision=3 makes most draws ambiguous, exercising the exact refinement loop
    e = Eta(5, 3)
    levels = np.array([0, 0, 1, 2, 3, 5, 8, 13, 21, 40])
    s = LevelSampler(levels, e, precision=3)
    x = s.sample(20_000, np.random.default_rng(15))
    assert s.refinements > 500
    w = [e.base ** int(d) for d in levels]
    assert _gof(x, [v / sum(w) for v in w]) > ALPHA
    wrong = [Eta(9, 4).base ** int(d) for d in levels]
    assert _gof(x, [v / sum(wrong) for v in wrong]) < ALPHA


def test_literal_normalized_sample_matches_weights() -> None:
    rng = np.random.default_rng(16)
    w = [3, 0, 5, 1, 7]
    x = np.array([normalized_sample(w, rng) for _ in range(20_000)])
    assert (x == 1).sum() == 0
    p = [v / sum(w) for v in w]
    assert _gof(x, p) > ALPHA


def test_many_outcomes_top_levels_match() -> None:
    k = 3000
    m = Base2ExponentialMechanism(0.5, 1.0, (0, k - 1))
    u = np.arange(k, dtype=float)
    x = (k - 1) - m.sample(u, N, np.random.default_rng(17))  # distance from the top
    b = float(m.eta.base)
    # P[d] = b^d (1 - b) / (1 - b^k); b^k underflows to 0 in float, harmless here
    d = np.arange(k)
    p = (1 - b) * b**d
    res = chisquare_integer(x, p / p.sum(), (0, k - 1))
    assert res.pvalue > ALPHA
