"""Claims beyond one (epsilon, delta) point (auditor.core.claim_kinds, PrivacyClaim's methods).

Checked against published closed forms and against dp_accounting, and shown to fail for wrong
values: a test that a correct mechanism is never called broken is paired with one that a claim
a little too strong is.
"""

from __future__ import annotations

import json
import math

import dp_accounting
import mpmath
import numpy as np
import pytest
from dp_accounting.pld import privacy_loss_distribution
from dp_accounting.rdp import rdp_privacy_accountant
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy import stats

from auditor.core.claim_kinds import (
    CLAIM_SYNTAX,
    Claim,
    GaussianDP,
    PrivacyProfile,
    RenyiDP,
    TradeOffDP,
    ZeroConcentratedDP,
    as_claim,
    bernoulli_renyi_lower,
    claim_from_dict,
    claim_to_dict,
    parse_claim,
)
from auditor.core.claims import PrivacyClaim, exceeds
from auditor.core.errors import InvalidArgument
from auditor.statistics.clopper_pearson import cp_lower, cp_upper, epsilon_lower_bound

# -- exact event probabilities of reference pairs ---------------------------------------------


def gaussian_events(shift: float, sigma: float, ts: np.ndarray) -> list[tuple[float, float]]:
    """(p0, p1) of threshold events for N(shift, sigma^2) (x) vs N(0, sigma^2) (x'), p0 >= p1.

    Above the midpoint the event is {y > t}, below it {y < t} with the roles of the two inputs
    swapped (the pair is symmetric); both are computed as tails, so neither rounds to 1.
    """
    out = []
    for t in ts.tolist():
        if t >= shift / 2:
            out.append((float(stats.norm.sf(t, shift, sigma)), float(stats.norm.sf(t, 0, sigma))))
        else:
            out.append((float(stats.norm.cdf(t, 0, sigma)), float(stats.norm.cdf(t, shift, sigma))))
    return out


def laplace_events(eps: float, ts: np.ndarray) -> list[tuple[float, float]]:
    """(p0, p1) of threshold events for Lap(1, 1/eps) vs Lap(0, 1/eps), p0 >= p1 (as above)."""
    b = 1.0 / eps
    out = []
    for t in ts.tolist():
        if t >= 0.5:
            out.append((float(stats.laplace.sf(t, 1, b)), float(stats.laplace.sf(t, 0, b))))
        else:
            out.append((float(stats.laplace.cdf(t, 0, b)), float(stats.laplace.cdf(t, 1, b))))
    return out


def gdp_mp(mu: float, eps: float) -> mpmath.mpf:
    """Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2) in 60-digit mpmath (DRS19 Cor. 2.13)."""
    with mpmath.workdps(60):
        m, e = mpmath.mpf(mu), mpmath.mpf(eps)
        return mpmath.ncdf(-e / m + m / 2) - mpmath.exp(e) * mpmath.ncdf(-e / m - m / 2)


def gdp_curve(mu: float):
    """The mu-GDP trade-off function, vectorised (for TradeOffDP / PrivacyProfile claims)."""
    return lambda a: stats.norm.cdf(stats.norm.isf(np.asarray(a, dtype=float)) - mu)


def gdp_curve_scalar(mu: float):
    """The same, not vectorised (math only), to exercise point-by-point evaluation."""

    def f(a: float) -> float:
        if a <= 0.0:
            return 1.0
        if a >= 1.0:
            return 0.0
        return float(stats.norm.cdf(float(stats.norm.isf(a)) - mu))

    return f


def all_claims() -> dict[str, Claim]:
    """One claim of every kind (and of both representations for the curve kinds)."""
    return {
        "pure": PrivacyClaim(1.0),
        "approx": PrivacyClaim(1.0, 1e-3),
        "gdp": GaussianDP(1.0),
        "zcdp": ZeroConcentratedDP(0.5),
        "rdp_table": RenyiDP({2: 0.5, 4: 1.2, 8: 2.0, 32: 6.0}),
        "rdp_callable": RenyiDP(lambda a: a / 2.0, name="gaussian sigma=1"),
        "profile_table": PrivacyProfile([(0.0, 0.5), (0.5, 0.3), (1.0, 0.13), (2.0, 0.02)]),
        "profile_callable": PrivacyProfile(lambda e: float(gdp_mp(1.0, e)), name="1-GDP"),
        "fdp_callable": TradeOffDP(gdp_curve(1.0), name="1-GDP"),
        "fdp_table": TradeOffDP([(0.0, 1.0), (0.1, 0.6), (0.3, 0.3), (0.6, 0.1), (1.0, 0.0)]),
    }


CLAIMS = all_claims()


# -- Gaussian DP: published closed forms --------------------------------------------------------


@pytest.mark.parametrize("sigma", [0.5, 1.0, 2.0, 3.73])
@pytest.mark.parametrize("eps", [0.0, 0.3, 1.0, 2.0, 5.0])
def test_gdp_delta_is_the_analytic_gaussian_from_above(sigma, eps):
    """Balle & Wang 2018 Thm. 8 = DRS19 Cor. 2.13 with mu = 1/sigma; ours is an upper value."""
    exact = gdp_mp(1 / sigma, eps)
    ours = GaussianDP(1 / sigma).delta_for_epsilon(eps)
    assert mpmath.mpf(ours) >= exact
    assert ours == pytest.approx(float(exact), rel=1e-12)


