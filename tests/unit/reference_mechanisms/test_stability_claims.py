"""Exact (epsilon, delta) checks of the PTR median and the IQR Scale algorithm on small datasets.

Why: the Dwork–Roth statements these mechanisms implement (A_dist, §7.3; the Scale algorithm,
§7.2 Alg. 12) and their stability lemmas were reconstructed without the book's text at hand.
Rather than trust the reconstruction, the declared claims are verified exactly: over every
add/remove neighbour pair of datasets up to a size, built from a small value set, the exact output
distributions (⊥ or a release) must have hockey-stick divergence
``sum_o max(0, P[o] - e^eps P'[o]) <= delta`` in both directions at the declared epsilon.

Arithmetic is 128-bit MPFR and the Laplace lattice sums use closed-form geometric tails, so nothing
is truncated: rounding errors are ~2^-120 relative, while the smallest margin measured here is
~0.02 delta.  Every divergence check has a twin showing that it catches a broken mechanism.
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import gmpy2
import numpy as np
import pytest

from auditor.adapters.reference_dataset import IQRScaleAdapter, PTRMedianAdapter
from reference_mechanisms.iqr_scale import IQRScale, iqr_bin, iqr_stability
from reference_mechanisms.ptr import PTRMedian, median_distance, pass_probability

PREC = 128
ZERO = gmpy2.mpfr(0)


def _datasets(values: tuple, max_n: int):
    """Every multiset of 1..max_n records from ``values``, as a sorted tuple."""
    for n in range(1, max_n + 1):
        yield from itertools.combinations_with_replacement(sorted(values), n)


def _neighbour_pairs(values: tuple, max_n: int):
    """Each add/remove neighbour pair ``(x, x + [v])`` of non-empty datasets of size <= max_n, once.

    Every removal is the reverse of an addition, so checking both directions of these pairs covers
    the whole neighbour relation on the enumerated datasets.
    """
    for x in _datasets(values, max_n - 1):
        for v in sorted(set(values)):
            yield x, tuple(sorted(x + (v,)))


def _mpfr(q: Fraction) -> gmpy2.mpfr:
    return gmpy2.mpfr(gmpy2.mpq(q.numerator, q.denominator))


# ------------------------------------------------------- (a) the stability statistics
@pytest.mark.parametrize("values", [(0, 1, 2), (0, 2, 5, 7)])
def test_median_distance_sensitivity_and_stability(values) -> None:
    # PTR's proof needs: |d(x) - d(y)| <= 1 for neighbours, and d(x) >= 1 => same median.
    stat = {x: median_distance(np.array(x, dtype=float)) for x in _datasets(values, 10)}
    certified = 0
    for x, y in _neighbour_pairs(values, 10):
        (mx, dx), (my, dy) = stat[x], stat[y]
        assert abs(dx - dy) <= 1, (x, y)
        if dx >= 1 or dy >= 1:
            certified += 1
            assert mx == my, (x, y)
    assert certified > 300  # the implication is exercised, not vacuous


@pytest.mark.parametrize("j", [1, 2])
@pytest.mark.parametrize("grid", [2, 16])
def test_iqr_stability_sensitivity_and_bin(j: int, grid: int) -> None:
    # Scale's proof needs, per discretisation j: |A'(x) - A'(y)| <= 1; A' >= 2 (the test runs on
    # A' - 1) => same bin; and within one bin the released log-units move by at most G - 1.
    values = (0, 1, 2, 3, 5, 8, 13)
    mech = IQRScale(0.5, 0.1, (0, 100), grid=grid)
    stat = {}
    for x in _datasets(values, 7):
        iqr, a = iqr_stability(np.array(x, dtype=float), j)
        units = mech.release_units(x)[0][2]
        stat[x] = (iqr_bin(iqr, j), a, units)
    certified = 0
    for x, y in _neighbour_pairs(values, 7):
        (bx, ax, lx), (by, ay, ly) = stat[x], stat[y]
        assert abs(ax - ay) <= 1, (x, y)
        if ax >= 2 or ay >= 2:
            certified += 1
            assert bx == by, (x, y)
        if bx == by and lx is not None:
            assert abs(lx - ly) <= grid - 1, (x, y)
    assert certified > 800


# ----------------------------------------------------------------- (b) PTR median
def _ptr_worst(mech: PTRMedian, values: tuple, max_n: int, eps: float) -> tuple:
    """Worst hockey-stick divergence at ``eps`` over the neighbour pairs (either order), and a pair
    attaining it."""
    dist = {x: mech.release_probability(x) for x in _datasets(values, max_n)}
    worst, arg = ZERO, None
    with gmpy2.context(precision=PREC):
        e = gmpy2.exp(gmpy2.mpfr(eps))
        for x, y in _neighbour_pairs(values, max_n):
            for u, w in ((x, y), (y, x)):
                (mu, a), (mw, b) = dist[u], dist[w]
                # outputs: ⊥ with mass 1 - p, the median with mass p
                h = max(ZERO, (1 - a) - e * (1 - b))
                h += max(ZERO, a - e * b) if mu == mw else a
                if h > worst:
                    worst, arg = h, (u, w)
    return worst, arg


def _ptr_adapter():
    adapter = PTRMedianAdapter()
    return adapter.mechanism, adapter.epsilon, adapter.delta


def _ptr(eps: float, delta: float, grid: int):
    return lambda: (PTRMedian(eps, delta, (0, 100), grid=grid), eps, delta)


# (factory -> (mechanism, claimed eps, claimed delta), values, max_n).  Three values suffice: the
# median and d depend only on the order and ties, and long runs of equal records reach d beyond
# each test's pass threshold (G = 16, delta = 1e-3: 16 d + Z >= 112, i.e. d ~ 7 at n ~ 15).
PTR_CASES = {
    "adapter": (_ptr_adapter, (0, 1, 2), 18),
    "eps1-delta0.1-G1": (_ptr(1.0, 0.1, 1), (0, 1, 2), 12),
    "eps0.5-delta0.05-G4": (_ptr(0.5, 0.05, 4), (0, 1, 2), 16),
}


@pytest.mark.parametrize("case", list(PTR_CASES))
def test_ptr_median_meets_its_claim_exactly(case: str) -> None:
    make, values, max_n = PTR_CASES[case]
    mech, eps, delta = make()
    worst, pair = _ptr_worst(mech, values, max_n, eps)
    assert worst <= delta, (float(worst / delta), pair)


@pytest.mark.slow
@pytest.mark.parametrize("case", list(PTR_CASES))
def test_ptr_median_meets_its_claim_exactly_more_values(case: str) -> None:
    make, _, max_n = PTR_CASES[case]
    mech, eps, delta = make()
    worst, pair = _ptr_worst(mech, (0, 1, 2, 3, 4), max_n, eps)
    assert worst <= delta, (float(worst / delta), pair)


def test_ptr_check_has_teeth() -> None:
    # half the claimed epsilon fails: near the threshold d moves by 1 and the pass probability by
    # a factor ~e^eps (2.9 delta at these parameters)
    make, values, max_n = PTR_CASES["eps1-delta0.1-G1"]
    mech, eps, delta = make()
    assert _ptr_worst(mech, values, max_n, eps / 2)[0] > delta
    # a threshold one unit of d lower fails at the adapter's parameters (1.28 delta): an unstable
    # median (d = 0) would then pass with probability e^eps * 0.47 delta
    make, values, max_n = PTR_CASES["adapter"]
    mech, eps, delta = make()
    mech.threshold_units -= mech.grid
    assert _ptr_worst(mech, values, max_n, eps)[0] > delta


# ---------------------------------------------------------------- (c) Scale (IQR)
def _lattice_hockey(a, c, shift: int, r) -> gmpy2.mpfr:
    """``sum_t max(0, a L(t - shift) - c L(t))`` over all integers t, exactly (closed-form tails).

    ``L(t) = tanh(1/(2 scale)) exp(-|t|/scale) = (1 - r)/(1 + r) r^|t|`` with ``r = e^(-1/scale)``
    is the discrete Laplace pmf.  Outside ``[lo, hi] = [min(0, shift), max(0, shift)]`` the ratio
    of the two terms is constant, so each tail is ``max(0, ...) * sum_{k>=1} c0 r^k``.
    """
    c0 = (1 - r) / (1 + r)
    lo, hi = min(0, shift), max(0, shift)
    total = ZERO
    for t in range(lo, hi + 1):
        total += max(ZERO, c0 * (a * r ** abs(t - shift) - c * r ** abs(t)))
    tail = r / (1 + r)  # c0 * sum_{k>=1} r^k
    total += tail * max(ZERO, a * r ** (shift - lo) - c * r ** (-lo))
    total += tail * max(ZERO, a * r ** (hi - shift) - c * r**hi)
    return total


def test_lattice_hockey_matches_a_direct_sum() -> None:
    # the closed form against a plain sum over a window holding all but e^-60 of the mass
    with gmpy2.context(precision=PREC):
        r = gmpy2.exp(gmpy2.mpfr(-1) / 3)
        ts = range(-200, 201)
        for a, c, shift in ((0.9, 0.5, 7), (0.3, 0.8, -4), (0.5, 0.5, 0), (0.2, 1.9, 30)):
            a, c = gmpy2.mpfr(a), gmpy2.mpfr(c)
            c0 = (1 - r) / (1 + r)
            direct = sum(
                (max(ZERO, c0 * (a * r ** abs(t - shift) - c * r ** abs(t))) for t in ts), ZERO
            )
            assert abs(_lattice_hockey(a, c, shift, r) - direct) < 1e-20


def _scale_dist(mech: IQRScale, x: tuple) -> tuple:
    """``((A'_1, A'_2), P[⊥], l)``: the output is ⊥, else 0.0 if l is None (IQR 0), else
    ``2^((l + Z)/G)`` with Z ~ DLap(G/epsilon) whichever discretisation passed."""
    (_, a1, l1), (_, a2, l2) = mech.release_units(x)
    assert l1 == l2  # the release does not depend on the discretisation
    g, thr, e = mech.grid, mech.threshold_units, mech.epsilon_q
    p1, p2 = (pass_probability((a - 1) * g, g, thr, e, precision=PREC) for a in (a1, a2))
    return (a1, a2), (1 - p1) * (1 - p2), l1


def _scale_worst(mech: IQRScale, values: tuple, max_n: int, eps: float) -> tuple:
    """Worst hockey-stick divergence at ``eps`` over the neighbour pairs (either order), and a pair
    attaining it.  The divergence depends on the pair only through (A', A', l_x - l_y): cached."""
    dist = {x: _scale_dist(mech, x) for x in _datasets(values, max_n)}
    cache: dict = {}
    worst, arg = ZERO, None
    with gmpy2.context(precision=PREC):
        e = gmpy2.exp(gmpy2.mpfr(eps))
        r = gmpy2.exp(-_mpfr(mech.epsilon_q) / mech.grid)
        for x, y in _neighbour_pairs(values, max_n):
            for u, w in ((x, y), (y, x)):
                (ku, qu, lu), (kw, qw, lw) = dist[u], dist[w]
                shift = None if lu is None or lw is None else lu - lw
                key = (ku, kw, lu is None, lw is None, shift)
                if key not in cache:
                    h = max(ZERO, qu - e * qw)  # ⊥
                    if shift is not None:
                        h += _lattice_hockey(1 - qu, e * (1 - qw), shift, r)
                    elif lu is None and lw is None:  # both release 0.0
                        h += max(ZERO, (1 - qu) - e * (1 - qw))
                    else:  # disjoint releases
                        h += 1 - qu
                    cache[key] = h
                if cache[key] > worst:
                    worst, arg = cache[key], (u, w)
    return worst, arg


def _scale_adapter():
    adapter = IQRScaleAdapter()
    return adapter.mechanism, adapter.epsilon, adapter.delta


def _scale(eps_step: float, delta: float, grid: int):
    def make():
        mech = IQRScale(eps_step, delta, (0, 100), grid=grid)
        return mech, mech.claimed_epsilon, delta

    return make


# Values spread over several bins of both discretisations (and IQR 0).  At the adapter's
# parameters the test passes only for A' ~ 28 (hundreds of records), so small datasets check the
# unstable regime (where the divergence peaks, at ~2 x delta/2); the two other settings pass the
# test with probability > 0.3 at A' = 4, reached by datasets of 16 records, with released
# log-units moving by up to G - 1 between neighbours.
SCALE_CASES = {
    "adapter": (_scale_adapter, (0, 1, 2, 3, 5, 8, 13, 100), 7),
    "eps1-delta0.2-G2": (_scale(1.0, 0.2, 2), (0, 1, 3, 6), 16),
    "eps1-delta0.1-G4": (_scale(1.0, 0.1, 4), (0, 1, 3, 6), 16),
}
SCALE_SLOW_VALUES = {
    "adapter": ((0, 1, 2, 3, 4, 5, 6, 8, 13, 100), 8),
    "eps1-delta0.2-G2": ((0, 1, 3, 5, 6, 7), 14),
    "eps1-delta0.1-G4": ((0, 1, 3, 5, 6, 7), 14),
}


@pytest.mark.parametrize("case", list(SCALE_CASES))
def test_iqr_scale_meets_its_claim_exactly(case: str) -> None:
    make, values, max_n = SCALE_CASES[case]
    mech, eps, delta = make()
    assert eps == mech.claimed_epsilon
    worst, pair = _scale_worst(mech, values, max_n, eps)
    assert worst <= delta, (float(worst / delta), pair)


@pytest.mark.slow
@pytest.mark.parametrize("case", list(SCALE_CASES))
def test_iqr_scale_meets_its_claim_exactly_more_values(case: str) -> None:
    make = SCALE_CASES[case][0]
    values, max_n = SCALE_SLOW_VALUES[case]
    mech, eps, delta = make()
    worst, pair = _scale_worst(mech, values, max_n, eps)
    assert worst <= delta, (float(worst / delta), pair)


def test_iqr_scale_check_has_teeth() -> None:
    # at the adapter's parameters: testing A' instead of A' - 1 (threshold one unit lower) fails
    # (1.26 delta), and so does claiming delta / 2 (the two discretisations each spend ~delta/2).
    # Halving the claimed epsilon is not caught on datasets this small: 4 eps_step is loose here.
    make, values, max_n = SCALE_CASES["adapter"]
    mech, eps, delta = make()
    assert _scale_worst(mech, values, max_n, eps)[0] > delta / 2
    mech.threshold_units -= mech.grid
    assert _scale_worst(mech, values, max_n, eps)[0] > delta
