"""Exact checks of the sparse vector technique (AboveThreshold, SVT with cutoff c).

Why: SVT's published variants are mostly not private (Lyu, Su, Li, PVLDB 2017), so the reference
is verified against its own exact output distribution rather than trusted: pattern probabilities
(no truncation: closed-form lattice tails) sum to 1 and agree with brute-force summation, the
constants are Lyu–Su–Li Alg. 1's, and over neighbouring query vectors (every query moved by at
most Delta) the exact ratio ``P[a | q] / P[a | q']`` stays below ``e^epsilon`` for every answer
pattern a.  Each privacy check has a power twin: a broken variant from Lyu–Su–Li's catalogue
(no threshold noise, no cutoff, monotonic noise on non-monotonic queries) must exceed
``e^epsilon`` on the same kind of inputs.
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import gmpy2
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reference_mechanisms.randomness import SystemRandomness
from reference_mechanisms.sparse_vector import (
    ABOVE,
    HALTED,
    AboveThreshold,
    SparseVector,
    svt_pattern_probability,
    svt_patterns,
)

PREC = 256


def _bound(eps: float) -> gmpy2.mpfr:
    """e^eps with a 2^-100 relative allowance for MPFR rounding (errors are ~2^-170 here)."""
    with gmpy2.context(precision=PREC):
        return gmpy2.exp(gmpy2.mpfr(eps)) * (1 + gmpy2.mpfr(2) ** -100)


def _max_ratio(p: dict, q: dict) -> gmpy2.mpfr:
    with gmpy2.context(precision=PREC):
        return max(max(p[a] / q[a], q[a] / p[a]) for a in p)


def _neighbour_shifts(k: int, sens: int = 1):
    """The worst-case neighbour directions the brief asks for, plus every {-D, 0, D} vector."""
    half = k // 2
    yield from (
        (sens,) * k,
        (-sens,) * k,
        (sens,) * half + (-sens,) * (k - half),
        (-sens,) * half + (sens,) * (k - half),
    )
    for i in range(k):
        yield tuple(-sens if j == i else sens for j in range(k))  # all up, one down
        yield tuple(sens if j == i else -sens for j in range(k))  # all down, one up


def _shifted(q: list[int], shift) -> list[int]:
    return [a + b for a, b in zip(q, shift, strict=True)]


# ------------------------------------------------------------------- shapes and arguments
def test_shapes_dtypes_and_reproducibility() -> None:
    m = SparseVector(1.0, 2, 2)
    q = [0, 5, 1, 3, -2, 7]
    a = m.sample(q, 1000, np.random.default_rng(5))
    b = m.sample(q, 1000, np.random.default_rng(5))
    assert a.shape == (1000, 6) and a.dtype == np.int8
    assert np.array_equal(a, b)
    assert set(np.unique(a)) <= {-1, 0, 1}
    assert m.sample(q, 0, np.random.default_rng(5)).shape == (0, 6)
    assert AboveThreshold(1.0, 0).sample(np.array([1, 2]), 7).shape == (7, 2)  # SystemRandomness
    assert m.sample(q, 3, SystemRandomness()).dtype == np.int8


def test_every_release_is_a_possible_pattern() -> None:
    for m in (AboveThreshold(2.0, 1), SparseVector(2.0, [0, 1, 2, 3, 4], 2, 2)):
        x = m.sample([0, 1, 2, 3, 4], 2000, np.random.default_rng(6))
        assert {tuple(int(v) for v in row) for row in x} <= set(m.patterns(5))
        tops = (x == ABOVE).sum(axis=1)
        assert tops.max() <= m.cutoff
        halted = (x == HALTED).any(axis=1)
        assert np.all(tops[halted] == m.cutoff)  # halting happens only after the c-th ⊤


def test_constants_are_lyu_su_li_algorithm_1() -> None:
    # Alg. 1: rho ~ Lap(Delta/eps1), nu ~ Lap(2 c Delta/eps2), eps1 = eps2 = eps/2
    at = AboveThreshold(1.0, 0)
    assert at.cutoff == 1 and (at.threshold_scale, at.query_scale) == (2, 4)  # Dwork–Roth
    m = SparseVector(0.5, 0, 3, 2)
    assert m.threshold_scale == Fraction(2) / Fraction(1, 4)
    assert m.query_scale == 2 * 3 * Fraction(2) / Fraction(1, 4)
    assert SparseVector(0.5, 0, 3, 2, monotonic=True).query_scale == m.query_scale / 2
    s = SparseVector(1.0, 0, 2, threshold_share=Fraction(1, 4))
    assert (s.epsilon_threshold, s.epsilon_queries) == (Fraction(1, 4), Fraction(3, 4))
    e = SparseVector(0.1, 0, 1)  # 0.1 is rounded down, never up
    assert e.epsilon_threshold + e.epsilon_queries == e.epsilon_rational <= Fraction(0.1)
    assert (e.epsilon, e.delta) == (0.1, 0.0)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"epsilon": 0}, "epsilon="),
        ({"epsilon": float("nan")}, "epsilon="),
        ({"epsilon": "a"}, "epsilon="),
        ({"threshold": 1.5}, "threshold="),
        ({"threshold": True}, "threshold="),
        ({"threshold": "t"}, "threshold="),
        ({"threshold": [0.5, 1]}, "threshold"),
        ({"cutoff": 0}, "cutoff="),
        ({"cutoff": 1.0}, "cutoff="),
        ({"sensitivity": 0}, "sensitivity="),
        ({"sensitivity": 1.5}, "sensitivity="),
        ({"monotonic": "yes"}, "monotonic="),
        ({"threshold_share": 0}, "threshold_share="),
        ({"threshold_share": 1}, "threshold_share="),
    ],
)
def test_bad_constructor_arguments(kwargs: dict, match: str) -> None:
    args = {"epsilon": 1.0, "threshold": 0, "cutoff": 2} | kwargs
    with pytest.raises(ValueError, match=match):
        SparseVector(**args)


@pytest.mark.parametrize(
    ("queries", "n", "match"),
    [
        ([], 5, "queries"),
        ([[1, 2]], 5, "queries"),
        ([1.5, 2], 5, r"queries must hold integers; entry 0 is 1\.5"),
        ([True, False], 5, "queries"),
        ("abc", 5, "queries="),
        (None, 5, "queries="),
        ([2**60], 5, r"queries\[0\]"),
        ([1, 2], -1, "n="),
        ([1, 2], 1.5, "n="),
    ],
)
def test_bad_sample_arguments(queries, n, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        SparseVector(1.0, 0, 1).sample(queries, n, np.random.default_rng(0))


def test_threshold_array_must_match_queries() -> None:
    m = SparseVector(1.0, [0, 1, 2], 1)
    assert m.sample([4, 4, 4], 5, np.random.default_rng(0)).shape == (5, 3)
    with pytest.raises(ValueError, match="threshold has 3 entries for 2 queries"):
        m.sample([1, 2], 5, np.random.default_rng(0))


def test_bad_pattern_and_impossible_patterns() -> None:
    m = SparseVector(1.0, 0, 2)
    q = [0, 1, 2, 3]
    with pytest.raises(ValueError, match="pattern="):
        m.pattern_probability((0, 1, 2, 0), q)
    with pytest.raises(ValueError, match="pattern="):
        m.pattern_probability((0, 1), q)
    # answered after the 2nd ⊤; halted too early; halted then answered
    for bad in ((1, 1, 0, -1), (0, 1, -1, -1), (1, 1, -1, 1)):
        assert m.pattern_probability(bad, q) == 0
    assert len(svt_patterns(4, None)) == 16 and len(svt_patterns(4, 1)) == 5


# -------------------------------------------------------------------- exact probabilities
@pytest.mark.parametrize(
    ("eps", "cutoff", "sens", "queries", "threshold"),
    [
        (1.0, 1, 1, [0, 0, 0, 0, 0], 0),
        (0.3, 2, 1, [0, 5, 1, 3, -2], 2),
        (2.0, 3, 2, [-4, 9, 0, 1, 1, 3], [0, 1, 2, 3, 4, 5]),
        (8.0, 2, 1, [40, -40, 0, 3], 1),  # far offsets: long direct sum, sharp tails
    ],
)
def test_pattern_probabilities_sum_to_one(eps, cutoff, sens, queries, threshold) -> None:
    for monotonic in (False, True):
        m = SparseVector(eps, threshold, cutoff, sens, monotonic=monotonic)
        probs = m.pattern_probabilities(queries)
        assert len(probs) == len(m.patterns(len(queries)))
        with gmpy2.context(precision=PREC):
            assert all(p > 0 for p in probs.values())
            assert abs(sum(probs.values()) - 1) < gmpy2.mpfr(2) ** -200


def _brute_force(pattern, q, t, nu_scale: Fraction, rho_scale: Fraction, cutoff, z_max: int):
    """sum over |z| <= z_max of P[rho = z] prod P[nu answers], tails dropped (< e^{-z_max/s})."""
    with gmpy2.context(precision=PREC):
        r = gmpy2.exp(-1 / gmpy2.mpfr(gmpy2.mpq(nu_scale.numerator, nu_scale.denominator)))
        rr = gmpy2.exp(-1 / gmpy2.mpfr(gmpy2.mpq(rho_scale.numerator, rho_scale.denominator)))

        def ge(x: int):
            return r**x / (1 + r) if x >= 0 else 1 - r ** (1 - x) / (1 + r)

        total = gmpy2.mpfr(0)
        for z in range(-z_max, z_max + 1):
            v = (1 - rr) / (1 + rr) * rr ** abs(z)
            tops = 0
            for a, qi, ti in zip(pattern, q, t, strict=True):
                if a == HALTED or (cutoff is not None and tops == cutoff):
                    break
                v *= ge(ti - qi + z) if a == ABOVE else 1 - ge(ti - qi + z)
                tops += a == ABOVE
            total += v
        return total


def test_closed_form_tails_match_direct_summation() -> None:
    m = SparseVector(1.0, [1, 0, 2, -1, 3], 2)  # rho scale 2: |z| > 800 holds < e^-400
    q = [0, 5, 1, 3, -2]
    t = m.thresholds(5)
    for pattern in m.patterns(5):
        exact = m.pattern_probability(pattern, q)
        brute = _brute_force(pattern, q, t, m.query_scale, m.threshold_scale, 2, 800)
        with gmpy2.context(precision=PREC):
            assert abs(exact - brute) <= exact * gmpy2.mpfr(2) ** -180


def test_no_threshold_noise_probability_is_a_product() -> None:
    # rho = 0: the answers are independent; P[⊥ ⊤] = P[nu < T - q1] P[nu >= T - q2]
    with gmpy2.context(precision=PREC):
        r = gmpy2.exp(gmpy2.mpfr(-1) / 4)
        want = (r**3 / (1 + r)) * (1 - r**4 / (1 + r))  # P[nu <= -3] P[nu >= -3]
        got = svt_pattern_probability((0, 1), [2, 3], 0, 4, None, 1)
        assert abs(got - want) < gmpy2.mpfr(2) ** -240
        # a very unlikely ⊥ (P ~ 2^-88) keeps full relative precision (no 1 - (1 - tiny))
        tiny = gmpy2.exp(gmpy2.mpfr(-61)) / (1 + gmpy2.exp(gmpy2.mpfr(-1)))
        got = svt_pattern_probability((0,), [60], 0, 1, None, 1)
        assert abs(got - tiny) < tiny * gmpy2.mpfr(2) ** -240
    with pytest.raises(ValueError, match="precision="):
        svt_pattern_probability((0,), [1], 0, 1, 1, 1, precision=64)


# --------------------------------------------------------------------- privacy: the claim
@pytest.mark.parametrize(("cutoff", "sens"), [(1, 1), (2, 1), (3, 1), (2, 2)])
def test_ratio_within_claim_on_worst_case_neighbours(cutoff: int, sens: int) -> None:
    eps, k = 1.0, 5
    m = SparseVector(eps, 0, cutoff, sens)
    bound = _bound(eps)
    for q in ([0] * k, [-3, -1, 0, 1, 3], [2, -2, 0, 0, 5], [9] * k, [-9] * k):
        p = m.pattern_probabilities(q)
        for shift in _neighbour_shifts(k, sens):
            assert _max_ratio(p, m.pattern_probabilities(_shifted(q, shift))) <= bound


@given(
    st.sampled_from([0.5, 1.0, 3.0]),
    st.integers(1, 2),
    st.lists(st.integers(-4, 4), min_size=2, max_size=5),
    st.data(),
)
@settings(max_examples=60, deadline=None)
def test_ratio_within_claim_random_neighbours(eps, cutoff, q, data) -> None:
    shift = data.draw(st.lists(st.integers(-1, 1), min_size=len(q), max_size=len(q)))
    m = SparseVector(eps, 1, cutoff)
    p, p2 = m.pattern_probabilities(q), m.pattern_probabilities(_shifted(q, shift))
    assert _max_ratio(p, p2) <= _bound(eps)


def test_monotonic_variant_within_claim_only_for_monotonic_neighbours() -> None:
    eps, k = 1.0, 5
    bound = _bound(eps)
    for cutoff in (1, 2):
        m = SparseVector(eps, 0, cutoff, monotonic=True)
        for q in ([0] * k, [-3, -1, 0, 1, 3], [2, -2, 0, 0, 5]):
            p = m.pattern_probabilities(q)
            for shift in ((1,) * k, (-1,) * k, (1, 1, 0, 1, 0), (0, -1, -1, 0, 0)):
                assert _max_ratio(p, m.pattern_probabilities(_shifted(q, shift))) <= bound
    # power: the halved noise on a non-monotonic neighbour pair (half up, half down) is too little
    m = AboveThreshold(eps, 0, monotonic=True)
    q = [1, 1, 0, -1, -1]
    worst = max(
        _max_ratio(m.pattern_probabilities(q), m.pattern_probabilities(_shifted(q, s)))
        for s in _neighbour_shifts(k)
    )
    assert worst > _bound(eps)


# ------------------------------------------------------------- power: broken variants fail
def test_above_threshold_without_threshold_noise_violates_claim() -> None:
    # Lyu–Su–Li's point: the threshold noise is what pays for the ⊥ answers.  Without it each ⊥
    # costs up to Delta/scale = eps/4, so six ⊥ answers cost 1.5 eps.
    eps, k = 1.0, 6
    m = AboveThreshold(eps, 0)
    q, q2 = [3] * k, [4] * k
    patterns = svt_patterns(k, 1)

    def broken(q_: list[int]) -> dict:
        return {a: svt_pattern_probability(a, q_, 0, m.query_scale, None, 1) for a in patterns}

    assert _max_ratio(broken(q), broken(q2)) > _bound(eps)
    assert _max_ratio(m.pattern_probabilities(q), m.pattern_probabilities(q2)) <= _bound(eps)


@pytest.mark.parametrize("noise", ["alg1", "alg6"])
def test_svt_without_cutoff_violates_claim(noise: str) -> None:
    # No halting: Lyu–Su–Li show the variant without a cutoff (their Alg. 6, Chen et al. 2015,
    # nu ~ Lap(Delta/eps2)) is not eps'-DP for any eps'; even Alg. 1's c = 1 noise is not enough.
    # Counterexample: q = 0, q' = (+1 x m, -1 x m), answers (⊥ x m, ⊤ x m).
    eps, half = 1.0, 3
    m = AboveThreshold(eps, 0)
    nu = m.query_scale if noise == "alg1" else Fraction(1) / m.epsilon_queries
    q, q2 = [0] * (2 * half), [1] * half + [-1] * half
    a = (0,) * half + (1,) * half

    def prob(q_: list[int]) -> gmpy2.mpfr:
        return svt_pattern_probability(a, q_, 0, nu, m.threshold_scale, None)

    with gmpy2.context(precision=PREC):
        assert prob(q) / prob(q2) > _bound(eps)
    # the real mechanism halts, and stays within the claim on the same pair
    assert _max_ratio(m.pattern_probabilities(q), m.pattern_probabilities(q2)) <= _bound(eps)


def test_all_patterns_enumerated() -> None:
    # the ratio tests range over every possible output: the enumeration is complete
    for k, c in itertools.product(range(1, 7), range(1, 4)):
        pats = set(svt_patterns(k, c))
        brute = set()
        for bits in itertools.product((0, 1), repeat=k):
            out, tops = [], 0
            for b in bits:
                out.append(HALTED if tops >= c else b)
                tops += b if tops < c else 0
            brute.add(tuple(out))
        assert pats == brute