@pytest.mark.parametrize("sigma", [0.5, 1.0, 3.73])
@pytest.mark.parametrize("eps", [0.0, 0.5, 1.0, 2.0])
def test_gdp_delta_matches_dp_accounting_pld(sigma, eps):
    """dp_accounting's PLD of the Gaussian mechanism (pessimistic: an upper value)."""
    pld = privacy_loss_distribution.from_gaussian_mechanism(
        standard_deviation=sigma, sensitivity=1, value_discretization_interval=1e-4
    )
    theirs = pld.get_delta_for_epsilon(eps)
    ours = GaussianDP(1 / sigma).delta_for_epsilon(eps)
    assert ours <= theirs * (1 + 1e-9)
    assert ours == pytest.approx(theirs, rel=1e-6)


def test_gdp_analytic_gaussian_calibration_value():
    """Balle & Wang 2018 (analytic Gaussian): eps = 1, delta = 1e-5 needs sigma ~= 3.73.

    The number is ours (solving their Thm. 8 numerically gives sigma = 3.7306); at 3.73 the
    delta is 1.0028e-5.  The classical calibration sqrt(2 ln(1.25/delta))/eps = 4.84 (Dwork &
    Roth 2014, Thm. A.1) is far from it, and sigma = 3.5 gives a delta far above 1e-5.
    """
    assert GaussianDP(1 / 3.73).delta_for_epsilon(1.0) == pytest.approx(1e-5, rel=0.05)
    assert GaussianDP(1 / 3.73).epsilon_for_delta(1e-5) == pytest.approx(1.0, rel=1e-3)
    classical = math.sqrt(2 * math.log(1.25 / 1e-5))
    assert GaussianDP(1 / classical).delta_for_epsilon(1.0) < 0.1e-5
    assert GaussianDP(1 / 3.5).delta_for_epsilon(1.0) > 1.5e-5


def test_gdp_delta_stays_positive_where_floats_underflow():
    d = GaussianDP(0.5).delta_for_epsilon(200.0)
    assert 0.0 < d < 1e-300
    assert GaussianDP(1.0).delta_for_epsilon(1e4) > 0.0


