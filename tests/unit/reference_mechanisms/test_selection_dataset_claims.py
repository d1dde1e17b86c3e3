"""Privacy claims of the exact selection and PTR mechanisms as properties, on exact pmfs.

Over random utility vectors / small datasets and their neighbours (hypothesis), the exact output
distributions must satisfy the claim: P[M(x) = v] <= e^eps P[M(x') = v] (pure) or the
hockey-stick divergence sum_v max(0, P[v] - e^eps P'[v]) <= delta (approximate).  Each property
has a power twin: a mutant accounting (half the epsilon, or half the delta) must be violated.
"""

from __future__ import annotations

from fractions import Fraction

import gmpy2
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from reference_mechanisms.base2_arithmetic import Eta
from reference_mechanisms.base2_exponential import Base2ExponentialMechanism
from reference_mechanisms.iqr_scale import IQRScale
from reference_mechanisms.ptr import PTRMedian, pass_probability
from reference_mechanisms.report_noisy_max import ReportNoisyMax

ETAS = [Eta(1, 1), Eta(3, 2), Eta(5, 3, 2), Eta(2485, 12)]
utils_st = st.lists(st.integers(-6, 6), min_size=1, max_size=6)


def _max_ratio(p: list, q: list) -> Fraction:
    return max(a / b for a, b in zip(p, q, strict=True))


@given(st.sampled_from(ETAS), utils_st, st.data(), st.sampled_from(["utility", "loss"]))
@settings(max_examples=150, deadline=None)
def test_base2_integer_utilities_ratio_within_claim(eta, u, data, convention) -> None:
    shift = data.draw(st.lists(st.integers(-1, 1), min_size=len(u), max_size=len(u)))
    m = Base2ExponentialMechanism(None, 1.0, (-5, 5), eta=eta, convention=convention)
    p, q = m.probabilities(u), m.probabilities([a + b for a, b in zip(u, shift, strict=True)])
    bound = eta.base**-2  # 2^(2 eta): the claim epsilon = 2 eta ln 2 for Delta = 1
    assert _max_ratio(p, q) <= bound and _max_ratio(q, p) <= bound


@given(st.sampled_from(ETAS[:3]), st.data())
@settings(max_examples=60, deadline=None)
def test_base2_fractional_utilities_ratio_within_claim(eta, data) -> None:
    u = data.draw(st.lists(st.integers(-8, 8).map(lambda v: v / 4), min_size=2, max_size=4))
    shift = data.draw(
        st.lists(st.integers(-4, 4).map(lambda v: v / 4), min_size=len(u), max_size=len(u))
    )
    m = Base2ExponentialMechanism(None, 1.0, (-2, 2), eta=eta)
    p, q = m.probabilities(u), m.probabilities([a + b for a, b in zip(u, shift, strict=True)])
    bound = eta.base**-2
    assert _max_ratio(p, q) <= bound and _max_ratio(q, p) <= bound


def test_base2_factor_two_is_needed() -> None:
    # power: (0, 1) -> (1, 0) reaches ratio b^-2 > b^-1, so claiming eta ln 2 would be false
    eta = Eta(3, 2)
    m = Base2ExponentialMechanism(None, 1.0, (-5, 5), eta=eta)
    r = _max_ratio(m.probabilities([0, 1, 0, 0, 0]), m.probabilities([1, 0, 1, 1, 1]))
    assert r > eta.base**-1


@given(st.floats(0.2, 4.0), st.lists(st.integers(-5, 5), min_size=2, max_size=6), st.data())
@settings(max_examples=60, deadline=None)
def test_report_noisy_max_ratio_within_claim(eps, u, data) -> None:
    shift = data.draw(st.lists(st.integers(-1, 1), min_size=len(u), max_size=len(u)))
    m = ReportNoisyMax(eps)
    p = m.probabilities(np.array(u, dtype=float))
    q = m.probabilities(np.array(u, dtype=float) + shift)
    with gmpy2.context(precision=128):
        bound = gmpy2.exp(gmpy2.mpfr(eps)) * (1 + gmpy2.mpfr(2) ** -100)
        assert all(a <= bound * b and b <= bound * a for a, b in zip(p, q, strict=True))


# ---------------------------------------------------------------------- PTR median
def _ptr_dist(m: PTRMedian, x: list) -> dict:
    med, p = m.release_probability(np.array(x, dtype=float))
    return {"bot": 1 - p, med: p}


