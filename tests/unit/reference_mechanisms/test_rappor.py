"""Exact checks and distribution tests of RAPPOR (Bloom filter + permanent randomized response).

Why: RAPPOR's claim ``epsilon = 2 h ln((1 - f/2)/(f/2))`` (Erlingsson, Pihur, Korolova, CCS 2014,
Thm. 1) depends on the number of hash functions h; the checks verify it on the exact report pmf:
over every pair of values and every report the probability ratio is at most
``((2 - f)/f)^(2h)`` (exact rationals), with equality for two values whose Bloom filters are
disjoint, at the report equal to the first filter.  The power twin is the claim that forgets h
(``epsilon`` for h = 1), which the same pair violates.  The distribution tests compare the
samples with the exact pmf (joint over all 2^m reports, and per bit) and must *reject* the pmf
at f x 1.3.

Statistical tests: fixed seeds; every "matches" check requires p > ALPHA = 1e-4, so for a
correct sampler a random seed would fail a test with k such checks with probability <= k 1e-4
(union bound; stated per test).  The fixed seeds make the outcome deterministic.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

from reference_mechanisms.gof import chisquare_integer
from reference_mechanisms.randomness import SystemRandomness
from reference_mechanisms.rappor import (
    MAX_BITS,
    Rappor,
    bloom_filter,
    permanent_randomized_response,
    prr_bit_probability,
)

ALPHA = 1e-4
N = 100_000


def _reports(m: int) -> list[np.ndarray]:
    return [np.array(r, dtype=np.uint8) for r in itertools.product((0, 1), repeat=m)]


def _disjoint_pair(mech: Rappor, values) -> tuple[str, str]:
    """Two values whose Bloom filters have h ones each and no common bit."""
    full = [v for v in values if int(mech.encode(v).sum()) == mech.h]
    for a, b in itertools.combinations(full, 2):
        if not np.any(mech.encode(a) & mech.encode(b)):
            return a, b
    raise AssertionError("no disjoint pair among the values")


# ----------------------------------------------------------------------------- encoding
def test_bloom_filter_is_deterministic_and_has_at_most_h_ones() -> None:
    a = bloom_filter("apple", 32, 3)
    assert a.dtype == np.uint8 and a.shape == (32,)
    assert np.array_equal(a, bloom_filter("apple", 32, 3))
    assert 1 <= a.sum() <= 3
    # hash function i does not depend on h: more functions only add ones
    assert np.all(bloom_filter("apple", 32, 5) >= a)
    # str, bytes and int encodings are distinct families; cohorts change the family
    ones = {tuple(np.flatnonzero(bloom_filter(v, 1024, 4))) for v in ("7", b"7", 7)}
    assert len(ones) == 3
    assert not np.array_equal(bloom_filter("apple", 1024, 4), bloom_filter("apple", 1024, 4, 1))
    assert np.array_equal(bloom_filter(np.int64(7), 64, 2), bloom_filter(7, 64, 2))


def test_bloom_filter_collisions_leave_fewer_ones() -> None:
    # m = 2, h = 8: eight hash values in two cells always collide
    assert bloom_filter("x", 2, 8).sum() <= 2
    mech = Rappor(16, 2, Fraction(1, 2))
    assert any(mech.encode(f"v{i}").sum() == 1 for i in range(12))  # "v6" collides


@pytest.mark.parametrize("bad", [1.5, None, True, ["a"], np.float64(2.0)])
def test_bad_value(bad) -> None:
    with pytest.raises(ValueError, match="value="):
        bloom_filter(bad, 8, 2)
    with pytest.raises(ValueError, match="value="):
        Rappor(8, 2, Fraction(1, 2)).sample(bad, 3, np.random.default_rng(0))


# ------------------------------------------------------------------- reports and claims
def test_shapes_dtype_and_reproducibility() -> None:
    mech = Rappor(24, 2, Fraction(1, 4))
    a = mech.sample("apple", 300, np.random.default_rng(7))
    b = mech.sample("apple", 300, np.random.default_rng(7))
    assert a.shape == (300, 24) and a.dtype == np.uint8 and np.array_equal(a, b)
    assert set(np.unique(a)) <= {0, 1}
    assert mech.sample("apple", 0, np.random.default_rng(7)).shape == (0, 24)
    assert mech.sample(b"x", 5).shape == (5, 24)  # SystemRandomness by default
    assert mech.sample(3, 5, SystemRandomness()).dtype == np.uint8
    # the report is the PRR of the Bloom filter, draw for draw
    prr = permanent_randomized_response(
        mech.encode("apple"), Fraction(1, 4), 300, np.random.default_rng(7)
    )
    assert np.array_equal(a, prr)


@pytest.mark.parametrize(("h", "f"), [(1, Fraction(1, 2)), (2, Fraction(1, 4)), (4, 0.75)])
def test_claim_as_data(h: int, f) -> None:
    mech = Rappor(16, h, f)
    fr = Fraction(f)
    assert mech.f == fr and mech.delta == 0.0
    assert mech.bit_ratio == (1 - fr / 2) / (fr / 2)
    assert mech.ratio_bound == mech.bit_ratio ** (2 * h)
    exact = 2 * h * math.log((1 - f / 2) / (f / 2))
    assert mech.epsilon >= exact * (1 - 1e-15)  # rounded up ...
    assert mech.epsilon == pytest.approx(exact, rel=1e-15)  # ... by at most an ulp
    assert math.exp(mech.epsilon) >= float(mech.ratio_bound) * (1 - 1e-15)


def test_prr_bit_probability() -> None:
    assert prr_bit_probability(1, Fraction(1, 2)) == Fraction(3, 4)
    assert prr_bit_probability(0, Fraction(1, 2)) == Fraction(1, 4)
    assert prr_bit_probability(np.uint8(1), 0.25) == Fraction(7, 8)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"m": 0}, "m="),
        ({"m": MAX_BITS + 1}, "m="),
        ({"m": 8.0}, "m="),
        ({"h": 0}, "h="),
        ({"h": "2"}, "h="),
        ({"f": 0}, "f="),
        ({"f": 1}, "f="),
        ({"f": 1.5}, "f="),
        ({"f": float("nan")}, "f="),
        ({"f": "1/2"}, "f="),
        ({"cohort": -1}, "cohort="),
    ],
)
def test_bad_constructor_arguments(kwargs: dict, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        Rappor(**({"m": 8, "h": 2, "f": Fraction(1, 2)} | kwargs))


def test_bad_function_arguments() -> None:
    g = np.random.default_rng(0)
    with pytest.raises(ValueError, match="n="):
        Rappor(8, 2, 0.5).sample("a", -1, g)
    with pytest.raises(ValueError, match="bits"):
        permanent_randomized_response([0, 2], 0.5, 3, g)
    with pytest.raises(ValueError, match="bits"):
        permanent_randomized_response([], 0.5, 3, g)
    with pytest.raises(ValueError, match="f="):
        permanent_randomized_response([0, 1], 0, 3, g)
    with pytest.raises(ValueError, match="bit="):
        prr_bit_probability(2, 0.5)
    with pytest.raises(ValueError, match="report has 3 bits, m=8"):
        Rappor(8, 2, 0.5).probability([0, 1, 0], "a")


def test_pmf_sums_to_one_exactly() -> None:
    mech = Rappor(8, 3, Fraction(3, 8))
    for v in ("a", "b", 17):
        assert sum(mech.probability(r, v) for r in _reports(8)) == 1
    assert mech.bit_probabilities("a") == [
        Fraction(13, 16) if b else Fraction(3, 16) for b in mech.encode("a")
    ]


def test_privacy_ratio_bounded_and_attained() -> None:
    # every pair of 8 values, every one of the 2^8 reports, exact rationals
    mech = Rappor(8, 2, Fraction(1, 3))
    values = [f"v{i}" for i in range(8)]
    reports = _reports(8)
    table = {v: [mech.probability(r, v) for r in reports] for v in values}
    worst = max(
        max(p / q for p, q in zip(table[a], table[b], strict=True))
        for a, b in itertools.permutations(values, 2)
    )
    assert worst == mech.ratio_bound  # <= e^epsilon, and attained
    a, b = _disjoint_pair(mech, values)
    assert mech.probability(mech.encode(a), a) / mech.probability(mech.encode(a), b) == worst
    assert math.log(worst) <= mech.epsilon


def test_privacy_power_twin_claim_without_h() -> None:
    # the claim 2 ln((1 - f/2)/(f/2)) (h dropped) is exceeded by the h = 2 encoding
    mech = Rappor(16, 2, Fraction(1, 2))
    forgot_h = Rappor(16, 1, Fraction(1, 2))
    a, b = _disjoint_pair(mech, [f"v{i}" for i in range(12)])
    r = mech.encode(a)
    assert mech.probability(r, a) / mech.probability(r, b) > forgot_h.ratio_bound
    assert math.log(forgot_h.ratio_bound) < mech.epsilon / 1.9


def _as_codes(reports: np.ndarray) -> np.ndarray:
    """Each m-bit report as the integer sum_i bit_i 2^i."""
    return reports.astype(np.int64) @ (1 << np.arange(reports.shape[1], dtype=np.int64))


def _pvalues(reports: np.ndarray, mech: Rappor, value) -> list[float]:
    m = mech.m
    joint = [float(mech.probability(r, value)) for r in _reports(m)]
    # _reports enumerates bit 0 as the most significant: reorder to the codes' order
    codes_order = _as_codes(np.array(_reports(m)))
    probs = np.zeros(1 << m)
    probs[codes_order] = joint
    out = [chisquare_integer(_as_codes(reports), probs, (0, (1 << m) - 1)).pvalue]
    for i, p1 in enumerate(mech.bit_probabilities(value)):
        ones = int(reports[:, i].sum())
        out.append(stats.binomtest(ones, reports.shape[0], float(p1)).pvalue)
    return out


def test_samples_match_exact_pmf_and_reject_wrong_f() -> None:
    # false failure (good pmf rejected): <= (1 joint + 8 per-bit) x 1e-4 = 9e-4 for a random seed
    mech = Rappor(8, 2, Fraction(1, 2))
    assert mech.encode("v0").sum() == 2  # no collision: both kinds of bits are exercised
    x = mech.sample("v0", N, np.random.default_rng(51))
    assert min(_pvalues(x, mech, "v0")) > ALPHA
    wrong = Rappor(8, 2, Fraction(1, 2) * Fraction(13, 10))  # the pmf at f x 1.3
    p_wrong = _pvalues(x, wrong, "v0")
    assert p_wrong[0] < ALPHA and max(p_wrong[1:]) < ALPHA


@pytest.mark.slow
@pytest.mark.parametrize(("seed", "h", "f"), [(501, 2, Fraction(1, 4)), (502, 3, Fraction(3, 4))])
def test_large_sample_matches_exact_pmf(seed: int, h: int, f: Fraction) -> None:
    # 2M reports of m = 10 bits: joint chi-square over 1024 codes plus 10 per-bit binomial
    # tests; false failure <= 11 x 1e-4 = 1.1e-3 per case
    mech = Rappor(10, h, f, cohort=5)
    x = mech.sample("some value", 2_000_000, np.random.default_rng(seed))
    assert min(_pvalues(x, mech, "some value")) > ALPHA