@pytest.mark.parametrize("mu", [0.2, 1.0, 3.0])
def test_gdp_tradeoff_is_the_closed_form(mu):
    a = np.linspace(0, 1, 1001)
    exact = stats.norm.cdf(stats.norm.ppf(1 - a) - mu)
    f = GaussianDP(mu).tradeoff(a)
    assert np.all(f <= exact)
    np.testing.assert_allclose(f, exact, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("sigma", [0.3, 1.0, 2.5])
def test_gdp_threshold_events_attain_the_curve(sigma):
    """Threshold events of N(1, s^2) vs N(0, s^2) lie on the (1/s)-GDP curve (DRS19 Sec. 2.3)."""
    mu = 1 / sigma
    events = gaussian_events(1.0, sigma, np.linspace(-6 * sigma, 7 * sigma, 131))
    claim, tighter = GaussianDP(mu), GaussianDP(0.85 * mu)
    for p0, p1 in events:
        assert claim.certified(p0, p1) == pytest.approx(mu, rel=1e-9)
        assert not claim.violated(p0, p1)
        assert tighter.violated(p0, p1)


# -- zCDP ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("rho", [0.01, 0.1, 0.5, 2.0])
@pytest.mark.parametrize("delta", [1e-5, 1e-9])
def test_zcdp_epsilon_beats_bun_steinke_and_matches_dp_accounting(rho, delta):
    """CKS20 Cor. 13 improves on Bun & Steinke 2016 Prop. 1.3, rho + 2 sqrt(rho ln(1/delta)), and
    is the conversion dp_accounting applies to rdp = rho * alpha on its orders (a grid of
    orders, so theirs is a little larger)."""
    ours = ZeroConcentratedDP(rho).epsilon_for_delta(delta)
    assert ours < rho + 2 * math.sqrt(rho * math.log(1 / delta))
    orders = rdp_privacy_accountant.DEFAULT_RDP_ORDERS
    theirs, _ = rdp_privacy_accountant.compute_epsilon(orders, [rho * a for a in orders], delta)
    assert ours <= theirs + 1e-9
    assert ours == pytest.approx(theirs, rel=1e-3)


def test_bernoulli_renyi_is_minimised_at_the_corner():
    """Both divergence orders only grow as p0 grows or p1 shrinks (p0 > p1): the corner of
    the confidence box is its least favourable point (joint quasi-convexity, van Erven &
    Harremoes 2014, Thm. 13), checked on a grid against the float formula."""

    def d(x, y, a):
        return math.log(x**a * y ** (1 - a) + (1 - x) ** a * (1 - y) ** (1 - a)) / (a - 1)

    grid = np.linspace(0.01, 0.99, 25)
    for alpha in (1.5, 2.0, 5.0, 20.0):
        for p0 in grid:
            for p1 in grid[grid < p0]:
                for fwd in (True, False):
                    base = d(p0, p1, alpha) if fwd else d(p1, p0, alpha)
                    up = min(p0 + 0.01, 0.999)
                    down = max(p1 - 0.01, 0.001)
                    more = [d(up, p1, alpha), d(p0, down, alpha)]
                    if not fwd:
                        more = [d(p1, up, alpha), d(down, p0, alpha)]
                    assert all(m >= base * (1 - 1e-12) for m in more)


@pytest.mark.parametrize(
    ("p0", "p1"),
    [
        (0.9, 0.2),
        (0.6, 0.4),
        (0.99, 1e-12),
        (0.3, 1e-300),
        (0.02, 0.01),
        # close p0, p1: the sup is at alpha ~ 1e7, 1.3 times the alpha -> 1 (KL) limit
        (0.19132395691150073, 0.19132392605720028),
    ],
)
def test_zcdp_certified_is_a_lower_bound_close_to_the_sup(p0, p1):
    """Our sup over alpha is <= the true sup (60-digit mpmath, golden-section search near the
    maximiser on a grid of alpha - 1 in [1e-14, 1e14]) and within 1e-8 of it."""
    mpmath.mp.dps = 60

    def g(x, y, t):
        a = 1 + mpmath.mpf(10) ** t
        x, y = mpmath.mpf(x), mpmath.mpf(y)
        return mpmath.log(x**a * y ** (1 - a) + (1 - x) ** a * (1 - y) ** (1 - a)) / (a - 1) / a

    best = mpmath.mpf(0)
    for x, y in ((p0, p1), (p1, p0)):
        ts = np.linspace(-14, 14, 400)
        vals = [g(x, y, t) for t in ts]
        i = int(np.argmax(vals))
        lo, hi = mpmath.mpf(ts[max(i - 1, 0)]), mpmath.mpf(ts[min(i + 1, len(ts) - 1)])
        for _ in range(120):
            m1, m2 = lo + (hi - lo) * 0.382, lo + (hi - lo) * 0.618
            lo, hi = (m1, hi) if g(x, y, m1) < g(x, y, m2) else (lo, m2)
        best = max(best, max(vals), g(x, y, (lo + hi) / 2))
    ours = ZeroConcentratedDP(1.0).certified(p0, p1)
    assert mpmath.mpf(ours) <= best
    assert ours == pytest.approx(float(best), rel=1e-8)


@pytest.mark.parametrize("sigma", [0.3, 1.0, 5.0])
def test_zcdp_gaussian_threshold_events(sigma):
    """N(0, s^2) shifted by 1 is 1/(2 s^2)-zCDP (Bun & Steinke 2016, Prop. 1.6): no threshold
    event refutes it, some come within 10% of it, and half of it is refuted."""
    rho = 1 / (2 * sigma**2)
    events = gaussian_events(1.0, sigma, np.linspace(-9 * sigma, 9 * sigma, 181))
    claim = ZeroConcentratedDP(rho)
    certified = [claim.certified(p0, p1) for p0, p1 in events]
    assert max(certified) <= rho
    assert max(certified) >= 0.9 * rho
    assert not any(claim.violated(p0, p1) for p0, p1 in events)
    assert any(ZeroConcentratedDP(0.5 * rho).violated(p0, p1) for p0, p1 in events)


@pytest.mark.parametrize("eps", [0.1, 0.5, 1.0, 2.0])
def test_laplace_is_pure_and_zcdp(eps):
    """Laplace(1/eps) at distance 1 is eps-DP and (eps^2/2)-zCDP (Bun & Steinke 2016, Prop. 1.4):
    no threshold event refutes either; 0.95 eps-DP is refuted (tails attain the ratio e^eps)."""
    events = laplace_events(eps, np.linspace(-30 / eps, 30 / eps, 241))
    pure, zcdp = PrivacyClaim(eps), ZeroConcentratedDP(eps**2 / 2)
    for p0, p1 in events:
        assert not pure.violated(p0, p1)
        assert not zcdp.violated(p0, p1)
    assert any(PrivacyClaim(0.95 * eps).violated(p0, p1) for p0, p1 in events)


# -- Renyi DP --------------------------------------------------------------------------------------


@pytest.mark.parametrize("sigma", [0.7, 1.3, 4.0])
@pytest.mark.parametrize("delta", [1e-5, 1e-8])
def test_gaussian_rdp_curve_matches_dp_accounting(sigma, delta):
    """Mironov 2017 Prop. 7: the Gaussian mechanism has eps(alpha) = alpha / (2 sigma^2); the
    same epsilon(delta) as dp_accounting's RdpAccountant on one GaussianDpEvent."""
    accountant = dp_accounting.rdp.RdpAccountant()
    accountant.compose(dp_accounting.GaussianDpEvent(noise_multiplier=sigma))
    claim = RenyiDP(lambda a: a / (2 * sigma**2), name="gaussian")
    ours = claim.epsilon_for_delta(delta)
    assert ours == pytest.approx(accountant.get_epsilon(delta), rel=1e-6)
    assert claim.delta_for_epsilon(ours) <= delta
    assert claim.delta_for_epsilon(1.0) == pytest.approx(accountant.get_delta(1.0), rel=1e-6)


def test_rdp_most_violated_order_and_order_bounds():
    claim = RenyiDP({2: 0.5, 4: 1.2, 8: 2.0})
    p0, p1 = 0.9, 0.2
    bounds = claim.order_bounds(p0, p1)
    assert [a for a, _, _ in bounds] == [2.0, 4.0, 8.0]
    for alpha, d, eps in bounds:
        assert d == pytest.approx(bernoulli_renyi_lower(p0, p1, alpha))
        assert eps == dict([(2.0, 0.5), (4.0, 1.2), (8.0, 2.0)])[alpha]
    ratios = {a: d / e for a, d, e in bounds}
    alpha, d, eps = claim.most_violated_order(p0, p1)
    assert alpha == max(ratios, key=ratios.get)
    assert claim.certified(p0, p1) == pytest.approx(max(ratios.values()), rel=1e-12)
    assert claim.violated(p0, p1)
    assert not RenyiDP({2: 5.0, 4: 12.0, 8: 20.0}).violated(p0, p1)
    scaled = claim.with_value(2.0)
    assert scaled.epsilons == (1.0, 2.4, 4.0)
    assert scaled.certified(p0, p1) == pytest.approx(claim.certified(p0, p1), rel=1e-12)


def test_rdp_gaussian_threshold_events_never_violate_its_curve():
    sigma = 1.0
    claim = RenyiDP(lambda a: a / (2 * sigma**2))
    events = gaussian_events(1.0, sigma, np.linspace(-8, 9, 69))
    assert not any(claim.violated(p0, p1) for p0, p1 in events)
    assert any(claim.with_value(0.6).violated(p0, p1) for p0, p1 in events)


def test_rdp_infinite_order_bounds_nothing():
    claim = RenyiDP({2: 0.5, 64: math.inf})
    assert claim.certified(0.9, 0.2) == pytest.approx(RenyiDP({2: 0.5}).certified(0.9, 0.2))
    assert claim_to_dict(claim)["table"] == [[2.0, 0.5]]


# -- pure / approximate DP --------------------------------------------------------------------------


@pytest.mark.parametrize(("k0", "k1", "n"), [(300, 10, 1000), (5000, 1500, 10000), (60, 1, 100)])
@pytest.mark.parametrize("delta", [0.0, 1e-3])
def test_privacy_claim_certified_is_the_estimator_formula(k0, k1, n, delta):
    """Where ln((p0_lo - delta)/p1_hi) dominates, certified is exactly the estimator's bound."""
    alpha = 0.05
    p0, p1 = cp_lower(k0, n, alpha / 2), cp_upper(k1, n, alpha / 2)
    claim = PrivacyClaim(0.5, delta)
    assert claim.certified(p0, p1) == epsilon_lower_bound(k0, n, k1, n, alpha, delta)
    assert claim.violated(p0, p1) == (epsilon_lower_bound(k0, n, k1, n, alpha, delta) > 0.5)


def test_privacy_claim_certified_uses_the_complement_branch():
    """(p0, p1) = (0.9, 0.5): ln(0.9/0.5) = 0.59, but the complement event reads
    P[not S | x'] = 0.5 <= e^eps * 0.1 + delta, so eps >= ln(5) = 1.61 (the other branch of
    f_{eps,delta})."""
    claim = PrivacyClaim(1.0)
    assert claim.certified(0.9, 0.5) == pytest.approx(math.log(5))
    assert claim.violated(0.9, 0.5)
    assert PrivacyClaim(1.0, 0.01).certified(0.9, 0.5) == pytest.approx(math.log(0.49 / 0.1))
    assert claim.certified(0.3, 0.3) == 0.0 and claim.certified(0.2, 0.3) == 0.0
    assert PrivacyClaim(1.0, 0.5).certified(0.4, 0.0) == 0.0  # p0_lo <= delta
    assert PrivacyClaim(1.0, 0.1).certified(0.4, 0.0) == math.inf


@pytest.mark.parametrize(("eps0", "delta0"), [(1.0, 0.0), (0.5, 1e-3), (3.0, 0.1)])
def test_privacy_claim_delta_is_the_tight_hockey_stick(eps0, delta0):
    """delta(e) of every (eps0, delta0)-DP pair (KOV15 worst pair): checked against the hockey
    stick divergence of that pair computed directly, and against sup_a 1 - e^e a - f(a)."""
    claim = PrivacyClaim(eps0, delta0)
    w = (1 - delta0) / (1 + math.exp(eps0))
    p = np.array([delta0, w * math.exp(eps0), w, 0.0])
    q = p[::-1]
    a = np.linspace(0, 1, 200001)
    for e in (0.0, 0.3 * eps0, 0.9 * eps0, eps0, 2 * eps0):
        direct = float(np.sum(np.maximum(p - math.exp(e) * q, 0)))
        conjugate = float(np.max(1 - math.exp(e) * a - claim.tradeoff(a)))
        ours = claim.delta_for_epsilon(e)
        assert ours >= direct and ours == pytest.approx(direct, rel=1e-9, abs=1e-15)
        assert direct - 2e-4 <= conjugate <= direct + 3e-12  # a grid sup of a lowered curve
    # the looser delta0 + (1 - delta0)(1 - e^(e - eps0)) is not the tight value
    assert claim.delta_for_epsilon(0.0) < delta0 + (1 - delta0) * (1 - math.exp(-eps0))
    assert PrivacyClaim(eps0).delta_for_epsilon(0.0) == pytest.approx(math.tanh(eps0 / 2))


def test_privacy_claim_epsilon_for_delta():
    claim = PrivacyClaim(1.0, 1e-5)
    assert claim.epsilon_for_delta(1e-5) == 1.0
    assert claim.epsilon_for_delta(1e-6) == math.inf
    assert claim.epsilon_for_delta(0.99) == 0.0
    e = claim.epsilon_for_delta(0.1)
    assert 0 < e < 1 and claim.delta_for_epsilon(e) <= 0.1
    assert claim.delta_for_epsilon(e * (1 - 1e-9)) > 0.1
    assert PrivacyClaim(2.0).epsilon_for_delta(0.0) == 2.0


def test_a_correct_pure_claim_on_its_boundary_is_not_violated():
    """Event probabilities with ratio e^eps up to rounding: the tolerance keeps it unviolated."""
    for eps in (0.01, 0.5, 1.0, 3.0):
        for p1 in (1e-12, 1e-6, 0.01, 0.04):
            p0 = p1 * math.exp(eps)
            assert not PrivacyClaim(eps).violated(p0, p1)
            assert PrivacyClaim(eps * (1 - 1e-9)).violated(p0, p1)


# -- privacy profiles and f-DP ----------------------------------------------------------------------


def test_profile_table_steps_and_certified():
    claim = PrivacyProfile({0.5: 0.3, 1.0: 0.1})
    assert claim.delta_for_epsilon(0.2) == 1.0  # below the table: no claim
    assert claim.delta_for_epsilon(0.7) == 0.3 and claim.delta_for_epsilon(5.0) == 0.1
    assert claim.epsilon_for_delta(0.2) == 1.0 and claim.epsilon_for_delta(0.05) == math.inf
    # p0 = 0.5, p1 = 0.05: the point (1.0, 0.1) is refuted for s < ln(0.4/0.05) / 1
    p0, p1 = 0.5, 0.05
    expected = max(math.log((p0 - 0.3) / p1) / 0.5, math.log((p0 - 0.1) / p1) / 1.0)
    assert claim.certified(p0, p1) == pytest.approx(expected)
    assert claim.violated(p0, p1)
    assert not claim.with_value(expected * 1.01).violated(p0, p1)
    assert claim.with_value(2.0).delta_for_epsilon(1.2) == 0.3  # eps stretched by 2
    # refuted at eps = 0 (p0 - p1 > delta(0)): refuted at every scale
    assert PrivacyProfile({0.0: 0.2, 1.0: 0.0}).certified(0.5, 0.1) == math.inf


def test_profile_of_gdp_agrees_with_gdp():
    mu = 1.0
    profile = CLAIMS["profile_callable"]
    gdp = GaussianDP(mu)
    assert profile.epsilon_for_delta(1e-5) == pytest.approx(gdp.epsilon_for_delta(1e-5), rel=1e-9)
    a = np.linspace(0, 1, 501)
    f, exact = profile.tradeoff(a), gdp.tradeoff(a)
    assert np.all(f <= exact + 1e-12)
    assert np.max(exact - f) < 2e-3
    for p0, p1 in gaussian_events(1.0, 1 / mu, np.linspace(-5, 6, 45)):
        assert not profile.violated(p0, p1)


@pytest.mark.parametrize("f", [gdp_curve(1.0), gdp_curve_scalar(1.0)])
def test_fdp_of_gdp_agrees_with_gdp(f):
    claim, gdp = TradeOffDP(f, name="1-GDP"), GaussianDP(1.0)
    for e in (0.0, 0.5, 1.0, 3.0):
        exact = gdp.delta_for_epsilon(e)
        ours = claim.delta_for_epsilon(e)
        assert ours >= exact * (1 - 1e-12)  # an upper value (up to the float exact value)
        assert ours == pytest.approx(exact, rel=1e-3)
    e5 = claim.epsilon_for_delta(1e-5)
    assert e5 >= gdp.epsilon_for_delta(1e-5) * (1 - 1e-12)
    assert e5 == pytest.approx(gdp.epsilon_for_delta(1e-5), rel=1e-3)
    for p0, p1 in gaussian_events(1.0, 1.0, np.linspace(-5, 6, 23)):
        assert not claim.violated(p0, p1)
        assert claim.certified(p0, p1) == pytest.approx(1.0, rel=1e-6)


def test_fdp_scale_family():
    """s <= 1: f_s = (1 - s)(1 - a) + s f; 1 <= s < 2: (2 - s) f; s >= 2: 0.  An event on the
    curve of f certifies s = 1 (refutes s = 0.5, not s = 1); an event far below it certifies
    2 - (1 - p0) / f(p1); with_value moves along the family."""
    claim, f = CLAIMS["fdp_callable"], gdp_curve(1.0)
    p0, p1 = gaussian_events(1.0, 1.0, np.array([1.5]))[0]
    assert claim.certified(p0, p1) == pytest.approx((p0 - p1) / ((1 - p1) - float(f(p1))), rel=1e-9)
    assert claim.certified(p0, p1) == pytest.approx(1.0, rel=1e-9)
    assert claim.with_value(0.5).violated(p0, p1)
    assert not claim.violated(p0, p1)
    p0, p1 = gaussian_events(3.0, 1.0, np.array([1.5]))[0]  # a 3-GDP pair against 1-GDP
    assert claim.certified(p0, p1) == pytest.approx(2 - (1 - p0) / float(f(p1)), rel=1e-9)
    assert claim.violated(p0, p1)
    a = np.linspace(0, 1, 11)
    np.testing.assert_allclose(
        claim.with_value(0.5).tradeoff(a), 0.5 * (1 - a) + 0.5 * f(a), atol=1e-12
    )
    np.testing.assert_allclose(claim.with_value(1.5).tradeoff(a), 0.5 * f(a), atol=1e-12)
    assert np.all(claim.with_value(2.5).tradeoff(a) == 0.0)
    assert claim.with_value(2.5).delta_for_epsilon(3.0) == 1.0
    assert claim.with_value(2.5).certified(0.999, 1e-9) <= 2.0  # certified is on f's scale
    assert not claim.with_value(2.5).violated(0.999, 1e-9)


def test_fdp_tests_the_reflected_corner_for_asymmetric_curves():
    """f(a) = max(0, 1 - 2a) is not symmetric (f^-1(b) = (1 - b)/2): for (p0, p1) = (0.8, 0.5)
    the corner (0.5, 0.2) is above f (f(0.5) = 0), but the reflected corner (0.2, 0.5) is below
    it (f(0.2) = 0.6): T(M(x'), M(x)) >= f fails."""
    claim = TradeOffDP(lambda a: np.maximum(0.0, 1 - 2 * np.asarray(a)), name="1-2a")
    assert float(claim.tradeoff(0.5)) <= 1 - 0.8
    assert float(claim.tradeoff(0.2)) > 0.5
    assert claim.violated(0.8, 0.5)
    assert claim.certified(0.8, 0.5) == pytest.approx(2 - 0.5 / 0.6)
    assert not claim.violated(0.6, 0.5)


@pytest.mark.parametrize(
    ("f", "match"),
    [
        (lambda a: np.full_like(np.asarray(a, dtype=float), 0.5), "1 - a"),
        (lambda a: np.where(np.asarray(a) < 0.5, 0.0, 0.3 * (1 - np.asarray(a))), "rises"),
        (lambda a: np.full_like(np.asarray(a, dtype=float), np.nan), "NaN"),
        (lambda a: -np.ones_like(np.asarray(a, dtype=float)), r"not in \[0, 1\]"),
    ],
)
def test_fdp_rejects_what_is_not_a_tradeoff_function(f, match):
    with pytest.raises(InvalidArgument, match=match):
        TradeOffDP(f)


def test_fdp_table_is_read_from_below():
    claim = CLAIMS["fdp_table"]
    np.testing.assert_allclose(claim.tradeoff([0.0, 0.05, 0.1, 0.2, 0.9]), [1, 0.6, 0.6, 0.3, 0.0])


# -- properties every kind shares ------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(CLAIMS))
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    p0=st.one_of(st.floats(0.0, 1.0), st.floats(1e-15, 1e-3), st.floats(0.999, 1.0)),
    p1=st.one_of(st.floats(0.0, 1.0), st.floats(0.0, 1e-6)),
    bump=st.floats(1e-6, 0.2),
)
def test_violated_is_certified_above_value_and_certified_is_monotone(name, p0, p1, bump):
    claim = CLAIMS[name]
    c = claim.certified(p0, p1)
    assert c >= 0.0
    if abs(c - claim.value) > 1e-9 * claim.value:
        assert claim.violated(p0, p1) == (c > claim.value)
    assert claim.violated(p0, p1) == exceeds(c, claim.value)
    higher_p0 = claim.certified(min(1.0, p0 + bump), p1)
    lower_p1 = claim.certified(p0, max(0.0, p1 - bump))
    assert higher_p0 >= c * (1 - 1e-9)
    assert lower_p1 >= c * (1 - 1e-9)


