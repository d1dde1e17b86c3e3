"""Exact checks of report-noisy-max-with-value and peeling noisy top-k.

Why: both mechanisms claim epsilon by composition (Dwork–Roth Thm 3.14) of exact pieces; the
checks verify that claim on the exact output distributions rather than trusting the accounting:
the probabilities sum to 1, and over neighbouring utility vectors (every utility moved by at most
Delta, all {-D, 0, D} directions on small vectors) ``P[o | u] <= e^epsilon P[o | u']`` for every
output o.  Each privacy check has a power twin: the same mechanism with its budget spent twice
(no split between selection and value; epsilon per round instead of epsilon / k) must exceed
``e^epsilon``.
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import gmpy2
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reference_mechanisms.discrete_laplace import discrete_laplace_pmf
from reference_mechanisms.noisy_max import INDEX_VALUE_DTYPE, NoisyTopK, ReportNoisyMaxWithValue
from reference_mechanisms.randomness import SystemRandomness
from reference_mechanisms.report_noisy_max import ReportNoisyMax

PREC = 128


def _bound(eps: float) -> gmpy2.mpfr:
    """e^eps with a 2^-100 relative allowance for MPFR rounding (errors are ~2^-120 here)."""
    with gmpy2.context(precision=PREC):
        return gmpy2.exp(gmpy2.mpfr(eps)) * (1 + gmpy2.mpfr(2) ** -100)


def _max_ratio(p: dict, q: dict) -> gmpy2.mpfr:
    with gmpy2.context(precision=PREC):
        return max(max(p[o] / q[o], q[o] / p[o]) for o in p)


def _shifted(u, shift) -> list[int]:
    return [a + b for a, b in zip(u, shift, strict=True)]


def _shifts(d: int, sens: int = 1):
    return itertools.product((-sens, 0, sens), repeat=d)


# ----------------------------------------------------------------- noisy max with value
def test_with_value_shapes_fields_and_reproducibility() -> None:
    m = ReportNoisyMaxWithValue(1.0)
    u = [0, 3, 1, 3]
    a = m.sample(u, 500, np.random.default_rng(3))
    b = m.sample(np.array(u), 500, np.random.default_rng(3))
    assert a.shape == (500,) and a.dtype == INDEX_VALUE_DTYPE
    assert a.dtype.names == ("index", "value")
    assert a["index"].dtype == np.int64 and a["value"].dtype == np.int64
    assert np.array_equal(a, b)
    assert a["index"].min() >= 0 and a["index"].max() <= 3
    assert m.sample(u, 0, np.random.default_rng(3)).shape == (0,)
    assert m.sample(u, 4).shape == (4,)  # SystemRandomness by default
    assert m.sample(u, 4, SystemRandomness()).dtype == INDEX_VALUE_DTYPE


def test_with_value_claim_and_split() -> None:
    m = ReportNoisyMaxWithValue(0.3, 2, select_share=Fraction(1, 3))
    assert (m.epsilon, m.delta) == (0.3, 0.0)
    assert m.epsilon_select + m.epsilon_value == m.epsilon_rational <= Fraction(0.3)
    assert m.selector.epsilon_rational == m.epsilon_select  # the selection spends exactly this
    assert m.value_scale == 2 / m.epsilon_value
    assert m.selector.rate == m.epsilon_select / 4  # permute-and-flip: eps1 / (2 Delta)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"epsilon": 0}, "epsilon="),
        ({"epsilon": -1.0}, "epsilon="),
        ({"epsilon": float("inf")}, "epsilon="),
        ({"sensitivity": 0}, "sensitivity="),
        ({"sensitivity": 0.5}, "sensitivity="),
        ({"select_share": 0}, "select_share="),
        ({"select_share": 1}, "select_share="),
        ({"select_share": "x"}, "select_share="),
    ],
)
def test_with_value_bad_constructor_arguments(kwargs: dict, match: str) -> None:
    args = {"epsilon": 1.0} | kwargs
    with pytest.raises(ValueError, match=match):
        ReportNoisyMaxWithValue(**args)


@pytest.mark.parametrize(
    ("utilities", "n", "match"),
    [
        ([], 3, "utilities"),
        ([0.5, 1], 3, "utilities must hold integers"),
        ([[1, 2]], 3, "utilities"),
        ("ab", 3, "utilities="),
        ([1, 2], -2, "n="),
        ([1, 2], "3", "n="),
    ],
)
def test_bad_sample_arguments(utilities, n, match: str) -> None:
    for m in (ReportNoisyMaxWithValue(1.0), NoisyTopK(1.0, 1)):
        with pytest.raises(ValueError, match=match):
            m.sample(utilities, n, np.random.default_rng(0))


def test_with_value_probability_arguments() -> None:
    m = ReportNoisyMaxWithValue(1.0)
    with pytest.raises(ValueError, match="index="):
        m.probability(3, 0, [0, 1, 2])
    with pytest.raises(ValueError, match="value="):
        m.probability(0, 0.5, [0, 1, 2])


def test_with_value_probabilities_sum_to_one() -> None:
    m = ReportNoisyMaxWithValue(1.0, 2)
    u = [0, 4, 3, -1]
    with gmpy2.context(precision=PREC):
        p_idx = m.index_probabilities(u)
        assert abs(sum(p_idx) - 1) < gmpy2.mpfr(2) ** -120
        # the value pmf around each utility: scale 4, |offset| <= 800 holds all but e^-200
        total = sum(m.probability(i, int(u[i]) + o, u) for i in range(4) for o in range(-800, 801))
        assert abs(total - 1) < gmpy2.mpfr(2) ** -110
        # P[i, v] factorises: P[i] * DLap(v - u_i)
        want = p_idx[1] * discrete_laplace_pmf(-3, m.value_scale, PREC)
        assert abs(m.probability(1, 1, u) - want) < gmpy2.mpfr(2) ** -120


def _with_value_dist(m: ReportNoisyMaxWithValue, u: list[int], window: range) -> dict:
    """P[(i, v)] for v in a window; the ratio test needs no tail mass, only pointwise ratios."""
    p_idx = m.index_probabilities(u)
    with gmpy2.context(precision=PREC):
        return {
            (i, v): p_idx[i] * discrete_laplace_pmf(v - u[i], m.value_scale, PREC)
            for i in range(len(u))
            for v in window
        }


@pytest.mark.parametrize(("eps", "sens"), [(1.0, 1), (0.4, 2), (3.0, 1)])
def test_with_value_ratio_within_claim(eps: float, sens: int) -> None:
    m = ReportNoisyMaxWithValue(eps, sens)
    window = range(-8, 12)  # beyond the extreme utilities the value ratio is constant
    for u in ([0, 0, 0], [0, 2, 5], [3, 3, -1]):
        p = _with_value_dist(m, u, window)
        for shift in _shifts(3, sens):
            assert _max_ratio(p, _with_value_dist(m, _shifted(u, shift), window)) <= _bound(eps)


def test_with_value_double_spending_violates_claim() -> None:
    # power: selection with eps AND value with eps (no split) is 2 eps-DP, not eps-DP
    eps = 1.0
    broken = ReportNoisyMaxWithValue(2 * eps)  # eps per part, but the claim stated is eps
    u = [0, 2, 5]
    window = range(-8, 12)
    p = _with_value_dist(broken, u, window)
    worst = max(_max_ratio(p, _with_value_dist(broken, _shifted(u, s), window)) for s in _shifts(3))
    assert worst > _bound(eps)


# ------------------------------------------------------------------------- noisy top-k
def test_top_k_shapes_and_reproducibility() -> None:
    m = NoisyTopK(1.0, 3)
    u = [0, 5, 2, 2, 7, -1]
    a = m.sample(u, 3000, np.random.default_rng(4))
    b = m.sample(u, 3000, np.random.default_rng(4))
    assert a.shape == (3000, 3) and a.dtype == np.int64
    assert np.array_equal(a, b)
    assert a.min() >= 0 and a.max() <= 5
    assert all(len(set(row)) == 3 for row in a.tolist())  # distinct indices per release
    assert m.sample(u, 0, np.random.default_rng(4)).shape == (0, 3)
    assert NoisyTopK(1.0, 2).sample(u, 5).shape == (5, 2)  # SystemRandomness by default
    assert NoisyTopK(1.0, 6).sample(u, 5, np.random.default_rng(4)).shape == (5, 6)


def test_top_k_claim() -> None:
    m = NoisyTopK(1.0, 3)
    assert (m.epsilon, m.delta) == (1.0, 0.0)
    assert 3 * m.epsilon_round <= m.epsilon_rational <= Fraction(1.0)
    assert m.selector.epsilon_rational == m.epsilon_round


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"epsilon": 0}, "epsilon="),
        ({"epsilon": "e"}, "epsilon="),
        ({"k": 0}, "k="),
        ({"k": 1.0}, "k="),
        ({"k": True}, "k="),
        ({"sensitivity": -1}, "sensitivity="),
        ({"sensitivity": 1.25}, "sensitivity="),
        ({"epsilon": 2.0**-29, "k": 3}, "epsilon / k="),
    ],
)
def test_top_k_bad_constructor_arguments(kwargs: dict, match: str) -> None:
    args = {"epsilon": 1.0, "k": 2} | kwargs
    with pytest.raises(ValueError, match=match):
        NoisyTopK(**args)


def test_top_k_more_than_utilities_and_bad_ranking() -> None:
    m = NoisyTopK(1.0, 3)
    with pytest.raises(ValueError, match="k=3 must be <= the number of utilities"):
        m.sample([1, 2], 5, np.random.default_rng(0))
    with pytest.raises(ValueError, match="k=3"):
        m.probabilities([1, 2])
    for bad in ((0, 0, 1), (0, 1), (0, 1, 4), ("a", 1, 2)):
        with pytest.raises(ValueError, match="ranking="):
            m.probability(bad, [1, 2, 3, 4])


def test_top_k_probabilities() -> None:
    u = [0, 3, 1, 3, 2]
    m = NoisyTopK(1.5, 2)
    probs = m.probabilities(u)
    assert len(probs) == 20
    with gmpy2.context(precision=PREC):
        assert abs(sum(probs.values()) - 1) < gmpy2.mpfr(2) ** -120
        assert probs[(1, 3)] == m.probability([1, 3], u)
        # the product of the two permute-and-flip rounds, each at epsilon / 2
        sel = ReportNoisyMax(0.75)
        want = (
            sel.probabilities(np.array(u, float))[1]
            * sel.probabilities(np.array([0, 1, 3, 2], float))[2]
        )
        assert abs(probs[(1, 3)] - want) < gmpy2.mpfr(2) ** -120
    # k = 1 is report-noisy-max itself
    one = NoisyTopK(0.8, 1).probabilities(u)
    assert [one[(i,)] for i in range(5)] == ReportNoisyMax(0.8).probabilities(np.array(u, float))


@pytest.mark.parametrize(("eps", "k"), [(0.5, 2), (1.0, 2), (1.0, 3), (2.0, 3)])
def test_top_k_ratio_within_claim(eps: float, k: int) -> None:
    m = NoisyTopK(eps, k)
    for u in ([0, 0, 0, 0], [0, 1, 2, 3], [0, 5, 5, 1]):
        p = m.probabilities(u)
        for shift in _shifts(4):
            assert _max_ratio(p, m.probabilities(_shifted(u, shift))) <= _bound(eps)


@given(st.lists(st.integers(-4, 4), min_size=3, max_size=5), st.integers(1, 3), st.data())
@settings(max_examples=40, deadline=None)
def test_top_k_ratio_within_claim_random(u, k, data) -> None:
    k = min(k, len(u))
    shift = data.draw(st.lists(st.integers(-2, 2), min_size=len(u), max_size=len(u)))
    m = NoisyTopK(1.0, k, 2)
    assert _max_ratio(m.probabilities(u), m.probabilities(_shifted(u, shift))) <= _bound(1.0)


@pytest.mark.parametrize("k", [2, 3])
def test_top_k_without_budget_split_violates_claim(k: int) -> None:
    # power: peeling with epsilon per round (forgetting the / k) is k eps-DP, not eps-DP
    eps = 1.0
    broken = NoisyTopK(k * eps, k)
    u = [0, 1, 2, 3]
    p = broken.probabilities(u)
    worst = max(_max_ratio(p, broken.probabilities(_shifted(u, s))) for s in _shifts(4))
    assert worst > _bound(eps)
