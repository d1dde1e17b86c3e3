from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import pytest

from reference_mechanisms.iqr_scale import IQRScale, iqr_bin, iqr_stability
from reference_mechanisms.ptr import (
    PTRMedian,
    floor_scaled_log_threshold,
    median_distance,
    pass_probability,
)
from reference_mechanisms.report_noisy_max import ReportNoisyMax
from reference_mechanisms.subsample_aggregate import SubsampleAndAggregate, subsampling_rate

MECHS = [
    lambda eps=1.0, delta=0.1, dom=(0, 10): PTRMedian(eps, delta, dom),
    lambda eps=1.0, delta=0.1, dom=(0, 10): IQRScale(eps, delta, dom),
    lambda eps=1.0, delta=0.1, dom=(0, 10): SubsampleAndAggregate(eps * 24, delta, dom),
]


# ------------------------------------------------------------------------- validation
@pytest.mark.parametrize("make", MECHS)
@pytest.mark.parametrize("eps", [0.0, -1.0, float("nan"), float("inf")])
def test_bad_epsilon_raises(make, eps) -> None:
    with pytest.raises(ValueError, match="epsilon"):
        make(eps=eps)


@pytest.mark.parametrize("make", MECHS)
@pytest.mark.parametrize("delta", [0.0, 1.0, 1.5, -0.1, float("nan")])
def test_bad_delta_raises(make, delta) -> None:
    with pytest.raises(ValueError, match="delta"):
        make(delta=delta)


@pytest.mark.parametrize("make", MECHS)
@pytest.mark.parametrize("dom", [(1, 1), (2, 1), (0, float("inf")), "ab"])
def test_bad_domain_raises(make, dom) -> None:
    with pytest.raises(ValueError, match="domain"):
        make(dom=dom)


@pytest.mark.parametrize("make", MECHS)
@pytest.mark.parametrize(
    "x", [[], [[1.0, 2.0]], [1.0, float("nan")], [float("inf")], [11.0], [-1.0], "abc"]
)
def test_bad_dataset_raises(make, x) -> None:
    with pytest.raises(ValueError, match="dataset"):
        make().sample(x, 5, np.random.default_rng(0))


def test_subsample_aggregate_discretises_records_and_needs_integer_bounds() -> None:
    mech = SubsampleAndAggregate(24.0, 0.1, (0, 10))
    a = mech.sample([1.5, 2.9, 7.2], 50, np.random.default_rng(0))
    b = mech.sample([1.0, 2.0, 7.0], 50, np.random.default_rng(0))
    assert np.array_equal(a, b, equal_nan=True)
    with pytest.raises(ValueError, match="domain"):
        SubsampleAndAggregate(24.0, 0.1, (0, 10.5))


def test_iqr_grid_must_be_even() -> None:
    with pytest.raises(ValueError, match="grid"):
        IQRScale(1.0, 0.1, (0, 10), grid=15)


def test_report_noisy_max_validation() -> None:
    with pytest.raises(ValueError, match="epsilon"):
        ReportNoisyMax(float("nan"))
    with pytest.raises(ValueError, match="sensitivity"):
        ReportNoisyMax(1.0, 0.0)
    m = ReportNoisyMax(1.0)
    for bad in ([], [1.0, float("nan")], [float("inf")], [[1.0]]):
        with pytest.raises(ValueError, match="utilities"):
            m.sample(bad, 3, np.random.default_rng(0))


# ------------------------------------------------------------------ PTR threshold
def test_threshold_floor_is_exact() -> None:
    # G ln(1/delta)/eps with G = 16, delta = 1/10, eps = 1: 36.84... -> 36
    assert floor_scaled_log_threshold(16, Fraction(1, 10), Fraction(1)) == 36
    assert floor_scaled_log_threshold(1, Fraction(1, 2), Fraction(1, 1000)) == 693
    # huge scale: 10^6 ln 2 = 693147.18...
    assert floor_scaled_log_threshold(10**6, Fraction(1, 2), Fraction(1)) == 693147


def test_unstable_input_passes_with_probability_below_delta_over_two() -> None:
    for eps, delta, grid in ((1.0, 0.1, 16), (0.5, 1e-3, 4), (3.0, 0.3, 1)):
        e, d = Fraction(eps), Fraction(delta)
        thr = floor_scaled_log_threshold(grid, d, e)
        assert pass_probability(0, grid, thr, e) < delta / 2
        # and the bound is not loose by more than a factor exp(2 eps / G)
        assert pass_probability(0, grid, thr, e) > delta / 2 * np.exp(-2 * eps / grid) * 0.99