@pytest.mark.parametrize("name", sorted(CLAIMS))
def test_violated_agrees_with_the_tradeoff_curve(name):
    """The corner below the curve <=> violated, for the kinds whose test is the curve; for zCDP
    and RDP the Renyi test is stronger than the curve derived from their conversions, so a
    corner below that curve must be violated (one direction)."""
    claim = CLAIMS[name]
    grid = np.concatenate([[0.0, 1e-12, 1e-6], np.linspace(0.001, 0.999, 29), [1.0]])
    for p0 in grid:
        p1s = grid[grid < p0]
        if p1s.size == 0:
            continue
        f = claim.tradeoff(p1s)
        for p1, fv in zip(p1s.tolist(), f.tolist(), strict=True):
            below = (1 - p0) < fv
            if abs((1 - p0) - fv) < 1e-9:
                continue
            if claim.kind in ("zcdp", "rdp"):
                assert not below or claim.violated(p0, p1), (p0, p1)
            elif claim.kind != "fdp" or name == "fdp_callable":
                assert below == claim.violated(p0, p1), (p0, p1)


@pytest.mark.parametrize("name", sorted(CLAIMS))
def test_tradeoff_is_a_tradeoff_function(name):
    claim = CLAIMS[name]
    a = np.concatenate([[0.0], np.geomspace(1e-12, 1e-3, 50), np.linspace(0.001, 1.0, 500)])
    f = claim.tradeoff(a)
    assert f.shape == a.shape
    assert np.all((f >= 0) & (f <= 1))
    assert np.all(np.diff(f) <= 1e-12)
    assert f[0] <= 1.0 and f[-1] == pytest.approx(0.0, abs=1e-9)
    assert np.all(f <= 1 - a + 1e-12)
    assert claim.tradeoff(0.5).shape == ()