def _hockey(p: dict, q: dict, eps: float) -> gmpy2.mpfr:
    with gmpy2.context(precision=128):
        e = gmpy2.exp(gmpy2.mpfr(eps))
        return sum((max(gmpy2.mpfr(0), v - e * q.get(k, 0)) for k, v in p.items()), gmpy2.mpfr(0))


def _add_remove_neighbours(x: list, universe: range):
    for v in universe:
        yield sorted(x + [v])
    for i in range(len(x)):
        y = x[:i] + x[i + 1 :]
        if y:
            yield y


datasets_st = st.lists(st.integers(0, 4), min_size=1, max_size=9).map(sorted)


@given(datasets_st, st.sampled_from([(1.0, 0.1), (0.5, 0.2), (2.0, 0.01)]))
@settings(max_examples=120, deadline=None)
def test_ptr_median_is_eps_delta_dp(x, params) -> None:
    eps, delta = params
    m = PTRMedian(eps, delta, (0, 4), grid=4)
    px = _ptr_dist(m, x)
    for y in _add_remove_neighbours(x, range(5)):
        py = _ptr_dist(m, y)
        assert _hockey(px, py, eps) <= delta and _hockey(py, px, eps) <= delta


def test_ptr_median_mutant_accounting_is_violated() -> None:
    # power: with epsilon claimed as eps/2 some neighbour pair exceeds delta
    eps, delta = 1.0, 0.1
    m = PTRMedian(eps, delta, (0, 4), grid=4)
    worst = max(
        _hockey(_ptr_dist(m, x), _ptr_dist(m, y), eps / 2)
        for x in ([2] * 5, [2] * 6, [1, 2, 2, 2, 3], [2] * 9)
        for y in _add_remove_neighbours(x, range(5))
    )
    assert worst > delta


# ------------------------------------------------------------------------ IQR scale
_T = np.arange(-600, 601)  # output grid units covering every release of these tests +- 40 scales


def _iqr_dist(m: IQRScale, x: list) -> tuple[float, float, np.ndarray]:
    """(P[⊥], P[0.0], P[2^(t/G)] for t in _T) in float64 (errors ~1e-16, far below delta)."""
    grid, e = m.grid, m.epsilon_q
    scale = float(Fraction(grid) / e)
    passes, logs = [], []
    for _iqr, a, lu in m.release_units(np.array(x, dtype=float)):
        passes.append(float(pass_probability((a - 1) * grid, grid, m.threshold_units, e)))
        logs.append(lu)
    bot = (1 - passes[0]) * (1 - passes[1])
    zero, arr = 0.0, np.zeros(_T.size)
    for w, lu in zip([passes[0], (1 - passes[0]) * passes[1]], logs, strict=True):
        if lu is None:
            zero += w
        else:
            arr += w * np.tanh(0.5 / scale) * np.exp(-np.abs(_T - lu) / scale)
    return bot, zero, arr


def _hockey_arr(p: tuple, q: tuple, eps: float) -> float:
    e = np.exp(eps)
    return float(
        max(0.0, p[0] - e * q[0]) + max(0.0, p[1] - e * q[1]) + np.maximum(0, p[2] - e * q[2]).sum()
    )


@given(st.lists(st.sampled_from([0, 1, 3, 6, 10]), min_size=2, max_size=8).map(sorted))
@settings(max_examples=60, deadline=None)
def test_iqr_scale_is_4eps_delta_dp(x) -> None:
    eps_step, delta = 0.5, 0.1
    m = IQRScale(eps_step, delta, (0, 10), grid=4)
    px = _iqr_dist(m, x)
    for y in _add_remove_neighbours(x, range(0, 11, 2)):
        py = _iqr_dist(m, y)
        # mass outside the +-40-scale window is < e^-40: covered by the 1e-12 slack
        assert _hockey_arr(px, py, 4 * eps_step) <= delta + 1e-12
        assert _hockey_arr(py, px, 4 * eps_step) <= delta + 1e-12


def test_iqr_scale_mutant_accounting_is_violated() -> None:
    # power: the two discretisations each spend up to ~delta/2; claiming delta/2 in total is
    # false (x = [0, 0] has IQR 0 but an unstable bin; adding a 6 moves it)
    eps_step, delta = 0.5, 0.1
    m = IQRScale(eps_step, delta, (0, 10), grid=4)
    px, py = _iqr_dist(m, [0, 0]), _iqr_dist(m, [0, 0, 6])
    assert delta / 2 < _hockey_arr(px, py, 4 * eps_step) <= delta