# ------------------------------------------------------- distance-to-instability bounds
def _median(xs):
    xs = sorted(xs)
    return xs[(len(xs) + 1) // 2 - 1] if xs else None


def _neighbours(xs, universe):
    xs = list(xs)
    for v in universe:
        yield xs + [v]
    for i in range(len(xs)):
        yield xs[:i] + xs[i + 1 :]


def _small_datasets(universe, max_n):
    for n in range(1, max_n + 1):
        yield from itertools.combinations_with_replacement(universe, n)


def test_median_distance_has_sensitivity_one_and_certifies_stability() -> None:
    dom = [0, 1, 2]
    ext = [-1, 0, 1, 2, 3]  # neighbours may use any value: the bound holds in a larger universe
    seen_positive = 0
    for xs in _small_datasets(dom, 7):
        med, d = median_distance(np.array(xs, dtype=float))
        assert med == _median(xs)
        if d >= 1:
            seen_positive += 1
        for y in _neighbours(xs, ext):
            if d >= 1:
                assert _median(y) == med, (xs, y)
            if y and min(y) >= 0 and max(y) <= 2:
                _, dy = median_distance(np.array(sorted(y), dtype=float))
                assert abs(d - dy) <= 1, (xs, y)
    assert seen_positive > 20


def _iqr(xs):
    xs = sorted(xs)
    n = len(xs)
    if n == 0:
        return None
    return Fraction(xs[-(-3 * n // 4) - 1]) - Fraction(xs[-(-n // 4) - 1])


@pytest.mark.parametrize("j", [1, 2])
def test_iqr_stability_has_sensitivity_one_and_certifies_the_bin(j: int) -> None:
    dom = [0, 1, 3, 6]
    ext = [-5, 0, 1, 2, 3, 6, 20]
    seen = 0
    for xs in _small_datasets(dom, 6):
        iqr, a = iqr_stability(np.array(xs, dtype=float), j)
        assert iqr == _iqr(xs)
        assert a >= 1
        for y in _neighbours(xs, ext):
            if a >= 2:
                seen += 1
                assert y and iqr_bin(_iqr(y), j) == iqr_bin(iqr, j), (xs, y)
            if y and min(y) >= 0 and max(y) <= 6:
                _, ay = iqr_stability(np.array(sorted(y), dtype=float), j)
                assert abs(a - ay) <= 1, (xs, y)
    assert seen > 50


def test_iqr_bins() -> None:
    assert iqr_bin(Fraction(0), 1) == "zero"
    assert iqr_bin(Fraction(1), 1) == 0 and iqr_bin(Fraction(15, 8), 1) == 0
    assert iqr_bin(Fraction(2), 1) == 1 and iqr_bin(Fraction(1, 3), 1) == -2
    # discretisation 2: [2^(k+1/2), 2^(k+3/2)); sqrt 2 = 1.414..
    assert iqr_bin(Fraction(141, 100), 2) == -1 and iqr_bin(Fraction(142, 100), 2) == 0
    assert iqr_bin(Fraction(282, 100), 2) == 0 and iqr_bin(Fraction(283, 100), 2) == 1


def test_subsampling_rate_rounds_down() -> None:
    q = subsampling_rate(Fraction(24), Fraction(1, 10))
    assert q <= 24 / (64 * np.log(10)) and q > 24 / (64 * np.log(10)) - 2**-20
    assert q.denominator <= 2**20


def test_outputs_are_nan_or_values() -> None:
    rng = np.random.default_rng(5)
    x = np.array([5.0] * 5)
    out = PTRMedian(1.0, 0.1, (0, 10)).sample(x, 1000, rng)
    assert set(np.unique(out[~np.isnan(out)])) <= {5.0} and np.isnan(out).any()
    assert out.shape == (1000,) and out.dtype == np.float64
    out = IQRScale(1.0, 0.1, (0, 10)).sample(x, 1000, rng)
    assert np.all(np.isnan(out) | (out == 0.0))  # IQR 0 is released exactly
    out = SubsampleAndAggregate(24.0, 0.1, (0, 10)).sample(x, 100, rng)
    assert out.shape == (100,) and set(np.unique(out[~np.isnan(out)])) <= {-1.0, 5.0}