@pytest.mark.parametrize("name", sorted(CLAIMS))
@pytest.mark.parametrize("delta", [1e-6, 1e-3, 0.1])
def test_epsilon_for_delta_is_the_smallest_valid_epsilon(name, delta):
    claim = CLAIMS[name]
    e = claim.epsilon_for_delta(delta)
    if math.isinf(e):
        assert claim.delta_for_epsilon(1000.0) > delta
        return
    assert claim.delta_for_epsilon(e) <= delta
    if e > 0:
        assert claim.delta_for_epsilon(e * (1 - 1e-6)) > delta
    assert claim.epsilon_for_delta(1.0) == 0.0


@pytest.mark.parametrize("name", sorted(CLAIMS))
def test_every_kind_is_a_claim(name):
    claim = CLAIMS[name]
    assert isinstance(claim, Claim)
    assert claim.kind in ("pure", "approx", "profile", "zcdp", "gdp", "fdp", "rdp")
    assert claim.with_value(claim.value * 2).value == pytest.approx(claim.value * 2)
    assert claim.with_value(claim.value * 2).kind == claim.kind
    assert isinstance(claim.describe(), str) and claim.describe()


def test_descriptions_and_parameters():
    assert PrivacyClaim(1.0, 1e-5).describe() == "(1, 1e-05)-DP"
    assert PrivacyClaim(1.0).describe() == "1-DP"
    assert GaussianDP(1.0).describe() == "1-GDP"
    assert ZeroConcentratedDP(0.5).describe() == "0.5-zCDP"
    assert RenyiDP({2: 0.5, 4: 1.2}).describe() == "RDP eps(alpha) = {2: 0.5, 4: 1.2}"
    assert TradeOffDP(gdp_curve(1.0), name="gauss").describe() == "f-DP (gauss)"
    assert PrivacyProfile({1.0: 0.1}, name="p").describe().startswith("delta(eps) profile p")
    params = {k: (c.kind, c.parameter, c.value) for k, c in CLAIMS.items()}
    assert params["pure"] == ("pure", "epsilon", 1.0)
    assert params["approx"] == ("approx", "epsilon", 1.0)
    assert params["gdp"] == ("gdp", "mu", 1.0)
    assert params["zcdp"] == ("zcdp", "rho", 0.5)
    for k in ("rdp_table", "profile_table", "fdp_table"):
        assert params[k][1:] == ("scale", 1.0)


# -- constructors ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("make", "match"),
    [
        (lambda: GaussianDP(0.0), "mu=0.0"),
        (lambda: GaussianDP(math.inf), "mu=inf"),
        (lambda: GaussianDP(True), "mu=True"),
        (lambda: ZeroConcentratedDP(-1), "rho=-1"),
        (lambda: ZeroConcentratedDP("0.5"), "rho='0.5'"),
        (lambda: RenyiDP({1.0: 0.5}), "alpha=1.0"),
        (lambda: RenyiDP({2.0: -0.5}), "-0.5"),
        (lambda: RenyiDP({}), "empty"),
        (lambda: RenyiDP([(2.0, 0.5), (2.0, 0.6)]), "twice"),
        (lambda: RenyiDP({2.0: 0.5}, scale=0), "scale=0"),
        (lambda: RenyiDP(lambda a: 1 / 0), "raised"),
        (lambda: PrivacyProfile({-1.0: 0.1}), "eps=-1.0"),
        (lambda: PrivacyProfile({1.0: 1.5}), "1.5"),
        (lambda: PrivacyProfile([(1.0, "x")]), "pair of numbers"),
        (lambda: PrivacyProfile(lambda e: math.nan), "not a number"),
        (lambda: TradeOffDP([(0.5, 0.9)]), "1 - a"),
        (lambda: TradeOffDP([(1.5, 0.0)]), "a=1.5"),
        (lambda: TradeOffDP(gdp_curve(1.0), name=3), "name=3"),
    ],
)
def test_constructors_name_the_offending_value(make, match):
    with pytest.raises(InvalidArgument, match=match):
        make()


@pytest.mark.parametrize(
    "call",
    [
        lambda c: c.certified(1.2, 0.1),
        lambda c: c.violated(0.5, -0.1),
        lambda c: c.violated(0.5, math.nan),
        lambda c: c.delta_for_epsilon(-1.0),
        lambda c: c.epsilon_for_delta(2.0),
        lambda c: c.tradeoff([0.5, 1.5]),
    ],
)
@pytest.mark.parametrize("name", ["approx", "gdp", "zcdp", "rdp_table", "fdp_table"])
def test_methods_check_their_arguments(call, name):
    with pytest.raises(InvalidArgument):
        call(CLAIMS[name])


def test_privacy_claim_is_unchanged():
    c = PrivacyClaim(1, 1e-5)
    assert c.to_dict() == {"epsilon": 1.0, "delta": 1e-5}
    assert (c.epsilon, c.delta) == (1.0, 1e-5)
    with pytest.raises(InvalidArgument, match=r"epsilon=0 must be a finite number > 0"):
        PrivacyClaim(0)
    with pytest.raises(InvalidArgument, match=r"delta=1.0 must be a number in \[0, 1\)"):
        PrivacyClaim(1.0, 1.0)


# -- command line and serialisation --------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("pure:eps=1", PrivacyClaim(1.0)),
        ("dp:epsilon=2.5", PrivacyClaim(2.5)),
        ("DP:EPS=1", PrivacyClaim(1.0)),
        ("approx:eps=1,delta=1e-5", PrivacyClaim(1.0, 1e-5)),
        (" approx : delta = 1e-5 , epsilon = 1 ", PrivacyClaim(1.0, 1e-5)),
        ("gdp:mu=1", GaussianDP(1.0)),
        ("Gdp:mu=0.5", GaussianDP(0.5)),
        ("zcdp:rho=0.5", ZeroConcentratedDP(0.5)),
        ("rdp:2=0.5,4=1.2,8=2.0", RenyiDP({2.0: 0.5, 4.0: 1.2, 8.0: 2.0})),
        ("RDP:1.5=0.1", RenyiDP({1.5: 0.1})),
        ("profile:0.5=1e-3,1=1e-5", PrivacyProfile({0.5: 1e-3, 1.0: 1e-5})),
        ("Profile:0=1", PrivacyProfile({0.0: 1.0})),
        ("fdp:0.01=0.9,0.1=0.6", TradeOffDP({0.01: 0.9, 0.1: 0.6})),
    ],
)
def test_parse_claim_forms(text, expected):
    assert parse_claim(text) == expected


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("laplace:eps=1", "unknown kind 'laplace'"),
        ("eps=1", "expected kind:key=value"),
        ("pure:", "pure needs epsilon"),
        ("approx:eps=1", "approx needs delta"),
        ("pure:eps=one", "eps='one' is not a number"),
        ("pure:eps=1,delta=1e-5", "pure takes no key 'delta'"),
        ("pure:eps=1,eps=2", "'eps' is given twice"),
        ("pure:eps", "'eps' is not key=value"),
        ("pure:eps=0", "epsilon=0.0 must be a finite number > 0"),
        ("pure:eps=-1", "epsilon=-1.0"),
        ("approx:eps=1,delta=1", r"delta=1.0 must be a number in \[0, 1\)"),
        ("approx:eps=1,delta=-0.1", "delta=-0.1"),
        ("gdp:mu=0", "mu=0.0 must be a finite number > 0"),
        ("gdp:rho=1", "gdp takes no key 'rho'"),
        ("zcdp:rho=-0.5", "rho=-0.5"),
        ("zcdp:rho=nan", "rho=nan"),
        ("rdp:1=0.5", "order '1' must be a finite number > 1"),
        ("rdp:0.5=0.5", "order '0.5'"),
        ("rdp:2=-1", "eps\\(2\\)='-1'"),
        ("rdp:two=1", "order='two' is not a number"),
        ("rdp:2=1,2.0=3", "appears twice"),
        ("rdp:", "rdp needs order=eps pairs"),
        ("profile:", "profile needs eps=delta pairs"),
        ("profile:1=2", r"delta\(1\)='2' must be in \[0, 1\]"),
        ("profile:-1=1e-5", "eps '-1' must be a finite number >= 0"),
        ("profile:inf=0", "eps 'inf'"),
        ("profile:1=1e-5,1.0=1e-6", "eps '1.0' appears twice"),
        ("fdp:1.5=0", r"alpha '1.5' must be in \[0, 1\]"),
        ("fdp:0.1=0.95", "not a trade-off function"),
        ("fdp:0.1=0.5,0.2=0.6", "fdp:0.1=0.5,0.2=0.6"),
    ],
)
def test_parse_claim_errors_list_the_accepted_forms(text, match):
    with pytest.raises(InvalidArgument, match=match) as info:
        parse_claim(text)
    assert CLAIM_SYNTAX in str(info.value)


def test_claim_syntax_documents_every_form():
    forms = ("pure:eps=1", "approx:eps=1,delta=1e-5", "gdp:mu=1", "zcdp:rho=0.5", "rdp:2=")
    for form in (*forms, "profile:0.5=", "fdp:0.01="):
        assert form in CLAIM_SYNTAX
        parse_claim(form + ("0.5" if form.endswith("=") else ""))


def test_a_profile_given_as_text_is_the_table_claim_and_refutes_what_it_should():
    """The text form is the table claim: a corner beyond (0.5, 1e-3) is refuted (scale above
    1), one within it is not."""
    claim = parse_claim("profile:0.5=1e-3,1=1e-5")
    assert claim.kind == "profile" and claim.certified(0.5, 0.1) > 1.0
    assert claim.certified(0.15, 0.1) < 1.0  # ln 1.5 < 0.5


@pytest.mark.parametrize("name", sorted(CLAIMS))
def test_dict_round_trip(name):
    claim = CLAIMS[name]
    d = claim_to_dict(claim)
    assert d["kind"] == claim.kind
    back = claim_from_dict(json.loads(json.dumps(d, allow_nan=False)))
    assert back.kind == claim.kind and back.value == claim.value
    assert claim_to_dict(back) == d
    if name in ("rdp_callable", "profile_callable", "fdp_callable"):
        assert d["name"] and d["table"]
        # a callable comes back as a table: never stronger than the callable
        for p0, p1 in [(0.9, 0.2), (0.6, 0.4), (0.99, 1e-6), (0.3, 0.01)]:
            assert back.certified(p0, p1) <= claim.certified(p0, p1) * (1 + 1e-9)
    else:
        assert back == claim


def test_privacy_claim_dicts():
    assert claim_to_dict(PrivacyClaim(1.0)) == {"kind": "pure", "epsilon": 1.0, "delta": 0.0}
    assert claim_to_dict(PrivacyClaim(1.0, 1e-5)) == {
        "kind": "approx",
        "epsilon": 1.0,
        "delta": 1e-5,
    }
    assert claim_from_dict({"epsilon": 1.0, "delta": 1e-5}) == PrivacyClaim(1.0, 1e-5)
    assert claim_from_dict({"epsilon": 2}) == PrivacyClaim(2.0)
    assert claim_from_dict({"kind": "gdp", "mu": 1}) == GaussianDP(1.0)


@pytest.mark.parametrize(
    ("d", "match"),
    [
        ([1, 2], "must be a dict"),
        ({"mu": 1.0}, "no 'kind'"),
        ({"kind": "laplace", "b": 1}, "kind='laplace'"),
        ({"kind": "gdp"}, "missing key 'mu'"),
        ({"kind": "gdp", "mu": 1.0, "sigma": 1.0}, "unknown keys"),
        ({"kind": "pure", "epsilon": 1.0, "delta": 0.1}, "delta=0.1"),
        ({"kind": "rdp", "table": "2=0.5"}, "list of pairs"),
        ({"kind": "zcdp", "rho": 0}, "rho=0"),
    ],
)
def test_claim_from_dict_errors(d, match):
    with pytest.raises(InvalidArgument, match=match):
        claim_from_dict(d)


def test_as_claim_takes_objects_text_and_dicts():
    for claim in CLAIMS.values():
        assert as_claim(claim) is claim
    assert as_claim("gdp:mu=1") == GaussianDP(1.0)
    assert as_claim({"epsilon": 1.0, "delta": 1e-5}) == PrivacyClaim(1.0, 1e-5)
    assert as_claim({"kind": "zcdp", "rho": 0.5}) == ZeroConcentratedDP(0.5)
    with pytest.raises(InvalidArgument, match="unknown kind"):
        as_claim("laplace:b=1")
    with pytest.raises(InvalidArgument, match="must be a claim"):
        as_claim(1.0)
